//! The loaded-latency curves of a run as a table, a chart with the doubling point, and two
//! sentences. The run measures the read curve and, as its budget allows, further load mixes
//! interleaved with it; with several mixes the table holds every mix's points and the chart
//! is the family (one curve per mix). Each point is measured in blocks spread over the curve:
//! its latency and bandwidth are the medians of its blocks' with their 95 %
//! intervals (n = blocks), the bandwidth's drawn as a horizontal bar. Files written before
//! blocks existed show the median of their slices (the chaser's sample windows), and files
//! written before slices were counted the one count they have, as before.

use super::{ci_cells, ci_columns, Cell, Table};
use crate::render::svg::XErrorBar;
use crate::results::loaded::{LoadedPoint, LoadedResult};
use crate::results::RunResults;

/// Every loaded-latency curve of a run: the read curve, then the further mixes.
pub fn run_loaded_curves(r: &RunResults) -> Vec<&LoadedResult> {
    r.loaded_latency
        .iter()
        .chain(r.loaded_latency_mixes.iter())
        .collect()
}

/// The total and load bandwidth columns of a loaded-latency table for people, one row per
/// point of `curves`: each figure with its per-slice (or per-block) summary as `6679 [6500,
/// 6800]` (the row shows n elsewhere), the bare figure of an older file as before; the labels
/// say what the interval is over.
pub(crate) fn bandwidths_for_people(t: &mut Table, curves: &[&LoadedResult]) {
    let [total, load] = ["total_mb_per_s", "load_mb_per_s"].map(|k| t.col(k));
    let points = curves.iter().flat_map(|c| c.points.iter());
    for (row, p) in t.rows.iter_mut().zip(points) {
        for (col, s) in [
            (total, &p.total_mb_per_s_summary),
            (load, &p.load_mb_per_s_summary),
        ] {
            if let Some(s) = s {
                row[col] = Cell::Text(crate::render::format::estimate::cell(&s.estimate()));
            }
        }
    }
    if has_slices(curves) {
        t.columns[total] = "total MB/s [95 % interval]".into();
        t.columns[load] = "load MB/s [95 % interval]".into();
    }
}

/// The blocks behind a point's figures as the CSV's last cell (empty for an older file).
pub(crate) fn blocks_cell(p: &LoadedPoint) -> Cell {
    Cell::int((!p.blocks.is_empty()).then_some(p.blocks.len() as u64))
}

/// The key and label of [`blocks_cell`]'s column, the last of the loaded-latency tables.
pub(crate) fn blocks_column() -> (String, String) {
    (
        "blocks_count".into(),
        "blocks behind the point's figures (n; empty: a file written before blocks)".into(),
    )
}

/// True when any point of these curves has its bandwidth per slice.
fn has_slices(curves: &[&LoadedResult]) -> bool {
    any_point(curves, |p| p.total_mb_per_s_summary.is_some())
}

/// True when `f` holds for any point of these curves.
fn any_point(curves: &[&LoadedResult], f: impl Fn(&LoadedPoint) -> bool) -> bool {
    curves.iter().any(|c| c.points.iter().any(&f))
}

/// The (key, label) pairs of [`bandwidth_cells`]: the per-slice bandwidth summaries, added
/// at the end of the loaded-latency tables so older readers of their CSVs keep their columns.
pub(crate) fn bandwidth_columns() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    for (base, label) in [
        ("total_mb_per_s", "MB/s (total) per slice"),
        ("load_mb_per_s", "MB/s of the load threads per slice"),
        ("dram_mb_per_s_estimate", "DRAM MB/s (estimate) per slice"),
    ] {
        v.push((format!("{base}_median"), format!("{label} (median)")));
        v.extend(ci_columns(base, &format!("{label}, median")));
        if base == "total_mb_per_s" {
            v.push((
                "mb_per_s_ci_level_fraction".into(),
                "bandwidth interval coverage (fraction)".into(),
            ));
            v.push((
                "slices_count".into(),
                "slices (chaser sample windows, n)".into(),
            ));
        }
    }
    v
}

