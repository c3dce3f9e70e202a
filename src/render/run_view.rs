//! The tables and chart data of a whole run, pulled out of [`RunResults`] once so that every
//! output (terminal text, CSV, HTML) and `compare` show the same figures: a renderer only
//! lays out what this module extracted.

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
                Cell::Text(c.page_size.label().into()),
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
            name: format!(
                "{} walk, {} pages{chains}",
                c.mode.label(),
                c.page_size.label()
            ),
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

fn nodes_text(n: &[u32]) -> String {
    n.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Bandwidth kernel results as the bandwidth engine recorded them (matrix cells included).
pub fn bandwidth_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "bandwidth",
        "Bandwidth kernels",
        &[
            "kernel",
            "ISA",
            "threads",
            "CPU nodes",
            "memory nodes",
            "placement",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "DRAM MB/s (estimate)",
            "on intended node (fraction)",
        ],
    );
    for b in r.bandwidth.iter().flat_map(|b| &b.results) {
        t.rows.push(vec![
            Cell::Text(b.kernel.clone()),
            Cell::Text(format!("{:?}", b.isa).to_lowercase()),
            Cell::Int(b.threads as u64),
            Cell::Text(nodes_text(&b.cpu_nodes)),
            Cell::Text(nodes_text(&b.memory_nodes)),
            Cell::Text(b.placement.clone()),
            Cell::Num(b.mb_per_s.median),
            Cell::Num(b.mb_per_s.min),
            Cell::Num(b.mb_per_s.max),
            Cell::Num(b.dram_mb_per_s_estimate.median),
            Cell::Num(b.placement_fraction),
        ]);
    }
    t
}

/// (initiator, target, median, min, max, HMAT read MB/s) of the first bandwidth matrix.
fn bw_matrix_cells(r: &RunResults) -> Vec<(u32, u32, Summary, Option<f64>)> {
    let Some(b) = &r.bandwidth else {
        return Vec::new();
    };
    let Some(m) = b.matrix.first() else {
        return Vec::new();
    };
    m.cells
        .iter()
        .map(|c| {
            let (min, max, n) = b
                .results
                .get(c.result_index)
                .map_or((c.mb_per_s, c.mb_per_s, 1), |x| {
                    (x.mb_per_s.min, x.mb_per_s.max, x.mb_per_s.samples)
                });
            (
                c.initiator,
                c.target,
                Summary {
                    median: c.mb_per_s,
                    min,
                    max,
                    p90: max,
                    p99: max,
                    samples: n,
                },
                c.hmat_read_mb_per_s.map(|v| v as f64),
            )
        })
        .collect()
}

/// Initiator x memory node bandwidth.
pub fn bandwidth_matrix_table(r: &RunResults) -> Table {
    let kernel = r
        .bandwidth
        .as_ref()
        .and_then(|b| b.matrix.first())
        .map(|m| m.kernel.clone());
    let mut t = Table::new(
        "bandwidth_matrix",
        &match kernel {
            Some(k) => format!("Bandwidth, CPU node x memory node ({k} kernel)"),
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
            Cell::Num(s.median),
            Cell::Num(s.min),
            Cell::Num(s.max),
            Cell::opt(h),
        ]);
    }
    t
}

/// Measured bandwidth heatmap and HMAT (from the cells, else the topology) beside it.
pub fn bandwidth_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let cells = bw_matrix_cells(r);
    let measured: Vec<(u32, u32, f64)> = cells.iter().map(|c| (c.0, c.1, c.2.median)).collect();
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

// ---------------------------------------------------------------- scaling

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

// ---------------------------------------------------------------- loaded latency

/// The loaded-latency curve's name: `CPU 0 chasing node 0, load: read`.
pub fn loaded_name(l: &crate::results::loaded::LoadedResult) -> String {
    format!(
        "CPU {} chasing node {}, {} load thread{} ({}) on node {}",
        l.chaser_cpu,
        l.mem_node,
        l.load_cpus.len(),
        if l.load_cpus.len() == 1 { "" } else { "s" },
        l.kernel_label,
        l.load_mem_node
    )
}

/// Latency under bandwidth load, one row per delay setting.
pub fn loaded_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "loaded_latency",
        "Loaded latency",
        &[
            "curve",
            "load asked (share of full speed)",
            "delay between requests (ns)",
            "MB/s (total, MB = 10^6 B)",
            "MB/s of the load threads",
            "ns per load (median)",
            "ns p90",
        ],
    );
    if let Some(l) = &r.loaded_latency {
        let name = loaded_name(l);
        for p in &l.points {
            t.rows.push(vec![
                Cell::Text(name.clone()),
                match (p.delay_ns, p.target_fraction) {
                    (None, _) => Cell::Text("none".into()),
                    (Some(_), Some(f)) => Cell::Text(format!("{:.0}%", 100.0 * f)),
                    (Some(_), None) => Cell::Missing,
                },
                p.delay_ns
                    .map_or(Cell::Text("idle (load threads asleep)".into()), Cell::Num),
                Cell::Num(p.total_mb_per_s),
                Cell::Num(p.load_mb_per_s),
                Cell::Num(p.ns_per_load.median),
                Cell::Num(p.ns_per_load.p90),
            ]);
        }
    }
    t
}

