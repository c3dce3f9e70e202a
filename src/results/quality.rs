//! The quality of timed repetitions (METHODOLOGY point 21): whether each measuring thread
//! owned its CPU while a repetition was timed. A repetition in which a thread got less than a
//! stated share of its CPU (another program ran there) or in which the hypervisor took the
//! CPUs away (steal time) is not a sample of the memory system; it is discarded and taken
//! again while the retake allowance lasts. When the allowance runs out the figure is kept but
//! marked disturbed, and [`RepetitionQuality::reason`] says why in one sentence.
//!
//! This module holds the plain types and the pure decision; measuring (thread CPU time,
//! `getrusage`, `/proc/stat`) happens in `threads::quality`, and nothing here prints.

use serde::{Deserialize, Serialize};

/// The CPU share (CPU time / wall time) below which a repetition counts as disturbed.
pub const DEFAULT_MIN_CPU_SHARE: f64 = 0.90;

/// What was measured over one repetition, across the threads whose share is judged.
/// Every field is `None` when the probe could not read it (the repetition is then judged on
/// what is known).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RepSample {
    /// Lowest CPU time / wall time of any judged thread over the repetition, fraction (1 = it
    /// ran all along).
    pub cpu_share_fraction: Option<f64>,
    /// The CPU the thread with that lowest share was pinned to, when known.
    pub cpu: Option<u32>,
    /// Involuntary context switches of the judged threads over the repetition, summed, count.
    pub involuntary_switches: Option<u64>,
    /// Steal ticks (`/proc/stat`, USER_HZ) of the CPUs used over the repetition, summed.
    pub steal_ticks: Option<u64>,
    /// All ticks (user to steal) of the same CPUs over the repetition, summed.
    pub cpu_ticks: Option<u64>,
}

impl RepSample {
    /// Steal ticks / all ticks of the CPUs used, fraction; `None` when unknown or when the
    /// repetition was shorter than one tick.
    pub fn steal_fraction(&self) -> Option<f64> {
        match (self.steal_ticks, self.cpu_ticks) {
            (Some(s), Some(t)) if t > 0 => Some(s as f64 / t as f64),
            _ => None,
        }
    }
}

/// Why a repetition counts as disturbed; both may hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Disturbance {
    /// A judged thread got less than the threshold share of its CPU.
    pub cpu_share: bool,
    /// The hypervisor took more than `1 - threshold` of the CPUs' time.
    pub steal: bool,
}

impl Disturbance {
    /// True when either cause holds.
    pub fn any(&self) -> bool {
        self.cpu_share || self.steal
    }
}

/// Judges one repetition against `min_cpu_share` (a fraction). Pure.
///
/// - CPU share: disturbed when the lowest share is below the threshold.
/// - Steal: disturbed when the steal fraction exceeds `1 - min_cpu_share` *and* at least two
///   ticks were stolen: `/proc/stat` counts in whole ticks (10 ms), so one tick in a short
///   repetition is within the counter's rounding and is not evidence on its own.
/// - Involuntary context switches are recorded but decide nothing: a few happen on any
///   machine (kernel threads, timers), and what they cost already shows in the CPU share.
pub fn judge(sample: &RepSample, min_cpu_share: f64) -> Disturbance {
    let cpu_share = sample.cpu_share_fraction.is_some_and(|s| s < min_cpu_share);
    let steal = sample.steal_ticks.is_some_and(|t| t >= 2)
        && sample
            .steal_fraction()
            .is_some_and(|f| f > 1.0 - min_cpu_share);
    Disturbance { cpu_share, steal }
}

/// What to do with one repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Undisturbed: keep it.
    Keep,
    /// Disturbed and the retake allowance lasts: drop it and take another.
    Discard,
    /// Disturbed but the allowance is spent: keep it, and the figure is marked disturbed.
    KeepDisturbed,
}

impl Decision {
    /// True when the repetition goes into the figure.
    pub fn kept(self) -> bool {
        self != Decision::Discard
    }
}

