//! The node x node latency matrix (docs/METHODOLOGY.md, "Working-set sweep", "Placed, then
//! verified"): for each initiator node (one usable CPU of it) and each memory node (memory-only
//! nodes included, CPU-only nodes never targets), the random-chase DRAM latency at a size well
//! beyond the last-level cache, shown beside the firmware's SLIT distance and HMAT read latency,
//! with the measured/declared ratios.
//!
//! The local-versus-remote comparison is the matrix's headline, so its cells are measured side
//! by side: one buffer per memory node is placed (bound to
//! that node and checked with `move_pages`), its chain built once and kept for the whole
//! matrix, and one thread, re-pinned to each initiator's CPU in turn (the pinning confirmed
//! by `getcpu` every time), walks the chains in rounds. Every cell is measured once per round
//! (a short block of samples), the order rotated from round to round ([`round_order`]), at
//! least six rounds and nine when the samples allow ([`round_plan`]), the plan's sampling
//! time per cell spread over them, so the matrix takes about the time it took cell by cell
//! (less on several nodes: a chain per node instead of one per cell). A cell's figure is the
//! median of its round medians with the order-statistic interval over rounds; its ratio to
//! its row's reference cell comes from the paired rounds ([`crate::stats::paired_ratio`]),
//! so a drift of the host hits both alike. Toward a precision goal, whole rounds are added
//! while some cell's interval is wider than the target and the pool lasts (`in_rounds`).
//! When the buffers do not fit together in half the free memory of their nodes (or cannot be
//! placed together), the cells are measured one after the other as before, and a warning
//! says so. Nothing here prints.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::clock::{estimate_core_hz, ClockInfo};
use crate::placement::{PageSize, PlacedBuffer, PlacementReport, Policy};
use crate::results::tables::RatioToLocal;
use crate::schedule::extras::{next_batch, ExtraCost};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::blocks::{MIN_BLOCK_SAMPLE_NS, MIN_PER_PASS};
use super::chase::ChainSpec;
use super::engine::{
    buffer_bytes, clock_warning, disturbed_warning, noise_warning_between, placement_warnings,
    run_job, JobError, Target,
};
use super::measure::{measure_block, Aim, Judge, Measurement, SamplePlan};
use super::result::{LatencyResult, Matrix, MatrixCell, Placement};
use super::sweep::{Block, Point};
use super::walk::Chain;
use crate::threads::precision::PrecisionGoal;

/// The cells of round `round` in measuring order: every index of `0..n` once, starting one
/// further each round so no cell always runs first (the RightMark table's rotation; `tables`
/// sits above `latency`, so it is not imported from there).
pub fn round_order(n: usize, round: usize) -> Vec<usize> {
    (0..n).map(|k| (k + round) % n.max(1)).collect()
}

/// Fewest rounds: six give the first 95 % interval for the median.
pub const MIN_ROUNDS: usize = 6;
/// Rounds when the plan's samples allow blocks of [`MIN_PER_PASS`] samples of at least
/// [`MIN_BLOCK_SAMPLE_NS`]: nine give the 2nd and 8th values as the interval.
pub const TARGET_ROUNDS: usize = 9;

/// The default matrix working set: max(8 x LLC, 256 MiB), capped by half of the smallest free
/// memory among the target nodes, rounded down to the page granularity.
pub fn default_size(topo: &Topology, targets: &[u32], page: PageSize) -> u64 {
    let want = (8 * topo.llc_total_bytes()).max(256 << 20);
    let free = targets
        .iter()
        .filter_map(|&n| topo.node(n))
        .map(|n| topo.available_on(n))
        .min()
        .unwrap_or(0);
    let g = page.bytes();
    (want.min(free / 2) / g * g).max(g)
}

/// The CPU measuring for each initiator node: the one given for that node in `cpus`, else
/// its first usable CPU.
pub fn initiators(topo: &Topology, cpus: &[u32]) -> Vec<(u32, u32)> {
    topo.initiator_nodes()
        .into_iter()
        .filter_map(|n| {
            let usable = topo.usable_cpus_of(n);
            let cpu = cpus
                .iter()
                .copied()
                .find(|c| usable.contains(c))
                .or_else(|| usable.first().copied())?;
            Some((n, cpu))
        })
        .collect()
}

/// How the cells' samples are cut into rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundPlan {
    /// Rounds over every cell.
    pub rounds: usize,
    /// Samples each block keeps (after its warm-up samples).
    pub per_round: usize,
    /// Samples dropped at the start of each block (the first walk from a newly pinned CPU).
    pub warmup: usize,
    /// Minimum length of one sample of a block, ns.
    pub sample_ns: u64,
}

