//! The run-wide reference measurement ("one quantity, one figure"): local idle DRAM
//! latency and local read bandwidth measured once per run under one stated set of conditions,
//! in short repetitions interleaved across the whole run (before each part after the topology
//! and after the last, at least six in all), so the figure's interval covers the run's drift instead of one moment of it.
//!
//! Conditions: latency is one thread pinned to the home node's first usable CPU chasing a
//! random walk (cache-line elements, the run's seed) over the latency matrix's working set
//! (8x the last-level cache) of 4 KiB pages bound to the home node; bandwidth is one pinned
//! thread per usable CPU of the home node reading its own buffer of the bandwidth part's size
//! per thread, 4 KiB pages bound to the home node, with the `read` kernel. The buffers are
//! placed, faulted in and (for latency) linked once and kept for the whole run, so a
//! repetition costs tens of milliseconds, not a page-fault pass. Each latency repetition
//! starts at steady state: the part before it streamed through the caches and the
//! TLB, so the chain is walked untimed for `latency::steady::STEADY_WARMUP_NS` first, then
//! timed in ten 2 ms samples (the standalone command's sample), and the figure pools every
//! kept repetition's samples: the chase lives on its own
//! pinned thread that waits between repetitions; the read buffers are handed from one team to
//! the next. Each repetition is judged like every other (CPU share and steal, `threads::Probe`
//! and the team's record): a disturbed one is taken again while a small allowance lasts.
//!
//! The parts whose conditions are the same skip that measurement (`run::runners` asks
//! [`latency_ready`] / [`bandwidth_ready`]) and record the place in
//! `ReferenceFigures::filled`; `Reference::fill` then writes the reference figure there, so
//! those places show exactly this figure. Nothing here prints.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::isa::Isa;
use crate::bandwidth::kernels::Kernel;
use crate::latency::chase::{ChainSpec, Mode};
use crate::latency::walk::{Chain, LOADS_PER_ITERATION};
use crate::placement::{PageSize, PlacedBuffer, PlacementReport, Policy};
use crate::results::bandwidth::{
    BandwidthResult, BytesPerElement, Rates, StreamPlacement, ThreadRate,
};
use crate::results::latency::{CurveKnees, LatencyResult};
use crate::results::quality::{RepSample, RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::results::reference::{
    ReferenceBandwidth, ReferenceFigure, ReferenceFigures, ReferenceLatency, ReferenceRepetition,
};
use crate::results::{Part, Plan, RunResults};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::{pin_current, run_team, Probe, TeamPlan};
use crate::topology::Topology;

use super::measure::read_until;
use super::scenarios::home_node;
use super::settings::Settings;

/// The parts that show the reference latency (the sweep's point, the matrix's home cell, the
/// loaded idle point beside its own): the latency side runs when any of them runs.
pub const SHOWN_BY_LATENCY: &[Part] = &[Part::Latency, Part::LatencyMatrix, Part::LoadedLatency];

/// The parts that show the reference bandwidth (the local read, the matrix's home cell,
/// scaling's full point): the bandwidth side runs when any of them runs. Neither side runs
/// for `--only topology`, `c2c` or `scenarios`, which show neither.
pub const SHOWN_BY_BANDWIDTH: &[Part] = &[Part::Bandwidth, Part::BandwidthMatrix, Part::Scaling];

/// Kept repetitions a run aims for at least: six, the fewest with a 95 % interval for the
/// median. A run of few parts takes several repetitions per slot to reach it.
pub const MIN_REPETITIONS: usize = 6;

/// Length of one latency sample, ns: the standalone `latency` command's (2 ms), so the
/// reference's samples and the standalone's are the same walk timed the same way.
const LATENCY_SAMPLE_NS: f64 = crate::latency::measure::SAMPLE_NS_DEFAULT as f64;

/// Samples of one latency repetition (20 ms timed, after the untimed walk to steady state of
/// `latency::steady`): the figure pools every kept repetition's samples, so its
/// interval is that of the samples, as the standalone command's is, while the repetitions
/// spread over the run put the run's drift into them; a repetition is judged (and retaken)
/// as a whole, so one preemption spoils one repetition.
const SAMPLES_PER_REP: usize = 10;

/// Length of one latency repetition, ns: its samples and the walk to steady state before them.
const LATENCY_REP_NS: f64 =
    LATENCY_SAMPLE_NS * SAMPLES_PER_REP as f64 + crate::latency::steady::STEADY_WARMUP_NS as f64;

/// Length of one bandwidth repetition, ms: every thread streams several MiB.
pub const BANDWIDTH_REP_MS: u64 = 60;

/// The reference's conditions on this machine under the plan's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Conditions {
    pub node: u32,
    /// The chasing CPU: the home node's first usable CPU.
    pub cpu: u32,
    /// The reading CPUs: every usable CPU of the home node.
    pub cpus: Vec<u32>,
    pub latency_bytes: u64,
    pub line_bytes: u64,
    pub bytes_per_thread: u64,
}

/// The conditions, or `None` when the machine has no node with both memory and CPUs.
pub fn conditions(topo: &Topology, s: &Settings) -> Option<Conditions> {
    let node = home_node(topo)?;
    let cpus = topo.usable_cpus_of(node);
    Some(Conditions {
        node,
        cpu: *cpus.first()?,
        latency_bytes: s.latency_matrix.size_bytes,
        line_bytes: topo.line_bytes(),
        bytes_per_thread: bytes_per_thread(topo, s, cpus.len()),
        cpus,
    })
}

/// Bytes each of `threads` threads reads in the run's bandwidth parts: the run sizes all
/// threads' arrays together at `bytes_per_thread` per usable CPU, whatever the thread count.
pub fn bytes_per_thread(topo: &Topology, s: &Settings, threads: usize) -> u64 {
    s.bandwidth.bytes_per_thread * topo.usable_cpus().len().max(1) as u64 / threads.max(1) as u64
}

/// Which sides the plan needs: (latency, bandwidth), each when a part that shows it runs.
pub fn wanted(plan: &Plan) -> (bool, bool) {
    let any = |list: &[Part]| plan.parts.iter().any(|p| list.contains(&p.part));
    (any(SHOWN_BY_LATENCY), any(SHOWN_BY_BANDWIDTH))
}

/// Whether a repetition slot comes before `part`: before every part but the topology, which
/// is first and takes a fraction of a second (a slot there would sit next to the one before
/// the second part).
pub fn slot_before(part: Part) -> bool {
    part != Part::Topology
}

