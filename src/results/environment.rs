//! The environment record of every result (METHODOLOGY point 20): kernel, CPU model,
//! hypervisor, THP, automatic NUMA balancing, frequency governor, SMT, base page size. A plain
//! serde type; reading it from `/sys` and `/proc` is `crate::environment`.

use serde::{Deserialize, Serialize};

use crate::results::environment_platform::Platform;

/// Facts about the running system that change memory measurements. Each is `None` when the
/// kernel does not expose it (or the snapshot lacks it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// `/proc/sys/kernel/osrelease`.
    pub kernel_release: Option<String>,
    /// `model name` of /proc/cpuinfo (or `CPU part`/`Hardware` on Arm).
    pub cpu_model: Option<String>,
    /// True when the `hypervisor` CPU flag is set or /sys/hypervisor names one.
    pub hypervisor: bool,
    /// Hypervisor vendor when known (`/sys/hypervisor/type`).
    pub hypervisor_type: Option<String>,
    /// The selected THP mode (`always`, `madvise`, `never`), from the bracketed word.
    pub thp_enabled: Option<String>,
    /// The selected THP defrag mode.
    pub thp_defrag: Option<String>,
    /// `/proc/sys/kernel/numa_balancing` (0 off, 1 on, 2 tiering...).
    pub numa_balancing: Option<u32>,
    /// cpufreq scaling governor of the first online CPU that has one.
    pub cpufreq_governor: Option<String>,
    /// SMT active (`/sys/devices/system/cpu/smt/active`, else derived from siblings).
    pub smt_active: Option<bool>,
    /// Base page size in bytes (4096 on x86-64).
    pub page_size_bytes: u64,
    /// Transparent huge page size (`hpage_pmd_size`), bytes.
    pub thp_page_size_bytes: Option<u64>,
    /// Weighted interleave is available (the sysfs weights directory exists, Linux >= 6.9).
    pub weighted_interleave_available: bool,
    /// Machine architecture (`x86_64`, `aarch64`).
    pub arch: String,
    /// Hypervisor vendor, cgroup CPU limits, weighted-interleave mode (issue 13).
    #[serde(default, skip_serializing_if = "Platform::is_empty")]
    pub platform: Platform,
}
