//! The readable text form of `numascope topo`: the nodes (like `numactl -H`), the CPU table,
//! caches with their sharing, the SLIT matrix, HMAT (labelled firmware-declared), the allowed
//! sets and the environment (like `likwid-topology`). Sizes use binary units (KiB = 1024 bytes)
//! as the kernel does; HMAT bandwidth is in MB/s (10^6 bytes) as the kernel reports it.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::topology::{Cache, Topology};

pub use super::width::columns;

mod environment;
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
    let mut packages: Vec<u32> = t.cpus.iter().filter_map(|c| c.package).collect();
    packages.sort_unstable();
    packages.dedup();
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

/// Nodes with their CPUs, memory and huge pages.
fn nodes(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "\nNUMA nodes (memory in binary units, GiB = 2^30 bytes)"
    )?;
    let rows: Vec<Vec<String>> = t
        .nodes
        .iter()
        .map(|n| {
            let huge = if n.hugepages.is_empty() {
                "-".to_string()
            } else {
                n.hugepages
                    .iter()
                    .map(|h| {
                        format!(
                            "{}: {}/{} free",
                            format_bytes(h.page_size_bytes),
                            h.free,
                            h.total
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            vec![
                n.id.to_string(),
                list_or_none(&n.cpus),
                format_bytes(n.memory_total_bytes),
                format_bytes(n.memory_free_bytes),
                yes(n.has_cpu),
                yes(n.has_memory),
                yes(t.allowed_nodes.contains(&n.id)),
                huge,
            ]
        })
        .collect();
    out.write_all(
        super::width::fit_columns(
            &[
                "node",
                "cpus",
                "memory total",
                "memory free",
                "has cpu",
                "has memory",
                "allowed",
                "huge pages (free/total)",
            ],
            &rows,
        )
        .as_bytes(),
    )?;
    Ok(())
}

/// The kind and tier of each node's memory, with how it was known and why.
fn memory_kinds(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    if t.layout.node_memory.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nMemory kinds (declared by the kernel or a driver, inferred by numascope, or unknown)"
    )?;
    let rows: Vec<Vec<String>> = t
        .layout
        .node_memory
        .iter()
        .map(|m| {
            vec![
                m.node.to_string(),
                m.kind.word().to_string(),
                m.known.word().to_string(),
                opt(m.tier),
                m.evidence.clone(),
            ]
        })
        .collect();
    out.write_all(columns(&["node", "kind", "known", "tier", "evidence"], &rows).as_bytes())
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
        let rows: Vec<Vec<String>> = l
            .l3_domains
            .iter()
            .map(|d| {
                vec![
                    format_list(&d.nodes),
                    format_list(&d.cpus),
                    format_bytes(d.size_bytes),
                ]
            })
            .collect();
        out.write_all(columns(&["L3 domain of node", "cpus", "L3 size"], &rows).as_bytes())?;
    }
    for note in &l.l3_notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}

/// Every present CPU with its node, package, core and SMT siblings.
fn cpus(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nCPUs")?;
    let rows: Vec<Vec<String>> = t
        .cpus
        .iter()
        .map(|c| {
            vec![
                c.id.to_string(),
                opt(c.node),
                opt(c.package),
                opt(c.core),
                if c.siblings.is_empty() {
                    "-".into()
                } else {
                    format_list(&c.siblings)
                },
                yes(c.online),
                yes(c.allowed),
            ]
        })
        .collect();
    out.write_all(
        super::width::fit_columns(
            &[
                "cpu",
                "node",
                "package",
                "core",
                "smt siblings",
                "online",
                "allowed",
            ],
            &rows,
        )
        .as_bytes(),
    )?;
    Ok(())
}

/// Cache instances grouped by level, type and size, with the CPUs sharing each.
fn caches(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "\nCaches (sizes declared by the kernel, not measured; KiB = 1024 bytes)"
    )?;
    if t.caches.is_empty() {
        writeln!(out, "none reported by the kernel")?;
    } else {
        // Group instances that differ only by their CPUs.
        let mut groups: BTreeMap<(u32, u8, String, u64), Vec<&Cache>> = BTreeMap::new();
        for c in &t.caches {
            let rank = match c.kind.as_str() {
                "Data" => 0,
                "Instruction" => 1,
                _ => 2,
            };
            groups
                .entry((c.level, rank, c.kind.clone(), c.size_bytes))
                .or_default()
                .push(c);
        }
        let rows: Vec<Vec<String>> = groups
            .into_iter()
            .map(|((level, _, kind, size), inst)| {
                let first = inst[0];
                vec![
                    format!("L{level}"),
                    kind,
                    format_bytes(size),
                    opt(first.line_bytes.map(|l| format!("{l} B"))),
                    opt(first.ways.map(|w| format!("{w}-way"))),
                    inst.len().to_string(),
                    inst.iter()
                        .map(|c| format!("({})", format_list(&c.cpus)))
                        .collect::<Vec<_>>()
                        .join(" "),
                ]
            })
            .collect();
        out.write_all(
            super::width::fit_columns(
                &[
                    "level",
                    "type",
                    "size",
                    "line",
                    "ways",
                    "instances",
                    "shared by CPUs",
                ],
                &rows,
            )
            .as_bytes(),
        )?;
    }
    Ok(())
}

