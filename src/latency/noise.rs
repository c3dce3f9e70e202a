//! The warnings a latency job words from its finished results: samples or block medians that
//! spread more than [`NOISY`] (p90 over min), one line for a sweep's curves together, and the
//! sizes whose samples stayed disturbed after the retakes ran out. Pure functions; nothing here
//! measures.

use super::engine::Spread;
use crate::results::latency::{LatencyResult, SweepCurve};
use crate::results::quality::RepetitionQuality;

/// p90 / min above this marks a measurement as disturbed.
pub(crate) const NOISY: f64 = 1.25;

/// "at 64 MiB" or "3 of 20 sizes between 1 MiB and 64 MiB", for the sizes picked out.
fn sizes_phrase(picked: &[u64], of: usize) -> Option<String> {
    let fb = crate::results::format::format_bytes;
    let (first, last) = (picked.first()?, picked.last()?);
    Some(if picked.len() == 1 {
        fb(*first)
    } else {
        format!(
            "{} of {of} sizes between {} and {}",
            picked.len(),
            fb(*first),
            fb(*last)
        )
    })
}

/// Whether a result's samples (or block medians) spread more than [`NOISY`] (p90 over min).
fn is_noisy(r: &LatencyResult) -> bool {
    r.ns_per_load.p90 > NOISY * r.ns_per_load.min
}

/// One warning when samples (or block medians, taken in `between`: "the sweep's passes",
/// "its blocks", "the matrix's rounds") spread more than [`NOISY`] (p90 over min) at some
/// sizes.
pub(crate) fn noise_warning_between(
    results: &[LatencyResult],
    where_: &str,
    between: &str,
) -> Option<String> {
    let noisy: Vec<&LatencyResult> = results.iter().filter(|r| is_noisy(r)).collect();
    let sizes: Vec<u64> = noisy.iter().map(|r| r.working_set_bytes).collect();
    let at = sizes_phrase(&sizes, results.len())?;
    Some(worded(&format!("at {at} for {where_}"), &noisy, between))
}

/// The warning for the `noisy` results, placed by `at_where` ("at 64 MiB for 4k pages on
/// CPU 0 ..."): block medians changing between `between` when they were taken in blocks,
/// samples slowed otherwise, with the cause each points to.
fn worded(at_where: &str, noisy: &[&LatencyResult], between: &str) -> String {
    let pct = 100.0 * (NOISY - 1.0);
    // When every noisy size was judged and its thread kept its CPU, the spread came from
    // elsewhere: other work on the memory system (other processes, or other tenants of the
    // host), which no CPU-share probe sees.
    let kept_cpu = noisy
        .iter()
        .map(|r| r.quality.as_ref())
        .collect::<Option<Vec<_>>>()
        .filter(|q| q.iter().all(|q| !q.disturbed))
        .and_then(|q| {
            q.iter()
                .filter_map(|q| q.lowest_kept_cpu_share_fraction)
                .reduce(f64::min)
        });
    // Measured in blocks (a sweep's passes, a size's blocks): its figures are block medians,
    // spread over the measurement's time.
    if noisy.iter().any(|r| r.blocks.is_some()) {
        let cause = match kept_cpu {
            Some(share) => format!(
                "the thread kept its CPU (lowest share {:.0} %), so other work on the memory system (other processes, or other tenants of the host) changed between {between}",
                share * 100.0
            ),
            None => format!("conditions changed between {between} (other work on this CPU, or the hypervisor)"),
        };
        return format!(
            "block medians vary by more than {pct:.0} % (p90 over min) {at_where}: {cause}, and the intervals show it; rerun on an idle machine"
        );
    }
    let cause = match kept_cpu {
        Some(share) => format!(
            "the thread kept its CPU (lowest share {:.0} %), so other work on the memory system (other processes, or other tenants of the host) slowed some samples; the median's interval counts them",
            share * 100.0
        ),
        None => "something else ran on this CPU".into(),
    };
    format!(
        "samples vary by more than {pct:.0} % (p90 over min) {at_where}: {cause}; rerun on an idle machine or with more --samples"
    )
}

/// One warning for every curve of a sweep whose block medians spread more than [`NOISY`]
/// (p90 over min) at some points: how many points of how many curves, each curve's count, the
/// range of sizes, and the cause as [`noise_warning_between`] words it, so that four curves
/// of one sweep give one line instead of four that differ only in their counts.
pub(crate) fn sweep_noise_warning(curves: &[SweepCurve], where_: &str) -> Option<String> {
    let between = Spread::Sweep.between();
    let per_curve: Vec<Vec<&LatencyResult>> = curves
        .iter()
        .map(|c| c.points.iter().filter(|r| is_noisy(r)).collect())
        .collect();
    let hit: Vec<usize> = (0..curves.len())
        .filter(|&k| !per_curve[k].is_empty())
        .collect();
    if hit.len() < 2 {
        let one = &curves[*hit.first()?];
        let what = format!("{} pages {}", one.page_size.label(), where_);
        return noise_warning_between(&one.points, &what, between);
    }
    let counts: Vec<String> = hit
        .iter()
        .map(|&k| {
            let c = &curves[k];
            let (mode, page) = (c.mode.label(), c.page_size.label());
            format!("{mode} {page} {}", per_curve[k].len())
        })
        .collect();
    let all: Vec<&LatencyResult> = per_curve.concat();
    let points: usize = curves.iter().map(|c| c.points.len()).sum();
    let lo = all.iter().map(|r| r.working_set_bytes).min()?;
    let hi = all.iter().map(|r| r.working_set_bytes).max()?;
    let fb = crate::results::format::format_bytes;
    let at_where = format!(
        "at {} of {points} points of {} curves ({}) between {} and {} {where_}",
        all.len(),
        curves.len(),
        counts.join(", "),
        fb(lo),
        fb(hi)
    );
    Some(worded(&at_where, &all, between))
}

/// One warning naming the sizes whose samples stayed disturbed after the retakes ran out,
/// with the reason of the worst of them.
pub(crate) fn disturbed_warning(results: &[LatencyResult], where_: &str) -> Option<String> {
    let disturbed: Vec<&LatencyResult> = results
        .iter()
        .filter(|r| r.quality.as_ref().is_some_and(|q| q.disturbed))
        .collect();
    let sizes: Vec<u64> = disturbed.iter().map(|r| r.working_set_bytes).collect();
    let at = sizes_phrase(&sizes, results.len())?;
    let worst = disturbed
        .iter()
        .filter_map(|r| r.quality.as_ref())
        .min_by(|a, b| {
            let s = |q: &RepetitionQuality| q.lowest_taken_cpu_share_fraction.unwrap_or(1.0);
            s(a).total_cmp(&s(b))
        })?;
    Some(format!(
        "latency at {at} for {where_}: {}",
        crate::render::words::disturbed::reason(worst)?
    ))
}
