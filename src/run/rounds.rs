//! Interleaved rounds (METHODOLOGY point 23): configurations compared with each other are
//! measured A B C A B C ..., one short repetition of each per round, so whatever drifts on the
//! host (another tenant, frequency, a background job) hits every configuration alike, and round
//! i of two configurations forms a pair for [`crate::stats::paired_ratio`]. The start of each
//! round rotates (A B C, B C A, C A B) so no configuration always runs first. The round plan
//! spends the time the run plan gave the part: at least six rounds (the fewest with a 95 %
//! interval for the median), nine when the budget allows, shorter repetitions before fewer
//! rounds. Nothing here prints.

use crate::placement::{Policy, WeightGuard};
use crate::results::placement::NodePages;
use crate::results::quality::RepetitionQuality;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::measure::{team_read_kept, unpinned_read_kept, Kept, TeamBandwidth};
use super::plan::TimedSettings;

/// Fewest rounds: six give the first 95 % interval for the median (the extremes, 96.9 %).
pub const MIN_ROUNDS: usize = 6;
/// Rounds aimed for: nine give the 2nd and 8th values (96.1 %).
pub const TARGET_ROUNDS: usize = 9;
/// Most rounds when the budget is generous; longer repetitions beyond that.
pub const MAX_ROUNDS: usize = 15;
/// Shortest repetition worth timing, milliseconds.
pub const MIN_REPETITION_MS: u64 = 30;
/// Page-fault rate of a new buffer, bytes per second (the run plan's cost model).
const FAULT_BYTES_PER_S: f64 = 2.0e9;
/// Fixed cost of one measurement (threads, pinning, placement check), seconds.
const OVERHEAD_S: f64 = 0.02;

/// What one configuration runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// One pinned thread per CPU, thread `i` with `policies[i]`.
    Team {
        cpus: Vec<u32>,
        policies: Vec<Policy>,
    },
    /// One thread left to the scheduler.
    Unpinned { policy: Policy },
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
    /// The repetition quality of its rounds together (pinned teams only).
    pub quality: Option<RepetitionQuality>,
    /// Pages of its buffers per node when they were last placed.
    pub pages_per_node: Vec<NodePages>,
}

impl Outcome {
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

/// How many rounds and how long each repetition.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundPlan {
    pub rounds: usize,
    /// One repetition per round (after its warm-up), `duration_ms` each.
    pub timed: TimedSettings,
}

/// Seconds a part measuring `rows` configurations `timed` would take one after the other,
/// each faulting in `bytes` (the run plan's estimate of the part, its budget here).
pub fn budget_s(rows: usize, timed: &TimedSettings, bytes: u64) -> f64 {
    rows as f64
        * ((timed.repetitions + 1) as f64 * timed.duration_ms as f64 / 1000.0
            + OVERHEAD_S
            + bytes as f64 / FAULT_BYTES_PER_S)
}

