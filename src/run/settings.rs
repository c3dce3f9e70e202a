//! The typed settings of every part of a run: what the plan fixed (sizes, samples, modes,
//! page sizes, kernels, cells, CPUs, timings) and the part runners turn into each
//! experiment's `Config`. Plain data: no strings to parse again, nothing that measures.

use crate::bandwidth::descriptor::KernelId;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::plan::Plan;
use crate::schedule::TimedSettings;

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
    /// Groups of 16 loads timed for the per-load distribution at the sweep's largest point
    /// (first mode and page size, same CPU); `None`: not measured.
    pub distribution_groups: Option<usize>,
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
    /// The load mixes, read first; more than one: one curve each, measured interleaved.
    pub mixes: Vec<crate::results::loaded::LoadKernel>,
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
    /// Interval half-width the rounds aim for, fraction of the median: extra
    /// rounds are run while a row is wider and the part's budget has time left.
    pub target_half_width: f64,
    /// Bytes of (a)'s and (b)'s single-thread latency chases: the run's DRAM latency working
    /// set (at least 16 MiB), that of the reference's local idle latency, so (a)'s latency is
    /// the same quantity as the reference's and must agree with it.
    pub latency_bytes: u64,
    /// Why weighted interleave cannot be measured here ((g), the advisor's check), if it
    /// cannot: one memory node, a kernel without it, or a process that is not root.
    pub weighted_unavailable: Option<String>,
}

/// The peak part: its runs, planned once (`None` without a node with usable CPUs), and fixed
/// timing.
#[derive(Clone, Debug, PartialEq)]
pub struct PeakSettings {
    pub plan: Option<crate::bandwidth::peak_plan::PeakPlan>,
    pub timed: TimedSettings,
}

/// Every part's settings; the plan says which parts run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The node every part measures its local and single-thread figures on (the first memory
    /// node with usable CPUs, else the first memory node), chosen once by the plan.
    pub home_node: Option<u32>,
    /// The CPU that measures single-thread latency: the first usable CPU of the home node,
    /// else the first usable CPU.
    pub measuring_cpu: Option<u32>,
    pub latency: LatencySettings,
    pub latency_matrix: MatrixSettings,
    pub bandwidth: BandwidthSettings,
    pub bandwidth_matrix: MatrixSettings,
    pub scaling: ScalingSettings,
    pub loaded: LoadedSettings,
    pub c2c: C2cSettings,
    pub scenarios: ScenarioSettings,
    pub peak: PeakSettings,
    /// The RightMark part's config, where it is planned (`plan::tables`).
    pub rightmark: Option<crate::tables::rightmark::Config>,
    /// The stream-matrix part's config, where it is planned and a node has usable CPUs.
    pub stream_matrix: Option<crate::tables::streams::Config>,
    /// Where the scenarios part is planned: its rows laid out on this machine around the
    /// home node, from the final scenario settings, or why no row can run here.
    pub scenario_layout: Option<Result<super::scenarios::Layout, String>>,
}

/// The plan and the settings it was made from.
#[derive(Clone, Debug)]
pub struct Planned {
    pub plan: Plan,
    pub settings: Settings,
}

/// Values given on `run`'s command line (`--kernel`, `--page-size`, `--sweep`, `--duration`,
/// `--sample-ms`, `--cpus`, `--cpu-nodes`, `--mem-nodes`), already validated; each replaces
/// what the plan chose for the parts it applies to. `None` keeps the plan's choice.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// Bandwidth kernels (bandwidth part).
    pub kernels: Option<Vec<KernelId>>,
    /// Walk modes of the latency sweep.
    pub modes: Option<Vec<Mode>>,
    /// Page backings of the latency sweep.
    pub pages: Option<Vec<PageSize>>,
    /// The latency sweep's first and last working set, bytes.
    pub sweep: Option<(u64, u64)>,
    /// Length of one timed repetition of bandwidth, scaling, loaded latency and scenarios.
    pub duration_ms: Option<u64>,
    /// Minimum duration of one latency sample (sweep and matrix), nanoseconds.
    pub min_sample_ns: Option<u64>,
    /// CPUs of the core-to-core part.
    pub c2c_cpus: Option<Vec<u32>>,
    /// Initiator nodes of the matrices and the scaling part.
    pub cpu_nodes: Option<Vec<u32>>,
    /// Memory nodes of the matrices.
    pub mem_nodes: Option<Vec<u32>>,
    /// `--size`: the DRAM working set (latency-matrix cell; all threads' bandwidth arrays
    /// of bandwidth, its matrix, the scenarios and the advisor).
    pub size_bytes: Option<u64>,
    /// Each given flag with its value as typed (`--kernel copy`) and the parts it applies to,
    /// for the plan's record and for refusing a flag none of whose parts runs.
    pub given: Vec<(String, Vec<crate::results::plan::Part>)>,
}

