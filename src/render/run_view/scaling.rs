//! Bandwidth versus thread count as a table and a line chart, one series per node and mode.

use super::bandwidth::result_figure;
use super::{estimate_cells, Cell, Table};
use crate::render::svg::{LineChart, Marker, XScale};
use crate::results::bandwidth::BandwidthReport;
use crate::results::RunResults;

/// A scaling curve's name: `read, node 0, packed`.
pub(crate) fn series_name(kernel: &str, s: &crate::results::bandwidth::ScalingSeries) -> String {
    match s.node {
        Some(n) => format!("{kernel}, node {n}, {}", s.mode),
        None => format!("{kernel}, all nodes, {}", s.mode),
    }
}

/// Bandwidth versus thread count: one row per point of each curve (the run keeps its curves
/// in `RunResults::scaling`, `bandwidth --scaling` in its own report).
pub fn scaling_table(b: Option<&BandwidthReport>) -> Table {
    let mut t = Table::new(
        "scaling",
        "Bandwidth scaling with threads",
        &[
            ("curve", "curve"),
            ("kernel", "kernel"),
            ("mode", "mode"),
            ("node", "node (empty: all nodes)"),
            ("threads_count", "threads"),
            ("cpus", "CPUs"),
        ],
    );
    t.extend_estimate("mb_per_s", "MB/s (MB = 10^6 B)");
    t.extend([
        ("mb_per_s_max", "MB/s max"),
        ("knee_threads_count", "stops rising after (threads)"),
    ]);
    if let Some(b) = b {
        for sc in &b.scaling {
            for s in &sc.series {
                for p in &s.points {
                    let (sum, q) = result_figure(b, p.result_index, p.mb_per_s);
                    let mut row = vec![
                        Cell::Text(series_name(&sc.kernel, s)),
                        Cell::Text(sc.kernel.clone()),
                        Cell::Text(s.mode.clone()),
                        Cell::int(s.node.map(u64::from)),
                        Cell::Int(p.threads as u64),
                        Cell::Text(crate::results::format::format_list(&p.cpus)),
                    ];
                    row.extend(estimate_cells(&sum, q));
                    row.extend([
                        Cell::Num(p.mb_per_s_max),
                        Cell::int(s.knee_threads.map(|k| k as u64)),
                    ]);
                    t.rows.push(row);
                }
            }
        }
    }
    t
}

/// The scaling chart: one line per curve, the knees marked.
pub fn scaling_chart(r: &RunResults) -> Option<LineChart> {
    let b = r.scaling.as_ref()?;
    let mut c = LineChart::new(
        "Bandwidth vs threads",
        "threads",
        "MB/s (median, MB = 10^6 B)",
        XScale::Linear,
    );
    c.y_from_zero = true;
    for sc in &b.scaling {
        for s in &sc.series {
            if s.points.is_empty() {
                continue;
            }
            if let Some(k) = s.knee_threads {
                c.markers.push(Marker {
                    x: k as f64,
                    label: format!(
                        "flat after {k} ({})",
                        s.node.map_or("all".into(), |n| format!("node {n}"))
                    ),
                });
            }
            let points = s.points.iter().map(|p| {
                let (sum, q) = result_figure(b, p.result_index, p.mb_per_s);
                (
                    p.threads as f64,
                    p.mb_per_s,
                    sum.ci,
                    q.is_some_and(|q| q.disturbed),
                )
            });
            super::add_line(&mut c, series_name(&sc.kernel, s), points);
        }
    }
    (!c.series.is_empty()).then_some(c)
}

/// One sentence on where each scaling curve stops rising, naming the curves with no knee
/// ("no knee found") so an absent marker is never silent.
pub fn scaling_knee_note(r: &RunResults) -> String {
    let mut found = Vec::new();
    let mut none = Vec::new();
    for sc in r.scaling.iter().flat_map(|b| &b.scaling) {
        for s in sc.series.iter().filter(|s| !s.points.is_empty()) {
            let name = series_name(&sc.kernel, s);
            match s.knee_threads {
                Some(k) => found.push(format!("{name} flat after {k} threads")),
                None => none.push(name),
            }
        }
    }
    let mut out = Vec::new();
    if !found.is_empty() {
        out.push(format!("Knees: {}.", found.join("; ")));
    }
    if !none.is_empty() {
        out.push(format!(
            "No knee found for {}: bandwidth still rises at the largest thread count measured.",
            none.join("; ")
        ));
    }
    out.join(" ")
}