/// The cells of [`bandwidth_columns`] for one point; empty for a file written before
/// slices were counted.
pub(crate) fn bandwidth_cells(p: &LoadedPoint) -> Vec<Cell> {
    let mut v = Vec::with_capacity(11);
    for (k, s) in [
        &p.total_mb_per_s_summary,
        &p.load_mb_per_s_summary,
        &p.dram_mb_per_s_estimate_summary,
    ]
    .into_iter()
    .enumerate()
    {
        let s = s.as_ref();
        let [low, high, level] = ci_cells(s.and_then(|s| s.ci));
        v.extend([Cell::opt(s.map(|s| s.median)), low, high]);
        if k == 0 {
            v.extend([level, Cell::int(s.map(|s| s.samples as u64))]);
        }
    }
    v
}

/// The load level of a point in words.
pub(crate) fn load_label(p: &LoadedPoint) -> String {
    match (p.delay_ns, p.target_fraction) {
        (None, _) => "idle (load threads asleep)".to_string(),
        (Some(_), Some(f)) => format!("{:.0} % of full speed", 100.0 * f),
        (Some(_), None) => "load at the given delay".to_string(),
    }
}

/// Latency under bandwidth load, one row per load level of every curve (the read curve
/// first, then each further mix; the idle point heads each): the columns of
/// `loaded-latency`'s [`loaded_curves_table`](super::loaded_family::loaded_curves_table).
pub fn loaded_table(r: &RunResults) -> Table {
    let mut t = super::loaded_family::loaded_curves_table(&run_loaded_curves(r));
    t.name = "loaded_latency";
    t.title = "Loaded latency".into();
    t
}

/// The horizontal bar of a point's bandwidth interval, where it has one.
pub(crate) fn x_error(series: usize, p: &LoadedPoint) -> Option<XErrorBar> {
    let s = p.total_mb_per_s_summary.as_ref()?;
    Some(XErrorBar {
        series,
        y: p.ns_per_load.median,
        low: s.ci.map(|c| c.low)?,
        high: s.ci.map(|c| c.high)?,
    })
}

/// How a point's bandwidth and latency are summarized, in one or two sentences: the median
/// of its blocks with their interval, of its slices (files written before blocks), or
/// (files written before slices were counted) one repetition's count.
pub fn bandwidth_note(curves: &[&LoadedResult]) -> &'static str {
    if any_point(curves, |p| !p.blocks.is_empty()) {
        "Each point is measured in blocks spread over the sweep (rounds over every point, the order moved on each round): its latency is the median of its blocks' median latencies and its bandwidth the median of its blocks' bandwidths (each the median of the block's 2 ms slices), each with the 95 % interval over the blocks (n = blocks)."
    } else if has_slices(curves) {
        "A point's bandwidth is the median over its slices (the chaser's 2 ms sample windows) with their 95 % interval; its latency is the median of the chaser's samples in the same windows with their 95 % interval."
    } else {
        "A point's bandwidth is one repetition's count (no interval); its latency is the median of the chaser's samples with their 95 % interval."
    }
}

#[cfg(test)]
mod tests {
    use super::super::loaded_charts::loaded_family_chart;
    use super::*;
    use crate::stats::Summary;

    /// The example run with its read curve's points given slices, and a 2:1 mix beside it.
    fn with_mix() -> RunResults {
        let mut r = crate::render::fixture::opteron_example();
        let read = r.loaded_latency.as_mut().unwrap();
        for (k, p) in read.points.iter_mut().enumerate() {
            let v: Vec<f64> = (0..7)
                .map(|i| p.total_mb_per_s + f64::from(i) - 3.0)
                .collect();
            // The last point has too few slices for an interval.
            let v = if k + 1 == 6 { v[..3].to_vec() } else { v };
            p.total_mb_per_s_summary = Summary::of(&v);
            p.load_mb_per_s_summary = Summary::of(&v);
            p.dram_mb_per_s_estimate_summary = Summary::of(&v);
        }
        let mut mix = read.clone();
        mix.kernel_label = "read:write 2:1".into();
        r.loaded_latency_mixes = vec![mix];
        r
    }

