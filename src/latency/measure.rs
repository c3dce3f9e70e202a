//! Walks into samples (docs/METHODOLOGY.md, "Clocks and cycles", "Summaries and intervals"): one
//! full pass over every chain first, so the first timed load does not pay for faults or cold caches
//! of the construction; then each sample is sized to last at least `min_sample` and 1000 timer
//! resolutions, the first `warmup` samples are dropped, and each kept sample is elapsed ns / loads.
//! Samples continue where the previous one stopped, so together they walk the cycle rather than one
//! prefix of it. With several chains, ns per load is elapsed time over the loads of all chains: the
//! throughput figure that shows memory-level parallelism. Nothing here prints.
//!
//! When the caller names the CPU it is pinned to ([`Judge`]), each timed sample is wrapped in a
//! [`Probe`] (docs/METHODOLOGY.md, "Disturbed repetitions"): a sample during which the thread got
//! less than 90 % of its CPU (or the hypervisor stole it) is discarded and taken again, up to as
//! many retakes as samples planned; after that it is kept and the measurement is marked disturbed.
//! An idle machine takes exactly the planned samples.
//!
//! With a [`PrecisionGoal`] (the headline figures only: a sweep's largest point, a matrix
//! cell, a size asked by name), the planned samples are followed by batches of extra samples
//! while the median's 95 % interval is wider than the goal's target, at most as
//! many as planned and within the goal's time pool; each batch is the fewest samples that can
//! narrow the interval ([`next_batch`]). The measurement records its [`Precision`]. Every
//! other sweep point keeps the planned count: a sweep has tens of points, and the budget is
//! spent on the figures people quote.
//!
//! A stop signal ([`interrupted`]) ends the measurement at the next sample: the samples kept
//! so far are the figure (with their count, so two samples show no interval), and a
//! measurement that kept none is `None`, never a zero.

use std::time::{Duration, Instant};

use super::walk::{Chain, LOADS_PER_ITERATION};
use crate::results::latency::SamplePlan;
use crate::results::quality::{Precision, RepSample, RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::schedule::extras::{next_batch, ExtraCost};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::precision::PrecisionGoal;
use crate::threads::Probe;

/// Whom to judge: the CPU the measuring thread is pinned to, and the root `/proc/stat` is
/// read through (steal time).
#[derive(Clone, Copy, Debug)]
pub struct Judge<'a> {
    pub root: &'a SysRoot,
    pub cpu: u32,
}

/// Default minimum length of one sample, ns (2 ms: thousands of DRAM loads, hundreds of
/// thousands of timer resolutions, short enough that one preemption spoils one sample only).
pub const SAMPLE_NS_DEFAULT: u64 = 2_000_000;

impl Default for SamplePlan {
    fn default() -> Self {
        SamplePlan {
            samples: 25,
            warmup: 2,
            min_sample_ns: SAMPLE_NS_DEFAULT,
        }
    }
}

/// Raw outcome of one measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Per kept sample, ns per load.
    pub samples_ns: Vec<f64>,
    pub ns_per_load: Summary,
    pub loads_per_sample: u64,
    /// The samples' quality when a [`Judge`] was given.
    pub quality: Option<RepetitionQuality>,
    /// How precise the median came out against the goal it was measured toward, with the
    /// extra samples taken; `None` without a goal.
    pub precision: Option<Precision>,
    /// The blocks a sweep point was measured in: `ns_per_load` is then the summary
    /// of the block medians; `None` for a measurement of samples back to back.
    pub blocks: Option<crate::results::latency::PointBlocks>,
}

/// Which sizes of a job are measured toward a precision goal: those from index `from` on (a
/// sweep's largest point, every size of a list, a matrix cell).
#[derive(Clone, Copy, Debug)]
pub struct Aim<'a> {
    pub goal: &'a PrecisionGoal,
    pub from: usize,
}

