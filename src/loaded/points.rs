//! One point of the loaded-latency curve from one team repetition: what each thread of the
//! team returned (the chaser's samples, each load thread's line counts) turned into rates, the
//! chaser's latency summary, the bandwidth of each chaser sample window summarized with its
//! interval, and the mean delay, plus the descheduling check over all points and the curve's
//! result built from them. Pure arithmetic over what the engine collected.

use super::curve::{self, CurvePoint};
use super::delay::DelayCalibration;
use super::engine::{LoadedConfig, Slot};
use super::kernel::{lines_in_window, LoadCount, SliceMark, LINE_BYTES};
use super::result::{LoadedPoint, LoadedResult, ThreadRate, LOADED_SCHEMA_VERSION};
use crate::counters_perf::NodeEventCounts;
use crate::placement::PlacementReport;
use crate::results::quality::RepetitionQuality;
use crate::stats::Summary;
use crate::topology::Topology;
use crate::traffic::NumaTraffic;

/// One thread's return of one repetition (its CPU time measured by the team).
pub(super) type Sample = crate::threads::ThreadSample<Out>;

/// What each thread returns per repetition.
pub(super) enum Out {
    Chaser {
        samples_ns: Vec<f64>,
        loads: u64,
        /// The windows of the kept samples, in order.
        windows: Vec<Window>,
        events: Option<NodeEventCounts>,
    },
    Load {
        count: LoadCount,
        /// Where each chaser window began in this thread's count (see `kernel::SliceLog`).
        marks: Vec<SliceMark>,
    },
}

/// One chaser sample window: its number, its wall time from its start to the next one's,
/// and the chaser's loads in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Window {
    pub(super) id: u64,
    pub(super) ns: f64,
    pub(super) loads: u64,
}

impl Window {
    pub(super) fn new(id: u64, wall: std::time::Duration, loads: u64) -> Window {
        Window {
            id,
            ns: wall.as_nanos() as f64,
            loads,
        }
    }
}

