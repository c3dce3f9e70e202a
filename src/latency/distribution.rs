//! The per-load latency distribution (`latency --distribution`, MLC's `-f` idea): the chase's
//! usual figure is elapsed time over millions of loads, so its percentiles are percentiles of
//! 2 ms means and say nothing about single loads. Here each *group* of 16 dependent loads of one
//! chain is timed with the CPU's own counter (TSC on x86_64, the generic timer on AArch64; see
//! [`super::walk::timed_groups`](super::walk::Chain::timed_groups)), many thousands of groups
//! in a row. A single load is not timed alone on purpose: a DRAM load takes ~100 ns and two
//! fenced counter reads cost 20-40 ns on bare metal and more in a VM, with a spread of their
//! own, so one load would be mostly timer; 16 loads make the timer a small, subtracted part.
//!
//! The timer's cost is measured first by the same two reads and fences with no load between
//! them ([`super::walk::timed_empty`]); its median is subtracted from every group and the
//! remainder divided by 16 is that group's ns per load. A group that comes out below zero (its
//! timer cost was below the median) is clamped to 0 and counted, never negative. Ticks become
//! ns through the counter's rate measured against the monotonic clock. The histogram has
//! log-spaced bins ([`BINS_PER_OCTAVE`] per factor of two) and the percentiles are nearest-rank
//! over all groups. Groups are timed in batches of [`BATCH`]; a batch during which the thread
//! got less than 90 % of its CPU is dropped and timed again, as the chase's samples are. Group
//! times include whatever happened during them (an interrupt, a TLB
//! miss's page walk), which is what the tail is for.
//!
//! The reference the median is checked against is the chase measured *between* the batches:
//! after each kept batch the same chain walks as many loads again untimed per
//! group, timed as one span with the same counter, and the median of those spans' ns per load
//! is the interleaved chase. A chase measured before the groups (the engine's usual samples)
//! ran in another time window: on a shared machine the memory traffic of other programs
//! changes from one window to the next, and that alone moved the median/chase ratio between
//! 0.88 and 0.97. Two differences remain by construction and are documented, not hidden: the
//! chase's figure is a mean over thousands of loads, so it includes the interrupts and short
//! descheduling a kept span had (a group that had one lands in the tail instead), and the
//! median of a right-skewed distribution lies below its mean.
//!
//! **Intervals of the percentiles**: each percentile (p1 to p99.9) carries a 95 %
//! distribution-free interval from order statistics over all kept groups
//! ([`crate::stats::quantile_interval`]): the count of groups below the true p-quantile is
//! Binomial(n, p), so the ranks j < k around n x p with P(j <= B < k) >= 95 % give the
//! interval, with its exact coverage. The alternative, percentiles per block of groups and an
//! interval over the blocks (as c2c does), was not chosen: a batch holds 2048 groups, so a
//! batch's p99.9 is its second-largest group and its p99 one of its twenty largest, far noisier
//! than the pooled figure they would bracket, and a default distribution has only about 25
//! batches. The pooled interval assumes the groups are independent draws; it says how exactly
//! the groups pin a percentile *within this window*, not how much the window itself moves from
//! one run to the next (other tenants' traffic): `compare` adds its between-run floor for that.
//! With too few groups for a percentile (p99.9 needs about 3000) that percentile has none.

use std::time::{Duration, Instant};

use super::measure::Judge;
use super::walk::{counter_now, timed_empty, Chain, LOADS_PER_ITERATION};
use crate::results::latency::{
    HistogramBin, LoadPercentiles, PercentileInterval, PercentileIntervals, TimerOverhead,
};
use crate::results::quality::{RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::stats::quantile::quantile_ranks;
use crate::stats::{percentile_sorted, CONFIDENCE};
use crate::threads::Probe;

/// Groups timed by default (about 0.1 s at DRAM latency).
pub const DEFAULT_GROUPS: usize = 50_000;

/// Empty timer pairs of the overhead calibration.
pub const OVERHEAD_READS: usize = 20_000;

/// Groups per judged batch.
pub const BATCH: usize = 2048;

/// Histogram bins per factor of two.
pub const BINS_PER_OCTAVE: u32 = 8;

/// How long the counter's rate is measured against the monotonic clock.
const RATE_SPAN: Duration = Duration::from_millis(20);

/// What the counter is, in words, for the report.
pub fn counter_name() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "TSC: lfence; rdtsc; lfence before the loads, rdtscp; lfence after"
    } else if cfg!(target_arch = "aarch64") {
        "generic timer cntvct_el0: isb; mrs; isb before the loads, dsb ish; isb; mrs after"
    } else {
        "none: this architecture has no counter kernel"
    }
}

