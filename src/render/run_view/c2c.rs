//! Core-to-core transfer latencies as tables (pairs and relation groups), a heatmap and the
//! engine's sentence (with, in a virtual machine, what the figures describe).

use super::{estimate_cells, interval_cells, interval_columns, Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::c2c::C2cResult;

/// The core-to-core group columns people see.
pub const C2C_GROUP_KEYS: &[&str] = &[
    "cpus_label",
    "pairs_count",
    "ns_one_way_median",
    "ns_one_way_min",
    "ns_one_way_max",
];

/// Core-to-core pairs, one row per measured ordered pair. The interval is the pair's own:
/// over its block medians in results with blocks (n = blocks); min and p90 are over every
/// sample when recorded.
pub fn c2c_table(c: Option<&C2cResult>) -> Table {
    let mut t = Table::new(
        "c2c",
        "Core-to-core latency",
        &[
            ("from_cpu", "from CPU"),
            ("to_cpu", "to CPU"),
            ("relation", "relation"),
        ],
    );
    t.extend_estimate("ns_one_way", "ns one way");
    t.extend([
        ("ns_one_way_min", "ns min"),
        ("ns_one_way_p90", "ns p90"),
        ("lowest_cpu_share_fraction", "lowest CPU share (fraction)"),
    ]);
    for p in c.iter().flat_map(|c| &c.pairs) {
        let s = &p.ns_one_way;
        let all = p.ns_one_way_all_samples.as_ref().unwrap_or(s);
        let mut row = vec![
            Cell::Int(p.from as u64),
            Cell::Int(p.to as u64),
            Cell::Text(crate::render::words::labels::relation(&p.relation)),
        ];
        row.extend(estimate_cells(s, p.quality.as_ref()));
        row.extend([
            Cell::Num(all.min),
            Cell::Num(all.p90),
            Cell::opt(p.cpu_share),
        ]);
        t.rows.push(row);
    }
    t
}

/// Pairs grouped by what their CPUs share. The interval is over the group's per-pair
/// medians (n = pairs), so a group of fewer than six pairs has none.
pub fn c2c_groups_table(c: Option<&C2cResult>) -> Table {
    let mut t = Table::new(
        "c2c_groups",
        "Core-to-core latency by relation",
        &[("cpus_label", "CPUs"), ("pairs_count", "pairs")],
    );
    t.extend(interval_columns(
        "ns_one_way",
        "ns one way (of pair medians)",
        "",
    ));
    t.extend([("ns_one_way_min", "ns min"), ("ns_one_way_max", "ns max")]);
    for g in c.iter().flat_map(|c| &c.groups) {
        let s = &g.ns_one_way;
        let mut row = vec![Cell::Text(g.label.clone()), Cell::Int(g.pairs as u64)];
        row.extend(interval_cells(Some(s)));
        row.extend([Cell::Num(s.min), Cell::Num(s.max)]);
        t.rows.push(row);
    }
    t
}

/// The CPU x CPU heatmap.
pub fn c2c_heatmap(c: Option<&C2cResult>) -> Option<Heatmap> {
    let c = c?;
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

/// What was bounced where, the lines the terminal and the HTML report print above the grid:
/// the line's home node and verified placement, and how the pairs were sampled.
pub fn c2c_notes(r: &C2cResult) -> Vec<String> {
    let touched = match r.line_touched_on_cpu {
        Some(c) => format!("first touched on CPU {c}"),
        None => "node has no usable CPU; bound by policy".into(),
    };
    let (pairs, strategy, of) = (
        r.sampling.pairs,
        &r.sampling.strategy,
        r.sampling.possible_pairs,
    );
    let (ms, trips) = (r.plan.repetition_ms, r.plan.round_trips_per_sample);
    vec![
        "Core-to-core latency: one cache line bounced between two pinned CPUs, ns one way \
         (median)"
            .into(),
        format!(
            "line home node {} ({touched}); verified {:.0}% of its page on node {}",
            r.line_node,
            100.0 * r.placement_fraction,
            r.line_node
        ),
        match r.plan.blocks_per_pair {
            Some(blocks) => format!(
                "pairs: {pairs} ({strategy}, of {of} ordered pairs); each in {blocks} blocks of \
                 {ms} ms spread over the experiment (rounds over all pairs), the first fifth of \
                 each dropped; sample = {trips} round trips; figure and 95 % interval from the \
                 block medians"
            ),
            None => format!(
                "pairs: {pairs} ({strategy}, of {of} ordered pairs); {} kept repetitions of {ms} \
                 ms per pair, first dropped; sample = {trips} round trips",
                r.plan.repetitions
            ),
        },
    ]
}

/// The c2c sentence, when recorded, followed in a virtual machine by what the figures
/// describe, carried once wherever they are shown: the hypervisor decides which host cores
/// run the vCPUs, and may decide otherwise next time.
pub fn c2c_summary(c: &C2cResult) -> Option<String> {
    const VM: &str = "In a virtual machine these figures describe where the host placed the vCPUs during this run; the next run may place them elsewhere and differ.";
    let s = match (c.environment.hypervisor, c.summary.is_empty()) {
        (true, true) => VM.to_string(),
        (true, false) => format!("{}. {VM}", c.summary),
        (false, _) => c.summary.clone(),
    };
    (!s.is_empty()).then_some(s)
}
