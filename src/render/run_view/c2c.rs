//! Core-to-core transfer latencies as tables (pairs and relation groups), a heatmap and the
//! engine's sentence.

use super::{Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::RunResults;

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
