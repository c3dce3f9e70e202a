//! The platform part of the environment record: which hypervisor the machine runs
//! under and how it was known, the cgroup version and the process's CPU limits (cpuset and
//! cpu.max), the kernel's weighted-interleave mode and weights. A plain serde type; reading it
//! is `crate::environment::platform`. Memory limits are recorded elsewhere in the environment.

use serde::{Deserialize, Serialize};

/// Platform facts; each `None` or empty when the kernel does not expose it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// The hypervisor's name (`KVM`, `Microsoft Hyper-V`, `VMware`, `Xen`, `QEMU TCG`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypervisor_vendor: Option<String>,
    /// Where the name comes from: `CPUID leaf 0x40000000`, a DMI file or /sys/hypervisor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypervisor_source: Option<String>,
    /// `/sys/class/dmi/id/sys_vendor` and `product_name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dmi_vendor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dmi_product: Option<String>,
    /// `2`, `1`, or `1 (hybrid)` when a v2 hierarchy is mounted beside v1 controllers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_version: Option<String>,
    /// The process's cgroup (the cpuset controller's on v1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_path: Option<String>,
    /// The cgroup's effective cpuset (`cpuset.cpus.effective`; v1 `cpuset.effective_cpus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpuset_cpus: Option<Vec<u32>>,
    /// The cgroup's effective memory nodes (`cpuset.mems.effective`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpuset_mems: Option<Vec<u32>>,
    /// The CPU bandwidth limit (`cpu.max`; v1 `cpu.cfs_quota_us`/`cpu.cfs_period_us`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_max: Option<CpuMax>,
    /// Weighted interleave's `auto` mode (Linux 6.16: weights derived from HMAT bandwidth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weighted_interleave_auto: Option<bool>,
    /// The current weighted-interleave weights, one per node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weighted_interleave_weights: Vec<NodeWeight>,
}

/// A CPU bandwidth limit: `quota_us` of CPU time per `period_us`; no quota means no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuMax {
    pub quota_us: Option<u64>,
    pub period_us: u64,
}

impl CpuMax {
    /// The limit in CPUs (quota / period), `None` when unlimited.
    pub fn cpus(&self) -> Option<f64> {
        let q = self.quota_us?;
        (self.period_us > 0).then(|| q as f64 / self.period_us as f64)
    }
}

/// One node's weighted-interleave weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeWeight {
    pub node: u32,
    pub weight: u32,
}

impl Platform {
    /// True when nothing is known (kept out of the JSON).
    pub fn is_empty(&self) -> bool {
        self == &Platform::default()
    }
}