/// The quality record of one part or measurement: how many repetitions were taken,
/// discarded and kept, and the worst conditions seen. Every field has a default, so a results
/// file written before a field existed still loads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RepetitionQuality {
    /// The CPU share below which a repetition is disturbed, fraction (0.90 by default).
    pub threshold_cpu_share_fraction: f64,
    /// How many disturbed repetitions may be discarded and taken again, count.
    pub retake_allowance: u32,
    /// Repetitions timed (warm-up excluded), count: kept + discarded.
    pub repetitions_taken: u32,
    /// Disturbed repetitions dropped and taken again, count.
    pub repetitions_discarded: u32,
    /// Repetitions the figure is made of, count.
    pub repetitions_kept: u32,
    /// Kept repetitions that are disturbed (the allowance ran out), count.
    pub repetitions_kept_disturbed: u32,
    /// Taken repetitions in which a thread's CPU share was below the threshold, count.
    pub repetitions_short_of_cpu: u32,
    /// Taken repetitions in which steal exceeded `1 - threshold`, count.
    pub repetitions_stolen: u32,
    /// Lowest CPU share any judged thread got in a kept repetition, fraction.
    pub lowest_kept_cpu_share_fraction: Option<f64>,
    /// Lowest CPU share any judged thread got in any taken repetition, fraction.
    pub lowest_taken_cpu_share_fraction: Option<f64>,
    /// The CPU that got that lowest taken share, when known.
    pub lowest_taken_cpu: Option<u32>,
    /// Largest steal fraction over a kept repetition (steal ticks / all ticks of the CPUs
    /// used, or of the whole machine when per-CPU lines are missing), fraction.
    pub highest_kept_steal_fraction: Option<f64>,
    /// Largest steal fraction over any taken repetition, fraction.
    pub highest_taken_steal_fraction: Option<f64>,
    /// Involuntary context switches of the judged threads over the kept repetitions, count.
    pub involuntary_switches_kept: u64,
    /// True when the allowance ran out and some kept repetitions are disturbed: the figure
    /// is kept, and must be shown marked.
    pub disturbed: bool,
}

/// How precise a figure measured in interleaved rounds came out against its target (
/// the budget is spent where the intervals are widest). Absent in files written before it
/// existed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Precision {
    /// The interval half-width aimed for, fraction of the median (0.03 = +-3 %).
    pub target_half_width_fraction: f64,
    /// The half-width reached, fraction of the median; `None` without an interval.
    pub half_width_fraction: Option<f64>,
    /// Rounds the plan gave every configuration, count.
    pub planned_rounds: usize,
    /// Rounds added after the plan because an interval of the comparison was wider than the
    /// target and the part's budget had time left, count (0: none were added).
    pub extra_rounds: usize,
}

impl Precision {
    /// Whether the interval is within the target.
    pub fn met(&self) -> bool {
        self.half_width_fraction
            .is_some_and(|h| h <= self.target_half_width_fraction)
    }

    /// "+-2.1 % (target +-3 %, 4 extra rounds)" for labels.
    pub fn clause(&self) -> String {
        let w = match self.half_width_fraction {
            Some(h) => format!("\u{b1}{:.1} %", h * 100.0),
            None => "no interval".to_string(),
        };
        let extra = match self.extra_rounds {
            0 => "no extra rounds".to_string(),
            1 => "1 extra round".to_string(),
            n => format!("{n} extra rounds"),
        };
        format!(
            "{w} (target \u{b1}{:.0} %, {extra})",
            self.target_half_width_fraction * 100.0
        )
    }
}

impl Precision {
    /// The half-width reached, "+-2.1 %" ("no interval" without one).
    pub fn width_text(&self) -> String {
        match self.half_width_fraction {
            Some(h) => format!("\u{b1}{:.1} %", h * 100.0),
            None => "no interval".to_string(),
        }
    }

    /// The target and the extras of a figure measured alone, counting its extra repetitions
    /// as `one` / `many` ("sample"/"samples" for a latency, "repetition"/"repetitions" for a
    /// bandwidth): "target +-3 %, 3 extra samples".
    pub fn target_text(&self, one: &str, many: &str) -> String {
        let extra = match self.extra_rounds {
            0 => format!("no extra {many}"),
            1 => format!("1 extra {one}"),
            n => format!("{n} extra {many}"),
        };
        format!(
            "target \u{b1}{:.0} %, {extra}",
            self.target_half_width_fraction * 100.0
        )
    }

