//! The round plan: a part's time budget becomes rounds of repetitions. At least
//! [`MIN_SAMPLES_FOR_INTERVAL`] rounds (the fewest with a 95 % interval for the median),
//! [`TARGET_SAMPLES`] when the budget allows, shorter repetitions before fewer rounds. Unless
//! the budget is generous enough for [`MAX_ROUNDS`] full-length rounds, the planned rounds
//! take about [`PLANNED_SHARE`] of it and the rest pays for extra rounds while an interval is
//! wider than its target.

use std::time::Duration;

use super::{TimedSettings, MIN_SAMPLES_FOR_INTERVAL, TARGET_SAMPLES};

const MIN_ROUNDS: usize = MIN_SAMPLES_FOR_INTERVAL;
const TARGET_ROUNDS: usize = TARGET_SAMPLES;

/// Most rounds when the budget is generous; longer repetitions beyond that.
pub const MAX_ROUNDS: usize = 15;
/// Shortest repetition worth timing, milliseconds.
pub const MIN_REPETITION_MS: u64 = 30;
/// Share of a tight budget the planned rounds take; the rest pays for extra rounds while an
/// interval is wider than its target.
pub const PLANNED_SHARE: f64 = 0.7;
/// Most rounds a configuration gets, extra rounds included.
pub const MAX_TOTAL_ROUNDS: usize = 30;
/// Target interval half-width of a `--thorough`-free default run, relative to the median.
pub const DEFAULT_TARGET_HALF_WIDTH: f64 = 0.03;
/// Page-fault rate of a new buffer, bytes per second (the run plan's cost model).
const FAULT_BYTES_PER_S: f64 = 2.0e9;
/// Fixed cost of one measurement (threads, pinning, placement check), seconds.
pub const OVERHEAD_S: f64 = 0.02;

/// How many rounds and how long each repetition.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundPlan {
    /// Planned rounds.
    pub rounds: usize,
    /// One repetition per round (after its warm-up), `duration_ms` each.
    pub timed: TimedSettings,
    /// Seconds all rounds together may take, extra rounds included (the part's budget less
    /// its single measurements).
    pub budget_s: f64,
    /// Interval half-width (fraction of the median) the extra rounds aim for; the caller sets
    /// it from the run's budget ([`DEFAULT_TARGET_HALF_WIDTH`] unless told).
    pub target_half_width: f64,
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
    // Cost of `rounds` rounds of `ms` milliseconds.
    let cost = |rounds: usize, ms: f64| {
        (rounds as f64 * d + extra as f64) * (2.0 * ms / 1000.0 + per_fault + OVERHEAD_S)
    };
    let per = 2.0 * longest as f64 / 1000.0 + per_fault + OVERHEAD_S;
    let full = ((avail / per - extra as f64) / d).floor() as usize;
    let (rounds, ms) = if full >= MAX_ROUNDS {
        // Generous: the most rounds at full length; no extra rounds are needed.
        (MAX_ROUNDS, longest)
    } else if fit(TARGET_ROUNDS) >= longest as f64 / PLANNED_SHARE {
        // Nine full-length rounds in the planned share; the rest pays for extra rounds.
        let r = ((PLANNED_SHARE * avail / per - extra as f64) / d).floor() as usize;
        (r.clamp(TARGET_ROUNDS, MAX_ROUNDS), longest)
    } else if fit(TARGET_ROUNDS) * PLANNED_SHARE >= MIN_REPETITION_MS as f64 {
        // Nine shorter rounds in the planned share (rounds narrow an interval more than
        // longer repetitions do: the noise is between repetitions).
        let ms = ((PLANNED_SHARE * avail / (TARGET_ROUNDS as f64 * d + extra as f64)
            - per_fault
            - OVERHEAD_S)
            / 2.0
            * 1000.0) as u64;
        (TARGET_ROUNDS, ms.clamp(MIN_REPETITION_MS, longest))
    } else if cost(TARGET_ROUNDS, MIN_REPETITION_MS as f64) <= avail {
        (TARGET_ROUNDS, MIN_REPETITION_MS)
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
        budget_s: (budget_s - extra as f64 * fault).max(0.0),
        target_half_width: DEFAULT_TARGET_HALF_WIDTH,
    }
}

/// Whether another round over `n` configurations fits: `elapsed` of `budget` spent, one
/// measurement estimated at `per`.
pub fn round_fits(elapsed: Duration, budget_s: f64, per: Duration, n: usize) -> bool {
    elapsed.as_secs_f64() + per.as_secs_f64() * n as f64 <= budget_s
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
        // A tight budget holds back a share for extra rounds: the planned rounds cost at most
        // about PLANNED_SHARE of it (at the shortest repetition, a little more).
        let p = plan_rounds(b, 3, 0, bytes, 100, true);
        assert_eq!(p.rounds, TARGET_ROUNDS);
        let planned = 3.0 * fault
            + (p.rounds * 3) as f64 * (2.0 * p.timed.duration_ms as f64 / 1000.0 + 0.02);
        assert!(planned < b, "{planned} {b}");
        assert!(
            (p.budget_s - b).abs() < 1e-9,
            "no single measurements: the whole budget"
        );
        assert_eq!(p.target_half_width, DEFAULT_TARGET_HALF_WIDTH);
        let p = plan_rounds(b, 3, 2, bytes, 100, true);
        assert!((p.budget_s - (b - 2.0 * fault)).abs() < 1e-9, "{p:?}");
        // Too little time: six rounds of the shortest repetition, never fewer.
        let p = plan_rounds(0.1, 5, 0, 1 << 30, 100, false);
        assert_eq!(
            (p.rounds, p.timed.duration_ms),
            (MIN_ROUNDS, MIN_REPETITION_MS)
        );
    }
}
