//! The points of a loaded-latency curve from the team's repetitions. Each repetition is one
//! block of one point: what each thread of the team returned (the chaser's
//! samples, each load thread's line counts) turned into the block's rates, the chaser's
//! median, and the bandwidth of each chaser sample window; then a point from its blocks: its
//! latency the median of the block medians with the order-statistic 95 % interval over them
//! (n = blocks, none below six), its bandwidths the same over the blocks' bandwidths, the
//! threads' counts and the mean delay over all blocks, the 2 ms samples pooled for their
//! spread. Plus the descheduling checks over all points and the curve's result built from
//! them. Pure arithmetic over what the engine collected.

use super::blocks::Slot;
use super::curve;
use super::engine::LoadedConfig;
use super::kernel::{lines_in_window, LoadCount, SliceMark, LINE_BYTES};
use super::tally::Tally;
use super::warnings::{descheduling_warning, disturbed_warning, few_blocks_warning};
use crate::results::loaded::CurvePoint;
use crate::results::loaded::DelayCalibration;
use crate::results::loaded::{
    LoadedBlock, LoadedPoint, LoadedResult, SampleSpread, ThreadRate, LOADED_SCHEMA_VERSION,
};
use crate::results::placement::PlacementReport;
use crate::results::quality::RepetitionQuality;
use crate::results::topology::Topology;
use crate::results::traffic::NodeEventCounts;
use crate::results::traffic::NumaTraffic;
use crate::stats::Summary;

/// One thread's return of one repetition (its CPU time measured by the team).
pub(super) type Sample = crate::threads::ThreadSample<Out>;