/// The rounds of `plan`: the plan's sampling time per cell (`samples` x `min_sample_ns`)
/// spread over [`TARGET_ROUNDS`] rounds when blocks of [`MIN_PER_PASS`] samples of at least
/// [`MIN_BLOCK_SAMPLE_NS`] (or the plan's own sample length, when shorter) fit in it, else
/// over [`MIN_ROUNDS`]; each block keeps `samples / rounds` samples (at least
/// [`MIN_PER_PASS`]) after one warm-up sample (none when the plan has none). So `run --quick`
/// (7 x 1 ms) becomes 9 rounds of 3 x 0.26 ms, the default run (9 x 2 ms) 9 of 3 x 0.67 ms,
/// `latency --matrix` (25 x 2 ms) 9 of 3 x 1.85 ms.
pub fn round_plan(plan: &SamplePlan) -> RoundPlan {
    let total = plan.samples.max(1) as u64 * plan.min_sample_ns;
    let floor = MIN_BLOCK_SAMPLE_NS.min(plan.min_sample_ns);
    let fits = |rounds: usize| {
        let per = (plan.samples / rounds).max(MIN_PER_PASS);
        total / (rounds * per) as u64 >= floor
    };
    let rounds = if fits(TARGET_ROUNDS) {
        TARGET_ROUNDS
    } else {
        MIN_ROUNDS
    };
    let per_round = (plan.samples / rounds).max(MIN_PER_PASS);
    let sample_ns = (total / (rounds * per_round) as u64)
        .min(plan.min_sample_ns)
        .max(floor);
    RoundPlan {
        rounds,
        per_round,
        warmup: plan.warmup.min(1),
        sample_ns,
    }
}

/// Whether one buffer of `bytes` on each of `nodes` fits in half the free memory of its node
/// (a node of unknown free memory: yes).
pub fn buffers_fit(topo: &Topology, nodes: &[u32], bytes: u64) -> bool {
    nodes.iter().all(|&n| {
        let free = topo.node(n).map_or(0, |node| topo.available_on(node));
        free == 0 || bytes <= free / 2
    })
}

/// Measures the given (initiator node, measuring CPU, memory node) cells: in rounds over one
/// kept chain per memory node (module docs), or, when those buffers do not fit together, one
/// cell after the other as before (a warning says so). Every cell is a headline figure
/// measured toward `goal` when there is one. `progress(done, total)` counts cells. Ctrl-C
/// stops at the next block (or cell) with what was measured, and a warning says the matrix
/// is partial.
#[allow(clippy::too_many_arguments)]
pub fn run_cells(
    topo: &Topology,
    root: &SysRoot,
    placed: &[(u32, u32, u32)],
    size: u64,
    page: PageSize,
    spec: &ChainSpec,
    plan: &SamplePlan,
    clock: &ClockInfo,
    goal: Option<&PrecisionGoal>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Matrix, Vec<String>), JobError> {
    let mut spec = *spec;
    if spec.group_bytes == 0 {
        spec.group_bytes = page.tlb_page_bytes();
    }
    let nodes = memory_nodes(placed);
    let bytes = buffer_bytes(&[size], page);
    let why_not = if placed.is_empty() {
        None
    } else if !buffers_fit(topo, &nodes, bytes) {
        Some(format!(
            "its buffers ({} on each of {} node(s)) do not fit together in half the free memory of their nodes",
            crate::parse::size::format_bytes(bytes),
            nodes.len()
        ))
    } else {
        match run_rounds(
            topo, root, placed, size, page, &spec, plan, clock, goal, progress,
        ) {
            Ok(done) => return Ok(done),
            Err(JobError::Placement(e)) => Some(format!(
                "its buffers ({} on each of {} node(s)) could not be placed together ({e})",
                crate::parse::size::format_bytes(bytes),
                nodes.len()
            )),
            Err(e) => return Err(e),
        }
    };
    let (m, mut warnings) = cell_by_cell(
        topo, root, placed, size, page, &spec, plan, clock, goal, progress,
    )?;
    if let Some(why) = why_not {
        warnings.insert(
            0,
            format!(
                "the latency matrix was measured cell after cell, not in rounds: {why}; each cell's interval describes one moment and its ratio to local carries no interval (a smaller --size measures in rounds)"
            ),
        );
    }
    Ok((m, warnings))
}

/// The memory nodes of the cells, in order of first appearance.
fn memory_nodes(placed: &[(u32, u32, u32)]) -> Vec<u32> {
    let mut nodes: Vec<u32> = Vec::new();
    for &(_, _, t) in placed {
        if !nodes.contains(&t) {
            nodes.push(t);
        }
    }
    nodes
}

/// The cells one after the other, each its own job (buffer, chain and samples back to back):
/// the fallback of [`run_cells`].
#[allow(clippy::too_many_arguments)]
fn cell_by_cell(
    topo: &Topology,
    root: &SysRoot,
    placed: &[(u32, u32, u32)],
    size: u64,
    page: PageSize,
    spec: &ChainSpec,
    plan: &SamplePlan,
    clock: &ClockInfo,
    goal: Option<&PrecisionGoal>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Matrix, Vec<String>), JobError> {
    let mut measured: Vec<(u32, u32, LatencyResult)> = Vec::new();
    let mut warnings = Vec::new();
    for (k, &(node, cpu, t)) in placed.iter().enumerate() {
        if interrupted() {
            break;
        }
        let target = Target {
            cpu,
            memory_node: Some(t),
            page,
        };
        let mine = goal.map(|g| g.for_figure(placed.len() - k));
        let aim = mine.as_ref().map(|goal| Aim { goal, from: 0 });
        let out = run_job(
            topo,
            root,
            target,
            &[size],
            spec,
            plan,
            clock,
            aim,
            false,
            &|_, _| {},
        )?;
        warnings.extend(out.warnings);
        measured.extend(out.results.into_iter().map(|r| (node, t, r)));
        progress(k + 1, placed.len());
    }
    if interrupted() && measured.len() < placed.len() {
        warnings.push(format!(
            "the latency matrix was stopped after {} of {} cells: it is partial",
            measured.len(),
            placed.len()
        ));
    }
    Ok((
        Matrix {
            working_set_bytes: size,
            mode: spec.mode,
            page_size: page,
            cells: cells(topo, measured),
        },
        warnings,
    ))
}

