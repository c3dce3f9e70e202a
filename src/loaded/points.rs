//! One point of the loaded-latency curve from one team repetition: what each thread of the
//! team returned (the chaser's samples, each load thread's line counts) turned into rates, the
//! chaser's latency summary and the mean delay, plus the descheduling check over all points.
//! Pure arithmetic over the samples the engine collected.

use super::delay::DelayCalibration;
use super::kernel::{LoadCount, LINE_BYTES};
use super::result::{LoadedPoint, ThreadRate};
use crate::counters_perf::NodeEventCounts;
use crate::stats::Summary;

/// One thread's return of one repetition, with its CPU time (ns) where known.
pub(super) type Sample = crate::threads::ThreadSample<(Out, Option<u64>)>;

/// What each thread returns per repetition.
pub(super) enum Out {
    Chaser {
        samples_ns: Vec<f64>,
        loads: u64,
        events: Option<NodeEventCounts>,
    },
    Load(LoadCount),
}

/// Below this share of its wall time on a CPU, a thread was descheduled enough to distort
/// its rate and the chaser's latency.
pub const MIN_CPU_SHARE: f64 = 0.9;

/// A warning naming the busiest competition seen: the lowest CPU share of any running thread.
pub(super) fn descheduling_warning(points: &[LoadedPoint]) -> Option<String> {
    let worst = points
        .iter()
        .flat_map(|p| p.threads.iter())
        .filter_map(|t| t.cpu_share.map(|s| (s, t.cpu)))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    (worst.0 < MIN_CPU_SHARE).then(|| {
        format!(
            "measurement threads were descheduled: CPU {} ran only {:.0}% of its time in one point; other work competes for these CPUs, so bandwidths are low and latencies noisy",
            worst.1,
            100.0 * worst.0
        )
    })
}

/// Turns one repetition's samples into a point; `target_fraction` is `None` for the no-load
/// point. The point's delay is the load threads' mean spin per line.
pub(super) fn point_from(
    rep: &[Sample],
    target_fraction: Option<f64>,
    calibration: &DelayCalibration,
) -> anyhow::Result<LoadedPoint> {
    let mut threads = Vec::with_capacity(rep.len());
    let (mut load_mb, mut chaser_mb, mut dram_extra_mb) = (0.0, 0.0, 0.0);
    let mut ns = None;
    let mut chaser_events = None;
    let (mut spins, mut lines) = (0u64, 0u64);
    let loaded = target_fraction.is_some();
    for s in rep {
        let secs_ns = s.elapsed_ns.max(1) as f64;
        let cpu_share = s.value.1.map(|c| c as f64 / secs_ns);
        match &s.value.0 {
            Out::Chaser {
                samples_ns,
                loads,
                events,
            } => {
                chaser_events = events.clone();
                let mb = (*loads * LINE_BYTES as u64) as f64 / secs_ns * 1e3;
                chaser_mb += mb;
                ns = Summary::of(samples_ns);
                threads.push(ThreadRate {
                    cpu: s.cpu,
                    role: "chaser".into(),
                    mb_per_s: mb,
                    elapsed_ns: s.elapsed_ns,
                    cpu_share,
                    lines_read: *loads,
                    lines_written: 0,
                });
            }
            Out::Load(c) => {
                let mb = c.bytes() as f64 / secs_ns * 1e3;
                load_mb += mb;
                dram_extra_mb += (c.dram_bytes_estimate() - c.bytes()) as f64 / secs_ns * 1e3;
                spins += c.spin_iterations;
                lines += c.lines();
                threads.push(ThreadRate {
                    cpu: s.cpu,
                    role: "load".into(),
                    mb_per_s: mb,
                    elapsed_ns: s.elapsed_ns,
                    cpu_share: if loaded { cpu_share } else { None },
                    lines_read: c.lines_read,
                    lines_written: c.lines_written,
                });
            }
        }
    }
    let ns_per_load = ns.ok_or_else(|| {
        anyhow::anyhow!("the chaser completed no sample in a point; lengthen --duration")
    })?;
    let mean_spins = spins as f64 / lines.max(1) as f64;
    Ok(LoadedPoint {
        delay_ns: loaded.then_some(mean_spins * calibration.ns_per_iteration),
        delay_iterations: if loaded { mean_spins.round() as u64 } else { 0 },
        target_fraction,
        total_mb_per_s: load_mb + chaser_mb,
        load_mb_per_s: load_mb,
        chaser_mb_per_s: chaser_mb,
        dram_mb_per_s_estimate: load_mb + chaser_mb + dram_extra_mb,
        ns_per_load,
        chaser_node_events: chaser_events,
        threads,
    })
}
