//! The readable text form of `numascope topo`: the nodes (like `numactl -H`), the CPU table,
//! caches with their sharing, the SLIT matrix, HMAT (labelled firmware-declared), the allowed
//! sets and the environment (like `likwid-topology`). Sizes use binary units (KiB = 1024 bytes)
//! as the kernel does; HMAT bandwidth is in MB/s (10^6 bytes) as the kernel reports it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use crate::render::format::width::fit_columns;
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::topology::{Cache, Node, Topology};

pub mod environment;
pub mod graph;
pub mod hwloc;
pub mod hwloc_tree;
pub mod tiering;
use environment::environment;

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

fn list_or_none(ids: &[u32]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        format_list(ids)
    }
}

/// Renders the whole topology as text.
pub fn render(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    header(t, out)?;
    nodes(t, out)?;
    memory_kinds(t, out)?;
    cpus(t, out)?;
    caches(t, out)?;
    layout(t, out)?;
    distances(t, out)?;
    hmat(t, out)?;
    memory_side_caches(t, out)?;
    allowed(t, out)?;
    environment(t, out)
}

/// Machine line: live or snapshot, CPU model, packages, CPUs online, nodes.
fn header(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let online = t.cpus.iter().filter(|c| c.online).count();
    let packages: BTreeSet<u32> = t.cpus.iter().filter_map(|c| c.package).collect();
    writeln!(
        out,
        "Machine ({}): {}, {} package(s), {} of {} CPUs online, {} NUMA node(s)",
        if t.live {
            "live".to_string()
        } else {
            format!("snapshot {}", t.source)
        },
        // Snapshot values: escaped and cut by the one sanitizer.
        crate::sanitize::value(t.environment.cpu_model.as_deref().unwrap_or("unknown CPU")),
        packages.len(),
        online,
        t.cpus.len(),
        t.nodes.len()
    )?;
    Ok(())
}

/// One cell of a table: its header and how an item's cell reads.
type Col<'a, T> = (&'a str, &'a dyn Fn(&T) -> String);

/// `title` on a line of its own, then one row per item, one cell per column, fitted to the
/// terminal.
fn table<T>(out: &mut dyn Write, title: &str, items: &[T], cols: &[Col<T>]) -> io::Result<()> {
    if !title.is_empty() {
        writeln!(out, "\n{title}")?;
    }
    let headers: Vec<&str> = cols.iter().map(|c| c.0).collect();
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|i| cols.iter().map(|c| (c.1)(i)).collect())
        .collect();
    out.write_all(fit_columns(&headers, &rows).as_bytes())
}

/// `-` for a missing value, else the value and its unit.
fn opt_unit<T: std::fmt::Display>(v: Option<T>, unit: &str) -> String {
    opt(v.map(|v| format!("{v}{unit}")))
}

/// Nodes with their CPUs, memory and huge pages.
fn nodes(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let huge = |n: &Node| {
        let h: Vec<String> = (n.hugepages.iter())
            .map(|h| {
                let size = format_bytes(h.page_size_bytes);
                format!("{size}: {}/{} free", h.free, h.total)
            })
            .collect();
        opt((!h.is_empty()).then(|| h.join(", ")))
    };
    table(
        out,
        "NUMA nodes (memory in binary units, GiB = 2^30 bytes)",
        &t.nodes,
        &[
            ("node", &|n| n.id.to_string()),
            ("cpus", &|n| list_or_none(&n.cpus)),
            ("memory total", &|n| format_bytes(n.memory_total_bytes)),
            ("memory free", &|n| format_bytes(n.memory_free_bytes)),
            ("has cpu", &|n| yes(n.has_cpu)),
            ("has memory", &|n| yes(n.has_memory)),
            ("allowed", &|n| yes(t.allowed_nodes.contains(&n.id))),
            ("huge pages (free/total)", &huge),
        ],
    )
}

/// The kind and tier of each node's memory, with how it was known and why.
fn memory_kinds(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    if t.layout.node_memory.is_empty() {
        return Ok(());
    }
    table(
        out,
        "Memory kinds (declared by the kernel or a driver, inferred by numascope, or unknown)",
        &t.layout.node_memory,
        &[
            ("node", &|m| m.node.to_string()),
            ("kind", &|m| m.kind.word().to_string()),
            ("known", &|m| m.known.word().to_string()),
            ("tier", &|m| opt(m.tier)),
            ("evidence", &|m| m.evidence.clone()),
        ],
    )
}

/// Nodes per package and the L3 domains, with where they cross node lines.
fn layout(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let l = &t.layout;
    if l.nodes_per_package.is_none() && l.l3_domains.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nNodes per package and L3 domains")?;
    if let Some(n) = &l.nodes_per_package {
        writeln!(out, "{} ({}: {})", n.mode, n.known.word(), n.evidence)?;
    }
    if !l.l3_domains.is_empty() {
        table(
            out,
            "",
            &l.l3_domains,
            &[
                ("L3 domain of node", &|d| format_list(&d.nodes)),
                ("cpus", &|d| format_list(&d.cpus)),
                ("L3 size", &|d| format_bytes(d.size_bytes)),
            ],
        )?;
    }
    for note in &l.l3_notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}