/// What each thread returns per repetition.
pub(super) enum Out {
    Chaser {
        /// When the chaser began its first sample of the repetition.
        started: std::time::Instant,
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

/// One block of a point: the repetition as a point of its own (its rates, its chaser's
/// summary, its slices), and what combining blocks needs besides.
pub(super) struct Block {
    pub(super) point: LoadedPoint,
    /// The chaser's samples, ns per load.
    pub(super) samples_ns: Vec<f64>,
    /// When the chaser began.
    pub(super) started: Option<std::time::Instant>,
    /// The load threads' spin iterations and lines, summed.
    pub(super) spins: u64,
    pub(super) lines: u64,
}

/// Turns one repetition's samples into a block; `target_fraction` is `None` for the no-load
/// point. The block's delay is the load threads' mean spin per line. `None` when the chaser
/// completed no sample (it was kept off its CPU for the whole block): the block has no
/// median and is left out of the point.
pub(super) fn block_from(
    rep: &[Sample],
    target_fraction: Option<f64>,
    calibration: &DelayCalibration,
) -> Option<Block> {
    let loaded = target_fraction.is_some();
    let Tally {
        threads,
        load_mb,
        chaser_mb,
        dram_extra_mb,
        ns,
        chaser_events,
        chaser_windows,
        chaser_samples,
        started,
        load_slices,
        spins,
        lines,
    } = Tally::of(rep, loaded);
    let ns_per_load = ns?;
    let mean_spins = spins as f64 / lines.max(1) as f64;
    let rates = window_rates(chaser_windows, &load_slices);
    let summary = |k: usize| Summary::of(&rates.iter().map(|r| r[k]).collect::<Vec<_>>());
    let point = LoadedPoint {
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
        blocks: Vec::new(),
        ns_per_load_per_sample: None,
    };
    Some(Block {
        point,
        samples_ns: chaser_samples.to_vec(),
        started,
        spins,
        lines,
    })
}

/// A block's record: its medians (the bandwidths of its slices, or its whole counts where
/// no slice was counted), its chaser's CPU share, and whether it was kept disturbed.
fn block_record(
    b: &Block,
    q: Option<&RepetitionQuality>,
    t0: Option<std::time::Instant>,
) -> LoadedBlock {
    let p = &b.point;
    let median_or = |s: &Option<Summary>, bare: f64| s.as_ref().map_or(bare, |s| s.median);
    LoadedBlock {
        start_offset_ms: match (b.started, t0) {
            (Some(s), Some(t)) => s.saturating_duration_since(t).as_secs_f64() * 1e3,
            _ => 0.0,
        },
        ns_per_load_median: p.ns_per_load.median,
        samples: p.ns_per_load.samples,
        total_mb_per_s: p.mb_per_s(),
        load_mb_per_s: median_or(&p.load_mb_per_s_summary, p.load_mb_per_s),
        dram_mb_per_s_estimate: median_or(
            &p.dram_mb_per_s_estimate_summary,
            p.dram_mb_per_s_estimate,
        ),
        chaser_cpu_share: p
            .threads
            .iter()
            .find(|t| t.role == "chaser")
            .and_then(|t| t.cpu_share),
        disturbed: q.is_some_and(|q| q.disturbed),
    }
}

/// Each thread over all blocks (the team's threads come in the same order every block):
/// its lines and wall time summed, its rate the lines over the time, its CPU share the
/// time-weighted mean of its blocks' (none when a block has none: a sleeping load thread).
fn threads_over(blocks: &[Block]) -> Vec<ThreadRate> {
    let Some(first) = blocks.first() else {
        return Vec::new();
    };
    (0..first.point.threads.len())
        .map(|i| {
            let of = || blocks.iter().filter_map(move |b| b.point.threads.get(i));
            let elapsed: u64 = of().map(|t| t.elapsed_ns).sum();
            let (read, written): (u64, u64) =
                of().fold((0, 0), |a, t| (a.0 + t.lines_read, a.1 + t.lines_written));
            let cpu_share = of()
                .map(|t| t.cpu_share.map(|s| s * t.elapsed_ns as f64))
                .sum::<Option<f64>>()
                .map(|cpu| cpu / elapsed.max(1) as f64);
            let t = &first.point.threads[i];
            ThreadRate {
                cpu: t.cpu,
                role: t.role.clone(),
                mb_per_s: ((read + written) * LINE_BYTES as u64) as f64 / elapsed.max(1) as f64
                    * 1e3,
                elapsed_ns: elapsed,
                cpu_share,
                lines_read: read,
                lines_written: written,
            }
        })
        .collect()
}

/// The point from its blocks (each with its quality record; `None` for a block whose chaser
/// completed no sample), in measurement order; `t0` is the start of the curve's first kept
/// block. Its latency is the median of the block medians with their 95 % interval (n =
/// blocks with a median: none below [`crate::schedule::MIN_SAMPLES_FOR_INTERVAL`]), its bandwidth summaries the same over
/// the blocks' bandwidths; the whole counts, threads and delay are over those blocks, and the
/// quality record is every kept block's merged (disturbed when a kept block is). `None`
/// without a block with a median.
pub(super) fn point_from_blocks(
    blocks: Vec<(Option<Block>, Option<RepetitionQuality>)>,
    t0: Option<std::time::Instant>,
    calibration: &DelayCalibration,
) -> Option<LoadedPoint> {
    let records: Vec<LoadedBlock> = blocks
        .iter()
        .filter_map(|(b, q)| Some(block_record(b.as_ref()?, q.as_ref(), t0)))
        .collect();
    let quality =
        blocks
            .iter()
            .filter_map(|(_, q)| q.as_ref())
            .fold(None::<RepetitionQuality>, |acc, q| match acc {
                None => Some(q.clone()),
                Some(mut m) => {
                    // Each block's allowance is what the team had left: the point's is the
                    // largest (the first block's), not their sum.
                    let allowance = m.retake_allowance.max(q.retake_allowance);
                    m.merge(q);
                    m.retake_allowance = allowance;
                    Some(m)
                }
            });
    let blocks: Vec<Block> = blocks.into_iter().filter_map(|(b, _)| b).collect();
    let first = blocks.first()?;
    let of = |f: fn(&LoadedBlock) -> f64| Summary::of(&records.iter().map(f).collect::<Vec<_>>());
    let ns_per_load = of(|b| b.ns_per_load_median)?;
    // Whole counts: weighted by each block's chaser time, i.e. bytes over all blocks' time.
    let weight = |b: &Block| {
        b.point
            .threads
            .iter()
            .find(|t| t.role == "chaser")
            .map_or(1.0, |t| t.elapsed_ns.max(1) as f64)
    };
    let total_weight: f64 = blocks.iter().map(weight).sum();
    let mean = |f: fn(&LoadedPoint) -> f64| {
        blocks.iter().map(|b| f(&b.point) * weight(b)).sum::<f64>() / total_weight
    };
    let loaded = first.point.target_fraction.is_some();
    let (spins, lines) = blocks
        .iter()
        .fold((0u64, 0u64), |a, b| (a.0 + b.spins, a.1 + b.lines));
    let mean_spins = spins as f64 / lines.max(1) as f64;
    let samples: Vec<f64> = blocks
        .iter()
        .flat_map(|b| b.samples_ns.iter().copied())
        .collect();
    let events = blocks
        .iter()
        .map(|b| b.point.chaser_node_events.clone())
        .collect::<Option<Vec<_>>>()
        .map(|all| crate::results::traffic::NodeEventCounts {
            node_reads: all.iter().map(|e| e.node_reads).sum(),
            node_read_misses: all.iter().map(|e| e.node_read_misses).sum(),
        });
    Some(LoadedPoint {
        delay_ns: loaded.then_some(mean_spins * calibration.ns_per_iteration),
        delay_iterations: if loaded { mean_spins.round() as u64 } else { 0 },
        target_fraction: first.point.target_fraction,
        total_mb_per_s: mean(|p| p.total_mb_per_s),
        load_mb_per_s: mean(|p| p.load_mb_per_s),
        chaser_mb_per_s: mean(|p| p.chaser_mb_per_s),
        dram_mb_per_s_estimate: mean(|p| p.dram_mb_per_s_estimate),
        ns_per_load,
        chaser_node_events: events,
        threads: threads_over(&blocks),
        quality,
        total_mb_per_s_summary: of(|b| b.total_mb_per_s),
        load_mb_per_s_summary: of(|b| b.load_mb_per_s),
        dram_mb_per_s_estimate_summary: of(|b| b.dram_mb_per_s_estimate),
        ns_per_load_per_sample: SampleSpread::of(&samples),
        blocks: records,
    })
}

/// The points of kernel `kernel`'s curve from the team's repetitions (the warm-ups already
/// dropped; `slots` are the kept repetitions' slots, in the same order as `reps` and
/// `rep_quality`): the no-load point, then that kernel's points in rising load, each from
/// its blocks. Points without a block (the sweep stopped early) are left out.
pub(super) fn points_of(
    reps: &[Vec<Sample>],
    rep_quality: &[RepetitionQuality],
    slots: &[Slot],
    kernel: usize,
    fractions: &[f64],
    calibration: &DelayCalibration,
) -> anyhow::Result<Vec<LoadedPoint>> {
    // The curve's time starts with the first kept block of any point.
    let t0 = reps
        .iter()
        .flatten()
        .filter_map(|s| match &s.value {
            Out::Chaser { started, .. } => Some(*started),
            Out::Load { .. } => None,
        })
        .min();
    // Index 0: the no-load point; 1 + f: fraction f.
    let mut per_point: Vec<Vec<(Option<Block>, Option<RepetitionQuality>)>> =
        (0..=fractions.len()).map(|_| Vec::new()).collect();
    for (i, (rep, slot)) in reps.iter().zip(slots).enumerate() {
        let (at, target) = match *slot {
            Slot::Idle => (0, None),
            Slot::Point {
                kernel: k,
                fraction,
            } if k == kernel => (1 + fraction, Some(fractions[fraction])),
            _ => continue,
        };
        let block = block_from(rep, target, calibration);
        per_point[at].push((block, rep_quality.get(i).cloned()));
    }
    let mut points = per_point
        .into_iter()
        .map(|blocks| point_from_blocks(blocks, t0, calibration));
    // The curve needs its no-load point; a loaded point without a block is left out, as one
    // the sweep did not reach.
    let idle = points.next().flatten().ok_or_else(|| {
        anyhow::anyhow!(
            "the chaser completed no sample at the no-load point (its CPU was busy with other work throughout); rerun on an idle machine or give a longer --duration"
        )
    })?;
    Ok(std::iter::once(idle).chain(points.flatten()).collect())
}

/// How a curve's points were cut into blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Layout {
    pub(super) blocks: usize,
    pub(super) block_ms: f64,
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
    pub(super) layout: Layout,
}

/// The curve's result: the measured points summarized, with the warnings they call for.
pub(super) fn result_of(topo: &Topology, cfg: &LoadedConfig, m: Measured) -> LoadedResult {
    let mut warnings: Vec<String> = few_blocks_warning(&m.layout).into_iter().collect();
    warnings.extend(descheduling_warning(&m.points));
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
        blocks_per_point: Some(m.layout.blocks),
        block_ms: Some(m.layout.block_ms),
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

    /// Eight chaser windows of 1 ms each; one load thread reading 1000 lines per
    /// window and one writing 500 (normal stores: one read for ownership each). Each window
    /// is one bandwidth sample: n = 8 slices, an interval, and the DRAM estimate per slice
    /// adds the writer's read for ownership.
    /// A chaser's return with one 100 ns sample of 100 loads in each of `windows`.
    fn chaser_out(windows: &[Window]) -> Out {
        Out::Chaser {
            started: std::time::Instant::now(),
            samples_ns: vec![100.0; windows.len()],
            loads: 100 * windows.len() as u64,
            windows: windows.to_vec(),
            events: None,
        }
    }

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
            sample(0, chaser_out(&windows)),
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
        let p = block_from(&rep, Some(1.0), &calibration()).unwrap().point;
        let total = p.total_mb_per_s_summary.unwrap();
        assert_eq!(total.samples, 8, "n = slices");
        assert!(total.ci.is_some());
        // (100 + 1000 + 500) lines of 64 B per ms: 102.4 MB/s.
        assert!((total.median - 102.4).abs() < 1e-9, "{total:?}");
        let load = p.load_mb_per_s_summary.unwrap();
        assert!((load.median - 96.0).abs() < 1e-9);
        let dram = p.dram_mb_per_s_estimate_summary.unwrap();
        assert!((dram.median - 102.4 - 32.0).abs() < 1e-9, "{dram:?}");
        assert_eq!(p.mb_per_s(), total.median);

        // Too few windows for an interval: summarized all the same, n says how many.
        let rep = vec![sample(0, chaser_out(&windows[..3]))];
        let p = block_from(&rep, None, &calibration()).unwrap().point;
        let total = p.total_mb_per_s_summary.unwrap();
        assert_eq!((total.samples, total.ci), (3, None));
        // The chaser alone: 100 lines per ms.
        assert!((total.median - 6.4).abs() < 1e-9);
    }

