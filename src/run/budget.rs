//! The budgets of a run (`--quick`, default, `--thorough`) as constants: every per-part
//! choice of a budget is written here once, and [`super::plan`] scales what grows with the
//! machine from them.

use crate::bandwidth::descriptor::KernelId;
use crate::latency::chase::Mode;
use crate::placement::PageSize;
use crate::results::plan::Budget;

use super::settings::TimedSettings;

/// Which cells of a node x node matrix a budget measures. Every pair not chosen is shown as
/// not measured, with the plan's reason; nothing is inferred from another cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CellChoice {
    /// Every cell up to `keep_all_upto`; beyond that, the home node's row with one cell per
    /// SLIT distance it shows (local, and each remote distance class once): the quick look
    /// at how far memory gets, on a machine of any size.
    HomeRowClasses { keep_all_upto: usize },
    /// Every cell up to the cap; beyond it every local cell, then the remote cells spread
    /// evenly over the SLIT distance classes (round-robin, so each class is represented).
    Upto(usize),
}

/// Budget constants. Each is a choice documented here once.
pub(super) struct Knobs {
    pub(super) target_s: Option<f64>,
    pub(super) lat_per_octave: u32,
    /// The sweep ends at this multiple of the LLC (the matrix always uses 8x).
    pub(super) lat_sweep_llc: u64,
    pub(super) lat_samples: usize,
    pub(super) lat_min_sample_ns: u64,
    pub(super) lat_modes: &'static [Mode],
    pub(super) lat_pages: &'static [PageSize],
    /// Which node pairs the latency matrix measures.
    pub(super) lat_cells: CellChoice,
    /// Which node pairs the bandwidth matrix measures.
    pub(super) bw_cells: CellChoice,
    pub(super) bw_kernels: &'static [KernelId],
    pub(super) bw: TimedSettings,
    pub(super) scaling_cap: usize,
    /// Initiator nodes the thread scaling runs on (the home node first, then an even spread).
    pub(super) scaling_nodes_cap: usize,
    pub(super) loaded_delays: usize,
    pub(super) c2c_cap: usize,
    pub(super) c2c_reps: usize,
    pub(super) scen: TimedSettings,
    /// Interval half-width every headline figure aims for, fraction of the median (issue 19:
    /// +-3 % in a default run, +-5 % in `--quick`); rounds measured side by side get extra
    /// rounds toward it while the part's budget lasts.
    pub(super) target_half_width: f64,
}

pub(super) fn knobs(b: Budget) -> Knobs {
    match b {
        Budget::Quick => Knobs {
            target_s: Some(15.0),
            lat_per_octave: 1,
            // 8x the LLC like the other budgets: the sweep's largest point is then the run's
            // reference latency (the same size as the matrix cell), taken from the reference
            // and not measured again, so the sweep still measures up to 4x.
            lat_sweep_llc: 8,
            // Seven samples: the fewest past six, so each point has an interval for its
            // median (METHODOLOGY point 22) for 2 ms more per point.
            lat_samples: 7,
            lat_min_sample_ns: 1_000_000,
            lat_modes: &[Mode::Random],
            lat_pages: &[PageSize::Base],
            // A 2-node machine keeps its four cells; a bigger one measures its home row once
            // per distance class (local, near, far), 8x the LLC each: about 2 s a cell on a
            // 32 MiB-L3 machine, so the matrix stays a few seconds at any node count.
            lat_cells: CellChoice::HomeRowClasses { keep_all_upto: 4 },
            bw_cells: CellChoice::HomeRowClasses { keep_all_upto: 4 },
            bw_kernels: &[KernelId::Read, KernelId::Triad],
            // Six repetitions: the fewest with a 95 % interval for the median (the extremes).
            bw: TimedSettings {
                duration_ms: 100,
                repetitions: 6,
            },
            scaling_cap: 3,
            scaling_nodes_cap: 2,
            // Three delay steps besides the idle point: the knee of the curve, and room for the
            // quick run of a 2-CPU machine with a 36 MiB L3 to stay within its 15 s.
            loaded_delays: 3,
            c2c_cap: 4,
            c2c_reps: 3,
            scen: TimedSettings {
                duration_ms: 100,
                repetitions: 2,
            },
            target_half_width: Budget::Quick.target_half_width(),
        },
        Budget::Default => Knobs {
            target_s: Some(60.0),
            lat_per_octave: 2,
            lat_sweep_llc: 8,
            lat_samples: 9,
            lat_min_sample_ns: 2_000_000,
            lat_modes: &[Mode::Random, Mode::Page],
            lat_pages: &[PageSize::Base, PageSize::Thp],
            // The whole latency matrix of an 8-node machine (64 cells, about 2 minutes at
            // 256 MiB a cell); the bandwidth matrix, about 1.2 s a cell whatever the size,
            // keeps every local cell and a sample of each distance class beyond 24.
            lat_cells: CellChoice::Upto(64),
            bw_cells: CellChoice::Upto(24),
            bw_kernels: &[
                KernelId::Read,
                KernelId::ReadPrefetch,
                KernelId::WriteNt,
                KernelId::Copy,
                KernelId::Triad,
            ],
            // Nine repetitions of 120 ms cost what five of 200 ms did (warm-up included) and
            // give the 2nd-8th interval for the median (96 %); each stays >= 100 ms.
            bw: TimedSettings {
                duration_ms: 120,
                repetitions: 9,
            },
            scaling_cap: 6,
            scaling_nodes_cap: 4,
            loaded_delays: 8,
            c2c_cap: 64,
            c2c_reps: 5,
            scen: TimedSettings {
                duration_ms: 250,
                repetitions: 5,
            },
            target_half_width: Budget::Default.target_half_width(),
        },
        Budget::Thorough => Knobs {
            target_s: None,
            lat_per_octave: 4,
            lat_sweep_llc: 8,
            lat_samples: 25,
            lat_min_sample_ns: 2_000_000,
            lat_modes: &[Mode::Random, Mode::Page, Mode::Seq],
            lat_pages: &[PageSize::Base, PageSize::Thp],
            lat_cells: CellChoice::Upto(usize::MAX),
            bw_cells: CellChoice::Upto(usize::MAX),
            bw_kernels: &[
                KernelId::Read,
                KernelId::ReadPrefetch,
                KernelId::Write,
                KernelId::WriteNt,
                KernelId::Copy,
                KernelId::CopyNt,
                KernelId::Scale,
                KernelId::Add,
                KernelId::Triad,
            ],
            bw: TimedSettings {
                duration_ms: 500,
                repetitions: 10,
            },
            scaling_cap: usize::MAX,
            scaling_nodes_cap: usize::MAX,
            loaded_delays: 16,
            c2c_cap: 4096,
            c2c_reps: 9,
            scen: TimedSettings {
                duration_ms: 500,
                repetitions: 10,
            },
            target_half_width: Budget::Thorough.target_half_width(),
        },
    }
}
