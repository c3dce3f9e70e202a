//! LIKWID's per-stream placement as a matrix (seed 002/003, `likwid-bench -t copy_mem -w
//! M0:1GB-0:M2,1:M2`): threads on one CPU node, the kernel's read stream(s) bound to a source
//! node and its written stream to a destination node, for every source x destination. Each
//! cell is one `bandwidth::run` of the kernels variant with a per-stream `node` placement (the
//! engine places and verifies every stream of every thread), one warm-up and one timed
//! repetition per round, cells in rotating order. [`run`] is the entry point of `numascope
//! bandwidth --stream-matrix`. Nothing here parses flags or prints.

use crate::bandwidth::descriptor::StreamRole;
use crate::bandwidth::kernels::Kernel;
use crate::bandwidth::plan::MemPlacement;
use crate::bandwidth::{self, RunSettings};
use crate::experiment::{Outcome, Progress};
use crate::results::tables::{RoundFigure, StreamCell, StreamMatrix, StreamMatrixReport};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::{fail, figure_warnings, ratio_to_local, record, summarize, Sample};
use crate::schedule::round_order;

/// A validated per-stream matrix request.
#[derive(Clone, Debug)]
pub struct Config {
    /// Kernels with a written and at least one read stream (copy, copy-nt, scale, add, triad).
    pub kernels: Vec<Kernel>,
    /// Each CPU node with the CPUs of its threads.
    pub cpu_nodes: Vec<(u32, Vec<u32>)>,
    pub sources: Vec<u32>,
    pub destinations: Vec<u32>,
    /// One timed repetition per round (`repetitions` is set to 1, `warmup` to 1 here).
    pub settings: RunSettings,
    pub rounds: usize,
}

/// Why `kernel` cannot be split into a source and a destination stream, if it cannot.
pub fn refuse_kernel(kernel: &Kernel) -> Option<String> {
    let d = kernel.descriptor();
    let writes = d
        .streams
        .iter()
        .filter(|r| **r == StreamRole::Write)
        .count();
    let reads = d.streams.iter().filter(|r| **r == StreamRole::Read).count();
    (writes != 1 || reads == 0 || writes + reads != d.streams.len()).then(|| {
        format!(
            "kernel {} has no separate source and destination streams; --stream-matrix places copy, copy-nt, scale, add or triad",
            d.name
        )
    })
}

/// The per-stream nodes of `kernel`: the written stream on `dst`, every read stream on `src`.
pub fn stream_nodes(kernel: &Kernel, src: u32, dst: u32) -> Vec<u32> {
    kernel
        .descriptor()
        .streams
        .iter()
        .map(|r| if *r == StreamRole::Write { dst } else { src })
        .collect()
}

/// Measures every (kernel, CPU node, source, destination); `progress(done, total)` after each
/// cell of each round; Ctrl-C keeps what was measured. The outcome's `failed` is set only
/// when nothing was measured.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<StreamMatrixReport>> {
    let (cells, mut matrices) = plan_matrices(topo, cfg);
    let figs = measure_rounds(topo, root, cfg, &cells, &matrices, progress);
    let mut warnings = fill_matrices(&cells, &figs, &mut matrices);
    if let Some(level) = figs.iter().find_map(|f| f.cache_level.clone()) {
        warnings.insert(0, format!("the arrays fit in {level} on this machine, so the matrix is the cache's rather than the memory's; give a larger --size"));
    }
    if topo.environment.numa_balancing.unwrap_or(0) != 0 && topo.memory_nodes().len() > 1 {
        warnings.insert(0, "automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing): the kernel may migrate remote streams toward the threads".into());
    }
    let measured = figs.iter().any(|f| f.summary.is_some());
    let failed = (!measured && !cells.is_empty() && !interrupted()).then(|| {
        let first = figs
            .iter()
            .find_map(|f| f.error.clone())
            .unwrap_or_else(|| "nothing was measured".into());
        anyhow::anyhow!("the stream matrix measured nothing: {first}")
    });
    Ok(Outcome {
        report: StreamMatrixReport {
            rounds: cfg.rounds,
            repetition_ms: cfg.settings.duration.as_millis() as u64,
            page_size: cfg.settings.page.label().into(),
            matrices,
            numa_balancing: topo.environment.numa_balancing,
            environment: topo.environment.clone(),
            warnings,
        },
        failed,
    })
}

/// (matrix index, source, destination) of one cell.
type Cell = (usize, u32, u32);

