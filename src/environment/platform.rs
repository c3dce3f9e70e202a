//! Reads the platform part of the environment: the hypervisor vendor (CPUID's
//! hypervisor leaf on the running machine, else DMI, else /sys/hypervisor), the cgroup version
//! and the process's cpuset and cpu.max, and the kernel's weighted-interleave `auto` mode and
//! weights. A measurement read in a 2-CPU quota or under a hypervisor means something else,
//! so these are recorded with every result. Every file is optional: a malformed one leaves
//! its fact unknown with a warning.

use crate::results::environment_platform::{CpuMax, NodeWeight, Platform};

use crate::parse::cpulist::parse_list;
use crate::sys::safe_read::excerpt;
use crate::sysroot::warn::{degrade, shown};
use crate::sysroot::{SysError, SysRoot};

fn malformed(root: &SysRoot, rel: &str, why: String) -> SysError {
    SysError::Malformed {
        path: root.path(rel),
        why,
    }
}

/// An optional cpulist file; absent gives `None`.
fn read_list_opt(root: &SysRoot, rel: String) -> Result<Option<Vec<u32>>, SysError> {
    match root.read_opt(&rel)? {
        None => Ok(None),
        Some(t) => parse_list(&t)
            .map(Some)
            .map_err(|e| malformed(root, &rel, format!("not a CPU/node list: {e}"))),
    }
}

const DMI: &str = "sys/class/dmi/id";
const WEIGHTS: &str = "sys/kernel/mm/mempolicy/weighted_interleave";

/// Reads the platform facts through `root`. CPUID is asked only of the running machine: a
/// snapshot's hypervisor comes from its captured files.
pub fn read_platform(root: &SysRoot, warnings: &mut Vec<String>) -> Result<Platform, SysError> {
    let text = |rel: &str| -> Result<Option<String>, SysError> {
        Ok(root.read_trimmed_opt(rel)?.filter(|s| !s.is_empty()))
    };
    let dmi_vendor = text(&format!("{DMI}/sys_vendor"))?;
    let dmi_product = text(&format!("{DMI}/product_name"))?;
    let cpuid = if root.is_live() {
        crate::sys::cpu::hypervisor_signature().map(|s| vendor_of_signature(&s))
    } else {
        None
    };
    let (hypervisor_vendor, hypervisor_source) = if let Some(v) = cpuid {
        (Some(v), Some("CPUID leaf 0x40000000".to_string()))
    } else if let Some(v) = dmi_vendor
        .as_deref()
        .zip(dmi_product.as_deref())
        .and_then(|(v, p)| vendor_of_dmi(v, p))
    {
        (Some(v), Some(shown(format!("{DMI}/sys_vendor"))))
    } else if let Some(t) = text("sys/hypervisor/type")? {
        (Some(t), Some(shown("sys/hypervisor/type")))
    } else {
        (None, None)
    };
    let mut p = Platform {
        hypervisor_vendor,
        hypervisor_source,
        dmi_vendor,
        dmi_product,
        ..Platform::default()
    };
    let cg = read_cgroup(root, &mut p);
    degrade(root, cg, warnings, "the cgroup limits are unknown")?;
    let wi = read_weights(root, &mut p);
    degrade(
        root,
        wi,
        warnings,
        "the weighted-interleave weights are unknown",
    )?;
    Ok(p)
}

/// The hypervisor named by its CPUID signature (the 12 bytes each hypervisor documents).
fn vendor_of_signature(sig: &[u8; 12]) -> String {
    let known: [(&[u8], &str); 9] = [
        (b"KVMKVMKVM\0\0\0", "KVM"),
        (b"Microsoft Hv", "Microsoft Hyper-V"),
        (b"VMwareVMware", "VMware"),
        (b"XenVMMXenVMM", "Xen"),
        (b"TCGTCGTCGTCG", "QEMU TCG"),
        (b"bhyve bhyve ", "bhyve"),
        (b" lrpepyh  vr", "Parallels"),
        (b"ACRNACRNACRN", "ACRN"),
        (b"VBoxVBoxVBox", "VirtualBox"),
    ];
    known
        .iter()
        .find(|(s, _)| *s == sig.as_slice())
        .map(|(_, n)| n.to_string())
        .unwrap_or_else(|| {
            let printable: String = sig
                .iter()
                .map(|&b| {
                    if b.is_ascii_graphic() || b == b' ' {
                        b as char
                    } else {
                        '.'
                    }
                })
                .collect();
            format!(
                "unknown (CPUID signature `{}`)",
                printable.trim_end_matches('.')
            )
        })
}

