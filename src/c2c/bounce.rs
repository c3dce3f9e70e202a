//! The measurement: two pinned threads bounce one cache line (docs/METHODOLOGY.md, "Core to core").
//! The "ping" thread turns an even value `v` into `v + 1` with a compare-and-swap and waits for
//! `v + 2`; the "pong" thread turns every odd value into the next even one. One round trip is
//! two transfers of the line's ownership, so the one-way time is half of it.
//!
//! Round trips are timed in batches; each batch is one sample (ns one way = batch time /
//! round trips / 2). A team repetition runs batches until the shared stop flag; the batches
//! of its first fifth are a warm-up and are dropped (the threads have just been pinned; a
//! whole warm-up repetition per block would double the cost of the short blocks `c2c::run`
//! spreads over the part). Both threads poll the stop flag while spinning, and
//! the handshake heals itself across repetitions: a request left unanswered when the flag rose
//! is answered at the start of the next one, and the ping side waits for an even value before
//! it starts timing. Nothing here prints.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::results::quality::RepetitionQuality;
use crate::results::topology::Topology;
use crate::sysroot::SysRoot;
use crate::threads::{run_team, Stop, TeamPlan, ThreadError};

/// How one pair is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BouncePlan {
    /// Round trips per sample (one timed batch).
    pub round_trips_per_sample: u64,
    /// Kept repetitions; each gives as many samples as fit in `repetition`.
    pub repetitions: usize,
    /// Length of one repetition.
    pub repetition: Duration,
}

impl Default for BouncePlan {
    fn default() -> Self {
        BouncePlan {
            round_trips_per_sample: 200,
            repetitions: 5,
            repetition: Duration::from_millis(10),
        }
    }
}

/// The first 1/WARMUP_DIVISOR of each repetition is a warm-up.
pub const WARMUP_DIVISOR: u32 = 5;

/// Spins between two polls of the stop flag while waiting for the other side.
const POLL_EVERY: u32 = 1024;

/// One ordered pair and the line it bounces: `ping` on CPU `from`, `pong` on CPU `to`.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    pub line: &'a AtomicU64,
    pub from: u32,
    pub to: u32,
}

/// Measures one ordered pair. Returns the one-way ns of every kept sample (the warm-up fifth
/// of each repetition dropped).
pub fn bounce_pair(
    topo: &Topology,
    root: &SysRoot,
    pair: Pair<'_>,
    plan: &BouncePlan,
) -> Result<Bounce, ThreadError> {
    let Pair { line, from, to } = pair;
    let team = TeamPlan::new(plan.repetition, plan.repetitions.max(1), 0);
    let batch = plan.round_trips_per_sample.max(1);
    let warmup = plan.repetition / WARMUP_DIVISOR;
    let out = run_team(
        topo,
        root,
        &[from, to],
        &team,
        |_, _| Ok(()),
        |index, _, stop| {
            if index == 0 {
                ping(line, batch, warmup, stop)
            } else {
                pong(line, stop);
                Vec::new()
            }
        },
    )?;
    Ok(Bounce {
        samples_ns: out
            .reps
            .iter()
            .flat_map(|rep| rep[0].value.iter().copied())
            .collect(),
        cpu_share: out.quality.lowest_kept_cpu_share_fraction,
        quality: out.quality,
    })
}

/// What one pair's measurement gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounce {
    /// One-way ns of every kept sample.
    pub samples_ns: Vec<f64>,
    /// Lowest CPU time / wall time of either thread in any kept repetition (1 = both ran all
    /// along; lower: descheduled by other work). None where thread CPU time is unavailable.
    pub cpu_share: Option<f64>,
    /// The team's record of the repetitions: disturbed ones (either thread below 90 % of its
    /// CPU, or steal) were taken again while the allowance lasted.
    pub quality: RepetitionQuality,
}

/// [`bounce_pair`], retried with 4x longer repetitions and 16x smaller batches (down to one
/// round trip a sample; up to `attempts` tries) while it yields no sample: on a busy shared
/// machine, or a software-emulated guest whose virtual CPUs wait for host CPUs, a short
/// repetition can end before the two threads ever ran at the same time, and a round trip can
/// take so long that no whole batch fits in a repetition. Returns the samples and the plan
/// that produced them.
pub fn bounce_pair_patient(
    topo: &Topology,
    root: &SysRoot,
    pair: Pair<'_>,
    plan: &BouncePlan,
    attempts: usize,
) -> Result<(Bounce, BouncePlan), ThreadError> {
    let mut p = *plan;
    for k in 0..attempts.max(1) {
        if k > 0 {
            p = more_patient(p);
        }
        let b = bounce_pair(topo, root, pair, &p)?;
        if !b.samples_ns.is_empty() || k + 1 == attempts.max(1) {
            return Ok((b, p));
        }
    }
    unreachable!("the last attempt returns")
}

