//! The tables and chart data of a whole run, pulled out of [`RunResults`] once so that every
//! output (terminal text, CSV, HTML) and `compare` show the same figures: a renderer only
//! lays out what this module extracted.

use crate::render::svg::{ErrorBar, Heatmap, LineChart, Marker, Series};
use crate::results::{plan::Part, RunResults};

pub mod bandwidth;
pub mod bandwidth_sweep;
pub mod c2c;
pub mod latency;
pub mod latency_dist;
pub mod latency_matrix;
pub mod loaded;
pub mod loaded_charts;
pub mod loaded_family;
pub mod peak;
pub mod policy;
pub mod scaling;
mod table;

pub(crate) use table::quality_cells;
pub use table::{cell_intervals, Cell, Table};
pub(crate) use table::{ci_cells, ci_columns, estimate_cells, interval_cells, interval_columns};

/// Why a part has no data in this run, in words.
pub fn absent_reason(r: &RunResults, part: Part) -> String {
    if let Some(f) = r.failed.iter().find(|f| f.part == part) {
        return format!("it failed: {}", f.error);
    }
    if let Some(s) = r.plan.skipped.iter().find(|s| s.part == part) {
        return s.reason.clone();
    }
    if r.plan.runs(part) && !r.completed.contains(&part) {
        return if r.partial {
            "the run stopped before this part finished".into()
        } else {
            "the part finished without results".into()
        };
    }
    if r.completed.contains(&part) {
        return "the part ran but recorded no figures for this table".into();
    }
    "it was not part of this run's plan".into()
}

/// Every table, in report order.
pub fn all_tables(r: &RunResults) -> Vec<Table> {
    let mut v = vec![
        latency::latency_sweep_table(r.latency.as_ref()),
        latency_matrix::latency_matrix_table(r.latency.as_ref()),
        bandwidth::bandwidth_table(r.bandwidth.as_ref()),
        bandwidth::bandwidth_matrix_table(r.bandwidth.as_ref()),
        bandwidth_sweep::bandwidth_sweep_table(r.bandwidth.as_ref()),
        scaling::scaling_table(r.scaling.as_ref()),
        loaded::loaded_table(r),
        c2c::c2c_table(r.c2c.as_ref()),
        c2c::c2c_groups_table(r.c2c.as_ref()),
        policy::scenarios_table(r),
        policy::recommendations_table(r),
    ];
    v.extend(latency_dist::latency_extra_tables(r.latency.as_ref()));
    v.push(peak::peak_table(peak::peak_report(r)));
    v.push(peak::peak_domains_table(peak::peak_report(r)));
    v
}

/// A node x node grid from (initiator, memory, value) triples; a pair without a value is an
/// empty cell; `None` without triples.
pub(crate) fn grid(
    title: &str,
    unit: &str,
    worse_high: bool,
    cells: impl IntoIterator<Item = (u32, u32, Option<f64>)>,
) -> Option<Heatmap> {
    let h = grid_of(title, ("CPU node", "memory node"), unit, worse_high, cells);
    (!h.values.is_empty()).then_some(h)
}

/// [`grid`] with other axis titles (row, column), `source node` x `destination node`; no
/// rows without cells.
pub(crate) fn grid_of(
    title: &str,
    (row_title, col_title): (&str, &str),
    unit: &str,
    worse_high: bool,
    cells: impl IntoIterator<Item = (u32, u32, Option<f64>)>,
) -> Heatmap {
    let cells: Vec<(u32, u32, Option<f64>)> = cells.into_iter().collect();
    let axis = |f: fn(&(u32, u32, Option<f64>)) -> u32| {
        let mut v: Vec<u32> = cells.iter().map(f).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (rows, cols) = (axis(|c| c.0), axis(|c| c.1));
    let value = |a: u32, b: u32| {
        cells
            .iter()
            .find(|c| (c.0, c.1) == (a, b))
            .and_then(|c| c.2)
    };
    Heatmap {
        title: title.into(),
        row_title: row_title.into(),
        col_title: col_title.into(),
        row_labels: rows.iter().map(|n| n.to_string()).collect(),
        col_labels: cols.iter().map(|n| n.to_string()).collect(),
        values: rows
            .iter()
            .map(|&a| cols.iter().map(|&b| value(a, b)).collect())
            .collect(),
        unit: unit.into(),
        higher_is_worse: worse_high,
    }
}

/// Adds a line named `name` to `c` through `points` (x, median, 95 % interval, disturbed):
/// the intervals as error bars, the disturbed points hollow.
pub(crate) fn add_line(
    c: &mut LineChart,
    name: String,
    points: impl IntoIterator<Item = (f64, f64, Option<crate::stats::Interval>, bool)>,
) {
    let series = c.series.len();
    let mut line = Vec::new();
    for (x, y, ci, disturbed) in points {
        if let Some((low, high)) = ci.map(|c| c.ends()) {
            c.errors.push(ErrorBar {
                series,
                x,
                low,
                high,
            });
        }
        if disturbed {
            c.disturbed.push((series, x));
        }
        line.push((x, y));
    }
    c.series.push(Series { name, points: line });
}

/// The declared cache sizes of `cpu`'s caches as chart markers (`L2 1M`), smallest first.
pub(crate) fn cache_markers(r: &RunResults, cpu: u32) -> impl Iterator<Item = Marker> {
    let sizes = r.topology.cache_sizes_for_cpu(cpu).into_iter();
    sizes.map(|(level, size)| Marker {
        x: size as f64,
        label: format!("L{level} {}", crate::render::svg::bytes_short(size as f64)),
    })
}

/// Nodes as a comma-separated list (`0,1`), as tables and `compare` keys show them.
pub fn nodes_text(n: &[u32]) -> String {
    n.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