/// Iterations of the first pass walked between two looks at the stop flag (a few MiB of
/// 64 B elements: well under 100 ms even from DRAM).
const PASS_CHUNK: u64 = (4 << 20) / 64 / LOADS_PER_ITERATION;

/// Measures a built chain; with `judge`, disturbed samples are taken again (module docs).
/// `None` when a stop signal came before any sample was kept.
pub fn measure(
    chain: &mut Chain<'_>,
    plan: &SamplePlan,
    timer_resolution_ns: f64,
    judge: Option<Judge<'_>>,
) -> Option<Measurement> {
    measure_toward(chain, plan, timer_resolution_ns, judge, None)
}

/// [`measure`], then, with a `goal`, extra samples while the median's interval is wider than
/// the goal's target (module docs); the measurement records its [`Precision`].
pub fn measure_toward(
    chain: &mut Chain<'_>,
    plan: &SamplePlan,
    timer_resolution_ns: f64,
    judge: Option<Judge<'_>>,
    goal: Option<&PrecisionGoal>,
) -> Option<Measurement> {
    let samples = plan.samples.max(1);
    first_pass(chain)?;
    let iterations = calibrate(chain, plan.min_sample_ns, timer_resolution_ns)?;
    for _ in 0..plan.warmup {
        chain.walk(iterations);
    }
    let taken = take_samples(samples, judge.is_some(), goal, || {
        timed_sample(chain, iterations, judge)
    });
    // Empty only when the stop signal came before the first kept sample.
    let ns_per_load = Summary::of(&taken.samples_ns)?;
    Some(Measurement {
        samples_ns: taken.samples_ns,
        ns_per_load,
        loads_per_sample: iterations * LOADS_PER_ITERATION,
        quality: taken.quality,
        precision: taken.precision,
        blocks: None,
    })
}

/// Touches every element of `chain` once (all chains together hold `elements`), in chunks
/// between looks at the stop flag; `None` when a stop signal came.
pub(crate) fn first_pass(chain: &mut Chain<'_>) -> Option<()> {
    let mut pass = (chain.elements() as u64)
        .div_ceil(LOADS_PER_ITERATION)
        .max(1);
    while pass > 0 {
        if interrupted() {
            return None;
        }
        let step = pass.min(PASS_CHUNK.max(1));
        chain.walk(step);
        pass -= step;
    }
    Some(())
}

/// The iterations one sample of at least `min_sample_ns` (and 1000 timer resolutions) walks
/// on `chain`, found by walking; `None` when a stop signal came.
pub(crate) fn calibrate(
    chain: &mut Chain<'_>,
    min_sample_ns: u64,
    timer_resolution_ns: f64,
) -> Option<u64> {
    let target_ns = (min_sample_ns as f64).max(1000.0 * timer_resolution_ns);
    let mut iterations: u64 = 64;
    loop {
        if interrupted() {
            return None;
        }
        let t = Instant::now();
        chain.walk(iterations);
        let e = t.elapsed().as_nanos() as f64;
        if e >= target_ns {
            return Some(iterations);
        }
        // Aim 10 % above the target; at least double so tiny first runs converge fast.
        let scale = if e > 0.0 {
            (1.1 * target_ns / e).max(2.0)
        } else {
            16.0
        };
        iterations = ((iterations as f64 * scale) as u64).max(iterations + 1);
    }
}

/// How one block samples: the minimum length of a sample, the warm-up samples dropped, the
/// samples kept, and the timer's resolution (for calibrating a sample).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BlockPlan {
    pub sample_ns: u64,
    pub warmup: usize,
    pub keep: usize,
    pub timer_resolution_ns: f64,
}

