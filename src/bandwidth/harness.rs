//! The timed multi-thread run of one kernel (docs/METHODOLOGY.md, "Timed teams", "Buffers and
//! kernels", "Placed, then verified"): one thread per CPU, pinned and verified before anything
//! else; each thread allocates its own arrays (one per stream, each with its own policy) on its CPU
//! and verifies where the pages went, all before timing. Each repetition releases every thread with
//! one barrier; threads sweep their private arrays chunk by chunk until the shared stop flag is
//! raised after a fixed duration, and each reports the elements it processed and its own elapsed
//! time. Rates are computed per thread (bytes over the thread's own time) and summed; the first
//! repetitions are dropped. Toward a precision goal ([`run_toward`]), batches of extra repetitions
//! follow while the interval of the summed rate is wider than the target.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::descriptor::{mb_per_s, ELEMENT_BYTES};
use super::kernels::{Kernel, Params};
use crate::placement::{PlacedBuffer, Policy};
use crate::results::bandwidth::{
    BandwidthResult, BytesPerElement, Rates, StreamPlacement, ThreadRate,
};
use crate::results::placement::PageSize;
use crate::results::quality::Precision;
use crate::results::topology::Topology;
use crate::schedule::extras::{next_batch, ExtraCost};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::precision::PrecisionGoal;
use crate::threads::{run_team, Stop, TeamOutcome, TeamPlan, ThreadSample};

/// Elements per stream handed to the kernel between two polls of the stop flag (512 KiB per
/// stream: tens of microseconds of work at DRAM speed, so polling costs nothing and overshoot
/// is tiny; an L2-sized array is one chunk, swept in passes inside one call).
pub const CHUNK_ELEMENTS: usize = 64 * 1024;

/// Elements per stream processed between two polls when the array is no larger than a chunk
/// and is swept whole, several passes per call (8 MiB: some 100 microseconds even in L1).
const SMALL_ELEMENTS_PER_POLL: usize = 1 << 20;

/// Byte offset between consecutive streams' start (and, smaller, between threads): an odd
/// number of cache lines, so arrays never start on the same power-of-two boundary.
const STREAM_OFFSET_BYTES: usize = 17 * 64;
const THREAD_OFFSET_BYTES: usize = 5 * 64;

/// Everything one run needs, already validated by the planner.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub kernel: Kernel,
    /// One thread per CPU.
    pub cpus: Vec<u32>,
    /// The placement mode's name, for the result (`local`, `node`, ...).
    pub placement: String,
    /// One policy per stream of the kernel.
    pub stream_policies: Vec<Policy>,
    /// Bytes of each stream's array, per thread.
    pub array_bytes: u64,
    pub page: PageSize,
    pub duration: Duration,
    pub repetitions: usize,
    pub warmup: usize,
    pub params: Params,
    /// Test hook: thread `.0` sleeps `.1` after every chunk (to check that a slow thread does
    /// not stretch the others' timing). `None` in every real run.
    #[doc(hidden)]
    pub throttle: Option<(usize, Duration)>,
}

/// A thread's arrays and its position in them.
struct Worker {
    bufs: Vec<PlacedBuffer>,
    /// Start of each stream's array inside its buffer, elements.
    starts: Vec<usize>,
    /// Elements per array.
    len: usize,
    /// Next element to process (carried over repetitions).
    pos: usize,
    seed: u64,
    reports: Vec<crate::results::placement::PlacementReport>,
}

/// What one thread did in one repetition.
#[derive(Clone, Copy, Debug)]
struct Moved {
    elements: u64,
    checksum: u64,
}

/// Runs the kernel as `spec` says and summarizes the repetitions.
pub fn run(topo: &Topology, root: &SysRoot, spec: &RunSpec) -> anyhow::Result<BandwidthResult> {
    run_toward(topo, root, spec, None)
}

