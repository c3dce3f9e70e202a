//! Logical CPUs from `/sys/devices/system/cpu`: which are present and online, and for online
//! ones the package, core and SMT siblings of `cpuN/topology`. Offline CPUs have no topology
//! to read; they are listed with those fields absent. The node of each CPU comes from the
//! nodes' cpulists (the `cpuN/nodeM` link is only a fallback). The allowed flag is filled by
//! [`crate::topology::allowed`].

use crate::results::format::format_list;
use crate::results::topology::{Cpu, Node};
use crate::sys::safe_read::excerpt;
use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{
    degrade, missing, read_id_opt, read_list_opt, read_mask_opt, shown, CPU_DIR,
};

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

/// Reads every present CPU. `nodes` maps CPUs to nodes; `allowed` is left false. An empty
/// `cpu/online` list (a corrupt snapshot: a running machine has at least one CPU online) or
/// a per-CPU `online` flag that is not 0 or 1 gives a warning in `warnings`, and the CPU is
/// then taken as online, as the kernel's own default is.
pub fn read_cpus(
    root: &SysRoot,
    present: &[u32],
    nodes: &[Node],
    warnings: &mut Vec<String>,
) -> Result<Vec<Cpu>, SysError> {
    let online = global_online_list(root, present, warnings)?;
    let mut out = Vec::with_capacity(present.len());
    // CPUs whose own `online` flag is neither 0 nor 1, with what it held: one warning for all.
    let mut bad_flags: Vec<(u32, String)> = Vec::new();
    for &id in present {
        // Without the global list, each CPU's own `online` flag decides (cpu0 often has none:
        // it cannot be taken offline).
        let is_online = match &online {
            Some(o) => o.contains(&id),
            None => cpu_online_flag(root, id, &mut bad_flags)?,
        };
        let CpuPlace {
            package,
            core,
            siblings,
        } = if is_online {
            cpu_place(root, id, warnings)?
        } else {
            CpuPlace {
                package: None,
                core: None,
                siblings: Vec::new(),
            }
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
    warn_bad_online_flags(&bad_flags, warnings);
    Ok(out)
}

/// The global `cpu/online` list; `None` when absent (some old kernels and recorded
/// snapshots) or empty although CPUs are present (with a warning).
fn global_online_list(
    root: &SysRoot,
    present: &[u32],
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<u32>>, SysError> {
    let online_rel = format!("{CPU_DIR}/online");
    Ok(match read_list_opt(root, &online_rel)? {
        Some(o) if o.is_empty() && !present.is_empty() => {
            warnings.push(format!(
                "{} is empty although {} CPUs are present; each CPU's own online flag is used instead",
                shown(&online_rel),
                present.len()
            ));
            None
        }
        o => o,
    })
}

/// An online CPU's package, core and SMT siblings. They are optional facts: a malformed file
/// leaves that one unknown with a warning (siblings then just the CPU itself).
fn cpu_place(root: &SysRoot, id: u32, warnings: &mut Vec<String>) -> Result<CpuPlace, SysError> {
    let topo = format!("{CPU_DIR}/cpu{id}/topology");
    let package = read_id_opt(root, format!("{topo}/physical_package_id"));
    let package = degrade(
        root,
        package,
        warnings,
        &format!("cpu{id}'s package is unknown"),
    )?
    .flatten();
    let core = read_id_opt(root, format!("{topo}/core_id"));
    let core = degrade(root, core, warnings, &format!("cpu{id}'s core is unknown"))?.flatten();
    let siblings = match read_list_opt(root, format!("{topo}/thread_siblings_list")) {
        Ok(Some(s)) => Ok(Some(s)),
        Ok(None) => read_mask_opt(root, format!("{topo}/thread_siblings")),
        Err(e) => Err(e),
    };
    let siblings = degrade(
        root,
        siblings,
        warnings,
        &format!("cpu{id}'s SMT siblings are unknown; it is taken as alone on its core"),
    )?
    .flatten()
    .unwrap_or_else(|| vec![id]);
    Ok(CpuPlace {
        package,
        core,
        siblings,
    })
}

/// Where an online CPU sits: its package, core and SMT siblings.
struct CpuPlace {
    /// `physical_package_id`, where readable.
    package: Option<u32>,
    /// `core_id`, where readable.
    core: Option<u32>,
    /// The thread siblings, the CPU itself included.
    siblings: Vec<u32>,
}

/// One warning for every CPU whose own `online` flag was neither 0 nor 1, naming the first
/// file and what it held.
fn warn_bad_online_flags(bad_flags: &[(u32, String)], warnings: &mut Vec<String>) {
    if let Some((first, what)) = bad_flags.first() {
        let ids: Vec<u32> = bad_flags.iter().map(|(id, _)| *id).collect();
        let rel = format!("{CPU_DIR}/cpu{first}/online");
        warnings.push(if ids.len() == 1 {
            format!("{} {what}, not 0 or 1; cpu{first} is taken as online", shown(&rel))
        } else {
            format!(
                "{} {what}, not 0 or 1, and the `online` files of CPUs {} are not 0 or 1 either; they are all taken as online",
                shown(&rel),
                format_list(&ids[1..])
            )
        });
    }
}

/// The `cpuN/online` flag: absent or `1` is online, `0` offline; anything else is taken as
/// online and noted in `bad` with what the file held.
fn cpu_online_flag(
    root: &SysRoot,
    id: u32,
    bad: &mut Vec<(u32, String)>,
) -> Result<bool, SysError> {
    let rel = format!("{CPU_DIR}/cpu{id}/online");
    Ok(match root.read_trimmed_opt(&rel)?.as_deref() {
        None | Some("1") => true,
        Some("0") => false,
        Some(other) => {
            let what = if other.is_empty() {
                "is empty".to_string()
            } else {
                format!("holds `{}`", excerpt(other))
            };
            bad.push((id, what));
            true
        }
    })
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
        let cpus = read_cpus(&root, &present, &[], &mut Vec::new()).unwrap();
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

    #[test]
    fn bad_online_flags_are_one_warning_and_taken_as_online() {
        let c = "sys/devices/system/cpu";
        let (_d, root) = test_root(&[
            (&format!("{c}/present"), "0-3\n"),
            (&format!("{c}/cpu0/online"), ""),
            (&format!("{c}/cpu1/online"), "0\n"),
            (&format!("{c}/cpu2/online"), "yes\n"),
            (&format!("{c}/cpu3/online"), "1\n"),
        ]);
        let mut w = Vec::new();
        let cpus = read_cpus(&root, &[0, 1, 2, 3], &[], &mut w).unwrap();
        let online: Vec<bool> = cpus.iter().map(|c| c.online).collect();
        assert_eq!(online, vec![true, false, true, true]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("/sys/devices/system/cpu/cpu0/online is empty")
                && w[0].contains("CPUs 2 "),
            "{w:?}"
        );
        // An empty global list is named and the per-CPU flags decide instead.
        let (_d, root) = test_root(&[(&format!("{c}/online"), "\n")]);
        let mut w = Vec::new();
        let cpus = read_cpus(&root, &[0, 1], &[], &mut w).unwrap();
        assert!(cpus.iter().all(|c| c.online));
        assert!(
            w[0].contains("cpu/online is empty although 2 CPUs"),
            "{w:?}"
        );
    }
}
