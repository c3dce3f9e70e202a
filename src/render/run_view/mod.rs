//! The tables and chart data of a whole run, pulled out of [`RunResults`] once so that every
//! output (terminal text, CSV, HTML) and `compare` show the same figures: a renderer only
//! lays out what this module extracted.

use crate::render::svg::Heatmap;
use crate::results::{Part, RunResults};

mod bandwidth;
mod c2c;
mod headline;
mod latency;
mod loaded;
mod policy;
mod scaling;

pub use bandwidth::*;
pub use c2c::*;
pub use headline::*;
pub use latency::*;
pub use loaded::*;
pub use policy::*;
pub use scaling::*;

/// One table cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    Num(f64),
    Int(u64),
    Missing,
}

impl Cell {
    /// The cell for people: numbers with a precision suited to their size.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Num(v) => fmt_num(*v),
            Cell::Int(v) => v.to_string(),
            Cell::Missing => "-".into(),
        }
    }

    /// The cell for machines (CSV): full precision, empty when missing.
    pub fn raw(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Num(v) => format!("{v}"),
            Cell::Int(v) => v.to_string(),
            Cell::Missing => String::new(),
        }
    }

    fn opt(v: Option<f64>) -> Cell {
        v.filter(|v| v.is_finite()).map_or(Cell::Missing, Cell::Num)
    }
}

/// A median with its 95 % interval and count, the one style every text and HTML output uses:
/// `231 [226, 240] n=9`, or `231, no interval (n=2)` below six samples.
pub fn fmt_interval(s: &crate::stats::Summary) -> String {
    fmt_median_interval(s.median, s.ci_low.zip(s.ci_high), s.samples)
}

/// The same from loose parts (a bandwidth `Rates`).
pub fn fmt_median_interval(median: f64, ci: Option<(f64, f64)>, n: usize) -> String {
    match ci {
        Some((l, h)) => format!("{} [{}, {}] n={n}", fmt_num(median), fmt_num(l), fmt_num(h)),
        None => format!("{}, no interval (n={n})", fmt_num(median)),
    }
}

/// A measured number for people: 3 significant figures below 100, integers above.
pub fn fmt_num(v: f64) -> String {
    crate::render::svg::value_label(v)
}

/// One table of a run. Column names carry their units (`ns per load (median)`, `MB/s`).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// File stem of its CSV (`latency_sweep`).
    pub name: &'static str,
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    fn new(name: &'static str, title: &str, columns: &[&str]) -> Table {
        Table {
            name,
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }
}

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
    vec![
        latency_sweep_table(r),
        latency_matrix_table(r),
        bandwidth_table(r),
        bandwidth_matrix_table(r),
        scaling_table(r),
        loaded_table(r),
        c2c_table(r),
        c2c_groups_table(r),
        scenarios_table(r),
        recommendations_table(r),
    ]
}

/// A node x node grid from (initiator, memory, value) triples.
fn grid(title: &str, unit: &str, worse_high: bool, cells: &[(u32, u32, f64)]) -> Option<Heatmap> {
    if cells.is_empty() {
        return None;
    }
    let mut rows: Vec<u32> = cells.iter().map(|c| c.0).collect();
    let mut cols: Vec<u32> = cells.iter().map(|c| c.1).collect();
    rows.sort_unstable();
    rows.dedup();
    cols.sort_unstable();
    cols.dedup();
    Some(Heatmap {
        title: title.into(),
        row_title: "CPU node".into(),
        col_title: "memory node".into(),
        row_labels: rows.iter().map(|n| n.to_string()).collect(),
        col_labels: cols.iter().map(|n| n.to_string()).collect(),
        values: rows
            .iter()
            .map(|&a| {
                cols.iter()
                    .map(|&b| cells.iter().find(|c| c.0 == a && c.1 == b).map(|c| c.2))
                    .collect()
            })
            .collect(),
        unit: unit.into(),
        higher_is_worse: worse_high,
    })
}

/// Nodes as a comma-separated list (`0,1`), as tables and `compare` keys show them.
pub fn nodes_text(n: &[u32]) -> String {
    n.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
