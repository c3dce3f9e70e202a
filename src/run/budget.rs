//! The budgets of a run (`--quick`, default, `--thorough`) as constants: every per-part
//! choice of a budget is written here once, and [`super::plan`] scales what grows with the
//! machine from them.

use crate::bandwidth::descriptor::KernelId;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::plan::{Budget, Part, Plan};
use crate::threads::precision::PrecisionGoal;

use crate::schedule::TimedSettings;

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
    /// Groups timed for the per-load distribution at the sweep's largest point; `None`:
    /// not measured.
    pub(super) lat_dist_groups: Option<usize>,
    /// Which node pairs the bandwidth matrix measures.
    pub(super) bw_cells: CellChoice,
    pub(super) bw_kernels: &'static [KernelId],
    pub(super) bw: TimedSettings,
    pub(super) scaling_cap: usize,
    /// Initiator nodes the thread scaling runs on (the home node first, then an even spread).
    pub(super) scaling_nodes_cap: usize,
    pub(super) loaded_delays: usize,
    /// Load mixes of loaded latency: the first this many of `LoadKernel::all_mixes` (read
    /// first), measured interleaved by one team.
    pub(super) loaded_mixes: usize,
    pub(super) c2c_cap: usize,
    pub(super) c2c_reps: usize,
    pub(super) scen: TimedSettings,
    /// Interval half-width every headline figure aims for, fraction of the median (
    /// +-3 % in a default run, +-5 % in `--quick`); rounds measured side by side get extra
    /// rounds toward it while the part's budget lasts.
    pub(super) target_half_width: f64,
}

/// The knobs of budget `b`.
pub(super) fn knobs(b: Budget) -> Knobs {
    match b {
        Budget::Quick => quick_knobs(),
        Budget::Default => default_knobs(),
        Budget::Thorough => thorough_knobs(),
    }
}

/// `--quick`: about 15 s, each figure with the fewest samples that still give an interval.
fn quick_knobs() -> Knobs {
    Knobs {
        target_s: Some(15.0),
        lat_per_octave: 1,
        // 8x the LLC like the other budgets: the sweep's largest point is then the run's
        // reference latency (the same size as the matrix cell), taken from the reference
        // and not measured again, so the sweep still measures up to 4x.
        lat_sweep_llc: 8,
        // Seven samples: the fewest past six, so each point has an interval for its
        // median (docs/METHODOLOGY.md, "Summaries and intervals") for 2 ms more per point.
        lat_samples: 7,
        lat_min_sample_ns: 1_000_000,
        lat_modes: &[Mode::Random],
        lat_pages: &[PageSize::Base],
        // A 2-node machine keeps its four cells; a bigger one measures its home row once
        // per distance class (local, near, far), 8x the LLC each: about 2 s a cell on a
        // 32 MiB-L3 machine, so the matrix stays a few seconds at any node count.
        lat_cells: CellChoice::HomeRowClasses { keep_all_upto: 4 },
        // Not in the quick budget: its own buffer and chain at the sweep's largest point
        // cost about 2 s on the 2-CPU machine (128 MiB), and the quick plan already
        // takes about 14 of its 15 s.
        lat_dist_groups: None,
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
        // The read curve alone: each further mix costs a warm-up and three points
        // (0.4 s), and the quick run has no room for a family.
        loaded_mixes: 1,
        c2c_cap: 4,
        c2c_reps: 3,
        scen: TimedSettings {
            duration_ms: 100,
            repetitions: 2,
        },
        target_half_width: Budget::Quick.target_half_width(),
    }
}

/// The default budget: about 60 s, the latency matrix whole up to 8 nodes.
fn default_knobs() -> Knobs {
    Knobs {
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
        // The CLI's default count: about 0.5 s of groups at DRAM latency.
        lat_dist_groups: Some(crate::latency::distribution::DEFAULT_GROUPS),
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
        // Read, 3:1, 2:1 and 1:1 (MLC's read:write family): each further mix costs a
        // warm-up and eight points of 120 ms (about 1.1 s), 3.2 s for the three, which the
        // 60 s target of a 2-CPU machine still holds.
        loaded_mixes: 4,
        c2c_cap: 64,
        c2c_reps: 5,
        scen: TimedSettings {
            duration_ms: 250,
            repetitions: 5,
        },
        target_half_width: Budget::Default.target_half_width(),
    }
}

