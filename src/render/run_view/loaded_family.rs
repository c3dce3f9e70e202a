//! The curves of `numascope loaded-latency` itself (one curve, a family of load mixes, or the
//! initiator x target matrix), pulled out once for every output of that command: one tidy
//! row per point (`loaded_curves`), one headline row per curve (`loaded_summary`: idle
//! latency, the supported doubling point, the maximum bandwidth and the latency there), the
//! family chart with every curve and its error bars, and the matrix as heat maps. The
//! doubling point is stated only when more than one measured point lies at or beyond it, so a
//! single noisy last point cannot make a knee.

use super::{estimate_cells, interval_cells, interval_columns, quality_cells, Cell, Table};
use super::{
    loaded::bandwidth_cells, loaded::bandwidth_columns, loaded::blocks_cell, loaded::blocks_column,
};
use crate::render::format::estimate::num;
use crate::results::format::format_list;
use crate::results::loaded::{LoadedMatrix, LoadedPoint, LoadedReport, LoadedResult};

/// Every curve of a report, in measurement order (a matrix: cell by cell, the mixes of a cell
/// together).
pub fn report_curves(r: &LoadedReport) -> Vec<&LoadedResult> {
    match r {
        LoadedReport::Curve(c) => vec![c.as_ref()],
        LoadedReport::Family(f) => f.curves.iter().collect(),
        LoadedReport::Matrix(m) => m.cells.iter().flat_map(|c| c.curves()).collect(),
    }
}

/// A curve's name among `all`: its mix alone when every curve has the same placement,
/// else `node 0->1, read`.
pub fn curve_name(r: &LoadedResult, all: &[&LoadedResult]) -> String {
    let place = |c: &LoadedResult| (c.chaser_node, c.mem_node, c.load_mem_node);
    if all.iter().all(|c| place(c) == place(r)) {
        r.kernel_label.clone()
    } else {
        format!(
            "node {}->{}, {}",
            r.chaser_node.map_or("?".into(), |n| n.to_string()),
            r.mem_node,
            r.kernel_label
        )
    }
}

/// Every curve's warnings, each once, led by the curve's name among several `curves`.
pub fn curve_warnings(curves: &[&LoadedResult]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for c in curves {
        for w in &c.warnings {
            let w = match curves.len() {
                1 => w.clone(),
                _ => format!("{}: {w}", curve_name(c, curves)),
            };
            if !v.contains(&w) {
                v.push(w);
            }
        }
    }
    v
}

/// What a matrix's table does not show: each cell not measured and why, and that a machine
/// of one initiator and one memory node has a single cell.
pub fn matrix_notes(m: &LoadedMatrix) -> Vec<String> {
    let mut v: Vec<String> = m
        .cells
        .iter()
        .filter(|c| c.result.is_none())
        .map(|c| {
            let why = c.note.as_deref().unwrap_or("no reason recorded");
            format!("{} -> {} not measured: {why}", c.initiator, c.target)
        })
        .collect();
    if let ([_], [i], [t]) = (m.cells.as_slice(), &m.initiators[..], &m.targets[..]) {
        v.push(format!(
            "This machine has one initiator node and one memory node, so the matrix is the \
             single cell {i} -> {t}."
        ));
    }
    v
}

/// The bandwidth at which latency doubled, when more than one loaded point lies at or beyond
/// it (else `None`), and how many do. A point measured in blocks counts only when its
/// latency is twice the idle one's beyond both intervals (decided with the
/// intervals, not the medians alone); one without an interval (fewer than six blocks)
/// cannot say so. Points of files written before blocks count by their bandwidth alone, as
/// before.
pub fn supported_doubling(r: &LoadedResult) -> (Option<f64>, usize) {
    let Some(x) = r.curve.doubled_at_mb_per_s else {
        return (None, 0);
    };
    let Some(idle) = r.points.first() else {
        return (None, 0);
    };
    let beyond = r
        .points
        .iter()
        .skip(1)
        .filter(|p| p.mb_per_s() >= x)
        .filter(|p| p.blocks.is_empty() || p.latency_beyond(idle, 2.0) == Some(true))
        .count();
    ((beyond > 1).then_some(x), beyond)
}

/// The point of highest total bandwidth (the median of its slices where counted).
pub fn max_point(r: &LoadedResult) -> Option<&LoadedPoint> {
    r.points
        .iter()
        .max_by(|a, b| a.mb_per_s().total_cmp(&b.mb_per_s()))
}