/// Whether the counter keeps a constant rate: CPUID's invariant-TSC bit on x86_64; the
/// architected generic timer is constant-rate by definition on AArch64.
pub fn counter_invariant() -> Option<bool> {
    if cfg!(target_arch = "aarch64") {
        return Some(true);
    }
    crate::sys::cpu::cpuid(0x8000_0007, 0).map(|r| r.edx & (1 << 8) != 0)
}

/// The counter's ticks per second, measured against the monotonic clock by spinning
/// `RATE_SPAN` (20 ms); `None` without a counter or when it did not move.
pub fn counter_hz() -> Option<f64> {
    let c0 = counter_now()?;
    let t0 = Instant::now();
    let mut t = t0;
    while t.duration_since(t0) < RATE_SPAN {
        t = Instant::now();
    }
    let c1 = counter_now()?;
    let ns = t.duration_since(t0).as_nanos() as f64;
    let ticks = c1.wrapping_sub(c0) as f64;
    (ticks > 0.0 && ns > 0.0).then(|| ticks / ns * 1e9)
}

/// The overhead figures of empty timer pairs, in ns, from their ticks.
pub fn overhead(empty_ticks: &[u64], ns_per_tick: f64) -> Option<TimerOverhead> {
    if empty_ticks.is_empty() {
        return None;
    }
    let mut s: Vec<f64> = empty_ticks
        .iter()
        .map(|&t| t as f64 * ns_per_tick)
        .collect();
    s.sort_by(f64::total_cmp);
    Some(TimerOverhead {
        median_ns: crate::stats::median_sorted(&s),
        min_ns: s[0],
        p10_ns: percentile_sorted(&s, 10.0),
        p90_ns: percentile_sorted(&s, 90.0),
        p99_ns: percentile_sorted(&s, 99.0),
        reads: s.len(),
    })
}

/// Each group's ns per load: (ticks x ns per tick - overhead) / loads, clamped at 0. Returns
/// the values and how many were clamped.
pub fn per_load_ns(
    group_ticks: &[u64],
    ns_per_tick: f64,
    overhead_ns: f64,
    loads_per_group: u64,
) -> (Vec<f64>, usize) {
    let mut clamped = 0;
    let v = group_ticks
        .iter()
        .map(|&t| {
            let ns = (t as f64 * ns_per_tick - overhead_ns) / loads_per_group.max(1) as f64;
            if ns < 0.0 {
                clamped += 1;
                0.0
            } else {
                ns
            }
        })
        .collect();
    (v, clamped)
}

/// Nearest-rank percentile of sorted, non-empty `s`: the value of rank ceil(q/100 x n), the
/// product rounded first so that 99.9 % of 1000 is rank 999, not 1000 by a rounding error.
fn nearest_rank(s: &[f64], q: f64) -> f64 {
    let exact = q / 100.0 * s.len() as f64;
    let rank = ((exact * 1e9).round() / 1e9).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

/// Nearest-rank percentiles of `values` (any order); `None` when empty or any is not finite.
pub fn percentiles(values: &[f64]) -> Option<LoadPercentiles> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let p = |q: f64| nearest_rank(&s, q);
    Some(LoadPercentiles {
        min: s[0],
        p1: p(1.0),
        p10: p(10.0),
        p50: p(50.0),
        p90: p(90.0),
        p99: p(99.0),
        p99_9: p(99.9),
        max: s[s.len() - 1],
        mean: s.iter().sum::<f64>() / s.len() as f64,
        intervals: Some(intervals_sorted(&s)),
    })
}

/// The 95 % order-statistic interval of each percentile over sorted `s` (module docs: over
/// all groups, not over blocks); a percentile the groups are too few for has none.
fn intervals_sorted(s: &[f64]) -> PercentileIntervals {
    let ci = |p: f64| {
        let (j, k, level) = quantile_ranks(s.len(), p, CONFIDENCE)?;
        Some(PercentileInterval {
            low: s[j - 1],
            high: s[k - 1],
            level,
        })
    };
    PercentileIntervals {
        p1: ci(0.01),
        p10: ci(0.10),
        p50: ci(0.50),
        p90: ci(0.90),
        p99: ci(0.99),
        p99_9: ci(0.999),
    }
}

