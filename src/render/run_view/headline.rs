//! The headline figures of a run picked out of its results: the idle DRAM latency and the
//! peak bandwidth, each with where it comes from. When the run measured its reference figures
//! (local idle latency and local read bandwidth in repetitions spread over the run), those
//! come first: they are the run's one figure for each quantity.

use super::nodes_text;
use crate::results::RunResults;

/// " (disturbed: ...)" appended to a headline's label when its figure is marked disturbed.
const DISTURBED_CLAUSE: &str =
    "; DISTURBED: its repetitions stayed disturbed after the retakes ran out";

fn disturbed(q: Option<&crate::results::quality::RepetitionQuality>) -> bool {
    q.is_some_and(|q| q.disturbed)
}

fn mark(mut what: String, d: bool) -> String {
    if d {
        what.push_str(DISTURBED_CLAUSE);
    }
    what
}

/// The run's reference latency: (ns, its conditions with interval, n and how it was measured,
/// disturbed); `None` when the run has none.
pub fn reference_latency(r: &RunResults) -> Option<(f64, String, bool)> {
    let l = r.reference.as_ref()?.latency.as_ref()?;
    let d = l.quality.disturbed;
    Some((
        l.ns_per_load.median,
        mark(
            format!(
                "the run's local idle latency: {} walk, {} working set, {} pages bound to node {}, 1 thread pinned to CPU {}, measured in repetitions spread across the run; {}",
                l.mode.label(),
                crate::render::svg::bytes_short(l.working_set_bytes as f64),
                l.page_size.label(),
                l.memory_node,
                l.cpu,
                interval_clause(&l.ns_per_load)
            ),
            d,
        ),
        d,
    ))
}

/// The run's reference read bandwidth: (MB/s, its conditions with interval and n, disturbed);
/// `None` when the run has none.
pub fn reference_bandwidth(r: &RunResults) -> Option<(f64, String, bool)> {
    let b = r.reference.as_ref()?.bandwidth.as_ref()?;
    let d = b.quality.disturbed;
    Some((
        b.mb_per_s.median,
        mark(
            format!(
                "the run's local read bandwidth: {} kernel, {} pinned thread{} on CPUs {} of node {}, {} per thread, {} pages bound to node {}, measured in repetitions spread across the run; {}{}",
                b.kernel,
                b.threads,
                if b.threads == 1 { "" } else { "s" },
                crate::results::format::format_list(&b.cpus),
                b.memory_node,
                crate::render::svg::bytes_short(b.bytes_per_thread as f64),
                b.page_size.label(),
                b.memory_node,
                interval_clause(&b.mb_per_s),
                cache_note(r, b.bytes_per_thread * b.threads as u64)
            ),
            d,
        ),
        d,
    ))
}

/// Idle DRAM latency: the run's reference latency when it has one; else the local diagonal of
/// the matrix (lowest), else the largest working set of the first random-walk curve. Returns (ns, which measurement it is and under which
/// conditions (size, page size, walk, the one pinned CPU) with its interval, whether the
/// figure is disturbed). The label names its source so it is never read as the same figure as
/// another place's latency measured under other conditions (one quantity one figure).
pub fn idle_dram_latency(r: &RunResults) -> Option<(f64, String, bool)> {
    if let Some(x) = reference_latency(r) {
        return Some(x);
    }
    let l = r.latency.as_ref()?;
    if let Some(m) = &l.matrix {
        let best = m
            .cells
            .iter()
            .filter(|c| c.initiator_node == c.memory_node)
            .min_by(|a, b| {
                a.result
                    .ns_per_load
                    .median
                    .total_cmp(&b.result.ns_per_load.median)
            });
        if let Some(c) = best {
            let d = disturbed(c.result.quality.as_ref());
            return Some((
                c.result.ns_per_load.median,
                mark(
                    format!(
                        "latency matrix, node {} local, {} working set, {} pages, {} walk, CPU {}; {}",
                        c.memory_node,
                        crate::render::svg::bytes_short(m.working_set_bytes as f64),
                        m.page_size.label(),
                        m.mode.label(),
                        c.result.cpu,
                        interval_clause(&c.result.ns_per_load)
                    ),
                    d,
                ),
                d,
            ));
        }
    }
    let c = l
        .sweep
        .iter()
        .find(|c| c.mode == crate::results::latency::Mode::Random)
        .or(l.sweep.first())?;
    let p = c.points.last()?;
    let d = disturbed(p.quality.as_ref());
    Some((
        p.ns_per_load.median,
        mark(
            format!(
                "latency sweep's largest point, {} walk, {} working set, {} pages, CPU {}; {}",
                c.mode.label(),
                crate::render::svg::bytes_short(p.working_set_bytes as f64),
                c.page_size.label(),
                p.cpu,
                interval_clause(&p.ns_per_load)
            ),
            d,
        ),
        d,
    ))
}