/// The doubling in words: `4,120 MB/s (3 points beyond)`, or why none is stated.
pub fn doubling_text(r: &LoadedResult) -> String {
    match supported_doubling(r) {
        (Some(x), n) => format!("{} MB/s ({n} points beyond)", num(x)),
        (None, 1) => "only the last point is beyond double: not stated".into(),
        (None, _) if r.curve.doubled_at_mb_per_s.is_some() => {
            "not beyond double by the 95 % intervals: not stated".into()
        }
        _ => "not reached".into(),
    }
}

/// The first columns of the loaded-latency tables: the curve and where its threads ran.
const PLACEMENT: [(&str, &str); 5] = [
    ("curve", "curve"),
    ("mix", "load mix"),
    ("cpu_node", "chaser's node"),
    ("memory_node", "chased memory node"),
    ("load_memory_node", "load buffers' node"),
];

/// The cells of [`PLACEMENT`] for curve `r` among `curves`.
fn placement_cells(r: &LoadedResult, curves: &[&LoadedResult]) -> Vec<Cell> {
    vec![
        Cell::Text(curve_name(r, curves)),
        Cell::Text(r.kernel_label.clone()),
        r.chaser_node.map_or(Cell::Missing, |n| Cell::Int(n.into())),
        Cell::Int(r.mem_node.into()),
        Cell::Int(r.load_mem_node.into()),
    ]
}

/// One row per point of every curve.
pub fn loaded_curves_table(curves: &[&LoadedResult]) -> Table {
    let mut t = Table::new(
        "loaded_curves",
        "Loaded latency, every point of every curve",
        &PLACEMENT,
    );
    t.extend([
        ("chaser_cpu", "chaser CPU"),
        ("load_cpus", "load CPUs"),
        ("load_label", "load"),
        ("load_asked_fraction", "load asked (share of full speed)"),
        ("total_mb_per_s", "total MB/s (MB = 10^6 B)"),
        ("load_mb_per_s", "load MB/s"),
    ]);
    t.extend_estimate("ns_per_load", "ns per load");
    t.extend([
        (
            "chaser_cpu_share_fraction",
            "chaser's lowest CPU share (fraction)",
        ),
        ("steal_fraction", "highest steal over the point (fraction)"),
        ("ns_per_load_p90", "ns p90"),
    ]);
    t.extend(bandwidth_columns());
    t.extend([blocks_column()]);
    t.extend([
        ("delay_ns", "delay ns"),
        ("chaser_mb_per_s", "chaser MB/s"),
        ("ns_per_load_p99", "ns p99"),
        ("load_thread_mb_per_s", "per load thread MB/s"),
    ]);
    for r in curves {
        for p in &r.points {
            let q = p.quality.as_ref();
            let mut row = placement_cells(r, curves);
            row.extend([
                Cell::Int(r.chaser_cpu.into()),
                Cell::Text(format_list(&r.load_cpus)),
                Cell::Text(super::loaded::load_label(p)),
                Cell::opt(p.target_fraction),
                Cell::Num(p.total_mb_per_s),
                Cell::Num(p.load_mb_per_s),
            ]);
            row.extend(estimate_cells(&p.ns_per_load, q));
            row.push(Cell::opt(q.and_then(|q| q.lowest_kept_cpu_share_fraction)));
            row.push(Cell::opt(q.and_then(|q| q.highest_kept_steal_fraction)));
            row.push(Cell::Num(p.sample_p90_p99().0));
            row.extend(bandwidth_cells(p));
            row.push(blocks_cell(p));
            row.extend(point_tail(p));
            t.rows.push(row);
        }
    }
    t
}

/// The last cells of a [`loaded_curves_table`] row: delay, chaser's rate, p99 and each load
/// thread's rate (`3210 3190`).
fn point_tail(p: &LoadedPoint) -> [Cell; 4] {
    let per: Vec<String> = p
        .threads
        .iter()
        .filter(|t| t.role == "load")
        .map(|t| format!("{:.0}", t.mb_per_s))
        .collect();
    [
        Cell::opt(p.delay_ns),
        Cell::Num(p.chaser_mb_per_s),
        Cell::Num(p.sample_p90_p99().1),
        Cell::Text(per.join(" ")),
    ]
}

