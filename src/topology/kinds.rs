//! What kind of memory each node holds (DRAM, CXL, HBM, GPU memory, specific-purpose) and the
//! kernel's memory tier of each node, with how each kind was known. A planner needs this
//! before it measures: a CPU-less node may be CXL expansion memory, HBM in flat mode or a
//! GPU's memory, and each behaves differently.
//!
//! The reasoning follows hwloc's Linux backend (hwloc/topology-linux.c), credited here and
//! written afresh: a node named by the NVIDIA driver's `/proc/driver/nvidia/gpus/BDF/
//! numa_status` (`Node: N`) is that GPU's memory; a DAX device onlined as system memory has a
//! `target_node`, and where it sits says what it is (under a CXL region: CXL memory; under an
//! `hmem` platform device: specific-purpose memory, which hwloc calls HBM when its HMAT
//! bandwidth is above the CPU nodes'); a libnvdimm region's `target_node` names persistent
//! memory (hwloc's NVM). Those are declared by the kernel. Otherwise a node with
//! CPUs is taken as DRAM, and a CPU-less node is inferred from its HMAT figures or its memory
//! tier compared with the CPU nodes', or from CXL memory devices (`memN`) on the kernel's CXL
//! bus, or left unknown.

use crate::results::topology::{HmatTarget, Known, MemoryKind, Node, NodeMemory};
use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{degrade, shown};

/// The memory kind and tier of every node with memory, in node order. Unreadable optional
/// files leave the fact unknown with a warning.
pub fn read_node_memory(
    root: &SysRoot,
    nodes: &[Node],
    hmat: &[HmatTarget],
    warnings: &mut Vec<String>,
) -> Result<Vec<NodeMemory>, SysError> {
    let tiers = crate::environment::tiering::read_memory_tiers(root);
    let tiers = degrade(root, tiers, warnings, "the memory tiers are unknown")?.unwrap_or_default();
    let declared = read_declared(root);
    let declared = degrade(
        root,
        declared,
        warnings,
        "device-declared memory kinds are unknown",
    )?
    .unwrap_or_default();
    // CXL memory devices (type-3 endpoints `memN`) on the kernel's CXL bus: a CPU-less node
    // no device claims is then likely theirs.
    let cxl_mems = root.list_prefixed("sys/bus/cxl/devices", "mem");
    let cxl_mems =
        degrade(root, cxl_mems, warnings, "the CXL devices are unknown")?.unwrap_or_default();
    let tier_of = |id: u32| tiers.iter().find(|(_, n)| n.contains(&id)).map(|(t, _)| *t);
    // The CPU nodes' memory: the reference a CPU-less node is compared with.
    let cpu_nodes: Vec<&Node> = nodes.iter().filter(|n| n.has_cpu && n.has_memory).collect();
    let best = |f: fn(&HmatTarget) -> Option<u64>, lowest: bool| {
        let v = cpu_nodes
            .iter()
            .filter_map(|n| hmat_of(hmat, n.id).and_then(f));
        if lowest {
            v.min()
        } else {
            v.max()
        }
    };
    let evidence = KindEvidence {
        declared: &declared,
        cxl_mems: &cxl_mems,
        cpu_latency: best(|h| h.read_latency_ns, true),
        cpu_bandwidth: best(|h| h.read_bandwidth_mb_s, false),
        cpu_tier: cpu_nodes.iter().filter_map(|n| tier_of(n.id)).min(),
    };
    let mut out = Vec::new();
    for n in nodes.iter().filter(|n| n.has_memory) {
        let tier = tier_of(n.id);
        let (kind, known, why) = node_kind(n, hmat_of(hmat, n.id), tier, &evidence);
        out.push(NodeMemory {
            node: n.id,
            kind,
            known,
            evidence: why,
            tier,
        });
    }
    Ok(out)
}