/// What the rounds did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Rounds started (planned and extra; the last may be cut short by a stop signal).
    pub rounds: usize,
    /// Rounds added toward the precision goal.
    pub extra: usize,
    /// A stop signal ended the rounds.
    pub stopped: bool,
}

/// The schedule of the rounds, with the block a parameter so it is tested with synthetic
/// samples: `planned` rounds over the `n` cells in [`round_order`], then toward `goal` whole
/// extra rounds (every cell, so every pair keeps its partner) while [`next_batch`] asks for
/// more for some cell (over its round medians, at most as many extra as planned) and a round
/// fits in the goal's pool; each extra block is paid from it. `block(i)` measures one block of
/// cell `i`; `None` means a stop signal came. `progress(done, n)` counts cells as the rounds
/// go.
pub(crate) fn in_rounds<E>(
    n: usize,
    planned: usize,
    goal: Option<&PrecisionGoal>,
    mut block: impl FnMut(usize) -> Result<Option<Block>, E>,
    mut progress: impl FnMut(usize, usize),
) -> Result<(Vec<Point>, Schedule), E> {
    let mut points: Vec<Point> = (0..n).map(|_| Point::default()).collect();
    let mut sched = Schedule::default();
    let planned = planned.max(1);
    let mut reported = 0;
    // One whole round; `false` when a stop signal came.
    let mut round =
        |points: &mut Vec<Point>, sched: &mut Schedule, extra: bool| -> Result<bool, E> {
            let r = sched.rounds;
            sched.rounds += 1;
            for (k, i) in round_order(n, r).into_iter().enumerate() {
                if interrupted() {
                    return Ok(false);
                }
                let Some(b) = block(i)? else {
                    return Ok(false);
                };
                if extra {
                    if let Some(g) = goal {
                        g.spend(b.elapsed);
                    }
                }
                let pt = &mut points[i];
                if pt.add(b) {
                    pt.extra += usize::from(extra);
                }
                let done = (r.min(planned) * n + k + 1) / planned;
                if !extra && done > reported {
                    reported = done;
                    progress(done, n);
                }
            }
            Ok(true)
        };
    for _ in 0..planned {
        if !round(&mut points, &mut sched, false)? {
            sched.stopped = true;
            return Ok((points, sched));
        }
    }
    let Some(g) = goal else {
        return Ok((points, sched));
    };
    loop {
        // What one more round costs: the cells' median blocks together.
        let per_round: Duration = points.iter().map(|p| median_duration(&p.elapsed)).sum();
        let cost = ExtraCost {
            per_repetition: per_round,
            per_batch: Duration::ZERO,
        };
        let batch = points
            .iter()
            .map(|p| {
                next_batch(
                    &super::blocks::medians(&p.blocks),
                    planned,
                    sched.extra,
                    g.target_half_width_fraction,
                    cost,
                    g.time_left(),
                )
            })
            .max()
            .unwrap_or(0);
        if batch == 0 || interrupted() {
            break;
        }
        for _ in 0..batch {
            if g.pool_left().is_some_and(|left| left < per_round) {
                return Ok((points, sched));
            }
            sched.extra += 1;
            if !round(&mut points, &mut sched, true)? {
                sched.stopped = true;
                return Ok((points, sched));
            }
        }
    }
    Ok((points, sched))
}