/// [`loaded_curves_table`] for people: latency as `231 [226, 240] n=9`, the bandwidths as
/// the median of their slices with the interval where the file has them (the bare count of
/// older files as before).
pub fn loaded_curves_for_people(curves: &[&LoadedResult]) -> Table {
    let mut t = loaded_curves_table(curves);
    super::loaded::bandwidths_for_people(&mut t, curves);
    t.with_interval_text("ns_per_load", "ns")
}

/// For each curve, whether an earlier one has its placement (chaser CPU, chased node, load
/// buffers' node): a further mix, whose idle point is the earlier curve's, measured once.
pub fn shares_idle(curves: &[&LoadedResult]) -> Vec<bool> {
    let place = |c: &LoadedResult| (c.chaser_cpu, c.mem_node, c.load_mem_node);
    let earlier = |k: usize| curves[..k].iter().any(|e| place(e) == place(curves[k]));
    (0..curves.len()).map(earlier).collect()
}

/// [`loaded_curves_for_people`] with the idle point once per placement ([`shares_idle`]).
pub fn loaded_points_for_people(curves: &[&LoadedResult]) -> Table {
    let mut t = loaded_curves_for_people(curves);
    let mut keep = curves
        .iter()
        .zip(shares_idle(curves))
        .flat_map(|(c, shared)| {
            c.points
                .iter()
                .map(move |p| !shared || p.target_fraction.is_some())
        });
    t.rows.retain(|_| keep.next().unwrap_or(true));
    t
}

/// The columns of the loaded points for people that the terminal shows (after the curve's
/// name where the table holds several).
pub const POINT_KEYS: &[&str] = &[
    "load_label",
    "delay_ns",
    "total_mb_per_s",
    "load_mb_per_s",
    "chaser_mb_per_s",
    "ns_per_load_median",
    "ns_per_load_p90",
    "ns_per_load_p99",
    "load_thread_mb_per_s",
];

/// One row per curve: its headline figures, each latency with its interval.
pub fn loaded_summary_table(curves: &[&LoadedResult]) -> Table {
    let mut t = Table::new(
        "loaded_summary",
        "Loaded latency, one row per curve",
        &PLACEMENT,
    );
    t.extend([("load_cpus", "load CPUs"), ("points_count", "points")]);
    t.extend_estimate("idle_ns_per_load", "idle ns per load");
    t.extend([
        (
            "doubled_at_mb_per_s",
            "latency doubled at (MB/s; stated with more than one point beyond)",
        ),
        (
            "points_beyond_doubling_count",
            "points at or beyond the doubling",
        ),
        ("max_mb_per_s", "max MB/s (one repetition)"),
    ]);
    t.extend(interval_columns(
        "ns_per_load_at_max",
        "ns at max",
        "at_max_",
    ));
    t.extend([
        ("at_max_disturbed", "max point disturbed (retakes ran out)"),
        ("disturbed_points_count", "disturbed points"),
        (
            "on_intended_node_fraction",
            "pages on the intended node (lowest of chased and load buffers)",
        ),
        ("max_mb_per_s_ci_low", "max MB/s, median 95 % interval low"),
        (
            "max_mb_per_s_ci_high",
            "max MB/s, median 95 % interval high",
        ),
        ("max_slices_count", "slices behind the max MB/s (n)"),
    ]);
    t.rows.extend(curves.iter().map(|r| summary_row(r, curves)));
    t
}

/// One row of [`loaded_summary_table`].
fn summary_row(r: &LoadedResult, curves: &[&LoadedResult]) -> Vec<Cell> {
    let idle = r.points.first();
    let max = max_point(r);
    let (doubled, beyond) = supported_doubling(r);
    let mut row = placement_cells(r, curves);
    row.extend([
        Cell::Text(format_list(&r.load_cpus)),
        Cell::Int(r.points.len() as u64),
    ]);
    row.extend(interval_cells(idle.map(|p| &p.ns_per_load)));
    row.extend(quality_cells(idle.and_then(|p| p.quality.as_ref())));
    row.push(Cell::opt(doubled));
    row.push(Cell::Int(beyond as u64));
    row.push(Cell::opt(max.map(LoadedPoint::mb_per_s)));
    row.extend(interval_cells(max.map(|p| &p.ns_per_load)));
    row.push(
        max.and_then(|p| p.quality.as_ref())
            .map_or(Cell::Missing, |q| Cell::Bool(q.disturbed)),
    );
    row.push(Cell::Int(
        r.points
            .iter()
            .filter(|p| p.quality.as_ref().is_some_and(|q| q.disturbed))
            .count() as u64,
    ));
    row.push(Cell::Num(
        r.chaser_placement
            .fraction_on_intended
            .min(r.load_placement_fraction),
    ));
    let bw = max.and_then(|p| p.total_mb_per_s_summary.as_ref());
    row.push(Cell::opt(bw.and_then(|s| s.ci.map(|c| c.low))));
    row.push(Cell::opt(bw.and_then(|s| s.ci.map(|c| c.high))));
    row.push(Cell::int(bw.map(|s| s.samples as u64)));
    row
}

