//! The node x node matrix (docs/METHODOLOGY.md, "Placed, then verified", LIKWID's copy matrix): for
//! each initiator node (its usable CPUs, or the first N of them) and each memory node (memory-only
//! nodes included, nodes without memory never), one kernel's bandwidth with every stream bound to
//! the target. HMAT's firmware-declared bandwidth is attached beside each measured cell where the
//! firmware gives one, labelled as such.

use super::experiment::{keep_or_stop, Config, Toward};
use super::harness;
use super::kernels::Kernel;
use super::plan::{check_fits, node_cpus_cores_first, MemPlacement};
use crate::results::bandwidth::{BandwidthResult, Matrix, MatrixCell};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::precision::PrecisionGoal;

/// The matrix's rows, columns and cells: the given cells (rows in their order, columns
/// ascending), or every initiator node against every memory node.
fn layout(topo: &Topology, cells: Option<&[(u32, u32)]>) -> (Vec<u32>, Vec<u32>, Vec<(u32, u32)>) {
    match cells {
        Some(c) => {
            let mut initiators: Vec<u32> = c.iter().map(|x| x.0).collect();
            initiators.dedup();
            let mut targets: Vec<u32> = c.iter().map(|x| x.1).collect();
            targets.sort_unstable();
            targets.dedup();
            (initiators, targets, c.to_vec())
        }
        None => {
            let initiators = topo.initiator_nodes();
            let targets = topo.memory_nodes();
            let all = initiators
                .iter()
                .flat_map(|&i| targets.iter().map(move |&t| (i, t)))
                .collect();
            (initiators, targets, all)
        }
    }
}

/// The CPUs measuring for initiator node `i`: one per core first, the first `threads` of them.
fn initiator_cpus(topo: &Topology, i: u32, threads: Option<usize>) -> anyhow::Result<Vec<u32>> {
    let mut cpus = node_cpus_cores_first(topo, i);
    if let Some(n) = threads {
        anyhow::ensure!(
            n > 0 && n <= cpus.len(),
            "--threads {n} does not fit node {i}, which has {} usable CPUs; use at most {}",
            cpus.len(),
            cpus.len()
        );
        cpus.truncate(n);
    }
    Ok(cpus)
}

/// Measures one cell: `kernel` on `cpus` with every stream bound to node `t`, toward `goal`.
fn measure_cell(
    topo: &Topology,
    root: &SysRoot,
    kernel: Kernel,
    cpus: &[u32],
    t: u32,
    cfg: &Config,
    goal: Option<&PrecisionGoal>,
) -> anyhow::Result<BandwidthResult> {
    let streams = kernel.descriptor().stream_count();
    let array_bytes = cfg.settings.array_bytes(topo, streams, cpus.len());
    check_fits(topo, &[t], array_bytes * (streams * cpus.len()) as u64)
        .map_err(anyhow::Error::msg)?;
    let spec = cfg
        .settings
        .spec(topo, kernel, cpus.to_vec(), &MemPlacement::Node(vec![t]))?;
    harness::run_toward(topo, root, &spec, goal)
}

/// Measures the matrix of one kernel, each cell toward `goal` when there is one; each cell's
/// full result is appended to `results`, a failing cell goes to `failed` when the config keeps
/// going. `progress` after each cell.
pub fn run_matrix(
    t: &Toward,
    kernel: Kernel,
    cells: Option<&[(u32, u32)]>,
    threads: Option<usize>,
    results: &mut Vec<BandwidthResult>,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<Matrix> {
    let (topo, root, cfg, goal, progress) = (t.topo, t.root, t.cfg, t.goal, t.progress);
    let (initiators, targets, cells) = layout(topo, cells);
    anyhow::ensure!(
        !targets.is_empty(),
        "no allowed node has memory, so there is nothing to measure"
    );
    let mut out = Vec::new();
    for (k, &(i, t)) in cells.iter().enumerate() {
        if interrupted() {
            break;
        }
        let cpus = initiator_cpus(topo, i, threads)?;
        let mine = goal.map(|g| g.for_figure(cells.len() - k));
        match measure_cell(topo, root, kernel, &cpus, t, cfg, mine.as_ref()) {
            Ok(r) => {
                let hmat = topo.hmat_for(i, t);
                out.push(MatrixCell {
                    initiator: i,
                    target: t,
                    threads: cpus.len(),
                    mb_per_s: r.mb_per_s.median,
                    dram_mb_per_s_estimate: r.dram_mb_per_s_estimate.median,
                    placement_fraction: r.placement_fraction,
                    hmat_read_mb_per_s: hmat.and_then(|h| h.read_bandwidth_mb_s),
                    hmat_write_mb_per_s: hmat.and_then(|h| h.write_bandwidth_mb_s),
                    result_index: results.len(),
                });
                results.push(r);
            }
            Err(e) => keep_or_stop(cfg.keep_going, failed, e, || {
                format!("cell node {i} -> node {t}")
            })?,
        }
        progress(k + 1, cells.len());
    }
    Ok(Matrix {
        kernel: kernel.descriptor().name.to_string(),
        initiators,
        targets,
        cells: out,
    })
}