/// Repetition slots of a run of `parts`: one before each part (see [`slot_before`]) and one
/// after the last.
pub fn slots(parts: &[Part]) -> usize {
    parts.iter().filter(|p| slot_before(**p)).count() + 1
}

/// Repetitions per slot for `slots` slots: enough that the run keeps at least
/// [`MIN_REPETITIONS`].
pub fn per_slot(slots: usize) -> usize {
    MIN_REPETITIONS.div_ceil(slots.max(1)).max(1)
}

/// Seconds the reference adds to a run of `parts` parts with the sides `(latency,
/// bandwidth)` in `slots` slots: placing and linking the chased buffer once, placing the
/// read buffers, and every slot's repetitions (retakes of disturbed ones add time only on a
/// busy machine, as for the parts).
pub fn estimate_s(s: &Settings, threads: usize, slots: usize, sides: (bool, bool)) -> f64 {
    let reps = (per_slot(slots) * slots) as f64;
    let mut t: f64 = 0.0;
    if sides.0 {
        let lat = s.latency_matrix.size_bytes as f64;
        // Fault-in at 2 GB/s and linking at 400 ns a line (the plan's cost model), then
        // each repetition and its round trip to the chasing thread.
        t += lat / 2.0e9 + (lat / 64.0) * 400e-9 + reps * (LATENCY_REP_NS / 1e9 + 0.005);
    }
    if sides.1 {
        let bytes = (s.bandwidth.bytes_per_thread * threads as u64) as f64;
        t += bytes / 2.0e9 + reps * (BANDWIDTH_REP_MS as f64 / 1e3 + 0.01);
    }
    t
}

/// Which places of the run the reference covers under the plan's settings (pure: the plan's
/// estimates leave those measurements out, and the part runners skip them when the reference
/// is measuring).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The random 4k curve's point at the reference size.
    pub sweep_point: bool,
    /// The latency matrix's home cell.
    pub latency_cell: bool,
    /// The bandwidth part's read kernel (every usable CPU is the home node's).
    pub bandwidth_read: bool,
    /// The bandwidth matrix's home cell.
    pub bandwidth_cell: bool,
    /// Scaling's full point on the home node.
    pub scaling_point: bool,
}

/// The places the reference covers on `topo` under `s` (see [`Coverage`]).
pub fn coverage(topo: &Topology, s: &Settings) -> Coverage {
    let Some(c) = conditions(topo, s) else {
        return Coverage::default();
    };
    let l = &s.latency;
    let sizes = crate::latency::sweep::sizes(
        l.from_bytes,
        l.to_bytes,
        l.points_per_octave,
        topo.line_bytes(),
    );
    let home = (c.node, c.node);
    let all = topo.usable_cpus();
    Coverage {
        sweep_point: sizes.contains(&c.latency_bytes)
            && l.modes.contains(&Mode::Random)
            && l.pages.contains(&PageSize::Base),
        latency_cell: s.latency_matrix.cells.contains(&home),
        bandwidth_read: c.cpus == all && s.bandwidth.kernels.contains(&KernelId::Read),
        bandwidth_cell: s.bandwidth_matrix.cells.contains(&home),
        scaling_point: s.scaling.nodes.contains(&c.node)
            && s.scaling.thread_counts.contains(&c.cpus.len()),
    }
}

/// The plan's entry for the reference: `None` when no planned part shows it.
pub fn planned(
    topo: &Topology,
    s: &Settings,
    plan: &Plan,
) -> Option<crate::results::reference::PlannedReference> {
    let sides = wanted(plan);
    if !(sides.0 || sides.1) {
        return None;
    }
    let c = conditions(topo, s)?;
    let parts: Vec<Part> = plan.parts.iter().map(|p| p.part).collect();
    let slots = slots(&parts);
    let reps = per_slot(slots) * slots;
    let mut what = Vec::new();
    if sides.0 {
        what.push(format!(
            "local idle latency (random walk, 4k pages, {} bound to node {}, CPU {})",
            crate::parse::size::format_bytes(c.latency_bytes),
            c.node,
            c.cpu
        ));
    }
    if sides.1 {
        what.push(format!(
            "local read bandwidth (read kernel on CPUs {} of node {}, {} per thread, 4k pages)",
            crate::parse::cpulist::format_list(&c.cpus),
            c.node,
            crate::parse::size::format_bytes(c.bytes_per_thread)
        ));
    }
    Some(crate::results::reference::PlannedReference {
        estimate_s: estimate_s(s, c.cpus.len(), slots, sides),
        detail: format!(
            "{}: {reps} repetitions spread across the run ({} before each part after the topology, {} after the last; each latency repetition walks back to steady state for {} ms untimed, then times {SAMPLES_PER_REP} samples of {} ms, all pooled); the places under the same conditions show it instead of measuring their own",
            what.join(" and "),
            per_slot(slots),
            per_slot(slots),
            crate::latency::steady::STEADY_WARMUP_NS / 1_000_000,
            LATENCY_SAMPLE_NS / 1e6
        ),
    })
}

/// Whether the latency part runners may take the reference's latency instead of measuring:
/// the reference latency is being measured in this run and its conditions are `cpu`, local
/// memory, `bytes` (random walk and 4k pages are the caller's to check).
pub fn latency_ready(r: &RunResults, topo: &Topology, s: &Settings, cpu: u32, bytes: u64) -> bool {
    r.reference.as_ref().is_some_and(|f| f.latency_live)
        && conditions(topo, s).is_some_and(|c| c.cpu == cpu && c.latency_bytes == bytes)
}

/// Whether the bandwidth part runners may take the reference's read bandwidth: it is being
/// measured in this run, read by `cpus` with `bytes_per_thread` each.
pub fn bandwidth_ready(
    r: &RunResults,
    topo: &Topology,
    s: &Settings,
    cpus: &[u32],
    bytes_per_thread: u64,
) -> bool {
    r.reference.as_ref().is_some_and(|f| f.bandwidth_live)
        && conditions(topo, s)
            .is_some_and(|c| c.cpus == cpus && c.bytes_per_thread == bytes_per_thread)
}

/// What the chasing thread sends back.
enum LatMsg {
    Ready {
        fraction: f64,
        huge: f64,
        loads: u64,
    },
    Rep {
        /// The repetition's samples, ns per load each.
        samples_ns: Vec<f64>,
        sample: RepSample,
    },
    Failed(String),
}

