//! Interleaved rounds: configurations compared with each other are measured A B C A B C ...,
//! one short repetition of each per round ([`crate::schedule::round_order`] rotates the
//! start), so whatever drifts on the host hits every configuration alike and round i of two
//! configurations forms a pair for [`crate::stats::paired_ratio`] (docs/METHODOLOGY.md,
//! "Interleaving and blocks"). The rounds follow [`crate::schedule::rounds::plan_rounds`];
//! after the planned rounds, while the widest 95 % interval is above the target half-width
//! and another round fits in the part's budget, one more round measures every configuration
//! still measuring (a row measured alone would leave its partner without a pair). Nothing
//! here prints.

use std::time::{Duration, Instant};

use crate::placement::{Policy, WeightGuard};
use crate::results::placement::NodePages;
use crate::results::quality::{Precision, RepetitionQuality};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

pub mod read;

use crate::schedule::rounds::{round_fits, RoundPlan, MAX_TOTAL_ROUNDS, OVERHEAD_S};
use crate::schedule::TimedSettings;
use read::{team_read_kept, unpinned_read_kept, Kept, TeamBandwidth};

/// What one configuration runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// One pinned thread per CPU, thread `i` with `policies[i]`.
    Team {
        cpus: Vec<u32>,
        policies: Vec<Policy>,
    },
    /// One thread left to the scheduler among `cpus` (empty: every CPU this process may use).
    /// Row (a) binds its thread to the home node's CPUs, as `numactl --cpunodebind` does;
    /// row (b) leaves it free.
    Unpinned { policy: Policy, cpus: Vec<u32> },
}

/// One configuration of the comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub job: Job,
    pub bytes_per_thread: u64,
    /// Weighted-interleave weights to hold system-wide while this configuration runs.
    pub weights: Option<Vec<(u32, u8)>>,
}

/// The samples one configuration collected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Total MB/s of each round it ran in.
    pub rounds: Vec<f64>,
    /// Each thread's MB/s, per round.
    pub per_thread: Vec<Vec<f64>>,
    /// Smallest fraction of pages on the intended nodes seen in any round.
    pub placement_fraction: Option<f64>,
    /// The first failure; the configuration sits out the remaining rounds.
    pub error: Option<String>,
    /// The repetition quality of its rounds together.
    pub quality: Option<RepetitionQuality>,
    /// Rounds run beyond the plan because an interval was wider than the target.
    pub extra_rounds: usize,
    /// Pages of its buffers per node when they were last placed.
    pub pages_per_node: Vec<NodePages>,
}

impl Outcome {
    /// The interval half-width of the rounds' median relative to the median, when the rounds
    /// give an interval.
    pub fn half_width(&self) -> Option<f64> {
        crate::stats::Summary::of(&self.rounds)?.relative_half_width()
    }

    /// What the precision pass did for this configuration, against `plan`'s target.
    pub fn precision(&self, plan: &RoundPlan) -> Precision {
        Precision {
            target_half_width_fraction: plan.target_half_width,
            half_width_fraction: self.half_width(),
            planned_rounds: plan.rounds,
            extra_rounds: self.extra_rounds,
        }
    }