    /// One block of synthetic repetition: the chaser's samples all at `ns` (ten windows of
    /// 1 ms, 100 loads each) and one load thread reading `lines` lines per window.
    fn block_rep(ns: f64, lines: u64, cpu_share: f64) -> Vec<Sample> {
        let windows: Vec<Window> = (1..=10)
            .map(|id| Window {
                id,
                ns: 1e6,
                loads: 100,
            })
            .collect();
        let marks: Vec<SliceMark> = (1..=10)
            .map(|w| SliceMark {
                window: w,
                lines_before: (w - 1) * lines,
            })
            .collect();
        let ms10 = 10_000_000u64;
        vec![
            Sample {
                cpu: 0,
                elapsed_ns: ms10,
                cpu_ns: Some((ms10 as f64 * cpu_share) as u64),
                involuntary_switches: Some(0),
                value: Out::Chaser {
                    started: std::time::Instant::now(),
                    samples_ns: vec![ns - 1.0, ns, ns + 1.0, ns],
                    loads: 1000,
                    windows,
                    events: None,
                },
            },
            sample(
                1,
                Out::Load {
                    count: LoadCount {
                        lines_read: 10 * lines,
                        spin_iterations: 10 * lines * 4,
                        ..LoadCount::default()
                    },
                    marks,
                },
            ),
        ]
    }

