//! The tables and chart data of a whole run, pulled out of [`RunResults`] once so that every
//! output (terminal text, CSV, HTML) and `compare` show the same figures: a renderer only
//! lays out what this module extracted.
//!
//! The latency and scenario parts have typed results. The bandwidth, scaling, loaded-latency
//! and core-to-core parts are stored in `results.json` as their engines' own JSON contracts
//! (`serde_json::Value`), so their readers here look fields up by name and take either a
//! plain number or a statistics summary (`{median, min, max, ...}`); a field they cannot find
//! leaves the table empty and the section says so, rather than guessing a number.

use serde_json::Value;

use crate::compare::{Better, Metric, RunMetrics};
use crate::render::svg::{Heatmap, LineChart, Marker, Series, SeriesStyle, XScale};
use crate::results::{Part, RunResults};
use crate::stats::Summary;

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

// ---------------------------------------------------------------- JSON lookups

fn field<'a>(v: &'a Value, names: &[&str]) -> Option<&'a Value> {
    names
        .iter()
        .find_map(|n| v.get(*n).filter(|x| !x.is_null()))
}

/// A number, or the median of a summary object.
fn number(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.get("median").and_then(Value::as_f64))
}

/// A summary object (or a plain number as a one-sample summary).
fn summary(v: &Value) -> Option<Summary> {
    if let Some(x) = v.as_f64() {
        return Summary::of(&[x]);
    }
    serde_json::from_value(v.clone()).ok()
}

fn num_field(v: &Value, names: &[&str]) -> Option<f64> {
    field(v, names).and_then(number)
}

fn text_field(v: &Value, names: &[&str]) -> Option<String> {
    field(v, names).map(|x| match x {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

fn array<'a>(v: &'a Value, names: &[&str]) -> &'a [Value] {
    field(v, names)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

const MB_S: &[&str] = &["mb_per_s", "total_mb_per_s", "bandwidth_mb_per_s"];
const INIT: &[&str] = &["initiator_node", "cpu_node", "from_node"];
const MEM: &[&str] = &["memory_node", "to_node", "target_node"];

// ---------------------------------------------------------------- latency

/// Latency sweep points, one row per working set of each curve.
pub fn latency_sweep_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "latency_sweep",
        "Latency vs working set",
        &[
            "mode",
            "page size",
            "chains",
            "working set (bytes)",
            "ns per load (median)",
            "ns min",
            "ns p90",
            "cycles per load (median)",
            "CPU",
            "memory node",
            "on intended node (fraction)",
            "huge-page backed (fraction)",
        ],
    );
    for c in r.latency.iter().flat_map(|l| &l.sweep) {
        for p in &c.points {
            t.rows.push(vec![
                Cell::Text(c.mode.label().into()),
                Cell::Text(c.page_size.clone()),
                Cell::Int(c.chains as u64),
                Cell::Int(p.working_set_bytes),
                Cell::Num(p.ns_per_load.median),
                Cell::Num(p.ns_per_load.min),
                Cell::Num(p.ns_per_load.p90),
                Cell::opt(p.cycles_per_load.as_ref().map(|c| c.median)),
                Cell::Int(p.cpu as u64),
                p.memory_node.map_or(Cell::Missing, |n| Cell::Int(n as u64)),
                Cell::opt(p.placement_fraction),
                Cell::opt(p.huge_fraction),
            ]);
        }
    }
    t
}

