//! The metrics of the detail a run records beyond its summary: every scaling point, every
//! peak injection run, every loaded-latency mix, the RightMark and per-stream tables' cells
//! and the per-load distribution's percentiles, each under the conditions it was measured in.

use super::{marked, metric, threads};
use crate::render::run_view::nodes_text;
use crate::results::compare::{Better, Metric};
use crate::results::format::format_bytes;
use crate::results::tables::RoundFigure;
use crate::results::RunResults;
use crate::stats::Summary;

/// Every point of every scaling curve: a thread count of one kernel, packed or spread.
pub(super) fn scaling_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let Some(b) = &r.scaling else { return };
    for sc in &b.scaling {
        for series in &sc.series {
            // The curve as the report's scaling table names it (`read, node 0, packed`).
            let curve = match series.node {
                Some(n) => format!("{}, node {n}, {}", sc.kernel, series.mode),
                None => format!("{}, all nodes, {}", sc.kernel, series.mode),
            };
            let node_key = series.node.map_or("all".to_string(), |n| n.to_string());
            for p in &series.points {
                let result = b.results.get(p.result_index);
                // The point's median with its run's interval, as the report shows it.
                let mut s = result.map_or(Summary::point(p.mb_per_s, 0), |k| k.mb_per_s.summary());
                s.median = p.mb_per_s;
                let mut m = marked(
                    metric(
                        format!(
                            "scaling/{}/{}/{node_key}/{}t",
                            sc.kernel, series.mode, p.threads
                        ),
                        format!("scaling, {curve}, {}", threads(p.threads)),
                        "MB/s",
                        Better::Higher,
                        &s,
                    ),
                    result.and_then(|k| k.quality.as_ref()),
                );
                if let Some(k) = result {
                    m = m.under(format!(
                        "{} per thread, {} pages",
                        format_bytes(k.array_bytes_per_thread),
                        k.page_size.label()
                    ));
                }
                out.push(m);
            }
        }
    }
}

/// Peak injection bandwidth: every mix at every thread count of every scope.
pub(super) fn peak_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let Some(p) = r.peak.as_ref().and_then(|b| b.peak.as_ref()) else {
        return;
    };
    for run in &p.runs {
        out.push(
            marked(
                metric(
                    format!("peak/{}{}/{}/{}t", run.level, run.id, run.mix, run.threads),
                    crate::render::words::labels::peak_run(run),
                    "MB/s",
                    Better::Higher,
                    &run.mb_per_s.summary(),
                ),
                Some(&run.quality),
            )
            .under(format!(
                "{} per thread, memory nodes {}",
                format_bytes(run.bytes_per_thread),
                nodes_text(&run.memory_nodes)
            )),
        );
    }
}

/// Every loaded-latency mix curve beside the first one: its idle latency, its latency at
/// peak load and the bandwidth at that peak; and the first curve's bandwidth at peak (its two
/// latencies are `loaded/idle` and `loaded/peak-latency` above).
pub(super) fn loaded_mix_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let peak_of = |l: &crate::results::loaded::LoadedResult| {
        l.points
            .iter()
            .max_by(|a, b| a.total_mb_per_s.total_cmp(&b.total_mb_per_s))
            .cloned()
    };
    let condition = |l: &crate::results::loaded::LoadedResult| {
        format!(
            "chaser {}, {} pages, {} loading {} each",
            format_bytes(l.chaser_size_bytes),
            l.page_size.label(),
            threads(l.load_cpus.len()),
            format_bytes(l.load_size_bytes_per_thread)
        )
    };
    let bandwidth = |p: &crate::results::loaded::LoadedPoint| {
        p.total_mb_per_s_summary
            .unwrap_or(Summary::point(p.total_mb_per_s, 0))
    };
    // One loaded point's figure, marked by the point's quality, under its curve's conditions.
    let point = |key: String,
                 label: String,
                 unit: &str,
                 better: Better,
                 s: &Summary,
                 p: &crate::results::loaded::LoadedPoint,
                 l: &crate::results::loaded::LoadedResult| {
        marked(metric(key, label, unit, better, s), p.quality.as_ref()).under(condition(l))
    };
    if let Some(l) = &r.loaded_latency {
        if let Some(peak) = peak_of(l) {
            out.push(point(
                "loaded-bandwidth/peak".into(),
                "loaded-latency curve, bandwidth at peak load".into(),
                "MB/s",
                Better::Higher,
                &bandwidth(&peak),
                &peak,
                l,
            ));
        }
    }
    for l in &r.loaded_latency_mixes {
        let mix = &l.kernel_label;
        if let Some(idle) = l.points.iter().find(|p| p.delay_ns.is_none()) {
            out.push(point(
                format!("loaded-mix/{mix}/idle"),
                format!("loaded-latency curve ({mix}), idle latency"),
                "ns",
                Better::Lower,
                &idle.ns_per_load,
                idle,
                l,
            ));
        }
        if let Some(peak) = peak_of(l) {
            out.push(point(
                format!("loaded-mix/{mix}/peak-latency"),
                format!("loaded-latency curve ({mix}), latency at peak load"),
                "ns",
                Better::Lower,
                &peak.ns_per_load,
                &peak,
                l,
            ));
            out.push(point(
                format!("loaded-bandwidth/{mix}/peak"),
                format!("loaded-latency curve ({mix}), bandwidth at peak load"),
                "MB/s",
                Better::Higher,
                &bandwidth(&peak),
                &peak,
                l,
            ));
        }
    }
}

