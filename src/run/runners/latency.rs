//! The latency parts of a run: the working-set sweep (with the reference latency filled in
//! where it was measured under the same conditions) and the node x node matrix.

use anyhow::Context as _;

use crate::experiment::Progress as Step;
use crate::latency::{self, sweep};
use crate::results::latency::{LatencyReport, Mode};
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::results::{plan::Part, RunResults};
use crate::sysroot::SysRoot;

use super::super::plan::Settings;
use super::super::reference;
use super::{clock_of, measuring_cpu, note_filled, sample_plan, Ctx, SEED};

pub(super) fn latency_sweep(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let l = &s.latency;
    let at = latency::Chaser {
        cpu: measuring_cpu(s)?,
        mem_node: None,
    };
    let sizes = sweep::sizes(
        l.from_bytes,
        l.to_bytes,
        l.points_per_octave,
        topo.line_bytes(),
    );
    // The random 4k curve's point at the reference's size is the run's reference latency
    // (same CPU, local memory, size, page size and walk): it is not measured again.
    let ref_bytes = s.latency_matrix.size_bytes;
    let from_ref = reference::latency_ready(r, topo, s, at.cpu, ref_bytes)
        && sizes.contains(&ref_bytes)
        && l.modes.contains(&Mode::Random)
        && l.pages.contains(&PageSize::Base);
    let cfg = latency_config(
        topo,
        root,
        s,
        r,
        latency::Variant::Sweep {
            at,
            sizes: sizes.clone(),
        },
    );
    let goal = super::super::budget::precision_goal(&r.plan, Part::Latency);
    let out = if from_ref {
        sweep_without(topo, root, &cfg, ref_bytes, &goal, step)?
    } else {
        latency::experiment::run_toward(topo, root, &cfg, Some(&goal), step)?
    };
    let mut report = out.report;
    if let Some(earlier) = r.latency.take() {
        report.matrix = earlier.matrix;
        report.warnings.splice(0..0, earlier.warnings);
    }
    // One curve failing (e.g. THP unavailable) keeps the others; the part fails only when no
    // curve was measured.
    let none = report.sweep.is_empty();
    r.latency = Some(report);
    if from_ref && !none {
        note_filled(
            r,
            Part::Latency,
            reference_latency(),
            format!(
                "random 4k curve, {} point",
                crate::results::format::format_bytes(ref_bytes)
            ),
            None,
        );
    }
    match out.failed {
        Some(e) if none => Err(e),
        _ => Ok(()),
    }
}

/// The sweep of `cfg` with the random 4k curve measured at every size but `skip` (the
/// reference measures that one): the random 4k curve, the other modes on 4k pages and the
/// other page sizes run as separate jobs, and their curves come back in the order one sweep
/// gives them (pages, then modes).
fn sweep_without(
    topo: &Topology,
    root: &SysRoot,
    cfg: &latency::Config,
    skip: u64,
    goal: &crate::threads::precision::PrecisionGoal,
    step: &Step<'_>,
) -> anyhow::Result<crate::experiment::Outcome<LatencyReport>> {
    let latency::Variant::Sweep { at, sizes } = &cfg.variant else {
        anyhow::bail!("sweep_without needs a sweep");
    };
    let (at, sizes) = (*at, sizes.as_slice());
    let jobs = sweep_jobs(cfg, sizes, skip);
    let total: usize = jobs.iter().map(|j| j.0.len() * j.1.len() * j.2.len()).sum();
    let mut base = 0;
    let mut merged: Option<crate::experiment::Outcome<LatencyReport>> = None;
    for (modes, pages, sz) in jobs {
        if crate::sys::signal::interrupted() {
            break;
        }
        let n = modes.len() * pages.len() * sz.len();
        // The distribution belongs to the random 4k curve's largest point, which is the
        // skipped size: the first job measures it there, the others not at all.
        let first = base == 0;
        let job = latency::Config {
            modes,
            pages,
            variant: latency::Variant::Sweep { at, sizes: sz },
            distribution: cfg.distribution.filter(|_| first),
            distribution_bytes: Some(skip),
            ..cfg.clone()
        };
        let st = |d: usize, _t: usize| step(base + d, total);
        let out = latency::experiment::run_toward(topo, root, &job, Some(goal), &st)?;
        base += n;
        match merged.as_mut() {
            None => merged = Some(out),
            Some(m) => {
                m.report.sweep.extend(out.report.sweep);
                m.report.knees.extend(out.report.knees);
                m.report.results.extend(out.report.results);
                m.report.warnings.extend(out.report.warnings);
                m.report.mlp.extend(out.report.mlp);
                if m.failed.is_none() {
                    m.failed = out.failed;
                }
            }
        }
    }
    let mut out = merged.context("the sweep was interrupted before it began")?;
    let order = |mode: Mode, page: PageSize| {
        (
            cfg.pages.iter().position(|p| *p == page),
            cfg.modes.iter().position(|m| *m == mode),
        )
    };
    out.report
        .sweep
        .sort_by_key(|c| (order(c.mode, c.page_size), c.chains));
    out.report
        .knees
        .sort_by_key(|k| (order(k.mode, k.page_size), k.chains));
    Ok(out)
}