/// [`run`], then, with a `goal`, batches of extra repetitions while the interval of the total
/// rate's median is wider than the goal's target ([`next_batch`] sizes each batch
/// and says when to stop: the interval is met, the extras reached the planned count, or the
/// goal's pool has no time for the next batch). A batch is a new team over the same arrays:
/// each thread takes back its placed, faulted and swept buffers on the same CPU, so a batch
/// pays no allocation and no warm-up. The result records its [`Precision`].
pub fn run_toward(
    topo: &Topology,
    root: &SysRoot,
    spec: &RunSpec,
    goal: Option<&PrecisionGoal>,
) -> anyhow::Result<BandwidthResult> {
    let desc = spec.kernel.descriptor();
    let streams = desc.stream_count();
    anyhow::ensure!(
        spec.stream_policies.len() == streams,
        "kernel {} has {streams} streams but {} policies were planned",
        desc.name,
        spec.stream_policies.len()
    );
    let len = (spec.array_bytes / ELEMENT_BYTES) as usize;
    anyhow::ensure!(
        len > 0,
        "the array size is below one element; use a larger --size"
    );
    if let Some(stride) = spec.kernel.stride() {
        anyhow::ensure!(
            stride <= len,
            "--stride {stride} is more than the {len} elements of each array, so every pass would touch one element; use a stride of at most {len} or a larger --size"
        );
    }
    // A stop signal ends the repetitions once one is kept (not after all of them: 1000
    // repetitions of 100 ms kept a stopped command measuring for 100 s).
    let plan = TeamPlan {
        stop_on_signal: Some(1),
        ..TeamPlan::new(spec.duration, spec.repetitions, spec.warmup)
    };
    let setup = |index: usize, _cpu: u32| make_worker(topo, root, spec, index, len);
    let work =
        |index: usize, w: &mut Worker, stop: &Stop| sweep_until_stopped(spec, index, w, stop);
    let mut outcome = run_team(topo, root, &spec.cpus, &plan, setup, work)?;
    anyhow::ensure!(
        !outcome.reps.is_empty(),
        "no repetition completed; this is a numascope bug"
    );
    let precision = match goal {
        Some(g) => Some(extra_repetitions(topo, root, spec, g, &mut outcome)?),
        None => None,
    };
    let mut result = summarize(topo, spec, outcome);
    result.precision = precision;
    Ok(result)
}

/// Fixed cost of one batch of extra repetitions: spawning and pinning the team, reading
/// `/proc/stat` around each repetition (a few milliseconds on a busy 2-CPU machine).
const BATCH_OVERHEAD: Duration = Duration::from_millis(20);

/// Takes batches of extra repetitions toward `goal` into `outcome` (see [`run_toward`]) and
/// returns the figure's precision record.
fn extra_repetitions(
    topo: &Topology,
    root: &SysRoot,
    spec: &RunSpec,
    goal: &PrecisionGoal,
    outcome: &mut TeamOutcome<Worker, Moved>,
) -> anyhow::Result<Precision> {
    let app = spec.kernel.descriptor().app_bytes_per_element();
    let totals = |o: &TeamOutcome<Worker, Moved>| -> Vec<f64> {
        rates_per_rep(&o.reps, app)
            .iter()
            .map(|r| r.iter().sum())
            .collect()
    };
    let planned = spec.repetitions;
    let mut extra = 0;
    // The overshoot of a repetition past its duration (the stop flag's poll) is small; the
    // cost counts the duration and the batch's fixed cost.
    let cost = ExtraCost {
        per_repetition: spec.duration,
        per_batch: BATCH_OVERHEAD,
    };
    loop {
        let batch = next_batch(
            &totals(outcome),
            planned,
            extra,
            goal.target_half_width_fraction,
            cost,
            goal.time_left(),
        );
        if batch == 0 || interrupted() || outcome.states.len() != spec.cpus.len() {
            break;
        }
        let started = Instant::now();
        // Each thread takes back its own worker (index i ran on cpus[i] and still does).
        let stash: Vec<Mutex<Option<Worker>>> = std::mem::take(&mut outcome.states)
            .into_iter()
            .map(|w| Mutex::new(Some(w)))
            .collect();
        let setup = |index: usize, _cpu: u32| {
            stash[index]
                .lock()
                .map_err(|_| anyhow::anyhow!("a worker's lock was poisoned"))?
                .take()
                .context("a worker's arrays were taken twice; this is a numascope bug")
        };
        let work =
            |index: usize, w: &mut Worker, stop: &Stop| sweep_until_stopped(spec, index, w, stop);
        let more = run_team(
            topo,
            root,
            &spec.cpus,
            &TeamPlan::new(spec.duration, batch, 0),
            setup,
            work,
        );
        goal.spend(started.elapsed());
        let more = more?;
        let got = more.reps.len();
        extra += got;
        outcome.reps.extend(more.reps);
        outcome.rep_quality.extend(more.rep_quality);
        outcome.quality.merge(&more.quality);
        outcome.states = more.states;
        if got < batch {
            break;
        }
    }
    Ok(goal.record(&totals(outcome), planned, extra))
}