    #[test]
    fn every_mix_gets_its_rows_and_the_slices_their_columns() {
        let r = with_mix();
        let points = r.loaded_latency.as_ref().unwrap().points.len();
        let t = loaded_table(&r);
        assert_eq!((t.name, t.rows.len()), ("loaded_latency", 2 * points));
        let n = t.col("slices_count");
        assert_eq!(t.rows[1][n], Cell::Int(7), "n = slices");
        assert_eq!(t.rows[points - 1][n], Cell::Int(3));
        let lo = t.col("total_mb_per_s_ci_low");
        assert!(matches!(t.rows[1][lo], Cell::Num(_)));
        assert_eq!(t.rows[points - 1][lo], Cell::Missing, "no interval");
        assert_eq!(t.rows[1][t.col("blocks_count")], Cell::Missing, "no blocks");
        // For people: the idle point once, each row named by its mix.
        let curves = run_loaded_curves(&r);
        let p = super::super::loaded_family::loaded_points_for_people(&curves);
        assert_eq!(p.rows.len(), 2 * points - 1);
        let curve = p.col("curve");
        assert_eq!(p.rows[points][curve].display(), "read:write 2:1");
        assert_eq!(
            p.rows[0][p.col("delay_ns")],
            Cell::Missing,
            "idle: no delay"
        );
        let total = p.col("total_mb_per_s");
        let last = p.rows[points - 1][total].display();
        assert!(last.contains("no interval"), "{last}");
        assert!(p.rows[1][total].display().contains(" ["));
        // `report --full` prints the loaded-latency command's family section: every mix.
        let full = crate::render::fixture::written(|o| crate::render::run_text::render(&r, o));
        assert!(full.contains("Loaded latency, 2 load mixes"), "{full}");
        assert!(full.contains("mix read:write 2:1 (full speed"), "{full}");
        // The HTML's section: the family's headline rows, each mix's trend in words.
        let page = crate::render::html::render(&r);
        assert!(page.contains("read:write 2:1: trend: latency"), "{page}");
    }

    #[test]
    fn the_chart_is_the_family_with_horizontal_bars() {
        let r = with_mix();
        let c = loaded_family_chart(&run_loaded_curves(&r)).unwrap();
        assert_eq!(c.series.len(), 2);
        let points = r.loaded_latency.as_ref().unwrap().points.len();
        assert_eq!(
            c.x_errors.len(),
            2 * (points - 1),
            "one bar per point with an interval"
        );
        assert!(bandwidth_note(&run_loaded_curves(&r)).contains("slices"));
        let mut one = with_mix();
        one.loaded_latency_mixes.clear();
        let c = loaded_family_chart(&run_loaded_curves(&one)).unwrap();
        assert_eq!((c.series.len(), c.x_errors.len()), (1, points - 1));
        // The point sits at its slices' median, the bar around it.
        let p = &one.loaded_latency.as_ref().unwrap().points[1];
        let bar = c
            .x_errors
            .iter()
            .find(|e| e.y == p.ns_per_load.median)
            .unwrap();
        assert!(bar.low <= p.mb_per_s() && p.mb_per_s() <= bar.high);
    }

    /// The run's verdict judges every mix's loaded points, the shared idle point once.
    #[test]
    fn the_verdict_counts_every_mix_and_the_idle_point_once() {
        let r = with_mix();
        let points = r.loaded_latency.as_ref().unwrap().points.len();
        let checks = crate::results::verdict::figure_checks(&r);
        let loaded: Vec<String> = checks
            .iter()
            .map(|c| crate::render::words::figure::name(&c.figure))
            .filter(|n| n.starts_with("loaded latency"))
            .collect();
        assert_eq!(loaded.len(), 2 * points - 1, "{loaded:?}");
        assert_eq!(
            loaded
                .iter()
                .filter(|n| n.ends_with("(read:write 2:1)"))
                .count(),
            points - 1
        );
    }

    /// A file written before slices were counted renders as it did.
    #[test]
    fn an_older_file_shows_its_one_count_as_before() {
        let r = crate::render::fixture::opteron_example();
        let p = super::super::loaded_family::loaded_curves_for_people(&run_loaded_curves(&r));
        let total = p.col("total_mb_per_s");
        assert!(matches!(p.rows[1][total], Cell::Num(_)));
        assert_eq!(p.columns[total], "total MB/s (MB = 10^6 B)");
        assert!(loaded_family_chart(&run_loaded_curves(&r))
            .unwrap()
            .x_errors
            .is_empty());
        assert!(bandwidth_note(&run_loaded_curves(&r)).contains("one repetition's count"));
    }
}
