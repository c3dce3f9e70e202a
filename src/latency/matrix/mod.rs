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
//! (a short block of samples), the order rotated from round to round ([`crate::schedule::round_order`]), at
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
//!
//! By concept: this module plans the rounds and chooses between rounds and cell by cell;
//! `schedule` visits the cells in rounds; `rounds` measures the cells in rounds over kept
//! chains; `cells` works out the ratios to local and to the firmware.

mod cells;
mod rounds;
mod schedule;
#[cfg(test)]
mod tests;

pub use cells::{cells, paired, with_result};
pub(crate) use schedule::{in_rounds, measurement_of, Schedule};

use crate::results::clock::ClockInfo;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::precision::PrecisionGoal;

use super::blocks::{MIN_BLOCK_SAMPLE_NS, MIN_PER_PASS};
use super::chase::ChainSpec;
use super::engine::{buffer_bytes, run_job, Job, JobError, Spread, Target};
use super::measure::Aim;
use crate::results::latency::SamplePlan;
use crate::results::latency::{LatencyResult, Matrix};

/// Fewest rounds: six give the first 95 % interval for the median.
pub const MIN_ROUNDS: usize = crate::schedule::MIN_SAMPLES_FOR_INTERVAL;
/// Rounds when the plan's samples allow blocks of [`MIN_PER_PASS`] samples of at least
/// [`MIN_BLOCK_SAMPLE_NS`]: nine give the 2nd and 8th values as the interval.
pub const TARGET_ROUNDS: usize = crate::schedule::TARGET_SAMPLES;

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

/// One matrix measurement: the (initiator node, measuring CPU, memory node) cells, the
/// working set and page size, the chain, the sampling plan, the clock, the precision goal
/// (every cell a headline figure when there is one) and the progress callback
/// (`progress(done, total)` counts cells).
#[derive(Clone, Copy)]
pub struct MatrixJob<'a> {
    pub topo: &'a Topology,
    pub root: &'a SysRoot,
    pub placed: &'a [(u32, u32, u32)],
    pub size: u64,
    pub page: PageSize,
    pub spec: &'a ChainSpec,
    pub plan: &'a SamplePlan,
    pub clock: &'a ClockInfo,
    pub goal: Option<&'a PrecisionGoal>,
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

/// Measures the job's cells: in rounds over one
/// kept chain per memory node (module docs), or, when those buffers do not fit together, one
/// cell after the other as before (a warning says so). Every cell is a headline figure
/// measured toward the goal when there is one. Ctrl-C
/// stops at the next block (or cell) with what was measured, and a warning says the matrix
/// is partial.
pub fn run_cells(job: &MatrixJob<'_>) -> Result<(Matrix, Vec<String>), JobError> {
    let mut spec = *job.spec;
    if spec.group_bytes == 0 {
        spec.group_bytes = job.page.tlb_page_bytes();
    }
    let job = &MatrixJob {
        spec: &spec,
        ..*job
    };
    let (topo, placed, size, page) = (job.topo, job.placed, job.size, job.page);
    let nodes = memory_nodes(placed);
    let bytes = buffer_bytes(&[size], page);
    let why_not = if placed.is_empty() {
        None
    } else if !buffers_fit(topo, &nodes, bytes) {
        Some(format!(
            "its buffers ({} on each of {} node(s)) do not fit together in half the free memory of their nodes",
            crate::results::format::format_bytes(bytes),
            nodes.len()
        ))
    } else {
        match rounds::run_rounds(job) {
            Ok(done) => return Ok(done),
            Err(JobError::Placement(e)) => Some(format!(
                "its buffers ({} on each of {} node(s)) could not be placed together ({e})",
                crate::results::format::format_bytes(bytes),
                nodes.len()
            )),
            Err(e) => return Err(e),
        }
    };
    let (m, mut warnings) = cell_by_cell(job)?;
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
pub(super) fn memory_nodes(placed: &[(u32, u32, u32)]) -> Vec<u32> {
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
fn cell_by_cell(job: &MatrixJob<'_>) -> Result<(Matrix, Vec<String>), JobError> {
    let (topo, placed, size, page, spec) = (job.topo, job.placed, job.size, job.page, job.spec);
    let goal = job.goal;
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
        let one = Job {
            topo,
            root: job.root,
            target,
            spec,
            plan: job.plan,
            clock: job.clock,
        };
        let out = run_job(&one, &[size], aim, Spread::BackToBack, &|_, _| {})?;
        warnings.extend(out.warnings);
        measured.extend(out.results.into_iter().map(|r| (node, t, r)));
        (job.progress)(k + 1, placed.len());
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