/// [`loaded_summary_table`] for people: the idle latency and the latency at the maximum as
/// `231 [226, 240] n=9` text (each with its own n), disturbed ones marked.
pub fn loaded_summary_for_people(curves: &[&LoadedResult]) -> Table {
    let mut t = loaded_summary_table(curves);
    let c = |k: &str| t.col(k);
    let at_max = [
        "ns_per_load_at_max_median",
        "ns_per_load_at_max_ci_low",
        "ns_per_load_at_max_ci_high",
    ]
    .map(c);
    let (n, d) = (c("at_max_samples_count"), c("at_max_disturbed"));
    let x = [
        "max_mb_per_s",
        "max_mb_per_s_ci_low",
        "max_mb_per_s_ci_high",
    ]
    .map(c);
    let slices = c("max_slices_count");
    t.interval_text_at(at_max, Some(n), Some(d));
    t.columns[at_max[0]] = "ns at max [95 % interval] n".into();
    t.interval_text_at(x, Some(slices), None);
    let doubled = t.col("doubled_at_mb_per_s");
    for (row, r) in t.rows.iter_mut().zip(curves) {
        row[doubled] = Cell::Text(doubling_text(r));
    }
    t.columns[doubled] = "latency doubled at".into();
    if curves
        .iter()
        .any(|c| max_point(c).is_some_and(|p| p.total_mb_per_s_summary.is_some()))
    {
        t.columns[x[0]] = "max MB/s [95 % interval] n".into();
    }
    t.with_interval_text("idle_ns_per_load", "idle ns")
}

#[cfg(test)]
mod tests {
    use super::super::{loaded_charts::loaded_family_chart, loaded_charts::loaded_matrix_heatmaps};
    use super::*;
    use crate::results::loaded::{
        LoadedFamily, LoadedMatrix, LoadedMatrixCell, LOADED_SCHEMA_VERSION,
    };

    fn example() -> LoadedResult {
        crate::render::fixture::opteron_example()
            .loaded_latency
            .unwrap()
    }

    /// A curve whose latency doubles at 1000 MB/s with `beyond` points at or past it.
    fn doubling_with(beyond: usize) -> LoadedResult {
        let mut r = example();
        r.points.truncate(1);
        let idle = r.points[0].clone();
        for k in 0..(1 + beyond) {
            let mut p = idle.clone();
            p.total_mb_per_s = 500.0 + 500.0 * k as f64;
            p.target_fraction = Some(0.5);
            r.points.push(p);
        }
        r.curve.doubled_at_mb_per_s = Some(1000.0);
        r
    }

