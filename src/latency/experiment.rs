//! The one entry point of the latency experiment: [`run`] takes a validated [`Config`] and
//! returns the finished [`LatencyReport`]. `numascope latency` and `numascope run` both call
//! it and nothing else of the latency engine, so the three variants (chosen sizes, the
//! working-set sweep with its knees, the node x node matrix), the per-curve failure rule and
//! the Ctrl-C check live here once. Flags and budgets are resolved before this point; nothing
//! here parses text or prints.

use anyhow::Context as _;

use crate::experiment::{Outcome, Progress};
use crate::results::clock::ClockInfo;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::chase::{self, ChainSpec};
use super::engine::{run_distribution_job, run_job, Job, Spread, Target};
use super::matrix;
use super::measure::Aim;
use super::noise::sweep_noise_warning;
use crate::results::latency::Mode;
use crate::results::latency::SamplePlan;
use crate::results::latency::{CurveKnees, LatencyReport, SweepCurve, LATENCY_SCHEMA_VERSION};
use crate::threads::precision::PrecisionGoal;

/// Where a single-CPU variant chases from and where its buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chaser {
    pub cpu: u32,
    /// `None`: first touch from `cpu`; `Some(n)`: bound to node `n`.
    pub mem_node: Option<u32>,
}

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub enum Variant {
    /// Each working set of `sizes`, once per page size x mode x chain count. `in_blocks`: each
    /// size measured in blocks, in passes over the sizes (`latency::blocks`, as a sweep's
    /// points), its figure and interval over the block medians, the kind of interval the
    /// run's reference has (`latency --size`); `false`: its samples back to back, for a
    /// caller whose own rounds are the blocks (RightMark's table).
    Sizes {
        at: Chaser,
        sizes: Vec<u64>,
        in_blocks: bool,
    },
    /// The working-set curve over `sizes` (ascending), once per page size x mode x chain
    /// count, with the knees of each curve beside the sysfs cache sizes.
    Sweep { at: Chaser, sizes: Vec<u64> },
    /// Initiator node x memory node at one working set, with the first mode and chain count,
    /// once per page size (the last page size's matrix is the one reported).
    Matrix {
        /// (initiator node, memory node) cells; `None`: every initiator against every memory
        /// node.
        cells: Option<Vec<(u32, u32)>>,
        /// CPUs to use, at most one per node; a node not named uses its first usable CPU.
        cpus: Vec<u32>,
        /// `None`: [`matrix::default_size`] for each page size.
        size: Option<u64>,
    },
}

/// A validated latency request.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub variant: Variant,
    /// Walk modes, in report order.
    pub modes: Vec<Mode>,
    /// Page backings, in report order.
    pub pages: Vec<PageSize>,
    /// Chain counts (each one of [`chase::SUPPORTED_CHAINS`]).
    pub chains: Vec<usize>,
    /// Spacing of the chased elements, bytes.
    pub element_bytes: u64,
    /// Locality group of page mode, bytes (0: the page size's TLB page).
    pub group_bytes: u64,
    pub seed: u64,
    pub plan: SamplePlan,
    /// The clock already measured by the caller (a run measures it once); `None`: measure it
    /// here.
    pub clock: Option<ClockInfo>,
    /// A curve that fails becomes a warning and the other curves still run (the full run
    /// keeps what it can); `false` stops at the first failure (the subcommand's rule).
    pub keep_going: bool,
    /// `Some(groups)`: also time that many groups of loads for the per-load distribution, at
    /// the first size of a `Sizes` variant or the largest of a `Sweep`, with the first page
    /// size and mode, one chain (a `Matrix` has none).
    pub distribution: Option<usize>,
    /// The working set of the distribution instead of that default: `run` sweeps without the
    /// size its reference measures (the sweep's largest) and still wants the distribution
    /// there.
    pub distribution_bytes: Option<u64>,
}

impl Config {
    fn spec(&self, mode: Mode, chains: usize) -> ChainSpec {
        ChainSpec {
            mode,
            chains,
            element_bytes: self.element_bytes,
            group_bytes: self.group_bytes,
            seed: self.seed,
        }
    }

    /// Every (page, mode, chains) curve, in report order.
    fn curves(&self) -> Vec<(PageSize, Mode, usize)> {
        let mut v = Vec::new();
        for &p in &self.pages {
            for &m in &self.modes {
                for &c in &self.chains {
                    v.push((p, m, c));
                }
            }
        }
        v
    }
}

/// Runs the experiment; `progress(done, total)` after each measured size or cell. Ctrl-C stops
/// at the next curve or cell and returns what was measured. With `keep_going`, a failing curve
/// is a warning of the report and the first such failure is the outcome's `failed`. Every
/// figure takes the planned samples only; [`run_toward`] adds extras to the headline ones.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<LatencyReport>> {
    run_toward(topo, root, cfg, None, progress)
}

