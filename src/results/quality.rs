//! The quality of timed repetitions (docs/METHODOLOGY.md, "Disturbed repetitions"): whether each
//! measuring thread owned its CPU while a repetition was timed. A repetition in which a thread got
//! less than a stated share of its CPU (another program ran there) or in which the hypervisor took
//! the CPUs away (steal time) is not a sample of the memory system; it is discarded and taken
//! again while the retake allowance lasts. When the allowance runs out the figure is kept but
//! marked disturbed, and `render::words::disturbed::reason` says why in one sentence.
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
        assert_eq!(crate::render::words::disturbed::reason(&q), None);
        assert_eq!(q.highest_kept_steal_fraction, Some(0.0));
    }

    #[test]
    fn reason_names_the_cpu_the_share_and_the_counts() {
        let mut q = RepetitionQuality::new(0.9, 3);
        for s in [0.99, 0.48, 0.99, 0.60, 0.99, 0.55, 0.99, 0.99, 0.99] {
            q.record(&rep(s, 0, 20));
        }
        assert_eq!(
            crate::render::words::disturbed::reason(&q).unwrap(),
            "CPU 1 ran 48 % of the time in 3 of 9 repetitions: another program shared it; those 3 repetitions were discarded and taken again"
        );
        let mut q = RepetitionQuality::new(0.9, 0);
        q.record(&rep(0.99, 8, 20));
        q.record(&rep(0.99, 0, 20));
        assert_eq!(
            crate::render::words::disturbed::reason(&q).unwrap(),
            "the hypervisor took up to 40 % of the CPUs' time (steal) in 1 of 2 repetitions: another guest shared the host; 1 of the 2 kept repetitions are disturbed, so the figure is marked disturbed; rerun on an idle machine"
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