/// Log-spaced histogram of non-negative `values`: bin edges are powers of
/// 2^(1/`per_octave`) ns; bins run from the one holding the smallest positive value to the
/// one holding the largest. Zeros (clamped groups) get a first bin from 0 to the lowest edge.
/// Every finite value lands in exactly one bin; non-finite and negative values are skipped.
pub fn histogram(values: &[f64], per_octave: u32) -> Vec<HistogramBin> {
    let per_octave = per_octave.max(1) as f64;
    let index = |v: f64| (v.log2() * per_octave).floor() as i64;
    let edge = |i: i64| (i as f64 / per_octave).exp2();
    let positive = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for v in positive.clone() {
        let i = index(v);
        lo = lo.min(i);
        hi = hi.max(i);
    }
    let zeros = values.iter().filter(|v| **v == 0.0).count() as u64;
    let mut bins = Vec::new();
    if lo > hi {
        if zeros > 0 {
            bins.push(HistogramBin {
                low_ns: 0.0,
                high_ns: 1.0,
                count: zeros,
            });
        }
        return bins;
    }
    if zeros > 0 {
        bins.push(HistogramBin {
            low_ns: 0.0,
            high_ns: edge(lo),
            count: zeros,
        });
    }
    let first = bins.len();
    bins.extend((lo..=hi).map(|i| HistogramBin {
        low_ns: edge(i),
        high_ns: edge(i + 1),
        count: 0,
    }));
    for v in positive {
        // Floating-point edges: place by index, then nudge so low <= v < high holds.
        let mut i = (index(v) - lo) as usize;
        while i > 0 && v < bins[first + i].low_ns {
            i -= 1;
        }
        while first + i + 1 < bins.len() && v >= bins[first + i].high_ns {
            i += 1;
        }
        bins[first + i].count += 1;
    }
    bins
}

/// What [`measure`] produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Median ns per load of the chase spans walked between the batches (module docs);
    /// `None` when no batch was kept.
    pub interleaved_chase_ns: Option<f64>,
    pub counter_hz: f64,
    pub overhead: TimerOverhead,
    pub clamped: usize,
    pub ns_per_load: LoadPercentiles,
    pub histogram: Vec<HistogramBin>,
    pub groups: usize,
    /// The batches' quality when a judge was given.
    pub quality: Option<RepetitionQuality>,
}

/// Why a distribution could not be measured; one sentence each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DistributionError {
    #[error("--distribution needs a cycle counter numascope can read without a system call (x86_64 TSC or AArch64 generic timer), and this architecture has none")]
    NoCounter,
    #[error("--distribution times one chain and was given {0}; it always walks one chain of the chosen mode")]
    Chains(usize),
    #[error("the cycle counter did not advance over 20 ms; --distribution cannot convert its ticks to time on this machine")]
    CounterStopped,
}

/// Warm-up: touches every element once (faults, cold TLB) in stop-checked chunks; `false`
/// when a stop signal came.
fn first_walk(chain: &mut Chain<'_>) -> bool {
    let mut pass = (chain.elements() as u64).div_ceil(LOADS_PER_ITERATION);
    while pass > 0 {
        if crate::sys::signal::interrupted() {
            return false;
        }
        let step = pass.min(1 << 16);
        chain.walk(step);
        pass -= step;
    }
    true
}

