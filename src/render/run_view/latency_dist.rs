//! The per-load latency distribution and the memory-level-parallelism factors as tables
//! (`latency --distribution`, `latency --chains 1,N,...`, and `run`, whose latency part
//! measures the distribution at the sweep's largest point): one row of percentiles and timer
//! cost, one row per histogram bin, one row per multi-chain result. They feed the CSV files of
//! docs/csv.md (`latency --csv`, `run`, and `report --csv` for a results file that holds them).
//! Also the distribution's histogram chart, its heading and caption for the HTML.

use super::{ci_cells, Cell, Table};
use crate::render::format::estimate::num;
use crate::render::svg::{HistBin, HistMark, Histogram, MarkStyle};
use crate::results::format::format_bytes;
use crate::results::latency::{LatencyReport, LoadPercentiles, Mode};
use crate::results::placement::PageSize;

/// The first columns of the distribution's, histogram's and MLP's tables: the walk.
const WALK: [(&str, &str); 3] = [
    ("mode", "mode"),
    ("page_size", "page size"),
    ("working_set_bytes", "working set (bytes)"),
];

/// The cells of [`WALK`].
fn walk_cells(mode: Mode, page: PageSize, working_set: u64) -> Vec<Cell> {
    vec![
        Cell::Text(mode.label().into()),
        Cell::Text(page.label().into()),
        Cell::Int(working_set),
    ]
}

/// The distribution's percentiles, timer cost and the chase beside it: one row.
pub fn latency_distribution_table(l: Option<&LatencyReport>) -> Table {
    let mut t = Table::new(
        "latency_distribution",
        "Per-load latency distribution",
        &WALK,
    );
    t.extend([
        ("cpu", "CPU"),
        ("memory_node", "memory node"),
        ("loads_per_group_count", "loads per group"),
        ("groups_count", "groups"),
    ]);
    let spread = ["min"]
        .into_iter()
        .chain(LoadPercentiles::NAMES)
        .chain(["max", "mean"]);
    t.extend(spread.map(|n| (percentile_key(n), format!("ns {n}"))));
    t.extend([
        (
            "timer_overhead_ns_median",
            "timer cost ns (median, subtracted)",
        ),
        ("timer_overhead_ns_p10", "timer cost ns p10"),
        ("timer_overhead_ns_p90", "timer cost ns p90"),
        ("clamped_groups_count", "groups clamped to 0"),
        ("chase_ns_per_load_median", "chase ns per load (median)"),
        ("counter_invariant", "counter invariant"),
        (
            "interleaved_chase_ns_per_load_median",
            "chase ns per load between the batches (median)",
        ),
    ]);
    // Each percentile's 95 % interval, at the end so older readers keep their columns.
    t.extend(interval_columns());
    if let Some(d) = l.and_then(|l| l.distribution.as_ref()) {
        let p = &d.ns_per_load;
        let o = &d.timer_overhead;
        let mut row = walk_cells(d.mode, d.page_size, d.working_set_bytes);
        row.extend([
            Cell::Int(d.cpu as u64),
            Cell::int(d.memory_node.map(u64::from)),
            Cell::Int(d.loads_per_group),
            Cell::Int(d.groups as u64),
        ]);
        let named = p.named();
        let spread = [p.min].into_iter().chain(named.iter().map(|n| n.1));
        let spread = spread.chain([p.max, p.mean, o.median_ns, o.p10_ns, o.p90_ns]);
        row.extend(spread.map(Cell::Num));
        row.extend([
            Cell::Int(d.clamped_groups as u64),
            Cell::opt(d.chase_ns_per_load_median),
            d.counter_invariant.map_or(Cell::Missing, Cell::Bool),
            Cell::opt(d.interleaved_chase_ns_per_load_median),
        ]);
        for (_, _, ci) in named {
            row.extend([ci.map(|c| c.low), ci.map(|c| c.high), ci.map(|c| c.level)].map(Cell::opt));
        }
        t.rows.push(row);
    }
    t
}

