//! The latency results as tables and charts: one row per working set (a sweep's points, the
//! sizes `latency --size` asked for) for the terminal, the CSV files and `report --full`, the
//! working-set chart and its knees for the HTML. The node x node matrix is in
//! [`super::latency_matrix`].

use super::{estimate_cells, Cell, Table};
use crate::render::svg::{LineChart, Marker, XScale};
use crate::results::latency::{CurveKnees, LatencyReport, LatencyResult, Mode};
use crate::results::RunResults;

/// One row per latency result (a sweep's points, the sizes asked for): the CSV columns of
/// docs/csv.md, then the spread over every kept sample (pooled over the blocks of a sweep
/// measured in passes), which the terminal shows.
pub fn results_table<'a>(
    name: &'static str,
    title: &str,
    points: impl IntoIterator<Item = &'a LatencyResult>,
) -> Table {
    let mut t = Table::new(
        name,
        title,
        &[
            ("mode", "mode"),
            ("page_size", "page size"),
            ("chains_count", "chains"),
            ("working_set_bytes", "working set (bytes)"),
        ],
    );
    t.extend_estimate("ns_per_load", "ns per load");
    t.extend([
        ("ns_per_load_min", "ns min"),
        ("ns_per_load_p90", "ns p90"),
        ("cycles_per_load_median", "cycles (median)"),
        ("cpu", "CPU"),
        ("memory_node", "memory node"),
        ("on_intended_node_fraction", "on node (fraction)"),
        ("huge_page_backed_fraction", "huge pages (fraction)"),
        ("sample_ns_min", "sample ns min"),
        ("sample_ns_p90", "sample ns p90"),
        ("sample_ns_p99", "sample ns p99"),
    ]);
    for p in points {
        let spread = p.blocks.as_ref().map_or(&p.ns_per_load, |b| &b.all_samples);
        let mut row = vec![
            Cell::Text(p.mode.label().into()),
            Cell::Text(p.page_size.label().into()),
            Cell::Int(p.chains as u64),
            Cell::Int(p.working_set_bytes),
        ];
        row.extend(estimate_cells(&p.ns_per_load, p.quality.as_ref()));
        row.extend([
            Cell::Num(p.ns_per_load.min),
            Cell::Num(p.ns_per_load.p90),
            Cell::opt(p.cycles_per_load.as_ref().map(|c| c.median)),
            Cell::Int(p.cpu as u64),
            Cell::int(p.memory_node.map(u64::from)),
            Cell::opt(p.placement_fraction),
            Cell::opt(p.huge_fraction),
            Cell::Num(spread.min),
            Cell::Num(spread.p90),
            Cell::Num(spread.p99),
        ]);
        t.rows.push(row);
    }
    t
}

/// Latency sweep points, one row per working set of each curve.
pub fn latency_sweep_table(l: Option<&LatencyReport>) -> Table {
    let points = l.iter().flat_map(|l| &l.sweep).flat_map(|c| &c.points);
    results_table("latency_sweep", "Latency vs working set", points)
}

/// The sizes `latency --size` was asked for, one row each.
pub fn latency_sizes_table(l: Option<&LatencyReport>) -> Table {
    let points = l.iter().flat_map(|l| &l.results);
    results_table("latency_sizes", "Latency at the sizes asked for", points)
}

/// [`results_table`] for people: the median as `231 [226, 240] n=9` (n: samples, or the
/// blocks of a sweep measured in passes), sizes in binary units.
pub fn results_for_people(t: Table) -> Table {
    t.with_interval_text("ns_per_load", "ns")
        .with_sizes("working_set_bytes", "working set")
}

/// The columns of [`results_for_people`] the terminal shows (after the walk's own columns
/// where one table holds several walks).
pub const RESULT_KEYS: &[&str] = &[
    "working_set_bytes",
    "ns_per_load_median",
    "sample_ns_min",
    "sample_ns_p90",
    "sample_ns_p99",
    "cycles_per_load_median",
    "cpu",
    "memory_node",
    "on_intended_node_fraction",
    "huge_page_backed_fraction",
];