/// The latency-vs-working-set chart: one line per mode and page size, cache sizes marked.
pub fn latency_sweep_chart(r: &RunResults) -> Option<LineChart> {
    let l = r.latency.as_ref()?;
    if l.sweep.iter().all(|c| c.points.is_empty()) {
        return None;
    }
    let mut chart = LineChart::new(
        "Latency vs working set",
        "working set (bytes, log scale)",
        "ns per load (median)",
        XScale::Log2Bytes,
    );
    chart.y_from_zero = true;
    for c in &l.sweep {
        let chains = if c.chains > 1 {
            format!(", {} chains", c.chains)
        } else {
            String::new()
        };
        chart.series.push(Series {
            name: format!("{} walk, {} pages{chains}", c.mode.label(), c.page_size),
            points: c
                .points
                .iter()
                .map(|p| (p.working_set_bytes as f64, p.ns_per_load.median))
                .collect(),
            style: SeriesStyle::LinePoints,
        });
    }
    let cpu = l
        .sweep
        .iter()
        .flat_map(|c| c.points.first())
        .map(|p| p.cpu)
        .next();
    if let Some(cpu) = cpu {
        for (level, size) in r.topology.cache_sizes_for_cpu(cpu) {
            chart.markers.push(Marker {
                x: size as f64,
                label: format!("L{level} {}", crate::render::svg::bytes_short(size as f64)),
            });
        }
    }
    Some(chart)
}

/// Initiator x memory node latency, with SLIT and HMAT beside each cell.
pub fn latency_matrix_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "latency_matrix",
        "Latency, CPU node x memory node",
        &[
            "CPU node",
            "memory node",
            "working set (bytes)",
            "ns per load (median)",
            "ns min",
            "ns max",
            "relative to local",
            "SLIT distance (firmware)",
            "HMAT read latency ns (firmware)",
            "on intended node (fraction)",
        ],
    );
    if let Some(m) = r.latency.as_ref().and_then(|l| l.matrix.as_ref()) {
        for c in &m.cells {
            t.rows.push(vec![
                Cell::Int(c.initiator_node as u64),
                Cell::Int(c.memory_node as u64),
                Cell::Int(m.working_set_bytes),
                Cell::Num(c.result.ns_per_load.median),
                Cell::Num(c.result.ns_per_load.min),
                Cell::Num(c.result.ns_per_load.max),
                Cell::opt(c.measured_ratio),
                c.slit_distance
                    .map_or(Cell::Missing, |d| Cell::Int(d as u64)),
                c.hmat_read_latency_ns.map_or(Cell::Missing, Cell::Int),
                Cell::opt(c.result.placement_fraction),
            ]);
        }
    }
    t
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

/// The measured latency heatmap and the firmware's view beside it (HMAT if declared, else
/// SLIT), restricted to the measured pairs.
pub fn latency_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let m = r.latency.as_ref()?.matrix.as_ref()?;
    let cells: Vec<(u32, u32, f64)> = m
        .cells
        .iter()
        .map(|c| (c.initiator_node, c.memory_node, c.result.ns_per_load.median))
        .collect();
    let measured = grid("Measured latency (ns)", "ns", true, &cells)?;
    let hmat: Vec<(u32, u32, f64)> = m
        .cells
        .iter()
        .filter_map(|c| {
            c.hmat_read_latency_ns
                .map(|v| (c.initiator_node, c.memory_node, v as f64))
        })
        .collect();
    let declared = if !hmat.is_empty() {
        grid("HMAT read latency (ns, firmware)", "ns", true, &hmat)
    } else {
        slit_grid(r, &cells)
    };
    Some((measured, declared))
}

fn slit_grid(r: &RunResults, pairs: &[(u32, u32, f64)]) -> Option<Heatmap> {
    let slit: Vec<(u32, u32, f64)> = pairs
        .iter()
        .filter_map(|&(a, b, _)| r.topology.distance(a, b).map(|d| (a, b, d as f64)))
        .collect();
    grid("SLIT distance (firmware)", "", true, &slit)
}

// ---------------------------------------------------------------- bandwidth

/// Bandwidth kernel results as the bandwidth engine recorded them.
pub fn bandwidth_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "bandwidth",
        "Bandwidth kernels",
        &[
            "kernel",
            "threads",
            "CPU node",
            "memory node",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "on intended node (fraction)",
        ],
    );
    if let Some(b) = &r.bandwidth {
        for k in array(b, &["results", "kernels"]) {
            let s = field(k, MB_S).and_then(summary);
            t.rows.push(vec![
                text_field(k, &["kernel", "name"]).map_or(Cell::Missing, Cell::Text),
                num_field(k, &["threads"]).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                num_field(k, INIT).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                num_field(k, MEM).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                Cell::opt(s.map(|s| s.median)),
                Cell::opt(s.map(|s| s.min)),
                Cell::opt(s.map(|s| s.max)),
                Cell::opt(num_field(k, &["placement_fraction"])),
            ]);
        }
    }
    t
}