    /// With blocks, a point supports the doubling only when its interval lies at or
    /// above twice the idle interval's high end; one without an interval cannot.
    #[test]
    fn with_blocks_the_doubling_is_decided_by_the_intervals() {
        use crate::results::loaded::LoadedBlock;
        use crate::stats::Summary;
        let block = LoadedBlock {
            start_offset_ms: 0.0,
            ns_per_load_median: 0.0,
            samples: 6,
            total_mb_per_s: 0.0,
            load_mb_per_s: 0.0,
            dram_mb_per_s_estimate: 0.0,
            chaser_cpu_share: Some(1.0),
            disturbed: false,
        };
        let mut r = doubling_with(3);
        // Idle 100 ns [95, 105]; the three points beyond 1000 MB/s at 240 ns with intervals
        // from 215 (clear of 210), 200 (not clear) and none (five blocks).
        let six = |lo: f64, mid: f64, hi: f64| Summary::of(&[lo, mid, mid, mid, mid, hi]).unwrap();
        for p in r.points.iter_mut() {
            p.blocks = vec![block.clone(); 6];
        }
        r.points[0].ns_per_load = six(95.0, 100.0, 105.0);
        r.points[2].ns_per_load = six(215.0, 240.0, 260.0);
        r.points[3].ns_per_load = six(200.0, 240.0, 260.0);
        r.points[4].ns_per_load = Summary::of(&[230.0, 240.0, 240.0, 240.0, 250.0]).unwrap();
        assert_eq!(r.points[2].latency_beyond(&r.points[0], 2.0), Some(true));
        assert_eq!(r.points[3].latency_beyond(&r.points[0], 2.0), Some(false));
        assert_eq!(r.points[4].latency_beyond(&r.points[0], 2.0), None);
        assert_eq!(
            supported_doubling(&r),
            (None, 1),
            "one point clear of noise"
        );
        r.points[3].ns_per_load = six(211.0, 240.0, 260.0);
        assert_eq!(supported_doubling(&r), (Some(1000.0), 2));
        for p in r.points.iter_mut().skip(2) {
            p.ns_per_load = six(150.0, 240.0, 260.0);
        }
        assert_eq!(supported_doubling(&r), (None, 0));
        assert_eq!(
            doubling_text(&r),
            "not beyond double by the 95 % intervals: not stated"
        );
        // Without blocks (an older file) the points count by their bandwidth, as before.
        for p in r.points.iter_mut() {
            p.blocks.clear();
        }
        assert_eq!(supported_doubling(&r), (Some(1000.0), 3));
    }

    #[test]
    fn the_doubling_needs_more_than_one_point_beyond_it() {
        assert_eq!(supported_doubling(&doubling_with(2)), (Some(1000.0), 2));
        assert_eq!(supported_doubling(&doubling_with(1)), (None, 1));
        assert!(doubling_text(&doubling_with(1)).contains("not stated"));
        assert!(doubling_text(&doubling_with(3)).starts_with("1000 MB/s (3 points beyond)"));
        let mut never = example();
        never.curve.doubled_at_mb_per_s = None;
        assert_eq!(doubling_text(&never), "not reached");
    }

    #[test]
    fn a_matrix_gives_one_row_per_cell_and_mix_and_a_heatmap_pair_per_mix() {
        let read = example();
        let mut mix = read.clone();
        mix.kernel_label = "read:write 1:1".into();
        let cell = |i, t| LoadedMatrixCell {
            initiator: i,
            target: t,
            result: Some(LoadedResult {
                chaser_node: Some(i),
                mem_node: t,
                load_mem_node: t,
                ..read.clone()
            }),
            note: None,
            further_mixes: vec![LoadedResult {
                chaser_node: Some(i),
                mem_node: t,
                load_mem_node: t,
                ..mix.clone()
            }],
        };
        let m = LoadedMatrix {
            schema_version: LOADED_SCHEMA_VERSION,
            initiators: vec![0, 1],
            targets: vec![0, 1],
            cells: vec![
                cell(0, 0),
                cell(0, 1),
                cell(1, 0),
                LoadedMatrixCell {
                    initiator: 1,
                    target: 1,
                    result: None,
                    note: Some("no CPU".into()),
                    further_mixes: vec![],
                },
            ],
            load_nodes: Some(vec![0, 1]),
            load_mem_node: None,
        };
        let r = LoadedReport::Matrix(m.clone());
        let curves = report_curves(&r);
        assert_eq!(curves.len(), 6);
        let t = loaded_summary_table(&curves);
        assert_eq!(t.rows.len(), 6);
        assert_eq!(
            t.rows[3][t.col("curve")],
            Cell::Text("node 0->1, read:write 1:1".into())
        );
        let maps = loaded_matrix_heatmaps(&m);
        assert_eq!(maps.len(), 2);
        assert_eq!(maps[1].0.title, "Idle latency, load read:write 1:1");
        assert_eq!(maps[0].1.values[1][1], None, "the unmeasured cell");
        assert!(maps[0].0.values[0][1].is_some());
        // A family of one placement names curves by their mix alone.
        let f = LoadedReport::Family(LoadedFamily {
            schema_version: LOADED_SCHEMA_VERSION,
            order: String::new(),
            curves: vec![read.clone(), mix.clone()],
        });
        let c = loaded_family_chart(&report_curves(&f)).unwrap();
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["read", "read:write 1:1"]);
        let p = loaded_summary_for_people(&report_curves(&f));
        let Cell::Text(s) = &p.rows[0][p.col("ns_per_load_at_max_median")] else {
            panic!("text for people");
        };
        assert!(s.contains("n="), "{s}");
    }
}
