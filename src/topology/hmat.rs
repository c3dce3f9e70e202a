//! HMAT (ACPI Heterogeneous Memory Attribute Table) data the kernel exposes per memory node:
//! `nodeN/access0|access1/initiators/` holds the best initiator nodes (as `nodeX` entries) and
//! their read/write latency (ns) and bandwidth (MB/s), and `nodeN/memory_side_cache/indexK`
//! describes memory-side caches. All of it is firmware-declared and optional.

use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::NODE_DIR;
use crate::topology::model::{HmatTarget, MemorySideCache, Node};

/// HMAT access attributes of every node that has them, by node then access class.
pub fn read_hmat(root: &SysRoot, nodes: &[Node]) -> Result<Vec<HmatTarget>, SysError> {
    let mut out = Vec::new();
    for n in nodes {
        let node_dir = format!("{NODE_DIR}/node{}", n.id);
        for class in root.list_numbered(&node_dir, "access")? {
            let d = format!("{node_dir}/access{class}/initiators");
            let initiators = root.list_numbered(&d, "node")?;
            let read_latency_ns = root.read_u64_opt(format!("{d}/read_latency"))?;
            let write_latency_ns = root.read_u64_opt(format!("{d}/write_latency"))?;
            let read_bandwidth_mb_s = root.read_u64_opt(format!("{d}/read_bandwidth"))?;
            let write_bandwidth_mb_s = root.read_u64_opt(format!("{d}/write_bandwidth"))?;
            if initiators.is_empty()
                && read_latency_ns.is_none()
                && write_latency_ns.is_none()
                && read_bandwidth_mb_s.is_none()
                && write_bandwidth_mb_s.is_none()
            {
                continue;
            }
            out.push(HmatTarget {
                node: n.id,
                access_class: class,
                initiators,
                read_latency_ns,
                write_latency_ns,
                read_bandwidth_mb_s,
                write_bandwidth_mb_s,
            });
        }
    }
    Ok(out)
}

/// Memory-side caches of every node that declares them.
pub fn read_memory_side_caches(
    root: &SysRoot,
    nodes: &[Node],
) -> Result<Vec<MemorySideCache>, SysError> {
    let mut out = Vec::new();
    for n in nodes {
        let d = format!("{NODE_DIR}/node{}/memory_side_cache", n.id);
        for idx in root.list_numbered(&d, "index")? {
            let i = format!("{d}/index{idx}");
            let Some(size_bytes) = root.read_u64_opt(format!("{i}/size"))? else {
                continue;
            };
            out.push(MemorySideCache {
                node: n.id,
                level: idx,
                size_bytes,
                line_bytes: root.read_u64_opt(format!("{i}/line_size"))?,
                indexing: root.read_u64_opt(format!("{i}/indexing"))?,
                write_policy: root.read_u64_opt(format!("{i}/write_policy"))?,
            });
        }
    }
    Ok(out)
}
