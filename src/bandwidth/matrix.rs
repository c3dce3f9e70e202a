//! The node x node matrix (METHODOLOGY point 14, LIKWID's copy matrix): for each initiator node
//! (its usable CPUs, or the first N of them) and each memory node (memory-only nodes included,
//! nodes without memory never), one kernel's bandwidth with every stream bound to the target.
//! HMAT's firmware-declared bandwidth is attached beside each measured cell where the firmware
//! gives one, labelled as such.

use super::harness::{self, RunSpec};
use super::kernels::Kernel;
use super::plan::{check_fits, node_cpus_cores_first, MemPlacement};
use super::result::{BandwidthResult, Matrix, MatrixCell};
use super::RunSettings;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

/// Measures the matrix; each cell's full result is appended to `results`.
pub fn run_matrix(
    topo: &Topology,
    root: &SysRoot,
    kernel: Kernel,
    threads: Option<usize>,
    settings: &RunSettings,
    results: &mut Vec<BandwidthResult>,
) -> anyhow::Result<Matrix> {
    let desc = kernel.descriptor();
    let initiators = topo.initiator_nodes();
    let targets = topo.memory_nodes();
    anyhow::ensure!(
        !targets.is_empty(),
        "no allowed node has memory, so there is nothing to measure"
    );
    let mut cells = Vec::new();
    for &i in &initiators {
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
        for &t in &targets {
            let placement = MemPlacement::Node(vec![t]);
            let policies = placement
                .policies(desc.name, desc.stream_count())
                .map_err(anyhow::Error::msg)?;
            let array_bytes = settings.array_bytes(topo, desc.stream_count(), cpus.len());
            check_fits(
                topo,
                &[t],
                array_bytes * (desc.stream_count() * cpus.len()) as u64,
            )
            .map_err(anyhow::Error::msg)?;
            let spec = RunSpec {
                kernel,
                cpus: cpus.clone(),
                placement: placement.label().into(),
                stream_policies: policies,
                array_bytes,
                page: settings.page,
                duration: settings.duration,
                repetitions: settings.repetitions,
                warmup: settings.warmup,
                params: settings.params,
                throttle: None,
            };
            let r = harness::run(topo, root, &spec)?;
            let hmat = topo.hmat_for(i, t);
            cells.push(MatrixCell {
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
    }
    Ok(Matrix {
        kernel: desc.name.to_string(),
        initiators,
        targets,
        cells,
    })
}
