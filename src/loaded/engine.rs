//! The loaded-latency measurement (docs/METHODOLOGY.md, "Timed teams", "Loaded latency"): one
//! chasing thread and the load threads run in one pinned team. Thread 0 chases a random cycle over
//! a buffer bound to the memory node and times samples of 2 ms (as `latency` does) until the stop
//! flag; the others walk private buffers bound to the load memory node with a spin between lines.
//! The first team repetitions, one per load kernel, are warm-ups, dropped, in which the load
//! threads run at full speed and time a line; in each loaded point they then pace themselves
//! to an even share (1/N, 2/N, ... 1) of that full rate, so the points spread over the
//! bandwidth axis instead of crowding at low load.
//!
//! Blocks: a point measured in one stretch of time describes that moment, not the
//! run; on a shared host the same point moved 20-35 % from run to run while its interval,
//! from 2 ms samples back to back, was +-3-8 %. So each point's time is cut into
//! [`blocks_for`] blocks, each one team repetition, and the schedule visits every point once
//! per round (the order rotated from round to round): a point's blocks are spread over the
//! curve's whole time, its figure is the median of its block medians and its interval is
//! the between-block one (`points`). Every thread finds its slot from the team's repetition
//! number ([`Stop::repetition`]), so one team, with its buffers set up once, serves the
//! whole sweep, and a block whose chaser was disturbed (less than 90 % of its CPU, or
//! steal) is taken again at the same load while the allowance lasts. Nothing here prints.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::blocks::{block_duration, blocks_for, schedule, Slot, CHASER_SAMPLE};
use super::cut::{curves_of, Taken};
use super::delay::{self, pace};
use super::kernel::{self, LoadCount, Pace, SliceLog};
pub use super::points::MIN_CPU_SHARE;
use super::points::{Layout, Measured, Out, Window};
use crate::latency::chase::ChainSpec;
use crate::latency::kept::{KeptChain, LentChain, Walk};
use crate::latency::walk::{Chain, LOADS_PER_ITERATION};
use crate::placement::{PlacedBuffer, Policy};
use crate::results::loaded::DelayCalibration;
use crate::results::loaded::LoadKernel;
use crate::results::loaded::LoadedResult;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::sysroot::SysRoot;
use crate::threads::{on_cpu, run_team, Stop, TeamPlan};
use crate::traffic::perf::NodeEvents;
use crate::traffic::TrafficRecorder;

/// A validated loaded-latency request.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedConfig {
    pub chaser_cpu: u32,
    /// Non-empty, without the chaser CPU.
    pub load_cpus: Vec<u32>,
    pub mem_node: u32,
    pub load_mem_node: u32,
    pub kernel: LoadKernel,
    /// Loaded points (delays), not counting the no-load point.
    pub points: usize,
    pub chaser_bytes: u64,
    pub load_bytes_per_thread: u64,
    /// Page backing of the chased and the load buffers.
    pub page: PageSize,
    pub duration: Duration,
    pub seed: u64,
    /// The run's kept chain (`latency::kept`): when it is this walk (`chaser_bytes` bound to
    /// `mem_node` in `page` pages, one random chain over lines), the chaser chases it instead
    /// of a buffer of its own, so the no-load point is the reference's quantity on the
    /// reference's pages.
    pub lent: Option<LentChain>,
}

/// The shares of its full-speed line rate each loaded point asks of a load thread, in
/// measurement order: `k / points` for k = 1..=points, so the points spread evenly over the
/// bandwidth axis up to full speed (the last point, no delay), where latency changes most.
pub fn load_fractions(points: usize) -> Vec<f64> {
    let n = points.max(1);
    (1..=n).map(|k| k as f64 / n as f64).collect()
}

/// The delay after each line that brings a thread whose line takes `line_ns` at full speed
/// down to `fraction` of its full rate: a line then takes `line_ns / fraction`.
pub fn delay_for(fraction: f64, line_ns: f64) -> f64 {
    if fraction >= 1.0 || line_ns <= 0.0 {
        0.0
    } else {
        line_ns * (1.0 / fraction.max(1e-6) - 1.0)
    }
}

/// What each thread keeps between repetitions.
enum Role<'a> {
    Chaser {
        chain: Chain<'a>,
        iterations: u64,
        /// Hardware node events of the chaser thread, where the machine offers them.
        events: Option<NodeEvents>,
    },
    Load {
        buf: PlacedBuffer,
        pos: usize,
    },
}

/// The slowest load thread's full-speed time per line in the warm-up, in picoseconds
/// (0 until measured); every thread derives the same delays from it.
struct LineTime(AtomicU64);