/// [`run`], the headline figures measured toward `goal`: each curve's largest point
/// of a sweep, every size of a list (the sizes asked for by name) and every matrix cell take
/// extra samples while their interval is wider than the goal's target, within its pool
/// (sizes measured in blocks, a sweep or a list with `in_blocks`, take extra blocks instead:
/// `latency::blocks`).
/// The other points of a sweep keep the planned count (tens of points: the budget goes to the
/// figures people quote). `numascope latency` passes a count-bounded goal at +-3 %, `run` one
/// at its budget's target with the part's pool.
pub fn run_toward(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    goal: Option<&PrecisionGoal>,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<LatencyReport>> {
    let clock = match &cfg.clock {
        Some(c) => c.clone(),
        None => ClockInfo::measure(root),
    };
    let mut report = LatencyReport {
        schema_version: LATENCY_SCHEMA_VERSION,
        clock: clock.clone(),
        plan: cfg.plan,
        results: Vec::new(),
        sweep: Vec::new(),
        knees: Vec::new(),
        matrix: None,
        warnings: Vec::new(),
        distribution: None,
        mlp: Vec::new(),
    };
    let ctx = Ctx {
        topo,
        root,
        cfg,
        clock: &clock,
        goal,
        progress,
    };
    let mut failed = match &cfg.variant {
        Variant::Sizes {
            at,
            sizes,
            in_blocks,
        } => {
            let how = if *in_blocks {
                Spread::Blocks
            } else {
                Spread::BackToBack
            };
            run_curves(&ctx, *at, sizes, how, &mut report)?
        }
        Variant::Sweep { at, sizes } => run_curves(&ctx, *at, sizes, Spread::Sweep, &mut report)?,
        Variant::Matrix { cells, cpus, size } => {
            run_matrix(&ctx, cells.as_ref(), cpus, *size, &mut report)?;
            None
        }
    };
    report.mlp = super::mlp::factors(
        report
            .results
            .iter()
            .chain(report.sweep.iter().flat_map(|c| c.points.iter())),
    );
    if let Some(e) = run_distribution(&ctx, &mut report)? {
        failed.get_or_insert(e);
    }
    Ok(Outcome { report, failed })
}

/// What every job of one latency experiment shares.
struct Ctx<'a> {
    topo: &'a Topology,
    root: &'a SysRoot,
    cfg: &'a Config,
    clock: &'a ClockInfo,
    goal: Option<&'a PrecisionGoal>,
    progress: &'a Progress<'a>,
}

impl Ctx<'_> {
    /// A job of this experiment on `target` with `spec`.
    fn job<'s>(&'s self, target: Target, spec: &'s ChainSpec) -> Job<'s> {
        Job {
            topo: self.topo,
            root: self.root,
            target,
            spec,
            plan: &self.cfg.plan,
            clock: self.clock,
        }
    }
}

/// The matrix variant: one matrix per page size over `cells` (all when `None`).
fn run_matrix(
    ctx: &Ctx<'_>,
    cells: Option<&Vec<(u32, u32)>>,
    cpus: &[u32],
    size: Option<u64>,
    report: &mut LatencyReport,
) -> anyhow::Result<()> {
    let (topo, cfg) = (ctx.topo, ctx.cfg);
    let mode = cfg.modes.first().copied().unwrap_or(Mode::Random);
    let spec = cfg.spec(mode, cfg.chains.first().copied().unwrap_or(1));
    for &page in &cfg.pages {
        let cells = match cells {
            Some(c) => c.clone(),
            None => all_cells(topo),
        };
        let size = match size {
            Some(s) => s,
            None => matrix::default_size(topo, &topo.memory_nodes(), page),
        };
        chase::check(&spec, size)?;
        let placed = place_cells(topo, cpus, &cells)?;
        let (m, w) = matrix::run_cells(&matrix::MatrixJob {
            topo,
            root: ctx.root,
            placed: &placed,
            size,
            page,
            spec: &spec,
            plan: &cfg.plan,
            clock: ctx.clock,
            goal: ctx.goal,
            progress: ctx.progress,
        })?;
        report.warnings.extend(w);
        report.matrix = Some(m);
    }
    Ok(())
}