fn bw_matrix_cells(r: &RunResults) -> Vec<(u32, u32, Option<Summary>, Option<f64>)> {
    let Some(m) = r.bandwidth.as_ref().and_then(|b| field(b, &["matrix"])) else {
        return Vec::new();
    };
    array(m, &["cells"])
        .iter()
        .filter_map(|c| {
            Some((
                num_field(c, INIT)? as u32,
                num_field(c, MEM)? as u32,
                field(c, MB_S).and_then(summary),
                num_field(
                    c,
                    &[
                        "hmat_read_bandwidth_mb_s",
                        "hmat_bandwidth_mb_s",
                        "hmat_mb_per_s",
                    ],
                ),
            ))
        })
        .collect()
}

/// Initiator x memory node bandwidth.
pub fn bandwidth_matrix_table(r: &RunResults) -> Table {
    let kernel = r
        .bandwidth
        .as_ref()
        .and_then(|b| field(b, &["matrix"]))
        .and_then(|m| text_field(m, &["kernel"]));
    let mut t = Table::new(
        "bandwidth_matrix",
        &match kernel {
            Some(k) => format!("Bandwidth, CPU node x memory node ({k})"),
            None => "Bandwidth, CPU node x memory node".into(),
        },
        &[
            "CPU node",
            "memory node",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "HMAT read bandwidth MB/s (firmware)",
        ],
    );
    for (a, b, s, h) in bw_matrix_cells(r) {
        t.rows.push(vec![
            Cell::Int(a as u64),
            Cell::Int(b as u64),
            Cell::opt(s.map(|s| s.median)),
            Cell::opt(s.map(|s| s.min)),
            Cell::opt(s.map(|s| s.max)),
            Cell::opt(h),
        ]);
    }
    t
}

/// Measured bandwidth heatmap and HMAT (from the cells, else the topology) beside it.
pub fn bandwidth_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let cells = bw_matrix_cells(r);
    let measured: Vec<(u32, u32, f64)> = cells
        .iter()
        .filter_map(|c| Some((c.0, c.1, c.2?.median)))
        .collect();
    let m = grid("Measured bandwidth (MB/s)", "MB/s", false, &measured)?;
    let mut hmat: Vec<(u32, u32, f64)> = cells
        .iter()
        .filter_map(|c| Some((c.0, c.1, c.3?)))
        .collect();
    if hmat.is_empty() {
        hmat = cells
            .iter()
            .filter_map(|c| {
                let h = r.topology.hmat_for(c.0, c.1)?;
                Some((c.0, c.1, h.read_bandwidth_mb_s? as f64))
            })
            .collect();
    }
    Some((
        m,
        grid("HMAT read bandwidth (MB/s, firmware)", "MB/s", false, &hmat),
    ))
}

// ---------------------------------------------------------------- scaling and loaded latency

fn curves(v: &Value) -> Vec<(String, &[Value])> {
    let list = array(v, &["curves", "series", "nodes"]);
    if !list.is_empty() {
        return list
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = text_field(c, &["label", "name"])
                    .or_else(|| num_field(c, &["node", "memory_node"]).map(|n| format!("node {n}")))
                    .unwrap_or_else(|| format!("curve {}", i + 1));
                (name, array(c, &["points"]))
            })
            .collect();
    }
    let pts = array(v, &["points"]);
    if pts.is_empty() {
        Vec::new()
    } else {
        vec![("all".into(), pts)]
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
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
        ],
    );
    if let Some(v) = &r.scaling {
        for (name, pts) in curves(v) {
            for p in pts {
                let s = field(p, MB_S).and_then(summary);
                t.rows.push(vec![
                    Cell::Text(name.clone()),
                    num_field(p, &["threads"]).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                    Cell::opt(s.map(|s| s.median)),
                    Cell::opt(s.map(|s| s.min)),
                    Cell::opt(s.map(|s| s.max)),
                ]);
            }
        }
    }
    t
}

