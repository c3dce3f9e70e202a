//! The environment record of every result (docs/METHODOLOGY.md, "The environment recorded"):
//! kernel, CPU model, hypervisor, THP, automatic NUMA balancing, frequency governor, SMT, base page
//! size. A plain serde type; reading it from `/sys` and `/proc` is `crate::environment`.

use serde::{Deserialize, Serialize};

use crate::results::environment_platform::Platform;
use crate::results::environment_tiering::Tiering;

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
    /// `/proc/sys/kernel/numa_balancing`, a bit field: 0 off, 1 normal NUMA balancing, 2
    /// memory-tiering mode, 3 both (`environment_tiering::numa_balancing_modes`).
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
    /// Hypervisor vendor, cgroup CPU limits, weighted-interleave mode.
    #[serde(default, skip_serializing_if = "Platform::is_empty")]
    pub platform: Platform,
    /// Demotion, promotion rate limit, memory tiers and DAMON daemons.
    #[serde(default, skip_serializing_if = "Tiering::is_empty")]
    pub tiering: Tiering,
    /// Limits on this process's memory (cgroup memory.max / memory.high / v1
    /// memory.limit_in_bytes of its own cgroup and its ancestors, RLIMIT_AS), tightest first;
    /// absent from the JSON when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_limits: Vec<MemoryLimit>,
}

/// One limit on how much memory this process may have, and where it is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryLimit {
    /// What sets it: `cgroup v2 memory.max`, `cgroup v2 memory.high`, `cgroup v1
    /// memory.limit_in_bytes` or `RLIMIT_AS`.
    pub kind: String,
    /// Where it was read: the cgroup file (`/sys/fs/cgroup/...`), or "this process's resource
    /// limits (ulimit -v)" for RLIMIT_AS.
    pub source: String,
    /// The limit, bytes.
    pub limit_bytes: u64,
    /// Already in use under it when read, bytes (memory.current, memory.usage_in_bytes, or
    /// the process's VmSize for RLIMIT_AS); `None` when unknown.
    pub used_bytes: Option<u64>,
}

impl MemoryLimit {
    /// Bytes still to be had under this limit.
    pub fn left_bytes(&self) -> u64 {
        self.limit_bytes
            .saturating_sub(self.used_bytes.unwrap_or(0))
    }

    /// How to raise it, for the sentence that refuses a request.
    pub fn fix(&self) -> &'static str {
        if self.kind == "RLIMIT_AS" {
            "raise it with `ulimit -v` or `prlimit --as`"
        } else {
            "raise the cgroup's limit (systemd-run -p MemoryMax=, docker run --memory, or the file itself)"
        }
    }
}

impl Environment {
    /// The limit that leaves the least memory to this process, if any.
    pub fn tightest_memory_limit(&self) -> Option<&MemoryLimit> {
        self.memory_limits.iter().min_by_key(|l| l.left_bytes())
    }
}
