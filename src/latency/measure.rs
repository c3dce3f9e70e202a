//! Walks into samples (METHODOLOGY points 5 and 19): one full pass over every chain first, so
//! the first timed load does not pay for faults or cold caches of the construction; then each
//! sample is sized to last at least `min_sample` and 1000 timer resolutions, the first
//! `warmup` samples are dropped, and each kept sample is elapsed ns / loads. Samples continue
//! where the previous one stopped, so together they walk the cycle rather than one prefix of
//! it. With several chains, ns per load is elapsed time over the loads of all chains: the
//! throughput figure that shows memory-level parallelism. Nothing here prints.
//!
//! When the caller names the CPU it is pinned to ([`Judge`]), each timed sample is wrapped in a
//! [`Probe`] (METHODOLOGY point 21): a sample during which the thread got less than 90 % of its
//! CPU (or the hypervisor stole it) is discarded and taken again, up to as many retakes as
//! samples planned; after that it is kept and the measurement is marked disturbed. An idle
//! machine takes exactly the planned samples.
//!
//! A stop signal ([`interrupted`]) ends the measurement at the next sample: the samples kept
//! so far are the figure (with their count, so two samples show no interval), and a
//! measurement that kept none is `None`, never a zero.

use std::time::{Duration, Instant};

use super::walk::{Chain, LOADS_PER_ITERATION};
use crate::results::quality::{RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::Probe;

/// Whom to judge: the CPU the measuring thread is pinned to, and the root `/proc/stat` is
/// read through (steal time).
#[derive(Clone, Copy, Debug)]
pub struct Judge<'a> {
    pub root: &'a SysRoot,
    pub cpu: u32,
}

pub use crate::results::latency::SamplePlan;

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
    let samples = plan.samples.max(1);
    // Touch every element once (all chains together hold `elements`).
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

    let target_ns = (plan.min_sample_ns as f64).max(1000.0 * timer_resolution_ns);
    let mut iterations: u64 = 64;
    loop {
        if interrupted() {
            return None;
        }
        let t = Instant::now();
        chain.walk(iterations);
        let e = t.elapsed().as_nanos() as f64;
        if e >= target_ns {
            break;
        }
        // Aim 10 % above the target; at least double so tiny first runs converge fast.
        let scale = if e > 0.0 {
            (1.1 * target_ns / e).max(2.0)
        } else {
            16.0
        };
        iterations = ((iterations as f64 * scale) as u64).max(iterations + 1);
    }

    for _ in 0..plan.warmup {
        chain.walk(iterations);
    }
    let mut quality = judge.map(|_| RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, samples as u32));
    let mut out = Vec::with_capacity(samples);
    while out.len() < samples && !interrupted() {
        let probe = judge.map(|j| Probe::start(j.root, j.cpu));
        let t = Instant::now();
        let loads = chain.walk(iterations);
        let e = t.elapsed();
        let keep = match (probe, quality.as_mut()) {
            (Some(p), Some(q)) => q.record(&p.finish()).kept(),
            _ => true,
        };
        if keep {
            out.push(ns_per(e, loads));
        }
    }
    // Empty only when the stop signal came before the first kept sample.
    let ns_per_load = Summary::of(&out)?;
    Some(Measurement {
        samples_ns: out,
        ns_per_load,
        loads_per_sample: iterations * LOADS_PER_ITERATION,
        quality,
    })
}

fn ns_per(e: Duration, loads: u64) -> f64 {
    e.as_nanos() as f64 / loads as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::chase::{ChainSpec, Mode};

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
            m.ns_per_load.ci_low.is_some(),
            "six samples have an interval"
        );
    }
}
