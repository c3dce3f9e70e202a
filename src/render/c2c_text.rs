//! Terminal rendering of a c2c result: the home node of the line and its verified placement,
//! the matrix of median one-way ns (rows: the ping CPU, columns: the pong CPU), the groups,
//! and the NUMA counters.

use std::io::{self, Write};

use comfy_table::{presets::NOTHING, CellAlignment, Table};

use super::traffic_text;
use crate::c2c::C2cResult;

pub fn render(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Core-to-core latency: one cache line bounced between two pinned CPUs, ns one way (median)"
    )?;
    let touched = match r.line_touched_on_cpu {
        Some(c) => format!("first touched on CPU {c}"),
        None => "node has no usable CPU; bound by policy".into(),
    };
    writeln!(
        out,
        "line home node {} ({touched}); verified {:.0}% of its page on node {}",
        r.line_node,
        100.0 * r.placement_fraction,
        r.line_node
    )?;
    writeln!(
        out,
        "pairs: {} ({}, of {} ordered pairs); {} kept repetitions of {} ms per pair, first dropped; sample = {} round trips",
        r.sampling.pairs,
        r.sampling.strategy,
        r.sampling.possible_pairs,
        r.plan.repetitions,
        r.plan.repetition_ms,
        r.plan.round_trips_per_sample
    )?;
    writeln!(out)?;
    let mut t = Table::new();
    t.load_preset(NOTHING);
    let mut header = vec!["ping \\ pong".to_string()];
    header.extend(r.cpus.iter().map(|c| format!("CPU {c}")));
    t.set_header(header);
    for (i, &a) in r.cpus.iter().enumerate() {
        let mut row = vec![format!("CPU {a}")];
        row.extend(r.matrix[i].iter().map(|v| match v {
            Some(ns) => format!("{ns:.1}"),
            None => "-".into(),
        }));
        t.add_row(row);
    }
    for c in t.column_iter_mut().skip(1) {
        c.set_cell_alignment(CellAlignment::Right);
    }
    writeln!(out, "{t}")?;
    writeln!(out)?;
    let mut g = Table::new();
    g.load_preset(NOTHING);
    g.set_header(vec!["group", "pairs", "median ns", "min", "max"]);
    for grp in &r.groups {
        g.add_row(vec![
            grp.label.clone(),
            grp.pairs.to_string(),
            format!("{:.1}", grp.ns_one_way.median),
            format!("{:.1}", grp.ns_one_way.min),
            format!("{:.1}", grp.ns_one_way.max),
        ]);
    }
    writeln!(out, "{g}")?;
    writeln!(out, "{}", r.summary)?;
    let worst = r
        .pairs
        .iter()
        .max_by(|a, b| a.ns_one_way.p99.total_cmp(&b.ns_one_way.p99));
    if let Some(w) = worst {
        writeln!(
            out,
            "highest p99: CPU {} -> CPU {}: {:.1} ns (median {:.1})",
            w.from, w.to, w.ns_one_way.p99, w.ns_one_way.median
        )?;
    }
    traffic_text::render(&r.traffic, out)?;
    for w in &r.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}
