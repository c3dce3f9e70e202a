//! Core-to-core transfer latencies as tables (pairs and relation groups), a heatmap and the
//! engine's sentence.

use super::{Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::RunResults;

/// Core-to-core pairs, one row per measured ordered pair.
pub fn c2c_table(r: &RunResults) -> Table {
    let rows = r.c2c.iter().flat_map(|c| &c.pairs).map(|p| {
        let keys = vec![
            Cell::Int(p.from as u64),
            Cell::Int(p.to as u64),
            Cell::Text(p.relation.label()),
        ];
        let s = &p.ns_one_way;
        (keys, [s.median, s.min, s.p90])
    });
    with_spread(
        Table::new(
            "c2c",
            "Core-to-core latency",
            &["from CPU", "to CPU", "relation"],
        ),
        ["ns one way (median)", "ns min", "ns p90"],
        rows,
    )
}

/// Pairs grouped by what their CPUs share.
pub fn c2c_groups_table(r: &RunResults) -> Table {
    let rows = r.c2c.iter().flat_map(|c| &c.groups).map(|g| {
        let keys = vec![Cell::Text(g.label.clone()), Cell::Int(g.pairs as u64)];
        let s = &g.ns_one_way;
        (keys, [s.median, s.min, s.max])
    });
    with_spread(
        Table::new(
            "c2c_groups",
            "Core-to-core latency by relation",
            &["CPUs", "pairs"],
        ),
        ["ns one way (median of pairs)", "ns min", "ns max"],
        rows,
    )
}

/// Completes `t` (its key columns set) with three figure columns named `spread` and the
/// rows: key cells followed by their three figures.
fn with_spread(
    mut t: Table,
    spread: [&str; 3],
    rows: impl Iterator<Item = (Vec<Cell>, [f64; 3])>,
) -> Table {
    t.columns.extend(spread.map(String::from));
    for (mut row, figures) in rows {
        row.extend(figures.map(Cell::Num));
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

/// The c2c sentence, when recorded.
pub fn c2c_summary(r: &RunResults) -> Option<String> {
    r.c2c
        .as_ref()
        .map(|c| c.summary.clone())
        .filter(|s| !s.is_empty())
}
