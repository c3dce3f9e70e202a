//! The drawn form of `numascope topo --graph`: one box per package, like `likwid-topology -g`.
//! Inside, one column per core (its hardware threads), then one row per data/unified cache
//! level where each instance spans the cores that share it, then the NUMA nodes spanning their
//! cores. Memory-only nodes and offline CPUs are listed below the packages; CPUs and nodes
//! this process may not use are marked `*`. Plain ASCII, so it survives any terminal and bug
//! report.
//!
//! Every drawing fits `fit::MAX_WIDTH` columns: a package too wide is drawn in blocks, one
//! per node or cache instance, stacked; when one of those is still too wide, identical cores
//! are collapsed into one column with their count (`8 cores 0-7`, `8x L2 1 MiB`), as lstopo
//! collapses identical objects; a machine too large for that is listed one group a line.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::topology::{Cpu, Topology};

mod fit;

/// One core column: its hardware threads.
pub(crate) struct Core {
    cpus: Vec<u32>,
}

/// One row of boxes: (first column, last column, label) per box.
pub(crate) type Row = Vec<(usize, usize, String)>;

/// Renders every package of `t`.
pub fn render(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let online: Vec<&Cpu> = t.cpus.iter().filter(|c| c.online).collect();
    let packages: BTreeSet<Option<u32>> = online.iter().map(|c| c.package).collect();
    for pkg in packages {
        let cores = cores_of(&online, pkg);
        let rows = rows_of(t, &cores);
        let blocks = fit::blocks(t, &cores, rows);
        draw_package(out, pkg, &blocks)?;
    }
    footer(t, out)
}

/// The core columns of package `pkg`, ordered by node then core id so shared caches are
/// contiguous.
fn cores_of(online: &[&Cpu], pkg: Option<u32>) -> Vec<Core> {
    let mut cores: BTreeMap<(Option<u32>, Option<u32>, u32), Vec<u32>> = BTreeMap::new();
    for c in online.iter().filter(|c| c.package == pkg) {
        let first = c.siblings.first().copied().unwrap_or(c.id);
        cores.entry((c.node, c.core, first)).or_default().push(c.id);
    }
    cores.into_values().map(|cpus| Core { cpus }).collect()
}

/// `*` for what this process may not use.
fn mark(allowed: bool) -> &'static str {
    if allowed {
        ""
    } else {
        "*"
    }
}

/// The rows of boxes of one package: hardware threads, each cache level, the nodes.
fn rows_of(t: &Topology, cores: &[Core]) -> Vec<Row> {
    // The columns a CPU set spans, first and last.
    let span = |cpus: &[u32]| {
        let cols = cpus
            .iter()
            .filter_map(|c| cores.iter().position(|k| k.cpus.contains(c)));
        let (a, b) = cols.fold((usize::MAX, 0), |(a, b), c| (a.min(c), b.max(c)));
        (a <= b).then_some((a, b))
    };
    let threads: Row = (cores.iter().enumerate())
        .map(|(i, k)| {
            let cpus: Vec<String> = (k.cpus.iter())
                .map(|c| format!("{c}{}", mark(t.allowed_cpus.contains(c))))
                .collect();
            (i, i, cpus.join(" "))
        })
        .collect();
    let mut levels: Vec<(u32, &str)> = (t.caches.iter())
        .filter(|c| c.kind != "Instruction")
        .map(|c| (c.level, c.kind.as_str()))
        .collect();
    levels.sort();
    levels.dedup();
    let caches = levels.into_iter().map(|(level, kind)| {
        (t.caches.iter())
            .filter(|c| c.level == level && c.kind == kind)
            .filter_map(|c| {
                let (a, b) = span(&c.cpus)?;
                Some((a, b, format!("L{level} {}", format_bytes(c.size_bytes))))
            })
            .collect::<Row>()
    });
    let nodes: Row = (t.nodes.iter())
        .filter_map(|n| {
            let (a, b) = span(&n.cpus)?;
            let m = mark(t.allowed_nodes.contains(&n.id));
            let size = format_bytes(n.memory_total_bytes);
            Some((a, b, format!("node {}{m} {size}", n.id)))
        })
        .collect();
    (std::iter::once(threads).chain(caches).chain([nodes]))
        .filter(|r| !r.is_empty())
        .map(|mut r| {
            r.sort();
            r
        })
        .collect()
}

