//! From the facts of an hwloc XML to numascope's nodes, CPUs, caches and distances, in time
//! linear in the objects (maps, never a search of every CPU per CPU).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::parse::Parsed;
use crate::results::topology::{Cache, Cpu, Node};

/// The present CPUs (the Machine's complete cpuset and every PU), and the online ones (PUs).
pub(super) fn cpu_sets(p: &Parsed) -> (Vec<u32>, BTreeSet<u32>) {
    let online: BTreeSet<u32> = p.pus.iter().map(|u| u.id).collect();
    let mut present = online.clone();
    present.extend(p.complete_cpus.iter().flatten().copied());
    (present.into_iter().collect(), online)
}

/// The node each CPU is on. hwloc gives a node the CPUs near it, the kernel the CPUs on it: a
/// CPU is on the smallest NUMANode covering it (a memory-only node that hwloc attached beside
/// a DRAM node, with the same cpuset, loses the tie: memory first, then the lower id).
fn node_of_cpus(p: &Parsed, present: &[u32]) -> HashMap<u32, u32> {
    let present: BTreeSet<u32> = present.iter().copied().collect();
    let mut best: HashMap<u32, (usize, bool, u32)> = HashMap::new();
    for n in &p.nodes {
        let key = (n.cpus.len(), n.memory == 0, n.id);
        for c in n.cpus.iter().filter(|c| present.contains(c)) {
            let e = best.entry(*c).or_insert(key);
            if key < *e {
                *e = key;
            }
        }
    }
    best.into_iter().map(|(c, (_, _, n))| (c, n)).collect()
}

/// The nodes (ascending id) and the CPUs (ascending id, offline ones included).
pub(super) fn nodes_and_cpus(p: &Parsed, allowed: &BTreeSet<u32>) -> (Vec<Node>, Vec<Cpu>) {
    let (present, online) = cpu_sets(p);
    let node_of = node_of_cpus(p, &present);
    let mut on: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for c in &present {
        if let Some(n) = node_of.get(c) {
            on.entry(*n).or_default().push(*c);
        }
    }
    let mut nodes: BTreeMap<u32, Node> = BTreeMap::new();
    for n in &p.nodes {
        let cpus = on.get(&n.id).cloned().unwrap_or_default();
        let e = nodes.entry(n.id).or_insert(Node {
            id: n.id,
            cpus: Vec::new(),
            memory_total_bytes: 0,
            memory_free_bytes: 0,
            memory_available_bytes: 0,
            has_cpu: false,
            has_memory: false,
            hugepages: Vec::new(),
        });
        e.has_cpu |= !cpus.is_empty();
        e.cpus = cpus;
        e.memory_total_bytes = e.memory_total_bytes.saturating_add(n.memory);
        e.has_memory = e.memory_total_bytes > 0;
    }
    let mut siblings: HashMap<usize, Vec<u32>> = HashMap::new();
    for u in &p.pus {
        if let Some((k, _)) = u.core {
            siblings.entry(k).or_default().push(u.id);
        }
    }
    let pus: HashMap<u32, &super::parse::XPu> = p.pus.iter().map(|u| (u.id, u)).collect();
    let cpus = present
        .iter()
        .map(|&id| {
            let pu = pus.get(&id);
            let mut sib = pu
                .and_then(|u| u.core)
                .and_then(|(k, _)| siblings.get(&k).cloned())
                .unwrap_or_else(|| vec![id]);
            sib.sort_unstable();
            Cpu {
                id,
                node: node_of.get(&id).copied(),
                package: pu.and_then(|u| u.package),
                core: pu.and_then(|u| u.core).and_then(|(_, c)| c),
                siblings: sib,
                online: online.contains(&id),
                allowed: allowed.contains(&id),
            }
        })
        .collect();
    (nodes.into_values().collect(), cpus)
}

/// One entry per cache object, in level then CPU order, named as the kernel names types.
pub(super) fn caches(p: &Parsed) -> Vec<Cache> {
    let mut out: Vec<Cache> = p
        .caches
        .iter()
        .filter(|c| c.0 > 0)
        .map(|(level, kind, size, line, ways, cpus)| Cache {
            level: *level,
            kind: match kind {
                1 => "Data",
                2 => "Instruction",
                _ => "Unified",
            }
            .to_string(),
            size_bytes: *size,
            line_bytes: (*line > 0).then_some(*line),
            // hwloc writes -1 for fully associative and 0 for unknown.
            ways: u32::try_from(*ways).ok().filter(|w| *w > 0),
            cpus: cpus.clone(),
        })
        .collect();
    out.sort_by(|a, b| (a.level, &a.kind, a.cpus.first()).cmp(&(b.level, &b.kind, b.cpus.first())));
    out
}

/// The largest SLIT-like value accepted (the ACPI SLIT's are 10 to 255; hwloc's own files
/// stay in the hundreds).
const MAX_DISTANCE: u64 = 10_000;

/// The NUMALatency matrix in node order: `out[i][j]` from `nodes[i]` to `nodes[j]`, whatever
/// order the file lists its nodes in. Empty, with a warning, when it does not cover every
/// node or holds a value outside 1..=10000.
pub(super) fn distances(p: &Parsed, nodes: &[Node], warnings: &mut Vec<String>) -> Vec<Vec<u32>> {
    let Some((idx, gp, vals)) = &p.distances else {
        return Vec::new();
    };
    // Each file index as a node id (gp indexing names objects by their gp_index).
    let ids: Vec<Option<u32>> = idx
        .iter()
        .map(|i| {
            if *gp {
                p.nodes
                    .iter()
                    .find(|n| n.gp_index == Some(*i))
                    .map(|n| n.id)
            } else {
                u32::try_from(*i).ok()
            }
        })
        .collect();
    let pos: HashMap<u32, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let n = idx.len();
    let mut out = vec![vec![0u32; nodes.len()]; nodes.len()];
    let mut filled = 0;
    for (r, from) in ids.iter().enumerate() {
        for (c, to) in ids.iter().enumerate() {
            let (Some(i), Some(j)) = (from.and_then(|f| pos.get(&f)), to.and_then(|t| pos.get(&t)))
            else {
                continue;
            };
            let v = vals[r * n + c];
            if v == 0 || v > MAX_DISTANCE {
                warnings.push(format!(
                    "the hwloc XML's NUMALatency from node {} to node {} is {v}, outside 1 to {MAX_DISTANCE}: the node distances are unknown",
                    nodes[*i].id, nodes[*j].id
                ));
                return Vec::new();
            }
            if out[*i][*j] == 0 {
                filled += 1;
            }
            out[*i][*j] = v as u32;
        }
    }
    if filled != nodes.len() * nodes.len() {
        warnings.push(format!(
            "the hwloc XML's NUMALatency matrix covers {} of the {} nodes: the node distances are unknown",
            ids.iter().flatten().filter(|i| pos.contains_key(i)).count(),
            nodes.len()
        ));
        return Vec::new();
    }
    out
}
