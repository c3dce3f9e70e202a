//! NUMA nodes from `/sys/devices/system/node`: which nodes exist, their CPUs, memory total and
//! free (`nodeN/meminfo`), the kernel's has_cpu / has_memory masks and the per-node huge page
//! pools. Kernels without NUMA support have no node directory; they get one node 0 holding
//! every CPU and the memory of `/proc/meminfo`, which is what the hardware effectively is.
//!
//! Only the node structure (which nodes exist and their CPUs) is required. Memory figures
//! degrade one by one, as hwloc's do: a meminfo without `MemFree`, a missing `/proc/meminfo`,
//! or `MemFree` above `MemTotal` leaves that figure unknown (0) with a warning naming the
//! file, and CPUs a node lists that are not present are left out with a warning.

use crate::results::format::format_list;
use crate::results::topology::{HugePages, Node};
use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{
    degrade, malformed, missing, read_list_opt, read_mask_opt, shown, NODE_DIR,
};
use crate::topology::meminfo::{parse_meminfo, read_node_meminfo};

/// Reads the nodes in ascending id order, or `None` when the kernel has no node directory.
/// `present` are the present CPUs: a node listing others gets a warning in `warnings`.
pub fn read_nodes(
    root: &SysRoot,
    present: &[u32],
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<Node>>, SysError> {
    let Some(ids) = online_node_ids(root, warnings)? else {
        return Ok(None);
    };
    let masks = read_node_masks(root, warnings)?;
    let mut nodes = Vec::with_capacity(ids.len());
    for id in ids {
        nodes.push(read_one_node(root, id, present, &masks, warnings)?);
    }
    drop_shared_cpus(&mut nodes, warnings);
    Ok(Some(nodes))
}

/// The online node ids (the `online` list, or the nodeN directories when it is missing or
/// empty), or `None` when the kernel has no node directory.
fn online_node_ids(
    root: &SysRoot,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<u32>>, SysError> {
    if !root.try_exists(NODE_DIR)? {
        return Ok(None);
    }
    let dirs = root.list_numbered(NODE_DIR, "node")?;
    let ids = match read_list_opt(root, format!("{NODE_DIR}/online"))? {
        Some(online) if !online.is_empty() => online,
        Some(_) if !dirs.is_empty() => {
            warnings.push(format!(
                "{} is empty although the snapshot has node directories; every nodeN directory is taken as an online node",
                shown(format!("{NODE_DIR}/online"))
            ));
            dirs.clone()
        }
        _ => dirs.clone(),
    };
    let ids =
        crate::topology::domain::node_ids(ids, &shown(format!("{NODE_DIR}/online")), warnings);
    if ids.is_empty() {
        return Err(malformed(
            root,
            NODE_DIR,
            "it holds no nodeN directory and no online list",
        ));
    }
    Ok(Some(ids))
}

/// The kernel's has_cpu and has_memory node masks, each `None` where missing or malformed.
struct NodeMasks {
    /// The nodes with CPUs, per the kernel.
    has_cpu: Option<Vec<u32>>,
    /// The nodes with memory, per the kernel.
    has_memory: Option<Vec<u32>>,
}

/// Reads the kernel's masks; they are optional: malformed, the node's own CPUs and MemTotal
/// decide.
fn read_node_masks(root: &SysRoot, warnings: &mut Vec<String>) -> Result<NodeMasks, SysError> {
    let has_cpu = read_list_opt(root, format!("{NODE_DIR}/has_cpu"));
    let then = "which nodes have CPUs is taken from their cpulists";
    let has_cpu = degrade(root, has_cpu, warnings, then)?.flatten();
    let has_memory = match read_list_opt(root, format!("{NODE_DIR}/has_memory")) {
        Ok(Some(m)) => Ok(Some(m)),
        // Kernels before 2.6.36 had only has_normal_memory (and has_high_memory on 32-bit).
        Ok(None) => read_list_opt(root, format!("{NODE_DIR}/has_normal_memory")),
        Err(e) => Err(e),
    };
    let then = "which nodes have memory is taken from their MemTotal";
    let has_memory = degrade(root, has_memory, warnings, then)?.flatten();
    Ok(NodeMasks {
        has_cpu,
        has_memory,
    })
}

/// Reads one online node: its present CPUs, memory figures and huge page pools.
fn read_one_node(
    root: &SysRoot,
    id: u32,
    present: &[u32],
    masks: &NodeMasks,
    warnings: &mut Vec<String>,
) -> Result<Node, SysError> {
    let dir = format!("{NODE_DIR}/node{id}");
    let cpus = read_node_cpus(root, id, &dir, present, warnings)?;
    let meminfo = read_node_meminfo(root, id, &format!("{dir}/meminfo"), warnings);
    let (total, free, available) = degrade(
        root,
        meminfo,
        warnings,
        "the node's memory size and free memory are unknown (shown as 0)",
    )?
    .unwrap_or((0, 0, 0));
    let hugepages = degrade(
        root,
        read_hugepages(root, &format!("{dir}/hugepages")),
        warnings,
        "the node's huge page pools are unknown",
    )?
    .unwrap_or_default();
    Ok(Node {
        id,
        has_cpu: match &masks.has_cpu {
            Some(m) => m.contains(&id),
            None => !cpus.is_empty(),
        },
        has_memory: match &masks.has_memory {
            Some(m) => m.contains(&id),
            None => total > 0,
        },
        cpus,
        memory_total_bytes: total,
        memory_free_bytes: free,
        memory_available_bytes: available,
        hugepages,
    })
}

/// The node's CPUs from its cpulist (or the hex `cpumap` of old kernels), keeping only the
/// present ones, with a warning naming the others.
fn read_node_cpus(
    root: &SysRoot,
    id: u32,
    dir: &str,
    present: &[u32],
    warnings: &mut Vec<String>,
) -> Result<Vec<u32>, SysError> {
    // Old kernels (and some of hwloc's recorded snapshots) have only the hex `cpumap`.
    let cpus = match read_list_opt(root, format!("{dir}/cpulist"))? {
        Some(c) => Some(c),
        None => read_mask_opt(root, format!("{dir}/cpumap"))?,
    };
    let cpus = cpus.ok_or_else(|| {
        missing(
            root,
            format!("{dir}/cpulist"),
            "the node is online, so the snapshot is incomplete; capture it again with `numascope capture`",
        )
    })?;
    let (cpus, absent): (Vec<u32>, Vec<u32>) = cpus.into_iter().partition(|c| present.contains(c));
    if !absent.is_empty() {
        warnings.push(format!(
            "{} lists CPUs {} that are not present (the machine has CPUs {}); they are left out of node {id}",
            shown(format!("{dir}/cpulist")),
            short_list(&absent),
            short_list(present)
        ));
    }
    Ok(cpus)
}

/// A CPU is local to one node. Firmware that lists a CPU in several nodes (hwloc's recorded
/// `8em64t-2s2ca2c-buggynuma` has 8 nodes each listing every CPU) gives NUMA information
/// that cannot be true. hwloc's Linux backend calls such cpusets a buggy BIOS and ignores
/// every node whose cpuset intersects an earlier node's; numascope keeps the kernel's nodes
/// (their memory is real and can be bound to) but counts each CPU in the first node that
/// lists it, and says so, so no planner counts a CPU twice.
fn drop_shared_cpus(nodes: &mut [Node], warnings: &mut Vec<String>) {
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for node in nodes.iter_mut() {
        let (dup, own): (Vec<u32>, Vec<u32>) = node
            .cpus
            .iter()
            .partition(|c| seen.iter().any(|(s, _)| s == *c));
        if !dup.is_empty() {
            let mut first: Vec<u32> = seen
                .iter()
                .filter(|(c, _)| dup.contains(c))
                .map(|(_, n)| *n)
                .collect();
            first.sort_unstable();
            first.dedup();
            let first: Vec<String> = first.iter().map(|n| n.to_string()).collect();
            warnings.push(format!(
                "{} lists CPUs {} that node {} lists too: a CPU is in more than one node, so the \
                 firmware's NUMA information is contradictory (hwloc ignores such nodes); they \
                 are counted in the first node only",
                shown(format!("{NODE_DIR}/node{}/cpulist", node.id)),
                short_list(&dup),
                first.join(", ")
            ));
            node.has_cpu = !own.is_empty();
        }
        seen.extend(own.iter().map(|c| (*c, node.id)));
        node.cpus = own;
    }
}

/// The single node of a kernel without NUMA: every present CPU, `/proc/meminfo`'s memory and
/// the global huge page pools. Without `/proc/meminfo` the memory is unknown (0), with a
/// warning.
pub fn single_node(
    root: &SysRoot,
    cpus: &[u32],
    warnings: &mut Vec<String>,
) -> Result<Node, SysError> {
    let rel = "proc/meminfo";
    let (total, free, available) = match root.read_opt(rel)? {
        Some(text) => {
            let parsed = parse_meminfo(root, rel, &text, None, warnings);
            degrade(
                root,
                parsed,
                warnings,
                "the memory size of this machine is unknown (shown as 0)",
            )?
            .unwrap_or((0, 0, 0))
        }
        None => {
            warnings.push(format!(
                "{} is missing, so the memory size of this machine (a kernel without NUMA nodes) is unknown and shown as 0",
                shown(rel)
            ));
            (0, 0, 0)
        }
    };
    Ok(Node {
        id: 0,
        cpus: cpus.to_vec(),
        memory_total_bytes: total,
        memory_free_bytes: free,
        memory_available_bytes: available,
        has_cpu: !cpus.is_empty(),
        has_memory: total > 0,
        hugepages: degrade(
            root,
            read_hugepages(root, "sys/kernel/mm/hugepages"),
            warnings,
            "the huge page pools are unknown",
        )?
        .unwrap_or_default(),
    })
}

/// At most this many ids are written out in a warning; the rest are counted.
const SHOWN_IDS: usize = 8;

/// A cpulist for a warning, cut after a few ranges.
fn short_list(ids: &[u32]) -> String {
    let full = format_list(ids);
    let parts: Vec<&str> = full.split(',').collect();
    if parts.len() <= SHOWN_IDS {
        full
    } else {
        format!(
            "{},... ({} in all)",
            parts[..SHOWN_IDS].join(","),
            ids.len()
        )
    }
}

/// Reads `hugepages-<size>kB/{nr_hugepages,free_hugepages}` under `dir`; absent gives none.
fn read_hugepages(root: &SysRoot, dir: &str) -> Result<Vec<HugePages>, SysError> {
    let mut out = Vec::new();
    for name in root.list_prefixed(dir, "hugepages-")? {
        let Some(kb) = name
            .strip_prefix("hugepages-")
            .and_then(|s| s.strip_suffix("kB"))
            .and_then(|s| s.parse::<u64>().ok())
        else {
            continue;
        };
        let total = root.read_u64_opt(format!("{dir}/{name}/nr_hugepages"))?;
        let free = root.read_u64_opt(format!("{dir}/{name}/free_hugepages"))?;
        if let (Some(total), Some(free)) = (total, free) {
            out.push(HugePages {
                page_size_bytes: kb * 1024,
                total,
                free,
            });
        }
    }
    out.sort_by_key(|h| h.page_size_bytes);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn meminfo_lines_are_checked() {
        let (_d, r) = test_root(&[
            ("sys/devices/system/node/online", "0\n"),
            ("sys/devices/system/node/node0/cpulist", "0-1\n"),
            (
                "sys/devices/system/node/node0/meminfo",
                "Node 0 MemTotal:  1024 kB\nNode 0 MemFree: 512 kB\nNode 0 Active: 3 kB\n",
            ),
        ]);
        let n = read_nodes(&r, &[0, 1], &mut Vec::new()).unwrap().unwrap();
        assert_eq!(n[0].memory_total_bytes, 1024 * 1024);
        assert_eq!(n[0].memory_free_bytes, 512 * 1024);
        assert!(n[0].has_cpu && n[0].has_memory);

        let (_d, r) = test_root(&[
            ("sys/devices/system/node/online", "0\n"),
            ("sys/devices/system/node/node0/cpulist", "0-1\n"),
            (
                "sys/devices/system/node/node0/meminfo",
                "Node 0 MemTotal:  lots kB\nNode 0 MemFree: 512 kB\n",
            ),
        ]);
        // A malformed line leaves the node's memory unknown with a warning naming the file
        // and the line; the node itself is still read.
        let mut w = Vec::new();
        let n = read_nodes(&r, &[0, 1], &mut w).unwrap().unwrap();
        assert_eq!(
            (n[0].memory_total_bytes, n[0].cpus.clone()),
            (0, vec![0, 1])
        );
        assert!(
            w.iter()
                .any(|e| e.contains("node0/meminfo is malformed") && e.contains("line 1")),
            "{w:?}"
        );
    }

    #[test]
    fn contradictory_or_missing_memory_figures_are_unknown_with_a_warning() {
        let node = |meminfo: &str| {
            let (_d, r) = test_root(&[
                ("sys/devices/system/node/online", "0\n"),
                ("sys/devices/system/node/node0/cpulist", "0-3\n"),
                ("sys/devices/system/node/node0/meminfo", meminfo),
            ]);
            let mut w = Vec::new();
            let n = read_nodes(&r, &[0, 1], &mut w).unwrap().unwrap();
            (n[0].clone(), w)
        };
        let (n, w) = node("Node 0 MemFree: 512 kB\n");
        assert_eq!((n.memory_total_bytes, n.memory_free_bytes), (0, 0));
        assert!(w.iter().any(|w| w.contains("no MemTotal")), "{w:?}");
        assert!(
            w.iter().any(|w| w.contains("node0/cpulist lists CPUs 2-3")),
            "{w:?}"
        );
        assert_eq!(n.cpus, vec![0, 1]);
        let (n, w) = node("Node 0 MemTotal: 1024 kB\nNode 0 MemFree: 2048 kB\n");
        assert_eq!((n.memory_total_bytes, n.memory_free_bytes), (1 << 20, 0));
        assert!(w.iter().any(|w| w.contains("above MemTotal")), "{w:?}");
    }
}
