//! The headline figures of a run picked out of its results: the idle DRAM latency and the
//! peak bandwidth, each with where it comes from.

use super::nodes_text;
use crate::results::RunResults;

/// Idle DRAM latency: the local diagonal of the matrix (lowest), else the largest working set
/// of the first random-walk curve. Returns (ns, where it comes from).
pub fn idle_dram_latency(r: &RunResults) -> Option<(f64, String)> {
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
            return Some((
                c.result.ns_per_load.median,
                format!(
                    "node {} local, {} working set",
                    c.memory_node,
                    crate::render::svg::bytes_short(m.working_set_bytes as f64)
                ),
            ));
        }
    }
    let c = l
        .sweep
        .iter()
        .find(|c| c.mode == crate::results::latency::Mode::Random)
        .or(l.sweep.first())?;
    let p = c.points.last()?;
    Some((
        p.ns_per_load.median,
        format!(
            "{} walk, {} working set",
            c.mode.label(),
            crate::render::svg::bytes_short(p.working_set_bytes as f64)
        ),
    ))
}

/// Peak bandwidth measured in any part: (MB/s, where).
pub fn peak_bandwidth(r: &RunResults) -> Option<(f64, String)> {
    let mut best: Option<(f64, String)> = None;
    let mut consider = |v: f64, what: String| {
        if v.is_finite() && !matches!(&best, Some(b) if v <= b.0) {
            best = Some((v, what));
        }
    };
    for b in r
        .bandwidth
        .iter()
        .chain(r.scaling.iter())
        .flat_map(|b| &b.results)
    {
        consider(
            b.mb_per_s.median,
            format!(
                "{} kernel, {} thread{}, memory on node {}",
                b.kernel,
                b.threads,
                if b.threads == 1 { "" } else { "s" },
                nodes_text(&b.memory_nodes)
            ),
        );
    }
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            if let Some(v) = row.bandwidth() {
                consider(v, format!("scenario ({}) {}", row.letter, row.label));
            }
        }
    }
    best
}
