//! The one entry point of the bandwidth experiment: [`run`] takes a validated [`Config`] and
//! returns the finished [`BandwidthReport`]. `numascope bandwidth` and `numascope run` both
//! call it and nothing else of the bandwidth engine, so the three variants (kernels on chosen
//! CPUs, the node x node matrix, thread scaling), the per-cell failure rule and the Ctrl-C
//! check live here once. Flags and budgets are resolved before this point; nothing here
//! parses text or prints.

use crate::experiment::{Outcome, Progress};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::harness;
use super::kernels::Kernel;
use super::matrix;
use super::plan::MemPlacement;
use super::result::{BandwidthReport, BandwidthResult, BANDWIDTH_SCHEMA_VERSION};
use super::scaling;
use super::RunSettings;

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub enum Variant {
    /// Each kernel once, one thread on each of `cpus`.
    Kernels { cpus: Vec<u32> },
    /// Initiator node x memory node, every stream bound to the memory node (the placement of
    /// the config is not used).
    Matrix {
        /// (initiator node, memory node) cells; `None`: every initiator against every memory
        /// node.
        cells: Option<Vec<(u32, u32)>>,
        /// Threads per initiator node (its CPUs one per core first); `None`: all of them.
        threads: Option<usize>,
    },
    /// Bandwidth against thread count, packed within each of `nodes`.
    Scaling {
        nodes: Vec<u32>,
        /// Thread counts to measure (those a node has CPUs for); `None`: about 24 counts up
        /// to the node's size ([`scaling::thread_counts`]).
        thread_counts: Option<Vec<usize>>,
        /// Also the curves over all of `nodes`, packed and spread (with more than one node).
        machine_wide: bool,
    },
}

/// A validated bandwidth request.
#[derive(Clone, Debug)]
pub struct Config {
    pub kernels: Vec<Kernel>,
    pub variant: Variant,
    pub placement: MemPlacement,
    pub settings: RunSettings,
    /// A kernel, cell or point that fails is recorded and the others still run (the full
    /// run keeps what it can); `false` stops at the first failure (the subcommand's rule).
    pub keep_going: bool,
}

/// An empty report of this machine.
pub fn empty_report(topo: &Topology) -> BandwidthReport {
    BandwidthReport {
        schema_version: BANDWIDTH_SCHEMA_VERSION,
        results: vec![],
        matrix: vec![],
        scaling: vec![],
        numa_balancing: topo.environment.numa_balancing,
        environment: topo.environment.clone(),
        warnings: vec![],
    }
}

/// Records a failure: when going on, the first one is kept with `what` failed as its context;
/// else the error, as the engine said it, ends the run.
pub(crate) fn keep_or_stop(
    keep_going: bool,
    failed: &mut Option<anyhow::Error>,
    e: anyhow::Error,
    what: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if !keep_going {
        return Err(e);
    }
    failed.get_or_insert_with(|| e.context(what()));
    Ok(())
}

/// Runs the experiment; `progress(done, total)` after each kernel, cell or point. Ctrl-C stops
/// at the next one and returns what was measured.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<BandwidthReport>> {
    let mut report = empty_report(topo);
    let mut failed = None;
    match &cfg.variant {
        Variant::Kernels { cpus } => {
            let n = cfg.kernels.len();
            for (k, &kernel) in cfg.kernels.iter().enumerate() {
                if interrupted() {
                    break;
                }
                let res = cfg
                    .settings
                    .spec(topo, kernel, cpus.clone(), &cfg.placement)
                    .and_then(|sp| harness::run(topo, root, &sp));
                match res {
                    Ok(x) => report.results.push(x),
                    Err(e) => keep_or_stop(cfg.keep_going, &mut failed, e, || {
                        format!("kernel {}", kernel.descriptor().name)
                    })?,
                }
                progress(k + 1, n);
            }
        }
        Variant::Matrix { cells, threads } => {
            for &kernel in &cfg.kernels {
                let m = matrix::run_matrix(
                    topo,
                    root,
                    kernel,
                    cells.as_deref(),
                    *threads,
                    cfg,
                    &mut report.results,
                    &mut failed,
                    progress,
                )?;
                report.matrix.push(m);
            }
        }
        Variant::Scaling {
            nodes,
            thread_counts,
            machine_wide,
        } => {
            for &kernel in &cfg.kernels {
                let curves = scaling::Curves {
                    nodes,
                    thread_counts: thread_counts.as_deref(),
                    machine_wide: *machine_wide,
                };
                let s = scaling::run_scaling(
                    topo,
                    root,
                    kernel,
                    &curves,
                    cfg,
                    &mut report.results,
                    &mut failed,
                    progress,
                )?;
                report.scaling.push(s);
            }
        }
    }
    report.warnings = report
        .results
        .iter()
        .filter_map(BandwidthResult::disturbed_warning)
        .collect();
    Ok(Outcome { report, failed })
}