/// A hypervisor recognisable from DMI's vendor and product, `None` for other vendors (bare
/// metal or a hypervisor that does not say).
fn vendor_of_dmi(vendor: &str, product: &str) -> Option<String> {
    let both = format!("{vendor} {product}");
    let known = [
        ("QEMU", "QEMU"),
        ("KVM", "KVM"),
        ("VMware", "VMware"),
        ("VirtualBox", "VirtualBox"),
        ("innotek", "VirtualBox"),
        ("Xen", "Xen"),
        ("Amazon EC2", "Amazon EC2 (Nitro/KVM)"),
        ("Google Compute Engine", "Google Compute Engine (KVM)"),
        ("Virtual Machine", "Microsoft Hyper-V"),
        ("OpenStack", "OpenStack (KVM)"),
        ("Parallels", "Parallels"),
        ("BHYVE", "bhyve"),
    ];
    known
        .iter()
        .find(|(k, _)| both.contains(k))
        .map(|(_, n)| n.to_string())
}

/// The cgroup version, the process's cgroup and its cpuset and CPU quota.
fn read_cgroup(root: &SysRoot, p: &mut Platform) -> Result<(), SysError> {
    let Some(text) = root.read_opt("proc/self/cgroup")? else {
        return Ok(());
    };
    let ProcCgroup { v2_path, v1 } = parse_proc_cgroup(root, &text)?;
    if v1.is_empty() {
        let Some(path) = v2_path else { return Ok(()) };
        read_cgroup_v2(root, path, p)
    } else {
        p.cgroup_version = Some(if v2_path.is_some() { "1 (hybrid)" } else { "1" }.into());
        read_cgroup_v1(root, &v1, p)
    }
}

/// Where the cgroup file system is mounted in the snapshot.
const CGROUP_FS: &str = "sys/fs/cgroup";

/// `/proc/self/cgroup`'s v2 path (`0::/path`) and v1 (controller, path) pairs
/// (`N:controller,controller:/path`).
fn parse_proc_cgroup(root: &SysRoot, text: &str) -> Result<ProcCgroup, SysError> {
    let mut v2_path = None;
    let mut v1: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(ctrl), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(malformed(
                root,
                "proc/self/cgroup",
                format!("line `{}` is not `id:controllers:path`", excerpt(line)),
            ));
        };
        if id == "0" && ctrl.is_empty() {
            v2_path = Some(path.to_string());
        } else {
            for c in ctrl.split(',') {
                v1.push((c.to_string(), path.to_string()));
            }
        }
    }
    Ok(ProcCgroup { v2_path, v1 })
}

/// The process's cgroups as `/proc/self/cgroup` lists them.
struct ProcCgroup {
    /// The v2 (unified) path, where the process has one.
    v2_path: Option<String>,
    /// The v1 controllers, each with its path.
    v1: Vec<(String, String)>,
}