/// Every cell in round order, and one empty matrix per kernel and CPU node.
fn plan_matrices(topo: &Topology, cfg: &Config) -> (Vec<Cell>, Vec<StreamMatrix>) {
    let mut cells: Vec<Cell> = Vec::new();
    let mut matrices = Vec::new();
    for kernel in &cfg.kernels {
        for (node, cpus) in &cfg.cpu_nodes {
            let d = kernel.descriptor();
            for &s in &cfg.sources {
                for &t in &cfg.destinations {
                    cells.push((matrices.len(), s, t));
                }
            }
            matrices.push(StreamMatrix {
                kernel: d.name.into(),
                non_temporal: d.non_temporal,
                cpu_node: *node,
                cpus: cpus.clone(),
                array_bytes_per_thread: cfg.settings.array_bytes(
                    topo,
                    d.stream_count(),
                    cpus.len(),
                ),
                source_nodes: cfg.sources.clone(),
                destination_nodes: cfg.destinations.clone(),
                cells: vec![],
            });
        }
    }
    (cells, matrices)
}

/// Measures every cell once per round, in each round's order, until a stop signal; a cell
/// that failed is not retried.
fn measure_rounds(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    cells: &[Cell],
    matrices: &[StreamMatrix],
    progress: &Progress<'_>,
) -> Vec<RoundFigure> {
    let kernel_of = |m: usize| cfg.kernels[m / cfg.cpu_nodes.len().max(1)];
    let mut figs: Vec<RoundFigure> = cells.iter().map(|_| RoundFigure::empty()).collect();
    let settings = RunSettings {
        repetitions: 1,
        warmup: 1,
        ..cfg.settings.clone()
    };
    let total = cfg.rounds * cells.len();
    let mut done = 0;
    'rounds: for round in 0..cfg.rounds {
        for c in round_order(cells.len(), round) {
            if interrupted() {
                break 'rounds;
            }
            if figs[c].error.is_some() {
                continue;
            }
            let (m, src, dst) = cells[c];
            let kernel = kernel_of(m);
            let bw = bandwidth::Config {
                kernels: vec![kernel],
                variant: bandwidth::Variant::Kernels {
                    cpus: matrices[m].cpus.clone(),
                },
                placement: MemPlacement::Node(stream_nodes(&kernel, src, dst)),
                settings: settings.clone(),
                keep_going: false,
            };
            measure_cell(topo, root, &bw, &mut figs[c]);
            done += 1;
            progress(done, total);
        }
    }
    figs.iter_mut().for_each(summarize);
    figs
}

/// One round of one cell: its bandwidth run, recorded in `fig` (or its failure).
fn measure_cell(topo: &Topology, root: &SysRoot, bw: &bandwidth::Config, fig: &mut RoundFigure) {
    match bandwidth::run(topo, root, bw, &|_, _| {}) {
        Ok(out) => match out.report.results.first() {
            Some(r) => record(fig, Sample::of_bandwidth(r)),
            None if interrupted() => {}
            None => fail(fig, "failed: no result".into()),
        },
        Err(_) if interrupted() => {}
        Err(e) => fail(fig, format!("failed: {}", crate::error::one_sentence(&e))),
    }
}

/// Puts each cell's figure (with its ratio to the CPU node's local cell) into its matrix;
/// the per-cell warnings.
fn fill_matrices(
    cells: &[Cell],
    figs: &[RoundFigure],
    matrices: &mut [StreamMatrix],
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (c, &(m, src, dst)) in cells.iter().enumerate() {
        let node = matrices[m].cpu_node;
        let local = cells
            .iter()
            .position(|&(mm, s, t)| mm == m && s == node && t == node);
        let mut fig = figs[c].clone();
        if let Some(l) = local.filter(|&l| l != c) {
            fig.ratio_to_local = ratio_to_local(&figs[l], &fig);
        }
        figure_warnings(
            &format!(
                "{} on CPU node {node}, source node {src} -> destination node {dst}",
                matrices[m].kernel
            ),
            &fig,
            &mut warnings,
        );
        matrices[m].cells.push(StreamCell {
            source_node: src,
            destination_node: dst,
            mb_per_s: fig,
        });
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bandwidth::descriptor::KernelId;
    use crate::results::bandwidth::Isa;

    fn k(id: KernelId) -> Kernel {
        Kernel::new(id, Isa::Scalar).unwrap()
    }

    /// Copy writes stream 0 and reads stream 1; triad reads two streams, both on the source.
    #[test]
    fn streams_go_to_source_and_destination() {
        assert_eq!(stream_nodes(&k(KernelId::Copy), 0, 1), vec![1, 0]);
        assert_eq!(stream_nodes(&k(KernelId::Triad), 2, 3), vec![3, 2, 2]);
        assert!(refuse_kernel(&k(KernelId::Copy)).is_none());
        assert!(refuse_kernel(&k(KernelId::Triad)).is_none());
        for id in [KernelId::Read, KernelId::Write, KernelId::Update] {
            let e = refuse_kernel(&k(id)).unwrap();
            assert!(e.contains("--stream-matrix") && e.contains("copy"), "{e}");
        }
    }
}