/// Allocates, fills and verifies one thread's arrays, on its pinned CPU, before any timing.
fn make_worker(
    topo: &Topology,
    root: &SysRoot,
    spec: &RunSpec,
    index: usize,
    len: usize,
) -> anyhow::Result<Worker> {
    let streams = spec.stream_policies.len();
    let mut bufs = Vec::with_capacity(streams);
    let mut starts = Vec::with_capacity(streams);
    for (s, policy) in spec.stream_policies.iter().enumerate() {
        let off = (s * STREAM_OFFSET_BYTES + (index % 8) * THREAD_OFFSET_BYTES) % 4096;
        let bytes = spec.array_bytes + off as u64;
        let mut buf = PlacedBuffer::new(topo, root, bytes, policy, spec.page)
            .with_context(|| format!("stream {s} ({})", policy.describe()))?;
        let start = off / ELEMENT_BYTES as usize;
        // Initialize with finite values (the pages are zero): kernels then never see NaN.
        for (i, x) in buf.as_f64_mut()[start..start + len].iter_mut().enumerate() {
            *x = (i % 1024) as f64;
        }
        bufs.push(buf);
        starts.push(start);
    }
    let reports = bufs
        .iter()
        .map(|b| b.verify())
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Worker {
        bufs,
        starts,
        len,
        pos: 0,
        seed: 0x2545_F491_4F6C_DD1D ^ (index as u64).wrapping_mul(0x9E37_79B9),
        reports,
    })
}

/// One repetition of one thread: the kernel over its arrays, chunk by chunk, until the stop
/// flag is raised.
fn sweep_until_stopped(spec: &RunSpec, index: usize, w: &mut Worker, stop: &Stop) -> Moved {
    let (kernel, params) = (spec.kernel, spec.params);
    let streams = w.bufs.len();
    let mut moved = Moved {
        elements: 0,
        checksum: 0,
    };
    let sleep = spec.throttle.filter(|t| t.0 == index).map(|t| t.1);
    let chunk = chunk_elements(kernel.stride());
    // An array no larger than a chunk (a cache-resident working set) is swept whole several
    // times between two polls, inside one kernel call, so the poll and the call's own costs
    // (dispatch, slicing, folding a read's accumulators) are paid once per
    // SMALL_ELEMENTS_PER_POLL elements: at 16 KiB one pass is a few hundred cycles, and paying
    // them every pass cost 5-8 % against likwid-bench.
    let params = Params {
        passes: if w.len <= chunk {
            (SMALL_ELEMENTS_PER_POLL / w.len.max(1)).max(1)
        } else {
            1
        },
        ..params
    };
    loop {
        let from = if w.pos >= w.len { 0 } else { w.pos };
        let to = (from + chunk).min(w.len);
        let (starts, bufs) = (&w.starts, &mut w.bufs);
        let mut it = bufs.iter_mut().zip(starts);
        let mut slice = || -> &mut [f64] {
            let (b, &s) = it.next().expect("one buffer per stream");
            &mut b.as_f64_mut()[s + from..s + to]
        };
        let out = match streams {
            1 => kernel.run(&mut [slice()], &params, &mut w.seed),
            2 => kernel.run(&mut [slice(), slice()], &params, &mut w.seed),
            _ => kernel.run(&mut [slice(), slice(), slice()], &params, &mut w.seed),
        };
        moved.elements += out.elements;
        moved.checksum = moved.checksum.wrapping_add(out.checksum);
        w.pos = to;
        if let Some(d) = sleep {
            std::thread::sleep(d);
        }
        if stop.stopped() {
            break;
        }
    }
    std::hint::black_box(moved.checksum);
    moved
}