/// The bandwidth of each window, MB/s: (total, load threads, DRAM estimate). A load thread's
/// lines in a window come from its marks; its DRAM share per line is its whole run's (the mix
/// is fixed within a run). Windows of no length are left out.
pub(super) fn window_rates(
    windows: &[Window],
    loads: &[(&LoadCount, &[SliceMark])],
) -> Vec<[f64; 3]> {
    let line = LINE_BYTES as f64;
    windows
        .iter()
        .filter(|w| w.ns > 0.0)
        .map(|w| {
            let (mut load, mut dram) = (0.0, 0.0);
            for (c, marks) in loads {
                let lines = lines_in_window(marks, c.lines(), w.id) as f64;
                let per_line = if c.bytes() > 0 {
                    c.dram_bytes_estimate() as f64 / c.bytes() as f64
                } else {
                    1.0
                };
                load += lines * line;
                dram += lines * line * per_line;
            }
            let chaser = w.loads as f64 * line;
            let rate = |bytes: f64| bytes / w.ns * 1e3;
            [rate(chaser + load), rate(load), rate(chaser + dram)]
        })
        .collect()
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
    let mut chaser_windows: &[Window] = &[];
    let mut load_slices: Vec<(&LoadCount, &[SliceMark])> = Vec::new();
    let (mut spins, mut lines) = (0u64, 0u64);
    let loaded = target_fraction.is_some();
    for s in rep {
        let secs_ns = s.elapsed_ns.max(1) as f64;
        let cpu_share = s.cpu_share();
        match &s.value {
            Out::Chaser {
                samples_ns,
                loads,
                windows,
                events,
            } => {
                chaser_events = events.clone();
                chaser_windows = windows;
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
            Out::Load { count: c, marks } => {
                load_slices.push((c, marks));
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
    let rates = window_rates(chaser_windows, &load_slices);
    let summary = |k: usize| Summary::of(&rates.iter().map(|r| r[k]).collect::<Vec<_>>());
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
        quality: None,
        total_mb_per_s_summary: summary(0),
        load_mb_per_s_summary: summary(1),
        dram_mb_per_s_estimate_summary: summary(2),
    })
}

/// The points of kernel `kernel`'s curve from the team's repetitions (the warm-ups already
/// dropped; `slots` are the kept repetitions' slots, in the same order as `reps` and
/// `rep_quality`): the no-load point, then that kernel's points in rising load. Repetitions
/// not taken (the sweep stopped early) are left out.
pub(super) fn points_of(
    reps: &[Vec<Sample>],
    rep_quality: &[RepetitionQuality],
    slots: &[Slot],
    kernel: usize,
    fractions: &[f64],
    calibration: &DelayCalibration,
) -> anyhow::Result<Vec<LoadedPoint>> {
    let mut points = Vec::new();
    for (i, (rep, slot)) in reps.iter().zip(slots).enumerate() {
        let target = match *slot {
            Slot::Idle => None,
            Slot::Point {
                kernel: k,
                fraction,
            } if k == kernel => Some(fractions[fraction]),
            _ => continue,
        };
        let mut point = point_from(rep, target, calibration)?;
        point.quality = rep_quality.get(i).cloned();
        points.push(point);
    }
    Ok(points)
}

/// One warning for the point whose chaser got the least of its CPU, when its repetition
/// stayed disturbed after the retakes ran out.
pub(super) fn disturbed_warning(points: &[LoadedPoint]) -> Option<String> {
    let share = |q: &RepetitionQuality| q.lowest_taken_cpu_share_fraction.unwrap_or(1.0);
    let (k, q) = points
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.quality.as_ref().filter(|q| q.disturbed).map(|q| (k, q)))
        .min_by(|a, b| share(a.1).total_cmp(&share(b.1)))?;
    let which = match points[k].target_fraction {
        None => "the no-load point".to_string(),
        Some(f) => format!("the point at {:.0} % load", 100.0 * f),
    };
    Some(format!("loaded latency at {which}: {}", q.reason()?))
}

/// What a curve measured, before it is summarized.
pub(super) struct Measured {
    pub(super) chaser_size_bytes: u64,
    pub(super) chaser_placement: PlacementReport,
    pub(super) load_placement_fraction: f64,
    pub(super) calibration: DelayCalibration,
    pub(super) full_speed_ns_per_line: f64,
    pub(super) points: Vec<LoadedPoint>,
    pub(super) traffic: NumaTraffic,
}

/// The curve's result: the measured points summarized, with the warnings they call for.
pub(super) fn result_of(topo: &Topology, cfg: &LoadedConfig, m: Measured) -> LoadedResult {
    let mut warnings: Vec<String> = descheduling_warning(&m.points).into_iter().collect();
    warnings.extend(disturbed_warning(&m.points));
    warnings.extend(m.chaser_placement.backing_warning("the chased buffer"));
    let idle = m.points[0].curve_point();
    let loaded: Vec<CurvePoint> = m.points[1..].iter().map(LoadedPoint::curve_point).collect();
    LoadedResult {
        schema_version: LOADED_SCHEMA_VERSION,
        chaser_cpu: cfg.chaser_cpu,
        chaser_node: topo.node_of_cpu(cfg.chaser_cpu),
        load_cpus: cfg.load_cpus.clone(),
        mem_node: cfg.mem_node,
        load_mem_node: cfg.load_mem_node,
        kernel: cfg.kernel,
        kernel_label: cfg.kernel.label(),
        page_size: cfg.page,
        chaser_size_bytes: m.chaser_size_bytes,
        load_size_bytes_per_thread: cfg.load_bytes_per_thread,
        duration_ms_per_point: cfg.duration.as_millis() as u64,
        chaser_placement: m.chaser_placement,
        load_placement_fraction: m.load_placement_fraction,
        delay_calibration: m.calibration,
        full_speed_ns_per_line: m.full_speed_ns_per_line,
        curve: curve::summarize(idle, &loaded),
        points: m.points,
        counting: "MB = 10^6 B; 64 B per line touched by a load thread and per chased load; the DRAM estimate adds one line read for ownership per normally written line".into(),
        traffic: m.traffic,
        environment: topo.environment.clone(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(cpu: u32, value: Out) -> Sample {
        Sample {
            cpu,
            elapsed_ns: 10_000_000,
            cpu_ns: Some(10_000_000),
            involuntary_switches: Some(0),
            value,
        }
    }

    fn calibration() -> DelayCalibration {
        DelayCalibration {
            ns_per_iteration: 1.0,
            overhead_ns: 0.0,
            r_squared: 1.0,
            cpu: Some(1),
        }
    }

    /// Issue 14: eight chaser windows of 1 ms each; one load thread reading 1000 lines per
    /// window and one writing 500 (normal stores: one read for ownership each). Each window
    /// is one bandwidth sample: n = 8 slices, an interval, and the DRAM estimate per slice
    /// adds the writer's read for ownership.
    #[test]
    fn each_chaser_window_is_one_bandwidth_slice() {
        let windows: Vec<Window> = (10..18)
            .map(|id| Window {
                id,
                ns: 1e6,
                loads: 100,
            })
            .collect();
        let marks = |per: u64| -> Vec<SliceMark> {
            // Started in window 9 (dropped by the chaser), 10 lines before window 10 began.
            std::iter::once(SliceMark {
                window: 9,
                lines_before: 0,
            })
            .chain((10..=18).map(|w| SliceMark {
                window: w,
                lines_before: 10 + (w - 10) * per,
            }))
            .collect()
        };
        let reader = LoadCount {
            lines_read: 10 + 8 * 1000 + 7,
            ..LoadCount::default()
        };
        let writer = LoadCount {
            lines_written: 10 + 8 * 500 + 3,
            ..LoadCount::default()
        };
        let rep = vec![
            sample(
                0,
                Out::Chaser {
                    samples_ns: vec![100.0; 8],
                    loads: 800,
                    windows: windows.clone(),
                    events: None,
                },
            ),
            sample(
                1,
                Out::Load {
                    count: reader,
                    marks: marks(1000),
                },
            ),
            sample(
                2,
                Out::Load {
                    count: writer,
                    marks: marks(500),
                },
            ),
        ];
        let p = point_from(&rep, Some(1.0), &calibration()).unwrap();
        let total = p.total_mb_per_s_summary.unwrap();
        assert_eq!(total.samples, 8, "n = slices");
        assert!(total.interval().is_some());
        // (100 + 1000 + 500) lines of 64 B per ms: 102.4 MB/s.
        assert!((total.median - 102.4).abs() < 1e-9, "{total:?}");
        let load = p.load_mb_per_s_summary.unwrap();
        assert!((load.median - 96.0).abs() < 1e-9);
        let dram = p.dram_mb_per_s_estimate_summary.unwrap();
        assert!((dram.median - 102.4 - 32.0).abs() < 1e-9, "{dram:?}");
        assert_eq!(p.mb_per_s(), total.median);

        // Too few windows for an interval: summarized all the same, n says how many.
        let rep = vec![sample(
            0,
            Out::Chaser {
                samples_ns: vec![100.0; 3],
                loads: 300,
                windows: windows[..3].to_vec(),
                events: None,
            },
        )];
        let p = point_from(&rep, None, &calibration()).unwrap();
        let total = p.total_mb_per_s_summary.unwrap();
        assert_eq!((total.samples, total.interval()), (3, None));
        // The chaser alone: 100 lines per ms.
        assert!((total.median - 6.4).abs() < 1e-9);
    }

    #[test]
    fn a_window_a_thread_never_saw_holds_none_of_its_lines() {
        let w = [Window {
            id: 5,
            ns: 1e6,
            loads: 0,
        }];
        let c = LoadCount {
            lines_read: 100,
            ..LoadCount::default()
        };
        let marks = [SliceMark {
            window: 7,
            lines_before: 0,
        }];
        assert_eq!(window_rates(&w, &[(&c, &marks)]), vec![[0.0, 0.0, 0.0]]);
        let empty = [Window {
            id: 5,
            ns: 0.0,
            loads: 9,
        }];
        assert!(window_rates(&empty, &[]).is_empty(), "no length, no rate");
    }
}