    /// Each point's figure is the median of its block medians with the interval
    /// over them (n = blocks), whatever the samples inside a block; its bandwidth the same
    /// over the blocks' bandwidths; blocks of other points and kernels are not mixed in.
    #[test]
    fn a_point_is_summarized_from_its_block_medians() {
        use crate::results::quality::{RepSample, RepetitionQuality};
        let fractions = [0.5, 1.0];
        // Two kernels; rounds over idle, (f0, k0), (f0, k1), (f1, k1), (f1, k0).
        let slots = super::super::blocks::schedule(2, 2, 6);
        let measured = &slots[2..];
        // Latency of block r of each point: 100 + 10 r (idle), 200 + 10 r (loaded); the
        // load thread reads 1000 lines a window at fraction 0, 2000 at fraction 1.
        let mut round_of = std::collections::HashMap::new();
        let mut reps = Vec::new();
        let mut quality = Vec::new();
        for slot in measured {
            let r = round_of.entry(*slot).or_insert(0usize);
            let (ns, lines) = match *slot {
                Slot::Idle => (100.0 + 10.0 * *r as f64, 0),
                Slot::Point { fraction, kernel } => (
                    200.0 + 10.0 * *r as f64 + 1000.0 * kernel as f64,
                    1000 * (fraction as u64 + 1),
                ),
                Slot::Warmup(_) => unreachable!(),
            };
            *r += 1;
            reps.push(block_rep(ns, lines, 1.0));
            let mut q = RepetitionQuality::new(0.9, 30);
            q.record(&RepSample {
                cpu_share_fraction: Some(1.0),
                ..RepSample::default()
            });
            quality.push(q);
        }
        let points = points_of(&reps, &quality, measured, 0, &fractions, &calibration()).unwrap();
        assert_eq!(points.len(), 3, "idle + two fractions");
        let idle = &points[0];
        assert_eq!(idle.target_fraction, None);
        assert_eq!(idle.ns_per_load.samples, 6, "n = blocks");
        assert_eq!(idle.blocks.len(), 6);
        // Six block medians 100..150: median 125, interval their extremes.
        assert_eq!(idle.ns_per_load.median, 125.0);
        assert_eq!(
            (
                idle.ns_per_load.ci.map(|c| c.low),
                idle.ns_per_load.ci.map(|c| c.high)
            ),
            (Some(100.0), Some(150.0))
        );
        let b: Vec<f64> = idle.blocks.iter().map(|b| b.ns_per_load_median).collect();
        assert_eq!(b, vec![100.0, 110.0, 120.0, 130.0, 140.0, 150.0]);
        assert!(idle.blocks.iter().all(|b| b.samples == 4 && !b.disturbed));
        // The pooled samples keep their spread, without an interval.
        let per = idle.ns_per_load_per_sample.unwrap();
        assert_eq!((per.samples, per.min, per.max), (24, 99.0, 151.0));
        let q = idle.quality.as_ref().unwrap();
        assert_eq!((q.repetitions_kept, q.retake_allowance), (6, 30));
        // Kernel 0's loaded points only (kernel 1's are 1000 ns slower).
        let full = &points[2];
        assert_eq!(full.target_fraction, Some(1.0));
        assert_eq!(full.ns_per_load.median, 225.0);
        // Bandwidth per block: 100 chased + 2000 loaded lines of 64 B per ms.
        let total = full.total_mb_per_s_summary.unwrap();
        assert_eq!(total.samples, 6);
        assert!(
            (total.median - 2100.0 * 64.0 / 1e3).abs() < 1e-9,
            "{total:?}"
        );
        assert!((full.mb_per_s() - 134.4).abs() < 1e-9);
        assert!((full.load_mb_per_s_summary.unwrap().median - 128.0).abs() < 1e-9);
        // Threads over all blocks: lines summed, the rate over the summed time.
        let load = full.threads.iter().find(|t| t.role == "load").unwrap();
        assert_eq!(load.lines_read, 6 * 20_000);
        assert_eq!(load.elapsed_ns, 6 * 10_000_000);
        assert!((load.mb_per_s - 128.0).abs() < 1e-9);
        assert_eq!(full.delay_iterations, 4, "mean spin per line");
        let other = points_of(&reps, &quality, measured, 1, &fractions, &calibration()).unwrap();
        assert_eq!(other[2].ns_per_load.median, 1225.0);
        assert_eq!(
            other[0], points[0],
            "the one no-load point heads every curve"
        );
    }