/// A table cell's metric from its rounds' summary; `None` for a failed cell (no summary).
fn round_metric(
    key: String,
    label: String,
    unit: &str,
    better: Better,
    f: &RoundFigure,
    condition: String,
) -> Option<Metric> {
    let s = f.summary?;
    Some(marked(metric(key, label, unit, better, &s), f.quality.as_ref()).under(condition))
}

/// Every cell of the RightMark table: each figure of each CPU node x memory node.
pub(super) fn rightmark_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let Some(t) = &r.rightmark else { return };
    let condition = format!(
        "{} block, {} pages",
        format_bytes(t.block_bytes),
        t.page_size
    );
    for c in &t.cells {
        for f in &c.figures {
            let (kind, better) = if f.metric.is_latency() {
                ("rightmark-latency", Better::Lower)
            } else {
                ("rightmark", Better::Higher)
            };
            out.extend(round_metric(
                format!(
                    "{kind}/{}/{}->{}",
                    f.metric.name(),
                    c.cpu_node,
                    c.memory_node
                ),
                format!(
                    "RightMark {}, CPU node {} -> memory node {}",
                    f.metric.label(),
                    c.cpu_node,
                    c.memory_node
                ),
                f.metric.unit(),
                better,
                &f.figure,
                condition.clone(),
            ));
        }
    }
}

/// Every cell of the per-stream matrices: source node x destination node, per kernel and
/// CPU node.
pub(super) fn stream_matrix_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let Some(t) = &r.stream_matrix else { return };
    for m in &t.matrices {
        let kernel = if m.non_temporal {
            format!("{} (non-temporal)", m.kernel)
        } else {
            m.kernel.clone()
        };
        let nt = if m.non_temporal { "-nt" } else { "" };
        let condition = format!(
            "{}, {} per stream per thread, {} pages",
            threads(m.cpus.len()),
            format_bytes(m.array_bytes_per_thread),
            t.page_size
        );
        for c in &m.cells {
            out.extend(round_metric(
                format!(
                    "stream-matrix/{}{nt}/{}/{}->{}",
                    m.kernel, m.cpu_node, c.source_node, c.destination_node
                ),
                format!(
                    "per-stream {kernel} on CPU node {}, source node {} -> destination node {}",
                    m.cpu_node, c.source_node, c.destination_node
                ),
                "MB/s",
                Better::Higher,
                &c.mb_per_s,
                condition.clone(),
            ));
        }
    }
}

/// The per-load latency distribution's percentiles, each with its order-statistic interval
/// over the groups (`latency::distribution`); a file written before the intervals compares
/// its percentiles as "no interval".
pub(super) fn distribution_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let Some(d) = r.latency.as_ref().and_then(|l| l.distribution.as_ref()) else {
        return;
    };
    let condition = format!(
        "{} walk, {} pages, {}",
        d.mode.label(),
        d.page_size.label(),
        format_bytes(d.working_set_bytes)
    );
    for (name, v, ci) in d.ns_per_load.named() {
        let s = Summary {
            ci,
            ..Summary::point(v, d.groups)
        };
        let mut m = metric(
            format!("latency-distribution/{name}"),
            format!("per-load latency {name}"),
            "ns",
            Better::Lower,
            &s,
        );
        m.low = ci.map_or(v, |c| c.low);
        m.high = ci.map_or(v, |c| c.high);
        out.push(marked(m, d.quality.as_ref()).under(condition.clone()));
    }
}
