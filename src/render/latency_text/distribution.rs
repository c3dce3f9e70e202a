//! The per-load latency distribution of `latency --distribution`: the counter and the timer
//! cost it subtracts, the percentiles with their order-statistic intervals, the chase on the
//! same chain beside them, and the histogram as bars.

use crate::render::format::estimate::num;
use std::io::{self, Write};

use super::ghz;
use crate::render::run_view::latency_dist;
use crate::results::latency::{HistogramBin, LatencyReport, LoadDistribution};

/// Width of the longest histogram bar, characters.
const BAR: usize = 40;

/// The per-load distribution: counter, overhead, percentiles beside the chase, and the
/// histogram from the first bin to the one holding p99 (the tail summed on one line).
pub(super) fn distribution(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    let Some(d) = &r.distribution else {
        return Ok(());
    };
    let disturbed = match d.quality.as_ref().is_some_and(|q| q.disturbed) {
        true => " (disturbed: the retakes ran out)",
        false => "",
    };
    writeln!(
        out,
        "\n{}: {} groups of {} dependent loads{disturbed}",
        latency_dist::latency_histogram_heading(Some(r)),
        d.groups,
        d.loads_per_group
    )?;
    let inv = match d.counter_invariant {
        Some(true) => "invariant",
        Some(false) => "NOT invariant",
        None => "invariance unknown",
    };
    writeln!(
        out,
        "  counter: {} at {} ({inv})",
        d.counter,
        ghz(Some(d.counter_hz))
    )?;
    let o = &d.timer_overhead;
    writeln!(
        out,
        "  timer cost: {} ns per group subtracted (median of {} empty reads; min {}, p10 {}, p90 {}, p99 {}); {} groups clamped to 0",
        num(o.median_ns),
        o.reads,
        num(o.min_ns),
        num(o.p10_ns),
        num(o.p90_ns),
        num(o.p99_ns),
        d.clamped_groups
    )?;
    percentiles(d, out)?;
    let p = &d.ns_per_load;
    if let Some(c) = d.chase_ns_per_load_median {
        writeln!(
            out,
            "  chase on the same chain: {} ns per load (median of samples); p50 / chase = {}",
            num(c),
            num(p.p50 / c)
        )?;
    }
    if let Some(c) = d.interleaved_chase_ns_per_load_median {
        writeln!(
            out,
            "  chase between the timed batches (same window): {} ns per load (median of spans); p50 / chase = {}, mean / chase = {}",
            num(c),
            num(p.p50 / c),
            num(p.mean / c)
        )?;
    }
    write!(out, "{}", histogram_text(d))
}

/// The percentiles, then their order-statistic intervals where the file has them.
fn percentiles(d: &LoadDistribution, out: &mut dyn Write) -> io::Result<()> {
    let p = &d.ns_per_load;
    let named = p.named();
    let values: Vec<String> = named
        .iter()
        .map(|(name, v, _)| format!("{name} {}", num(*v)))
        .collect();
    writeln!(
        out,
        "  ns per load: {}  (min {}, max {}, mean {})",
        values.join("  "),
        num(p.min),
        num(p.max),
        num(p.mean)
    )?;
    if p.intervals.is_some() {
        let cis: Vec<String> = named
            .iter()
            .map(|(name, _, ci)| match ci {
                Some(c) => format!("{name} [{}, {}]", num(c.low), num(c.high)),
                None => format!("{name} none (too few groups)"),
            })
            .collect();
        let what = "95 % intervals (order statistics over the groups)";
        writeln!(out, "  {what}: {}", cis.join("  "))?;
    }
    Ok(())
}

/// The histogram as bars, one line per bin up to the bin holding p99; the tail (preemptions,
/// interrupts: up to ms) would be tens of near-empty lines, so it is one line.
fn histogram_text(d: &LoadDistribution) -> String {
    let cut = d.ns_per_load.p99;
    let shown: Vec<&HistogramBin> = d.histogram.iter().filter(|b| b.low_ns <= cut).collect();
    let rest: u64 = d
        .histogram
        .iter()
        .filter(|b| b.low_ns > cut)
        .map(|b| b.count)
        .sum();
    let most = shown.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    let mut s = String::new();
    for b in &shown {
        let len = ((b.count as f64 / most as f64) * BAR as f64).round() as usize;
        s.push_str(&format!(
            "  {:>8.1} - {:>8.1} ns |{:<BAR$}| {}\n",
            b.low_ns,
            b.high_ns,
            "#".repeat(len.max(usize::from(b.count > 0))),
            b.count
        ));
    }
    if rest > 0 {
        let from = shown.last().map_or(0.0, |b| b.high_ns);
        s.push_str(&format!(
            "  {:>8.1} - {:>8} ns |{:<BAR$}| {rest}\n",
            from, "more", ""
        ));
    }
    s
}