/// The CSV key stem of a percentile's name (`p99.9` -> `ns_per_load_p99_9`).
fn percentile_key(name: &str) -> String {
    format!("ns_per_load_{}", name.replace('.', "_"))
}

/// The interval columns of the distribution's table: low, high and coverage per percentile.
fn interval_columns() -> Vec<(String, String)> {
    let names = crate::results::latency::LoadPercentiles::NAMES;
    names
        .iter()
        .flat_map(|n| {
            let k = percentile_key(n);
            let level = format!("ns {n} interval coverage (at least)");
            let [low, high] = super::ci_columns(&k, &format!("ns {n}"));
            [low, high, (format!("{k}_ci_level_fraction"), level)]
        })
        .collect()
}

/// A percentile with its interval for people, `101 [100, 102]`; the bare figure without one
/// (files written before intervals, or too few groups for this percentile).
pub fn fmt_percentile(v: f64, ci: Option<crate::results::latency::PercentileInterval>) -> String {
    match ci {
        Some(c) => format!("{} [{}, {}]", num(v), num(c.low), num(c.high)),
        None => num(v),
    }
}

/// The distribution's histogram, one row per bin.
pub fn latency_histogram_table(l: Option<&LatencyReport>) -> Table {
    let mut t = Table::new("latency_histogram", "Per-load latency histogram", &WALK);
    t.extend([
        ("bin_low_ns", "from ns"),
        ("bin_high_ns", "to ns"),
        ("groups_count", "groups"),
    ]);
    for d in l.iter().flat_map(|l| &l.distribution) {
        for b in &d.histogram {
            let mut row = walk_cells(d.mode, d.page_size, d.working_set_bytes);
            row.extend([
                Cell::Num(b.low_ns),
                Cell::Num(b.high_ns),
                Cell::Int(b.count),
            ]);
            t.rows.push(row);
        }
    }
    t
}

/// The memory-level-parallelism factor of each multi-chain result.
pub fn latency_mlp_table(l: Option<&LatencyReport>) -> Table {
    let mut t = Table::new("latency_mlp", "Memory-level parallelism", &WALK);
    t.extend([
        ("chains_count", "chains"),
        ("one_chain_ns_per_load_median", "ns per load, 1 chain"),
        ("ns_per_load_median", "ns per load"),
        ("per_chain_ns_per_load_median", "ns per chain's load"),
        ("mlp_factor_ratio", "MLP factor"),
        ("mlp_factor_ci_low_ratio", "factor interval low"),
        ("mlp_factor_ci_high_ratio", "factor interval high"),
        ("ci_level_fraction", "interval coverage (at least)"),
    ]);
    for m in l.iter().flat_map(|l| &l.mlp) {
        let mut row = walk_cells(m.mode, m.page_size, m.working_set_bytes);
        row.push(Cell::Int(m.chains as u64));
        let figures = [
            m.one_chain_ns_per_load,
            m.ns_per_load,
            m.per_chain_ns_per_load,
            m.factor,
        ];
        row.extend(figures.map(Cell::Num));
        row.extend(ci_cells(m.ci));
        t.rows.push(row);
    }
    t
}

/// [`latency_mlp_table`] for people: the factor as `1.9 [1.8, 2.0]` (`1.9, no interval`
/// without one), sizes in binary units.
pub fn mlp_for_people(l: Option<&LatencyReport>) -> Table {
    let mut t = latency_mlp_table(l).with_sizes("working_set_bytes", "working set");
    let f = t.col("mlp_factor_ratio");
    for (row, m) in t.rows.iter_mut().zip(l.iter().flat_map(|l| &l.mlp)) {
        let e = crate::stats::Estimate::new(m.factor, m.ci, 0);
        row[f] = Cell::Text(crate::render::format::estimate::cell(&e));
    }
    t.columns[f] = "MLP factor [interval]".into();
    t
}