/// Times `groups` groups of a built one-chain `chain` after one warm-up pass over its elements
/// (skipped when `warm`: the caller has just walked the whole chain, as the chase measured
/// beside it does, and a second pass would cost a second or more at DRAM sizes for nothing);
/// with `judge`, disturbed batches are timed again (see the body).
/// `None` inside `Ok` when a stop signal came first.
pub fn measure(
    chain: &mut Chain<'_>,
    groups: usize,
    judge: Option<Judge<'_>>,
    warm: bool,
) -> Result<Option<Measured>, DistributionError> {
    if chain.chains() != 1 {
        return Err(DistributionError::Chains(chain.chains()));
    }
    let hz = counter_hz().ok_or(if counter_now().is_none() {
        DistributionError::NoCounter
    } else {
        DistributionError::CounterStopped
    })?;
    let ns_per_tick = 1e9 / hz;
    if !warm && !first_walk(chain) {
        return Ok(None);
    }
    let mut empty = Vec::new();
    if !timed_empty(OVERHEAD_READS, &mut empty) {
        return Err(DistributionError::NoCounter);
    }
    let over = overhead(&empty, ns_per_tick).ok_or(DistributionError::NoCounter)?;
    // In batches of BATCH groups (a few tens of ms at DRAM latency), so Ctrl-C is heard
    // quickly and, with a judge, a batch during which the thread lost its CPU is dropped and
    // timed again (docs/METHODOLOGY.md, "Disturbed repetitions"), up to as many retakes as batches
    // planned.
    let groups = groups.max(1);
    let batches = groups.div_ceil(BATCH);
    let mut quality = judge.map(|_| RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, batches as u32));
    let mut ticks = Vec::with_capacity(groups);
    let mut batch = Vec::with_capacity(BATCH);
    let mut spans: Vec<f64> = Vec::new();
    while ticks.len() < groups {
        if crate::sys::signal::interrupted() {
            break;
        }
        batch.clear();
        let n = (groups - ticks.len()).min(BATCH);
        let probe = judge.map(|j| Probe::start(j.root, j.cpu));
        if !chain.timed_groups(n, &mut batch) {
            return Err(DistributionError::NoCounter);
        }
        let keep = match (probe, quality.as_mut()) {
            (Some(p), Some(q)) => q.record(&p.finish()).kept(),
            _ => true,
        };
        if keep {
            ticks.extend_from_slice(&batch);
            // The chase in the same window: as many loads, one span, the same counter; kept
            // with its batch (a span is judged as its batch was: the median over the spans
            // shrugs off the odd preempted one as the chase's median does).
            let (c0, loads) = (counter_now(), chain.walk(n as u64));
            let c1 = counter_now();
            if let (Some(a), Some(b)) = (c0, c1) {
                spans.push(b.wrapping_sub(a) as f64 * ns_per_tick / loads.max(1) as f64);
            }
        }
    }
    let (ns, clamped) = per_load_ns(&ticks, ns_per_tick, over.median_ns, LOADS_PER_ITERATION);
    let Some(p) = percentiles(&ns) else {
        return Ok(None);
    };
    Ok(Some(Measured {
        interleaved_chase_ns: (!spans.is_empty()).then(|| crate::stats::median(&spans)),
        counter_hz: hz,
        overhead: over,
        clamped,
        ns_per_load: p,
        histogram: histogram(&ns, BINS_PER_OCTAVE),
        groups: ns.len(),
        quality,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn overhead_is_subtracted_and_negatives_are_clamped_and_counted() {
        // 1 ns per tick, 40 ns overhead, 16 loads.
        let (v, clamped) = per_load_ns(&[40 + 16 * 100, 30, 40, 56], 1.0, 40.0, 16);
        assert_eq!(v, vec![100.0, 0.0, 0.0, 1.0]);
        assert_eq!(clamped, 1, "only the group below the overhead is clamped");
    }

    #[test]
    fn overhead_summary_of_known_ticks() {
        let ticks: Vec<u64> = (1..=100).collect();
        let o = overhead(&ticks, 0.5).unwrap();
        assert_eq!(o.reads, 100);
        assert_eq!(o.min_ns, 0.5);
        assert_eq!(o.median_ns, 25.25);
        assert_eq!(o.p10_ns, 5.0);
        assert_eq!(o.p90_ns, 45.0);
        assert_eq!(o.p99_ns, 49.5);
        assert!(overhead(&[], 1.0).is_none());
    }

    #[test]
    fn percentiles_of_known_values() {
        let v: Vec<f64> = (1..=1000).rev().map(f64::from).collect();
        let p = percentiles(&v).unwrap();
        assert_eq!(
            (p.min, p.p1, p.p10, p.p50, p.p90, p.p99, p.p99_9, p.max),
            (1.0, 10.0, 100.0, 500.0, 900.0, 990.0, 999.0, 1000.0)
        );
        assert_eq!(p.mean, 500.5);
        // Each percentile's interval holds it; 1000 groups are too few for p99.9's.
        let i = p.intervals.unwrap();
        for (name, v, ci) in p.named() {
            match ci {
                Some(c) => assert!(c.low <= v && v <= c.high && c.level >= 0.95, "{name}"),
                None => assert_eq!(name, "p99.9"),
            }
        }
        let p50 = i.p50.unwrap();
        assert!(p50.low >= 460.0 && p50.high <= 540.0, "{p50:?}");
        assert!(i.p99_9.is_none());
        assert!(percentiles(&[]).is_none());
        assert!(percentiles(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn histogram_bins_are_log_spaced_and_hold_their_values() {
        let h = histogram(&[0.0, 1.0, 1.5, 2.0, 3.9, 100.0], 2);
        // Zeros first, then [1, 1.41), [1.41, 2), [2, 2.83), [2.83, 4), ... up to 100's bin.
        assert_eq!(h[0].low_ns, 0.0);
        assert_eq!(h[0].high_ns, 1.0);
        assert_eq!(h[0].count, 1);
        assert_eq!(h[1].low_ns, 1.0);
        assert_eq!(h[1].count, 1);
        assert_eq!(h[2].count, 1, "1.5 in [1.41, 2)");
        assert_eq!(h[3].count, 1, "2.0 in [2, 2.83)");
        assert_eq!(h[4].count, 1, "3.9 in [2.83, 4)");
        let last = h.last().unwrap();
        assert!(last.low_ns <= 100.0 && 100.0 < last.high_ns && last.count == 1);
        assert!(histogram(&[], 8).is_empty());
        assert_eq!(histogram(&[0.0, 0.0], 8)[0].count, 2);
    }

    proptest! {
        #[test]
        fn histogram_counts_sum_and_edges_ascend(v in proptest::collection::vec(0.0f64..1e6, 1..400), per in 1u32..16) {
            let h = histogram(&v, per);
            prop_assert_eq!(h.iter().map(|b| b.count).sum::<u64>(), v.len() as u64);
            for w in h.windows(2) {
                prop_assert!(w[0].high_ns <= w[1].low_ns * (1.0 + 1e-12));
                prop_assert!(w[0].low_ns < w[0].high_ns);
            }
            prop_assert!(h.first().unwrap().count > 0 && h.last().unwrap().count > 0);
            for x in &v {
                let holding = h.iter().filter(|b| b.low_ns <= *x && *x < b.high_ns).count();
                prop_assert_eq!(holding, 1, "{} in {:?}", x, h);
            }
        }

        #[test]
        fn percentiles_are_monotone_and_within_the_range(v in proptest::collection::vec(0.0f64..1e6, 1..400)) {
            let p = percentiles(&v).unwrap();
            let chain = [p.min, p.p1, p.p10, p.p50, p.p90, p.p99, p.p99_9, p.max];
            prop_assert!(chain.windows(2).all(|w| w[0] <= w[1]), "{:?}", chain);
            prop_assert!(p.min <= p.mean && p.mean <= p.max * (1.0 + 1e-12));
            prop_assert!(v.contains(&p.p50));
        }

        #[test]
        fn subtraction_never_goes_negative(t in proptest::collection::vec(0u64..10_000, 0..200), over in 0.0f64..5_000.0, k in 1u64..32) {
            let (v, clamped) = per_load_ns(&t, 0.37, over, k);
            prop_assert_eq!(v.len(), t.len());
            prop_assert!(v.iter().all(|x| *x >= 0.0));
            let below = t.iter().filter(|&&x| (x as f64 * 0.37) < over).count();
            prop_assert_eq!(clamped, below);
        }
    }

    /// The kernel's mechanics: every group advances the chain by 16 loads and yields a tick
    /// count; nothing about how long they took.
    #[test]
    fn timed_groups_walk_the_chain() {
        use crate::{latency::chase::ChainSpec, results::latency::Mode};
        let mut buf = vec![0u64; 64 * 8];
        let base = buf.as_ptr() as usize;
        let spec = ChainSpec {
            mode: Mode::Seq,
            chains: 1,
            element_bytes: 64,
            group_bytes: 4096,
            seed: 1,
        };
        let mut ch = Chain::build(&mut buf, &spec).unwrap();
        let mut t = Vec::new();
        let ok = ch.timed_groups(5, &mut t);
        if counter_now().is_some() {
            assert!(ok);
            assert_eq!(t.len(), 5);
            // 5 groups x 16 loads over a 64-element sequential cycle: element 80 % 64.
            ch.walk(0);
            let mut e = Vec::new();
            assert!(timed_empty(3, &mut e));
            assert_eq!(e.len(), 3);
            assert_eq!(ch.position(0).map(|p| (p - base) / 64), Some(16));
        } else {
            assert!(!ok && t.is_empty());
        }
    }
}