impl LineTime {
    fn record(&self, elapsed: Duration, count: &LoadCount) {
        let lines = count.lines_read + count.lines_written;
        if lines > 0 {
            let ps = (elapsed.as_nanos() * 1000 / u128::from(lines)).min(u128::from(u64::MAX));
            self.0.fetch_max(ps as u64, Ordering::Relaxed);
        }
    }

    fn ns(&self) -> f64 {
        self.0.load(Ordering::Relaxed) as f64 / 1000.0
    }
}

/// Runs the sweep and builds the curve.
pub fn run_curve(
    topo: &Topology,
    root: &SysRoot,
    cfg: &LoadedConfig,
) -> anyhow::Result<LoadedResult> {
    run_family(topo, root, cfg, &[cfg.kernel])?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("the sweep returned no curve"))
}

/// Runs one sweep per load kernel, interleaved in one team (see its `schedule` step), and builds a
/// curve per kernel in the order given (`cfg.kernel` is ignored; an empty list means
/// `cfg.kernel` alone). The chaser, its buffer and the load buffers are the same for every
/// kernel; the no-load point is measured once and heads every curve.
pub fn run_family(
    topo: &Topology,
    root: &SysRoot,
    cfg: &LoadedConfig,
    kernels: &[LoadKernel],
) -> anyhow::Result<Vec<LoadedResult>> {
    let kernels = kernels_of(cfg, kernels);
    let calibration = calibrate_on(topo, root, cfg.load_cpus[0])?;
    // Each load thread paces itself to the share's time per line of its kernel's full-speed
    // line time measured in that kernel's warm-up.
    let fractions = load_fractions(cfg.points);
    let blocks = blocks_for(cfg.duration);
    let slots = schedule(kernels.len(), cfg.points, blocks);
    let line_times: Vec<LineTime> = kernels
        .iter()
        .map(|_| LineTime(AtomicU64::new(0)))
        .collect();
    let pace_of = |kernel: usize, fraction: usize| -> Pace {
        pace(fractions[fraction], line_times[kernel].ns(), &calibration)
    };

    let lent = chased(topo, root, cfg)?;
    let mut kept = lent.lock();
    let chaser_placement = kept.placement().clone();
    let chaser_size_bytes = kept.bytes();
    let chain = Mutex::new(Some(kept.chain()));
    let mut cpus = vec![cfg.chaser_cpu];
    cpus.extend(&cfg.load_cpus);
    let warmups = kernels.len();
    let plan = team_plan(cfg, blocks, slots.len(), warmups);
    let window = AtomicU64::new(0);
    let sweep = Sweep {
        slots: &slots,
        kernels: &kernels,
        line_times: &line_times,
        pace_of: &pace_of,
        window: &window,
    };
    let traffic = TrafficRecorder::start(root);
    let outcome = run_team(
        topo,
        root,
        &cpus,
        &plan,
        |index, _cpu| make_role(topo, root, cfg, index, &chain),
        |_, role, stop| step_role(role, stop, &sweep),
    )?;
    let traffic = traffic.finish();
    let load_placement_fraction = load_placement(&outcome.states)?;
    let (reps, rep_quality) = (outcome.reps, outcome.rep_quality);
    drop(outcome.states);
    let shared = Measured {
        chaser_size_bytes,
        chaser_placement,
        load_placement_fraction,
        calibration,
        full_speed_ns_per_line: 0.0,
        points: vec![],
        traffic,
        layout: Layout {
            blocks,
            block_ms: block_duration(cfg.duration, blocks).as_secs_f64() * 1e3,
        },
    };
    let taken = Taken {
        reps: &reps,
        rep_quality: &rep_quality,
        measured: &slots[warmups..],
        fractions: &fractions,
        kernels: &kernels,
        line_ns: line_times.iter().map(LineTime::ns).collect(),
    };
    curves_of(topo, cfg, &taken, &shared)
}

/// The family's kernels: those asked, or the configuration's one.
fn kernels_of(cfg: &LoadedConfig, kernels: &[LoadKernel]) -> Vec<LoadKernel> {
    if kernels.is_empty() {
        vec![cfg.kernel]
    } else {
        kernels.to_vec()
    }
}

