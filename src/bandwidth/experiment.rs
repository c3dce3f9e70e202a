//! The one entry point of the bandwidth experiment: [`run`] takes a validated [`Config`] and
//! returns the finished [`BandwidthReport`]. `numascope bandwidth` and `numascope run` both
//! call it and nothing else of the bandwidth engine, so the three variants (kernels on chosen
//! CPUs, the node x node matrix, thread scaling), the per-cell failure rule and the Ctrl-C
//! check live here once. Flags and budgets are resolved before this point; nothing here
//! parses text or prints.

use crate::experiment::{Outcome, Progress};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::precision::PrecisionGoal;

use super::harness;
use super::kernels::Kernel;
use super::matrix;
use super::plan::MemPlacement;
use super::scaling;
use super::{RunSettings, WorkingSet};
use crate::results::bandwidth::{
    BandwidthReport, BandwidthResult, Sweep, SweepPoint, BANDWIDTH_SCHEMA_VERSION,
};

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
    /// Bandwidth against working-set size: every kernel at every size, one thread on each of
    /// `cpus`.
    Sizes {
        cpus: Vec<u32>,
        /// Working set per thread (all its streams together), bytes, ascending.
        per_thread_bytes: Vec<u64>,
        /// A geometric range (`--sweep`) rather than a list (`--size A,B`).
        sweep: bool,
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
    /// Peak injection bandwidth per read/write mix per node and package at 1, half and all
    /// CPUs, and the L3 domain table (`--peak`); the read mix runs `Config::kernels[0]` (the
    /// read kernel), and each thread's memory is bound to its own node (the config's
    /// placement is not used). The runs are planned once, by the caller
    /// ([`super::peak_plan::plan`]).
    Peak(super::peak_plan::PeakPlan),
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
        sweep: None,
        peak: None,
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
/// at the next one and returns what was measured. Every figure takes the planned repetitions
/// only; [`run_toward`] adds extras to the headline ones.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<BandwidthReport>> {
    run_toward(topo, root, cfg, None, progress)
}

/// [`run`], the headline figures measured toward `goal`: each kernel's result, each
/// matrix cell and each scaling point takes extra repetitions while its interval is wider
/// than the goal's target, within the goal's pool. A size sweep's points (tens of them) and
/// the peak runs keep the planned count. `numascope bandwidth` passes a count-bounded goal at
/// +-3 %, `run` one at its budget's target with the part's pool.
pub fn run_toward(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    goal: Option<&PrecisionGoal>,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<BandwidthReport>> {
    let t = Toward {
        topo,
        root,
        cfg,
        goal,
        progress,
    };
    let mut report = empty_report(topo);
    let mut failed = None;
    match &cfg.variant {
        Variant::Kernels { cpus } => run_kernels(&t, cpus, &mut report, &mut failed)?,
        Variant::Sizes {
            cpus,
            per_thread_bytes,
            sweep,
        } => {
            report.sweep = Some(run_sizes(
                &t,
                cpus,
                per_thread_bytes,
                *sweep,
                &mut report.results,
                &mut failed,
            )?);
        }
        Variant::Matrix { cells, threads } => {
            run_matrices(&t, cells.as_deref(), *threads, &mut report, &mut failed)?
        }
        Variant::Scaling {
            nodes,
            thread_counts,
            machine_wide,
        } => {
            let curves = scaling::Curves {
                nodes,
                thread_counts: thread_counts.as_deref(),
                machine_wide: *machine_wide,
            };
            run_scalings(&t, &curves, &mut report, &mut failed)?
        }
        Variant::Peak(p) => run_peak_part(&t, p, &mut report, &mut failed)?,
    }
    add_disturbed_warnings(&mut report);
    Ok(Outcome { report, failed })
}

/// What every part of one bandwidth run shares: the machine, its one root, the validated
/// request, the goal its headline figures are measured toward (`None`: the planned
/// repetitions only) and where progress goes.
pub struct Toward<'a> {
    pub topo: &'a Topology,
    pub root: &'a SysRoot,
    pub cfg: &'a Config,
    pub goal: Option<&'a PrecisionGoal>,
    pub progress: &'a Progress<'a>,
}