impl Overrides {
    /// Restricts the matrices' cells to `--cpu-nodes` x `--mem-nodes`: the budget's cells
    /// inside them, or, when the budget sampled none of them, every cell they name (the flags
    /// were checked against the initiator and memory nodes, so that is never empty).
    fn select_cells(&self, s: &mut Settings, topo: &crate::results::topology::Topology) {
        if self.cpu_nodes.is_none() && self.mem_nodes.is_none() {
            return;
        }
        let inits = self
            .cpu_nodes
            .clone()
            .unwrap_or_else(|| topo.initiator_nodes());
        let mems = self
            .mem_nodes
            .clone()
            .unwrap_or_else(|| topo.memory_nodes());
        for m in [&mut s.latency_matrix, &mut s.bandwidth_matrix] {
            if m.cells.is_empty() {
                continue;
            }
            m.cells
                .retain(|(i, t)| inits.contains(i) && mems.contains(t));
            if m.cells.is_empty() {
                m.cells = inits
                    .iter()
                    .flat_map(|i| mems.iter().map(move |t| (*i, *t)))
                    .collect();
            }
        }
    }

    /// Refuses a flag none of whose parts is planned: it would do nothing.
    pub fn check(&self, plan: &Plan) -> Result<(), String> {
        for (flag, parts) in &self.given {
            if !parts.iter().any(|p| plan.runs(*p)) {
                let names: Vec<&str> = parts.iter().map(|p| p.name()).collect();
                return Err(format!(
                    "{flag} applies to the {} part(s), which this run does not include; drop {} or add a part with --only",
                    names.join(", "),
                    flag.split(' ').next().unwrap_or(flag)
                ));
            }
        }
        Ok(())
    }

    /// Applies the values to the budget's settings `s`, before the plan describes its parts
    /// from them.
    pub(super) fn apply(&self, s: &mut Settings, topo: &crate::results::topology::Topology) {
        if let Some(k) = &self.kernels {
            s.bandwidth.kernels = k.clone();
        }
        if let Some(m) = &self.modes {
            s.latency.modes = m.clone();
        }
        if let Some(p) = &self.pages {
            s.latency.pages = p.clone();
        }
        if let Some((from, to)) = self.sweep {
            s.latency.from_bytes = from;
            s.latency.to_bytes = to;
        }
        if let Some(ms) = self.duration_ms {
            s.bandwidth.timed.duration_ms = ms;
            s.scaling.timed.duration_ms = ms;
            s.loaded.timed.duration_ms = ms;
            s.scenarios.timed.duration_ms = ms;
        }
        if let Some(ns) = self.min_sample_ns {
            s.latency.min_sample_ns = ns;
        }
        if let Some(c) = &self.c2c_cpus {
            s.c2c.cpus = c.clone();
        }
        if let Some(b) = self.size_bytes {
            // As the plan sizes them from the LLC (plan::settings_for): one thread's cell,
            // and all threads' arrays together, at least 16 MiB a thread.
            let threads = topo.usable_cpus().len().max(1) as u64;
            s.latency_matrix.size_bytes = b;
            s.bandwidth.bytes_per_thread = (b / threads).max(16 << 20);
            s.bandwidth_matrix.size_bytes = s.bandwidth.bytes_per_thread;
            s.scenarios.total_bytes = b;
            // (a)'s latency walks the reference's working set, as planned (at least 16 MiB).
            s.scenarios.latency_bytes = b.max(16 << 20);
        }
        if let Some(n) = &self.cpu_nodes {
            // The nodes asked for (checked against the initiator nodes when parsed), not the
            // budget's sample of them: a budget measuring nodes 0 and 6 must not refuse 1.
            s.scaling.nodes = n.clone();
        }
        self.select_cells(s, topo);
    }

    /// Names the flags that set a planned part in its detail line, so results.json and
    /// `--dry-run` show what was asked.
    pub(super) fn name_in(&self, p: &mut crate::results::plan::PlannedPart) {
        let set: Vec<&str> = self
            .given
            .iter()
            .filter(|(_, parts)| parts.contains(&p.part))
            .map(|(f, _)| f.as_str())
            .collect();
        if !set.is_empty() {
            p.detail = format!("{} (set by {})", p.detail, set.join(", "));
        }
    }
}
