//! The budgets of a run (`--quick`, default, `--thorough`) as constants: every per-part
//! choice of a budget is written here once, and [`super::plan`] scales what grows with the
//! machine from them.

use crate::bandwidth::descriptor::KernelId;
use crate::latency::chase::Mode;
use crate::placement::PageSize;
use crate::results::plan::Budget;

use super::settings::TimedSettings;

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
    pub(super) matrix_cap: usize,
    pub(super) bw_kernels: &'static [KernelId],
    pub(super) bw: TimedSettings,
    pub(super) scaling_cap: usize,
    pub(super) loaded_delays: usize,
    pub(super) c2c_cap: usize,
    pub(super) c2c_reps: usize,
    pub(super) scen: TimedSettings,
}

pub(super) fn knobs(b: Budget) -> Knobs {
    match b {
        Budget::Quick => Knobs {
            target_s: Some(15.0),
            lat_per_octave: 1,
            lat_sweep_llc: 4,
            // Seven samples: the fewest past six, so each point has an interval for its
            // median (METHODOLOGY point 22) for 2 ms more per point.
            lat_samples: 7,
            lat_min_sample_ns: 1_000_000,
            lat_modes: &[Mode::Random],
            lat_pages: &[PageSize::Base],
            matrix_cap: 16,
            bw_kernels: &[KernelId::Read, KernelId::Triad],
            // Six repetitions: the fewest with a 95 % interval for the median (the extremes).
            bw: TimedSettings {
                duration_ms: 100,
                repetitions: 6,
            },
            scaling_cap: 3,
            loaded_delays: 4,
            c2c_cap: 4,
            c2c_reps: 3,
            scen: TimedSettings {
                duration_ms: 100,
                repetitions: 2,
            },
        },
        Budget::Default => Knobs {
            target_s: Some(60.0),
            lat_per_octave: 2,
            lat_sweep_llc: 8,
            lat_samples: 9,
            lat_min_sample_ns: 2_000_000,
            lat_modes: &[Mode::Random, Mode::Page],
            lat_pages: &[PageSize::Base, PageSize::Thp],
            matrix_cap: 64,
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
            loaded_delays: 8,
            c2c_cap: 64,
            c2c_reps: 5,
            scen: TimedSettings {
                duration_ms: 250,
                repetitions: 5,
            },
        },
        Budget::Thorough => Knobs {
            target_s: None,
            lat_per_octave: 4,
            lat_sweep_llc: 8,
            lat_samples: 25,
            lat_min_sample_ns: 2_000_000,
            lat_modes: &[Mode::Random, Mode::Page, Mode::Seq],
            lat_pages: &[PageSize::Base, PageSize::Thp],
            matrix_cap: usize::MAX,
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
            loaded_delays: 16,
            c2c_cap: 4096,
            c2c_reps: 9,
            scen: TimedSettings {
                duration_ms: 500,
                repetitions: 10,
            },
        },
    }
}
