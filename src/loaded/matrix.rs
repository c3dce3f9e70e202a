//! The matrix form of loaded latency, as MLC's and the Turin article's: for every initiator
//! node and every memory (target) node, the curve with the chaser on the initiator's first
//! usable CPU and its buffer on the target, the load generated from a chosen set of nodes
//! (by default the initiator's other usable CPUs; `--load-nodes`: every usable CPU of those
//! nodes but the chaser's) onto a chosen node (by default the target; `--load-mem-nodes`: one
//! node for every cell), for each load mix. It shows where one node's memory, or the
//! interconnect to it, saturates, and how much a load elsewhere slows a remote access.

use super::engine::{self, LoadedConfig};
use super::sizes::default_sizes;
use crate::experiment::Progress;
use crate::results::format::format_list;
use crate::results::loaded::LoadKernel;
use crate::results::loaded::{LoadedMatrix, LoadedMatrixCell, LOADED_SCHEMA_VERSION};
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

/// What is common to every cell.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixTemplate {
    /// The load mixes, one curve each per cell, measured interleaved; never empty.
    pub kernels: Vec<LoadKernel>,
    pub points: usize,
    pub duration: std::time::Duration,
    /// Chased buffer size; `None`: the default for each target.
    pub chaser_bytes: Option<u64>,
    pub page: PageSize,
    pub seed: u64,
    /// Nodes whose usable CPUs run the load threads (the chaser's CPU left out); `None`: the
    /// initiator's own other CPUs.
    pub load_nodes: Option<Vec<u32>>,
    /// Node of every cell's load buffers; `None`: the cell's target.
    pub load_mem_node: Option<u32>,
}

/// The configuration of one cell, or why the cell cannot be measured. Its kernel is the
/// template's first; [`run_matrix`] runs every kernel of the template on it.
pub fn cell_config(
    topo: &Topology,
    initiator: u32,
    target: u32,
    t: &MatrixTemplate,
) -> Result<LoadedConfig, String> {
    let cpus = topo.usable_cpus_of(initiator);
    let Some((&chaser, own)) = cpus.split_first() else {
        return Err(format!("node {initiator} has no usable CPU"));
    };
    let load: Vec<u32> = match &t.load_nodes {
        None => own.to_vec(),
        Some(nodes) => nodes
            .iter()
            .flat_map(|&n| topo.usable_cpus_of(n))
            .filter(|&c| c != chaser)
            .collect(),
    };
    if load.is_empty() {
        return Err(match &t.load_nodes {
            None => format!(
                "node {initiator} has only one usable CPU (the chaser's), so no load thread can run there; give --load-nodes with nodes that have other CPUs"
            ),
            Some(nodes) => format!(
                "the load nodes {} have no usable CPU besides the chaser's (CPU {chaser})",
                format_list(nodes)
            ),
        });
    }
    let load_mem_node = t.load_mem_node.unwrap_or(target);
    let (chaser_default, per_thread) =
        default_sizes(topo, target, load_mem_node, load.len(), t.page);
    Ok(LoadedConfig {
        chaser_cpu: chaser,
        load_cpus: load,
        mem_node: target,
        load_mem_node,
        kernel: t.kernels.first().copied().unwrap_or(LoadKernel::Read),
        points: t.points,
        chaser_bytes: t.chaser_bytes.unwrap_or(chaser_default),
        load_bytes_per_thread: per_thread,
        page: t.page,
        duration: t.duration,
        seed: t.seed,
        lent: None,
    })
}

/// Every cell's plan in measurement order (initiators, then targets, ascending): which CPU
/// chases which node, and which CPUs load which node, or why the cell cannot be measured.
pub fn plan(topo: &Topology, t: &MatrixTemplate) -> Vec<(u32, u32, Result<LoadedConfig, String>)> {
    let targets = topo.memory_nodes();
    topo.initiator_nodes()
        .into_iter()
        .flat_map(|i| targets.iter().map(move |&m| (i, m)))
        .map(|(i, m)| (i, m, cell_config(topo, i, m, t)))
        .collect()
}

