//! Terminal rendering of `inspect PID`: memory per node and per kind, threads with their CPU
//! and node, allowed sets, policies, and the system's numastat counters.

use std::io::{self, Write};

use comfy_table::{presets::NOTHING, Table};

use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::inspect::Inspection;

/// Renders the inspection as text.
pub fn render(i: &Inspection, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Process {} ({})", i.pid, i.name)?;
    writeln!(
        out,
        "allowed CPUs: {}   allowed memory nodes: {}",
        format_list(&i.allowed_cpus),
        format_list(&i.allowed_nodes)
    )?;
    let total: u64 = i.nodes.iter().map(|n| n.bytes).sum();
    writeln!(
        out,
        "\nResident memory per node (from numa_maps; {} in all)",
        format_bytes(total)
    )?;
    let t = memory_table(i);
    writeln!(out, "{t}")?;
    writeln!(out, "\nMemory policies of the mappings")?;
    for (p, b) in &i.policies {
        writeln!(out, "  {p:<24} {}", format_bytes(*b))?;
    }
    writeln!(out, "\nThreads (CPU they last ran on)")?;
    let t = threads_table(i);
    writeln!(out, "{t}")?;
    writeln!(
        out,
        "\nSystem numastat (pages allocated since boot, all processes)"
    )?;
    let t = numastat_table(i);
    writeln!(out, "{t}")?;
    Ok(())
}

/// Resident bytes per kind of mapping (rows) and node (columns), with the total row.
fn memory_table(i: &Inspection) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    let mut header = vec!["kind".to_string()];
    header.extend(i.nodes.iter().map(|n| format!("node {}", n.node)));
    t.set_header(header);
    for k in &i.kinds {
        let mut row = vec![format!("{:?}", k.kind).to_lowercase()];
        for n in &i.nodes {
            let b = k
                .nodes
                .iter()
                .find(|m| m.node == n.node)
                .map(|m| m.bytes)
                .unwrap_or(0);
            row.push(format_bytes(b));
        }
        t.add_row(row);
    }
    let mut row = vec!["all".to_string()];
    row.extend(i.nodes.iter().map(|n| format_bytes(n.bytes)));
    t.add_row(row);
    t
}

/// One row per thread: where it last ran.
fn threads_table(i: &Inspection) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    t.set_header(vec!["tid", "name", "state", "cpu", "node"]);
    for th in &i.threads {
        let opt = |v: Option<u32>| v.map(|x| x.to_string()).unwrap_or_else(|| "-".into());
        t.add_row(vec![
            th.tid.to_string(),
            th.name.clone(),
            th.state.clone(),
            opt(th.cpu),
            opt(th.node),
        ]);
    }
    t
}

/// The system's numastat counters, one row per node.
fn numastat_table(i: &Inspection) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    t.set_header(vec![
        "node",
        "numa_hit",
        "numa_miss",
        "numa_foreign",
        "interleave_hit",
        "local_node",
        "other_node",
    ]);
    for s in &i.numastat {
        t.add_row(vec![
            s.node.to_string(),
            s.numa_hit.to_string(),
            s.numa_miss.to_string(),
            s.numa_foreign.to_string(),
            s.interleave_hit.to_string(),
            s.local_node.to_string(),
            s.other_node.to_string(),
        ]);
    }
    t
}