fn median_duration(d: &[Duration]) -> Duration {
    let mut v = d.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// A cell's measurement from its rounds: the summary of its round medians (n = rounds with a
/// sample), the blocks record and, toward `goal`, the precision record; `None` when no round
/// kept a sample.
pub(crate) fn measurement_of(
    pt: Point,
    rp: &RoundPlan,
    planned: usize,
    goal: Option<&PrecisionGoal>,
) -> Option<Measurement> {
    pt.into_measurement(rp.per_round, rp.sample_ns, planned, goal)
}

/// One memory node's buffer as placed.
struct NodeBuffer {
    node: u32,
    report: PlacementReport,
}

/// What the measuring thread returns: per node its placement, per cell its measurement (if
/// any), the clock of each CPU, and the schedule.
type Measured = (
    Vec<NodeBuffer>,
    Vec<Option<Measurement>>,
    BTreeMap<u32, ClockInfo>,
    Schedule,
);

/// The matrix in rounds (module docs). A placement error comes back before anything was
/// measured, so the caller can fall back to cell by cell.
#[allow(clippy::too_many_arguments)]
fn run_rounds(
    topo: &Topology,
    root: &SysRoot,
    placed: &[(u32, u32, u32)],
    size: u64,
    page: PageSize,
    spec: &ChainSpec,
    plan: &SamplePlan,
    clock: &ClockInfo,
    goal: Option<&PrecisionGoal>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Matrix, Vec<String>), JobError> {
    let nodes = memory_nodes(placed);
    let bytes = buffer_bytes(&[size], page);
    let rp = round_plan(plan);
    let first_cpu = placed.first().map_or(0, |c| c.1);
    crate::threads::check_cpus(topo, root, &[first_cpu])?;
    let measured: Result<Measured, JobError> = std::thread::scope(|s| {
        let h = s.spawn(|| -> Result<Measured, JobError> {
            crate::threads::pin_current(topo, root, first_cpu)?;
            let mut bufs = Vec::with_capacity(nodes.len());
            let mut placed_bufs = Vec::with_capacity(nodes.len());
            for &n in &nodes {
                let buf = PlacedBuffer::new(topo, root, bytes, &Policy::Bind(vec![n]), page)?;
                let report = buf.verify()?;
                placed_bufs.push(NodeBuffer { node: n, report });
                bufs.push(buf);
            }
            let words = (size / 8) as usize;
            let mut chains: Vec<Chain<'_>> = Vec::with_capacity(bufs.len());
            for b in bufs.iter_mut() {
                let w = b.as_u64_mut();
                let end = words.min(w.len());
                chains.push(Chain::build(&mut w[..end], spec)?);
            }
            let mut walked = vec![false; chains.len()];
            let mut iterations: Vec<Option<u64>> = vec![None; placed.len()];
            let mut clocks: BTreeMap<u32, ClockInfo> = BTreeMap::new();
            let mut on = first_cpu;
            let block = |i: usize| -> Result<Option<Block>, JobError> {
                let (_, cpu, t) = placed[i];
                if cpu != on {
                    crate::threads::pin_current(topo, root, cpu)?;
                    on = cpu;
                }
                clocks.entry(cpu).or_insert_with(|| {
                    let mut c = clock.clone();
                    if let Some(hz) = estimate_core_hz() {
                        c.core_hz_estimate = Some(hz);
                        c.core_hz_source = format!(
                            "{} (re-estimated on CPU {cpu} before the matrix's rounds)",
                            c.core_hz_source
                        );
                    }
                    c
                });
                let k = nodes.iter().position(|&n| n == t).unwrap_or(0);
                let judge = Judge { root, cpu };
                let done = measure_block(
                    &mut chains[k],
                    !walked[k],
                    iterations[i],
                    rp.sample_ns,
                    rp.warmup,
                    rp.per_round,
                    clock.resolution_ns,
                    Some(judge),
                );
                Ok(done.map(|(samples, it, elapsed)| {
                    walked[k] = true;
                    iterations[i] = Some(it);
                    Block {
                        samples,
                        iterations: it,
                        elapsed,
                    }
                }))
            };
            let (points, sched) = in_rounds(placed.len(), rp.rounds, goal, block, progress)?;
            let ms = points
                .into_iter()
                .map(|pt| measurement_of(pt, &rp, rp.rounds, goal))
                .collect();
            Ok((placed_bufs, ms, clocks, sched))
        });
        h.join()
            .map_err(|_| JobError::Thread(crate::threads::ThreadError::Panicked(first_cpu)))?
    });
    let (bufs, ms, clocks, sched) = measured?;
    let mut warnings = Vec::new();
    for b in &bufs {
        let where_ = format!(
            "the latency matrix ({} pages bound to memory node {})",
            page.label(),
            b.node
        );
        warnings.extend(placement_warnings(
            &b.report,
            &ClockInfo {
                core_hz_estimate: None,
                ..clock.clone()
            },
            first_cpu,
            &where_,
        ));
    }
    for (cpu, c) in &clocks {
        warnings.extend(clock_warning(c, *cpu));
    }
    let mut out: Vec<(u32, u32, LatencyResult)> = Vec::new();
    for (&(init, cpu, t), m) in placed.iter().zip(ms) {
        let Some(m) = m else { continue };
        let report = bufs.iter().find(|b| b.node == t).map(|b| &b.report);
        let place = Placement {
            page_size: page,
            cpu,
            memory_node: Some(t),
            placement_fraction: report.map(|r| r.fraction_on_intended),
            huge_fraction: report.map(|r| r.huge_fraction),
        };
        let c = clocks.get(&cpu).unwrap_or(clock);
        let r = LatencyResult::new(spec, size, &place, &m, plan, c);
        let where_ = format!(
            "matrix cell {init} -> {t} ({} pages on CPU {cpu})",
            page.label()
        );
        let one = std::slice::from_ref(&r);
        warnings.extend(noise_warning_between(one, &where_, "the matrix's rounds"));
        warnings.extend(disturbed_warning(one, &where_));
        out.push((init, t, r));
    }
    if sched.stopped {
        warnings.push(format!(
            "the latency matrix was stopped in round {} of {}: its cells are partial (each carries the rounds it kept, n in its interval)",
            sched.rounds,
            rp.rounds + sched.extra
        ));
    }
    Ok((
        Matrix {
            working_set_bytes: size,
            mode: spec.mode,
            page_size: page,
            cells: cells(topo, out),
        },
        warnings,
    ))
}

/// The paired ratio of `this` to `reference` from their round medians (the shorter prefix of
/// both: round i pairs with round i); `None` unless both were measured in rounds.
pub fn paired(reference: &LatencyResult, this: &LatencyResult) -> Option<RatioToLocal> {
    RatioToLocal::paired(
        &reference.blocks.as_ref()?.block_medians_ns,
        &this.blocks.as_ref()?.block_medians_ns,
    )
}

/// Puts `res` in the place of cell `init -> mem` (adding it when absent, keeping the cells in
/// node order) and works the ratios out again, keeping the paired ratio a cell had from the
/// rounds when the new figure has no rounds to pair with: `run` shows its reference latency in
/// the home cell (one quantity, one figure) while the rounds, which measured that cell side by
/// side with the others, still give the row's ratios.
pub fn with_result(topo: &Topology, m: &mut Matrix, init: u32, mem: u32, res: LatencyResult) {
    let old = std::mem::take(&mut m.cells);
    let mut measured: Vec<(u32, u32, LatencyResult)> = old
        .iter()
        .filter(|c| !(c.initiator_node == init && c.memory_node == mem))
        .map(|c| (c.initiator_node, c.memory_node, c.result.clone()))
        .collect();
    measured.push((init, mem, res));
    measured.sort_by_key(|c| (c.0, c.1));
    // What the replaced cell measured in the rounds: the kept ratios of its row are against it.
    let replaced_ns = old
        .iter()
        .find(|c| c.initiator_node == init && c.memory_node == mem)
        .filter(|c| c.result.blocks.is_some())
        .map(|c| c.result.ns_per_load.median);
    let mut cells = cells(topo, measured);
    for c in cells
        .iter_mut()
        .filter(|c| c.measured_ratio_interval.is_none())
    {
        let kept = old
            .iter()
            .find(|o| o.initiator_node == c.initiator_node && o.memory_node == c.memory_node)
            .and_then(|o| o.measured_ratio_interval);
        if let Some(p) = kept {
            c.measured_ratio = Some(p.ratio);
            c.measured_over_slit = c.slit_ratio.filter(|s| *s > 0.0).map(|s| p.ratio / s);
            c.measured_ratio_interval = Some(p);
            if c.initiator_node == init && c.memory_node != mem {
                c.reference_in_rounds_ns = replaced_ns;
            }
        }
    }
    m.cells = cells;
}

/// Adds the firmware figures and ratios to measured (initiator, memory node, result) cells.
/// The reference of an initiator's row is its local node when that node has memory, else the
/// row's fastest cell. The ratio to it is paired over the rounds ([`paired`]) when both were
/// measured in rounds, else the quotient of the medians (no interval).
pub fn cells(topo: &Topology, measured: Vec<(u32, u32, LatencyResult)>) -> Vec<MatrixCell> {
    let reference = |init: u32| -> Option<(u32, &LatencyResult)> {
        let row = measured.iter().filter(|m| m.0 == init);
        let local = measured
            .iter()
            .find(|m| m.0 == init && m.1 == init)
            .map(|m| (m.1, &m.2));
        local.or_else(|| {
            row.map(|m| (m.1, &m.2))
                .min_by(|a, b| a.1.ns_per_load.median.total_cmp(&b.1.ns_per_load.median))
        })
    };
    measured
        .iter()
        .map(|(init, mem, r)| {
            let median = r.ns_per_load.median;
            let rf = reference(*init);
            // Paired when both were measured in the same rounds; else the quotient of medians.
            let interval = rf.and_then(|(_, x)| paired(x, r));
            let measured_ratio = match &interval {
                Some(p) => Some(p.ratio),
                None => rf.map(|(_, x)| median / x.ns_per_load.median),
            };
            let rf = rf.map(|(n, x)| (n, x.ns_per_load.median));
            let slit = topo.distance(*init, *mem);
            // Normalize SLIT to the same reference node as the measured ratio.
            let slit_ratio = match (slit, rf.and_then(|(n, _)| topo.distance(*init, n))) {
                (Some(d), Some(dr)) if dr > 0 => Some(d as f64 / dr as f64),
                (Some(d), _) => Some(d as f64 / 10.0),
                _ => None,
            };
            let hmat = topo.hmat_for(*init, *mem).and_then(|h| h.read_latency_ns);
            MatrixCell {
                initiator_node: *init,
                memory_node: *mem,
                result: r.clone(),
                slit_distance: slit,
                hmat_read_latency_ns: hmat,
                measured_ratio,
                slit_ratio,
                measured_over_slit: match (measured_ratio, slit_ratio) {
                    (Some(m), Some(s)) if s > 0.0 => Some(m / s),
                    _ => None,
                },
                measured_over_hmat: hmat.filter(|&h| h > 0).map(|h| median / h as f64),
                measured_ratio_interval: interval,
                reference_in_rounds_ns: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::chase::Mode;
    use crate::latency::measure::Samples;
    use crate::results::latency::PointBlocks;
    use crate::stats::Summary;
    use crate::topology::HmatTarget;

    fn result(ns: f64) -> LatencyResult {
        let m = Measurement {
            samples_ns: vec![ns],
            ns_per_load: Summary::of(&[ns]).unwrap(),
            loads_per_sample: 16,
            quality: None,
            precision: None,
            blocks: None,
        };
        let spec = ChainSpec {
            mode: Mode::Random,
            chains: 1,
            element_bytes: 64,
            group_bytes: 4096,
            seed: 1,
        };
        let place = Placement {
            page_size: PageSize::Base,
            cpu: 0,
            memory_node: Some(0),
            placement_fraction: Some(1.0),
            huge_fraction: Some(0.0),
        };
        let clock = ClockInfo {
            resolution_ns: 20.0,
            read_cost_ns: 20.0,
            tsc_hz: None,
            tsc_source: String::new(),
            core_hz_estimate: None,
            core_hz_source: String::new(),
        };
        LatencyResult::new(&spec, 1 << 28, &place, &m, &SamplePlan::default(), &clock)
    }

    #[test]
    fn ratios_against_local_and_firmware() {
        // Two CPU nodes (0, 1) and a memory-only node 2; SLIT 10/21/30.
        let mut topo = crate::testutil::this_machine_one_node();
        let mut n1 = topo.nodes[0].clone();
        n1.id = 1;
        let mut n2 = topo.nodes[0].clone();
        n2.id = 2;
        n2.cpus.clear();
        n2.has_cpu = false;
        topo.nodes.push(n1);
        topo.nodes.push(n2);
        topo.distances = vec![vec![10, 21, 30], vec![21, 10, 30], vec![30, 30, 10]];
        topo.hmat.push(HmatTarget {
            node: 2,
            access_class: 0,
            initiators: vec![0, 1],
            read_latency_ns: Some(250),
            write_latency_ns: None,
            read_bandwidth_mb_s: None,
            write_bandwidth_mb_s: None,
        });
        let cells = cells(
            &topo,
            vec![
                (0, 0, result(100.0)),
                (0, 1, result(160.0)),
                (0, 2, result(300.0)),
            ],
        );
        assert_eq!(cells[0].measured_ratio, Some(1.0));
        assert_eq!(cells[1].measured_ratio, Some(1.6));
        assert_eq!(cells[1].slit_ratio, Some(2.1));
        assert!((cells[1].measured_over_slit.unwrap() - 1.6 / 2.1).abs() < 1e-12);
        assert_eq!(cells[2].hmat_read_latency_ns, Some(250));
        assert_eq!(cells[2].measured_over_hmat, Some(1.2));
        assert_eq!(cells[0].hmat_read_latency_ns, None);
    }

    #[test]
    fn row_without_local_memory_uses_its_fastest_cell() {
        let topo = crate::testutil::this_machine_one_node();
        let c = cells(&topo, vec![(5, 0, result(80.0)), (5, 1, result(120.0))]);
        assert_eq!(c[0].measured_ratio, Some(1.0));
        assert_eq!(c[1].measured_ratio, Some(1.5));
    }

    /// A result measured in rounds: its figure over `medians`, one block per round.
    fn rounds_result(medians: &[f64]) -> LatencyResult {
        let mut r = result(crate::stats::median(medians));
        r.ns_per_load = Summary::of(medians).unwrap();
        r.blocks = Some(PointBlocks {
            blocks: medians.len(),
            samples_per_block: 3,
            min_sample_ns: 250_000,
            block_medians_ns: medians.to_vec(),
            all_samples: Summary::of(medians).unwrap(),
        });
        r
    }

    fn plan(samples: usize, ms: f64) -> SamplePlan {
        SamplePlan {
            samples,
            warmup: 2,
            min_sample_ns: (ms * 1e6) as u64,
        }
    }

    /// The plan's sampling time per cell is spread over nine rounds when blocks of three
    /// samples of at least 0.25 ms fit, else six; about the time cell by cell took.
    #[test]
    fn the_samples_of_a_cell_are_spread_over_the_rounds() {
        let quick = round_plan(&plan(7, 1.0));
        assert_eq!((quick.rounds, quick.per_round, quick.warmup), (9, 3, 1));
        assert_eq!(quick.sample_ns, 7_000_000 / 27);
        let default = round_plan(&plan(9, 2.0));
        assert_eq!((default.rounds, default.per_round), (9, 3));
        assert_eq!(default.sample_ns, 18_000_000 / 27);
        let standalone = round_plan(&plan(25, 2.0));
        assert_eq!((standalone.rounds, standalone.per_round), (9, 3));
        assert_eq!(standalone.sample_ns, 50_000_000 / 27);
        // Too little time for nine rounds of blocks above the floor: six.
        let short = round_plan(&plan(4, 1.0));
        assert_eq!((short.rounds, short.per_round), (6, 3));
        assert_eq!(short.sample_ns, MIN_BLOCK_SAMPLE_NS);
        // Never longer samples than the plan's; a plan of shorter samples keeps them.
        assert_eq!(round_plan(&plan(100, 0.1)).sample_ns, 100_000);
        assert_eq!(round_plan(&plan(100, 0.1)).rounds, 9);
        // No warm-up asked for: none per block.
        let mut p = plan(9, 2.0);
        p.warmup = 0;
        assert_eq!(round_plan(&p).warmup, 0);
        // The timed part stays about the plan's: within 15 % of samples x length.
        for pl in [plan(7, 1.0), plan(9, 2.0), plan(25, 2.0)] {
            let rp = round_plan(&pl);
            let rounds_ns = (rp.rounds * rp.per_round) as f64 * rp.sample_ns as f64;
            let before = pl.samples as f64 * pl.min_sample_ns as f64;
            assert!((rounds_ns / before - 1.0).abs() < 0.15, "{pl:?}: {rp:?}");
        }
    }

    #[test]
    fn buffers_fit_in_half_the_free_memory_of_their_nodes() {
        let topo = crate::testutil::this_machine_one_node();
        let free = topo.available_on(topo.node(0).unwrap());
        assert!(free > 0);
        assert!(buffers_fit(&topo, &[0], free / 2));
        assert!(!buffers_fit(&topo, &[0], free / 2 + 4096));
        // A node of unknown free memory does not stop the rounds.
        assert!(buffers_fit(&topo, &[7], u64::MAX));
    }

    /// A synthetic block of three samples around `v`, 1 ms long.
    fn block(v: f64) -> Block {
        Block {
            samples: Samples {
                samples_ns: vec![v * 0.99, v, v * 1.01],
                quality: None,
                precision: None,
            },
            iterations: 10,
            elapsed: Duration::from_millis(1),
        }
    }

    /// Every round measures every cell once, the start rotating; each cell's blocks are its
    /// rounds in order; progress counts cells.
    #[test]
    fn rounds_visit_every_cell_once_in_rotating_order() {
        let mut log = Vec::new();
        let mut seen = Vec::new();
        let (points, sched) = in_rounds::<()>(
            3,
            6,
            None,
            |i| {
                let r = log.len() / 3;
                log.push(i);
                Ok(Some(block(100.0 * (i + 1) as f64 + r as f64)))
            },
            |d, n| seen.push((d, n)),
        )
        .unwrap();
        assert_eq!(
            sched,
            Schedule {
                rounds: 6,
                extra: 0,
                stopped: false
            }
        );
        assert_eq!(&log[..9], &[0, 1, 2, 1, 2, 0, 2, 0, 1]);
        for (i, pt) in points.iter().enumerate() {
            assert_eq!(pt.blocks.len(), 6);
            assert_eq!(pt.extra, 0);
            // Block r of cell i is round r's.
            let medians = crate::latency::blocks::medians(&pt.blocks);
            let want: Vec<f64> = (0..6).map(|r| 100.0 * (i + 1) as f64 + r as f64).collect();
            assert_eq!(medians, want);
        }
        assert_eq!(seen.last(), Some(&(3, 3)));
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
    }

    /// Toward a goal, whole rounds are added while one cell's interval is wider than the
    /// target (every cell gets them, so pairs stay aligned), at most as many as planned; a
    /// tight matrix takes none.
    #[test]
    fn extra_rounds_are_whole_rounds_while_an_interval_is_wide() {
        let goal = PrecisionGoal::count_bounded(0.03);
        // Cell 1 alternates 100 / 140 from round to round: wide whatever the rounds.
        let mut k = 0usize;
        let (points, sched) = in_rounds::<()>(
            2,
            6,
            Some(&goal),
            |i| {
                let v = if i == 1 {
                    k += 1;
                    if k.is_multiple_of(2) {
                        140.0
                    } else {
                        100.0
                    }
                } else {
                    100.0
                };
                Ok(Some(block(v)))
            },
            |_, _| {},
        )
        .unwrap();
        assert_eq!(sched.extra, 6, "at most as many extra as planned");
        assert_eq!(sched.rounds, 12);
        assert!(points.iter().all(|p| p.blocks.len() == 12 && p.extra == 6));
        // Tight: no extra round.
        let (points, sched) =
            in_rounds::<()>(2, 6, Some(&goal), |_| Ok(Some(block(100.0))), |_, _| {}).unwrap();
        assert_eq!((sched.rounds, sched.extra), (6, 0));
        assert!(points.iter().all(|p| p.blocks.len() == 6));
        // A pool too small for one more round: none.
        let small = PrecisionGoal::within(0.03, Duration::from_micros(500));
        let mut k = 0usize;
        let (_, sched) = in_rounds::<()>(
            2,
            6,
            Some(&small),
            |_| {
                k += 1;
                Ok(Some(block(if k.is_multiple_of(2) { 140.0 } else { 100.0 })))
            },
            |_, _| {},
        )
        .unwrap();
        assert_eq!(sched.extra, 0);
    }

    /// A stop signal (a block that returns `None`) ends the rounds where they were: the
    /// cells keep the rounds they measured, marked as stopped.
    #[test]
    fn a_stop_keeps_the_rounds_measured() {
        let mut calls = 0;
        let (points, sched) = in_rounds::<()>(
            3,
            9,
            None,
            |_| {
                calls += 1;
                Ok((calls <= 7).then(|| block(100.0)))
            },
            |_, _| {},
        )
        .unwrap();
        assert!(sched.stopped);
        assert_eq!(sched.rounds, 3);
        let n: Vec<usize> = points.iter().map(|p| p.blocks.len()).collect();
        assert_eq!(
            n,
            vec![2, 2, 3],
            "round 2 began with cell 2, then stopped at cell 0"
        );
        let rp = round_plan(&plan(9, 2.0));
        let m = measurement_of(std::mem::take(&mut { points }[2]), &rp, rp.rounds, None).unwrap();
        assert_eq!(m.ns_per_load.samples, 3, "n = rounds kept");
        assert_eq!(m.blocks.as_ref().unwrap().blocks, 3);
        assert_eq!(
            m.ns_per_load.ci.map(|c| c.low),
            None,
            "fewer than six rounds: no interval"
        );
        assert!(measurement_of(Point::default(), &rp, rp.rounds, None).is_none());
    }

    /// A cell's figure is the median of its round medians with the interval over
    /// them; the ratio to local comes from the paired rounds, with its interval, and is called
    /// different only when that interval excludes 1.
    #[test]
    fn ratios_to_local_are_paired_over_the_rounds() {
        let topo = crate::testutil::this_machine_one_node();
        // Local drifts from 100 to 130 over the rounds; remote 1 is 1.5x local each round
        // (with a little noise), remote 2 the same as local within 1 %.
        let local: Vec<f64> = (0..9).map(|r| 100.0 + 4.0 * r as f64).collect();
        let wobble = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0, 1.008, 0.992, 1.0];
        let far: Vec<f64> = local.iter().zip(wobble).map(|(l, w)| 1.5 * l * w).collect();
        let near: Vec<f64> = local.iter().zip(wobble).map(|(l, w)| l * w).collect();
        let c = cells(
            &topo,
            vec![
                (0, 0, rounds_result(&local)),
                (0, 1, rounds_result(&far)),
                (0, 2, rounds_result(&near)),
            ],
        );
        let home = c[0].measured_ratio_interval.as_ref().unwrap();
        assert_eq!(
            (home.ratio, home.ci.map(|c| c.low), home.ci.map(|c| c.high)),
            (1.0, Some(1.0), Some(1.0))
        );
        assert_eq!(home.pairs, 9);
        let f = c[1].measured_ratio_interval.as_ref().unwrap();
        assert_eq!(c[1].measured_ratio, Some(f.ratio));
        assert!((f.ratio - 1.5).abs() < 1e-9, "{f:?}");
        // Nine pairs: the 2nd and 8th ratios, within the wobble, not the drift.
        assert!(
            f.ci.map(|c| c.low).unwrap() > 1.48 && f.ci.map(|c| c.high).unwrap() < 1.52,
            "{f:?}"
        );
        assert_eq!(
            f.ci.map(|c| c.level).map(|l| (l * 1000.0).round()),
            Some(961.0)
        );
        assert_eq!(c[1].differs_from_reference(), Some(true));
        // The unpaired intervals overlap (the drift is wider than the difference of near).
        assert_eq!(c[2].differs_from_reference(), Some(false));
        let n = c[2].measured_ratio_interval.as_ref().unwrap();
        assert!(
            n.ci.map(|c| c.low).unwrap() <= 1.0 && n.ci.map(|c| c.high).unwrap() >= 1.0,
            "{n:?}"
        );
        // Fewer than six rounds: a ratio, no interval, no call.
        let c = cells(
            &topo,
            vec![
                (0, 0, rounds_result(&local[..4])),
                (0, 1, rounds_result(&far[..4])),
            ],
        );
        let p = c[1].measured_ratio_interval.as_ref().unwrap();
        assert_eq!((p.pairs, p.ci.map(|c| c.low)), (4, None));
        assert_eq!(c[1].differs_from_reference(), None);
        // Cells measured one after the other: the quotient of medians, no interval.
        let c = cells(&topo, vec![(0, 0, result(100.0)), (0, 1, result(150.0))]);
        assert_eq!(c[1].measured_ratio, Some(1.5));
        assert_eq!(c[1].measured_ratio_interval, None);
        assert_eq!(c[1].differs_from_reference(), None);
    }

    /// `run`'s home cell shows the reference figure; the row keeps its paired ratios from the
    /// rounds, and the unpaired fields follow the new figure.
    #[test]
    fn a_filled_home_cell_keeps_the_rows_paired_ratios() {
        let topo = crate::testutil::this_machine_one_node();
        let local: Vec<f64> = (0..9).map(|r| 100.0 + r as f64).collect();
        let far: Vec<f64> = local.iter().map(|l| 1.5 * l).collect();
        let mut m = Matrix {
            working_set_bytes: 1 << 28,
            mode: Mode::Random,
            page_size: PageSize::Base,
            cells: cells(
                &topo,
                vec![(0, 0, rounds_result(&local)), (0, 1, rounds_result(&far))],
            ),
        };
        with_result(&topo, &mut m, 0, 0, result(90.0));
        assert_eq!(m.cells.len(), 2);
        assert_eq!(m.cells[0].result.ns_per_load.median, 90.0);
        assert_eq!(m.cells[0].result.blocks, None);
        let p = m.cells[1].measured_ratio_interval.as_ref().unwrap();
        assert_eq!(p.pairs, 9);
        assert_eq!(m.cells[1].measured_ratio, Some(p.ratio));
        assert!((p.ratio - 1.5).abs() < 1e-9);
        // The row's paired ratio names the figure it is against: local as the rounds measured
        // it (median 104 ns), not the 90 ns the cell now shows.
        assert_eq!(m.cells[1].reference_in_rounds_ns, Some(104.0));
        assert_eq!(m.cells[0].reference_in_rounds_ns, None);
        // Without rounds anywhere, the quotient follows the new home figure.
        let mut m = Matrix {
            cells: cells(&topo, vec![(0, 0, result(100.0)), (0, 1, result(150.0))]),
            ..m
        };
        with_result(&topo, &mut m, 0, 0, result(75.0));
        assert_eq!(m.cells[1].measured_ratio, Some(2.0));
        assert_eq!(m.cells[1].measured_ratio_interval, None);
        assert_eq!(m.cells[1].reference_in_rounds_ns, None);
    }
}
