//! HMAT (ACPI Heterogeneous Memory Attribute Table) data the kernel exposes per memory node:
//! `nodeN/access0|access1/initiators/` holds the best initiator nodes (as `nodeX` entries) and
//! their read/write latency (ns) and bandwidth (MB/s), and `nodeN/memory_side_cache/indexK`
//! describes memory-side caches. All of it is firmware-declared and optional.

use crate::results::topology::{HmatTarget, MemorySideCache, Node};
use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::NODE_DIR;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn initiators_are_listed_entries_and_figures_optional() {
        let a = "sys/devices/system/node/node4/access1/initiators";
        let (d, root) = test_root(&[
            (&format!("{a}/read_latency"), "120\n"),
            (&format!("{a}/read_bandwidth"), "51200\n"),
            (
                "sys/devices/system/node/node4/memory_side_cache/index1/size",
                "1073741824\n",
            ),
        ]);
        for i in [0, 1] {
            std::fs::create_dir_all(d.path().join(format!("sys/devices/system/node/node{i}")))
                .unwrap();
            std::os::unix::fs::symlink(
                format!("../../../node{i}"),
                d.path().join(a).join(format!("node{i}")),
            )
            .unwrap();
        }
        let n = Node {
            id: 4,
            cpus: vec![],
            memory_total_bytes: 1,
            memory_free_bytes: 1,
            memory_available_bytes: 1,
            has_cpu: false,
            has_memory: true,
            hugepages: vec![],
        };
        let h = read_hmat(&root, std::slice::from_ref(&n)).unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].access_class, 1);
        assert_eq!(h[0].initiators, vec![0, 1]);
        assert_eq!(h[0].read_latency_ns, Some(120));
        assert_eq!(h[0].write_latency_ns, None);
        let m = read_memory_side_caches(&root, &[n]).unwrap();
        assert_eq!(
            (m[0].level, m[0].size_bytes, m[0].line_bytes),
            (1, 1 << 30, None)
        );
        // The links were recorded, so capture recreates them.
        let rec = root.recorded();
        assert!(
            rec.iter().any(|p| p.ends_with("initiators/node1")),
            "{rec:?}"
        );
    }
}