    /// Fewer than six blocks give a figure without an interval; a block kept
    /// disturbed marks the point.
    #[test]
    fn fewer_than_six_blocks_give_no_interval() {
        use crate::results::quality::{RepSample, RepetitionQuality};
        let slots = super::super::blocks::schedule(1, 1, 5);
        let measured = &slots[1..];
        let reps: Vec<Vec<Sample>> = measured
            .iter()
            .enumerate()
            .map(|(i, _)| block_rep(100.0 + i as f64, 1000, 1.0))
            .collect();
        let mut quality: Vec<RepetitionQuality> = Vec::new();
        for i in 0..reps.len() {
            let mut q = RepetitionQuality::new(0.9, 0);
            let share = if i == 2 { 0.5 } else { 1.0 };
            q.record(&RepSample {
                cpu_share_fraction: Some(share),
                ..RepSample::default()
            });
            quality.push(q);
        }
        let points = points_of(&reps, &quality, measured, 0, &[1.0], &calibration()).unwrap();
        for p in &points {
            assert_eq!(p.ns_per_load.samples, 5);
            assert_eq!(p.ns_per_load.ci, None);
            assert_eq!(p.total_mb_per_s_summary.unwrap().ci, None);
        }
        // Repetition 2 (rounds: idle P, P idle, ...: the loaded point's second block) was
        // kept disturbed.
        assert!(!points[0].quality.as_ref().unwrap().disturbed);
        let loaded = &points[1];
        assert!(loaded.quality.as_ref().unwrap().disturbed);
        assert_eq!(
            loaded
                .blocks
                .iter()
                .map(|b| b.disturbed)
                .collect::<Vec<_>>(),
            vec![false, true, false, false, false]
        );
        let w = few_blocks_warning(&Layout {
            blocks: 5,
            block_ms: 19.0,
        })
        .unwrap();
        assert!(w.contains("5 block(s) of 19 ms"), "{w}");
        assert!(w.ends_with("give --duration 96ms or more per point"), "{w}");
        assert_eq!(
            few_blocks_warning(&Layout {
                blocks: 6,
                block_ms: 16.7
            }),
            None
        );
        assert!(point_from_blocks(Vec::new(), None, &calibration()).is_none());
    }

