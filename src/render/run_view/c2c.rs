//! Core-to-core transfer latencies as tables (pairs and relation groups), a heatmap and the
//! engine's sentence (with, in a virtual machine, what the figures describe).

use super::{estimate_cells, interval_cells, interval_columns, Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::RunResults;

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
pub fn c2c_table(r: &RunResults) -> Table {
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
    for p in r.c2c.iter().flat_map(|c| &c.pairs) {
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
pub fn c2c_groups_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "c2c_groups",
        "Core-to-core latency by relation",
        &[("cpus_label", "CPUs"), ("pairs_count", "pairs")],
    );
    t.extend(interval_columns(
        "ns_one_way",
        "ns one way (of pair medians)",
    ));
    t.extend([("ns_one_way_min", "ns min"), ("ns_one_way_max", "ns max")]);
    for g in r.c2c.iter().flat_map(|c| &c.groups) {
        let s = &g.ns_one_way;
        let mut row = vec![Cell::Text(g.label.clone()), Cell::Int(g.pairs as u64)];
        row.extend(interval_cells(Some(s)));
        row.extend([Cell::Num(s.min), Cell::Num(s.max)]);
        t.rows.push(row);
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

/// The c2c sentence, when recorded, followed in a virtual machine by what the figures
/// describe (`c2c_text::vm_note`).
pub fn c2c_summary(r: &RunResults) -> Option<String> {
    let c = r.c2c.as_ref()?;
    let s = match crate::render::c2c_text::vm_note(c) {
        Some(note) if c.summary.is_empty() => note.to_string(),
        Some(note) => format!("{}. {note}", c.summary),
        None => c.summary.clone(),
    };
    (!s.is_empty()).then_some(s)
}