    /// [`clause`](Self::clause) for a figure measured alone: "+-2.1 % (target +-3 %, 3 extra
    /// samples)".
    pub fn clause_in(&self, one: &str, many: &str) -> String {
        format!("{} ({})", self.width_text(), self.target_text(one, many))
    }
}

/// What a figure measured a planned number of times alone (a latency, a bandwidth) may add
/// toward its precision target (the budget goes where the intervals are widest).
/// Runtime only, never stored: the figure records what came of it as a [`Precision`].
///
/// Extra repetitions are taken while the median's 95 % interval is wider than the target,
/// never more than the planned count, and, when the goal has a time pool, only while the
/// pool has time for them. Clones share one pool: a run gives each of its parts one goal,
/// and the part's figures draw on it in turn, so the extras of a part never take more than
/// its pool whatever the number of figures. So that the first wide figure does not take the
/// pool from the later ones, each figure measures toward [`for_figure`](Self::for_figure):
/// after its first batch it goes on only while it has spent less than an even share of what
/// the pool held when it started.
#[derive(Clone, Debug)]
pub struct PrecisionGoal {
    /// The interval half-width aimed for, fraction of the median (0.03 = +-3 %).
    pub target_half_width_fraction: f64,
    /// Nanoseconds the extras may still take together; `None`: only the count bounds them.
    pool_ns: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// One figure's share of the pool and what it spent of it, nanoseconds; `None`: the goal
    /// of a part, not of one figure.
    figure: Option<(u64, std::sync::Arc<std::sync::atomic::AtomicU64>)>,
}

impl PrecisionGoal {
    /// The goal of a standalone `latency` or `bandwidth`: the default run's target (+-3 %),
    /// bounded by the count alone.
    pub fn standalone() -> PrecisionGoal {
        PrecisionGoal::count_bounded(crate::results::plan::Budget::Default.target_half_width())
    }

    /// A goal bounded by the count alone (a standalone command: at most the planned count
    /// again, so a figure's timed part at most doubles).
    pub fn count_bounded(target_half_width_fraction: f64) -> PrecisionGoal {
        PrecisionGoal {
            target_half_width_fraction,
            pool_ns: None,
            figure: None,
        }
    }

    /// A goal whose extras, over every figure drawing on it, take at most `pool`.
    pub fn within(target_half_width_fraction: f64, pool: std::time::Duration) -> PrecisionGoal {
        let ns = u64::try_from(pool.as_nanos()).unwrap_or(u64::MAX);
        PrecisionGoal {
            target_half_width_fraction,
            pool_ns: Some(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(ns))),
            figure: None,
        }
    }

    /// The goal of one figure of a part that has `figures_left` figures still to measure
    /// (this one included): the same pool, and an even share of what it holds now. The
    /// figure's first batch needs only the pool's time; later batches also need the figure
    /// to have spent less than its share. A count-bounded goal is returned as it is.
    pub fn for_figure(&self, figures_left: usize) -> PrecisionGoal {
        let Some(left) = self.time_left() else {
            return self.clone();
        };
        let share = u64::try_from(left.as_nanos()).unwrap_or(u64::MAX) / figures_left.max(1) as u64;
        PrecisionGoal {
            target_half_width_fraction: self.target_half_width_fraction,
            pool_ns: self.pool_ns.clone(),
            figure: Some((
                share,
                std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
            )),
        }
    }

    /// What the pool holds, whatever the figure's share (a batch under way goes on while the
    /// pool lasts); `None` when only the count bounds the extras.
    pub fn pool_left(&self) -> Option<std::time::Duration> {
        self.pool_ns
            .as_ref()
            .map(|p| std::time::Duration::from_nanos(p.load(std::sync::atomic::Ordering::SeqCst)))
    }

    /// Time a new batch of extras may take: what the pool holds, or nothing once a figure has
    /// spent its share; `None` when only the count bounds them.
    pub fn time_left(&self) -> Option<std::time::Duration> {
        let pool = self.pool_left()?;
        match &self.figure {
            Some((share, spent))
                if spent.load(std::sync::atomic::Ordering::SeqCst) >= *share
                    && spent.load(std::sync::atomic::Ordering::SeqCst) > 0 =>
            {
                Some(std::time::Duration::ZERO)
            }
            _ => Some(pool),
        }
    }

    /// Takes `spent` out of the pool (down to zero) and counts it against the figure's share.
    pub fn spend(&self, spent: std::time::Duration) {
        let ns = u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX);
        if let Some(p) = &self.pool_ns {
            let _ = p.fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |left| Some(left.saturating_sub(ns)),
            );
        }
        if let Some((_, s)) = &self.figure {
            s.fetch_add(ns, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// The record of a figure of `samples` measured toward this goal: `planned` repetitions
    /// and `extra` more.
    pub fn record(&self, samples: &[f64], planned: usize, extra: usize) -> Precision {
        Precision {
            target_half_width_fraction: self.target_half_width_fraction,
            half_width_fraction: crate::stats::Summary::of(samples)
                .and_then(|s| s.relative_half_width()),
            planned_rounds: planned,
            extra_rounds: extra,
        }
    }
}

/// What one more repetition costs: `per_repetition` each, plus `per_batch` once for a batch
/// (a bandwidth team's threads and pinning).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExtraCost {
    pub per_repetition: std::time::Duration,
    pub per_batch: std::time::Duration,
}