/// One block of a sweep's pass on a built chain (`sweep`): with `full_walk` one
/// pass over every element first (a chain just built, or one that fits a cache and was
/// evicted by the other sizes since its last block), without it the untimed walk to steady
/// state of [`super::steady::settle`], then `bp.warmup` samples of `iterations`
/// (calibrated here when `None`) dropped, then `bp.keep` kept samples, disturbed ones taken
/// again as in [`take_samples`]. Returns the samples with their quality, the iterations of a
/// sample, and how long the block took. `None` when a stop signal came before it sampled.
pub(crate) fn measure_block(
    chain: &mut Chain<'_>,
    full_walk: bool,
    iterations: Option<u64>,
    bp: BlockPlan,
    judge: Option<Judge<'_>>,
) -> Option<(Samples, u64, Duration)> {
    let t0 = Instant::now();
    if full_walk {
        first_pass(chain)?;
    } else {
        // A chain kept built since its last block starts cold after what ran in between:
        // walk it untimed to its steady state first (`steady`).
        super::steady::settle(chain);
    }
    let iterations = match iterations {
        Some(i) => i,
        None => calibrate(chain, bp.sample_ns, bp.timer_resolution_ns)?,
    };
    for _ in 0..bp.warmup {
        chain.walk(iterations);
    }
    let taken = take_samples(bp.keep.max(1), judge.is_some(), None, || {
        timed_sample(chain, iterations, judge)
    });
    Some((taken, iterations, t0.elapsed()))
}

/// One timed walk of `iterations` over `chain`, probed when judged.
fn timed_sample(chain: &mut Chain<'_>, iterations: u64, judge: Option<Judge<'_>>) -> Taken {
    let probe = judge.map(|j| Probe::start(j.root, j.cpu));
    let t = Instant::now();
    let loads = chain.walk(iterations);
    let e = t.elapsed();
    Taken {
        ns_per_load: ns_per(e, loads),
        elapsed: e,
        judged: probe.map(|p| p.finish()),
    }
}

/// One timed sample as the sampler sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Taken {
    pub ns_per_load: f64,
    /// How long the sample took (what an extra one costs the goal's pool).
    pub elapsed: Duration,
    /// What the probe saw over the sample, when judged.
    pub judged: Option<RepSample>,
}

/// The samples a figure kept, with their quality and precision records.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Samples {
    pub samples_ns: Vec<f64>,
    pub quality: Option<RepetitionQuality>,
    pub precision: Option<Precision>,
}

/// Takes `planned` kept samples from `take` (a disturbed one is discarded and taken again
/// while the quality record's allowance lasts, when `judged`), then, toward `goal`, batches of
/// extra samples while [`next_batch`] asks for them; every extra sample taken, kept or not, is
/// spent from the goal's pool. The sample source is a parameter so the policy is tested with
/// synthetic samples. A stop signal ends it at the next sample.
pub(crate) fn take_samples(
    planned: usize,
    judged: bool,
    goal: Option<&PrecisionGoal>,
    mut take: impl FnMut() -> Taken,
) -> Samples {
    let mut quality = judged.then(|| RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, planned as u32));
    let mut out = Vec::with_capacity(planned);
    let mut elapsed: Vec<Duration> = Vec::with_capacity(planned);
    let keep_one = |quality: &mut Option<RepetitionQuality>, t: Taken| -> bool {
        match (t.judged, quality.as_mut()) {
            (Some(s), Some(q)) => q.record(&s).kept(),
            _ => true,
        }
    };
    while out.len() < planned && !interrupted() {
        let t = take();
        if keep_one(&mut quality, t) {
            out.push(t.ns_per_load);
            elapsed.push(t.elapsed);
        }
    }
    let Some(goal) = goal else {
        return Samples {
            samples_ns: out,
            quality,
            precision: None,
        };
    };
    let mut extra = 0;
    loop {
        let per = {
            let mut e = elapsed.clone();
            e.sort();
            e.get(e.len() / 2).copied().unwrap_or_default()
        };
        let cost = ExtraCost {
            per_repetition: per,
            per_batch: Duration::ZERO,
        };
        let batch = next_batch(
            &out,
            planned,
            extra,
            goal.target_half_width_fraction,
            cost,
            goal.time_left(),
        );
        if batch == 0 || interrupted() {
            break;
        }
        // The extras bring their own retakes, as many as they are.
        if let Some(q) = quality.as_mut() {
            q.retake_allowance = q.retake_allowance.saturating_add(batch as u32);
        }
        let want = out.len() + batch;
        while out.len() < want && !interrupted() {
            if goal.pool_left().is_some_and(|left| left < per) {
                break;
            }
            let t = take();
            goal.spend(t.elapsed);
            if keep_one(&mut quality, t) {
                out.push(t.ns_per_load);
                elapsed.push(t.elapsed);
                extra += 1;
            }
        }
        if out.len() < want {
            break;
        }
    }
    let precision = Some(goal.record(&out, planned, extra));
    Samples {
        samples_ns: out,
        quality,
        precision,
    }
}