/// Every present CPU with its node, package, core and SMT siblings.
fn cpus(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    table(
        out,
        "CPUs",
        &t.cpus,
        &[
            ("cpu", &|c| c.id.to_string()),
            ("node", &|c| opt(c.node)),
            ("package", &|c| opt(c.package)),
            ("core", &|c| opt(c.core)),
            ("smt siblings", &|c| {
                opt((!c.siblings.is_empty()).then(|| format_list(&c.siblings)))
            }),
            ("online", &|c| yes(c.online)),
            ("allowed", &|c| yes(c.allowed)),
        ],
    )
}

/// Cache instances grouped by level, type and size, with the CPUs sharing each.
fn caches(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let title = "Caches (sizes declared by the kernel, not measured; KiB = 1024 bytes)";
    if t.caches.is_empty() {
        return writeln!(out, "\n{title}\nnone reported by the kernel");
    }
    // Group instances that differ only by their CPUs.
    let mut groups: BTreeMap<(u32, u8, &str, u64), Vec<&Cache>> = BTreeMap::new();
    for c in &t.caches {
        let rank = ["Data", "Instruction"]
            .iter()
            .position(|k| *k == c.kind)
            .unwrap_or(2) as u8;
        let key = (c.level, rank, c.kind.as_str(), c.size_bytes);
        groups.entry(key).or_default().push(c);
    }
    let groups: Vec<_> = groups.into_iter().collect();
    table(
        out,
        title,
        &groups,
        &[
            ("level", &|((level, ..), _)| format!("L{level}")),
            ("type", &|((_, _, kind, _), _)| kind.to_string()),
            ("size", &|((.., size), _)| format_bytes(*size)),
            ("line", &|(_, i)| opt_unit(i[0].line_bytes, " B")),
            ("ways", &|(_, i)| opt_unit(i[0].ways, "-way")),
            ("instances", &|(_, i)| i.len().to_string()),
            ("shared by CPUs", &|(_, i)| {
                let sets: Vec<String> = (i.iter())
                    .map(|c| format!("({})", format_list(&c.cpus)))
                    .collect();
                sets.join(" ")
            }),
        ],
    )
}

/// The SLIT matrix.
fn distances(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "\nNode distances (SLIT, firmware-declared; 10 = local)"
    )?;
    if t.distances.is_empty() {
        return writeln!(out, "none reported by the kernel");
    }
    let ids: Vec<String> = t.nodes.iter().map(|n| n.id.to_string()).collect();
    let headers: Vec<&str> = std::iter::once("node")
        .chain(ids.iter().map(String::as_str))
        .collect();
    let rows: Vec<Vec<String>> = (ids.iter().zip(&t.distances))
        .map(|(id, row)| {
            let cells = row.iter().map(|d| d.to_string());
            std::iter::once(id.clone()).chain(cells).collect()
        })
        .collect();
    out.write_all(fit_columns(&headers, &rows).as_bytes())
}

/// HMAT access attributes, or a line saying there are none.
fn hmat(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    if t.hmat.is_empty() {
        return writeln!(
            out,
            "\nHMAT: none (the firmware declares no memory attributes)"
        );
    }
    table(
        out,
        "HMAT access attributes (firmware-declared; latency ns, bandwidth MB/s = 10^6 bytes/s)",
        &t.hmat,
        &[
            ("target node", &|h| h.node.to_string()),
            ("class", &|h| format!("access{}", h.access_class)),
            ("initiator nodes", &|h| list_or_none(&h.initiators)),
            ("read ns", &|h| opt(h.read_latency_ns)),
            ("write ns", &|h| opt(h.write_latency_ns)),
            ("read MB/s", &|h| opt(h.read_bandwidth_mb_s)),
            ("write MB/s", &|h| opt(h.write_bandwidth_mb_s)),
        ],
    )
}

/// Memory-side caches, when the firmware declares any.
fn memory_side_caches(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    if t.memory_side_caches.is_empty() {
        return Ok(());
    }
    table(
        out,
        "Memory-side caches (firmware-declared)",
        &t.memory_side_caches,
        &[
            ("node", &|m| m.node.to_string()),
            ("index", &|m| m.level.to_string()),
            ("size", &|m| format_bytes(m.size_bytes)),
            ("line", &|m| opt_unit(m.line_bytes, " B")),
            ("indexing", &|m| opt(m.indexing)),
            ("write policy", &|m| opt(m.write_policy)),
        ],
    )
}

/// The CPUs and nodes this process may use.
fn allowed(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "\nAllowed for this process (cgroup cpuset, taskset, numactl)"
    )?;
    writeln!(
        out,
        "cpus:  {} (of {} present)",
        list_or_none(&t.allowed_cpus),
        t.cpus.len()
    )?;
    writeln!(
        out,
        "nodes: {} (of {})",
        list_or_none(&t.allowed_nodes),
        t.nodes.len()
    )?;
    Ok(())
}