/// The lines of one block of `ncols` columns: each row's boxes, three lines a row.
pub(crate) fn block_lines(ncols: usize, rows: &[Row]) -> Vec<String> {
    // Column width: the widest single-column label, or a spanning label shared out.
    let mut w = 5usize;
    for row in rows {
        for (a, b, label) in row {
            let span = b - a + 1;
            let need = label.chars().count() + 2;
            // A box over `span` columns has span*(w+2)+(span-1)-2 inner characters.
            let per = (need + 2 + 1).div_ceil(span).saturating_sub(3);
            w = w.max(if span == 1 { need } else { per });
        }
    }
    let inner_of = |a: usize, b: usize| (b - a + 1) * (w + 2) + (b - a) - 2;
    let mut lines: Vec<String> = Vec::new();
    for row in rows {
        let mut top = String::new();
        let mut mid = String::new();
        let mut col = 0usize;
        for (a, b, label) in row {
            if *a < col {
                continue; // overlapping instance (non-contiguous sharing): drawn once
            }
            let pad = (a - col) * (w + 3);
            top.push_str(&" ".repeat(pad));
            mid.push_str(&" ".repeat(pad));
            let inner = inner_of(*a, *b);
            top.push('+');
            top.push_str(&"-".repeat(inner));
            top.push('+');
            mid.push('|');
            // Centred, cut at the box's width.
            mid.push_str(&format!("{label:^inner$.inner$}"));
            mid.push('|');
            col = b + 1;
            if col < ncols {
                top.push(' ');
                mid.push(' ');
            }
        }
        lines.push(top.clone());
        lines.push(mid);
        lines.push(top);
    }
    lines
}

/// Draws one package box around its blocks (stacked, a blank line between two).
fn draw_package(out: &mut dyn Write, pkg: Option<u32>, blocks: &[Vec<String>]) -> io::Result<()> {
    let total = blocks
        .iter()
        .flatten()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let title = match pkg {
        Some(p) => format!("Package {p}:"),
        None => "CPUs without a package id:".to_string(),
    };
    writeln!(out, "{title}")?;
    writeln!(out, "+{}+", "-".repeat(total + 2))?;
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            writeln!(out, "| {:<width$} |", "", width = total)?;
        }
        for l in b {
            writeln!(out, "| {:<width$} |", l, width = total)?;
        }
    }
    writeln!(out, "+{}+", "-".repeat(total + 2))?;
    Ok(())
}

/// Memory-only nodes, the not-allowed mark and offline CPUs, below the packages.
fn footer(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    for n in t.nodes.iter().filter(|n| n.cpus.is_empty()) {
        let mark = mark(t.allowed_nodes.contains(&n.id));
        let kind = (t.layout.node_memory.iter().find(|m| m.node == n.id)).map(|m| {
            let tier = m.tier.map(|t| format!(", tier {t}")).unwrap_or_default();
            format!(", {} ({}){tier}", m.kind.word(), m.known.word())
        });
        let (size, kind) = (format_bytes(n.memory_total_bytes), kind.unwrap_or_default());
        writeln!(
            out,
            "Memory-only node {}{mark}: {size} (no CPUs){kind}",
            n.id
        )?;
    }
    // Memory of nodes with CPUs that is not plain DRAM (HBM in cache-less flat mode, say).
    for m in t.layout.node_memory.iter().filter(|m| {
        m.kind != crate::results::topology::MemoryKind::Dram
            && t.node(m.node).is_some_and(|n| !n.cpus.is_empty())
    }) {
        let (kind, known) = (m.kind.word(), m.known.word());
        writeln!(out, "Node {} memory: {kind} ({known})", m.node)?;
    }
    if let Some(n) = &t.layout.nodes_per_package {
        writeln!(out, "Nodes per package: {} ({})", n.mode, n.known.word())?;
    }
    let notes = t.layout.l3_notes.iter().map(|note| format!("Note: {note}"));
    let any_disallowed = t.cpus.iter().any(|c| !c.allowed)
        || t.nodes.iter().any(|n| !t.allowed_nodes.contains(&n.id));
    let disallowed = any_disallowed.then(|| {
        let (cpus, nodes) = (format_list(&t.allowed_cpus), format_list(&t.allowed_nodes));
        format!("* not allowed for this process (allowed CPUs {cpus}, nodes {nodes})")
    });
    let offline: Vec<u32> = t.cpus.iter().filter(|c| !c.online).map(|c| c.id).collect();
    let offline = (!offline.is_empty()).then(|| format!("Offline CPUs: {}", format_list(&offline)));
    for line in notes.chain(disallowed).chain(offline) {
        wrapped(out, &line)?;
    }
    Ok(())
}

/// Writes `text` in lines of at most [`fit::MAX_WIDTH`] columns, broken at spaces (or commas
/// in a long list), continuation lines indented.
fn wrapped(out: &mut dyn Write, text: &str) -> io::Result<()> {
    let w = fit::MAX_WIDTH;
    let lines = crate::render::format::width::wrap(text, w, w - 2);
    for (i, l) in lines.iter().enumerate() {
        writeln!(out, "{}{l}", if i == 0 { "" } else { "  " })?;
    }
    Ok(())
}