/// How many extra repetitions to take now toward `target` (a half-width, fraction of the
/// median) for a figure whose kept repetitions are `samples`, `planned` of them planned and
/// `extra` taken already; 0 to stop. Pure.
///
/// The batch is the fewest repetitions that can narrow the interval: the order-statistic
/// interval of n samples is the k-th smallest to the k-th largest, and while k stays the same
/// one more sample can only widen it or leave it (the new value either lies inside, leaving
/// both ends, or pushes an end out), so the batch runs to the next n with a larger k (from 9
/// samples to 12, from 6 to 9). It is 0 when the interval is within the target, when the
/// batch would take the extras past the planned count, when it does not fit `time_left`
/// (`None`: no time limit), or when the planned count gives no interval (fewer than six: a
/// quick look asked for, which keeps its count).
pub fn next_batch(
    samples: &[f64],
    planned: usize,
    extra: usize,
    target: f64,
    cost: ExtraCost,
    time_left: Option<std::time::Duration>,
) -> usize {
    use crate::stats::interval::median_ranks;
    use crate::stats::CONFIDENCE;
    let n = samples.len();
    // A figure planned without an interval (fewer than six) was asked for a quick look
    // (`--samples 3`): it keeps its count.
    if n == 0 || median_ranks(planned, CONFIDENCE).is_none() {
        return 0;
    }
    let wide = crate::stats::Summary::of(samples)
        .and_then(|s| s.relative_half_width())
        .is_none_or(|h| h > target);
    if !wide {
        return 0;
    }
    let rank = median_ranks(n, CONFIDENCE).map_or(0, |r| r.0);
    let room = planned.saturating_sub(extra);
    let Some(batch) =
        (1..=room).find(|k| median_ranks(n + k, CONFIDENCE).map_or(0, |r| r.0) > rank)
    else {
        return 0;
    };
    let fits = time_left.is_none_or(|left| {
        cost.per_repetition
            .checked_mul(batch as u32)
            .and_then(|t| t.checked_add(cost.per_batch))
            .is_some_and(|t| t <= left)
    });
    if fits {
        batch
    } else {
        0
    }
}

impl Default for RepetitionQuality {
    fn default() -> Self {
        RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 0)
    }
}