/// What a node's memory kind is judged from, besides the node itself: the device-declared
/// kinds, the CXL memory devices, and the CPU nodes' HMAT figures and tier.
struct KindEvidence<'a> {
    /// Node, declared kind and why, from the devices.
    declared: &'a [(u32, MemoryKind, String)],
    /// The CXL memory devices (`memN`) on the kernel's CXL bus.
    cxl_mems: &'a [String],
    /// The lowest HMAT read latency of a CPU node.
    cpu_latency: Option<u64>,
    /// The highest HMAT read bandwidth of a CPU node.
    cpu_bandwidth: Option<u64>,
    /// The fastest memory tier of a CPU node.
    cpu_tier: Option<u32>,
}

/// The kind of node `n`'s memory, how it is known and why: declared by a device, DRAM for a
/// node with CPUs, else judged as far memory.
fn node_kind(
    n: &Node,
    own: Option<&HmatTarget>,
    tier: Option<u32>,
    e: &KindEvidence,
) -> (MemoryKind, Known, String) {
    // Persistent memory onlined into a node that has CPUs shares it with the DRAM there,
    // so it does not name that node's kind.
    if let Some((kind, why)) = e
        .declared
        .iter()
        .find(|(id, k, _)| *id == n.id && !(*k == MemoryKind::Nvm && n.has_cpu))
        .map(|(_, k, w)| (*k, w.clone()))
    {
        match (kind, own.and_then(|h| h.read_bandwidth_mb_s), e.cpu_bandwidth) {
            (MemoryKind::Spm, Some(b), Some(c)) if b > c => (
                MemoryKind::Hbm,
                Known::Inferred,
                format!("{why}; its HMAT read bandwidth {b} MB/s is above the CPU nodes' {c} MB/s, as HBM's is"),
            ),
            _ => (kind, Known::Declared, why),
        }
    } else if n.has_cpu {
        (
            MemoryKind::Dram,
            Known::Inferred,
            "the node has CPUs and no CXL, DAX or GPU device claims its memory".to_string(),
        )
    } else {
        match far_memory(n.id, own, e.cpu_latency, e.cpu_bandwidth, tier, e.cpu_tier) {
            (MemoryKind::Unknown, _, _) if !e.cxl_mems.is_empty() => (
                MemoryKind::Cxl,
                Known::Inferred,
                format!(
                    "a CPU-less node that no device claims, on a machine whose CXL bus has memory devices ({})",
                    e.cxl_mems.join(", ")
                ),
            ),
            other => other,
        }
    }
}

/// A CPU-less node no device claims: HBM when HMAT gives it more bandwidth than the CPU
/// nodes, far memory (CXL-attached, the usual kind today) when HMAT gives it more latency and
/// less bandwidth or the kernel puts it in a slower tier; else unknown.
fn far_memory(
    id: u32,
    own: Option<&HmatTarget>,
    cpu_latency: Option<u64>,
    cpu_bandwidth: Option<u64>,
    tier: Option<u32>,
    cpu_tier: Option<u32>,
) -> (MemoryKind, Known, String) {
    let lat = own.and_then(|h| h.read_latency_ns);
    let bw = own.and_then(|h| h.read_bandwidth_mb_s);
    if let (Some(b), Some(c)) = (bw, cpu_bandwidth) {
        if b > c {
            return (
                MemoryKind::Hbm,
                Known::Inferred,
                format!("a CPU-less node whose HMAT read bandwidth {b} MB/s is above the CPU nodes' {c} MB/s"),
            );
        }
        if let (Some(l), Some(cl)) = (lat, cpu_latency) {
            if l > cl && b < c {
                return (
                    MemoryKind::Cxl,
                    Known::Inferred,
                    format!("a CPU-less node whose HMAT read latency {l} ns is above and bandwidth {b} MB/s below the CPU nodes' ({cl} ns, {c} MB/s), as CXL-attached memory's are; no CXL device declares it"),
                );
            }
        }
    }
    if let (Some(t), Some(ct)) = (tier, cpu_tier) {
        if t > ct {
            return (
                MemoryKind::Cxl,
                Known::Inferred,
                format!("a CPU-less node the kernel puts in memory tier {t}, slower than the CPU nodes' tier {ct}, as it does CXL-attached memory; no CXL device declares it"),
            );
        }
    }
    (
        MemoryKind::Unknown,
        Known::Unknown,
        format!("node {id} has memory and no CPUs, and no device, HMAT figure or memory tier says what it is"),
    )
}