/// A cgroup v2 process at `path`: its effective cpuset and `cpu.max`.
fn read_cgroup_v2(root: &SysRoot, path: String, p: &mut Platform) -> Result<(), SysError> {
    p.cgroup_version = Some("2".into());
    let dir = format!("{CGROUP_FS}{}", path.trim_end_matches('/'));
    p.cgroup_path = Some(path);
    p.cpuset_cpus = read_list_opt(root, format!("{dir}/cpuset.cpus.effective"))?;
    p.cpuset_mems = read_list_opt(root, format!("{dir}/cpuset.mems.effective"))?;
    let rel = format!("{dir}/cpu.max");
    if let Some(t) = root.read_trimmed_opt(&rel)? {
        let mut w = t.split_whitespace();
        let quota = w.next().unwrap_or("");
        let period = w.next().and_then(|x| x.parse::<u64>().ok());
        let quota = match quota {
            "max" => Some(None),
            q => q.parse::<u64>().ok().map(Some),
        };
        match (quota, period) {
            (Some(quota_us), Some(period_us)) => {
                p.cpu_max = Some(CpuMax {
                    quota_us,
                    period_us,
                })
            }
            _ => {
                return Err(malformed(
                    root,
                    &rel,
                    format!(
                        "expected `max 100000` or `QUOTA PERIOD`, found `{}`",
                        excerpt(&t)
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// A cgroup v1 process: the cpuset controller's effective sets and the cpu controller's CFS
/// quota, each where that controller is mounted for it.
fn read_cgroup_v1(
    root: &SysRoot,
    v1: &[(String, String)],
    p: &mut Platform,
) -> Result<(), SysError> {
    let path_of = |c: &str| v1.iter().find(|(k, _)| k == c).map(|(_, p)| p.clone());
    if let Some(path) = path_of("cpuset") {
        let dir = format!("{CGROUP_FS}/cpuset{}", path.trim_end_matches('/'));
        p.cpuset_cpus = read_list_opt(root, format!("{dir}/cpuset.effective_cpus"))?;
        p.cpuset_mems = read_list_opt(root, format!("{dir}/cpuset.effective_mems"))?;
        p.cgroup_path = Some(path);
    }
    if let Some(path) = path_of("cpu") {
        let dir = format!("{CGROUP_FS}/cpu{}", path.trim_end_matches('/'));
        let quota = root.read_trimmed_opt(format!("{dir}/cpu.cfs_quota_us"))?;
        let period = root.read_u64_opt(format!("{dir}/cpu.cfs_period_us"))?;
        if let (Some(q), Some(period_us)) = (quota, period) {
            // -1 is the v1 spelling of "no quota".
            let quota_us = q.parse::<i64>().ok().and_then(|v| u64::try_from(v).ok());
            p.cpu_max = Some(CpuMax {
                quota_us,
                period_us,
            });
        }
    }
    Ok(())
}

/// Weighted interleave's `auto` flag and per-node weights (absent before Linux 6.9/6.16).
fn read_weights(root: &SysRoot, p: &mut Platform) -> Result<(), SysError> {
    // Some kernels (seen on 6.18 here) name the file `__auto_type`: the kernel's own `auto`
    // macro replaced the attribute's name. Both spellings are read.
    let mut rel = format!("{WEIGHTS}/auto");
    let mut text = root.read_trimmed_opt(&rel)?;
    if text.is_none() {
        rel = format!("{WEIGHTS}/__auto_type");
        text = root.read_trimmed_opt(&rel)?;
    }
    p.weighted_interleave_auto = match text.as_deref() {
        None => None,
        Some(t) if ["true", "1", "y"].contains(&t.to_ascii_lowercase().as_str()) => Some(true),
        Some(t) if ["false", "0", "n"].contains(&t.to_ascii_lowercase().as_str()) => Some(false),
        Some(other) => {
            return Err(malformed(
                root,
                &rel,
                format!("expected `true` or `false`, found `{}`", excerpt(other)),
            ))
        }
    };
    for node in root.list_numbered(WEIGHTS, "node")? {
        if let Some(w) = root.read_u64_opt(format!("{WEIGHTS}/node{node}"))? {
            p.weighted_interleave_weights.push(NodeWeight {
                node,
                weight: w as u32,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn cgroup_v2_limits_weights_and_dmi() {
        let (_d, root) = test_root(&[
            ("proc/self/cgroup", "0::/user.slice/job\n"),
            (
                "sys/fs/cgroup/user.slice/job/cpuset.cpus.effective",
                "2-5\n",
            ),
            ("sys/fs/cgroup/user.slice/job/cpuset.mems.effective", "1\n"),
            ("sys/fs/cgroup/user.slice/job/cpu.max", "200000 100000\n"),
            (&format!("{WEIGHTS}/__auto_type"), "True\n"),
            (&format!("{WEIGHTS}/node0"), "3\n"),
            (&format!("{WEIGHTS}/node1"), "1\n"),
            (&format!("{DMI}/sys_vendor"), "QEMU\n"),
            (
                &format!("{DMI}/product_name"),
                "Standard PC (Q35 + ICH9, 2009)\n",
            ),
        ]);
        let mut w = Vec::new();
        let p = read_platform(&root, &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(p.cgroup_version.as_deref(), Some("2"));
        assert_eq!(p.cpuset_cpus, Some(vec![2, 3, 4, 5]));
        assert_eq!(p.cpuset_mems, Some(vec![1]));
        assert_eq!(p.cpu_max.and_then(|c| c.cpus()), Some(2.0));
        assert_eq!(p.weighted_interleave_auto, Some(true));
        assert_eq!(p.weighted_interleave_weights.len(), 2);
        assert_eq!(p.hypervisor_vendor.as_deref(), Some("QEMU"));
        assert_eq!(
            p.hypervisor_source.as_deref(),
            Some("/sys/class/dmi/id/sys_vendor")
        );
    }

    #[test]
    fn cgroup_v1_unlimited_and_bad_files_are_warnings() {
        let (_d, root) = test_root(&[
            ("proc/self/cgroup", "3:cpuset:/\n1:cpu,cpuacct:/\n0::/\n"),
            ("sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-1\n"),
            ("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n"),
            ("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"),
            (&format!("{WEIGHTS}/auto"), "maybe\n"),
        ]);
        let mut w = Vec::new();
        let p = read_platform(&root, &mut w).unwrap();
        assert_eq!(p.cgroup_version.as_deref(), Some("1 (hybrid)"));
        assert_eq!(p.cpuset_cpus, Some(vec![0, 1]));
        assert_eq!(p.cpu_max.unwrap().cpus(), None, "-1 is no quota");
        assert!(
            w.len() == 1 && w[0].contains("weighted_interleave/auto is malformed"),
            "{w:?}"
        );
        let (_d, root) = test_root(&[]);
        assert!(read_platform(&root, &mut Vec::new()).unwrap().is_empty());
    }

    #[test]
    fn signatures_are_named() {
        assert_eq!(vendor_of_signature(b"KVMKVMKVM\0\0\0"), "KVM");
        assert_eq!(vendor_of_signature(b"Microsoft Hv"), "Microsoft Hyper-V");
        assert!(vendor_of_signature(b"NewHyperv\0\0\0").contains("NewHyperv"));
    }
}