/// One job of a split sweep: its modes, page sizes and working-set sizes.
type SweepJob = (Vec<Mode>, Vec<PageSize>, Vec<u64>);

/// The jobs of a sweep over `sizes` without `skip`: the random 4k curve without it, then the
/// other modes on 4k pages and the other page sizes at every size (where there are any).
fn sweep_jobs(cfg: &latency::Config, sizes: &[u64], skip: u64) -> Vec<SweepJob> {
    let fewer: Vec<u64> = sizes.iter().copied().filter(|&x| x != skip).collect();
    let other_modes: Vec<Mode> = cfg
        .modes
        .iter()
        .copied()
        .filter(|m| *m != Mode::Random)
        .collect();
    let other_pages: Vec<PageSize> = cfg
        .pages
        .iter()
        .copied()
        .filter(|p| *p != PageSize::Base)
        .collect();
    let mut jobs: Vec<SweepJob> = vec![(vec![Mode::Random], vec![PageSize::Base], fewer)];
    if !other_modes.is_empty() {
        jobs.push((other_modes, vec![PageSize::Base], sizes.to_vec()));
    }
    if !other_pages.is_empty() {
        jobs.push((cfg.modes.clone(), other_pages, sizes.to_vec()));
    }
    jobs
}

pub(super) fn latency_matrix(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let m = &s.latency_matrix;
    // The home node's local cell is the run's reference latency (same CPU, size, 4k pages,
    // random walk): it is not measured again.
    let home = s.home_node;
    let from_ref = match (home, s.measuring_cpu) {
        (Some(h), Some(cpu)) => {
            m.cells.contains(&(h, h)) && reference::latency_ready(r, topo, s, cpu, m.size_bytes)
        }
        _ => false,
    };
    // It is still measured in the matrix's rounds when its row has other cells: their ratios
    // to it come from the paired rounds (the cell then shows the reference figure).
    let home_row_has_others = home.is_some_and(|h| m.cells.iter().any(|&(i, t)| i == h && t != h));
    let cells: Vec<(u32, u32)> = m
        .cells
        .iter()
        .copied()
        .filter(|&cell| !(from_ref && !home_row_has_others && Some(cell) == home.map(|h| (h, h))))
        .collect();
    let measured = if cells.is_empty() {
        LatencyReport {
            schema_version: crate::results::latency::LATENCY_SCHEMA_VERSION,
            clock: clock_of(r, root),
            plan: sample_plan(s),
            results: vec![],
            sweep: vec![],
            knees: vec![],
            matrix: Some(crate::results::latency::Matrix {
                working_set_bytes: m.size_bytes,
                mode: Mode::Random,
                page_size: PageSize::Base,
                cells: vec![],
            }),
            warnings: vec![],
            distribution: None,
            mlp: vec![],
        }
    } else {
        let variant = latency::Variant::Matrix {
            cells: Some(cells),
            cpus: vec![],
            size: Some(m.size_bytes),
        };
        let mut cfg = latency_config(topo, root, s, r, variant);
        cfg.modes = vec![Mode::Random];
        cfg.pages = vec![PageSize::Base];
        let goal = super::super::budget::precision_goal(&r.plan, Part::LatencyMatrix);
        latency::experiment::run_toward(topo, root, &cfg, Some(&goal), step)?.report
    };
    let mut report = r.latency.take().unwrap_or_else(|| LatencyReport {
        matrix: None,
        warnings: vec![],
        ..measured.clone()
    });
    report.warnings.extend(measured.warnings);
    report.matrix = measured.matrix;
    r.latency = Some(report);
    if let (true, Some(h)) = (from_ref, home) {
        note_filled(
            r,
            Part::LatencyMatrix,
            reference_latency(),
            format!("matrix cell {h} -> {h}"),
            None,
        );
    }
    Ok(())
}

/// The latency settings every latency part shares: one chain, cache-line elements, the run's
/// seed and sample plan, the clock measured at the start of the run.
fn latency_config(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    variant: crate::latency::Variant,
) -> crate::latency::Config {
    let l = &s.latency;
    crate::latency::Config {
        variant,
        modes: l.modes.clone(),
        pages: l.pages.clone(),
        chains: vec![1],
        element_bytes: topo.line_bytes(),
        group_bytes: 0,
        seed: SEED,
        plan: sample_plan(s),
        clock: Some(clock_of(r, root)),
        keep_going: true,
        // Only the sweep measures it (at its largest point); the matrix variant has none.
        distribution: s.latency.distribution_groups,
        distribution_bytes: None,
    }
}

fn reference_latency() -> crate::results::reference::ReferenceFigure {
    crate::results::reference::ReferenceFigure::Latency
}