/// The chasing thread: it owns the buffer and its chain for the whole run and walks one
/// repetition per request. Dropping it ends the thread and frees the buffer.
struct LatWorker {
    go: Option<Sender<()>>,
    back: Receiver<LatMsg>,
    handle: Option<std::thread::JoinHandle<()>>,
    fraction: f64,
    huge: f64,
    loads: u64,
}

impl Drop for LatWorker {
    fn drop(&mut self) {
        self.go.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn spawn_latency(topo: &Topology, root: &SysRoot, c: &Conditions) -> anyhow::Result<LatWorker> {
    let (go_tx, go_rx) = channel::<()>();
    let (back_tx, back_rx) = channel::<LatMsg>();
    let (topo, root, c) = (topo.clone(), root.clone(), c.clone());
    let handle = std::thread::spawn(move || {
        let setup = || -> anyhow::Result<(PlacedBuffer, PlacementReport)> {
            pin_current(&topo, &root, c.cpu)?;
            let buf = PlacedBuffer::new(
                &topo,
                &root,
                c.latency_bytes,
                &Policy::Bind(vec![c.node]),
                PageSize::Base,
            )?;
            let report = buf.verify()?;
            Ok((buf, report))
        };
        let (mut buf, report) = match setup() {
            Ok(x) => x,
            Err(e) => {
                let _ = back_tx.send(LatMsg::Failed(crate::error::one_sentence(&e)));
                return;
            }
        };
        let spec = ChainSpec {
            mode: Mode::Random,
            chains: 1,
            element_bytes: c.line_bytes,
            group_bytes: 0,
            seed: super::runners::SEED,
        };
        let mut chain = match Chain::build(buf.as_u64_mut(), &spec) {
            Ok(ch) => ch,
            Err(e) => {
                let _ = back_tx.send(LatMsg::Failed(e.to_string()));
                return;
            }
        };
        // No full first pass (unlike a one-off measurement): every page was faulted in and
        // every element written by the linking. Size a sample to about LATENCY_SAMPLE_NS:
        // grow a walk past a quarter of it, then time that walk three more times and go by
        // the fastest, so a preemption during the sizing (a busy machine) does not leave
        // every sample short.
        crate::latency::steady::settle(&mut chain);
        let mut iterations: u64 = 64;
        loop {
            let t = Instant::now();
            chain.walk(iterations);
            let e = t.elapsed().as_nanos() as f64;
            if e >= LATENCY_SAMPLE_NS / 4.0 || interrupted() {
                let mut best = e;
                for _ in 0..3 {
                    let t = Instant::now();
                    chain.walk(iterations);
                    best = best.min(t.elapsed().as_nanos() as f64);
                }
                iterations =
                    ((iterations as f64 * LATENCY_SAMPLE_NS / best.max(1.0)) as u64).max(1);
                break;
            }
            iterations *= 4;
        }
        let ready = LatMsg::Ready {
            fraction: report.fraction_on_intended,
            huge: report.huge_fraction,
            loads: iterations * LOADS_PER_ITERATION,
        };
        if back_tx.send(ready).is_err() {
            return;
        }
        while go_rx.recv().is_ok() {
            // The part before streamed through the caches and the TLB: walk back to steady
            // state untimed first (`latency::steady`), then time the samples.
            crate::latency::steady::settle(&mut chain);
            let probe = Probe::start(&root, c.cpu);
            let mut samples_ns = Vec::with_capacity(SAMPLES_PER_REP);
            for _ in 0..SAMPLES_PER_REP {
                let t = Instant::now();
                let loads = chain.walk(iterations);
                let e = t.elapsed().as_nanos() as f64;
                samples_ns.push(e / loads.max(1) as f64);
            }
            let sample = probe.finish();
            if back_tx.send(LatMsg::Rep { samples_ns, sample }).is_err() {
                return;
            }
        }
    });
    match back_rx.recv() {
        Ok(LatMsg::Ready {
            fraction,
            huge,
            loads,
        }) => Ok(LatWorker {
            go: Some(go_tx),
            back: back_rx,
            handle: Some(handle),
            fraction,
            huge,
            loads,
        }),
        Ok(LatMsg::Failed(e)) => {
            let _ = handle.join();
            anyhow::bail!("{e}")
        }
        _ => {
            let _ = handle.join();
            anyhow::bail!("the reference's chasing thread ended before it was ready")
        }
    }
}

/// The read side: the kernel and the placed buffers kept from one repetition to the next.
struct BwState {
    kernel: Kernel,
    kept: Vec<(PlacedBuffer, PlacementReport)>,
}

fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    }
}

/// The reference measurement of one run, alive from before the first part to after the last.
pub struct Reference {
    cond: Conditions,
    t0: Instant,
    lat: Option<LatWorker>,
    bw: Option<BwState>,
    bw_started: bool,
    lat_samples: Vec<f64>,
    lat_quality: RepetitionQuality,
    bw_totals: Vec<f64>,
    bw_per_thread: Vec<Vec<f64>>,
    bw_elapsed: Vec<Vec<u64>>,
    bw_quality: Option<RepetitionQuality>,
    /// Retakes still allowed for the bandwidth side.
    bw_retakes_left: usize,
    repetitions: Vec<ReferenceRepetition>,
    partial: bool,
    /// Why a side could not be measured, one sentence each (the run's warnings).
    pub warnings: Vec<String>,
}