    /// Median MB/s of each thread over the rounds.
    pub fn per_thread_medians(&self) -> Vec<f64> {
        let n = self.per_thread.first().map_or(0, |v| v.len());
        (0..n)
            .map(|t| {
                crate::stats::median(
                    &self
                        .per_thread
                        .iter()
                        .filter_map(|r| r.get(t).copied())
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    }
}

/// Whether the extra rounds should go on: some configuration still measuring has an interval
/// wider than `target` (or none yet) and fewer than [`MAX_TOTAL_ROUNDS`] rounds.
pub fn wants_more(out: &[Outcome], target: f64) -> bool {
    out.iter().any(|o| {
        o.error.is_none()
            && !o.rounds.is_empty()
            && o.rounds.len() < MAX_TOTAL_ROUNDS
            && o.half_width().is_none_or(|h| h > target)
    })
}

/// One measurement of one configuration.
pub fn measure_once(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    timed: &TimedSettings,
) -> anyhow::Result<TeamBandwidth> {
    measure_kept(topo, root, cfg, timed, &mut None)
}

/// One measurement of one configuration, reusing the buffers in `kept` (placed and faulted
/// in by an earlier round) and leaving its buffers there.
fn measure_kept(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    timed: &TimedSettings,
    kept: &mut Kept,
) -> anyhow::Result<TeamBandwidth> {
    // Hold the weights for the whole setup: the threads fault in concurrently and must all
    // see the same weights. Kept pages are placed already: no weights needed.
    let guard = match (&cfg.weights, kept.is_some()) {
        (Some(w), false) => Some(WeightGuard::set(root, w)?),
        _ => None,
    };
    let r = match &cfg.job {
        Job::Team { cpus, policies } => team_read_kept(
            topo,
            root,
            cpus,
            policies,
            cfg.bytes_per_thread,
            timed,
            kept,
        ),
        Job::Unpinned { policy, cpus } => {
            unpinned_read_kept(topo, root, policy, cpus, cfg.bytes_per_thread, timed, kept)
        }
    };
    drop(guard);
    r
}

/// Whether every configuration's buffers can stay allocated through all rounds: together at
/// most half the memory the allowed nodes have available (unknown: assume they fit when under
/// 1 GiB).
pub fn keep_buffers(topo: &Topology, configs: &[Config]) -> bool {
    let need: u64 = configs
        .iter()
        .map(|c| {
            let threads = match &c.job {
                Job::Team { cpus, .. } => cpus.len().max(1) as u64,
                Job::Unpinned { .. } => 1,
            };
            threads * c.bytes_per_thread
        })
        .sum();
    let free = topo.available_over(&topo.memory_nodes());
    if free == 0 {
        need <= 1 << 30
    } else {
        need <= free / 2
    }
}

/// Runs `plan.rounds` rounds over `configs`; `tick()` after each measurement. Ctrl-C ends
/// the rounds early; what was measured is kept.
pub fn run_rounds(
    topo: &Topology,
    root: &SysRoot,
    configs: &[Config],
    plan: &RoundPlan,
    tick: &mut dyn FnMut(),
) -> Vec<Outcome> {
    let mut out: Vec<Outcome> = vec![Outcome::default(); configs.len()];
    let n = configs.len();
    // Buffers stay placed between rounds when memory allows, so a round costs the timed runs
    // and not a fresh allocation and fault-in of every buffer.
    let keep = keep_buffers(topo, configs);
    let mut kept: Vec<Kept> = (0..n).map(|_| None).collect();
    let t0 = Instant::now();
    // Time of each measurement after the first round (the first faults the buffers in).
    let mut times: Vec<Duration> = Vec::new();
    let mut round = 0;
    loop {
        let extra = round >= plan.rounds;
        if extra {
            let per = time_per_measurement(&times, plan);
            let live = out.iter().filter(|o| o.error.is_none()).count();
            if plan.rounds == 0
                || interrupted()
                || !wants_more(&out, plan.target_half_width)
                || !round_fits(t0.elapsed(), plan.budget_s, per, live)
            {
                break;
            }
        }
        for k in 0..n {
            if interrupted() {
                return out;
            }
            let i = (k + round) % n;
            if out[i].error.is_some() {
                continue;
            }
            let mut none = None;
            let slot = if keep { &mut kept[i] } else { &mut none };
            let started = Instant::now();
            let result = measure_kept(topo, root, &configs[i], &plan.timed, slot);
            record(&mut out[i], result, extra);
            if round > 0 || !keep {
                times.push(started.elapsed());
            }
            tick();
        }
        round += 1;
    }
    out
}

/// The median time of one measurement so far (twice the timed duration plus the overhead
/// before any was timed): what one more measurement is expected to take.
fn time_per_measurement(times: &[Duration], plan: &RoundPlan) -> Duration {
    if times.is_empty() {
        Duration::from_millis(2 * plan.timed.duration_ms) + Duration::from_secs_f64(OVERHEAD_S)
    } else {
        let mut t = times.to_vec();
        t.sort();
        t[t.len() / 2]
    }
}

/// Adds one measurement's outcome to its row: the round's figure, quality, per-thread
/// figures, pages and placement, or the error that ends the row.
fn record(o: &mut Outcome, result: anyhow::Result<TeamBandwidth>, extra: bool) {
    match result {
        Ok(t) => {
            o.rounds.push(t.total_mb_per_s.median);
            if let Some(q) = &t.quality {
                RepetitionQuality::merge_into(&mut o.quality, q);
            }
            o.per_thread.push(t.per_thread_mb_per_s);
            o.pages_per_node = t.pages_per_node;
            o.placement_fraction = Some(
                o.placement_fraction
                    .map_or(t.placement_fraction, |f| f.min(t.placement_fraction)),
            );
            if extra {
                o.extra_rounds += 1;
            }
        }
        Err(e) if interrupted() => {
            o.error = Some(format!(
                "interrupted ({}) during this row ({})",
                crate::sys::signal::stop_reason(),
                crate::error::one_sentence(&e)
            ))
        }
        Err(e) => o.error = Some(format!("failed: {}", crate::error::one_sentence(&e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::rounds::{plan_rounds, DEFAULT_TARGET_HALF_WIDTH};

    fn outcome(rounds: &[f64]) -> Outcome {
        Outcome {
            rounds: rounds.to_vec(),
            ..Outcome::default()
        }
    }

    #[test]
    fn extra_rounds_go_on_while_an_interval_is_wider_than_the_target() {
        let tight = outcome(&[100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.0, 100.3]);
        let wide = outcome(&[100.0, 80.0, 120.0, 90.0, 110.0, 85.0, 115.0, 95.0, 105.0]);
        assert!(tight.half_width().unwrap() <= 0.03);
        assert!(wide.half_width().unwrap() > 0.03);
        assert!(!wants_more(std::slice::from_ref(&tight), 0.03));
        assert!(wants_more(&[tight.clone(), wide.clone()], 0.03));
        assert!(
            !wants_more(&[tight.clone(), wide.clone()], 0.5),
            "both within +-50 %"
        );
        // Too few rounds for an interval: more are wanted.
        assert!(wants_more(&[outcome(&[1.0, 2.0])], 0.5));
        // A failed configuration or one at the cap wants nothing more.
        let mut failed = wide.clone();
        failed.error = Some("failed".into());
        assert!(!wants_more(&[failed, tight.clone()], 0.03));
        let capped = outcome(
            &vec![100.0; MAX_TOTAL_ROUNDS]
                .iter()
                .enumerate()
                .map(|(i, v)| v + (i % 3) as f64 * 10.0)
                .collect::<Vec<_>>(),
        );
        assert!(capped.half_width().unwrap() > 0.03);
        assert!(!wants_more(&[capped], 0.03));
        // Nothing measured yet (interrupted before the first round): nothing to add to.
        assert!(!wants_more(&[Outcome::default()], 0.03));
        // Time: a round of three measurements of 0.1 s fits 0.3 s of 1 s left, not of 0.2 s.
        let per = Duration::from_millis(100);
        assert!(round_fits(Duration::from_millis(700), 1.0, per, 3));
        assert!(!round_fits(Duration::from_millis(800), 1.0, per, 3));
        // The record.
        let plan = plan_rounds(10.0, 2, 0, 1 << 20, 100, true);
        let mut o = wide.clone();
        o.extra_rounds = 4;
        let p = o.precision(&plan);
        assert_eq!((p.planned_rounds, p.extra_rounds), (plan.rounds, 4));
        assert_eq!(p.target_half_width_fraction, DEFAULT_TARGET_HALF_WIDTH);
        assert!(!p.met());
        assert_eq!(p.extra_rounds, 4);
        assert!(tight.precision(&plan).met());
        assert_eq!(tight.precision(&plan).extra_rounds, 0);
    }
}