/// The scaling chart.
pub fn scaling_chart(r: &RunResults) -> Option<LineChart> {
    let v = r.scaling.as_ref()?;
    let mut c = LineChart::new(
        "Bandwidth vs threads",
        "threads",
        "MB/s (median, MB = 10^6 B)",
        XScale::Linear,
    );
    c.y_from_zero = true;
    for (name, pts) in curves(v) {
        let points: Vec<(f64, f64)> = pts
            .iter()
            .filter_map(|p| Some((num_field(p, &["threads"])?, num_field(p, MB_S)?)))
            .collect();
        if !points.is_empty() {
            c.series.push(Series {
                name,
                points,
                style: SeriesStyle::LinePoints,
            });
        }
    }
    (!c.series.is_empty()).then_some(c)
}

const LOADED_X: &[&str] = &[
    "mb_per_s",
    "load_mb_per_s",
    "total_mb_per_s",
    "bandwidth_mb_per_s",
];
const LOADED_Y: &[&str] = &["ns_per_load", "latency_ns", "ns"];

/// Latency under bandwidth load.
pub fn loaded_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "loaded_latency",
        "Loaded latency",
        &[
            "curve",
            "delay between requests",
            "load threads",
            "MB/s (total, MB = 10^6 B)",
            "ns per load (median)",
            "ns p90",
        ],
    );
    if let Some(v) = &r.loaded_latency {
        for (name, pts) in curves(v) {
            for p in pts {
                let y = field(p, LOADED_Y).and_then(summary);
                t.rows.push(vec![
                    Cell::Text(name.clone()),
                    text_field(p, &["delay", "delay_ns", "delay_cycles"])
                        .map_or(Cell::Missing, Cell::Text),
                    num_field(p, &["load_threads", "threads"])
                        .map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                    Cell::opt(num_field(p, LOADED_X)),
                    Cell::opt(y.map(|s| s.median)),
                    Cell::opt(y.map(|s| s.p90)),
                ]);
            }
        }
    }
    t
}

/// The loaded-latency chart (bandwidth on x, latency on y).
pub fn loaded_chart(r: &RunResults) -> Option<LineChart> {
    let v = r.loaded_latency.as_ref()?;
    let mut c = LineChart::new(
        "Latency under load",
        "bandwidth of all threads (MB/s, MB = 10^6 B)",
        "ns per load (median)",
        XScale::Linear,
    );
    c.y_from_zero = true;
    for (name, pts) in curves(v) {
        let mut points: Vec<(f64, f64)> = pts
            .iter()
            .filter_map(|p| Some((num_field(p, LOADED_X)?, num_field(p, LOADED_Y)?)))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !points.is_empty() {
            c.series.push(Series {
                name,
                points,
                style: SeriesStyle::LinePoints,
            });
        }
    }
    (!c.series.is_empty()).then_some(c)
}

// ---------------------------------------------------------------- core to core

/// Core-to-core pairs, one row per measured ordered pair.
pub fn c2c_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "c2c",
        "Core-to-core latency",
        &[
            "from CPU",
            "to CPU",
            "relation",
            "ns one way (median)",
            "ns min",
            "ns p90",
        ],
    );
    if let Some(v) = &r.c2c {
        for p in array(v, &["pairs"]) {
            let s = field(p, &["ns_one_way", "ns"]).and_then(summary);
            t.rows.push(vec![
                num_field(p, &["from"]).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                num_field(p, &["to"]).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                text_field(p, &["relation"]).map_or(Cell::Missing, Cell::Text),
                Cell::opt(s.map(|s| s.median)),
                Cell::opt(s.map(|s| s.min)),
                Cell::opt(s.map(|s| s.p90)),
            ]);
        }
    }
    t
}