/// The plan of the next attempt: 4x longer repetitions, 16x fewer round trips a sample
/// (at least one).
fn more_patient(p: BouncePlan) -> BouncePlan {
    BouncePlan {
        repetition: p.repetition * 4,
        round_trips_per_sample: (p.round_trips_per_sample / 16).max(1),
        ..p
    }
}

/// The timing side: batches of round trips until stopped; returns ns one way per batch.
/// A batch cut short by the stop flag is discarded, and so is every batch that ended within
/// `warmup` of the start.
fn ping(line: &AtomicU64, batch: u64, warmup: Duration, stop: &Stop) -> Vec<f64> {
    let mut samples = Vec::new();
    let warm_until = Instant::now() + warmup;
    // An unanswered request from the previous repetition is answered first.
    let Some(mut v) = wait_until(line, stop, |x| x % 2 == 0) else {
        return samples;
    };
    'outer: while !stop.stopped() {
        let t0 = Instant::now();
        for _ in 0..batch {
            while line
                .compare_exchange_weak(v, v + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_err()
            {
                std::hint::spin_loop();
            }
            match wait_until(line, stop, |x| x == v + 2) {
                Some(next) => v = next,
                None => break 'outer,
            }
        }
        let end = Instant::now();
        if end >= warm_until {
            let ns = (end - t0).as_nanos() as f64;
            samples.push(ns / batch as f64 / 2.0);
        }
    }
    samples
}

/// The answering side: turns every odd value into the next even one until stopped.
fn pong(line: &AtomicU64, stop: &Stop) {
    loop {
        let Some(v) = wait_until(line, stop, |x| x % 2 == 1) else {
            return;
        };
        // Only this thread changes an odd value, so the exchange cannot fail for long.
        while line
            .compare_exchange_weak(v, v + 1, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
    }
}

/// Spins until `line` holds a value satisfying `ok` (returned), or the stop flag rises (None).
#[inline(always)]
fn wait_until(line: &AtomicU64, stop: &Stop, ok: impl Fn(u64) -> bool) -> Option<u64> {
    let mut spins = 0u32;
    loop {
        let x = line.load(Ordering::Acquire);
        if ok(x) {
            return Some(x);
        }
        spins += 1;
        if spins == POLL_EVERY {
            spins = 0;
            if stop.stopped() {
                return None;
            }
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    /// A guest whose round trips take milliseconds: 200 round trips in 10 ms become one
    /// round trip a sample in 640 ms by the fourth attempt.
    #[test]
    fn each_attempt_waits_longer_for_fewer_round_trips() {
        let mut p = BouncePlan::default();
        let mut seen = vec![];
        for _ in 0..3 {
            p = more_patient(p);
            seen.push((p.round_trips_per_sample, p.repetition.as_millis()));
        }
        assert_eq!(seen, vec![(12, 40), (1, 160), (1, 640)]);
        assert_eq!(p.repetitions, BouncePlan::default().repetitions);
    }

    #[test]
    fn bouncing_counts_whole_batches_and_records_the_quality() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let cpus = topo.usable_cpus();
        if cpus.len() < 2 {
            eprintln!("skipped: a bounce needs two usable CPUs, this process has one");
            return;
        }
        let (a, b) = (cpus[0], cpus[1]);
        let line = AtomicU64::new(0);
        let plan = BouncePlan {
            round_trips_per_sample: 50,
            repetitions: 2,
            repetition: Duration::from_millis(20),
        };
        let pair = Pair {
            line: &line,
            from: a,
            to: b,
        };
        let (bounce, used) = bounce_pair_patient(&topo, &SysRoot::live(), pair, &plan, 4).unwrap();
        let s = bounce.samples_ns;
        let share = bounce.cpu_share.unwrap();
        assert!(share > 0.0 && share <= 1.0, "{share}");
        assert_eq!(
            bounce.quality.repetitions_kept, 2,
            "the planned repetitions"
        );
        assert_eq!(
            bounce.quality.repetitions_taken,
            2 + bounce.quality.repetitions_discarded
        );
        assert_eq!(bounce.quality.lowest_kept_cpu_share_fraction, Some(share));
        assert!(!s.is_empty(), "no round trip even in 1.28 s repetitions");
        // Mechanics, not speed: every sample is a finite positive time of one full batch, and
        // each batch moved the line twice per round trip, so the line counts at least that.
        assert!(s.iter().all(|&ns| ns.is_finite() && ns > 0.0), "{s:?}");
        let moved = line.load(Ordering::SeqCst);
        assert!(
            moved >= s.len() as u64 * used.round_trips_per_sample * 2,
            "{moved} for {} samples",
            s.len()
        );
    }
}