/// The team's plan. Retakes as planned: the work picks each slot from the repetition number,
/// which a retake keeps; only the chaser is judged (load threads sleep at the idle point). The
/// allowance is one retake per block, as it was one per point: the same time at most. A stop
/// signal ends the sweep at once once the first block (the no-load point's: a curve needs it)
/// is kept; the blocks measured so far are the curves.
fn team_plan(cfg: &LoadedConfig, blocks: usize, slots: usize, warmups: usize) -> TeamPlan {
    TeamPlan {
        judged_threads: Some(vec![0]),
        stop_on_signal: Some(1),
        ..TeamPlan::new(
            block_duration(cfg.duration, blocks),
            slots - warmups,
            warmups,
        )
    }
}

/// What the load threads look up at each repetition.
struct Sweep<'a> {
    slots: &'a [Slot],
    kernels: &'a [LoadKernel],
    line_times: &'a [LineTime],
    pace_of: &'a (dyn Fn(usize, usize) -> Pace + Sync),
    /// The number of the chaser's current sample window, raised by the chaser at the start of
    /// each sample; the load threads note it to count their lines per window.
    window: &'a AtomicU64,
}

/// The chased chain: the run's kept one when it is this walk (`LoadedConfig::lent`), else a
/// buffer bound to the memory node, faulted in from the chaser's CPU and linked; either once
/// the team's buffers together (the chased one unless borrowed, and every load thread's)
/// are known to fit their nodes' available memory.
fn chased(topo: &Topology, root: &SysRoot, cfg: &LoadedConfig) -> anyhow::Result<LentChain> {
    let policy = Policy::Bind(vec![cfg.mem_node]);
    let walk = Walk {
        bytes: cfg.chaser_bytes,
        policy: &policy,
        page: cfg.page,
        element_bytes: topo.line_bytes(),
    };
    let lender = walk.lender(cfg.lent.as_ref());
    let loads = (
        cfg.load_mem_node,
        cfg.load_bytes_per_thread,
        cfg.load_cpus.len(),
    );
    let own_bytes = if lender.is_some() {
        0
    } else {
        cfg.chaser_bytes
    };
    super::sizes::check_team_fits(topo, (cfg.mem_node, own_bytes), loads)?;
    LentChain::or_place(lender, || {
        let spec = ChainSpec::random(topo.line_bytes(), cfg.seed);
        on_cpu(topo, root, cfg.chaser_cpu, || {
            KeptChain::place(topo, root, cfg.chaser_bytes, &policy, cfg.page, &spec)
        })?
        .context("placing the chased buffer")
    })
}

/// A team thread's state, set up on its pinned CPU: thread 0 takes the chain and sizes its
/// samples; the others place their load buffers on the load memory node.
fn make_role<'a>(
    topo: &Topology,
    root: &SysRoot,
    cfg: &LoadedConfig,
    index: usize,
    chain: &Mutex<Option<Chain<'a>>>,
) -> anyhow::Result<Role<'a>> {
    if index == 0 {
        let mut chain = chain
            .lock()
            .unwrap()
            .take()
            .ok_or_else(|| anyhow::anyhow!("the chain was taken twice"))?;
        let iterations = size_chaser_sample(&mut chain);
        return Ok(Role::Chaser {
            chain,
            iterations,
            // Opened on the chaser's own thread; absent counters are not an error.
            events: NodeEvents::open().ok(),
        });
    }
    let buf = PlacedBuffer::new(
        topo,
        root,
        cfg.load_bytes_per_thread,
        &Policy::Bind(vec![cfg.load_mem_node]),
        cfg.page,
    )?;
    Ok(Role::Load { buf, pos: 0 })
}

/// The smallest fraction of a load buffer's pages on the load memory node.
fn load_placement(states: &[Role<'_>]) -> anyhow::Result<f64> {
    let mut fraction: f64 = 1.0;
    for st in states {
        if let Role::Load { buf, .. } = st {
            fraction = fraction.min(buf.verify()?.fraction_on_intended);
        }
    }
    Ok(fraction)
}

/// Calibrates the delay spin on `cpu` (the first load CPU).
fn calibrate_on(topo: &Topology, root: &SysRoot, cpu: u32) -> anyhow::Result<DelayCalibration> {
    on_cpu(topo, root, cpu, || delay::calibrate(9))?
        .map(|c| DelayCalibration {
            cpu: Some(cpu),
            ..c
        })
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the delay spin could not be calibrated on CPU {cpu} (its timings did not grow with the spin count); the CPU is too busy with other work, try again when it is idle"
            )
        })
}