/// Elements per stream between two polls of the stop flag: [`CHUNK_ELEMENTS`], or for a
/// stride at least 1024 strided accesses, a whole number of strides either way so every chunk
/// starts on an element the walk visits (the walk's phase never drifts between chunks).
fn chunk_elements(stride: Option<usize>) -> usize {
    match stride {
        Some(s) if s > 1 => CHUNK_ELEMENTS.max(s.saturating_mul(1024)) / s * s,
        _ => CHUNK_ELEMENTS,
    }
}

/// Per-thread rates of each kept repetition, MB/s, at `bytes_per_element`: `[rep][thread]`.
fn rates_per_rep(reps: &[Vec<ThreadSample<Moved>>], bytes_per_element: u64) -> Vec<Vec<f64>> {
    reps.iter()
        .map(|rep| {
            rep.iter()
                .map(|s| mb_per_s(s.value.elements * bytes_per_element, s.elapsed_ns))
                .collect()
        })
        .collect()
}

/// The summed rate over repetitions (median, range, interval) and each thread's own. Pure.
pub(super) fn rates(per_rep: &[Vec<f64>], cpus: &[u32]) -> Rates {
    let totals: Vec<f64> = per_rep.iter().map(|r| r.iter().sum()).collect();
    let t = Summary::of(&totals).unwrap_or(ZERO);
    let per_thread = cpus
        .iter()
        .enumerate()
        .map(|(i, &cpu)| {
            let v: Vec<f64> = per_rep.iter().filter_map(|r| r.get(i).copied()).collect();
            ThreadRate::of(cpu, &Summary::of(&v).unwrap_or(ZERO))
        })
        .collect();
    Rates::from_summary(&t, per_thread)
}

/// Where the streams went: one entry per thread and stream, and the byte-weighted fractions
/// on the intended nodes and on huge pages, and the intended nodes.
fn placements(spec: &RunSpec, states: &[Worker]) -> (Vec<StreamPlacement>, f64, f64, Vec<u32>) {
    let mut placements = Vec::new();
    let (mut bytes, mut on, mut huge) = (0f64, 0f64, 0f64);
    let mut memory_nodes: Vec<u32> = Vec::new();
    for (t, w) in states.iter().enumerate() {
        for (s, r) in w.reports.iter().enumerate() {
            bytes += r.size_bytes as f64;
            on += r.fraction_on_intended * r.size_bytes as f64;
            huge += r.huge_fraction * r.size_bytes as f64;
            memory_nodes.extend(&r.intended_nodes);
            placements.push(StreamPlacement {
                thread: t,
                cpu: spec.cpus[t],
                stream: s,
                policy: spec.stream_policies[s].describe(),
                report: r.clone(),
            });
        }
    }
    memory_nodes.sort_unstable();
    memory_nodes.dedup();
    let frac = |x: f64| if bytes > 0.0 { x / bytes } else { 0.0 };
    (placements, frac(on), frac(huge), memory_nodes)
}