impl Reference {
    /// Places the buffers and links the chase of the `sides` (latency, bandwidth) asked for;
    /// `planned` repetitions in all. A side that cannot be set up is left out with a warning
    /// (the parts then measure their own).
    pub fn start(
        topo: &Topology,
        root: &SysRoot,
        cond: Conditions,
        sides: (bool, bool),
        planned: usize,
        t0: Instant,
    ) -> Reference {
        let mut warnings = Vec::new();
        let lat = match sides.0.then(|| spawn_latency(topo, root, &cond)) {
            None => None,
            Some(Ok(w)) => Some(w),
            Some(Err(e)) => {
                warnings.push(format!(
                    "the run's reference latency could not be set up ({}); each part measures its own",
                    crate::error::one_sentence(&e)
                ));
                None
            }
        };
        let bw = match sides.1.then(|| Kernel::new(KernelId::Read, Isa::best())) {
            None => None,
            Some(Ok(kernel)) => Some(BwState {
                kernel,
                kept: Vec::new(),
            }),
            Some(Err(e)) => {
                warnings.push(format!(
                    "the run's reference bandwidth could not be set up ({e}); each part measures its own"
                ));
                None
            }
        };
        // A small allowance: a third of the planned repetitions may be taken again.
        let allowance = planned.div_ceil(3).max(1);
        Reference {
            t0,
            lat,
            bw,
            bw_started: false,
            lat_samples: Vec::new(),
            lat_quality: RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, allowance as u32),
            bw_totals: Vec::new(),
            bw_per_thread: vec![Vec::new(); cond.cpus.len()],
            bw_elapsed: Vec::new(),
            bw_quality: None,
            bw_retakes_left: allowance,
            repetitions: Vec::new(),
            partial: false,
            warnings,
            cond,
        }
    }

    /// Takes `count` repetitions (each a latency sample then a bandwidth sample) before
    /// `before` (`None`: after the last part). A stop signal ends it at once, marked partial.
    pub fn take(&mut self, topo: &Topology, root: &SysRoot, before: Option<Part>, count: usize) {
        for _ in 0..count {
            if interrupted() {
                self.partial = true;
                return;
            }
            let at_s = self.t0.elapsed().as_secs_f64();
            let (ns, latency_kept) = self.take_latency(before);
            let (mb, bandwidth_kept) = self.take_bandwidth(topo, root);
            self.repetitions.push(ReferenceRepetition {
                before,
                at_s,
                ns_per_load: ns,
                latency_kept,
                mb_per_s: mb,
                bandwidth_kept,
            });
        }
    }

    /// Marks the reference partial (the run stopped before its last slot).
    pub fn stopped(&mut self) {
        self.partial = true;
    }

    /// One latency repetition, taken again while it is disturbed and the allowance lasts
    /// (once spent, a disturbed one is kept and the figure marked). (sample, kept); each
    /// discarded take is recorded as its own repetition.
    fn take_latency(&mut self, before: Option<Part>) -> (Option<f64>, bool) {
        loop {
            let Some(w) = self.lat.as_ref() else {
                return (None, false);
            };
            let at_s = self.t0.elapsed().as_secs_f64();
            let got =
                w.go.as_ref()
                    .is_some_and(|g| g.send(()).is_ok())
                    .then(|| w.back.recv().ok())
                    .flatten();
            let Some(LatMsg::Rep { samples_ns, sample }) = got else {
                self.warnings.push(
                    "the run's reference chasing thread stopped answering; the latency figure keeps the repetitions taken so far".into(),
                );
                self.lat = None;
                return (None, false);
            };
            let ns = crate::stats::median(&samples_ns);
            if self.lat_quality.record(&sample).kept() {
                self.lat_samples.extend(samples_ns);
                return (Some(ns), true);
            }
            self.repetitions.push(ReferenceRepetition {
                before,
                at_s,
                ns_per_load: Some(ns),
                latency_kept: false,
                mb_per_s: None,
                bandwidth_kept: false,
            });
            if interrupted() {
                return (None, false);
            }
        }
    }

    /// One bandwidth repetition through the team (which retakes a disturbed one while the
    /// allowance lasts); the first also places the buffers and runs one warm-up.
    fn take_bandwidth(&mut self, topo: &Topology, root: &SysRoot) -> (Option<f64>, bool) {
        let Some(st) = self.bw.as_mut() else {
            return (None, false);
        };
        let c = &self.cond;
        let retakes = self.bw_retakes_left.min(1);
        let mut plan = TeamPlan::new(
            Duration::from_millis(BANDWIDTH_REP_MS),
            1,
            usize::from(!self.bw_started),
        );
        plan.max_retakes = retakes;
        let reuse: Mutex<Vec<Option<(PlacedBuffer, PlacementReport)>>> =
            Mutex::new(std::mem::take(&mut st.kept).into_iter().map(Some).collect());
        let kernel = st.kernel;
        let out = run_team(
            topo,
            root,
            &c.cpus,
            &plan,
            |i, _cpu| {
                let old = reuse
                    .lock()
                    .ok()
                    .and_then(|mut v| v.get_mut(i).and_then(Option::take));
                if let Some(b) = old {
                    return Ok(b);
                }
                let buf = PlacedBuffer::new(
                    topo,
                    root,
                    c.bytes_per_thread,
                    &Policy::Bind(vec![c.node]),
                    PageSize::Base,
                )?;
                let report = buf.verify()?;
                Ok((buf, report))
            },
            |_, state, stop| read_until(&kernel, state.0.as_f64_mut(), || stop.stopped()).0,
        );
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                self.warnings.push(format!(
                    "the run's reference bandwidth failed ({e}); each part measures its own"
                ));
                self.bw = None;
                return (None, false);
            }
        };
        self.bw_started = true;
        st.kept = out.states;
        self.bw_retakes_left -= (out.quality.repetitions_discarded as usize).min(retakes);
        RepetitionQuality::merge_into(&mut self.bw_quality, &out.quality);
        let Some(rep) = out.reps.first() else {
            return (None, false);
        };
        let bytes: u64 = rep.iter().map(|s| s.value).sum();
        let longest = rep.iter().map(|s| s.elapsed_ns).max().unwrap_or(0);
        let total = mb_per_s(bytes, longest);
        for (k, s) in rep.iter().enumerate() {
            if let Some(v) = self.bw_per_thread.get_mut(k) {
                v.push(mb_per_s(s.value, s.elapsed_ns));
            }
        }
        self.bw_elapsed
            .push(rep.iter().map(|s| s.elapsed_ns).collect());
        self.bw_totals.push(total);
        (Some(total), true)
    }

    /// The figures so far (places filled are the run's; `filled` is kept from `r`).
    pub fn figures(&self, keep: Option<&ReferenceFigures>) -> ReferenceFigures {
        let c = &self.cond;
        let latency = match (&self.lat, Summary::of(&self.lat_samples)) {
            (_, Some(s)) => Some(ReferenceLatency {
                cpu: c.cpu,
                memory_node: c.node,
                working_set_bytes: c.latency_bytes,
                page_size: PageSize::Base,
                mode: Mode::Random,
                element_bytes: c.line_bytes,
                placement_fraction: self.lat.as_ref().map_or(
                    keep.and_then(|k| k.latency.as_ref())
                        .map_or(1.0, |l| l.placement_fraction),
                    |w| w.fraction,
                ),
                huge_fraction: self.lat.as_ref().map_or(0.0, |w| w.huge),
                loads_per_repetition: self
                    .lat
                    .as_ref()
                    .map_or(0, |w| w.loads * SAMPLES_PER_REP as u64),
                samples_per_repetition: SAMPLES_PER_REP,
                ns_per_load: s,
                quality: self.lat_quality.clone(),
            }),
            _ => None,
        };
        let bandwidth = Summary::of(&self.bw_totals).map(|s| ReferenceBandwidth {
            kernel: "read".into(),
            cpus: c.cpus.clone(),
            threads: c.cpus.len(),
            memory_node: c.node,
            bytes_per_thread: c.bytes_per_thread,
            page_size: PageSize::Base,
            duration_ms: BANDWIDTH_REP_MS,
            placement_fraction: self
                .bw
                .as_ref()
                .map(|b| {
                    b.kept
                        .iter()
                        .map(|k| k.1.fraction_on_intended)
                        .fold(1.0, f64::min)
                })
                .unwrap_or(1.0),
            per_thread_mb_per_s: self
                .bw_per_thread
                .iter()
                .map(|v| crate::stats::median(v))
                .collect(),
            elapsed_ns: self.bw_elapsed.clone(),
            quality: self.bw_quality.clone().unwrap_or_default(),
            mb_per_s: s,
        });
        ReferenceFigures {
            latency,
            bandwidth,
            repetitions: self.repetitions.clone(),
            filled: keep.map(|k| k.filled.clone()).unwrap_or_default(),
            partial: self.partial,
            latency_live: self.lat.is_some(),
            bandwidth_live: self.bw.is_some(),
        }
    }

    /// Stores the figures so far into `r` and writes them into every place the parts left to
    /// the reference (see the module docs).
    pub fn store(&self, topo: &Topology, r: &mut RunResults) {
        let f = self.figures(r.reference.as_ref());
        r.reference = Some(f);
        fill_latency(topo, r);
        self.fill_bandwidth(topo, r);
    }

    /// The reference bandwidth as a bandwidth result, for a report's `results`.
    fn bandwidth_result(&self, b: &ReferenceBandwidth) -> BandwidthResult {
        let kernel = self
            .bw
            .as_ref()
            .map(|s| s.kernel)
            .or_else(|| Kernel::new(KernelId::Read, Isa::best()).ok());
        let desc = KernelId::Read.descriptor();
        let reports: Vec<&PlacementReport> = self
            .bw
            .as_ref()
            .map(|s| s.kept.iter().map(|k| &k.1).collect())
            .unwrap_or_default();
        let policy = Policy::Bind(vec![b.memory_node]).describe();
        let placements = reports
            .iter()
            .enumerate()
            .map(|(t, r)| StreamPlacement {
                thread: t,
                cpu: b.cpus.get(t).copied().unwrap_or(0),
                stream: 0,
                policy: policy.clone(),
                report: (*r).clone(),
            })
            .collect();
        let huge = if reports.is_empty() {
            0.0
        } else {
            reports.iter().map(|r| r.huge_fraction).sum::<f64>() / reports.len() as f64
        };
        let per_thread: Vec<ThreadRate> = b
            .cpus
            .iter()
            .zip(&self.bw_per_thread)
            .map(|(&cpu, v)| ThreadRate::of(cpu, &Summary::of(v).unwrap_or(Summary::point(0.0, 0))))
            .collect();
        let rates = Rates::from_summary(&b.mb_per_s, per_thread);
        let line = self.cond.line_bytes;
        let dram = desc.dram_bytes_per_element(line);
        let app = desc.app_bytes_per_element().max(1);
        let scale = dram as f64 / app as f64;
        let scaled = |x: f64| x * scale;
        let dram_rates = Rates {
            median: scaled(rates.median),
            min: scaled(rates.min),
            max: scaled(rates.max),
            samples: rates.samples,
            ci: rates.ci.map(|c| crate::stats::Interval {
                low: scaled(c.low),
                high: scaled(c.high),
                level: c.level,
            }),
            per_thread: rates
                .per_thread
                .iter()
                .map(|t| ThreadRate {
                    cpu: t.cpu,
                    median: scaled(t.median),
                    min: scaled(t.min),
                    max: scaled(t.max),
                })
                .collect(),
        };
        BandwidthResult {
            // Its repetitions are the run's slots, not a count extras could add to.
            precision: None,
            kernel: desc.name.to_string(),
            isa: kernel.map_or(crate::results::bandwidth::Isa::Scalar, |k| k.isa()),
            non_temporal: desc.non_temporal,
            threads: b.threads,
            cpus: b.cpus.clone(),
            cpu_nodes: vec![b.memory_node],
            memory_nodes: vec![b.memory_node],
            placement: "local".into(),
            stream_policies: vec![policy],
            placement_fraction: b.placement_fraction,
            huge_fraction: huge,
            mb_per_s: rates,
            dram_mb_per_s_estimate: dram_rates,
            bytes_per_element: BytesPerElement {
                read: desc.read_bytes_per_element,
                written: desc.written_bytes_per_element,
                write_allocate: desc.write_allocate_bytes_per_element,
                dram_estimate: dram,
            },
            array_bytes_per_thread: b.bytes_per_thread,
            working_set_bytes: b.bytes_per_thread * b.threads as u64,
            page_size: b.page_size,
            duration_ms: b.duration_ms,
            repetitions: b.mb_per_s.samples,
            warmup_repetitions: 1,
            elapsed_ns: b.elapsed_ns.clone(),
            placements,
            quality: Some(b.quality.clone()),
            cache_level: None,
            stride_elements: None,
        }
    }

    /// Writes the reference bandwidth into every bandwidth place that shows it: the result
    /// the place indexes, the matrix cells and scaling points that index it (their knees
    /// found again).
    fn fill_bandwidth(&self, _topo: &Topology, r: &mut RunResults) {
        let Some(f) = r.reference.as_ref() else {
            return;
        };
        let Some(b) = f.bandwidth.clone() else {
            return;
        };
        let places: Vec<(Part, usize)> = f
            .filled
            .iter()
            .filter(|p| p.figure == ReferenceFigure::Bandwidth)
            .filter_map(|p| Some((p.part, p.result_index?)))
            .collect();
        let result = self.bandwidth_result(&b);
        for (part, idx) in places {
            let report = match part {
                Part::Scaling => r.scaling.as_mut(),
                _ => r.bandwidth.as_mut(),
            };
            let Some(report) = report else { continue };
            let Some(slot) = report.results.get_mut(idx) else {
                continue;
            };
            *slot = result.clone();
            for c in report
                .matrix
                .iter_mut()
                .flat_map(|m| m.cells.iter_mut())
                .filter(|c| c.result_index == idx)
            {
                c.threads = result.threads;
                c.mb_per_s = result.mb_per_s.median;
                c.dram_mb_per_s_estimate = result.dram_mb_per_s_estimate.median;
                c.placement_fraction = result.placement_fraction;
            }
            for series in report.scaling.iter_mut().flat_map(|s| s.series.iter_mut()) {
                let mut touched = false;
                for p in series.points.iter_mut().filter(|p| p.result_index == idx) {
                    p.mb_per_s = result.mb_per_s.median;
                    p.mb_per_s_max = result.mb_per_s.max;
                    p.cpus = result.cpus.clone();
                    touched = true;
                }
                if touched {
                    series.points.sort_by_key(|p| p.threads);
                    let t: Vec<usize> = series.points.iter().map(|p| p.threads).collect();
                    let m: Vec<f64> = series.points.iter().map(|p| p.mb_per_s).collect();
                    series.knee_threads = crate::bandwidth::scaling::knee(&t, &m);
                }
            }
        }
    }

    /// A bandwidth result standing for the reference until [`Reference::store`] fills it
    /// (the parts push it where they skipped the measurement).
    pub fn placeholder(r: &RunResults) -> Option<BandwidthResult> {
        let f = r.reference.as_ref()?;
        let b = f.bandwidth.as_ref()?;
        let me = Reference::detached(b);
        Some(me.bandwidth_result(b))
    }

    /// A reference holding no measurement, for building results from stored figures.
    fn detached(b: &ReferenceBandwidth) -> Reference {
        Reference {
            cond: Conditions {
                node: b.memory_node,
                cpu: b.cpus.first().copied().unwrap_or(0),
                cpus: b.cpus.clone(),
                latency_bytes: 0,
                line_bytes: 64,
                bytes_per_thread: b.bytes_per_thread,
            },
            t0: Instant::now(),
            lat: None,
            bw: None,
            bw_started: true,
            lat_samples: vec![],
            lat_quality: RepetitionQuality::default(),
            bw_totals: vec![],
            bw_per_thread: vec![],
            bw_elapsed: vec![],
            bw_quality: None,
            bw_retakes_left: 0,
            repetitions: vec![],
            partial: false,
            warnings: vec![],
        }
    }
}