/// The loaded-latency chart (bandwidth on x, latency on y), the doubling point marked.
pub fn loaded_chart(r: &RunResults) -> Option<LineChart> {
    let l = r.loaded_latency.as_ref()?;
    if l.points.is_empty() {
        return None;
    }
    let mut c = LineChart::new(
        "Latency under load",
        "bandwidth of all threads (MB/s, MB = 10^6 B)",
        "ns per load (median)",
        XScale::Linear,
    );
    c.y_from_zero = true;
    let mut points: Vec<(f64, f64)> = l
        .points
        .iter()
        .map(|p| (p.total_mb_per_s, p.ns_per_load.median))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    c.series.push(Series {
        name: loaded_name(l),
        points,
        style: SeriesStyle::LinePoints,
    });
    if let Some(x) = l.curve.doubled_at_mb_per_s {
        c.markers.push(Marker {
            x,
            label: format!("latency x2 at {} MB/s", fmt_num(x)),
        });
    }
    Some(c)
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The curve in two sentences: idle, doubling point, peak; then the trend.
pub fn loaded_summary(r: &RunResults) -> Option<String> {
    let l = r.loaded_latency.as_ref()?;
    let c = &l.curve;
    let doubled = match c.doubled_at_mb_per_s {
        Some(x) => format!("latency doubles at {} MB/s", fmt_num(x)),
        None => "latency never doubles".into(),
    };
    Some(format!(
        "Idle {} ns; {doubled}; at the peak of {} MB/s a load takes {} ns. {}.",
        fmt_num(c.idle_ns_per_load),
        fmt_num(c.peak_mb_per_s),
        fmt_num(c.ns_per_load_at_peak),
        upper_first(&super::loaded_text::trend_sentence(l))
    ))
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
    for p in r.c2c.iter().flat_map(|c| &c.pairs) {
        t.rows.push(vec![
            Cell::Int(p.from as u64),
            Cell::Int(p.to as u64),
            Cell::Text(p.relation.label()),
            Cell::Num(p.ns_one_way.median),
            Cell::Num(p.ns_one_way.min),
            Cell::Num(p.ns_one_way.p90),
        ]);
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
    for g in r.c2c.iter().flat_map(|c| &c.groups) {
        t.rows.push(vec![
            Cell::Text(g.label.clone()),
            Cell::Int(g.pairs as u64),
            Cell::Num(g.ns_one_way.median),
            Cell::Num(g.ns_one_way.min),
            Cell::Num(g.ns_one_way.max),
        ]);
    }
    t
}

/// The CPU x CPU heatmap.
pub fn c2c_heatmap(r: &RunResults) -> Option<Heatmap> {
    let c = r.c2c.as_ref()?;
    if c.cpus.is_empty()
        || c.matrix.len() != c.cpus.len()
        || c.matrix.iter().any(|row| row.len() != c.cpus.len())
    {
        return None;
    }
    Some(Heatmap {
        title: "Core-to-core latency (ns, one way)".into(),
        row_title: "from CPU".into(),
        col_title: "to CPU".into(),
        row_labels: c.cpus.iter().map(|x| x.to_string()).collect(),
        col_labels: c.cpus.iter().map(|x| x.to_string()).collect(),
        values: c.matrix.clone(),
        unit: "ns".into(),
        higher_is_worse: true,
    })
}

/// The c2c sentence, when recorded.
pub fn c2c_summary(r: &RunResults) -> Option<String> {
    r.c2c
        .as_ref()
        .map(|c| c.summary.clone())
        .filter(|s| !s.is_empty())
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
                ));
            }
        }
    }
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
            };
            out.push(metric(
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
            ));
        }
    }
    let kernel = r
        .bandwidth
        .as_ref()
        .and_then(|b| b.matrix.first())
        .map(|m| m.kernel.clone())
        .unwrap_or_default();
    for (a, b, s, _) in bw_matrix_cells(r) {
        out.push(metric(
            format!("bandwidth-matrix/{kernel}/{a}->{b}"),
            format!("bandwidth ({kernel}), CPU node {a} -> memory node {b}"),
            "MB/s",
            Better::Higher,
            &s,
        ));
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
    if let Some(l) = &r.loaded_latency {
        if let Some(idle) = l.points.iter().find(|p| p.delay_ns.is_none()) {
            out.push(metric(
                "loaded/idle".into(),
                "loaded-latency curve, idle latency".into(),
                "ns",
                Better::Lower,
                &idle.ns_per_load,
            ));
        }
        if let Some(peak) = l
            .points
            .iter()
            .max_by(|a, b| a.total_mb_per_s.total_cmp(&b.total_mb_per_s))
        {
            out.push(metric(
                "loaded/peak-latency".into(),
                "loaded-latency curve, latency at peak load".into(),
                "ns",
                Better::Lower,
                &peak.ns_per_load,
            ));
        }
    }
    for g in r.c2c.iter().flat_map(|c| &c.groups) {
        out.push(metric(
            format!("c2c/{}", g.label),
            format!("core to core, {}", g.label),
            "ns",
            Better::Lower,
            &g.ns_one_way,
        ));
    }
    RunMetrics {
        name: name.into(),
        metrics: out,
    }
}
