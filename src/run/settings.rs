//! The typed settings of every part of a run: what the plan fixed (sizes, samples, modes,
//! page sizes, kernels, cells, CPUs, timings) and the part runners turn into each
//! experiment's `Config`. Plain data: no strings to parse again, nothing that measures.

use crate::bandwidth::descriptor::KernelId;
use crate::latency::chase::Mode;
use crate::placement::PageSize;
use crate::results::plan::Plan;

/// Latency sweep settings.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencySettings {
    pub points_per_octave: u32,
    pub from_bytes: u64,
    pub to_bytes: u64,
    pub samples: usize,
    pub warmup: usize,
    pub min_sample_ns: u64,
    /// Walk modes.
    pub modes: Vec<Mode>,
    /// Page backings.
    pub pages: Vec<PageSize>,
}

/// Node x node matrix settings (latency or bandwidth).
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixSettings {
    /// (initiator node, memory node) cells to measure.
    pub cells: Vec<(u32, u32)>,
    /// Cells the machine has in all.
    pub all_cells: usize,
    pub size_bytes: u64,
}

/// Timed bandwidth runs.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedSettings {
    pub duration_ms: u64,
    pub repetitions: usize,
}

/// Bandwidth kernels over all usable CPUs.
#[derive(Clone, Debug, PartialEq)]
pub struct BandwidthSettings {
    pub kernels: Vec<KernelId>,
    pub timed: TimedSettings,
    /// Bytes per thread (each array).
    pub bytes_per_thread: u64,
}

/// Bandwidth versus thread count, per initiator node.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingSettings {
    pub thread_counts: Vec<usize>,
    pub nodes: Vec<u32>,
    pub timed: TimedSettings,
}

/// Loaded latency.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSettings {
    /// Delay steps of the load threads, from none to large.
    pub delays: usize,
    pub timed: TimedSettings,
}

/// Core to core: the CPUs whose ordered pairs are all measured.
#[derive(Clone, Debug, PartialEq)]
pub struct C2cSettings {
    pub cpus: Vec<u32>,
    /// Usable CPUs in all.
    pub all_cpus: usize,
    /// Kept repetitions per pair and the length of each, milliseconds.
    pub repetitions: usize,
    pub repetition_ms: u64,
}

impl C2cSettings {
    /// Ordered pairs measured.
    pub fn pairs(&self) -> usize {
        self.cpus.len() * self.cpus.len().saturating_sub(1)
    }
}

/// Policy scenarios and the advisor's checks.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioSettings {
    pub timed: TimedSettings,
    /// Total bytes over all threads of one row (each thread gets its share).
    pub total_bytes: u64,
}

/// Every part's settings; the plan says which parts run.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub latency: LatencySettings,
    pub latency_matrix: MatrixSettings,
    pub bandwidth: BandwidthSettings,
    pub bandwidth_matrix: MatrixSettings,
    pub scaling: ScalingSettings,
    pub loaded: LoadedSettings,
    pub c2c: C2cSettings,
    pub scenarios: ScenarioSettings,
}

/// The plan and the settings it was made from.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    pub plan: Plan,
    pub settings: Settings,
}
