//! Logical CPUs from `/sys/devices/system/cpu`: which are present and online, and for online
//! ones the package, core and SMT siblings of `cpuN/topology`. Offline CPUs have no topology
//! to read; they are listed with those fields absent. The node of each CPU comes from the
//! nodes' cpulists (the `cpuN/nodeM` link is only a fallback). The allowed flag is filled by
//! [`crate::topology::allowed`].

use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{missing, read_id_opt, read_list_opt, read_mask_opt, CPU_DIR};
use crate::topology::model::{Cpu, Node};

/// Present CPU ids: `cpu/present`, else the `cpuN` directories.
pub fn present_cpus(root: &SysRoot) -> Result<Vec<u32>, SysError> {
    if let Some(p) = read_list_opt(root, format!("{CPU_DIR}/present"))? {
        if !p.is_empty() {
            return Ok(p);
        }
    }
    let dirs = root.list_numbered(CPU_DIR, "cpu")?;
    if dirs.is_empty() {
        return Err(missing(
            root,
            format!("{CPU_DIR}/present"),
            "there is no CPU list and no cpuN directory, so the snapshot is incomplete; capture it again with `numascope capture`",
        ));
    }
    Ok(dirs)
}

/// Reads every present CPU. `nodes` maps CPUs to nodes; `allowed` is left false.
pub fn read_cpus(root: &SysRoot, present: &[u32], nodes: &[Node]) -> Result<Vec<Cpu>, SysError> {
    // `cpu/online` is absent on some old kernels and recorded snapshots.
    let online = read_list_opt(root, format!("{CPU_DIR}/online"))?;
    let mut out = Vec::with_capacity(present.len());
    for &id in present {
        // Without the global list, each CPU's own `online` flag decides (cpu0 often has none:
        // it cannot be taken offline).
        let is_online = match &online {
            Some(o) => o.contains(&id),
            None => root.read_u64_opt(format!("{CPU_DIR}/cpu{id}/online"))? != Some(0),
        };
        let topo = format!("{CPU_DIR}/cpu{id}/topology");
        let (package, core, siblings) = if is_online {
            let package = read_id_opt(root, format!("{topo}/physical_package_id"))?;
            let core = read_id_opt(root, format!("{topo}/core_id"))?;
            let siblings = match read_list_opt(root, format!("{topo}/thread_siblings_list"))? {
                Some(s) => s,
                None => read_mask_opt(root, format!("{topo}/thread_siblings"))?
                    .unwrap_or_else(|| vec![id]),
            };
            (package, core, siblings)
        } else {
            (None, None, Vec::new())
        };
        let mut node = nodes.iter().find(|n| n.cpus.contains(&id)).map(|n| n.id);
        if node.is_none() && !nodes.is_empty() {
            node = root
                .list_numbered(format!("{CPU_DIR}/cpu{id}"), "node")?
                .first()
                .copied();
        }
        out.push(Cpu {
            id,
            node,
            package,
            core,
            siblings,
            online: is_online,
            allowed: false,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn offline_cpus_and_unknown_ids() {
        let c = "sys/devices/system/cpu";
        let (_d, root) = test_root(&[
            (&format!("{c}/present"), "0-2\n"),
            (&format!("{c}/online"), "0,2\n"),
            (&format!("{c}/cpu0/topology/physical_package_id"), "-1\n"),
            (&format!("{c}/cpu0/topology/core_id"), "0\n"),
            (&format!("{c}/cpu0/topology/thread_siblings"), "00000005\n"),
            (&format!("{c}/cpu2/topology/physical_package_id"), "0\n"),
            (&format!("{c}/cpu2/topology/core_id"), "0\n"),
            (&format!("{c}/cpu2/topology/thread_siblings_list"), "0,2\n"),
        ]);
        let present = present_cpus(&root).unwrap();
        assert_eq!(present, vec![0, 1, 2]);
        let cpus = read_cpus(&root, &present, &[]).unwrap();
        assert_eq!(cpus[0].package, None, "-1 means unknown");
        assert_eq!(cpus[0].siblings, vec![0, 2], "mask fallback");
        assert!(!cpus[1].online);
        assert_eq!((cpus[1].package, cpus[1].core), (None, None));
        assert!(cpus[1].siblings.is_empty());
        assert_eq!(cpus[2].package, Some(0));
        assert_eq!(cpus[2].node, None);
    }

    #[test]
    fn present_falls_back_to_cpu_directories() {
        let c = "sys/devices/system/cpu";
        let (_d, root) = test_root(&[(&format!("{c}/cpu3/x"), ""), (&format!("{c}/cpu10/x"), "")]);
        assert_eq!(present_cpus(&root).unwrap(), vec![3, 10]);
        let (_d, root) = test_root(&[]);
        let e = present_cpus(&root).unwrap_err().to_string();
        assert!(e.contains("cpu/present is missing"), "{e}");
    }
}