/// The SLIT matrix.
fn distances(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "\nNode distances (SLIT, firmware-declared; 10 = local)"
    )?;
    if t.distances.is_empty() {
        writeln!(out, "none reported by the kernel")?;
    } else {
        let mut headers = vec!["node".to_string()];
        headers.extend(t.nodes.iter().map(|n| n.id.to_string()));
        let rows: Vec<Vec<String>> = t
            .nodes
            .iter()
            .zip(&t.distances)
            .map(|(n, row)| {
                let mut r = vec![n.id.to_string()];
                r.extend(row.iter().map(|d| d.to_string()));
                r
            })
            .collect();
        let h: Vec<&str> = headers.iter().map(|s| s.as_str()).collect();
        out.write_all(super::width::fit_columns(&h, &rows).as_bytes())?;
    }
    Ok(())
}

/// HMAT access attributes, or a line saying there are none.
fn hmat(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    if !t.hmat.is_empty() {
        writeln!(out, "\nHMAT access attributes (firmware-declared; latency ns, bandwidth MB/s = 10^6 bytes/s)")?;
        let rows: Vec<Vec<String>> = t
            .hmat
            .iter()
            .map(|h| {
                vec![
                    h.node.to_string(),
                    format!("access{}", h.access_class),
                    list_or_none(&h.initiators),
                    opt(h.read_latency_ns),
                    opt(h.write_latency_ns),
                    opt(h.read_bandwidth_mb_s),
                    opt(h.write_bandwidth_mb_s),
                ]
            })
            .collect();
        out.write_all(
            super::width::fit_columns(
                &[
                    "target node",
                    "class",
                    "initiator nodes",
                    "read ns",
                    "write ns",
                    "read MB/s",
                    "write MB/s",
                ],
                &rows,
            )
            .as_bytes(),
        )?;
    } else {
        writeln!(
            out,
            "\nHMAT: none (the firmware declares no memory attributes)"
        )?;
    }
    Ok(())
}

/// Memory-side caches, when the firmware declares any.
fn memory_side_caches(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    if !t.memory_side_caches.is_empty() {
        writeln!(out, "\nMemory-side caches (firmware-declared)")?;
        let rows: Vec<Vec<String>> = t
            .memory_side_caches
            .iter()
            .map(|m| {
                vec![
                    m.node.to_string(),
                    m.level.to_string(),
                    format_bytes(m.size_bytes),
                    opt(m.line_bytes.map(|l| format!("{l} B"))),
                    opt(m.indexing),
                    opt(m.write_policy),
                ]
            })
            .collect();
        out.write_all(
            super::width::fit_columns(
                &["node", "index", "size", "line", "indexing", "write policy"],
                &rows,
            )
            .as_bytes(),
        )?;
    }
    Ok(())
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