/// The columns of [`mlp_for_people`] the terminal shows.
pub const MLP_KEYS: &[&str] = &[
    "working_set_bytes",
    "mode",
    "page_size",
    "chains_count",
    "one_chain_ns_per_load_median",
    "ns_per_load_median",
    "per_chain_ns_per_load_median",
    "mlp_factor_ratio",
];

/// The three tables of a latency report, in file order.
pub fn latency_extra_tables(l: Option<&LatencyReport>) -> [Table; 3] {
    [
        latency_distribution_table(l),
        latency_histogram_table(l),
        latency_mlp_table(l),
    ]
}

/// The distribution's histogram as a chart: its log-spaced bins on a log axis, the median,
/// p90, p99 and p99.9 as dashed marks and the chase figures as solid ones. `None` when the
/// report holds no distribution.
pub fn latency_histogram_chart(l: Option<&LatencyReport>) -> Option<Histogram> {
    let d = l?.distribution.as_ref()?;
    // A short title and axis label, so the phone layout keeps them whole; the conditions
    // are in the heading above the chart (latency_histogram_heading).
    let mut h = Histogram::new(
        &format!("Per-load latency at {}", format_bytes(d.working_set_bytes)),
        "ns per load, log scale",
        "groups per bin, log scale",
        &format!(
            "groups per bin ({} bins per factor of two)",
            d.bins_per_octave
        ),
    );
    h.bins = d
        .histogram
        .iter()
        .map(|b| HistBin {
            low: b.low_ns,
            high: b.high_ns,
            count: b.count,
        })
        .collect();
    let p = &d.ns_per_load;
    let i = p.intervals.unwrap_or_default();
    for (name, v, ci) in [
        ("median", p.p50, i.p50),
        ("p90", p.p90, i.p90),
        ("p99", p.p99, i.p99),
        ("p99.9", p.p99_9, i.p99_9),
    ] {
        // With an interval the legend gives it and the chart draws it as a band.
        h.marks.push(HistMark {
            x: v,
            label: format!("{name} {} ns", fmt_percentile(v, ci)),
            style: MarkStyle::Dashed,
            band: ci.map(|c| (c.low, c.high)),
        });
    }
    let chases = [
        (
            d.interleaved_chase_ns_per_load_median,
            "chase between the batches",
        ),
        (d.chase_ns_per_load_median, "chase before the groups"),
    ];
    for (v, name) in chases {
        if let Some(v) = v {
            h.marks.push(HistMark {
                x: v,
                label: format!("{name} {} ns", num(v)),
                style: MarkStyle::Solid,
                band: None,
            });
        }
    }
    Some(h)
}

/// The heading of the chart and of the text's section: what was measured and under which
/// conditions (`random walk, 4k pages, 1 thread pinned to CPU 0, 256 MiB`).
pub fn latency_histogram_heading(l: Option<&LatencyReport>) -> String {
    match l.and_then(|l| l.distribution.as_ref()) {
        Some(d) => format!(
            "Per-load latency distribution ({} walk, {} pages, 1 thread pinned to CPU {}, {})",
            d.mode.label(),
            d.page_size.label(),
            d.cpu,
            format_bytes(d.working_set_bytes)
        ),
        None => "Per-load latency distribution".into(),
    }
}