/// Turns the team's outcome into the result.
fn summarize(
    topo: &Topology,
    spec: &RunSpec,
    mut outcome: TeamOutcome<Worker, Moved>,
) -> BandwidthResult {
    // Pages can move while the streams run (NUMA balancing, tiering, DAMON): each
    // buffer is verified again and the worse placement kept; a failed query keeps the first.
    for w in &mut outcome.states {
        for (buf, r) in w.bufs.iter().zip(w.reports.iter_mut()) {
            if let Ok(after) = buf.verify_after(r.clone()) {
                *r = after;
            }
        }
    }
    let desc = spec.kernel.descriptor();
    let app = desc.app_bytes_per_element();
    let dram = spec.kernel.dram_bytes_per_element(topo.line_bytes());
    let mb = rates(&rates_per_rep(&outcome.reps, app), &spec.cpus);
    let dram_mb = rates(&rates_per_rep(&outcome.reps, dram), &spec.cpus);
    let (placements, placement_fraction, huge_fraction, memory_nodes) =
        placements(spec, &outcome.states);
    let mut cpu_nodes: Vec<u32> = spec
        .cpus
        .iter()
        .filter_map(|&c| topo.node_of_cpu(c))
        .collect();
    cpu_nodes.sort_unstable();
    cpu_nodes.dedup();
    BandwidthResult {
        kernel: desc.name.to_string(),
        isa: spec.kernel.isa(),
        non_temporal: desc.non_temporal,
        threads: spec.cpus.len(),
        cpus: spec.cpus.clone(),
        cpu_nodes,
        memory_nodes,
        placement: spec.placement.clone(),
        stream_policies: spec.stream_policies.iter().map(|p| p.describe()).collect(),
        placement_fraction,
        huge_fraction,
        mb_per_s: mb,
        dram_mb_per_s_estimate: dram_mb,
        bytes_per_element: BytesPerElement {
            read: desc.read_bytes_per_element,
            written: desc.written_bytes_per_element,
            write_allocate: desc.write_allocate_bytes_per_element,
            dram_estimate: dram,
        },
        array_bytes_per_thread: spec.array_bytes,
        working_set_bytes: spec.array_bytes * (desc.stream_count() * spec.cpus.len()) as u64,
        page_size: spec.page,
        duration_ms: spec.duration.as_millis() as u64,
        repetitions: outcome.reps.len(),
        warmup_repetitions: spec.warmup,
        elapsed_ns: outcome
            .reps
            .iter()
            .map(|r| r.iter().map(|s| s.elapsed_ns).collect())
            .collect(),
        placements,
        quality: Some(outcome.quality),
        cache_level: super::plan::cache_fit(
            topo,
            &spec.cpus,
            spec.array_bytes * desc.stream_count() as u64,
        )
        .map(|f| f.label),
        stride_elements: spec.kernel.stride().map(|s| s as u64),
        precision: None,
    }
}

