//! The matrix in rounds: one buffer per memory node placed and its chain linked once, one
//! thread re-pinned to each initiator's CPU in turn walking the chains block by block.

use std::collections::BTreeMap;

use crate::clock::estimate_core_hz;

use crate::placement::{PlacedBuffer, Policy};
use crate::results::clock::ClockInfo;
use crate::results::placement::PlacementReport;

use super::super::engine::{buffer_bytes, clock_warning, placement_warnings, JobError};
use super::super::measure::{measure_block, BlockPlan, Judge, Measurement};
use super::super::noise::{disturbed_warning, noise_warning_between};
use super::super::sweep::Block;
use super::super::walk::Chain;
use super::{
    cells, in_rounds, measurement_of, memory_nodes, round_plan, MatrixJob, RoundPlan, Schedule,
};
use crate::results::latency::{LatencyResult, Matrix, Placement};

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
pub(super) fn run_rounds(job: &MatrixJob<'_>) -> Result<(Matrix, Vec<String>), JobError> {
    let rp = round_plan(job.plan);
    let first_cpu = job.placed.first().map_or(0, |c| c.1);
    crate::threads::check_cpus(job.topo, job.root, &[first_cpu])?;
    let measured: Result<Measured, JobError> = std::thread::scope(|s| {
        let h = s.spawn(|| measure(job, &rp, first_cpu));
        h.join()
            .map_err(|_| JobError::Thread(crate::threads::ThreadError::Panicked(first_cpu)))?
    });
    let (bufs, ms, clocks, sched) = measured?;
    let mut warnings = placement_and_clock_warnings(job, &bufs, &clocks, first_cpu);
    let mut out: Vec<(u32, u32, LatencyResult)> = Vec::new();
    for (&(init, cpu, t), m) in job.placed.iter().zip(ms) {
        let Some(m) = m else { continue };
        let report = bufs.iter().find(|b| b.node == t).map(|b| &b.report);
        let place = Placement {
            page_size: job.page,
            cpu,
            memory_node: Some(t),
            placement_fraction: report.map(|r| r.fraction_on_intended),
            huge_fraction: report.map(|r| r.huge_fraction),
        };
        let c = clocks.get(&cpu).unwrap_or(job.clock);
        let r = LatencyResult::new(job.spec, job.size, &place, &m, job.plan, c);
        let where_ = format!(
            "matrix cell {init} -> {t} ({} pages on CPU {cpu})",
            job.page.label()
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
    let matrix = Matrix {
        working_set_bytes: job.size,
        mode: job.spec.mode,
        page_size: job.page,
        cells: cells(job.topo, out),
    };
    Ok((matrix, warnings))
}

/// The placement warnings of each node's buffer and the clock warning of each CPU.
fn placement_and_clock_warnings(
    job: &MatrixJob<'_>,
    bufs: &[NodeBuffer],
    clocks: &BTreeMap<u32, ClockInfo>,
    first_cpu: u32,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for b in bufs {
        let where_ = format!(
            "the latency matrix ({} pages bound to memory node {})",
            job.page.label(),
            b.node
        );
        let clock = ClockInfo {
            core_hz_estimate: None,
            ..job.clock.clone()
        };
        warnings.extend(placement_warnings(&b.report, &clock, first_cpu, &where_));
    }
    for (cpu, c) in clocks {
        warnings.extend(clock_warning(c, *cpu));
    }
    warnings
}

/// One buffer per memory node of the job, bound there and checked.
fn place_buffers(
    job: &MatrixJob<'_>,
    nodes: &[u32],
) -> Result<(Vec<PlacedBuffer>, Vec<NodeBuffer>), JobError> {
    let bytes = buffer_bytes(&[job.size], job.page);
    let mut bufs = Vec::with_capacity(nodes.len());
    let mut placed = Vec::with_capacity(nodes.len());
    for &n in nodes {
        let buf = PlacedBuffer::new(job.topo, job.root, bytes, &Policy::Bind(vec![n]), job.page)?;
        let report = buf.verify()?;
        placed.push(NodeBuffer { node: n, report });
        bufs.push(buf);
    }
    Ok((bufs, placed))
}

/// The clock of `cpu`: the job's, with the core clock estimated again on that CPU.
fn clock_on(clock: &ClockInfo, cpu: u32) -> ClockInfo {
    let mut c = clock.clone();
    if let Some(hz) = estimate_core_hz() {
        c.core_hz_estimate = Some(hz);
        c.core_hz_source = format!(
            "{} (re-estimated on CPU {cpu} before the matrix's rounds)",
            c.core_hz_source
        );
    }
    c
}

/// The measuring thread: places the buffers, links one chain per memory node, and walks the
/// cells' blocks in rounds, re-pinning to each cell's CPU.
fn measure(job: &MatrixJob<'_>, rp: &RoundPlan, first_cpu: u32) -> Result<Measured, JobError> {
    let (topo, root, placed) = (job.topo, job.root, job.placed);
    crate::threads::pin_current(topo, root, first_cpu)?;
    let nodes = memory_nodes(placed);
    let (mut bufs, placed_bufs) = place_buffers(job, &nodes)?;
    let words = (job.size / 8) as usize;
    let mut chains: Vec<Chain<'_>> = Vec::with_capacity(bufs.len());
    for b in bufs.iter_mut() {
        let w = b.as_u64_mut();
        let end = words.min(w.len());
        chains.push(Chain::build(&mut w[..end], job.spec)?);
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
        clocks
            .entry(cpu)
            .or_insert_with(|| clock_on(job.clock, cpu));
        let k = nodes.iter().position(|&n| n == t).unwrap_or(0);
        let judge = Judge { root, cpu };
        let bp = BlockPlan {
            sample_ns: rp.sample_ns,
            warmup: rp.warmup,
            keep: rp.per_round,
            timer_resolution_ns: job.clock.resolution_ns,
        };
        let done = measure_block(&mut chains[k], !walked[k], iterations[i], bp, Some(judge));
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
    let (points, sched) = in_rounds(placed.len(), rp.rounds, job.goal, block, job.progress)?;
    let ms = points
        .into_iter()
        .map(|pt| measurement_of(pt, rp, rp.rounds, job.goal))
        .collect();
    Ok((placed_bufs, ms, clocks, sched))
}