/// Measures every cell; `progress(done, total)` after each. Ctrl-C stops at the next cell
/// (the cells not measured are left out).
pub fn run_matrix(
    topo: &Topology,
    root: &SysRoot,
    t: &MatrixTemplate,
    progress: &Progress<'_>,
) -> anyhow::Result<LoadedMatrix> {
    let planned = plan(topo, t);
    let total = planned.len();
    let mut cells = Vec::with_capacity(total);
    for (i, m, cfg) in planned {
        if interrupted() {
            break;
        }
        let cell = match cfg {
            Ok(cfg) => {
                let mut curves = engine::run_family(topo, root, &cfg, &t.kernels)?.into_iter();
                LoadedMatrixCell {
                    initiator: i,
                    target: m,
                    result: curves.next(),
                    note: None,
                    further_mixes: curves.collect(),
                }
            }
            Err(note) => LoadedMatrixCell {
                initiator: i,
                target: m,
                result: None,
                note: Some(note),
                further_mixes: Vec::new(),
            },
        };
        cells.push(cell);
        progress(cells.len(), total);
    }
    Ok(LoadedMatrix {
        schema_version: LOADED_SCHEMA_VERSION,
        initiators: topo.initiator_nodes(),
        targets: topo.memory_nodes(),
        cells,
        load_nodes: t.load_nodes.clone(),
        load_mem_node: t.load_mem_node,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    fn template(load_nodes: Option<Vec<u32>>, load_mem_node: Option<u32>) -> MatrixTemplate {
        MatrixTemplate {
            kernels: vec![LoadKernel::Read],
            points: 4,
            duration: std::time::Duration::from_millis(10),
            chaser_bytes: Some(8 << 20),
            page: PageSize::Thp,
            seed: 1,
            load_nodes,
            load_mem_node,
        }
    }

    use crate::testutil::topology_fixture as fixture;

    /// (initiator, target, chaser CPU, load CPUs, chased node, load node) of every cell that
    /// can be measured; the notes of those that cannot.
    type Row = (u32, u32, u32, Vec<u32>, u32, u32);
    fn rows(topo: &Topology, t: &MatrixTemplate) -> (Vec<Row>, Vec<(u32, u32, String)>) {
        let (mut ok, mut notes) = (Vec::new(), Vec::new());
        for (i, m, c) in plan(topo, t) {
            match c {
                Ok(c) => ok.push((i, m, c.chaser_cpu, c.load_cpus, c.mem_node, c.load_mem_node)),
                Err(e) => notes.push((i, m, e)),
            }
        }
        (ok, notes)
    }

    /// The rows of [`rows`] when every cell can be measured.
    fn all_rows(topo: &Topology, t: &MatrixTemplate) -> Vec<Row> {
        let (ok, notes) = rows(topo, t);
        assert!(notes.is_empty(), "{notes:?}");
        ok
    }

    /// Guest shape A: CPU nodes 0 (CPUs 0-1) and 1 (2-3), memory-only node 2. Every CPU node
    /// is an initiator of every memory node, the memory-only node only a target.
    #[test]
    fn by_default_each_cell_loads_from_the_initiators_other_cpus_onto_the_target() {
        let topo = fixture("guest-A");
        assert_eq!(
            all_rows(&topo, &template(None, None)),
            vec![
                (0, 0, 0, vec![1], 0, 0),
                (0, 1, 0, vec![1], 1, 1),
                (0, 2, 0, vec![1], 2, 2),
                (1, 0, 2, vec![3], 0, 0),
                (1, 1, 2, vec![3], 1, 1),
                (1, 2, 2, vec![3], 2, 2),
            ]
        );
    }

    #[test]
    fn load_nodes_and_a_load_memory_node_apply_to_every_cell() {
        let topo = fixture("guest-A");
        // Load from both CPU nodes (the chaser's CPU left out) onto node 2 for every cell.
        let (ok, _) = rows(&topo, &template(Some(vec![0, 1]), Some(2)));
        assert_eq!(ok[0], (0, 0, 0, vec![1, 2, 3], 0, 2));
        assert_eq!(ok[4], (1, 1, 2, vec![0, 1, 3], 1, 2));
        assert!(ok.iter().all(|r| r.5 == 2));
        // Load from the other node only: the initiator's own second CPU stays idle.
        let (ok, _) = rows(&topo, &template(Some(vec![1]), None));
        assert_eq!(ok[1], (0, 1, 0, vec![2, 3], 1, 1));
        assert_eq!(ok[3], (1, 0, 2, vec![3], 0, 0));
    }

    /// One CPU per node (the 2005 Opteron 250 pair): by default no load thread fits beside
    /// the chaser, and the note says how to give one; loading from the other node works.
    #[test]
    fn a_one_cpu_node_loads_only_from_other_nodes() {
        let topo = fixture("opteron250-2s");
        let (ok, notes) = rows(&topo, &template(None, None));
        assert!(ok.is_empty());
        assert_eq!(notes.len(), 4);
        assert!(notes[0].2.contains("--load-nodes"), "{:?}", notes[0]);
        assert_eq!(
            all_rows(&topo, &template(Some(vec![0, 1]), None)),
            vec![
                (0, 0, 0, vec![1], 0, 0),
                (0, 1, 0, vec![1], 1, 1),
                (1, 0, 1, vec![0], 0, 0),
                (1, 1, 1, vec![0], 1, 1),
            ]
        );
        let (_, notes) = rows(&topo, &template(Some(vec![0]), None));
        assert_eq!(notes.len(), 2, "node 0's chaser has no other CPU on node 0");
        assert!(
            notes[0]
                .2
                .contains("load nodes 0 have no usable CPU besides the chaser's (CPU 0)"),
            "{:?}",
            notes[0]
        );
    }

    /// A node with CPUs and no memory is an initiator only.
    #[test]
    fn a_memoryless_node_is_an_initiator_never_a_target() {
        let topo = fixture("edge-memoryless-node");
        let ok = all_rows(&topo, &template(None, None));
        assert_eq!(
            ok.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            vec![(0, 0), (1, 0)]
        );
        assert_eq!(ok[1], (1, 0, 4, vec![5, 6, 7], 0, 0));
    }

    #[test]
    fn cells_use_the_initiators_cpus_and_the_target_for_both_buffers() {
        let _serial = crate::testutil::timing_lock();
        let mut topo = this_machine_one_node();
        let t = template(None, None);
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