/// `--thorough`: no time target, every cell, kernel and mode.
fn thorough_knobs() -> Knobs {
    Knobs {
        target_s: None,
        lat_per_octave: 4,
        lat_sweep_llc: 8,
        lat_samples: 25,
        lat_min_sample_ns: 2_000_000,
        lat_modes: &[Mode::Random, Mode::Page, Mode::Seq],
        lat_pages: &[PageSize::Base, PageSize::Thp],
        lat_cells: CellChoice::Upto(usize::MAX),
        // Four times the default: a p99.9 from 200 groups rather than 50.
        lat_dist_groups: Some(4 * crate::latency::distribution::DEFAULT_GROUPS),
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
        loaded_mixes: usize::MAX,
        c2c_cap: 4096,
        c2c_reps: 9,
        scen: TimedSettings {
            duration_ms: 500,
            repetitions: 10,
        },
        target_half_width: Budget::Thorough.target_half_width(),
    }
}

/// Share of a measuring part's estimate its extra repetitions may take (the budget
/// goes where the intervals are widest). The headline latency and bandwidth figures take
/// extras while their interval is wider than the budget's target; the extras of one part draw
/// on one pool of this share of its plan estimate, so they never take a part beyond it. The
/// shares keep the plan's estimate plus every pool within the budget's target on a 2-CPU
/// machine (tested below): about 0.75 s at most in `--quick` (14.1 s + 0.75 s), 8.9 s at most by
/// default (46 s + 8.9 s). In practice a latency's extras cost milliseconds (samples of 1-2 ms)
/// and a bandwidth batch (three repetitions) needs 0.3-0.4 s, so `--quick` pools leave
/// bandwidth without extras.
pub(super) fn extra_share(b: Budget) -> f64 {
    match b {
        Budget::Quick => 0.10,
        Budget::Default => 0.30,
        // No time target: the extras may take half again a part's estimate.
        Budget::Thorough => 0.50,
    }
}

/// The precision goal of `part` in a run planned as `plan`: the budget's target half-width
/// and a pool of [`extra_share`] of the part's estimate (none when the part is not planned).
pub(super) fn precision_goal(plan: &Plan, part: Part) -> PrecisionGoal {
    let est = plan.planned(part).map_or(0.0, |p| p.estimate_s);
    let pool = (extra_share(plan.budget) * est).max(0.0);
    PrecisionGoal::within(
        plan.budget.target_half_width(),
        std::time::Duration::from_secs_f64(if pool.is_finite() { pool } else { 0.0 }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::plan::{make_plan, PlanRequest};
    use crate::run::sample::opteron_topology;

    /// The parts whose headline figures take extra repetitions toward the budget's target
    /// (`run::runners` gives each its goal).
    const PRECISION_PARTS: [Part; 5] = [
        Part::Latency,
        Part::LatencyMatrix,
        Part::Bandwidth,
        Part::BandwidthMatrix,
        Part::Scaling,
    ];

    /// With every part's extras pool spent, the quick and default plans of a 2-CPU machine
    /// stay within their targets; the pools are the parts' shares and carry the budget's
    /// target.
    #[test]
    fn extras_pools_keep_the_plans_within_their_targets() {
        let t = opteron_topology();
        for b in [Budget::Quick, Budget::Default] {
            let p = make_plan(
                &t,
                &PlanRequest {
                    budget: b,
                    ..Default::default()
                },
                &Part::ALL,
            )
            .plan;
            let pools: f64 = PRECISION_PARTS
                .iter()
                .map(|&part| {
                    let g = precision_goal(&p, part);
                    assert_eq!(g.target_half_width_fraction, b.target_half_width());
                    let est = p.planned(part).unwrap().estimate_s;
                    let left = g.time_left().unwrap().as_secs_f64();
                    assert!((left - extra_share(b) * est).abs() < 1e-6, "{part}");
                    left
                })
                .sum();
            let target = knobs(b).target_s.unwrap();
            assert!(pools > 0.0);
            assert!(
                p.estimate_s + pools <= target,
                "{}: {} + {pools} > {target}",
                b.name(),
                p.estimate_s
            );
        }
        // A part not planned has an empty pool.
        let p = make_plan(
            &t,
            &PlanRequest {
                only: Some(vec![Part::Latency]),
                ..Default::default()
            },
            &Part::ALL,
        )
        .plan;
        assert_eq!(
            precision_goal(&p, Part::Bandwidth).time_left(),
            Some(std::time::Duration::ZERO)
        );
    }
}