fn lowest(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn highest(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

impl RepetitionQuality {
    /// An empty record judging against `threshold_cpu_share_fraction` with
    /// `retake_allowance` retakes.
    pub fn new(threshold_cpu_share_fraction: f64, retake_allowance: u32) -> Self {
        RepetitionQuality {
            threshold_cpu_share_fraction,
            retake_allowance,
            repetitions_taken: 0,
            repetitions_discarded: 0,
            repetitions_kept: 0,
            repetitions_kept_disturbed: 0,
            repetitions_short_of_cpu: 0,
            repetitions_stolen: 0,
            lowest_kept_cpu_share_fraction: None,
            lowest_taken_cpu_share_fraction: None,
            lowest_taken_cpu: None,
            highest_kept_steal_fraction: None,
            highest_taken_steal_fraction: None,
            involuntary_switches_kept: 0,
            disturbed: false,
        }
    }

    /// Retakes still allowed.
    pub fn retakes_left(&self) -> u32 {
        self.retake_allowance
            .saturating_sub(self.repetitions_discarded)
    }

    /// Judges one repetition (see [`judge`]), records it, and says whether to keep it.
    pub fn record(&mut self, sample: &RepSample) -> Decision {
        let d = judge(sample, self.threshold_cpu_share_fraction);
        self.repetitions_taken += 1;
        self.repetitions_short_of_cpu += d.cpu_share as u32;
        self.repetitions_stolen += d.steal as u32;
        if let Some(s) = sample.cpu_share_fraction {
            if self.lowest_taken_cpu_share_fraction.is_none_or(|l| s < l) {
                self.lowest_taken_cpu_share_fraction = Some(s);
                self.lowest_taken_cpu = sample.cpu;
            }
        }
        let steal = sample.steal_fraction();
        self.highest_taken_steal_fraction = highest(self.highest_taken_steal_fraction, steal);
        let decision = if !d.any() {
            Decision::Keep
        } else if self.retakes_left() > 0 {
            Decision::Discard
        } else {
            Decision::KeepDisturbed
        };
        match decision {
            Decision::Discard => self.repetitions_discarded += 1,
            Decision::Keep | Decision::KeepDisturbed => {
                self.repetitions_kept += 1;
                if decision == Decision::KeepDisturbed {
                    self.repetitions_kept_disturbed += 1;
                    self.disturbed = true;
                }
                self.lowest_kept_cpu_share_fraction = lowest(
                    self.lowest_kept_cpu_share_fraction,
                    sample.cpu_share_fraction,
                );
                self.highest_kept_steal_fraction = highest(self.highest_kept_steal_fraction, steal);
                self.involuntary_switches_kept += sample.involuntary_switches.unwrap_or(0);
            }
        }
        decision
    }

    /// One sentence saying what disturbed the repetitions, for a warning; `None` when no
    /// taken repetition was disturbed. E.g. "CPU 1 ran 48 % of the time in 3 of 9
    /// repetitions: another program shared it; the figure is kept but marked disturbed".
    pub fn reason(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.repetitions_short_of_cpu > 0 {
            let who = match self.lowest_taken_cpu {
                Some(cpu) => format!("CPU {cpu}"),
                None => "a measuring thread".to_string(),
            };
            let pct = self.lowest_taken_cpu_share_fraction.unwrap_or(0.0) * 100.0;
            parts.push(format!(
                "{who} ran {pct:.0} % of the time in {} of {} repetitions: another program shared it",
                self.repetitions_short_of_cpu, self.repetitions_taken
            ));
        }
        if self.repetitions_stolen > 0 {
            let pct = self.highest_taken_steal_fraction.unwrap_or(0.0) * 100.0;
            parts.push(format!(
                "the hypervisor took up to {pct:.0} % of the CPUs' time (steal) in {} of {} repetitions: another guest shared the host",
                self.repetitions_stolen, self.repetitions_taken
            ));
        }
        if parts.is_empty() {
            return None;
        }
        let outcome = if self.disturbed {
            format!(
                "{} of the {} kept repetitions are disturbed, so the figure is marked disturbed; rerun on an idle machine",
                self.repetitions_kept_disturbed, self.repetitions_kept
            )
        } else {
            format!(
                "those {} repetitions were discarded and taken again",
                self.repetitions_discarded
            )
        };
        Some(format!("{}; {outcome}", parts.join("; ")))
    }

    /// Adds another record of the same figure (e.g. one interleaved round's measurement) to
    /// this one: counts and allowances add up, the worst conditions are kept, and the figure
    /// is disturbed when either part is.
    pub fn merge(&mut self, other: &RepetitionQuality) {
        self.retake_allowance = self.retake_allowance.saturating_add(other.retake_allowance);
        self.repetitions_taken += other.repetitions_taken;
        self.repetitions_discarded += other.repetitions_discarded;
        self.repetitions_kept += other.repetitions_kept;
        self.repetitions_kept_disturbed += other.repetitions_kept_disturbed;
        self.repetitions_short_of_cpu += other.repetitions_short_of_cpu;
        self.repetitions_stolen += other.repetitions_stolen;
        self.lowest_kept_cpu_share_fraction = lowest(
            self.lowest_kept_cpu_share_fraction,
            other.lowest_kept_cpu_share_fraction,
        );
        let other_lower = match (
            other.lowest_taken_cpu_share_fraction,
            self.lowest_taken_cpu_share_fraction,
        ) {
            (Some(o), Some(s)) => o < s,
            (o, _) => o.is_some(),
        };
        if other_lower {
            self.lowest_taken_cpu_share_fraction = other.lowest_taken_cpu_share_fraction;
            self.lowest_taken_cpu = other.lowest_taken_cpu;
        }
        self.highest_kept_steal_fraction = highest(
            self.highest_kept_steal_fraction,
            other.highest_kept_steal_fraction,
        );
        self.highest_taken_steal_fraction = highest(
            self.highest_taken_steal_fraction,
            other.highest_taken_steal_fraction,
        );
        self.involuntary_switches_kept += other.involuntary_switches_kept;
        self.disturbed |= other.disturbed;
    }

    /// [`merge`](Self::merge) into an optional record (the first part becomes the record).
    pub fn merge_into(into: &mut Option<RepetitionQuality>, other: &RepetitionQuality) {
        match into {
            Some(q) => q.merge(other),
            None => *into = Some(other.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_records_add_counts_and_keep_the_worst() {
        let mut a = RepetitionQuality::new(0.9, 1);
        a.record(&RepSample {
            cpu_share_fraction: Some(0.97),
            cpu: Some(0),
            ..RepSample::default()
        });
        let mut b = RepetitionQuality::new(0.9, 0);
        b.record(&RepSample {
            cpu_share_fraction: Some(0.5),
            cpu: Some(1),
            involuntary_switches: Some(7),
            ..RepSample::default()
        });
        let mut m = None;
        RepetitionQuality::merge_into(&mut m, &a);
        assert_eq!(m.as_ref(), Some(&a), "the first part becomes the record");
        RepetitionQuality::merge_into(&mut m, &b);
        let m = m.unwrap();
        assert_eq!(m.retake_allowance, 1);
        assert_eq!((m.repetitions_taken, m.repetitions_kept), (2, 2));
        assert_eq!(m.repetitions_kept_disturbed, 1);
        assert_eq!(m.repetitions_short_of_cpu, 1);
        assert_eq!(m.lowest_taken_cpu_share_fraction, Some(0.5));
        assert_eq!(m.lowest_taken_cpu, Some(1));
        assert_eq!(m.lowest_kept_cpu_share_fraction, Some(0.5));
        assert_eq!(m.involuntary_switches_kept, 7);
        assert!(m.disturbed);
        let mut back = b.clone();
        back.merge(&a);
        assert_eq!(
            back.lowest_taken_cpu,
            Some(1),
            "a higher share does not replace it"
        );
    }

    fn rep(share: f64, steal: u64, ticks: u64) -> RepSample {
        RepSample {
            cpu_share_fraction: Some(share),
            cpu: Some(1),
            involuntary_switches: Some(2),
            steal_ticks: Some(steal),
            cpu_ticks: Some(ticks),
        }
    }

    #[test]
    fn judge_reads_share_and_steal_against_the_threshold() {
        assert!(!judge(&rep(0.95, 0, 20), 0.9).any());
        assert_eq!(
            judge(&rep(0.5, 0, 20), 0.9),
            Disturbance {
                cpu_share: true,
                steal: false
            }
        );
        // 5 of 20 ticks stolen: 25 % > 10 %.
        assert_eq!(
            judge(&rep(0.99, 5, 20), 0.9),
            Disturbance {
                cpu_share: false,
                steal: true
            }
        );
        // One stolen tick is within the counter's rounding, whatever the fraction.
        assert!(!judge(&rep(0.99, 1, 4), 0.9).any());
        // Unknown figures decide nothing.
        assert!(!judge(&RepSample::default(), 0.9).any());
        // Thresholds at the ends: 0 keeps everything, above 1 discards every share.
        assert!(!judge(&rep(0.0, 20, 20), 0.0).any());
        assert!(judge(&rep(1.0, 0, 20), 1.01).cpu_share);
    }

    #[test]
    fn steal_fraction_needs_ticks() {
        assert_eq!(rep(1.0, 3, 12).steal_fraction(), Some(0.25));
        assert_eq!(rep(1.0, 0, 0).steal_fraction(), None);
        assert_eq!(RepSample::default().steal_fraction(), None);
    }

    #[test]
    fn disturbed_repetitions_are_discarded_while_the_allowance_lasts() {
        let mut q = RepetitionQuality::new(0.9, 2);
        assert_eq!(q.record(&rep(0.99, 0, 20)), Decision::Keep);
        assert_eq!(q.record(&rep(0.48, 0, 20)), Decision::Discard);
        assert_eq!(q.record(&rep(0.60, 0, 20)), Decision::Discard);
        assert_eq!(q.retakes_left(), 0);
        assert_eq!(q.record(&rep(0.70, 0, 20)), Decision::KeepDisturbed);
        assert_eq!(q.record(&rep(0.97, 0, 20)), Decision::Keep);
        assert_eq!(q.repetitions_taken, 5);
        assert_eq!(q.repetitions_discarded, 2);
        assert_eq!(q.repetitions_kept, 3);
        assert_eq!(
            q.repetitions_taken,
            q.repetitions_kept + q.repetitions_discarded
        );
        assert_eq!(q.repetitions_kept_disturbed, 1);
        assert_eq!(q.repetitions_short_of_cpu, 3);
        assert!(q.disturbed);
        assert_eq!(q.lowest_kept_cpu_share_fraction, Some(0.70));
        assert_eq!(q.lowest_taken_cpu_share_fraction, Some(0.48));
        assert_eq!(q.lowest_taken_cpu, Some(1));
        assert_eq!(q.involuntary_switches_kept, 6, "2 per kept repetition");
        assert!(Decision::KeepDisturbed.kept() && !Decision::Discard.kept());
    }

    #[test]
    fn an_undisturbed_record_is_clean_and_has_no_reason() {
        let mut q = RepetitionQuality::new(0.9, 3);
        for _ in 0..3 {
            assert_eq!(q.record(&rep(0.99, 0, 20)), Decision::Keep);
        }
        assert!(!q.disturbed);
        assert_eq!(q.repetitions_discarded, 0);
        assert_eq!(q.reason(), None);
        assert_eq!(q.highest_kept_steal_fraction, Some(0.0));
    }

    #[test]
    fn reason_names_the_cpu_the_share_and_the_counts() {
        let mut q = RepetitionQuality::new(0.9, 3);
        for s in [0.99, 0.48, 0.99, 0.60, 0.99, 0.55, 0.99, 0.99, 0.99] {
            q.record(&rep(s, 0, 20));
        }
        assert_eq!(
            q.reason().unwrap(),
            "CPU 1 ran 48 % of the time in 3 of 9 repetitions: another program shared it; those 3 repetitions were discarded and taken again"
        );
        let mut q = RepetitionQuality::new(0.9, 0);
        q.record(&rep(0.99, 8, 20));
        q.record(&rep(0.99, 0, 20));
        assert_eq!(
            q.reason().unwrap(),
            "the hypervisor took up to 40 % of the CPUs' time (steal) in 1 of 2 repetitions: another guest shared the host; 1 of the 2 kept repetitions are disturbed, so the figure is marked disturbed; rerun on an idle machine"
        );
    }

    fn wide(n: usize) -> Vec<f64> {
        (0..n).map(|i| 80.0 + (i * 37 % 41) as f64).collect()
    }

    /// The batch runs to the next count whose interval ranks move (6 -> 9 -> 12 -> 15), within
    /// the planned count and the time left; nothing when the interval is met.
    #[test]
    fn next_batch_reaches_the_next_narrower_interval_within_the_allowance() {
        let free = ExtraCost::default();
        let tight = [100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.0, 100.3];
        assert_eq!(next_batch(&tight, 9, 0, 0.03, free, None), 0, "met");
        assert_eq!(next_batch(&wide(6), 6, 0, 0.03, free, None), 3);
        assert_eq!(next_batch(&wide(9), 9, 0, 0.03, free, None), 3);
        assert_eq!(next_batch(&wide(15), 9, 6, 0.03, free, None), 2);
        // Planned without an interval (a quick look): no extras; planned with one but short of
        // it (stopped early): up to the first one (six).
        assert_eq!(next_batch(&wide(3), 3, 0, 0.03, free, None), 0);
        assert_eq!(next_batch(&wide(3), 6, 0, 0.03, free, None), 3);
        assert_eq!(next_batch(&[], 3, 0, 0.03, free, None), 0);
        // The extras stop at the planned count: 9 planned, 8 taken, the next move (17 to 20
        // samples) needs 3; with 7 taken, 16 samples move at 17.
        assert_eq!(next_batch(&wide(17), 9, 8, 0.03, free, None), 0);
        assert_eq!(next_batch(&wide(16), 9, 7, 0.03, free, None), 1);
        assert_eq!(next_batch(&wide(9), 2, 0, 0.03, free, None), 0);
        // Time: three 100 ms repetitions and 20 ms for the batch need 0.32 s.
        let cost = ExtraCost {
            per_repetition: std::time::Duration::from_millis(100),
            per_batch: std::time::Duration::from_millis(20),
        };
        let ms = std::time::Duration::from_millis;
        assert_eq!(next_batch(&wide(9), 9, 0, 0.03, cost, Some(ms(319))), 0);
        assert_eq!(next_batch(&wide(9), 9, 0, 0.03, cost, Some(ms(320))), 3);
        // A wide target is met by the same samples.
        assert_eq!(next_batch(&wide(9), 9, 0, 0.5, free, None), 0);
    }

    #[test]
    fn goals_share_their_pool_and_record_the_precision() {
        let ms = std::time::Duration::from_millis;
        let g = PrecisionGoal::within(0.05, ms(300));
        let part = g.clone();
        part.spend(ms(100));
        assert_eq!(g.time_left(), Some(ms(200)), "clones draw on one pool");
        g.spend(ms(500));
        assert_eq!(part.time_left(), Some(std::time::Duration::ZERO));
        let s = PrecisionGoal::standalone();
        assert_eq!(s.time_left(), None);
        assert_eq!(s.target_half_width_fraction, 0.03);
        s.spend(ms(10));
        // A figure's share: its first batch needs only the pool, later ones the share too.
        let part = PrecisionGoal::within(0.05, ms(1000));
        let first = part.for_figure(4);
        assert_eq!(
            first.time_left(),
            Some(ms(1000)),
            "nothing spent yet: the pool"
        );
        first.spend(ms(300));
        assert_eq!(
            first.time_left(),
            Some(ms(0)),
            "300 ms spent of a 250 ms share"
        );
        assert_eq!(part.time_left(), Some(ms(700)));
        let second = part.for_figure(3);
        second.spend(ms(100));
        assert_eq!(
            second.time_left(),
            Some(ms(600)),
            "100 ms of a 233 ms share"
        );
        assert_eq!(s.for_figure(3).time_left(), None, "count-bounded stays so");
        let p = g.record(&wide(12), 9, 3);
        assert_eq!((p.planned_rounds, p.extra_rounds), (9, 3));
        assert_eq!(p.target_half_width_fraction, 0.05);
        assert!(!p.met());
        assert_eq!(g.record(&[1.0, 2.0], 2, 0).half_width_fraction, None);
        let p = Precision {
            target_half_width_fraction: 0.03,
            half_width_fraction: Some(0.021),
            planned_rounds: 9,
            extra_rounds: 1,
        };
        assert_eq!(
            p.clause_in("sample", "samples"),
            "\u{b1}2.1 % (target \u{b1}3 %, 1 extra sample)"
        );
        let p = Precision {
            extra_rounds: 0,
            half_width_fraction: None,
            ..p
        };
        assert_eq!(
            p.clause_in("repetition", "repetitions"),
            "no interval (target \u{b1}3 %, no extra repetitions)"
        );
    }

    #[test]
    fn serde_round_trips_and_missing_fields_default() {
        let mut q = RepetitionQuality::new(0.9, 1);
        q.record(&rep(0.5, 0, 20));
        q.record(&rep(0.95, 1, 20));
        let json = serde_json::to_string(&q).unwrap();
        let back: RepetitionQuality = serde_json::from_str(&json).unwrap();
        assert_eq!(back, q);
        let old: RepetitionQuality = serde_json::from_str("{\"repetitions_kept\": 4}").unwrap();
        assert_eq!(old.repetitions_kept, 4);
        assert_eq!(old.threshold_cpu_share_fraction, DEFAULT_MIN_CPU_SHARE);
        assert!(!old.disturbed);
        let s: RepSample = serde_json::from_str("{}").unwrap();
        assert_eq!(s, RepSample::default());
    }
}