/// The per-load distribution when asked for: at the first size of chosen sizes, at the
/// largest point of a sweep (its DRAM end, where `run` measures it). Returns the failure it
/// kept going past.
fn run_distribution(
    ctx: &Ctx<'_>,
    report: &mut LatencyReport,
) -> anyhow::Result<Option<anyhow::Error>> {
    let cfg = ctx.cfg;
    let dist_at = match &cfg.variant {
        Variant::Sizes { at, sizes, .. } => cfg
            .distribution_bytes
            .or(sizes.first().copied())
            .map(|s| (*at, s)),
        Variant::Sweep { at, sizes } => cfg
            .distribution_bytes
            .or(sizes.iter().max().copied())
            .map(|s| (*at, s)),
        Variant::Matrix { .. } => None,
    };
    let (Some(groups), Some((at, size))) = (cfg.distribution, dist_at) else {
        return Ok(None);
    };
    let (Some(&page), false) = (cfg.pages.first(), interrupted()) else {
        return Ok(None);
    };
    let target = Target {
        cpu: at.cpu,
        memory_node: at.mem_node,
        page,
    };
    let mode = cfg.modes.first().copied().unwrap_or(Mode::Random);
    let spec = cfg.spec(mode, 1);
    match run_distribution_job(&ctx.job(target, &spec), size, groups) {
        Ok(Some((d, w))) => {
            report.distribution = Some(d);
            report.warnings.extend(w);
            Ok(None)
        }
        Ok(None) => Ok(None),
        // As a failing curve: the run keeps the sweep and says why.
        Err(e) if cfg.keep_going => {
            report.warnings.push(format!(
                "the per-load distribution ({} pages, {} walk) failed: {e}",
                page.label(),
                mode.label()
            ));
            Ok(Some(anyhow::Error::new(e)))
        }
        Err(e) => Err(e.into()),
    }
}

/// Every initiator node with a usable CPU against every memory node.
fn all_cells(topo: &Topology) -> Vec<(u32, u32)> {
    let targets = topo.memory_nodes();
    matrix::initiators(topo, &[])
        .into_iter()
        .flat_map(|(n, _)| targets.iter().map(move |&t| (n, t)))
        .collect()
}

/// The cells with the CPU that measures each: the one `cpus` names for the initiator node,
/// else its first usable CPU.
fn place_cells(
    topo: &Topology,
    cpus: &[u32],
    cells: &[(u32, u32)],
) -> anyhow::Result<Vec<(u32, u32, u32)>> {
    cells
        .iter()
        .map(|&(i, t)| {
            let usable = topo.usable_cpus_of(i);
            let cpu = cpus
                .iter()
                .copied()
                .find(|c| usable.contains(c))
                .or_else(|| usable.first().copied())
                .with_context(|| format!("node {i} has no usable CPU"))?;
            Ok((i, cpu, t))
        })
        .collect()
}

/// The single-CPU variants: one job per curve, each over every size. Returns the first failure
/// it kept going past.
fn run_curves(
    ctx: &Ctx<'_>,
    at: Chaser,
    sizes: &[u64],
    how: Spread,
    report: &mut LatencyReport,
) -> anyhow::Result<Option<anyhow::Error>> {
    let sweep = how == Spread::Sweep;
    let (topo, cfg, goal, progress) = (ctx.topo, ctx.cfg, ctx.goal, ctx.progress);
    let curves = cfg.curves();
    let total = curves.len() * sizes.len();
    let mut failure = None;
    for (k, &(page, mode, chains)) in curves.iter().enumerate() {
        if interrupted() {
            break;
        }
        let target = Target {
            cpu: at.cpu,
            memory_node: at.mem_node,
            page,
        };
        let base = k * sizes.len();
        let spec = cfg.spec(mode, chains);
        let step = |d: usize, _: usize| progress(base + d, total);
        // A sweep's headline is its largest point; a list's sizes were each asked for. Each
        // curve gets an even share of the pool left for the curves still to measure.
        let mine = goal.map(|g| g.for_figure(curves.len() - k));
        let aim = mine.as_ref().map(|goal| Aim {
            goal,
            from: if sweep {
                sizes.len().saturating_sub(1)
            } else {
                0
            },
        });
        let out = match run_job(&ctx.job(target, &spec), sizes, aim, how, &step) {
            Ok(o) => o,
            Err(e) if cfg.keep_going => {
                // One curve failing (e.g. THP unavailable) must not lose the others.
                report.warnings.push(format!(
                    "the {} {} curve failed: {e}",
                    page.label(),
                    mode.label()
                ));
                failure.get_or_insert(anyhow::Error::new(e));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        report.warnings.extend(out.warnings);
        if sweep {
            report.knees.push(CurveKnees::of_sweep(
                mode,
                page,
                chains,
                &out.results,
                &topo.cache_sizes_for_cpu(at.cpu),
            ));
            report.sweep.push(SweepCurve {
                mode,
                page_size: page,
                chains,
                points: out.results,
            });
        } else {
            report.results.extend(out.results);
        }
    }
    if sweep {
        sweep_warning(report, at.cpu);
    }
    Ok(failure)
}

/// The one noise warning of a sweep's curves, measured on `cpu` ([`sweep_noise_warning`]).
fn sweep_warning(report: &mut LatencyReport, cpu: u32) {
    let node = report
        .sweep
        .iter()
        .flat_map(|c| &c.points)
        .find_map(|p| p.memory_node);
    let where_ = format!(
        "on CPU {cpu} (memory node {})",
        node.map_or("?".into(), |n| n.to_string())
    );
    report
        .warnings
        .extend(sweep_noise_warning(&report.sweep, &where_));
}