/// One call of a team thread: the chaser times samples until the stop flag; a load thread
/// runs its slot's kernel at full speed in a warm-up (timing a line), then at its point's
/// pace, or idles through the no-load point.
fn step_role(role: &mut Role<'_>, stop: &Stop, sweep: &Sweep<'_>) -> Out {
    match role {
        Role::Chaser {
            chain,
            iterations,
            events,
        } => {
            let counting = events.as_ref().filter(|e| e.start().is_ok());
            let started = Instant::now();
            let (samples_ns, loads, windows) = chase_until(chain, *iterations, stop, sweep.window);
            Out::Chaser {
                started,
                samples_ns,
                loads,
                windows,
                events: counting.and_then(|e| e.stop().ok()),
            }
        }
        Role::Load { buf, pos } => match sweep.slots.get(stop.repetition()) {
            Some(&Slot::Warmup(k)) => {
                // Warm-up at full speed: faults in and warms the buffer, and times a line.
                let t = Instant::now();
                let c = kernel::run(buf.as_u64_mut(), sweep.kernels[k], Pace::Full, pos, stop);
                sweep.line_times[k].record(t.elapsed(), &c);
                Out::Load {
                    count: c,
                    marks: Vec::new(),
                }
            }
            Some(&Slot::Point { kernel, fraction }) => {
                let mut slices = SliceLog::following(sweep.window);
                let count = kernel::run_sliced(
                    buf.as_u64_mut(),
                    sweep.kernels[kernel],
                    (sweep.pace_of)(kernel, fraction),
                    pos,
                    stop,
                    &mut slices,
                );
                Out::Load {
                    count,
                    marks: slices.marks,
                }
            }
            Some(Slot::Idle) | None => {
                while !stop.stopped() {
                    std::thread::sleep(Duration::from_micros(200));
                }
                Out::Load {
                    count: LoadCount::default(),
                    marks: Vec::new(),
                }
            }
        },
    }
}

/// One full pass (so construction faults and cold misses are not timed), then the
/// iteration count whose walk lasts about [`CHASER_SAMPLE`].
fn size_chaser_sample(chain: &mut Chain<'_>) -> u64 {
    chain.walk(
        (chain.elements() as u64)
            .div_ceil(LOADS_PER_ITERATION)
            .max(1),
    );
    let target = CHASER_SAMPLE.as_nanos() as f64;
    let mut it: u64 = 16;
    loop {
        let t = Instant::now();
        chain.walk(it);
        let e = t.elapsed().as_nanos() as f64;
        if e >= target {
            return it;
        }
        let scale = if e > 0.0 {
            (target / e).clamp(1.2, 16.0)
        } else {
            16.0
        };
        it = ((it as f64 * scale) as u64).max(it + 1);
    }
}

