//! Bandwidth versus thread count as a table and a line chart, one series per node and mode.

use super::{Cell, Table};
use crate::render::svg::{LineChart, Marker, Series, SeriesStyle, XScale};
use crate::results::RunResults;

/// A scaling curve's name: `read, node 0, packed`.
fn series_name(kernel: &str, s: &crate::results::bandwidth::ScalingSeries) -> String {
    match s.node {
        Some(n) => format!("{kernel}, node {n}, {}", s.mode),
        None => format!("{kernel}, all nodes, {}", s.mode),
    }
}

/// Bandwidth versus thread count.
pub fn scaling_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "scaling",
        "Bandwidth scaling with threads",
        &[
            "curve",
            "threads",
            "CPUs",
            "MB/s (median, MB = 10^6 B)",
            "MB/s max",
            "stops rising after (threads)",
        ],
    );
    for sc in r.scaling.iter().flat_map(|b| &b.scaling) {
        for s in &sc.series {
            for p in &s.points {
                t.rows.push(vec![
                    Cell::Text(series_name(&sc.kernel, s)),
                    Cell::Int(p.threads as u64),
                    Cell::Text(crate::results::format::format_list(&p.cpus)),
                    Cell::Num(p.mb_per_s),
                    Cell::Num(p.mb_per_s_max),
                    s.knee_threads
                        .map_or(Cell::Missing, |k| Cell::Int(k as u64)),
                ]);
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
            let name = series_name(&sc.kernel, s);
            if let Some(k) = s.knee_threads {
                c.markers.push(Marker {
                    x: k as f64,
                    label: format!(
                        "flat after {k} ({})",
                        s.node.map_or("all".into(), |n| format!("node {n}"))
                    ),
                });
            }
            c.series.push(Series {
                name,
                points: s
                    .points
                    .iter()
                    .map(|p| (p.threads as f64, p.mb_per_s))
                    .collect(),
                style: SeriesStyle::LinePoints,
            });
        }
    }
    (!c.series.is_empty()).then_some(c)
}
