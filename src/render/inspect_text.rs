//! Terminal rendering of `inspect PID`: memory per node and per kind, threads with their CPU
//! and node, allowed sets, policies, and the system's numastat counters; and of `inspect
//! --system`, the per-node meminfo table laid out as `numastat -m` lays it out.

use std::io::{self, Write};

use comfy_table::{presets::NOTHING, Table};

use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::inspect::{Inspection, MeminfoUnit, SystemMemory};

/// Renders `inspect --system`: one row per meminfo line, one column per node and the total,
/// in MiB with two decimals (as `numastat -m`); huge page counts are turned into MiB with the
/// default huge page size, or shown as counts when it is unknown.
pub fn render_system(m: &SystemMemory, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Per-node system memory (MiB = 2^20 bytes; from /sys/devices/system/node/nodeN/meminfo)"
    )?;
    writeln!(out, "{}", system_table(m, 2))
}

/// Renders `inspect --system --compact`: the same table in whole MiB (rounded), as
/// `numastat -m -c` prints it, so a machine with many nodes fits a terminal.
pub fn render_system_compact(m: &SystemMemory, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Per-node system memory (whole MiB, MiB = 2^20 bytes)")?;
    writeln!(out, "{}", system_table(m, 0))
}

/// The meminfo table with values in MiB to `decimals` decimals.
fn system_table(m: &SystemMemory, decimals: usize) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    let mut header = vec!["".to_string()];
    header.extend(m.nodes.iter().map(|n| format!("node {n}")));
    header.push("total".into());
    t.set_header(header);
    for col in 1..=m.nodes.len() + 1 {
        if let Some(c) = t.column_mut(col) {
            c.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    let mib = |b: u64| format!("{:.decimals$}", b as f64 / (1u64 << 20) as f64);
    for f in &m.fields {
        let show = |v: u64| match (f.unit, m.huge_page_bytes) {
            (MeminfoUnit::Bytes, _) => mib(v),
            (MeminfoUnit::HugePages, Some(size)) => mib(v.saturating_mul(size)),
            (MeminfoUnit::HugePages, None) => format!("{v} pages"),
        };
        let mut row = vec![f.name.clone()];
        row.extend(f.values.iter().map(|&v| show(v)));
        row.push(show(f.total));
        t.add_row(row);
    }
    t
}

/// Renders `inspect PID --compact`: resident memory per kind (rows) and node (columns) with a
/// total column, in whole MiB, as `numastat -c -p PID` prints it; nothing else.
pub fn render_compact(i: &Inspection, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Process {} ({}): resident memory per node (whole MiB, MiB = 2^20 bytes)",
        i.pid, i.name
    )?;
    let mib = |b: u64| format!("{:.0}", b as f64 / (1u64 << 20) as f64);
    let mut t = Table::new();
    t.load_preset(NOTHING);
    let mut header = vec!["".to_string()];
    header.extend(i.nodes.iter().map(|n| format!("node {}", n.node)));
    header.push("total".into());
    t.set_header(header);
    for col in 1..=i.nodes.len() + 1 {
        if let Some(c) = t.column_mut(col) {
            c.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    for k in &i.kinds {
        let mut row = vec![format!("{:?}", k.kind).to_lowercase()];
        let mut sum = 0;
        for n in &i.nodes {
            let b = kind_bytes(k, n.node);
            sum += b;
            row.push(mib(b));
        }
        row.push(mib(sum));
        t.add_row(row);
    }
    let mut row = vec!["total".to_string()];
    row.extend(i.nodes.iter().map(|n| mib(n.bytes)));
    row.push(mib(i.nodes.iter().map(|n| n.bytes).sum()));
    t.add_row(row);
    writeln!(out, "{t}")
}

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
/// The bytes of one memory kind on `node`, 0 when it has none there.
fn kind_bytes(k: &crate::results::inspect::KindMemory, node: u32) -> u64 {
    k.nodes
        .iter()
        .find(|m| m.node == node)
        .map_or(0, |m| m.bytes)
}

fn memory_table(i: &Inspection) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    let mut header = vec!["kind".to_string()];
    header.extend(i.nodes.iter().map(|n| format!("node {}", n.node)));
    t.set_header(header);
    for k in &i.kinds {
        let mut row = vec![format!("{:?}", k.kind).to_lowercase()];
        for n in &i.nodes {
            let b = kind_bytes(k, n.node);
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
    let mut t = crate::render::width::table(NOTHING, vec!["tid", "name", "state", "cpu", "node"]);
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
    let mut t = crate::render::width::table(
        NOTHING,
        vec![
            "node",
            "numa_hit",
            "numa_miss",
            "numa_foreign",
            "interleave_hit",
            "local_node",
            "other_node",
        ],
    );
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
