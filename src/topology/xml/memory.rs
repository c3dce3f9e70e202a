//! The memory facts of an hwloc XML: its memory attributes as HMAT-like figures, its
//! memory-side caches, and each node's subtype and memory tier as declared kinds.

use std::collections::{BTreeMap, BTreeSet};

use super::parse::{Parsed, XValue};
use crate::results::topology::{HmatTarget, Known, MemoryKind, MemorySideCache, Node, NodeMemory};

/// The node an attribute value targets.
fn target(p: &Parsed, v: &XValue) -> Option<u32> {
    match (v.target_gp, v.target_os) {
        (Some(gp), _) => p
            .nodes
            .iter()
            .find(|n| n.gp_index == Some(gp))
            .map(|n| n.id),
        (None, Some(os)) => Some(os),
        _ => None,
    }
}

/// Per target node, the value of attribute `name`: the one whose initiators are the node's
/// own locality when the file gives it, else the best (lowest latency, highest bandwidth),
/// with its initiator CPUs. Zero values are left out (hwloc writes none).
fn pick(p: &Parsed, name: &str, lowest: bool) -> BTreeMap<u32, (u64, Vec<u32>)> {
    let mut out: BTreeMap<u32, (u64, Vec<u32>, bool)> = BTreeMap::new();
    let Some((_, values)) = p.memattrs.iter().find(|(n, _)| n == name) else {
        return BTreeMap::new();
    };
    for v in values.iter().filter(|v| v.value > 0) {
        let Some(node) = target(p, v) else { continue };
        let init = v.initiator.clone().unwrap_or_default();
        let local = p
            .nodes
            .iter()
            .any(|n| n.id == node && n.cpus == init && !init.is_empty());
        let better = |old: &(u64, Vec<u32>, bool)| {
            (local && !old.2)
                || (local == old.2
                    && if lowest {
                        v.value < old.0
                    } else {
                        v.value > old.0
                    })
        };
        match out.get(&node) {
            Some(old) if !better(old) => {}
            _ => {
                out.insert(node, (v.value, init, local));
            }
        }
    }
    out.into_iter().map(|(k, (v, i, _))| (k, (v, i))).collect()
}

/// The memory attributes hwloc declares (from the firmware's HMAT on Linux) as one
/// [`HmatTarget`] per node: `Latency`/`Bandwidth` stand for both directions unless the file
/// also has the read and write ones. Access class 1 (CPU initiators), initiators being the
/// nodes whose CPUs the initiator set holds.
pub(super) fn hmat(p: &Parsed, nodes: &[Node]) -> Vec<HmatTarget> {
    let get = |n: &str, lowest| pick(p, n, lowest);
    let (lat, bw) = (get("Latency", true), get("Bandwidth", false));
    let (rl, wl) = (get("ReadLatency", true), get("WriteLatency", true));
    let (rb, wb) = (get("ReadBandwidth", false), get("WriteBandwidth", false));
    let mut targets: BTreeSet<u32> = BTreeSet::new();
    for m in [&lat, &bw, &rl, &wl, &rb, &wb] {
        targets.extend(m.keys());
    }
    let value = |m: &BTreeMap<u32, (u64, Vec<u32>)>, n| m.get(&n).map(|x| x.0);
    targets
        .into_iter()
        .filter(|t| nodes.iter().any(|n| n.id == *t))
        .map(|t| {
            let init: Vec<u32> = [&lat, &bw, &rl, &rb, &wl, &wb]
                .iter()
                .find_map(|m| m.get(&t).map(|x| x.1.clone()))
                .unwrap_or_default();
            let initiators = nodes
                .iter()
                .filter(|n| n.has_cpu && n.cpus.iter().any(|c| init.binary_search(c).is_ok()))
                .map(|n| n.id)
                .collect();
            HmatTarget {
                node: t,
                access_class: 1,
                initiators,
                read_latency_ns: value(&rl, t).or(value(&lat, t)),
                write_latency_ns: value(&wl, t).or(value(&lat, t)),
                read_bandwidth_mb_s: value(&rb, t).or(value(&bw, t)),
                write_bandwidth_mb_s: value(&wb, t).or(value(&bw, t)),
            }
        })
        .collect()
}

/// The memory-side caches (hwloc's MemCache objects above a NUMANode), per node and level.
pub(super) fn memory_side_caches(p: &Parsed) -> Vec<MemorySideCache> {
    let mut out: Vec<MemorySideCache> = p
        .memory_caches
        .iter()
        .map(|&(node, level, size, line)| MemorySideCache {
            node,
            level,
            size_bytes: size,
            line_bytes: (line > 0).then_some(line),
            indexing: None,
            write_policy: None,
        })
        .collect();
    out.sort_by_key(|c| (c.node, c.level));
    out.dedup_by_key(|c| (c.node, c.level));
    out
}

/// hwloc's NUMA node subtypes (and its memory tier kinds) as numascope's kinds.
fn kind_of_subtype(s: &str) -> Option<MemoryKind> {
    Some(match s {
        "DRAM" => MemoryKind::Dram,
        "HBM" | "MCDRAM" => MemoryKind::Hbm,
        "CXL-DRAM" | "CXL-NVM" => MemoryKind::Cxl,
        "NVM" => MemoryKind::Nvm,
        "GPUMemory" | "GPU" => MemoryKind::Gpu,
        "SPM" => MemoryKind::Spm,
        _ => return None,
    })
}

/// hwloc 3's memory tier kind bits (memattrs.c): one kind named alone, else none.
fn kind_of_tier(bits: u64) -> Option<(MemoryKind, &'static str)> {
    Some(match bits {
        1 => (MemoryKind::Hbm, "HBM"),
        2 => (MemoryKind::Dram, "DRAM"),
        4 => (MemoryKind::Gpu, "GPU"),
        8 => (MemoryKind::Spm, "SPM"),
        16 => (MemoryKind::Nvm, "NVM"),
        32 => (MemoryKind::Cxl, "CXL"),
        _ => return None,
    })
}

/// Replaces the inferred kinds with what the XML declares (a node's `subtype`, else the kind
/// of the hwloc 3 memory tier it is in) and sets each node's tier: hwloc 3's `<memtier>`
/// rank in file order (hwloc lists the fastest first) or hwloc 2's `MemoryTier` info.
pub(super) fn declare_kinds(p: &Parsed, memory: &mut [NodeMemory]) {
    for m in memory.iter_mut() {
        let x = p.nodes.iter().find(|n| n.id == m.node);
        let tier = p.memtiers.iter().position(|(_, ns)| ns.contains(&m.node));
        m.tier = tier.map(|t| t as u32).or_else(|| x.and_then(|n| n.tier));
        let subtype = x.and_then(|n| n.subtype.as_deref());
        let by_subtype = subtype.and_then(kind_of_subtype).map(|k| {
            let s = subtype.unwrap_or_default();
            (
                k,
                format!("the hwloc XML gives node {} the subtype \"{s}\"", m.node),
            )
        });
        let by_tier = || {
            let t = tier?;
            let (k, word) = kind_of_tier(p.memtiers[t].0)?;
            let why = format!(
                "the hwloc XML puts node {} in memory tier {t} of kind {word}",
                m.node
            );
            Some((k, why))
        };
        if let Some((k, why)) = by_subtype.or_else(by_tier) {
            m.kind = k;
            m.known = Known::Declared;
            m.evidence = why;
        }
    }
}