/// "95 % interval [226, 240], n=9" or "no interval (n=2)", for a headline's label.
pub fn interval_clause(s: &crate::stats::Summary) -> String {
    match (s.ci.map(|c| c.low), s.ci.map(|c| c.high)) {
        (Some(l), Some(h)) => format!(
            "95 % interval [{}, {}]{}, n={}",
            super::fmt_num(l),
            super::fmt_num(h),
            width_clause(s.median, l, h),
            s.samples
        ),
        _ => format!("{} (n={})", super::no_interval(s.samples), s.samples),
    }
}

/// " (\u{b1}3.1 %)": the interval's half-width relative to the median, so the gap to the run's
/// precision target is visible beside every headline; "" for a zero median.
pub fn width_clause(median: f64, low: f64, high: f64) -> String {
    if median == 0.0 || !median.is_finite() {
        return String::new();
    }
    format!(
        " (\u{b1}{:.1} %)",
        (high - low) / 2.0 / median.abs() * 100.0
    )
}

/// " (a cache figure: its working set fits the last-level cache)" when `bytes` fits the
/// machine's last-level cache, else "".
pub fn cache_note(r: &RunResults, bytes: u64) -> &'static str {
    let llc = r.topology.llc_total_bytes();
    if llc > 0 && bytes <= llc {
        "; a cache figure, not DRAM: the working set fits the last-level cache"
    } else {
        ""
    }
}

/// Peak bandwidth measured in any part: (MB/s, where with its interval, disturbed).
pub fn peak_bandwidth(r: &RunResults) -> Option<(f64, String, bool)> {
    let mut best: Option<(f64, String, bool)> = None;
    let mut consider = |v: f64, what: String, d: bool| {
        if v.is_finite() && !matches!(&best, Some(b) if v <= b.0) {
            best = Some((v, mark(what, d), d));
        }
    };
    for b in r
        .bandwidth
        .iter()
        .chain(r.scaling.iter())
        .flat_map(|b| &b.results)
    {
        let ci = match (b.mb_per_s.ci.map(|c| c.low), b.mb_per_s.ci.map(|c| c.high)) {
            (Some(l), Some(h)) => format!(
                "95 % interval [{}, {}]{}, n={}",
                super::fmt_num(l),
                super::fmt_num(h),
                width_clause(b.mb_per_s.median, l, h),
                b.mb_per_s.samples
            ),
            _ => format!(
                "{} (n={})",
                super::no_interval(b.mb_per_s.samples),
                b.mb_per_s.samples
            ),
        };
        consider(
            b.mb_per_s.median,
            format!(
                "{} kernel, {} thread{}, memory on node {}, {} working set, {} pages; {ci}{}",
                b.kernel,
                b.threads,
                if b.threads == 1 { "" } else { "s" },
                nodes_text(&b.memory_nodes),
                crate::render::svg::bytes_short(b.working_set_bytes as f64),
                b.page_size.label(),
                cache_note(r, b.working_set_bytes)
            ),
            disturbed(b.quality.as_ref()),
        );
    }
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            if let Some(m) = &row.mb_per_s {
                consider(
                    m.median,
                    format!(
                        "scenario ({}) {}; {}",
                        row.letter,
                        row.label,
                        interval_clause(m)
                    ),
                    disturbed(row.quality.as_ref()),
                );
            }
        }
    }
    best
}