/// The chart's caption: how the figures were made and what is not drawn.
pub fn latency_histogram_caption(l: Option<&LatencyReport>) -> String {
    let Some(d) = l.and_then(|l| l.distribution.as_ref()) else {
        return String::new();
    };
    let mut s = format!(
        "{} groups of {} dependent loads, each timed with the CPU's counter ({}); the counter's own cost, {} ns per group (median of {} empty timed pairs), is subtracted before dividing by {}. Both axes are logarithmic: the bins are equally wide in ratio, and a bin of one group still shows beside thousands. Percentiles are nearest-rank over the groups, so they are percentiles of 16-load means, narrower than single loads' would be. The chase between the batches walked the same chain in the same time window and is the figure the median is compared with.",
        d.groups,
        d.loads_per_group,
        d.counter,
        num(d.timer_overhead.median_ns),
        d.timer_overhead.reads,
        d.loads_per_group
    );
    // Files written before the percentiles' intervals have none to draw.
    if d.ns_per_load.named().iter().any(|(_, _, ci)| ci.is_some()) {
        s.push_str(" The light band around each percentile's dashed line is its 95 % interval: order statistics over all groups, the ranks around n x p that the binomial count of groups below the true percentile falls between with 95 % probability.");
    }
    if d.clamped_groups > 0 {
        s.push_str(&format!(
            " {} group(s) took less than the timer's cost and were counted as 0 ns; a log axis has no place for them, so they are not drawn.",
            d.clamped_groups
        ));
    }
    if let Some(q) = d.quality.as_ref() {
        s.push_str(&format!(
            " Batches of groups: {} taken, {} discarded (the thread lost its CPU to another program or the hypervisor), {} kept{}.",
            q.repetitions_taken,
            q.repetitions_discarded,
            q.repetitions_kept,
            if q.disturbed {
                "; disturbed: the retakes ran out"
            } else {
                ""
            }
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::latency::LoadDistribution;

    use super::tests_support::distribution;

    fn report_with(d: Option<LoadDistribution>) -> LatencyReport {
        let mut l = crate::render::fixture::opteron_example()
            .latency
            .expect("the Opteron fixture has a latency report");
        l.distribution = d;
        l
    }

    #[test]
    fn the_csv_row_ends_with_the_interleaved_chase_then_the_intervals() {
        let l = report_with(Some(distribution()));
        let t = latency_distribution_table(Some(&l));
        // The interleaved chase, then three interval columns per percentile.
        let chase = t.keys.len() - 1 - 3 * 6;
        assert_eq!(t.keys[chase], "interleaved_chase_ns_per_load_median");
        assert_eq!(
            t.keys[chase + 1..].iter().take(3).collect::<Vec<_>>(),
            [
                "ns_per_load_p1_ci_low",
                "ns_per_load_p1_ci_high",
                "ns_per_load_p1_ci_level_fraction"
            ]
        );
        assert_eq!(
            t.keys.last().map(String::as_str),
            Some("ns_per_load_p99_9_ci_level_fraction")
        );
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0].len(), t.keys.len());
        assert_eq!(t.rows[0][chase], Cell::Num(103.5));
        let p50 = t.col("ns_per_load_p50_ci_low");
        assert_eq!(
            t.rows[0][p50..p50 + 3],
            [Cell::Num(100.0), Cell::Num(102.0), Cell::Num(0.951)]
        );
        // p90 has none in the example: empty cells.
        assert_eq!(t.rows[0][t.col("ns_per_load_p90_ci_low")], Cell::Missing);
        let mut older = distribution();
        older.interleaved_chase_ns_per_load_median = None;
        older.ns_per_load.intervals = None;
        let l = report_with(Some(older));
        let t = latency_distribution_table(Some(&l));
        assert_eq!(t.rows[0][chase], Cell::Missing);
        assert!(t.rows[0][chase + 1..].iter().all(|c| *c == Cell::Missing));
    }

    #[test]
    fn chart_has_every_bin_percentile_and_chase() {
        let l = report_with(Some(distribution()));
        let h = latency_histogram_chart(Some(&l)).unwrap();
        assert_eq!(h.bins.len(), 5);
        assert_eq!(h.bins.iter().map(|b| b.count).sum::<u64>(), 1000);
        let dashed: Vec<f64> = h
            .marks
            .iter()
            .filter(|m| m.style == MarkStyle::Dashed)
            .map(|m| m.x)
            .collect();
        assert_eq!(dashed, vec![101.0, 118.0, 140.0, 900.0]);
        // The percentiles with an interval get a band and say it in the legend.
        let bands: Vec<Option<(f64, f64)>> = h.marks.iter().map(|m| m.band).collect();
        assert_eq!(
            bands,
            vec![
                Some((100.0, 102.0)),
                None,
                Some((130.0, 160.0)),
                None,
                None,
                None
            ]
        );
        assert_eq!(h.marks[0].label, "median 101 [100, 102] ns");
        let solid: Vec<f64> = h
            .marks
            .iter()
            .filter(|m| m.style == MarkStyle::Solid)
            .map(|m| m.x)
            .collect();
        assert_eq!(solid, vec![103.5, 106.0]);
        let svg = crate::render::svg::histogram(&h).unwrap();
        assert!(svg.starts_with("<svg"));
        let mut bare = h.clone();
        bare.marks.iter_mut().for_each(|m| m.band = None);
        let bare = crate::render::svg::histogram(&bare).unwrap();
        assert_eq!(
            svg.matches("<rect").count(),
            bare.matches("<rect").count() + 2,
            "one band per percentile with an interval"
        );
        let caption = latency_histogram_caption(Some(&l));
        assert!(
            caption.contains("2 group(s) took less than the timer's cost"),
            "{caption}"
        );
        assert!(latency_histogram_chart(Some(&report_with(None))).is_none());
        assert_eq!(latency_histogram_caption(None), "");
    }
}

/// Test data other renderers' tests share.
#[cfg(test)]
pub(crate) mod tests_support {
    use crate::results::latency::{
        HistogramBin, LoadDistribution, LoadPercentiles, Mode, PercentileInterval,
        PercentileIntervals, TimerOverhead,
    };
    use crate::results::placement::PageSize;

    /// A distribution of 1000 groups at 256 MiB: a peak near 100 ns, two clamped groups and
    /// one slow group.
    pub(crate) fn distribution() -> LoadDistribution {
        LoadDistribution {
            mode: Mode::Random,
            working_set_bytes: 256 << 20,
            element_bytes: 64,
            page_size: PageSize::Base,
            cpu: 0,
            memory_node: Some(0),
            placement_fraction: Some(1.0),
            loads_per_group: 16,
            groups: 1000,
            counter: "TSC".into(),
            counter_hz: 2.6e9,
            counter_invariant: Some(true),
            timer_overhead: TimerOverhead {
                median_ns: 30.0,
                min_ns: 20.0,
                p10_ns: 30.0,
                p90_ns: 30.0,
                p99_ns: 40.0,
                reads: 20000,
            },
            clamped_groups: 2,
            ns_per_load: LoadPercentiles {
                min: 80.0,
                p1: 85.0,
                p10: 90.0,
                p50: 101.0,
                p90: 118.0,
                p99: 140.0,
                p99_9: 900.0,
                max: 900.0,
                mean: 104.0,
                intervals: Some(PercentileIntervals {
                    p50: Some(PercentileInterval {
                        low: 100.0,
                        high: 102.0,
                        level: 0.951,
                    }),
                    p99: Some(PercentileInterval {
                        low: 130.0,
                        high: 160.0,
                        level: 0.952,
                    }),
                    ..PercentileIntervals::default()
                }),
            },
            histogram: [
                (0.0, 76.1, 2),
                (76.1, 90.5, 97),
                (90.5, 107.6, 700),
                (107.6, 128.0, 200),
                (861.0, 1024.0, 1),
            ]
            .map(|(low_ns, high_ns, count)| HistogramBin {
                low_ns,
                high_ns,
                count,
            })
            .to_vec(),
            bins_per_octave: 8,
            chase_ns_per_load_median: Some(106.0),
            interleaved_chase_ns_per_load_median: Some(103.5),
            quality: None,
        }
    }
}
