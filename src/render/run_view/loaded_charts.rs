//! The charts of `numascope loaded-latency`: latency against bandwidth with every curve of a
//! family and its error bars, and the initiator x target matrix as heat maps.

use super::{
    fmt_num, loaded::x_error, loaded_family::curve_name, loaded_family::max_point,
    loaded_family::supported_doubling,
};
use crate::render::svg::{ErrorBar, Heatmap, LineChart, Marker, Series, SeriesStyle, XScale};
use crate::results::loaded::{LoadedMatrix, LoadedPoint, LoadedResult};

/// Latency against bandwidth, one series per curve, each point's 95 % interval as an error
/// bar, disturbed points marked, each supported doubling point marked.
pub fn loaded_family_chart(curves: &[&LoadedResult]) -> Option<LineChart> {
    if curves.iter().all(|r| r.points.is_empty()) {
        return None;
    }
    let title = match curves.len() {
        1 => "Latency under load",
        _ => "Latency under load, one curve per load mix",
    };
    let mut c = LineChart::new(
        title,
        "bandwidth of all threads (MB/s, MB = 10^6 B)",
        "ns per load (median)",
        XScale::Linear,
    );
    c.y_from_zero = true;
    for (s, r) in curves.iter().enumerate() {
        let mut points: Vec<(f64, f64)> = r
            .points
            .iter()
            .map(|p| (p.mb_per_s(), p.ns_per_load.median))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        for p in &r.points {
            if let (Some(low), Some(high)) = (
                p.ns_per_load.ci.map(|c| c.low),
                p.ns_per_load.ci.map(|c| c.high),
            ) {
                c.errors.push(ErrorBar {
                    series: s,
                    x: p.mb_per_s(),
                    low,
                    high,
                });
            }
            c.x_errors.extend(x_error(s, p));
            if p.quality.as_ref().is_some_and(|q| q.disturbed) {
                c.disturbed.push((s, p.mb_per_s()));
            }
        }
        let name = curve_name(r, curves);
        if let (Some(x), _) = supported_doubling(r) {
            c.markers.push(Marker {
                x,
                label: format!("{name}: x2 at {}", fmt_num(x)),
            });
        }
        c.series.push(Series {
            name,
            points,
            style: SeriesStyle::LinePoints,
        });
    }
    Some(c)
}

/// The matrix as heat maps, one pair per mix: idle latency and maximum bandwidth per
/// initiator x target cell (the cells' intervals are in the summary table).
pub fn loaded_matrix_heatmaps(m: &LoadedMatrix) -> Vec<(Heatmap, Heatmap)> {
    let mixes: Vec<String> = m
        .cells
        .iter()
        .find(|c| c.result.is_some())
        .map(|c| c.curves().map(|r| r.kernel_label.clone()).collect())
        .unwrap_or_default();
    let rows: Vec<String> = m.initiators.iter().map(|n| n.to_string()).collect();
    let cols: Vec<String> = m.targets.iter().map(|n| n.to_string()).collect();
    mixes
        .iter()
        .enumerate()
        .map(|(k, mix)| {
            let value = |f: &dyn Fn(&LoadedResult) -> Option<f64>| -> Vec<Vec<Option<f64>>> {
                m.initiators
                    .iter()
                    .map(|&i| {
                        m.targets
                            .iter()
                            .map(|&t| {
                                m.cells
                                    .iter()
                                    .find(|c| c.initiator == i && c.target == t)
                                    .and_then(|c| c.curves().nth(k))
                                    .and_then(f)
                            })
                            .collect()
                    })
                    .collect()
            };
            let map = |title: String, unit: &str, worse: bool, values| Heatmap {
                title,
                row_title: "CPU node".into(),
                col_title: "memory node".into(),
                row_labels: rows.clone(),
                col_labels: cols.clone(),
                values,
                unit: unit.into(),
                higher_is_worse: worse,
            };
            (
                map(
                    format!("Idle latency, load {mix}"),
                    "ns",
                    true,
                    value(&|r| r.points.first().map(|p| p.ns_per_load.median)),
                ),
                map(
                    format!("Max bandwidth, load {mix}"),
                    "MB/s",
                    false,
                    value(&|r| max_point(r).map(LoadedPoint::mb_per_s)),
                ),
            )
        })
        .collect()
}
