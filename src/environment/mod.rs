//! The environment that changes memory results (docs/METHODOLOGY.md, "The environment recorded"):
//! kernel, CPU model, hypervisor, THP, automatic NUMA balancing, frequency governor, SMT, base page
//! size, and the kernel's tiering (demotion, promotion limit, memory tiers, DAMON: `tiering`). It
//! is recorded with every result so a number can always be read in its context.

use crate::results::environment::Environment;

pub mod damon;
mod limits;
pub mod platform;
pub mod tiering;
pub use limits::read_memory_limits;

use crate::results::topology::Cpu;
use crate::sysroot::warn::degrade;
use crate::sysroot::{SysError, SysRoot};

/// Reads the environment through `root`. `cpus` (already read) picks the CPU whose cpufreq
/// governor is reported and gives SMT when `smt/active` is absent. Absent files give absent
/// fields; a THP file without a bracketed choice is malformed.
pub fn read_environment(root: &SysRoot, cpus: &[Cpu]) -> Result<Environment, SysError> {
    read_environment_warn(root, cpus, &mut Vec::new())
}

/// [`read_environment`], with a malformed optional file (a THP choice file without a
/// bracketed choice) left unknown and named in `warnings` instead of refused.
pub fn read_environment_warn(
    root: &SysRoot,
    cpus: &[Cpu],
    warnings: &mut Vec<String>,
) -> Result<Environment, SysError> {
    let cpuinfo = root.read_opt("proc/cpuinfo")?.unwrap_or_default();
    let field = |name: &str| -> Option<String> {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let flags = field("flags").unwrap_or_default();
    let hypervisor_type = root
        .read_trimmed_opt("sys/hypervisor/type")?
        .filter(|s| !s.is_empty());
    let hypervisor =
        flags.split_whitespace().any(|f| f == "hypervisor") || hypervisor_type.is_some();
    let cpu_model = field("model name")
        .or_else(|| field("Hardware"))
        .or_else(|| field("CPU part").map(|p| format!("CPU part {p}")));
    let arch = arch_of(&cpuinfo, &flags, root.is_live());
    let thp = read_thp(root, warnings)?;
    // A mode no kernel writes (numa_balancing 7) is refused with a warning, never shown as
    // the machine's setting.
    let numa_balancing = root
        .read_u64_opt("proc/sys/kernel/numa_balancing")?
        .and_then(|v| {
            in_domain(
                v,
                v <= 3,
                "/proc/sys/kernel/numa_balancing",
                "its modes are 0 to 3",
                "whether automatic NUMA balancing is on is left unknown",
                warnings,
            )
        })
        .map(|v| v as u32);
    let cpufreq_governor = first_governor(root, cpus)?;
    let smt_active = smt_active(root, cpus)?;
    // Available when the per-node weight files exist (Linux >= 6.9). Listing the files, not
    // just the directory, makes `capture` copy them: an empty directory would not survive
    // a git checkout of a captured fixture.
    let weighted_interleave_available = !root
        .list_numbered("sys/kernel/mm/mempolicy/weighted_interleave", "node")?
        .is_empty();
    let page_size_bytes = page_size(root, &arch)?;
    let memory_limits = read_memory_limits(root)?;
    Ok(Environment {
        kernel_release: root
            .read_trimmed_opt("proc/sys/kernel/osrelease")?
            .filter(|s| !s.is_empty()),
        cpu_model,
        hypervisor,
        hypervisor_type,
        thp_enabled: thp.enabled,
        thp_defrag: thp.defrag,
        numa_balancing,
        cpufreq_governor,
        smt_active,
        page_size_bytes,
        thp_page_size_bytes: thp.page_size_bytes,
        weighted_interleave_available,
        arch,
        memory_limits,
        platform: crate::environment::platform::read_platform(root, warnings)?,
        tiering: tiering::read_tiering(root, warnings)?,
    })
}

/// The transparent huge page settings, each unknown (with a warning) where malformed.
struct Thp {
    /// The selected word of `enabled`.
    enabled: Option<String>,
    /// The selected word of `defrag`.
    defrag: Option<String>,
    /// `hpage_pmd_size`, where plausible.
    page_size_bytes: Option<u64>,
}

/// Reads the THP choice files and page size; a value no kernel writes (a THP page of 0
/// bytes) is refused with a warning, never shown as the machine's setting.
fn read_thp(root: &SysRoot, warnings: &mut Vec<String>) -> Result<Thp, SysError> {
    let thp = "sys/kernel/mm/transparent_hugepage";
    let unknown = "that THP setting is unknown";
    let thp_enabled = bracketed(root, &format!("{thp}/enabled"));
    let thp_enabled = degrade(root, thp_enabled, warnings, unknown)?.flatten();
    let thp_defrag = bracketed(root, &format!("{thp}/defrag"));
    let thp_defrag = degrade(root, thp_defrag, warnings, unknown)?.flatten();
    let thp_page_size_bytes = root
        .read_u64_opt(format!("{thp}/hpage_pmd_size"))?
        .and_then(|b| {
            in_domain(
                b,
                thp_page_ok(b),
                &format!("/{thp}/hpage_pmd_size"),
                "a THP page is a power of two from 64 KiB to 1 GiB",
                "the THP page size is left unknown",
                warnings,
            )
        });
    Ok(Thp {
        enabled: thp_enabled,
        defrag: thp_defrag,
        page_size_bytes: thp_page_size_bytes,
    })
}

/// The cpufreq governor of the first online CPU that has one.
fn first_governor(root: &SysRoot, cpus: &[Cpu]) -> Result<Option<String>, SysError> {
    for c in cpus.iter().filter(|c| c.online) {
        let g = root.read_trimmed_opt(format!(
            "sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor",
            c.id
        ))?;
        if g.is_some() {
            return Ok(g);
        }
    }
    Ok(None)
}

/// Whether SMT is active: the kernel's `smt/active`, else whether an online CPU has a
/// sibling; unknown without online CPUs.
fn smt_active(root: &SysRoot, cpus: &[Cpu]) -> Result<Option<bool>, SysError> {
    Ok(
        match root.read_u64_opt("sys/devices/system/cpu/smt/active")? {
            Some(v) => Some(v != 0),
            None if cpus.iter().any(|c| c.online) => {
                Some(cpus.iter().any(|c| c.online && c.siblings.len() > 1))
            }
            None => None,
        },
    )
}

/// The selected word of a sysfs choice file such as `always [madvise] never`.
fn bracketed(root: &SysRoot, rel: &str) -> Result<Option<String>, SysError> {
    let Some(text) = root.read_opt(rel)? else {
        return Ok(None);
    };
    let chosen = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')));
    match chosen {
        Some(w) => Ok(Some(w.to_string())),
        None => Err(SysError::Malformed {
            path: root.path(rel),
            why: format!(
                "no choice is marked with [brackets] in `{}`",
                crate::sys::safe_read::excerpt(&text)
            ),
        }),
    }
}

/// The architecture: the running binary's when live; for a snapshot, what its cpuinfo says
/// (x86 `flags` with `lm` is x86_64, Arm `CPU implementer` is aarch64), else ours.
fn arch_of(cpuinfo: &str, flags: &str, live: bool) -> String {
    if live {
        return std::env::consts::ARCH.to_string();
    }
    if flags.split_whitespace().any(|f| f == "lm") {
        "x86_64".into()
    } else if !flags.is_empty() {
        "x86".into()
    } else if cpuinfo.contains("CPU implementer") {
        "aarch64".into()
    } else {
        std::env::consts::ARCH.to_string()
    }
}

/// The base page size. It is read from the `AT_PAGESZ` entry of `/proc/self/auxv` (the auxiliary
/// vector the kernel hands every process; captured snapshots keep the capturing process's
/// copy), which needs no unsafe `sysconf` call. When auxv is absent (hand-made snapshots) the
/// architecture's usual base page, 4096 bytes on x86 and aarch64 default kernels, is assumed:
/// it is an assumption, not a reading, for snapshots without auxv.
fn page_size(root: &SysRoot, arch: &str) -> Result<u64, SysError> {
    const AT_PAGESZ: u64 = 6;
    let native64 = cfg!(target_pointer_width = "64") && (arch == std::env::consts::ARCH);
    if native64 {
        if let Some(bytes) = root.read_bytes_opt("proc/self/auxv")? {
            for pair in bytes.chunks_exact(16) {
                let key = u64::from_ne_bytes(pair[..8].try_into().unwrap_or([0; 8]));
                let val = u64::from_ne_bytes(pair[8..].try_into().unwrap_or([0; 8]));
                if key == AT_PAGESZ && val.is_power_of_two() {
                    return Ok(val);
                }
                if key == 0 {
                    break;
                }
            }
        }
    }
    Ok(4096)
}

/// A THP (PMD) page size a kernel can have: a power of two from 64 KiB to 1 GiB (arm64 with
/// 64 KiB base pages has 512 MiB).
fn thp_page_ok(bytes: u64) -> bool {
    bytes.is_power_of_two() && ((64 << 10)..=(1 << 30)).contains(&bytes)
}

/// `value` when `ok`, else `None` and the warning `FILE gives VALUE, which no machine has
/// (WHY); THEN`.
fn in_domain(
    value: u64,
    ok: bool,
    file: &str,
    why: &str,
    then: &str,
    warnings: &mut Vec<String>,
) -> Option<u64> {
    if !ok {
        warnings.push(format!(
            "{file} gives {value}, which no machine has ({why}); {then}"
        ));
    }
    ok.then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root_bytes;

    #[test]
    fn reads_choices_flags_and_auxv_page_size() {
        let mut auxv = Vec::new();
        for (k, v) in [(33u64, 7u64), (6, 16384), (0, 0)] {
            auxv.extend_from_slice(&k.to_ne_bytes());
            auxv.extend_from_slice(&v.to_ne_bytes());
        }
        let (_d, root) = test_root_bytes(&[
            (
                "proc/cpuinfo",
                b"processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: fpu lm hypervisor\n",
            ),
            ("proc/sys/kernel/osrelease", b"6.1.0-test\n"),
            ("proc/sys/kernel/numa_balancing", b"2\n"),
            (
                "sys/kernel/mm/transparent_hugepage/enabled",
                b"[always] madvise never\n",
            ),
            (
                "sys/kernel/mm/transparent_hugepage/defrag",
                b"always defer [defer+madvise] madvise never\n",
            ),
            ("sys/kernel/mm/mempolicy/weighted_interleave/node0", b"1\n"),
            ("proc/self/auxv", &auxv),
        ]);
        let e = read_environment(&root, &[]).unwrap();
        assert_eq!(e.cpu_model.as_deref(), Some("Test CPU"));
        assert!(e.hypervisor);
        assert_eq!(e.arch, "x86_64");
        assert_eq!(e.thp_enabled.as_deref(), Some("always"));
        assert_eq!(e.thp_defrag.as_deref(), Some("defer+madvise"));
        assert_eq!(e.numa_balancing, Some(2));
        assert_eq!(e.kernel_release.as_deref(), Some("6.1.0-test"));
        assert!(e.weighted_interleave_available);
        if std::env::consts::ARCH == "x86_64" {
            assert_eq!(e.page_size_bytes, 16384, "AT_PAGESZ from auxv");
        }
        assert_eq!(e.smt_active, None);
    }

    #[test]
    fn absent_files_are_absent_and_bad_choice_is_named() {
        let (_d, root) = test_root_bytes(&[]);
        let e = read_environment(&root, &[]).unwrap();
        assert_eq!(e.thp_enabled, None);
        assert_eq!(e.page_size_bytes, 4096);
        assert!(!e.hypervisor && !e.weighted_interleave_available);
        let (_d, root) =
            test_root_bytes(&[("sys/kernel/mm/transparent_hugepage/enabled", b"always\n")]);
        let mut w = Vec::new();
        let e = read_environment_warn(&root, &[], &mut w).unwrap();
        assert_eq!(e.thp_enabled, None, "unknown, not refused");
        assert!(
            w.len() == 1 && w[0].contains("transparent_hugepage/enabled is malformed"),
            "{w:?}"
        );
    }
}