const ZERO: Summary = Summary::point(0.0, 0);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bandwidth::descriptor::KernelId;
    use crate::results::bandwidth::Isa;
    use crate::testutil::this_machine_one_node;

    fn spec(id: KernelId, cpus: Vec<u32>, duration_ms: u64) -> RunSpec {
        let kernel = Kernel::new(id, Isa::best()).unwrap();
        RunSpec {
            kernel,
            cpus,
            placement: "local".into(),
            stream_policies: vec![Policy::FirstTouch; kernel.descriptor().stream_count()],
            array_bytes: 4 << 20,
            page: PageSize::Base,
            duration: Duration::from_millis(duration_ms),
            repetitions: 3,
            warmup: 1,
            params: Params::default(),
            throttle: None,
        }
    }

    #[test]
    fn runs_every_kernel_and_reports_placement() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let cpu = topo.usable_cpus()[0];
        for d in crate::bandwidth::descriptor::KERNELS {
            if Kernel::new(d.id, Isa::best()).is_err() {
                continue;
            }
            let r = run(&topo, &root, &spec(d.id, vec![cpu], 20)).unwrap();
            assert_eq!(r.kernel, d.name);
            assert_eq!(r.repetitions, 3);
            assert_eq!(r.placements.len(), d.stream_count());
            assert!(r.mb_per_s.median > 0.0, "{}", d.name);
            assert!(r.dram_mb_per_s_estimate.median >= r.mb_per_s.median * 0.999);
            assert_eq!(r.placement_fraction, 1.0, "{}", d.name);
            assert_eq!(r.working_set_bytes, (4 << 20) * d.stream_count() as u64);
        }
    }

    /// A strided triad processes every 8th element: its rates count 24 useful bytes per
    /// element processed and its DRAM estimate four lines; the result carries the stride.
    #[test]
    fn a_strided_run_counts_the_elements_it_visits() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let cpu = topo.usable_cpus()[0];
        let mut s = spec(KernelId::Triad, vec![cpu], 20);
        s.kernel = s.kernel.with_stride(8).unwrap();
        let r = run(&topo, &root, &s).unwrap();
        assert_eq!(r.stride_elements, Some(8));
        assert_eq!(r.isa, Isa::Scalar);
        let line = topo.line_bytes();
        assert_eq!(r.bytes_per_element.dram_estimate, 4 * line.min(64));
        let ratio = r.dram_mb_per_s_estimate.median / r.mb_per_s.median;
        assert!(
            (ratio - (4 * line.min(64)) as f64 / 24.0).abs() < 1e-9,
            "{ratio}"
        );
        // A stride longer than the arrays is refused before anything runs.
        let mut s = spec(KernelId::Copy, vec![cpu], 20);
        s.kernel = s.kernel.with_stride((4 << 20) / 8 + 1).unwrap();
        let e = run(&topo, &root, &s).unwrap_err().to_string();
        assert!(e.contains("--stride 524289"), "{e}");
    }

    #[test]
    fn strided_chunks_are_whole_strides() {
        assert_eq!(chunk_elements(None), CHUNK_ELEMENTS);
        assert_eq!(chunk_elements(Some(1)), CHUNK_ELEMENTS);
        assert_eq!(chunk_elements(Some(8)), CHUNK_ELEMENTS);
        assert_eq!(chunk_elements(Some(3)) % 3, 0);
        assert_eq!(chunk_elements(Some(4096)), 4096 * 1024);
    }

    /// Rates are each thread's own bytes over its own time, summed per repetition; the
    /// total's interval comes from the same order statistics as every other figure. Pure.
    #[test]
    fn rates_sum_each_threads_own_rate_and_carry_the_interval() {
        // Two threads, six repetitions: thread 1 half as fast as thread 0.
        let per_rep: Vec<Vec<f64>> = (0..6)
            .map(|k| vec![1000.0 + k as f64, 500.0 + k as f64])
            .collect();
        let r = rates(&per_rep, &[3, 7]);
        assert_eq!(r.samples, 6);
        assert_eq!(r.min, 1500.0);
        assert_eq!(r.max, 1510.0);
        assert_eq!(r.median, 1505.0);
        assert_eq!(
            (r.ci.map(|c| c.low), r.ci.map(|c| c.high)),
            (Some(1500.0), Some(1510.0))
        );
        assert!(r.ci.map(|c| c.level).unwrap() >= 0.95);
        assert_eq!(r.per_thread[0].cpu, 3);
        assert_eq!(r.per_thread[1].median, 502.5);
        // Five repetitions: no interval, said by its absence.
        let r = rates(&per_rep[..5], &[3, 7]);
        assert_eq!(
            (
                r.ci.map(|c| c.low),
                r.ci.map(|c| c.high),
                r.ci.map(|c| c.level)
            ),
            (None, None, None)
        );
        // Nothing measured: zeros, not a panic.
        assert_eq!(rates(&[], &[3]).median, 0.0);
        assert!(rates_per_rep(&[], 8).is_empty(), "no repetition, no rate");
    }

    /// A thread slowed down (it sleeps 60 ms after each chunk) runs on its own clock: it
    /// stops at its first poll after the flag, and its rate counts only the chunks it did.
    /// Mechanics, not speed: a sleep lasts at least its length however busy the machine is.
    #[test]
    fn a_slow_thread_does_not_stretch_the_others() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let cpus = topo.usable_cpus();
        let team = if cpus.len() >= 2 {
            vec![cpus[0], cpus[1]]
        } else {
            vec![cpus[0], cpus[0]]
        };
        let mut s = spec(KernelId::Read, team, 100);
        s.throttle = Some((1, Duration::from_millis(60)));
        let r = run(&topo, &root, &s).unwrap();
        assert_eq!(r.elapsed_ns.len(), 3);
        let chunk_mb = (CHUNK_ELEMENTS as u64 * ELEMENT_BYTES) as f64 / 1e6;
        for rep in &r.elapsed_ns {
            assert_eq!(rep.len(), 2);
            // The slow one sleeps after each chunk before it polls the flag.
            let slow_s = rep[1] as f64 / 1e9;
            assert!(slow_s >= 0.060, "slow took {slow_s} s");
        }
        // At most one chunk per 60 ms sleep plus one: its rate is bounded by its own clock
        // (the fast thread's elapsed time plays no part in it).
        let slow = &r.mb_per_s.per_thread[1];
        let slowest_s = r.elapsed_ns.iter().map(|x| x[1]).min().unwrap() as f64 / 1e9;
        let bound = chunk_mb * (slowest_s / 0.060 + 1.0) / slowest_s;
        assert!(slow.max <= bound * 1.000_001, "{} > {bound}", slow.max);
        assert!(r.mb_per_s.per_thread[0].median > 0.0);
        let q = r
            .quality
            .as_ref()
            .expect("the team judges every repetition");
        assert_eq!(q.repetitions_kept, 3);
    }

    /// Toward a target no interval meets (0 %), the extras come in batches to the next
    /// narrower interval (6 -> 9 -> 12) until they reach the planned count, each a team over
    /// the same arrays; an empty pool takes none; a target every interval meets (+-1000 %)
    /// takes none. Counts only: nothing here depends on the machine's speed.
    #[test]
    fn extra_repetitions_follow_the_goal() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let cpu = topo.usable_cpus()[0];
        let mut s = spec(KernelId::Read, vec![cpu], 10);
        s.repetitions = 6;
        let never = PrecisionGoal::count_bounded(0.0);
        let r = run_toward(&topo, &root, &s, Some(&never)).unwrap();
        let p = r.precision.expect("measured toward a goal");
        assert_eq!((p.planned_rounds, p.extra_rounds), (6, 6));
        assert_eq!(r.repetitions, 12);
        assert_eq!(r.elapsed_ns.len(), 12);
        assert_eq!(r.mb_per_s.samples, 12);
        assert_eq!(r.quality.as_ref().unwrap().repetitions_kept, 12);
        assert_eq!(
            r.placements.len(),
            1,
            "the arrays came back from the batches"
        );
        let empty = PrecisionGoal::within(0.0, Duration::ZERO);
        let r = run_toward(&topo, &root, &s, Some(&empty)).unwrap();
        assert_eq!((r.repetitions, r.precision.unwrap().extra_rounds), (6, 0));
        let loose = PrecisionGoal::count_bounded(10.0);
        let r = run_toward(&topo, &root, &s, Some(&loose)).unwrap();
        assert_eq!(r.repetitions, 6);
        assert!(r.precision.unwrap().met());
        assert_eq!(run(&topo, &root, &s).unwrap().precision, None);
    }
}