/// Each kernel once on `cpus`, toward an even share of the goal's pool; Ctrl-C stops at the
/// next kernel.
fn run_kernels(
    t: &Toward,
    cpus: &[u32],
    report: &mut BandwidthReport,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<()> {
    let (topo, root, cfg) = (t.topo, t.root, t.cfg);
    let n = cfg.kernels.len();
    for (k, &kernel) in cfg.kernels.iter().enumerate() {
        if interrupted() {
            break;
        }
        let res = cfg
            .settings
            .spec(topo, kernel, cpus.to_vec(), &cfg.placement)
            .and_then(|sp| {
                // An even share of the pool left for each kernel still to measure.
                let mine = t.goal.map(|g| g.for_figure(n - k));
                harness::run_toward(topo, root, &sp, mine.as_ref())
            });
        match res {
            Ok(x) => report.results.push(x),
            Err(e) => keep_or_stop(cfg.keep_going, failed, e, || {
                format!("kernel {}", kernel.descriptor().name)
            })?,
        }
        (t.progress)(k + 1, n);
    }
    Ok(())
}

/// One node-to-node matrix per kernel.
fn run_matrices(
    t: &Toward,
    cells: Option<&[(u32, u32)]>,
    threads: Option<usize>,
    report: &mut BandwidthReport,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<()> {
    for &kernel in &t.cfg.kernels {
        let m = matrix::run_matrix(t, kernel, cells, threads, &mut report.results, failed)?;
        report.matrix.push(m);
    }
    Ok(())
}

/// One set of thread-scaling curves per kernel.
fn run_scalings(
    t: &Toward,
    curves: &scaling::Curves,
    report: &mut BandwidthReport,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<()> {
    for &kernel in &t.cfg.kernels {
        let s = scaling::run_scaling(t, kernel, curves, &mut report.results, failed)?;
        report.scaling.push(s);
    }
    Ok(())
}

/// The peak injection bandwidth, with the read kernel.
fn run_peak_part(
    t: &Toward,
    p: &super::peak_plan::PeakPlan,
    report: &mut BandwidthReport,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<()> {
    let read =
        *t.cfg.kernels.first().ok_or_else(|| {
            anyhow::anyhow!("--peak needs the read kernel; this is a numascope bug")
        })?;
    report.peak = Some(super::peak::run_peak(t, read, p, failed)?);
    Ok(())
}

/// The warnings of every disturbed result and peak run.
fn add_disturbed_warnings(report: &mut BandwidthReport) {
    report.warnings = report
        .results
        .iter()
        .filter_map(crate::render::words::disturbed::bandwidth)
        .collect();
    if let Some(p) = &report.peak {
        report.warnings.extend(
            p.runs
                .iter()
                .filter_map(crate::render::words::disturbed::peak),
        );
    }
}

/// Every kernel at every working-set size (per thread), through the same settings and harness
/// as a single run: only the size changes from point to point. A small working set is swept
/// over and over until the repetition's duration is up (the harness wraps around its arrays),
/// so every point is timed for the same length.
fn run_sizes(
    t: &Toward,
    cpus: &[u32],
    per_thread_bytes: &[u64],
    sweep: bool,
    results: &mut Vec<BandwidthResult>,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<Sweep> {
    let (topo, root, cfg) = (t.topo, t.root, t.cfg);
    let total = per_thread_bytes.len() * cfg.kernels.len();
    let mut points = Vec::with_capacity(total);
    'sizes: for (i, &bytes) in per_thread_bytes.iter().enumerate() {
        let settings = RunSettings {
            size: WorkingSet::Total(bytes * cpus.len() as u64),
            ..cfg.settings.clone()
        };
        for (k, &kernel) in cfg.kernels.iter().enumerate() {
            if interrupted() {
                break 'sizes;
            }
            let res = settings
                .spec(topo, kernel, cpus.to_vec(), &cfg.placement)
                .and_then(|sp| harness::run(topo, root, &sp));
            match res {
                Ok(r) => {
                    points.push(sweep_point(topo, &r, results.len()));
                    results.push(r);
                }
                Err(e) => keep_or_stop(cfg.keep_going, failed, e, || {
                    format!(
                        "kernel {} at {} per thread",
                        kernel.descriptor().name,
                        crate::results::format::format_bytes(bytes)
                    )
                })?,
            }
            (t.progress)(i * cfg.kernels.len() + k + 1, total);
        }
    }
    Ok(Sweep {
        threads: cpus.len(),
        cpus: cpus.to_vec(),
        mode: if sweep { "sweep" } else { "sizes" }.into(),
        points,
    })
}

/// The sweep's view of one result: its size per thread, the cache it fits in and its rate.
pub fn sweep_point(topo: &Topology, r: &BandwidthResult, result_index: usize) -> SweepPoint {
    let per_thread = r.working_set_bytes / r.threads.max(1) as u64;
    let fit = super::plan::cache_fit(topo, &r.cpus, per_thread);
    SweepPoint {
        kernel: r.kernel.clone(),
        working_set_bytes_per_thread: per_thread,
        working_set_bytes: r.working_set_bytes,
        cache_level: fit.as_ref().map(|f| f.level),
        fits_in: fit.map_or_else(|| "DRAM".into(), |f| format!("fits in {}", f.label)),
        mb_per_s: r.mb_per_s.median,
        ci: r.mb_per_s.ci,
        disturbed: r.quality.as_ref().is_some_and(|q| q.disturbed),
        result_index,
    }
}
