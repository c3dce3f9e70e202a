//! Terminal rendering of `inspect PID`: memory per node and per kind, threads with their CPU
//! and node, allowed sets, policies, and the system's numastat counters; and of `inspect
//! --system`, the per-node meminfo table laid out as `numastat -m` lays it out.

pub mod traffic;

use std::io::{self, Write};

use crate::render::format::width::{aligned, columns};
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::inspect::{Inspection, KindMemory, MeminfoUnit, SystemMemory};

/// Renders `inspect --system`: one row per meminfo line, one column per node and the total,
/// in MiB with two decimals (as `numastat -m`), or in whole MiB (rounded) when `compact` (as
/// `numastat -m -c`, so a machine with many nodes fits a terminal); huge page counts are
/// turned into MiB with the default huge page size, or shown as counts when it is unknown.
pub fn render_system(m: &SystemMemory, compact: bool, out: &mut dyn Write) -> io::Result<()> {
    let (units, decimals) = match compact {
        true => ("whole MiB, MiB = 2^20 bytes", 0),
        false => (
            "MiB = 2^20 bytes; from /sys/devices/system/node/nodeN/meminfo",
            2,
        ),
    };
    writeln!(out, "Per-node system memory ({units})")?;
    write!(out, "{}", system_table(m, decimals))
}

/// `b` bytes in MiB to `decimals` decimals.
fn mib(b: u64, decimals: usize) -> String {
    format!("{:.decimals$}", b as f64 / (1u64 << 20) as f64)
}

/// A table with `corner` above the row names and one column per node; with `total`, a total
/// column and the figures right-aligned, as numastat lays them out.
fn node_table(corner: &str, nodes: &[u32], total: bool, rows: Vec<Vec<String>>) -> String {
    let names: Vec<String> = nodes.iter().map(|n| format!("node {n}")).collect();
    let mut header = vec![corner];
    header.extend(names.iter().map(String::as_str));
    header.extend(total.then_some("total"));
    let right = if total { 1..nodes.len() + 2 } else { 0..0 };
    aligned(&header, &rows, right)
}

/// The meminfo table with values in MiB to `decimals` decimals.
fn system_table(m: &SystemMemory, decimals: usize) -> String {
    let rows = m.fields.iter().map(|f| {
        let show = |v: u64| match (f.unit, m.huge_page_bytes) {
            (MeminfoUnit::Bytes, _) => mib(v, decimals),
            (MeminfoUnit::HugePages, Some(size)) => mib(v.saturating_mul(size), decimals),
            (MeminfoUnit::HugePages, None) => format!("{v} pages"),
        };
        let values = f.values.iter().chain([&f.total]).map(|&v| show(v));
        std::iter::once(f.name.clone()).chain(values).collect()
    });
    node_table("", &m.nodes, true, rows.collect())
}

/// Per kind of mapping, then `all` named `total_name`: the name and its bytes on each node,
/// then their sum when `sum`, each shown by `show`.
fn kind_rows(
    i: &Inspection,
    total_name: &str,
    sum: bool,
    show: &dyn Fn(u64) -> String,
) -> Vec<Vec<String>> {
    let on = |k: &KindMemory, node: u32| {
        let m = k.nodes.iter().find(|m| m.node == node);
        m.map_or(0, |m| m.bytes)
    };
    let kinds = i.kinds.iter().map(|k| {
        let name = format!("{:?}", k.kind).to_lowercase();
        (
            name,
            i.nodes.iter().map(|n| on(k, n.node)).collect::<Vec<u64>>(),
        )
    });
    let all = (
        total_name.to_string(),
        i.nodes.iter().map(|n| n.bytes).collect(),
    );
    kinds
        .chain([all])
        .map(|(name, bytes)| {
            let total = bytes.iter().sum::<u64>();
            let cells = bytes.iter().copied().chain(sum.then_some(total));
            std::iter::once(name).chain(cells.map(show)).collect()
        })
        .collect()
}

/// Renders `inspect PID --compact`: resident memory per kind (rows) and node (columns) with a
/// total column, in whole MiB, as `numastat -c -p PID` prints it; nothing else.
pub fn render_compact(i: &Inspection, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Process {} ({}): resident memory per node (whole MiB, MiB = 2^20 bytes)",
        i.pid, i.name
    )?;
    let nodes: Vec<u32> = i.nodes.iter().map(|n| n.node).collect();
    let rows = kind_rows(i, "total", true, &|b| mib(b, 0));
    write!(out, "{}", node_table("", &nodes, true, rows))
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
    let nodes: Vec<u32> = i.nodes.iter().map(|n| n.node).collect();
    let rows = kind_rows(i, "all", false, &format_bytes);
    write!(out, "{}", node_table("kind", &nodes, false, rows))?;
    writeln!(out, "\nMemory policies of the mappings")?;
    for (p, b) in &i.policies {
        writeln!(out, "  {p:<24} {}", format_bytes(*b))?;
    }
    writeln!(out, "\nThreads (CPU they last ran on)")?;
    let opt = |v: Option<u32>| v.map_or_else(|| "-".into(), |x| x.to_string());
    let threads: Vec<Vec<String>> = (i.threads.iter())
        .map(|th| {
            let (tid, name, state) = (th.tid.to_string(), th.name.clone(), th.state.clone());
            vec![tid, name, state, opt(th.cpu), opt(th.node)]
        })
        .collect();
    let headers = ["tid", "name", "state", "cpu", "node"];
    write!(out, "{}", columns(&headers, &threads))?;
    writeln!(
        out,
        "\nSystem numastat (pages allocated since boot, all processes)"
    )?;
    write!(out, "{}", numastat_table(i))
}

/// The system's numastat counters, one row per node.
fn numastat_table(i: &Inspection) -> String {
    let headers = [
        "node",
        "numa_hit",
        "numa_miss",
        "numa_foreign",
        "interleave_hit",
        "local_node",
        "other_node",
    ];
    let rows: Vec<Vec<String>> = (i.numastat.iter())
        .map(|s| {
            let c = [
                s.node.into(),
                s.numa_hit,
                s.numa_miss,
                s.numa_foreign,
                s.interleave_hit,
                s.local_node,
                s.other_node,
            ];
            c.map(|v| v.to_string()).to_vec()
        })
        .collect();
    columns(&headers, &rows)
}