fn hmat_of(hmat: &[HmatTarget], node: u32) -> Option<&HmatTarget> {
    let mut m: Vec<&HmatTarget> = hmat.iter().filter(|h| h.node == node).collect();
    m.sort_by_key(|h| std::cmp::Reverse(h.access_class));
    m.into_iter().next()
}

/// Kinds declared by the kernel or a driver: (node, kind, the evidence).
fn read_declared(root: &SysRoot) -> Result<Vec<(u32, MemoryKind, String)>, SysError> {
    let mut out: Vec<(u32, MemoryKind, String)> = Vec::new();
    // NVIDIA GPU memory onlined as a NUMA node (as hwloc finds it).
    let gpus = "proc/driver/nvidia/gpus";
    for bdf in root.list(gpus)? {
        let rel = format!("{gpus}/{bdf}/numa_status");
        let Some(text) = root.read_opt(&rel)? else {
            continue;
        };
        let node = text.lines().find_map(|l| {
            l.trim()
                .strip_prefix("Node:")
                .and_then(|v| v.trim().parse::<u32>().ok())
        });
        if let Some(node) = node {
            out.push((
                node,
                MemoryKind::Gpu,
                format!("{} names it as the memory of GPU {bdf}", shown(&rel)),
            ));
        }
    }
    // DAX devices under CXL regions: region/dax_regionN/daxN.M/target_node.
    let cxl = "sys/bus/cxl/devices";
    for region in root.list_prefixed(cxl, "region")? {
        let r = format!("{cxl}/{region}");
        for dr in root.list_prefixed(&r, "dax_region")? {
            for dax in dax_devices(root, &format!("{r}/{dr}"))? {
                let rel = format!("{r}/{dr}/{dax}/target_node");
                if let Some(node) = root.read_u64_opt(&rel)? {
                    out.push((
                        node as u32,
                        MemoryKind::Cxl,
                        format!(
                            "{} (DAX device {dax} of CXL {region}) names it",
                            shown(&rel)
                        ),
                    ));
                }
            }
        }
    }
    // Soft-reserved (EFI specific-purpose) memory: platform/hmem.N/daxN.M/target_node.
    let platform = "sys/devices/platform";
    for hmem in root.list_prefixed(platform, "hmem.")? {
        let h = format!("{platform}/{hmem}");
        for dax in dax_devices(root, &h)? {
            let rel = format!("{h}/{dax}/target_node");
            if let Some(node) = root.read_u64_opt(&rel)? {
                out.push((
                    node as u32,
                    MemoryKind::Spm,
                    format!(
                        "{} (DAX device {dax} of firmware specific-purpose memory) names it",
                        shown(&rel)
                    ),
                ));
            }
        }
    }
    // Persistent memory: a libnvdimm region whose target node is a node with memory (its
    // DAX device onlined by kmem). A region that is not onlined names a node that has no
    // memory, which the caller never asks about.
    let nd = "sys/bus/nd/devices";
    for region in root.list_prefixed(nd, "region")? {
        let rel = format!("{nd}/{region}/target_node");
        if let Some(node) = root.read_u64_opt(&rel)? {
            if out.iter().any(|d| d.0 == node as u32) {
                continue;
            }
            out.push((
                node as u32,
                MemoryKind::Nvm,
                format!("{} (NVDIMM {region}) names it", shown(&rel)),
            ));
        }
    }
    Ok(out)
}