/// The reference latency as a latency result (one sample per kept repetition).
pub fn latency_result(l: &ReferenceLatency) -> LatencyResult {
    LatencyResult {
        // Its repetitions are the run's slots, not a count extras could add to.
        precision: None,
        blocks: None,
        mode: l.mode,
        working_set_bytes: l.working_set_bytes,
        element_bytes: l.element_bytes,
        group_bytes: None,
        page_size: l.page_size,
        cpu: l.cpu,
        memory_node: Some(l.memory_node),
        placement_fraction: Some(l.placement_fraction),
        huge_fraction: Some(l.huge_fraction),
        chains: 1,
        ns_per_load: l.ns_per_load,
        cycles_per_load: None,
        loads_per_sample: l.loads_per_repetition / l.samples_per_repetition.max(1) as u64,
        warmup_samples: 0,
        quality: Some(l.quality.clone()),
    }
}

/// Writes the reference latency into the sweep point and matrix cell the parts left to it.
fn fill_latency(topo: &Topology, r: &mut RunResults) {
    let Some(f) = r.reference.as_ref() else {
        return;
    };
    let Some(l) = f.latency.as_ref() else {
        return;
    };
    let res = latency_result(l);
    let sweep = f.fills(Part::Latency, ReferenceFigure::Latency);
    let matrix = f.fills(Part::LatencyMatrix, ReferenceFigure::Latency);
    let Some(rep) = r.latency.as_mut() else {
        return;
    };
    if sweep {
        let at = rep
            .sweep
            .iter()
            .position(|c| c.mode == Mode::Random && c.page_size == PageSize::Base && c.chains == 1);
        if let Some(k) = at {
            let c = &mut rep.sweep[k];
            c.points
                .retain(|p| p.working_set_bytes != res.working_set_bytes);
            let pos = c
                .points
                .iter()
                .position(|p| p.working_set_bytes > res.working_set_bytes)
                .unwrap_or(c.points.len());
            c.points.insert(pos, res.clone());
            let knees = CurveKnees::of_sweep(
                c.mode,
                c.page_size,
                c.chains,
                &c.points,
                &topo.cache_sizes_for_cpu(res.cpu),
            );
            if let Some(kn) = rep
                .knees
                .iter_mut()
                .find(|kn| kn.mode == c.mode && kn.page_size == c.page_size && kn.chains == 1)
            {
                *kn = knees;
            } else {
                rep.knees.insert(k.min(rep.knees.len()), knees);
            }
        }
    }
    if matrix {
        if let Some(m) = rep.matrix.as_mut() {
            let node = l.memory_node;
            // The row's paired ratios from the matrix's rounds are kept.
            crate::latency::matrix::with_result(topo, m, node, node, res);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::reference::FilledPlace;
    use crate::run::plan::{make_plan, PlanRequest};
    use crate::run::sample;

    fn figures(median: f64, n: usize) -> ReferenceFigures {
        let samples: Vec<f64> = (0..n).map(|k| median - 2.0 + (k % 5) as f64).collect();
        let mut f = ReferenceFigures::empty();
        f.latency = Some(ReferenceLatency {
            cpu: 0,
            memory_node: 0,
            working_set_bytes: 16 << 20,
            page_size: PageSize::Base,
            mode: Mode::Random,
            element_bytes: 64,
            placement_fraction: 1.0,
            huge_fraction: 0.0,
            loads_per_repetition: 1000,
            samples_per_repetition: 1,
            ns_per_load: Summary::of(&samples).unwrap(),
            quality: RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 2),
        });
        f
    }

    fn place(part: Part, figure: ReferenceFigure, place: &str) -> FilledPlace {
        FilledPlace {
            part,
            figure,
            place: place.into(),
            source: "reference".into(),
            result_index: None,
        }
    }

    #[test]
    fn slots_reach_six_repetitions_whatever_the_part_count() {
        assert_eq!(slots(&[Part::Topology, Part::Latency]), 2);
        assert_eq!(slots(&[Part::Latency]), 2);
        assert_eq!(per_slot(2), 3);
        assert_eq!(per_slot(3), 2);
        assert_eq!(per_slot(6), 1);
        assert_eq!(per_slot(12), 1);
        for n in 1..20 {
            assert!(per_slot(n) * n >= MIN_REPETITIONS, "{n}");
        }
    }

    /// The matrix's home cell becomes the reference figure, and the remote cell's ratio is
    /// taken against it; a place the parts did not leave to the reference is not touched.
    #[test]
    fn the_matrix_home_cell_shows_the_reference_and_ratios_follow_it() {
        let topo = sample::opteron_topology();
        let mut r = sample::results();
        r.latency = Some(sample::latency_matrix(&[
            (0, 0, 100.0, None),
            (0, 1, 150.0, None),
        ]));
        let mut f = figures(90.0, 9);
        r.reference = Some(f.clone());
        fill_latency(&topo, &mut r);
        let m = r.latency.as_ref().unwrap().matrix.as_ref().unwrap();
        assert_eq!(
            m.cells[0].result.ns_per_load.median, 100.0,
            "not a filled place"
        );
        f.filled
            .push(place(Part::LatencyMatrix, ReferenceFigure::Latency, "cell"));
        r.reference = Some(f.clone());
        fill_latency(&topo, &mut r);
        let m = r.latency.as_ref().unwrap().matrix.as_ref().unwrap();
        assert_eq!(m.cells.len(), 2);
        let home = &m.cells[0];
        assert_eq!((home.initiator_node, home.memory_node), (0, 0));
        assert_eq!(home.result.ns_per_load, f.latency.unwrap().ns_per_load);
        assert_eq!(home.result.ns_per_load.samples, 9);
        let remote = &m.cells[1];
        assert_eq!(remote.measured_ratio, Some(150.0 / 90.0));
    }

    /// The random 4k curve gets the reference point at its size, in size order, and its
    /// knees are found again; other curves keep their points.
    #[test]
    fn the_sweep_point_at_the_reference_size_is_the_reference() {
        let topo = sample::opteron_topology();
        let mut r = sample::results();
        let mut rep = sample::latency_matrix(&[]);
        rep.matrix = None;
        let point = |bytes: u64, ns: f64| {
            let mut p = sample::latency_matrix(&[(0, 0, ns, None)])
                .matrix
                .unwrap()
                .cells[0]
                .result
                .clone();
            p.working_set_bytes = bytes;
            p.mode = Mode::Random;
            p.group_bytes = None;
            p
        };
        for page in [PageSize::Base, PageSize::Thp] {
            rep.sweep.push(crate::results::latency::SweepCurve {
                mode: Mode::Random,
                page_size: page,
                chains: 1,
                points: vec![point(4 << 20, 40.0), point(32 << 20, 120.0)],
            });
        }
        r.latency = Some(rep);
        let mut f = figures(200.0, 7);
        f.filled
            .push(place(Part::Latency, ReferenceFigure::Latency, "point"));
        let want = f.latency.as_ref().unwrap().ns_per_load;
        r.reference = Some(f);
        fill_latency(&topo, &mut r);
        fill_latency(&topo, &mut r);
        let l = r.latency.as_ref().unwrap();
        let sizes: Vec<u64> = l.sweep[0]
            .points
            .iter()
            .map(|p| p.working_set_bytes)
            .collect();
        assert_eq!(
            sizes,
            vec![4 << 20, 16 << 20, 32 << 20],
            "filled once, in order"
        );
        assert_eq!(l.sweep[0].points[1].ns_per_load, want);
        assert_eq!(l.sweep[0].points[1].ns_per_load.samples, 7);
        assert_eq!(
            l.sweep[1].points.len(),
            2,
            "the THP curve is not the reference's"
        );
        assert_eq!(l.knees.len(), 1);
    }

    /// The parts filled their places while the reference was still
    /// quiet, then its later repetitions stayed disturbed. Every place it fills carries the
    /// reference's quality record, so every view marks it: the JSON record, the verdict's
    /// counts, `compare`'s metrics, summary.txt's lines and the terminal's intervals; the
    /// places it does not fill keep their own record.
    #[test]
    fn a_disturbed_reference_marks_every_place_it_fills() {
        use crate::results::bandwidth::{Matrix, MatrixCell, Scaling, ScalingPoint, ScalingSeries};
        let topo = sample::opteron_topology();
        let mut r = sample::results();
        let mut rep = sample::latency_matrix(&[(0, 1, 150.0, None)]);
        let mut p4 = rep.matrix.as_ref().unwrap().cells[0].result.clone();
        p4.working_set_bytes = 4 << 20;
        p4.mode = Mode::Random;
        p4.memory_node = Some(0);
        p4.ns_per_load = Summary::of(&[40.0; 9]).unwrap();
        rep.sweep.push(crate::results::latency::SweepCurve {
            mode: Mode::Random,
            page_size: PageSize::Base,
            chains: 1,
            points: vec![p4],
        });
        r.latency = Some(rep);
        let mut f = figures(90.0, 9);
        let bw_samples: Vec<f64> = (0..9).map(|k| 6000.0 + 10.0 * k as f64).collect();
        f.bandwidth = Some(ReferenceBandwidth {
            kernel: "read".into(),
            cpus: vec![0],
            threads: 1,
            memory_node: 0,
            bytes_per_thread: 64 << 20,
            page_size: PageSize::Base,
            duration_ms: BANDWIDTH_REP_MS,
            placement_fraction: 1.0,
            mb_per_s: Summary::of(&bw_samples).unwrap(),
            per_thread_mb_per_s: vec![6040.0],
            elapsed_ns: vec![],
            quality: RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 2),
        });
        r.reference = Some(f.clone());
        // The parts put the reference in as it stood then (quiet), as run::runners does.
        let early = Reference::placeholder(&r).unwrap();
        assert!(!early.quality.as_ref().unwrap().disturbed);
        let mut bw = crate::bandwidth::experiment::empty_report(&topo);
        bw.results.push(early.clone());
        bw.matrix.push(Matrix {
            kernel: "read".into(),
            initiators: vec![0],
            targets: vec![0],
            cells: vec![MatrixCell {
                initiator: 0,
                target: 0,
                threads: 1,
                mb_per_s: early.mb_per_s.median,
                dram_mb_per_s_estimate: early.dram_mb_per_s_estimate.median,
                placement_fraction: 1.0,
                hmat_read_mb_per_s: None,
                hmat_write_mb_per_s: None,
                result_index: 0,
            }],
        });
        r.bandwidth = Some(bw);
        let mut sc = crate::bandwidth::experiment::empty_report(&topo);
        sc.results.push(early.clone());
        sc.scaling.push(Scaling {
            kernel: "read".into(),
            series: vec![ScalingSeries {
                mode: "packed".into(),
                node: Some(0),
                points: vec![ScalingPoint {
                    threads: 1,
                    cpus: vec![0],
                    mb_per_s: early.mb_per_s.median,
                    mb_per_s_max: early.mb_per_s.max,
                    result_index: 0,
                }],
                knee_threads: None,
            }],
        });
        r.scaling = Some(sc);
        f.filled = vec![
            place(
                Part::Latency,
                ReferenceFigure::Latency,
                "random 4k curve, 16 MiB point",
            ),
            place(
                Part::LatencyMatrix,
                ReferenceFigure::Latency,
                "matrix cell 0 -> 0",
            ),
        ];
        for part in [Part::Bandwidth, Part::BandwidthMatrix, Part::Scaling] {
            let mut p = place(part, ReferenceFigure::Bandwidth, "read");
            p.result_index = Some(0);
            f.filled.push(p);
        }
        // Then the reference's repetitions stayed disturbed (a hog on CPU 0).
        let mut bad = RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 2);
        for _ in 0..9 {
            bad.record(&RepSample {
                cpu_share_fraction: Some(0.45),
                cpu: Some(0),
                ..RepSample::default()
            });
        }
        assert!(bad.disturbed);
        f.latency.as_mut().unwrap().quality = bad.clone();
        f.bandwidth.as_mut().unwrap().quality = bad.clone();
        r.reference = Some(f.clone());
        fill_latency(&topo, &mut r);
        Reference::detached(f.bandwidth.as_ref().unwrap()).fill_bandwidth(&topo, &mut r);
        // JSON: each place holds the reference's record, and keeps it through a file.
        let json = serde_json::to_string(&r).unwrap();
        let r: RunResults = serde_json::from_str(&json).unwrap();
        let l = r.latency.as_ref().unwrap();
        let point = l.sweep[0].points.last().unwrap();
        assert_eq!(point.working_set_bytes, 16 << 20);
        assert_eq!(point.quality.as_ref(), Some(&bad), "sweep point");
        let cells = &l.matrix.as_ref().unwrap().cells;
        let home = cells.iter().find(|c| c.memory_node == 0).unwrap();
        assert_eq!(
            home.result.quality.as_ref(),
            Some(&bad),
            "latency home cell"
        );
        let remote = cells.iter().find(|c| c.memory_node == 1).unwrap();
        assert!(remote.result.quality.is_none(), "not a filled place");
        assert_eq!(
            l.sweep[0].points[0].quality, None,
            "the 4 MiB point is its own"
        );
        for (what, b) in [("bandwidth", &r.bandwidth), ("scaling", &r.scaling)] {
            let res = &b.as_ref().unwrap().results[0];
            assert_eq!(res.quality.as_ref(), Some(&bad), "{what}");
        }
        // The verdict counts every filled place as disturbed, and nothing else.
        let checks = crate::results::findings::figure_checks(&r);
        let marked: Vec<&str> = checks
            .iter()
            .filter(|c| c.disturbed)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(marked.len(), 4, "{marked:?}");
        assert!(
            marked
                .iter()
                .filter(|n| n.starts_with("latency 16 MiB"))
                .count()
                == 2
                && marked.iter().any(|n| n.starts_with("bandwidth read"))
                && marked.iter().any(|n| n.starts_with("scaling read")),
            "{marked:?}"
        );
        // compare marks the metrics the filled places feed.
        let m = crate::compare::metrics(&r, "a");
        for key in [
            "latency-matrix/0->0",
            "latency-sweep/random/4k/1",
            "bandwidth-matrix/read/0->0",
        ] {
            let x = m.metrics.iter().find(|x| x.key == key);
            assert!(x.is_some_and(|x| x.disturbed), "{key}: {x:?}");
        }
        assert!(
            !m.metrics
                .iter()
                .find(|x| x.key == "latency-matrix/0->1")
                .unwrap()
                .disturbed
        );
        // summary.txt: every line showing the reference says DISTURBED.
        let mut out = Vec::new();
        crate::render::run_brief::render(&mut out, &r, None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let noted: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("measured across the run"))
            .collect();
        assert_eq!(noted.len(), 4, "{text}");
        for line in noted {
            assert!(line.contains("DISTURBED"), "{line}");
        }
        // The terminal: the filled cells' intervals are marked.
        let mut out = Vec::new();
        crate::render::run_text::render(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let intervals: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("95 % intervals (CPU node->memory node): 0->0"))
            .collect();
        assert_eq!(intervals.len(), 2, "{text}");
        for line in intervals {
            let home = line.split(';').next().unwrap_or(line);
            assert!(home.contains("(disturbed)"), "{line}");
        }
    }

    /// On this one-node machine every covered place is covered in the default plan, and the
    /// plan's total holds the reference's estimate; `--only topology` and `--only c2c` plan
    /// no reference, `--only latency` only its latency side.
    #[test]
    fn coverage_and_plan_on_this_machine() {
        let topo = crate::testutil::this_machine_one_node();
        let p = make_plan(&topo, &PlanRequest::default(), &Part::ALL);
        let c = coverage(&topo, &p.settings);
        assert!(c.latency_cell && c.bandwidth_cell && c.bandwidth_read && c.sweep_point);
        let x = p.plan.reference.as_ref().expect("planned");
        let sum: f64 = p.plan.parts.iter().map(|q| q.estimate_s).sum();
        assert!((p.plan.estimate_s - (sum + x.estimate_s)).abs() < 1e-9);
        assert!(x.detail.contains("local idle latency") && x.detail.contains("read kernel"));
        for (only, sides) in [
            (vec![Part::Topology], (false, false)),
            (vec![Part::C2c], (false, false)),
            (vec![Part::Latency], (true, false)),
            (vec![Part::Scaling], (false, true)),
        ] {
            let req = PlanRequest {
                only: Some(only.clone()),
                ..Default::default()
            };
            let q = make_plan(&topo, &req, &Part::ALL);
            assert_eq!(wanted(&q.plan), sides, "{only:?}");
            assert_eq!(q.plan.reference.is_some(), sides.0 || sides.1);
        }
    }
}
