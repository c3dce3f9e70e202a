//! The per-load latency distribution and the memory-level-parallelism factors as tables
//! (`latency --distribution`, `latency --chains 1,N,...`): one row of percentiles and timer
//! cost, one row per histogram bin, one row per multi-chain result. They feed the CSV files of
//! docs/csv.md (`latency --csv`, and `report --csv` for a results file that holds them).

use super::{Cell, Table};
use crate::results::latency::LatencyReport;

/// The distribution's percentiles, timer cost and the chase beside it: one row.
pub fn latency_distribution_table(l: Option<&LatencyReport>) -> Table {
    let mut t = Table::new(
        "latency_distribution",
        "Per-load latency distribution",
        &[
            ("mode", "mode"),
            ("page_size", "page size"),
            ("working_set_bytes", "working set (bytes)"),
            ("cpu", "CPU"),
            ("memory_node", "memory node"),
            ("loads_per_group_count", "loads per group"),
            ("groups_count", "groups"),
            ("ns_per_load_min", "ns min"),
            ("ns_per_load_p1", "ns p1"),
            ("ns_per_load_p10", "ns p10"),
            ("ns_per_load_p50", "ns p50"),
            ("ns_per_load_p90", "ns p90"),
            ("ns_per_load_p99", "ns p99"),
            ("ns_per_load_p99_9", "ns p99.9"),
            ("ns_per_load_max", "ns max"),
            ("ns_per_load_mean", "ns mean"),
            (
                "timer_overhead_ns_median",
                "timer cost ns (median, subtracted)",
            ),
            ("timer_overhead_ns_p10", "timer cost ns p10"),
            ("timer_overhead_ns_p90", "timer cost ns p90"),
            ("clamped_groups_count", "groups clamped to 0"),
            ("chase_ns_per_load_median", "chase ns per load (median)"),
            ("counter_invariant", "counter invariant"),
        ],
    );
    if let Some(d) = l.and_then(|l| l.distribution.as_ref()) {
        let p = &d.ns_per_load;
        let o = &d.timer_overhead;
        t.rows.push(vec![
            Cell::Text(d.mode.label().into()),
            Cell::Text(d.page_size.label().into()),
            Cell::Int(d.working_set_bytes),
            Cell::Int(d.cpu as u64),
            Cell::int(d.memory_node.map(u64::from)),
            Cell::Int(d.loads_per_group),
            Cell::Int(d.groups as u64),
            Cell::Num(p.min),
            Cell::Num(p.p1),
            Cell::Num(p.p10),
            Cell::Num(p.p50),
            Cell::Num(p.p90),
            Cell::Num(p.p99),
            Cell::Num(p.p99_9),
            Cell::Num(p.max),
            Cell::Num(p.mean),
            Cell::Num(o.median_ns),
            Cell::Num(o.p10_ns),
            Cell::Num(o.p90_ns),
            Cell::Int(d.clamped_groups as u64),
            Cell::opt(d.chase_ns_per_load_median),
            d.counter_invariant.map_or(Cell::Missing, Cell::Bool),
        ]);
    }
    t
}

/// The distribution's histogram, one row per bin.
pub fn latency_histogram_table(l: Option<&LatencyReport>) -> Table {
    let mut t = Table::new(
        "latency_histogram",
        "Per-load latency histogram",
        &[
            ("mode", "mode"),
            ("page_size", "page size"),
            ("working_set_bytes", "working set (bytes)"),
            ("bin_low_ns", "from ns"),
            ("bin_high_ns", "to ns"),
            ("groups_count", "groups"),
        ],
    );
    if let Some(d) = l.and_then(|l| l.distribution.as_ref()) {
        for b in &d.histogram {
            t.rows.push(vec![
                Cell::Text(d.mode.label().into()),
                Cell::Text(d.page_size.label().into()),
                Cell::Int(d.working_set_bytes),
                Cell::Num(b.low_ns),
                Cell::Num(b.high_ns),
                Cell::Int(b.count),
            ]);
        }
    }
    t
}

/// The memory-level-parallelism factor of each multi-chain result.
pub fn latency_mlp_table(l: Option<&LatencyReport>) -> Table {
    let mut t = Table::new(
        "latency_mlp",
        "Memory-level parallelism",
        &[
            ("mode", "mode"),
            ("page_size", "page size"),
            ("working_set_bytes", "working set (bytes)"),
            ("chains_count", "chains"),
            ("one_chain_ns_per_load_median", "ns per load, 1 chain"),
            ("ns_per_load_median", "ns per load"),
            ("per_chain_ns_per_load_median", "ns per chain's load"),
            ("mlp_factor_ratio", "MLP factor"),
            ("mlp_factor_ci_low_ratio", "factor interval low"),
            ("mlp_factor_ci_high_ratio", "factor interval high"),
            ("ci_level_fraction", "interval coverage (at least)"),
        ],
    );
    for m in l.iter().flat_map(|l| &l.mlp) {
        t.rows.push(vec![
            Cell::Text(m.mode.label().into()),
            Cell::Text(m.page_size.label().into()),
            Cell::Int(m.working_set_bytes),
            Cell::Int(m.chains as u64),
            Cell::Num(m.one_chain_ns_per_load),
            Cell::Num(m.ns_per_load),
            Cell::Num(m.per_chain_ns_per_load),
            Cell::Num(m.factor),
            Cell::opt(m.ci_low),
            Cell::opt(m.ci_high),
            Cell::opt(m.ci_level),
        ]);
    }
    t
}

/// The three tables of a latency report, in file order.
pub fn latency_extra_tables(l: Option<&LatencyReport>) -> [Table; 3] {
    [
        latency_distribution_table(l),
        latency_histogram_table(l),
        latency_mlp_table(l),
    ]
}