/// `daxN.M` entries of a directory (not `dax_region`).
fn dax_devices(root: &SysRoot, dir: &str) -> Result<Vec<String>, SysError> {
    Ok(root
        .list_prefixed(dir, "dax")?
        .into_iter()
        .filter(|n| !n.starts_with("dax_region"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environment::tiering::TIERS;
    use crate::testutil::test_root;

    fn node(id: u32, cpu: bool) -> Node {
        Node {
            has_cpu: cpu,
            ..crate::testutil::node(id, if cpu { vec![id] } else { vec![] })
        }
    }

    #[test]
    fn declared_tiered_and_unknown_kinds() {
        let (_d, root) = test_root(&[
            (&format!("{TIERS}/memory_tier4/nodelist"), "0-1\n"),
            (&format!("{TIERS}/memory_tier22/nodelist"), "2\n"),
            (
                "proc/driver/nvidia/gpus/0004:04:00.0/numa_status",
                "Node:      3\nStatus:    online\n",
            ),
            (
                "sys/bus/cxl/devices/region0/dax_region0/dax0.0/target_node",
                "4\n",
            ),
        ]);
        let nodes = [
            node(0, true),
            node(1, false),
            node(2, false),
            node(3, false),
            node(4, false),
        ];
        let mut w = Vec::new();
        let m = read_node_memory(&root, &nodes, &[], &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        let k: Vec<(MemoryKind, Known, Option<u32>)> =
            m.iter().map(|m| (m.kind, m.known, m.tier)).collect();
        assert_eq!(
            k,
            vec![
                (MemoryKind::Dram, Known::Inferred, Some(4)),
                (MemoryKind::Unknown, Known::Unknown, Some(4)),
                (MemoryKind::Cxl, Known::Inferred, Some(22)),
                (MemoryKind::Gpu, Known::Declared, None),
                (MemoryKind::Cxl, Known::Declared, None),
            ]
        );
        assert!(m[3].evidence.contains("numa_status"), "{}", m[3].evidence);
        assert!(m[4].evidence.contains("region0"), "{}", m[4].evidence);
    }

    #[test]
    fn an_nvdimm_region_names_a_cpu_less_node_persistent_but_not_a_cpu_node() {
        let (_d, root) = test_root(&[
            ("sys/bus/nd/devices/region0/target_node", "2\n"),
            ("sys/bus/nd/devices/region1/target_node", "0\n"),
        ]);
        let nodes = [node(0, true), node(1, false), node(2, false)];
        let m = read_node_memory(&root, &nodes, &[], &mut Vec::new()).unwrap();
        assert_eq!(m[0].kind, MemoryKind::Dram);
        assert_eq!(m[1].kind, MemoryKind::Unknown);
        assert_eq!((m[2].kind, m[2].known), (MemoryKind::Nvm, Known::Declared));
        assert!(
            m[2].evidence.contains("NVDIMM region0"),
            "{}",
            m[2].evidence
        );
    }

    #[test]
    fn cxl_memory_devices_make_an_unclaimed_cpu_less_node_likely_cxl() {
        let (_d, root) = test_root(&[("sys/bus/cxl/devices/mem0/serial", "0x1\n")]);
        let m = read_node_memory(
            &root,
            &[node(0, true), node(1, false)],
            &[],
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!((m[1].kind, m[1].known), (MemoryKind::Cxl, Known::Inferred));
        assert!(m[1].evidence.contains("mem0"), "{}", m[1].evidence);
    }

    #[test]
    fn hmat_bandwidth_tells_hbm_from_far_memory() {
        let h = |node, lat, bw| HmatTarget {
            node,
            access_class: 0,
            initiators: vec![0],
            read_latency_ns: Some(lat),
            write_latency_ns: None,
            read_bandwidth_mb_s: Some(bw),
            write_bandwidth_mb_s: None,
        };
        let (_d, root) = test_root(&[]);
        let nodes = [node(0, true), node(1, false), node(2, false)];
        let hmat = [h(0, 90, 100_000), h(1, 110, 400_000), h(2, 250, 30_000)];
        let m = read_node_memory(&root, &nodes, &hmat, &mut Vec::new()).unwrap();
        assert_eq!((m[1].kind, m[1].known), (MemoryKind::Hbm, Known::Inferred));
        assert_eq!((m[2].kind, m[2].known), (MemoryKind::Cxl, Known::Inferred));
    }
}