/// The latency-vs-working-set chart: one line per mode and page size, cache sizes marked.
pub fn latency_sweep_chart(r: &RunResults) -> Option<LineChart> {
    let l = r.latency.as_ref()?;
    if l.sweep.iter().all(|c| c.points.is_empty()) {
        return None;
    }
    let mut chart = LineChart::new(
        "Latency vs working set",
        "working set (bytes, log scale)",
        "ns per load (median, log scale)",
        XScale::Log2Bytes,
    );
    // Log y: the 1-17 ns cache plateaus and 200 ns DRAM on one readable axis.
    chart.y_log = true;
    for c in &l.sweep {
        let chains = if c.chains > 1 {
            format!(", {} chains", c.chains)
        } else {
            String::new()
        };
        let name = format!(
            "{} walk, {} pages{chains}",
            c.mode.label(),
            c.page_size.label()
        );
        super::add_line(&mut chart, name, c.points.iter().map(point));
    }
    let cpu = l
        .sweep
        .iter()
        .flat_map(|c| c.points.first())
        .map(|p| p.cpu)
        .next();
    chart
        .markers
        .extend(cpu.into_iter().flat_map(|c| super::cache_markers(r, c)));
    let knees = leading_knees(r.latency.as_ref())
        .into_iter()
        .flat_map(|k| &k.levels);
    chart
        .markers
        .extend(knees.filter(|k| k.sysfs_bytes.is_some()).filter_map(|k| {
            let label = format!("{} knee", k.level);
            Some(Marker {
                x: k.knee_bytes? as f64,
                label,
            })
        }));
    Some(chart)
}

/// A sweep point as [`super::add_line`] draws it: working set, median, interval, disturbed.
fn point(p: &LatencyResult) -> (f64, f64, Option<crate::stats::Interval>, bool) {
    let disturbed = p.quality.as_ref().is_some_and(|q| q.disturbed);
    let s = &p.ns_per_load;
    (p.working_set_bytes as f64, s.median, s.ci, disturbed)
}

/// The knee analysis of the curve the chart leads with (the first random walk, else the
/// first); the chart marks its knees and the HTML caption names the levels without one.
pub fn leading_knees(l: Option<&LatencyReport>) -> Option<&CurveKnees> {
    let k = &l?.knees;
    k.iter().find(|k| k.mode == Mode::Random).or(k.first())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;
    use crate::render::svg::line::ERROR_BAR_OPACITY;

    /// The run's latency chart has a log y axis (decade ticks 1, 10, 100,
    /// so the 1-5 ns cache plateaus show beside DRAM), an error bar per point with an
    /// interval, a hollow disturbed point, and every knee marked or said to be missing.
    #[test]
    fn sweep_chart_has_log_axis_intervals_and_knees() {
        let mut r = opteron_example();
        let l = r.latency.as_mut().unwrap();
        let mut with_ci = 0;
        for p in l.sweep.iter_mut().flat_map(|c| c.points.iter_mut()) {
            let m = p.ns_per_load.median;
            p.ns_per_load.ci = Some(crate::stats::Interval::new(m * 0.97, m * 1.04));
            with_ci += 1;
        }
        let p = &mut l.sweep[0].points[3];
        let q = crate::results::quality::RepetitionQuality {
            disturbed: true,
            ..Default::default()
        };
        p.quality = Some(q);
        let c = latency_sweep_chart(&r).unwrap();
        assert!(c.y_log);
        assert_eq!(c.errors.len(), with_ci);
        assert_eq!(c.disturbed.len(), 1);
        let svg = crate::render::svg::line_chart(&c).unwrap();
        for t in ["1", "10", "100"] {
            assert!(
                svg.contains(&format!(">\n{t}\n</text>")),
                "no decade tick {t}"
            );
        }
        assert_eq!(
            svg.matches(&format!("opacity=\"{ERROR_BAR_OPACITY}\""))
                .count(),
            3 * with_ci
        );
        assert!(svg.contains("hollow: disturbed"));
        assert!(!c.markers.iter().any(|m| m.label.ends_with(" knee")));
        crate::render::fixture::set_knees(
            &mut r,
            &[("L1", 65536, Some(32768)), ("L2", 1048576, None)],
        );
        let c = latency_sweep_chart(&r).unwrap();
        let knees: Vec<&str> = c.markers.iter().map(|m| m.label.as_str()).collect();
        assert!(
            knees.contains(&"L1 knee") && !knees.contains(&"L2 knee"),
            "{knees:?}"
        );
    }
}
