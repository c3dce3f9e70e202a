//! The RightMark table and the per-stream matrix as tidy tables (for CSV and the HTML table)
//! and as heatmaps (one grid per column, cells coloured by value), pulled out of their reports
//! once so text, CSV and HTML show the same figures. One row per figure: bandwidth rows fill
//! the `mb_per_s_*` columns, latency rows the `ns_per_load_*` columns, so every numeric column
//! keeps one unit (docs/csv.md).

use crate::render::format::estimate::num;
use crate::render::run_view::{ci_cells, quality_cells};
use crate::render::run_view::{Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::format::format_bytes;
use crate::results::tables::{
    RatioToLocal, RightmarkMetric, RightmarkReport, RoundFigure, StreamMatrix, StreamMatrixReport,
};

/// The columns every figure row ends with: its value (in the unit's columns), the interval,
/// the ratio to local with its interval, placement and quality.
const FIGURE_COLUMNS: &[(&str, &str)] = &[
    ("mb_per_s_median", "MB/s (median of the rounds)"),
    ("mb_per_s_ci_low", "MB/s 95 % interval low"),
    ("mb_per_s_ci_high", "MB/s 95 % interval high"),
    ("ns_per_load_median", "ns per load (median of the rounds)"),
    ("ns_per_load_ci_low", "ns per load 95 % interval low"),
    ("ns_per_load_ci_high", "ns per load 95 % interval high"),
    ("ci_level_fraction", "interval coverage (fraction)"),
    ("samples_count", "rounds (n)"),
    (
        "relative_to_local_ratio",
        "this / local (median of paired rounds)",
    ),
    (
        "relative_to_local_ci_low_ratio",
        "this / local 95 % interval low",
    ),
    (
        "relative_to_local_ci_high_ratio",
        "this / local 95 % interval high",
    ),
    (
        "on_intended_node_fraction",
        "on intended node (lowest round, fraction)",
    ),
    (
        "repetitions_discarded_count",
        "repetitions discarded (disturbed, taken again)",
    ),
    ("disturbed", "disturbed (retakes ran out)"),
    ("error", "error"),
];

/// The cells of [`FIGURE_COLUMNS`] (without the ns ones unless `ns`): the median and
/// interval in the ns columns for a `latency` figure, else in the MB/s ones.
fn figure_cells(f: &RoundFigure, ns: bool, latency: bool) -> Vec<Cell> {
    let s = f.summary.as_ref();
    let [lo, hi, level] = ci_cells(s.and_then(|s| s.ci));
    let figure = vec![Cell::opt(s.map(|s| s.median)), lo, hi];
    let mut row = match (ns, latency) {
        (true, true) => [vec![Cell::Missing; 3], figure].concat(),
        (true, false) => [figure, vec![Cell::Missing; 3]].concat(),
        (false, _) => figure,
    };
    let r = f.ratio_to_local.as_ref();
    let [ratio_low, ratio_high, _] = ci_cells(r.and_then(|r| r.ci));
    row.extend([
        level,
        s.map_or(Cell::Missing, |s| Cell::Int(s.samples as u64)),
        Cell::opt(r.map(|r| r.ratio)),
        ratio_low,
        ratio_high,
        Cell::opt(f.placement_fraction),
    ]);
    row.extend(quality_cells(f.quality.as_ref()));
    row.push(f.error.clone().map_or(Cell::Missing, Cell::Text));
    row
}

/// `rightmark.csv`: one row per (CPU node, memory node, column).
pub fn rightmark_table(r: Option<&RightmarkReport>) -> Table {
    let head: &[(&str, &str)] = &[
        ("cpu_node", "CPU node"),
        ("memory_node", "memory node"),
        ("cpu", "CPU"),
        ("local", "local"),
        ("slit_distance", "SLIT distance"),
        ("metric", "column"),
        ("block_bytes", "block (bytes)"),
    ];
    let mut t = Table::new(
        "rightmark",
        "RightMark table: one thread, CPU node x memory node",
        head,
    );
    t.extend(FIGURE_COLUMNS.iter().copied());
    for rep in r.iter() {
        for c in &rep.cells {
            for f in &c.figures {
                let mut row = vec![
                    Cell::Int(c.cpu_node as u64),
                    Cell::Int(c.memory_node as u64),
                    Cell::Int(c.cpu as u64),
                    Cell::Bool(c.local),
                    c.slit_distance
                        .map_or(Cell::Missing, |d| Cell::Int(d as u64)),
                    Cell::Text(f.metric.name().into()),
                    Cell::Int(rep.block_bytes),
                ];
                row.extend(figure_cells(&f.figure, true, f.metric.is_latency()));
                t.rows.push(row);
            }
        }
    }
    t
}

/// `stream_matrix.csv`: one row per (kernel, CPU node, source node, destination node).
pub fn stream_matrix_table(r: Option<&StreamMatrixReport>) -> Table {
    let head: &[(&str, &str)] = &[
        ("kernel", "kernel"),
        ("cpu_node", "CPU node"),
        ("threads_count", "threads"),
        ("source_node", "source node"),
        ("destination_node", "destination node"),
        ("array_bytes", "array per thread and stream (bytes)"),
    ];
    let mut t = Table::new(
        "stream_matrix",
        "Per-stream placement: source node x destination node",
        head,
    );
    // Bandwidth only: the latency columns would always be empty.
    let bandwidth = FIGURE_COLUMNS.iter().copied();
    t.extend(bandwidth.filter(|(k, _)| !k.starts_with("ns_per_load")));
    for m in r.iter().flat_map(|r| &r.matrices) {
        for c in &m.cells {
            let mut row = vec![
                Cell::Text(m.kernel.clone()),
                Cell::Int(m.cpu_node as u64),
                Cell::Int(m.cpus.len() as u64),
                Cell::Int(c.source_node as u64),
                Cell::Int(c.destination_node as u64),
                Cell::Int(m.array_bytes_per_thread),
            ];
            row.extend(figure_cells(&c.mb_per_s, false, false));
            t.rows.push(row);
        }
    }
    t
}

/// `231 [226, 240] n=9`, ` (disturbed)` when marked, the error when it failed, `-` when
/// nothing was measured.
pub fn figure_text(f: &RoundFigure) -> String {
    match &f.summary {
        Some(s) => {
            let mut t = crate::render::format::estimate::bracketed(&s.estimate());
            if f.disturbed() {
                t.push_str(" (disturbed)");
            }
            t
        }
        None => match &f.error {
            Some(e) => format!("- ({})", e.split(':').next().unwrap_or("failed")),
            None => "-".into(),
        },
    }
}

/// `x0.50 [0.49, 0.51]`, or `x0.50, no interval` below six pairs.
pub fn ratio_text(r: &RatioToLocal) -> String {
    match (r.ci.map(|c| c.low), r.ci.map(|c| c.high)) {
        (Some(l), Some(h)) => format!("x{} [{}, {}]", num(r.ratio), num(l), num(h)),
        _ => format!("x{}, no interval ({} pairs)", num(r.ratio), r.pairs),
    }
}

/// `231 [226, 240] n=9`, a remote figure followed by ` \u{00b7} x0.65 [0.64, 0.66]`, `-`
/// without.
fn figure_with_ratio(f: Option<&RoundFigure>) -> Cell {
    Cell::Text(match f {
        Some(f) => match &f.ratio_to_local {
            Some(x) => format!("{} \u{00b7} {}", figure_text(f), ratio_text(x)),
            None => figure_text(f),
        },
        None => "-".into(),
    })
}

/// The RightMark table in the article's layout, as the terminal and the HTML report show
/// it: one row per column of the table (its name and unit), one column per CPU node ->
/// memory node cell.
pub fn rightmark_layout(r: &RightmarkReport) -> Table {
    let columns = [
        ("figure", "figure"),
        ("unit", "unit"),
        ("cell", ""),
        ("v", ""),
    ];
    let mut t = Table::new("rightmark_layout", "RightMark table", &columns);
    for &m in &r.metrics {
        for c in &r.cells {
            let local = if c.local { " (local)" } else { "" };
            let (from, to) = (c.cpu_node, c.memory_node);
            let cell = format!("CPU node {from} \u{2192} memory node {to}{local}");
            let text = |s: &str| Cell::Text(s.into());
            let v = figure_with_ratio(c.figure(m));
            t.rows
                .push(vec![text(m.label()), text(m.unit()), text(&cell), v]);
        }
    }
    t.pivot(&["figure", "unit"], ("cell", &|c: &str| c.into()), "v")
}

/// What the RightMark table holds and how it was measured, the sentences the terminal and
/// the HTML report print with it.
pub fn rightmark_notes(r: &RightmarkReport) -> Vec<String> {
    let mut cpus: Vec<(u32, u32)> = r.cells.iter().map(|c| (c.cpu_node, c.cpu)).collect();
    cpus.dedup();
    let cpus: Vec<String> = cpus
        .iter()
        .map(|(n, c)| format!("node {n} on CPU {c}"))
        .collect();
    let mut v = vec![
        format!(
            "RightMark table: one thread per CPU node, its {} block bound to the memory node, {} \
             pages, {} interleaved rounds.",
            format_bytes(r.block_bytes),
            r.page_size,
            r.rounds
        ),
        "Median [95 % interval] n over the rounds; MB/s = 10^6 B/s; latency in ns per load; xR \
         = this / the CPU node's local cell (median of paired rounds)."
            .into(),
        format!(
            "Threads: {}; bandwidth: one warm-up and one {} ms repetition per round (read, write, \
             read-prefetch, write-nt kernels); latency: {} samples of at least {} ms per round \
             (page-local chase = pseudo-random, whole-block chase = random).",
            cpus.join(", "),
            r.bandwidth_repetition_ms,
            r.latency_samples_per_round,
            crate::render::svg::trim_num(r.latency_min_sample_ns as f64 / 1e6, 2)
        ),
    ];
    if r.cells.iter().all(|c| c.local) {
        v.push(
            "One memory node: there is no remote cell, so no local/remote ratio is claimed.".into(),
        );
    }
    v
}

/// One per-stream matrix as source rows x destination columns.
pub fn stream_layout(m: &StreamMatrix) -> Table {
    let columns = [("source", "source \\ destination"), ("to", ""), ("v", "")];
    let mut t = Table::new("stream_matrix_layout", "Per-stream placement", &columns);
    for c in &m.cells {
        let node = |n: u32| Cell::Text(format!("node {n}"));
        let v = figure_with_ratio(Some(&c.mb_per_s));
        t.rows
            .push(vec![node(c.source_node), node(c.destination_node), v]);
    }
    t.pivot(&["source"], ("to", &|d: &str| d.into()), "v")
}

/// What one per-stream matrix holds and how it was measured, the sentences the terminal and
/// the HTML report print with it.
pub fn stream_notes(r: &StreamMatrixReport, m: &StreamMatrix) -> Vec<String> {
    let nt = if m.non_temporal {
        " (non-temporal stores)"
    } else {
        ""
    };
    let mut v = vec![
        format!(
            "Per-stream placement: {}{nt} on CPU node {} ({} threads, CPUs {}), {} per stream per \
             thread, {} pages, {} interleaved rounds of {} ms.",
            m.kernel,
            m.cpu_node,
            m.cpus.len(),
            crate::results::format::format_list(&m.cpus),
            format_bytes(m.array_bytes_per_thread),
            r.page_size,
            r.rounds,
            r.repetition_ms,
        ),
        format!(
            "Rows: the source (read) stream's node; columns: the destination (written) stream's \
             node; MB/s = 10^6 B/s of application bytes, median [95 % interval] n; xR = this / \
             both streams on node {}.",
            m.cpu_node
        ),
    ];
    if m.cells.len() == 1 {
        v.push("One memory node: there is no remote placement, so no ratio is claimed.".into());
    }
    v
}

/// One heatmap per column of the RightMark table: CPU node x memory node, the median.
pub fn rightmark_heatmaps(r: &RightmarkReport) -> Vec<Heatmap> {
    r.metrics
        .iter()
        .filter_map(|&m| {
            let cells = (r.cells.iter()).map(|c| {
                (
                    c.cpu_node,
                    c.memory_node,
                    c.figure(m).and_then(RoundFigure::median),
                )
            });
            let worse_high = m == RightmarkMetric::PseudoRandom || m == RightmarkMetric::Random;
            let title = format!("{}, {}", m.label(), m.unit());
            crate::render::run_view::grid(&title, m.unit(), worse_high, cells)
        })
        .collect()
}

/// The heatmap of one per-stream matrix: source node x destination node, MB/s.
pub fn stream_heatmap(m: &StreamMatrix) -> Heatmap {
    let cells = (m.cells.iter()).map(|c| (c.source_node, c.destination_node, c.mb_per_s.median()));
    let title = format!("{} on CPU node {}, MB/s", m.kernel, m.cpu_node);
    let axes = ("source node", "destination node");
    crate::render::run_view::grid_of(&title, axes, "MB/s", false, cells)
}

/// The Opteron article's table (seed 001, no bank interleave) as a 2 x 2 report measured in
/// nine rounds, for the renderers' tests.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::results::environment::Environment;
    use crate::results::tables::{
        RightmarkCell, RightmarkFigure, RightmarkMetric, RightmarkReport, RoundFigure,
    };
    use crate::stats::Summary;

    const LOCAL: [f64; 6] = [3618.0, 1616.0, 6286.0, 5924.0, 45.6, 74.7];
    const REMOTE: [f64; 6] = [2369.0, 1415.0, 3116.0, 3032.0, 70.9, 112.3];

    pub(crate) fn rightmark_example() -> RightmarkReport {
        let fig = |v: f64| {
            let rounds: Vec<f64> = (0..9)
                .map(|i| v * (1.0 + (i as f64 - 4.0) * 0.001))
                .collect();
            RoundFigure {
                summary: Summary::of(&rounds),
                rounds,
                placement_fraction: Some(1.0),
                ..RoundFigure::empty()
            }
        };
        let mut cells = Vec::new();
        for (i, m) in [(0u32, 0u32), (0, 1), (1, 0), (1, 1)] {
            let vals = if i == m { LOCAL } else { REMOTE };
            let figures = RightmarkMetric::ALL
                .iter()
                .zip(vals)
                .map(|(&metric, v)| {
                    let mut figure = fig(v);
                    if i != m {
                        figure.ratio_to_local = crate::tables::ratio_to_local(
                            &fig(LOCAL[metric_index(metric)]),
                            &figure,
                        );
                    }
                    RightmarkFigure { metric, figure }
                })
                .collect();
            cells.push(RightmarkCell {
                cpu_node: i,
                memory_node: m,
                cpu: i,
                local: i == m,
                slit_distance: Some(if i == m { 10 } else { 20 }),
                figures,
            });
        }
        RightmarkReport {
            block_bytes: 16 << 20,
            page_size: "4k".into(),
            rounds: 9,
            bandwidth_repetition_ms: 100,
            latency_samples_per_round: 5,
            latency_min_sample_ns: 2_000_000,
            metrics: RightmarkMetric::ALL.to_vec(),
            cells,
            numa_balancing: Some(0),
            environment: Environment::default(),
            warnings: vec![],
        }
    }

    /// A 2 x 2 copy matrix on CPU node 0 from the table's read figures (local 3618, remote
    /// 2369), for the renderers' tests.
    pub(crate) fn stream_example() -> crate::results::tables::StreamMatrixReport {
        use crate::results::tables::{StreamCell, StreamMatrix, StreamMatrixReport};
        let r = rightmark_example();
        let cells = r
            .cells
            .iter()
            .map(|c| StreamCell {
                source_node: c.cpu_node,
                destination_node: c.memory_node,
                mb_per_s: c.figures[0].figure.clone(),
            })
            .collect();
        StreamMatrixReport {
            rounds: 9,
            repetition_ms: 100,
            page_size: "4k".into(),
            matrices: vec![StreamMatrix {
                kernel: "copy".into(),
                non_temporal: false,
                cpu_node: 0,
                cpus: vec![0, 1],
                array_bytes_per_thread: 1 << 20,
                source_nodes: vec![0, 1],
                destination_nodes: vec![0, 1],
                cells,
            }],
            numa_balancing: None,
            environment: Environment::default(),
            warnings: vec![],
        }
    }

    fn metric_index(m: RightmarkMetric) -> usize {
        RightmarkMetric::ALL.iter().position(|&x| x == m).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::rightmark_example;
    use super::*;

    #[test]
    fn one_row_per_figure_with_the_unit_columns_filled() {
        let r = rightmark_example();
        let t = rightmark_table(Some(&r));
        assert_eq!(t.rows.len(), 24);
        assert_eq!(t.keys.len(), t.columns.len());
        let (bw, ns, ratio) = (
            t.col("mb_per_s_median"),
            t.col("ns_per_load_median"),
            t.col("relative_to_local_ratio"),
        );
        // Row 6 is (0, 1) average read: MB/s filled, ns empty, ratio 2369 / 3618.
        let row = &t.rows[6];
        assert!(matches!(row[bw], Cell::Num(v) if v == 2369.0));
        assert_eq!(row[ns], Cell::Missing);
        assert!(matches!(row[ratio], Cell::Num(v) if (v - 2369.0 / 3618.0).abs() < 1e-9));
        // Row 5 is (0, 0) random latency: local, no ratio.
        assert!(matches!(t.rows[5][ns], Cell::Num(v) if v == 74.7));
        assert_eq!(t.rows[5][ratio], Cell::Missing);
        assert!(rightmark_table(None).rows.is_empty());
        let h = rightmark_heatmaps(&r);
        assert_eq!(h.len(), 6);
        assert_eq!(h[0].values[0][1], Some(2369.0));
        assert!(h[5].higher_is_worse && !h[0].higher_is_worse);
    }

    /// A one-cell stream matrix on thp pages holds to docs/csv.md (the full examples' files:
    /// tables_standalone's test) and draws a one-cell heat map.
    #[test]
    fn a_one_cell_stream_matrix_follows_the_documented_columns() {
        use crate::render::csv::{csv_check, table_csv};
        let d = csv_check::documented(include_str!("../../docs/csv.md"));
        // The example's one remote cell, 0 -> 1, alone on thp pages.
        let mut sm = fixture::stream_example();
        sm.page_size = "thp".into();
        let m = &mut sm.matrices[0];
        m.cells
            .retain(|c| (c.source_node, c.destination_node) == (0, 1));
        (m.source_nodes, m.destination_nodes) = (vec![0], vec![1]);
        let t = stream_matrix_table(Some(&sm));
        assert_eq!(t.rows.len(), 1);
        let text = table_csv(&t).unwrap();
        let p = csv_check::check_file("stream_matrix.csv", &text, &d["stream_matrix.csv"]);
        assert!(p.is_empty(), "{p:?}");
        let h = stream_heatmap(&sm.matrices[0]);
        assert_eq!(h.values, vec![vec![Some(2369.0)]]);
    }
}