fn ns_per(e: Duration, loads: u64) -> f64 {
    e.as_nanos() as f64 / loads as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::chase::ChainSpec;
    use crate::results::latency::Mode;
    use crate::results::latency::*;

    /// Measures a 4 KiB (L1-resident) random chain: `samples` of at least `min_sample_ns`.
    fn measure_l1(samples: usize, min_sample_ns: u64, judge: Option<Judge<'_>>) -> Measurement {
        let mut buf = vec![0u64; 4096 / 8];
        let spec = ChainSpec {
            mode: Mode::Random,
            chains: 1,
            element_bytes: 64,
            group_bytes: 4096,
            seed: 7,
        };
        let mut chain = Chain::build(&mut buf, &spec).unwrap();
        let plan = SamplePlan {
            samples,
            warmup: 1,
            min_sample_ns,
        };
        measure(&mut chain, &plan, 30.0, judge).expect("no stop signal in unit tests")
    }

    #[test]
    fn measures_an_l1_resident_chain() {
        let m = measure_l1(5, 200_000, None);
        assert_eq!(m.ns_per_load.samples, 5);
        assert_eq!(m.samples_ns.len(), 5);
        // An L1 hit takes a few cycles, never less than 0.3 ns; a folded or skipped chain
        // would show ~0. No upper bound: a busy machine only makes samples slower.
        assert!(
            m.ns_per_load.min.is_finite() && m.ns_per_load.min > 0.3,
            "{:?}",
            m.ns_per_load
        );
        assert_eq!(m.quality, None, "no judge, no quality record");
        assert!(m.loads_per_sample >= 64 * LOADS_PER_ITERATION);
    }

    /// A synthetic sample source: `values` in turn (cycling), each "taking" 1 ms, judged
    /// undisturbed unless its index is in `disturbed`.
    fn source<'a>(
        values: &'a [f64],
        taken: &'a mut usize,
        disturbed: &'a [usize],
    ) -> impl FnMut() -> Taken + 'a {
        move || {
            let i = *taken;
            *taken += 1;
            Taken {
                ns_per_load: values[i % values.len()],
                elapsed: Duration::from_millis(1),
                judged: Some(RepSample {
                    cpu_share_fraction: Some(if disturbed.contains(&i) { 0.4 } else { 0.99 }),
                    cpu: Some(0),
                    ..RepSample::default()
                }),
            }
        }
    }

    /// Nine samples spread +-15 %, then a quiet source: batches of extra samples (to 12, 15
    /// and 17 samples, where the interval's ranks move) until the interval is within +-3 %,
    /// then no more.
    #[test]
    fn extra_samples_stop_when_the_interval_is_met() {
        let mut values = vec![80.0, 120.0, 90.0, 110.0, 100.0, 85.0, 115.0, 95.0, 105.0];
        values.extend([100.0; 40]);
        let mut taken = 0;
        let goal = PrecisionGoal::count_bounded(0.03);
        let s = take_samples(9, true, Some(&goal), source(&values, &mut taken, &[]));
        let p = s.precision.expect("measured toward a goal");
        assert_eq!((p.planned_rounds, p.extra_rounds), (9, 8));
        assert!(p.met(), "{p:?}");
        assert_eq!(p.half_width_fraction, Some(0.0));
        assert_eq!(s.samples_ns.len(), 17);
        assert_eq!(taken, 17, "nothing taken after the interval was met");
        let q = s.quality.unwrap();
        assert_eq!((q.repetitions_taken, q.repetitions_kept), (17, 17));
        // The same samples without a goal: the planned nine, no record.
        let mut taken = 0;
        let s = take_samples(9, false, None, source(&values, &mut taken, &[]));
        assert_eq!((s.samples_ns.len(), taken), (9, 9));
        assert_eq!((s.precision, s.quality), (None, None));
    }

    /// A source that stays noisy: extras up to the planned count (8 of 9: the next batch,
    /// to 20 samples, would pass it), the figure kept with its width; a time pool stops them
    /// sooner and is spent by what was taken, discarded samples included.
    #[test]
    fn extra_samples_stay_within_the_count_and_the_time_pool() {
        let values = [80.0, 120.0, 90.0, 110.0, 100.0, 85.0, 115.0, 95.0, 105.0];
        let mut taken = 0;
        let goal = PrecisionGoal::count_bounded(0.03);
        let s = take_samples(9, true, Some(&goal), source(&values, &mut taken, &[]));
        let p = s.precision.unwrap();
        assert_eq!(p.extra_rounds, 8);
        assert!(!p.met() && p.half_width_fraction.unwrap() > 0.03, "{p:?}");
        assert_eq!(taken, 17);
        // 5 ms of pool at 1 ms a sample: one batch of three (2 ms left, less than the next
        // batch of three).
        let mut taken = 0;
        let goal = PrecisionGoal::within(0.03, Duration::from_millis(5));
        let s = take_samples(9, true, Some(&goal), source(&values, &mut taken, &[]));
        assert_eq!(s.precision.unwrap().extra_rounds, 3);
        assert_eq!(goal.time_left(), Some(Duration::from_millis(2)));
        assert_eq!(taken, 12);
        // A disturbed extra sample is discarded, taken again and paid for: 4 ms for 3 kept.
        let mut taken = 0;
        let goal = PrecisionGoal::within(0.03, Duration::from_millis(5));
        let s = take_samples(9, true, Some(&goal), source(&values, &mut taken, &[10]));
        let q = s.quality.unwrap();
        assert_eq!(s.precision.unwrap().extra_rounds, 3);
        assert_eq!((q.repetitions_discarded, q.repetitions_kept), (1, 12));
        assert_eq!(goal.time_left(), Some(Duration::from_millis(1)));
    }

    /// With a judge each kept sample is one the quality record kept: the planned count,
    /// whatever was discarded on a busy machine.
    #[test]
    fn a_judged_measurement_keeps_the_planned_samples() {
        let _serial = crate::testutil::timing_lock();
        let topo = crate::testutil::this_machine_one_node();
        let root = SysRoot::live();
        let cpu = topo.usable_cpus()[0];
        let m = crate::threads::on_cpu(&topo, &root, cpu, || {
            measure_l1(6, 100_000, Some(Judge { root: &root, cpu }))
        })
        .unwrap();
        assert_eq!(m.samples_ns.len(), 6);
        let q = m.quality.expect("judged");
        assert_eq!(q.repetitions_kept, 6);
        assert_eq!(q.repetitions_taken, 6 + q.repetitions_discarded);
        assert!(q.repetitions_discarded <= 6, "within the allowance");
        assert_eq!(q.retake_allowance, 6);
        assert!(
            m.ns_per_load.ci.map(|c| c.low).is_some(),
            "six samples have an interval"
        );
    }
}