    /// A block whose chaser completed no sample (kept off its CPU throughout) has no median:
    /// it is left out of the point (n counts the blocks with a median) but its take stays in
    /// the quality record; without a no-load block the curve cannot be built.
    #[test]
    fn a_block_without_a_chaser_sample_is_left_out() {
        use crate::results::quality::{RepSample, RepetitionQuality};
        let slots = super::super::blocks::schedule(1, 1, 6);
        let measured = &slots[1..];
        let empty = |rep: &mut Vec<Sample>| {
            if let Out::Chaser { samples_ns, .. } = &mut rep[0].value {
                samples_ns.clear();
            }
        };
        let mut reps: Vec<Vec<Sample>> =
            measured.iter().map(|_| block_rep(100.0, 10, 1.0)).collect();
        assert_eq!(
            measured[1],
            Slot::Point {
                kernel: 0,
                fraction: 0
            }
        );
        empty(&mut reps[1]);
        let quality: Vec<RepetitionQuality> = measured
            .iter()
            .map(|_| {
                let mut q = RepetitionQuality::new(0.9, 0);
                q.record(&RepSample::default());
                q
            })
            .collect();
        let points = points_of(&reps, &quality, measured, 0, &[1.0], &calibration()).unwrap();
        assert_eq!(points.len(), 2);
        assert_eq!(points[1].blocks.len(), 5);
        assert_eq!(points[1].ns_per_load.samples, 5);
        assert_eq!(points[1].ns_per_load.ci, None);
        assert_eq!(points[1].quality.as_ref().unwrap().repetitions_kept, 6);
        assert_eq!(points[0].ns_per_load.samples, 6);
        for (i, s) in measured.iter().enumerate() {
            if *s == Slot::Idle {
                empty(&mut reps[i]);
            }
        }
        let e = points_of(&reps, &quality, measured, 0, &[1.0], &calibration()).unwrap_err();
        assert!(
            e.to_string().contains("no sample at the no-load point"),
            "{e}"
        );
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
