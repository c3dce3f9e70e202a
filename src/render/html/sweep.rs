//! The latency section's curves: latency against working set, bandwidth against working set
//! when the run has it, and the per-load distribution ([`super::latency_dist`]). Each caption
//! is made from what its chart draws: the cache sizes named are the chart's dashed lines, and
//! the knees said found are the lines marked on it, so caption and chart cannot disagree.

use super::page::Page;
use super::parts::intervals_note;
use crate::render::run_view as view;
use crate::render::svg::{bytes_short, LineChart};
use crate::results::RunResults;

/// Suffix of a knee's marker label (`L2 knee`); the other markers are cache sizes.
const KNEE: &str = " knee";

pub(super) fn latency_sweep(p: &mut Page, r: &RunResults) -> bool {
    let latency = view::latency::latency_sweep_chart(r);
    if let Some(c) = &latency {
        // A sweep in passes summarises each size by its block medians.
        let blocked = r
            .latency
            .iter()
            .flat_map(|l| &l.sweep)
            .any(|s| s.points.iter().any(|x| x.blocks.is_some()));
        let what = if blocked {
            "median of the block medians, the blocks spread over the sweep in passes"
        } else {
            "median of the samples"
        };
        p.line_chart(
            c,
            &format!(
                "ns per load ({what}) against working set; x axis in powers of two, y axis \
                 logarithmic so cache and DRAM levels both show. {} {} {}",
                intervals_note(c),
                cache_lines(c),
                knees_note(r, c)
            ),
        );
    }
    let bandwidth = view::bandwidth_sweep::bandwidth_sweep_chart(r);
    if let Some(c) = &bandwidth {
        bandwidth_chart(p, c);
    }
    super::latency_dist::latency_distribution(p, r);
    latency.is_some() || bandwidth.is_some()
}

/// Bandwidth against working set: in the run report's latency section and on the page of
/// `bandwidth --sweep --html`.
pub(super) fn bandwidth_chart(p: &mut Page, c: &LineChart) {
    let caption = format!(
        "MB/s (median of the repetitions, all threads together, MB = 10^6 bytes) against the \
         working set per thread; x axis in powers of two. {} {}",
        cache_lines(c),
        intervals_note(c)
    );
    p.line_chart(c, &caption);
}

/// The chart's dashed cache-size lines, named, or that it has none.
fn cache_lines(c: &LineChart) -> String {
    let caches: Vec<&str> = c
        .markers
        .iter()
        .filter(|m| !m.label.ends_with(KNEE))
        .map(|m| m.label.as_str())
        .collect();
    if caches.is_empty() {
        "No cache sizes from sysfs, so no cache lines are drawn.".into()
    } else {
        format!(
            "Dashed lines: cache sizes from sysfs ({}).",
            caches.join(", ")
        )
    }
}

/// The knees marked on the chart, and for the levels without one what the detector needs and
/// what this sweep gave it: a knee is the end of a plateau (two or more consecutive sweep
/// points covering an octave within 12 % of each other, 24 % at one point per octave) inside
/// the level's range, so a step between single points is not one.
fn knees_note(r: &RunResults, c: &LineChart) -> String {
    let marked: Vec<String> = c
        .markers
        .iter()
        .filter_map(|m| {
            let level = m.label.strip_suffix(KNEE)?;
            Some(format!("{level} at {}", bytes_short(m.x)))
        })
        .collect();
    let Some(curve) = view::latency::leading_knees(r.latency.as_ref()) else {
        return if c.markers.is_empty() {
            String::new()
        } else {
            "This results file holds no knee analysis of the curve.".into()
        };
    };
    let missing: Vec<&str> = curve
        .levels
        .iter()
        .filter(|k| k.sysfs_bytes.is_some() && k.knee_bytes.is_none())
        .map(|k| k.level.as_str())
        .collect();
    let mut s = String::new();
    if !marked.is_empty() {
        s = format!(
            "Knees (where latency leaves a cache level's plateau), marked: {}.",
            marked.join(", ")
        );
    }
    if !missing.is_empty() {
        s.push_str(&format!(
            " No knee for {}: a knee is the end of a plateau (consecutive points covering an \
             octave within 12 % of each other, 24 % at one point per octave) inside the \
             level's range, and this sweep has {} (a step between single points is not one).",
            missing.join(", "),
            points_per_octave(r)
        ));
    }
    s.trim_start().to_string()
}

/// `1 point per octave`: the density of the first curve's grid.
fn points_per_octave(r: &RunResults) -> String {
    let sizes: Vec<f64> = r
        .latency
        .iter()
        .flat_map(|l| l.sweep.first())
        .flat_map(|c| &c.points)
        .map(|p| p.working_set_bytes as f64)
        .collect();
    let (Some(lo), Some(hi)) = (sizes.first(), sizes.last()) else {
        return "no points".into();
    };
    let octaves = (hi / lo).log2().max(1.0);
    let per = ((sizes.len() as f64 - 1.0) / octaves).max(0.0);
    format!(
        "{} point{} per octave",
        crate::render::svg::trim_num(per, 1),
        if per == 1.0 { "" } else { "s" }
    )
}
