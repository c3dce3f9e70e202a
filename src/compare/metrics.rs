//! The figures of a run that `compare` sets side by side, as metrics with their direction
//! (lower or higher is better), pulled from a finished `RunResults`. Keys and labels use the
//! report's own wording (node lists, short byte sizes, the bandwidth matrix cells as the report
//! shows them) so a comparison names a figure as the report does; that is why this compute
//! step reads `crate::render` helpers (render never reads back).

use crate::render::run_view::{bw_matrix, nodes_text};
use crate::results::compare::{Better, Metric, RunMetrics};
use crate::results::quality::RepetitionQuality;
use crate::results::RunResults;
use crate::stats::Summary;

fn metric(key: String, label: String, unit: &str, better: Better, s: &Summary) -> Metric {
    Metric::from_summary(key, label, unit, better, s)
}

/// The metric marked disturbed when its engine's quality record says so.
fn marked(mut m: Metric, q: Option<&RepetitionQuality>) -> Metric {
    m.disturbed = q.is_some_and(|q| q.disturbed);
    m
}

/// The figures `compare` sets side by side, each with the spread the run recorded.
pub fn metrics(r: &RunResults, name: &str) -> RunMetrics {
    let mut out = Vec::new();
    latency_metrics(r, &mut out);
    bandwidth_metrics(r, &mut out);
    bandwidth_matrix_metrics(r, &mut out);
    scenarios_metrics(r, &mut out);
    loaded_metrics(r, &mut out);
    c2c_metrics(r, &mut out);
    RunMetrics {
        name: name.into(),
        metrics: out,
        verdict: r.quality.as_ref().map(|q| q.verdict),
        virtual_machine: r.topology.environment.hypervisor,
    }
}

/// Latency: every matrix cell and the largest working set of each sweep curve.
fn latency_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(l) = &r.latency {
        if let Some(m) = &l.matrix {
            for c in &m.cells {
                out.push(marked(
                    metric(
                        format!("latency-matrix/{}->{}", c.initiator_node, c.memory_node),
                        format!(
                            "idle latency, CPU node {} -> memory node {}",
                            c.initiator_node, c.memory_node
                        ),
                        "ns",
                        Better::Lower,
                        &c.result.ns_per_load,
                    ),
                    c.result.quality.as_ref(),
                ));
            }
        }
        for c in &l.sweep {
            if let Some(p) = c.points.last() {
                out.push(marked(
                    metric(
                        format!(
                            "latency-sweep/{}/{}/{}",
                            c.mode.label(),
                            c.page_size.label(),
                            c.chains
                        ),
                        format!(
                            "latency at {} ({} walk, {} pages)",
                            crate::render::svg::bytes_short(p.working_set_bytes as f64),
                            c.mode.label(),
                            c.page_size.label()
                        ),
                        "ns",
                        Better::Lower,
                        &p.ns_per_load,
                    ),
                    p.quality.as_ref(),
                ));
            }
        }
    }
}

/// Bandwidth results outside the matrix (all CPUs, other placements), one per key.
fn bandwidth_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(b) = &r.bandwidth {
        // Matrix cells are compared below; here the runs on all CPUs and other placements.
        let in_matrix: Vec<usize> = b
            .matrix
            .iter()
            .flat_map(|m| m.cells.iter().map(|c| c.result_index))
            .collect();
        for (i, k) in b
            .results
            .iter()
            .enumerate()
            .filter(|(i, _)| !in_matrix.contains(i))
        {
            let key = format!(
                "bandwidth/{}/{}t/{}/{}->{}",
                k.kernel,
                k.threads,
                k.placement,
                nodes_text(&k.cpu_nodes),
                nodes_text(&k.memory_nodes)
            );
            if out.iter().any(|m: &Metric| m.key == key) {
                continue;
            }
            let _ = i;
            let s = Summary {
                median: k.mb_per_s.median,
                min: k.mb_per_s.min,
                max: k.mb_per_s.max,
                p90: k.mb_per_s.max,
                p99: k.mb_per_s.max,
                samples: k.mb_per_s.samples,
                ci_low: k.mb_per_s.ci_low,
                ci_high: k.mb_per_s.ci_high,
                ci_level: k.mb_per_s.ci_level,
            };
            out.push(marked(
                metric(
                    key,
                    format!(
                        "bandwidth, {}, {} thread{}, {} memory, nodes {} -> {}",
                        k.kernel,
                        k.threads,
                        if k.threads == 1 { "" } else { "s" },
                        k.placement,
                        nodes_text(&k.cpu_nodes),
                        nodes_text(&k.memory_nodes)
                    ),
                    "MB/s",
                    Better::Higher,
                    &s,
                ),
                k.quality.as_ref(),
            ));
        }
    }
}

/// The bandwidth matrix cells of the first kernel.
fn bandwidth_matrix_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let kernel = r
        .bandwidth
        .as_ref()
        .and_then(|b| b.matrix.first())
        .map(|m| m.kernel.clone())
        .unwrap_or_default();
    for c in bw_matrix(r) {
        let (a, b) = (c.initiator, c.target);
        out.push(marked(
            metric(
                format!("bandwidth-matrix/{kernel}/{a}->{b}"),
                format!("bandwidth ({kernel}), CPU node {a} -> memory node {b}"),
                "MB/s",
                Better::Higher,
                &c.mb_per_s,
            ),
            c.quality,
        ));
    }
}

/// Every measured policy scenario.
fn scenarios_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            if let Some(m) = &row.mb_per_s {
                out.push(marked(
                    metric(
                        format!("scenario/{}", row.letter),
                        format!("scenario ({}) {}", row.letter, row.label),
                        "MB/s",
                        Better::Higher,
                        m,
                    ),
                    row.quality.as_ref(),
                ));
            }
        }
    }
}

/// The loaded-latency curve: idle latency and latency at peak load.
fn loaded_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(l) = &r.loaded_latency {
        if let Some(idle) = l.points.iter().find(|p| p.delay_ns.is_none()) {
            out.push(marked(
                metric(
                    "loaded/idle".into(),
                    "loaded-latency curve, idle latency".into(),
                    "ns",
                    Better::Lower,
                    &idle.ns_per_load,
                ),
                idle.quality.as_ref(),
            ));
        }
        if let Some(peak) = l
            .points
            .iter()
            .max_by(|a, b| a.total_mb_per_s.total_cmp(&b.total_mb_per_s))
        {
            out.push(marked(
                metric(
                    "loaded/peak-latency".into(),
                    "loaded-latency curve, latency at peak load".into(),
                    "ns",
                    Better::Lower,
                    &peak.ns_per_load,
                ),
                peak.quality.as_ref(),
            ));
        }
    }
}

/// Core-to-core relation groups, disturbed when any pair of the group is.
fn c2c_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    for c in r.c2c.iter() {
        for g in &c.groups {
            let mut m = metric(
                format!("c2c/{}", g.label),
                format!("core to core, {}", g.label),
                "ns",
                Better::Lower,
                &g.ns_one_way,
            );
            m.disturbed = c.pairs.iter().any(|p| {
                p.relation == g.relation && p.quality.as_ref().is_some_and(|q| q.disturbed)
            });
            out.push(m);
        }
    }
}
