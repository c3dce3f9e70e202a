//! What the kernel did under `app --tiering`'s kernel-managed candidates: the
//! system-wide settings each candidate put in force while the program ran (and what they
//! were before: restored after every run), the `/proc/vmstat` counters that count promotion,
//! demotion and NUMA migration over each run, and the program's resident pages per node at
//! each sample of a measured run. A plain serde type; the candidates and the guard that
//! restores the settings are `crate::app::tiering`.

use serde::{Deserialize, Serialize};

/// The counters recorded around each run, in this order (absent ones are left out).
pub const VMSTAT_COUNTERS: [&str; 12] = [
    "pgpromote_success",
    "pgpromote_candidate",
    "pgdemote_kswapd",
    "pgdemote_direct",
    "pgdemote_khugepaged",
    "numa_pages_migrated",
    "numa_hint_faults",
    "numa_hint_faults_local",
    "numa_pte_updates",
    "pgmigrate_success",
    "pgmigrate_fail",
    "pgscan_kswapd",
];

/// A kernel-managed candidate's record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelManaged {
    /// What the candidate asks of the kernel, in words.
    pub mode: String,
    /// Each setting written before every run and restored after it.
    pub settings: Vec<KnobSetting>,
    /// The counters' increase over each run (system-wide: other processes count too).
    pub runs: Vec<RunCounters>,
    /// The program's resident pages per node at each sample of its first measured run.
    pub timeline: Vec<PagesSample>,
}

/// One system-wide setting.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnobSetting {
    /// The file, as `/proc/sys/kernel/numa_balancing`.
    pub file: String,
    /// Written before each run.
    pub value: String,
    /// Found there before, and written back after each run.
    pub was: String,
}

/// The counters' increase over one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCounters {
    pub round: usize,
    pub warmup: bool,
    /// `(counter, increase)` in [`VMSTAT_COUNTERS`] order.
    pub counters: Vec<(String, u64)>,
}

/// The program's pages per node at one sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagesSample {
    /// 0-based sample number (samples are at least the sampling interval apart).
    pub sample: usize,
    /// `(node, resident 4 KiB pages)`, ascending node.
    pub pages: Vec<(u32, u64)>,
}

impl KernelManaged {
    /// The total increase of `counter` over the measured (not warm-up) runs.
    pub fn measured_total(&self, counter: &str) -> u64 {
        self.runs
            .iter()
            .filter(|r| !r.warmup)
            .flat_map(|r| r.counters.iter())
            .filter(|(c, _)| c == counter)
            .map(|(_, v)| v)
            .sum()
    }
}