/// Chaser samples until the flag; the last is dropped (the load threads may have stopped
/// already), and so are the samples started within the steady-state warm-up of
/// `latency::steady` (the block begins right after another streamed; the first is
/// always dropped, the load threads may not have started yet), keeping at least one. Each sample is a window: its number
/// is published in `window` right before it starts, and it lasts until the next one starts
/// (the last until the flag), so the load threads' lines can be counted per window.
fn chase_until(
    chain: &mut Chain<'_>,
    iterations: u64,
    stop: &Stop,
    window: &AtomicU64,
) -> (Vec<f64>, u64, Vec<Window>) {
    let mut samples_ns = Vec::new();
    let mut lengths_ns = Vec::new();
    let mut windows = Vec::new();
    let mut loads = 0u64;
    // The window under way: its number, start and chased loads.
    let mut open: Option<(u64, Instant, u64)> = None;
    while !stop.stopped() {
        let id = window.fetch_add(1, Ordering::Relaxed) + 1;
        let t = Instant::now();
        if let Some((prev, start, n)) = open.take() {
            windows.push(Window::new(prev, t.duration_since(start), n));
        }
        let n = chain.walk(iterations);
        let e = t.elapsed().as_nanos() as f64;
        loads += n;
        samples_ns.push(e / n as f64);
        lengths_ns.push(e);
        open = Some((id, t, n));
    }
    if let Some((prev, start, n)) = open {
        windows.push(Window::new(prev, start.elapsed(), n));
    }
    // The lead: the samples started before the chain was back at steady state after
    // whatever ran between blocks (at least the first: the load threads may not have started
    // yet); at least one sample stays.
    let lead = crate::latency::steady::lead_samples(&lengths_ns).max(1);
    if samples_ns.len() > 2 {
        samples_ns.pop();
        windows.pop();
        let lead = lead.min(samples_ns.len() - 1);
        samples_ns.drain(..lead);
        windows.drain(..lead);
    }
    (samples_ns, loads, windows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loaded::warnings::descheduling_warning;
    use crate::results::loaded::{LoadedPoint, ThreadRate};
    use crate::stats::Summary;

    #[test]
    fn load_fractions_spread_evenly_up_to_full_speed() {
        assert_eq!(load_fractions(1), vec![1.0]);
        assert_eq!(load_fractions(4), vec![0.25, 0.5, 0.75, 1.0]);
        assert_eq!(load_fractions(0), vec![1.0]);
    }

    #[test]
    fn delays_stretch_the_line_time_to_the_asked_share() {
        // A 6.4 ns line at full speed (10 GB/s of 64 B lines).
        assert_eq!(delay_for(1.0, 6.4), 0.0);
        assert!((delay_for(0.5, 6.4) - 6.4).abs() < 1e-12);
        assert!((delay_for(0.25, 6.4) - 19.2).abs() < 1e-12);
        // The rate that follows is the asked share: 64 B / (line + delay).
        for f in load_fractions(11) {
            let rate = 64.0 / (6.4 + delay_for(f, 6.4));
            assert!((rate / 10.0 - f).abs() < 1e-9, "{f}");
        }
        // Not measured yet: no delay rather than a nonsense one.
        assert_eq!(delay_for(0.5, 0.0), 0.0);
        let t = LineTime(AtomicU64::new(0));
        let c = |lines| LoadCount {
            lines_read: lines,
            ..LoadCount::default()
        };
        t.record(Duration::from_micros(64), &c(10_000));
        t.record(Duration::from_micros(50), &c(10_000));
        t.record(Duration::from_micros(1), &c(0));
        assert!(
            (t.ns() - 6.4).abs() < 1e-9,
            "the slowest thread sets the pace"
        );
    }

    /// A point of 1 MB/s and 100 ns at `target_fraction`, without threads.
    fn point_at(
        target_fraction: Option<f64>,
        quality: Option<crate::results::quality::RepetitionQuality>,
    ) -> LoadedPoint {
        LoadedPoint {
            delay_ns: None,
            delay_iterations: 0,
            target_fraction,
            total_mb_per_s: 1.0,
            load_mb_per_s: 0.0,
            chaser_mb_per_s: 1.0,
            dram_mb_per_s_estimate: 1.0,
            ns_per_load: Summary::of(&[100.0]).unwrap(),
            chaser_node_events: None,
            threads: vec![],
            quality,
            total_mb_per_s_summary: None,
            load_mb_per_s_summary: None,
            dram_mb_per_s_estimate_summary: None,
            blocks: Vec::new(),
            ns_per_load_per_sample: None,
        }
    }

    #[test]
    fn descheduled_threads_are_named_in_a_warning() {
        let _serial = crate::testutil::timing_lock();
        let thread = |cpu, share| ThreadRate {
            cpu,
            role: "load".into(),
            mb_per_s: 1.0,
            elapsed_ns: 1,
            cpu_share: share,
            lines_read: 1,
            lines_written: 0,
        };
        let point = |threads| LoadedPoint {
            threads,
            ..point_at(None, None)
        };
        let fine = vec![point(vec![thread(0, Some(0.99)), thread(1, None)])];
        assert_eq!(descheduling_warning(&fine), None);
        let busy = vec![
            point(vec![thread(0, Some(0.99)), thread(1, Some(0.95))]),
            point(vec![thread(0, Some(0.97)), thread(1, Some(0.40))]),
        ];
        let w = descheduling_warning(&busy).unwrap();
        assert!(w.contains("CPU 1 ran only 40%"), "{w}");
    }

    /// A point whose chaser stayed disturbed after the retakes is named in one warning; a
    /// point whose disturbed take was re-taken is not.
    #[test]
    fn a_disturbed_point_is_named_once() {
        use crate::loaded::warnings::disturbed_warning;
        use crate::results::quality::{RepSample, RepetitionQuality};
        let short = RepSample {
            cpu_share_fraction: Some(0.45),
            cpu: Some(0),
            ..RepSample::default()
        };
        let point = |fraction, quality| point_at(fraction, Some(quality));
        let mut retaken = RepetitionQuality::new(0.9, 1);
        retaken.record(&short);
        let mut kept = RepetitionQuality::new(0.9, 0);
        kept.record(&short);
        let fine = vec![point(None, retaken.clone()), point(Some(0.5), retaken)];
        assert_eq!(disturbed_warning(&fine), None);
        let busy = vec![
            point(None, RepetitionQuality::new(0.9, 0)),
            point(Some(0.5), kept),
        ];
        let w = disturbed_warning(&busy).unwrap();
        assert!(
            w.starts_with("loaded latency at the point at 50 % load: CPU 0 ran 45 %"),
            "{w}"
        );
    }
}
