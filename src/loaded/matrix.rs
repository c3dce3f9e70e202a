//! The matrix form of loaded latency: for every initiator node and every memory (target)
//! node, the curve with the chaser on the initiator's first usable CPU, the load threads on
//! its other usable CPUs, and both the chased and the load buffers on the target. It shows
//! where one node's memory, or the interconnect to it, saturates.

use super::engine::{self, LoadedConfig};
use super::kernel::LoadKernel;
use super::result::{LoadedMatrix, LoadedMatrixCell, LOADED_SCHEMA_VERSION};
use super::sizes::default_sizes;
use crate::experiment::Progress;
use crate::placement::PageSize;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

/// What is common to every cell.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixTemplate {
    pub kernel: LoadKernel,
    pub points: usize,
    pub duration: std::time::Duration,
    /// Chased buffer size; `None`: the default for each target.
    pub chaser_bytes: Option<u64>,
    pub page: PageSize,
    pub seed: u64,
}

/// The configuration of one cell, or why the cell cannot be measured.
pub fn cell_config(
    topo: &Topology,
    initiator: u32,
    target: u32,
    t: &MatrixTemplate,
) -> Result<LoadedConfig, String> {
    let cpus = topo.usable_cpus_of(initiator);
    let Some((&chaser, load)) = cpus.split_first() else {
        return Err(format!("node {initiator} has no usable CPU"));
    };
    if load.is_empty() {
        return Err(format!(
            "node {initiator} has only one usable CPU (the chaser's), so no load thread can run there"
        ));
    }
    let (chaser_default, per_thread) = default_sizes(topo, target, target, load.len(), t.page);
    Ok(LoadedConfig {
        chaser_cpu: chaser,
        load_cpus: load.to_vec(),
        mem_node: target,
        load_mem_node: target,
        kernel: t.kernel,
        points: t.points,
        chaser_bytes: t.chaser_bytes.unwrap_or(chaser_default),
        load_bytes_per_thread: per_thread,
        page: t.page,
        duration: t.duration,
        seed: t.seed,
    })
}

/// Measures every cell; `progress(done, total)` after each. Ctrl-C stops at the next cell
/// (the cells not measured are left out).
pub fn run_matrix(
    topo: &Topology,
    root: &SysRoot,
    t: &MatrixTemplate,
    progress: &Progress<'_>,
) -> anyhow::Result<LoadedMatrix> {
    let initiators = topo.initiator_nodes();
    let targets = topo.memory_nodes();
    let total = initiators.len() * targets.len();
    let mut cells = Vec::with_capacity(total);
    for &i in &initiators {
        for &m in &targets {
            if interrupted() {
                break;
            }
            let cell = match cell_config(topo, i, m, t) {
                Ok(cfg) => LoadedMatrixCell {
                    initiator: i,
                    target: m,
                    result: Some(engine::run_curve(topo, root, &cfg)?),
                    note: None,
                },
                Err(note) => LoadedMatrixCell {
                    initiator: i,
                    target: m,
                    result: None,
                    note: Some(note),
                },
            };
            cells.push(cell);
            progress(cells.len(), total);
        }
    }
    Ok(LoadedMatrix {
        schema_version: LOADED_SCHEMA_VERSION,
        initiators,
        targets,
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    #[test]
    fn cells_use_the_initiators_cpus_and_the_target_for_both_buffers() {
        let _serial = crate::testutil::timing_lock();
        let mut topo = this_machine_one_node();
        let t = MatrixTemplate {
            kernel: LoadKernel::Read,
            points: 4,
            duration: std::time::Duration::from_millis(10),
            chaser_bytes: Some(8 << 20),
            page: PageSize::Thp,
            seed: 1,
        };
        let cpus = topo.usable_cpus();
        if cpus.len() >= 2 {
            let c = cell_config(&topo, 0, 0, &t).unwrap();
            assert_eq!(c.chaser_cpu, cpus[0]);
            assert_eq!(c.load_cpus, cpus[1..].to_vec());
            assert_eq!(
                (c.mem_node, c.load_mem_node, c.chaser_bytes),
                (0, 0, 8 << 20)
            );
            assert_eq!(c.page, PageSize::Thp);
        }
        topo.cpus.truncate(1);
        let e = cell_config(&topo, 0, 0, &t).unwrap_err();
        assert!(e.contains("only one usable CPU"), "{e}");
        let e = cell_config(&topo, 7, 0, &t).unwrap_err();
        assert!(e.contains("no usable CPU"), "{e}");
    }
}