/// Pairs grouped by what their CPUs share.
pub fn c2c_groups_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "c2c_groups",
        "Core-to-core latency by relation",
        &[
            "CPUs",
            "pairs",
            "ns one way (median of pairs)",
            "ns min",
            "ns max",
        ],
    );
    if let Some(v) = &r.c2c {
        for g in array(v, &["groups"]) {
            let s = field(g, &["ns_one_way"]).and_then(summary);
            t.rows.push(vec![
                text_field(g, &["label", "relation"]).map_or(Cell::Missing, Cell::Text),
                num_field(g, &["pairs"]).map_or(Cell::Missing, |v| Cell::Int(v as u64)),
                Cell::opt(s.map(|s| s.median)),
                Cell::opt(s.map(|s| s.min)),
                Cell::opt(s.map(|s| s.max)),
            ]);
        }
    }
    t
}

/// The CPU x CPU heatmap.
pub fn c2c_heatmap(r: &RunResults) -> Option<Heatmap> {
    let v = r.c2c.as_ref()?;
    let cpus: Vec<u64> = array(v, &["cpus"])
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let rows = array(v, &["matrix"]);
    if cpus.is_empty() || rows.len() != cpus.len() {
        return None;
    }
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|row| {
            let cells = row.as_array().map(Vec::as_slice).unwrap_or(&[]);
            (0..cpus.len())
                .map(|j| cells.get(j).and_then(Value::as_f64))
                .collect()
        })
        .collect();
    Some(Heatmap {
        title: "Core-to-core latency (ns, one way)".into(),
        row_title: "from CPU".into(),
        col_title: "to CPU".into(),
        row_labels: cpus.iter().map(|c| c.to_string()).collect(),
        col_labels: cpus.iter().map(|c| c.to_string()).collect(),
        values,
        unit: "ns".into(),
        higher_is_worse: true,
    })
}

/// The c2c sentence, when recorded.
pub fn c2c_summary(r: &RunResults) -> Option<String> {
    r.c2c.as_ref().and_then(|v| text_field(v, &["summary"]))
}

// ---------------------------------------------------------------- scenarios

/// The Opteron closing table for this machine.
pub fn scenarios_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "scenarios",
        "Policy scenarios",
        &[
            "scenario",
            "what runs",
            "threads",
            "memory policy",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "ns per load",
            "on intended nodes (fraction)",
            "numactl",
            "not measured because",
        ],
    );
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            t.rows.push(vec![
                Cell::Text(format!("({})", row.letter)),
                Cell::Text(row.label.clone()),
                Cell::Int(row.threads as u64),
                Cell::Text(row.policy.clone()),
                Cell::opt(row.mb_per_s.map(|s| s.median)),
                Cell::opt(row.mb_per_s.map(|s| s.min)),
                Cell::opt(row.mb_per_s.map(|s| s.max)),
                Cell::opt(row.latency_ns),
                Cell::opt(row.placement_fraction),
                Cell::Text(row.numactl.clone()),
                row.unavailable.clone().map_or(Cell::Missing, Cell::Text),
            ]);
        }
    }
    t
}

/// The winner per kind of application.
pub fn recommendations_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "recommendations",
        "Best placement per kind of application",
        &[
            "application",
            "best scenario",
            "MB/s (MB = 10^6 B)",
            "gain over runner-up",
            "numactl",
        ],
    );
    if let Some(s) = &r.scenarios {
        for rec in &s.recommendations {
            let best = s.get(rec.best);
            t.rows.push(vec![
                Cell::Text(rec.app_kind.label().into()),
                Cell::Text(best.map_or_else(
                    || rec.best.label().to_string(),
                    |b| format!("({}) {}", b.letter, b.label),
                )),
                Cell::Num(rec.mb_per_s),
                match (rec.gain_over_runner_up, rec.tie) {
                    (_, true) => Cell::Text("tie (< 5 %)".into()),
                    (Some(g), _) => Cell::Text(format!("{:+.0} %", (g - 1.0) * 100.0)),
                    (None, _) => Cell::Missing,
                },
                Cell::Text(rec.numactl.clone()),
            ]);
        }
    }
    t
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