/// Plans `distinct` configurations per round plus `extra` single measurements within
/// `budget_s`, each new buffer set faulting in `bytes`: once per configuration when the
/// buffers are `kept` between rounds, else in every measurement. Repetitions are never longer
/// than `longest_ms` (the budget's own repetition).
pub fn plan_rounds(
    budget_s: f64,
    distinct: usize,
    extra: usize,
    bytes: u64,
    longest_ms: u64,
    kept: bool,
) -> RoundPlan {
    let fault = bytes as f64 / FAULT_BYTES_PER_S;
    let d = distinct.max(1) as f64;
    let avail = budget_s - extra as f64 * fault - if kept { d * fault } else { 0.0 };
    let per_fault = if kept { 0.0 } else { fault };
    // Repetition length (ms) that fits `rounds` rounds: warm-up plus one repetition each.
    let fit = |rounds: usize| -> f64 {
        let per = avail / (rounds as f64 * d + extra as f64);
        (per - per_fault - OVERHEAD_S) / 2.0 * 1000.0
    };
    let longest = longest_ms.max(MIN_REPETITION_MS);
    let (rounds, ms) = if fit(TARGET_ROUNDS) >= longest as f64 {
        let per = 2.0 * longest as f64 / 1000.0 + per_fault + OVERHEAD_S;
        let r = ((avail / per - extra as f64) / d).floor() as usize;
        (r.clamp(TARGET_ROUNDS, MAX_ROUNDS), longest)
    } else if fit(TARGET_ROUNDS) >= MIN_REPETITION_MS as f64 {
        (TARGET_ROUNDS, fit(TARGET_ROUNDS) as u64)
    } else {
        let ms = fit(MIN_ROUNDS).max(MIN_REPETITION_MS as f64) as u64;
        (MIN_ROUNDS, ms.min(longest))
    };
    RoundPlan {
        rounds: if distinct == 0 { 0 } else { rounds },
        timed: TimedSettings {
            duration_ms: ms,
            repetitions: 1,
        },
    }
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
        Job::Unpinned { policy } => {
            unpinned_read_kept(topo, root, policy, cfg.bytes_per_thread, timed, kept)
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
    let free = super::plan::free_memory_bytes(topo);
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
    'rounds: for round in 0..plan.rounds {
        for k in 0..n {
            if interrupted() {
                break 'rounds;
            }
            let i = (k + round) % n;
            if out[i].error.is_some() {
                continue;
            }
            let mut none = None;
            let slot = if keep { &mut kept[i] } else { &mut none };
            match measure_kept(topo, root, &configs[i], &plan.timed, slot) {
                Ok(t) => {
                    let o = &mut out[i];
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
                }
                Err(e) if interrupted() => {
                    out[i].error = Some(format!(
                        "interrupted ({}) during this row ({})",
                        crate::sys::signal::stop_reason(),
                        crate::error::one_sentence(&e)
                    ))
                }
                Err(e) => {
                    out[i].error = Some(format!("failed: {}", crate::error::one_sentence(&e)))
                }
            }
            tick();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_plans_fit_the_budget() {
        let quick = TimedSettings {
            duration_ms: 100,
            repetitions: 2,
        };
        let bytes = 128 << 20;
        let b = budget_s(7, &quick, bytes);
        let fault = bytes as f64 / 2e9;
        for kept in [false, true] {
            // Three distinct configurations (a one-node machine): six short rounds or more.
            let p = plan_rounds(b, 3, 0, bytes, quick.duration_ms, kept);
            assert!(
                p.rounds >= MIN_ROUNDS && p.timed.duration_ms >= MIN_REPETITION_MS,
                "{p:?}"
            );
            let per = 2.0 * p.timed.duration_ms as f64 / 1000.0 + 0.02;
            let cost = if kept {
                3.0 * fault + (p.rounds * 3) as f64 * per
            } else {
                (p.rounds * 3) as f64 * (per + fault)
            };
            assert!(cost <= b * 1.01, "kept {kept}: {cost} > {b}");
        }
        // Kept buffers leave more time for the rounds.
        let (a, k) = (
            plan_rounds(b, 3, 0, bytes, 100, false),
            plan_rounds(b, 3, 0, bytes, 100, true),
        );
        assert!(
            (k.rounds, k.timed.duration_ms) > (a.rounds, a.timed.duration_ms),
            "{a:?} {k:?}"
        );
        // A generous budget: nine rounds or more at the full repetition length, at most 15.
        let long = TimedSettings {
            duration_ms: 500,
            repetitions: 10,
        };
        let p = plan_rounds(budget_s(7, &long, 16 << 20), 2, 0, 16 << 20, 500, false);
        assert_eq!((p.rounds, p.timed.duration_ms), (MAX_ROUNDS, 500));
        let p = plan_rounds(budget_s(7, &long, 16 << 20), 7, 2, 16 << 20, 500, true);
        assert!(
            p.rounds >= TARGET_ROUNDS && p.timed.duration_ms <= 500,
            "{p:?}"
        );
        assert_eq!(p.timed.repetitions, 1);
        assert_eq!(plan_rounds(1.0, 0, 0, 0, 100, true).rounds, 0);
        // Too little time: six rounds of the shortest repetition, never fewer.
        let p = plan_rounds(0.1, 5, 0, 1 << 30, 100, false);
        assert_eq!(
            (p.rounds, p.timed.duration_ms),
            (MIN_ROUNDS, MIN_REPETITION_MS)
        );
    }
}
