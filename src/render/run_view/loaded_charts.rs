//! The charts of `numascope loaded-latency`: latency against bandwidth with every curve of a
//! family and its error bars, and the initiator x target matrix as heat maps.

use super::{
    grid, loaded::x_error, loaded_family::curve_name, loaded_family::max_point,
    loaded_family::supported_doubling,
};
use crate::render::format::estimate::num;
use crate::render::svg::{Heatmap, LineChart, Marker, XScale};
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
    for r in curves {
        let s = c.series.len();
        c.x_errors
            .extend(r.points.iter().flat_map(|p| x_error(s, p)));
        let name = curve_name(r, curves);
        if let (Some(x), _) = supported_doubling(r) {
            c.markers.push(Marker {
                x,
                label: format!("{name}: x2 at {}", num(x)),
            });
        }
        let mut points: Vec<_> = r.points.iter().map(point).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        super::add_line(&mut c, name, points);
    }
    Some(c)
}

/// A point as [`super::add_line`] draws it: bandwidth, median latency, interval, disturbed.
fn point(p: &LoadedPoint) -> (f64, f64, Option<crate::stats::Interval>, bool) {
    let disturbed = p.quality.as_ref().is_some_and(|q| q.disturbed);
    (
        p.mb_per_s(),
        p.ns_per_load.median,
        p.ns_per_load.ci,
        disturbed,
    )
}

/// The matrix as heat maps, one pair per mix: idle latency and maximum bandwidth per
/// initiator x target cell (the cells' intervals are in the summary table; a cell not
/// measured is empty).
pub fn loaded_matrix_heatmaps(m: &LoadedMatrix) -> Vec<(Heatmap, Heatmap)> {
    let mixes: Vec<&str> = m
        .cells
        .iter()
        .find(|c| c.result.is_some())
        .map(|c| c.curves().map(|r| r.kernel_label.as_str()).collect())
        .unwrap_or_default();
    let map = |k: usize, title: String, unit: &str, worse, f: fn(&LoadedResult) -> Option<f64>| {
        let value = |i: u32, t: u32| {
            let c = m.cells.iter().find(|c| c.initiator == i && c.target == t);
            c.and_then(|c| c.curves().nth(k)).and_then(f)
        };
        let pairs = m
            .initiators
            .iter()
            .flat_map(|&i| m.targets.iter().map(move |&t| (i, t)));
        grid(&title, unit, worse, pairs.map(|(i, t)| (i, t, value(i, t))))
    };
    let idle = |r: &LoadedResult| r.points.first().map(|p| p.ns_per_load.median);
    let max = |r: &LoadedResult| max_point(r).map(LoadedPoint::mb_per_s);
    let pair = |(k, mix): (usize, &&str)| {
        Some((
            map(k, format!("Idle latency, load {mix}"), "ns", true, idle)?,
            map(k, format!("Max bandwidth, load {mix}"), "MB/s", false, max)?,
        ))
    };
    mixes.iter().enumerate().filter_map(pair).collect()
}