// ---------------------------------------------------------------- headline figures

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
        .find(|c| c.mode == crate::latency::chase::Mode::Random)
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
        if v.is_finite() && best.as_ref().map_or(true, |b| v > b.0) {
            best = Some((v, what));
        }
    };
    if let Some(b) = &r.bandwidth {
        for k in array(b, &["results", "kernels"]) {
            if let Some(v) = num_field(k, MB_S) {
                consider(
                    v,
                    format!(
                        "{} kernel",
                        text_field(k, &["kernel", "name"]).unwrap_or_default()
                    ),
                );
            }
        }
    }
    if let Some(v) = &r.scaling {
        for (name, pts) in curves(v) {
            for p in pts {
                if let (Some(v), Some(n)) = (num_field(p, MB_S), num_field(p, &["threads"])) {
                    consider(v, format!("{name}, {n} threads"));
                }
            }
        }
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

// ---------------------------------------------------------------- compare metrics

fn metric(key: String, label: String, unit: &str, better: Better, s: &Summary) -> Metric {
    Metric {
        key,
        label,
        unit: unit.into(),
        better,
        value: s.median,
        low: s.min,
        high: s.max,
    }
}

/// The figures `compare` sets side by side, each with the spread the run recorded.
pub fn metrics(r: &RunResults, name: &str) -> RunMetrics {
    let mut out = Vec::new();
    if let Some(l) = &r.latency {
        if let Some(m) = &l.matrix {
            for c in &m.cells {
                out.push(metric(
                    format!("latency-matrix/{}->{}", c.initiator_node, c.memory_node),
                    format!(
                        "idle latency, CPU node {} -> memory node {}",
                        c.initiator_node, c.memory_node
                    ),
                    "ns",
                    Better::Lower,
                    &c.result.ns_per_load,
                ));
            }
        }
        for c in &l.sweep {
            if let Some(p) = c.points.last() {
                out.push(metric(
                    format!(
                        "latency-sweep/{}/{}/{}",
                        c.mode.label(),
                        c.page_size,
                        c.chains
                    ),
                    format!(
                        "latency at {} ({} walk, {} pages)",
                        crate::render::svg::bytes_short(p.working_set_bytes as f64),
                        c.mode.label(),
                        c.page_size
                    ),
                    "ns",
                    Better::Lower,
                    &p.ns_per_load,
                ));
            }
        }
    }
    if let Some(b) = &r.bandwidth {
        for k in array(b, &["results", "kernels"]) {
            if let (Some(kn), Some(s)) = (
                text_field(k, &["kernel", "name"]),
                field(k, MB_S).and_then(summary),
            ) {
                let threads = num_field(k, &["threads"])
                    .map(|t| format!(", {t} thread{}", if t == 1.0 { "" } else { "s" }))
                    .unwrap_or_default();
                let nodes = match (num_field(k, INIT), num_field(k, MEM)) {
                    (Some(a), Some(m)) => format!(", node {a} -> {m}"),
                    _ => String::new(),
                };
                out.push(metric(
                    format!("bandwidth/{kn}{threads}{nodes}"),
                    format!("bandwidth, {kn}{threads}{nodes}"),
                    "MB/s",
                    Better::Higher,
                    &s,
                ));
            }
        }
    }
    for (a, b, s, _) in bw_matrix_cells(r) {
        if let Some(s) = s {
            out.push(metric(
                format!("bandwidth-matrix/{a}->{b}"),
                format!("bandwidth, CPU node {a} -> memory node {b}"),
                "MB/s",
                Better::Higher,
                &s,
            ));
        }
    }
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            if let Some(m) = &row.mb_per_s {
                out.push(metric(
                    format!("scenario/{}", row.letter),
                    format!("scenario ({}) {}", row.letter, row.label),
                    "MB/s",
                    Better::Higher,
                    m,
                ));
            }
        }
    }
    if let Some(v) = &r.c2c {
        for g in array(v, &["groups"]) {
            if let (Some(l), Some(s)) = (
                text_field(g, &["label"]),
                field(g, &["ns_one_way"]).and_then(summary),
            ) {
                out.push(metric(
                    format!("c2c/{l}"),
                    format!("core to core, {l}"),
                    "ns",
                    Better::Lower,
                    &s,
                ));
            }
        }
    }
    RunMetrics {
        name: name.into(),
        metrics: out,
    }
}
