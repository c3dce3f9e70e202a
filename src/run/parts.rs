//! The runners of the run's parts: each turns the plan's typed settings into the
//! experiment's `Config` and calls its one entry point (`latency::run`, `bandwidth::run`,
//! `loaded::run`, `c2c::run`, the scenarios and the advisor), then files the report into the
//! [`RunResults`]. The per-part rules (what a failing curve or cell means for the part) live
//! here; measuring does not.

use std::time::Duration;

use anyhow::Context as _;

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::isa::Isa;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::bandwidth::plan::MemPlacement;
use crate::bandwidth::result::BandwidthReport;
use crate::bandwidth::{self, RunSettings, WorkingSet};
use crate::c2c::{self, BouncePlan};
use crate::clock::ClockInfo;
use crate::experiment::Progress as Step;
use crate::latency::{self, chase::Mode, measure::SamplePlan, result::LatencyReport, sweep};
use crate::loaded::sizes::default_sizes;
use crate::loaded::{self, LoadKernel, LoadedConfig, LoadedReport};
use crate::placement::PageSize;
use crate::results::{Part, RunResults};
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::advisor::run_advisor;
use super::plan::{Settings, TimedSettings};
use super::reference;
use super::scenarios::{home_node, run_scenarios, running_as_root, ScenarioInputs};

/// Seed of every chase of a run, so runs compare.
pub(super) const SEED: u64 = 0x6e75_6d61_7363_6f70;

/// What every part runner reads: the machine, the plan's settings and the progress sink.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    topo: &'a Topology,
    root: &'a SysRoot,
    s: &'a Settings,
    step: &'a Step<'a>,
}

/// Runs one part into `r`; `step(done, total)` reports its progress.
pub(super) fn run_part(
    part: Part,
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &Step<'_>,
) -> anyhow::Result<()> {
    let c = Ctx {
        topo,
        root,
        s,
        step,
    };
    match part {
        Part::Topology => {
            r.clock = Some(ClockInfo::measure(root));
            Ok(())
        }
        Part::Latency => latency_sweep(&c, r),
        Part::LatencyMatrix => latency_matrix(&c, r),
        Part::Bandwidth => bandwidth(&c, r),
        Part::BandwidthMatrix => bandwidth_matrix(&c, r),
        Part::Scaling => scaling(&c, r),
        Part::LoadedLatency => loaded_latency(&c, r),
        Part::C2c => core_to_core(&c, r),
        Part::Scenarios => {
            let clock = clock_of(r, root);
            let inp = ScenarioInputs {
                settings: &s.scenarios,
                latency_plan: sample_plan(s),
                timer_resolution_ns: clock.resolution_ns,
                is_root: running_as_root(),
            };
            let table = run_scenarios(topo, root, &inp, step)?;
            // The table has no warnings of its own: a disturbed row is the run's warning.
            r.warnings.extend(
                table
                    .scenarios
                    .iter()
                    .filter_map(|row| row.disturbed_warning()),
            );
            r.scenarios = Some(table);
            Ok(())
        }
        Part::Advisor => {
            let advice = run_advisor(topo, root, &s.scenarios, running_as_root(), &step)?;
            r.warnings
                .extend(advice.checks.iter().filter_map(|c| c.disturbed_warning()));
            r.advisor = Some(advice);
            Ok(())
        }
        Part::Rightmark => super::rightmark::run_part(topo, root, s, r, step),
        Part::StreamMatrix => super::rightmark::run_stream_part(topo, root, s, r, step),
        Part::Peak => peak(&c, r),
    }
}

fn clock_of(r: &mut RunResults, root: &SysRoot) -> ClockInfo {
    r.clock
        .get_or_insert_with(|| ClockInfo::measure(root))
        .clone()
}

fn sample_plan(s: &Settings) -> SamplePlan {
    SamplePlan {
        samples: s.latency.samples,
        warmup: s.latency.warmup,
        min_sample_ns: s.latency.min_sample_ns,
    }
}

/// The CPU that measures single-thread latency: the first usable CPU of the home node.
fn measuring_cpu(topo: &Topology) -> anyhow::Result<u32> {
    home_node(topo)
        .and_then(|h| topo.usable_cpus_of(h).first().copied())
        .or_else(|| topo.usable_cpus().first().copied())
        .context("no usable CPU")
}

/// The latency settings every latency part shares: one chain, cache-line elements, the run's
/// seed and sample plan, the clock measured at the start of the run.
fn latency_config(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    variant: latency::Variant,
) -> latency::Config {
    let l = &s.latency;
    latency::Config {
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

fn latency_sweep(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let l = &s.latency;
    let at = latency::Chaser {
        cpu: measuring_cpu(topo)?,
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
    let goal = super::budget::precision_goal(&r.plan, Part::Latency);
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
                crate::parse::size::format_bytes(ref_bytes)
            ),
            None,
        );
    }
    match out.failed {
        Some(e) if none => Err(e),
        _ => Ok(()),
    }
}

fn reference_latency() -> crate::results::reference::ReferenceFigure {
    crate::results::reference::ReferenceFigure::Latency
}

fn reference_bandwidth() -> crate::results::reference::ReferenceFigure {
    crate::results::reference::ReferenceFigure::Bandwidth
}

/// Records that `part` shows a reference figure at `place` (once).
fn note_filled(
    r: &mut RunResults,
    part: Part,
    figure: crate::results::reference::ReferenceFigure,
    place: String,
    result_index: Option<usize>,
) {
    if let Some(f) = r.reference.as_mut() {
        if !f.filled.iter().any(|p| p.part == part && p.place == place) {
            f.filled.push(crate::results::reference::FilledPlace {
                part,
                figure,
                place,
                source: "reference".into(),
                result_index,
            });
        }
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
    goal: &crate::results::quality::PrecisionGoal,
    step: &Step<'_>,
) -> anyhow::Result<crate::experiment::Outcome<LatencyReport>> {
    let latency::Variant::Sweep { at, sizes } = &cfg.variant else {
        anyhow::bail!("sweep_without needs a sweep");
    };
    let (at, sizes) = (*at, sizes.as_slice());
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
    let mut jobs: Vec<(Vec<Mode>, Vec<PageSize>, Vec<u64>)> =
        vec![(vec![Mode::Random], vec![PageSize::Base], fewer)];
    if !other_modes.is_empty() {
        jobs.push((other_modes, vec![PageSize::Base], sizes.to_vec()));
    }
    if !other_pages.is_empty() {
        jobs.push((cfg.modes.clone(), other_pages, sizes.to_vec()));
    }
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

fn latency_matrix(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let m = &s.latency_matrix;
    // The home node's local cell is the run's reference latency (same CPU, size, 4k pages,
    // random walk): it is not measured again.
    let home = home_node(topo);
    let from_ref = match (home, measuring_cpu(topo)) {
        (Some(h), Ok(cpu)) => {
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
        let goal = super::budget::precision_goal(&r.plan, Part::LatencyMatrix);
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

/// The run's bandwidth settings: 4 KiB pages, one warm-up, each stream's arrays together
/// `bytes_per_thread` per usable CPU whatever the thread count.
fn bw_config(
    topo: &Topology,
    s: &Settings,
    kernels: Vec<Kernel>,
    variant: bandwidth::Variant,
    timed: &TimedSettings,
) -> bandwidth::Config {
    bandwidth::Config {
        kernels,
        variant,
        placement: MemPlacement::Local,
        settings: RunSettings {
            page: PageSize::Base,
            duration: Duration::from_millis(timed.duration_ms),
            repetitions: timed.repetitions,
            warmup: 1,
            params: Params::default(),
            size: WorkingSet::PerStream(
                s.bandwidth.bytes_per_thread * topo.usable_cpus().len() as u64,
            ),
        },
        keep_going: true,
    }
}

fn kernel(id: KernelId) -> anyhow::Result<Kernel> {
    Ok(Kernel::new(id, Isa::best())?)
}

/// Appends `more` to `into`, moving the result indices of its matrices and curves past the
/// results `into` already holds.
fn append(into: &mut BandwidthReport, mut more: BandwidthReport) {
    let base = into.results.len();
    for m in &mut more.matrix {
        for c in &mut m.cells {
            c.result_index += base;
        }
    }
    for sc in &mut more.scaling {
        for p in sc.series.iter_mut().flat_map(|x| x.points.iter_mut()) {
            p.result_index += base;
        }
    }
    into.results.append(&mut more.results);
    into.matrix.append(&mut more.matrix);
    into.scaling.append(&mut more.scaling);
    if more.peak.is_some() {
        into.peak = more.peak;
    }
    into.warnings.append(&mut more.warnings);
}

/// Runs a bandwidth part and adds its report to `slot`, its headline figures toward `goal`;
/// the part fails with the first cell that failed, keeping the others.
fn bw_part(
    topo: &Topology,
    root: &SysRoot,
    cfg: &bandwidth::Config,
    goal: Option<&crate::results::quality::PrecisionGoal>,
    slot: &mut Option<BandwidthReport>,
    step: &Step<'_>,
) -> anyhow::Result<()> {
    let out = bandwidth::experiment::run_toward(topo, root, cfg, goal, step)?;
    match slot {
        Some(r) => append(r, out.report),
        None => *slot = Some(out.report),
    }
    out.failed.map_or(Ok(()), Err)
}

fn bandwidth(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    // When every usable CPU is the home node's, the read kernel here is the run's reference
    // bandwidth (same CPUs, local memory, size per thread): it is not measured again.
    let all = topo.usable_cpus();
    let from_ref = home_node(topo).is_some_and(|h| topo.usable_cpus_of(h) == all)
        && s.bandwidth.kernels.contains(&KernelId::Read)
        && reference::bandwidth_ready(
            r,
            topo,
            s,
            &all,
            reference::bytes_per_thread(topo, s, all.len()),
        );
    // A kernel this CPU cannot run (non-temporal stores off x86) fails alone.
    let mut kernels = Vec::new();
    let mut unbuilt = None;
    for &id in &s.bandwidth.kernels {
        if from_ref && id == KernelId::Read {
            continue;
        }
        match kernel(id) {
            Ok(k) => kernels.push(k),
            Err(e) => {
                unbuilt.get_or_insert(e.context(format!("kernel {}", id.descriptor().name)));
            }
        }
    }
    let was_empty = r.bandwidth.is_none();
    let measured = if kernels.is_empty() {
        Ok(())
    } else {
        let variant = bandwidth::Variant::Kernels { cpus: all };
        let cfg = bw_config(topo, s, kernels, variant, &s.bandwidth.timed);
        let goal = super::budget::precision_goal(&r.plan, Part::Bandwidth);
        bw_part(topo, root, &cfg, Some(&goal), &mut r.bandwidth, step)
    };
    if from_ref {
        if let Some(placeholder) = reference::Reference::placeholder(r) {
            let report = r
                .bandwidth
                .get_or_insert_with(|| bandwidth::experiment::empty_report(topo));
            // First, where the read kernel's result stands in a bandwidth part of its own.
            let at = if was_empty { 0 } else { report.results.len() };
            report.results.insert(at, placeholder);
            if was_empty {
                shift_indices(report, 1);
            }
            note_filled(
                r,
                Part::Bandwidth,
                reference_bandwidth(),
                "kernel read on every usable CPU".into(),
                Some(at),
            );
        }
    }
    measured.and(unbuilt.map_or(Ok(()), Err))
}

/// Moves every matrix cell's and scaling point's result index by `by` (a result was put in
/// front of them).
fn shift_indices(report: &mut BandwidthReport, by: usize) {
    for c in report.matrix.iter_mut().flat_map(|m| m.cells.iter_mut()) {
        c.result_index += by;
    }
    for p in report
        .scaling
        .iter_mut()
        .flat_map(|s| s.series.iter_mut())
        .flat_map(|x| x.points.iter_mut())
    {
        p.result_index += by;
    }
}

/// Peak injection bandwidth per mix on the home node, its package and its L3 domains, at the
/// plan's fixed timing, into the run's `peak` slot.
fn peak(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let req = super::plan::peak_request(topo)
        .context("no node has usable CPUs, so the peak part has nothing to run")?;
    let timed = TimedSettings {
        duration_ms: super::plan::PEAK_DURATION_MS,
        repetitions: super::plan::PEAK_REPETITIONS,
    };
    let kernels = vec![kernel(KernelId::Read)?];
    let cfg = bw_config(topo, s, kernels, bandwidth::Variant::Peak(req), &timed);
    bw_part(topo, root, &cfg, None, &mut r.peak, step)
}

fn bandwidth_matrix(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    // The home node's local cell (all its CPUs reading local memory, the read kernel) is the
    // run's reference bandwidth: it is not measured again.
    let home = home_node(topo);
    let from_ref = home.is_some_and(|h| {
        s.bandwidth_matrix.cells.contains(&(h, h))
            && reference::bandwidth_ready(
                r,
                topo,
                s,
                &topo.usable_cpus_of(h),
                reference::bytes_per_thread(topo, s, topo.usable_cpus_of(h).len()),
            )
    });
    let cells: Vec<(u32, u32)> = s
        .bandwidth_matrix
        .cells
        .iter()
        .copied()
        .filter(|&cell| !(from_ref && Some(cell) == home.map(|h| (h, h))))
        .collect();
    let measured = if cells.is_empty() {
        Ok(())
    } else {
        let variant = bandwidth::Variant::Matrix {
            cells: Some(cells),
            threads: None,
        };
        let kernels = vec![kernel(KernelId::Read)?];
        let cfg = bw_config(topo, s, kernels, variant, &s.bandwidth.timed);
        let before = r.bandwidth.as_ref().map_or(0, |b| b.matrix.len());
        let goal = super::budget::precision_goal(&r.plan, Part::BandwidthMatrix);
        let out = bw_part(topo, root, &cfg, Some(&goal), &mut r.bandwidth, step);
        // The engine's matrix is the last one now; the reference cell goes into it.
        if r.bandwidth.as_ref().map_or(0, |b| b.matrix.len()) == before && from_ref {
            push_read_matrix(topo, r);
        }
        out
    };
    if let (true, Some(h)) = (from_ref, home) {
        if cells_is_empty_matrix(r) {
            push_read_matrix(topo, r);
        }
        if let Some(placeholder) = reference::Reference::placeholder(r) {
            // The bandwidth part's local read, when it shows the reference, is this cell's
            // figure too: one result for both places.
            let shared = r.reference.as_ref().and_then(|f| {
                f.filled
                    .iter()
                    .find(|p| p.part == Part::Bandwidth)
                    .and_then(|p| p.result_index)
            });
            let report = r
                .bandwidth
                .get_or_insert_with(|| bandwidth::experiment::empty_report(topo));
            let shared = shared.filter(|&i| i < report.results.len());
            let at = shared.unwrap_or(report.results.len());
            let hmat = topo.hmat_for(h, h);
            let cell = crate::results::bandwidth::MatrixCell {
                initiator: h,
                target: h,
                threads: placeholder.threads,
                mb_per_s: placeholder.mb_per_s.median,
                dram_mb_per_s_estimate: placeholder.dram_mb_per_s_estimate.median,
                placement_fraction: placeholder.placement_fraction,
                hmat_read_mb_per_s: hmat.and_then(|x| x.read_bandwidth_mb_s),
                hmat_write_mb_per_s: hmat.and_then(|x| x.write_bandwidth_mb_s),
                result_index: at,
            };
            if shared.is_none() {
                report.results.push(placeholder);
            }
            if let Some(m) = report.matrix.last_mut() {
                let pos = m
                    .cells
                    .iter()
                    .position(|c| (c.initiator, c.target) > (h, h))
                    .unwrap_or(m.cells.len());
                m.cells.insert(pos, cell);
            }
            note_filled(
                r,
                Part::BandwidthMatrix,
                reference_bandwidth(),
                format!("matrix cell {h} -> {h}"),
                Some(at),
            );
        }
    }
    measured
}

/// Whether the bandwidth report has no matrix yet (the part measured no cell itself).
fn cells_is_empty_matrix(r: &RunResults) -> bool {
    r.bandwidth.as_ref().is_none_or(|b| b.matrix.is_empty())
}

/// Adds an empty read matrix over the machine's nodes to the run's bandwidth report.
fn push_read_matrix(topo: &Topology, r: &mut RunResults) {
    let report = r
        .bandwidth
        .get_or_insert_with(|| bandwidth::experiment::empty_report(topo));
    report.matrix.push(crate::results::bandwidth::Matrix {
        kernel: KernelId::Read.descriptor().name.to_string(),
        initiators: topo.initiator_nodes(),
        targets: topo.memory_nodes(),
        cells: vec![],
    });
}

fn scaling(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let kernels = vec![kernel(KernelId::Read)?];
    r.scaling = None;
    // The home node's full point (all its CPUs) is the run's reference bandwidth: it is not
    // measured again; the home node's other points and the other nodes run as two jobs.
    let home = home_node(topo).filter(|h| s.scaling.nodes.contains(h));
    let full = home.map(|h| topo.usable_cpus_of(h));
    let from_ref = match (&home, &full) {
        (Some(_), Some(cpus)) => {
            s.scaling.thread_counts.contains(&cpus.len())
                && reference::bandwidth_ready(
                    r,
                    topo,
                    s,
                    cpus,
                    reference::bytes_per_thread(topo, s, cpus.len()),
                )
        }
        _ => false,
    };
    let Some(h) = home.filter(|_| from_ref) else {
        let variant = bandwidth::Variant::Scaling {
            nodes: s.scaling.nodes.clone(),
            thread_counts: Some(s.scaling.thread_counts.clone()),
            machine_wide: false,
        };
        let cfg = bw_config(topo, s, kernels, variant, &s.scaling.timed);
        let goal = super::budget::precision_goal(&r.plan, Part::Scaling);
        return bw_part(topo, root, &cfg, Some(&goal), &mut r.scaling, step);
    };
    let full = full.unwrap_or_default();
    let counts: Vec<usize> = s
        .scaling
        .thread_counts
        .iter()
        .copied()
        .filter(|&t| t != full.len())
        .collect();
    let others: Vec<u32> = s
        .scaling
        .nodes
        .iter()
        .copied()
        .filter(|&n| n != h)
        .collect();
    let mut result = Ok(());
    let goal = super::budget::precision_goal(&r.plan, Part::Scaling);
    for (nodes, counts) in [(vec![h], counts), (others, s.scaling.thread_counts.clone())] {
        if nodes.is_empty() || counts.is_empty() || crate::sys::signal::interrupted() {
            continue;
        }
        let variant = bandwidth::Variant::Scaling {
            nodes,
            thread_counts: Some(counts),
            machine_wide: false,
        };
        let cfg = bw_config(topo, s, kernels.clone(), variant, &s.scaling.timed);
        let out = bw_part(topo, root, &cfg, Some(&goal), &mut r.scaling, step);
        if result.is_ok() {
            result = out;
        }
    }
    let Some(placeholder) = reference::Reference::placeholder(r) else {
        return result;
    };
    let report = r
        .scaling
        .get_or_insert_with(|| bandwidth::experiment::empty_report(topo));
    // One scaling entry for the read kernel: the second job's series join the first's.
    if report.scaling.len() > 1 {
        let rest: Vec<_> = report.scaling.drain(1..).collect();
        for sc in rest {
            report.scaling[0].series.extend(sc.series);
        }
    }
    if report.scaling.is_empty() {
        report.scaling.push(crate::results::bandwidth::Scaling {
            kernel: KernelId::Read.descriptor().name.to_string(),
            series: vec![],
        });
    }
    let at = report.results.len();
    let sc = &mut report.scaling[0];
    let series = match sc.series.iter().position(|x| x.node == Some(h)) {
        Some(i) => &mut sc.series[i],
        None => {
            sc.series.insert(
                0,
                crate::results::bandwidth::ScalingSeries {
                    mode: "packed".into(),
                    node: Some(h),
                    points: vec![],
                    knee_threads: None,
                },
            );
            &mut sc.series[0]
        }
    };
    series.points.push(crate::results::bandwidth::ScalingPoint {
        threads: placeholder.threads,
        cpus: placeholder.cpus.clone(),
        mb_per_s: placeholder.mb_per_s.median,
        mb_per_s_max: placeholder.mb_per_s.max,
        result_index: at,
    });
    series.points.sort_by_key(|p| p.threads);
    report.results.push(placeholder);
    note_filled(
        r,
        Part::Scaling,
        reference_bandwidth(),
        format!("node {h}, {} threads", full.len()),
        Some(at),
    );
    result
}

/// Loaded latency: the chaser on the measuring CPU, every other usable CPU loading, both
/// buffers on the home node.
fn loaded_latency(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let home = home_node(topo).context("no memory node is allowed to this process")?;
    let chaser = measuring_cpu(topo)?;
    let load_cpus: Vec<u32> = topo
        .usable_cpus()
        .into_iter()
        .filter(|c| *c != chaser)
        .collect();
    anyhow::ensure!(
        !load_cpus.is_empty(),
        "loaded latency needs a second usable CPU for the load threads"
    );
    let (chaser_bytes, load_bytes_per_thread) =
        default_sizes(topo, home, home, load_cpus.len(), PageSize::Base);
    let cfg = LoadedConfig {
        chaser_cpu: chaser,
        load_cpus,
        mem_node: home,
        load_mem_node: home,
        kernel: s.loaded.mixes.first().copied().unwrap_or(LoadKernel::Read),
        points: s.loaded.delays,
        // The run's reference working set: the no-load point is then the same
        // quantity as the reference's local idle latency and is judged against it.
        chaser_bytes: chaser_bytes.min(s.latency_matrix.size_bytes.max(1 << 20)),
        load_bytes_per_thread,
        page: PageSize::Base,
        duration: Duration::from_millis(s.loaded.timed.duration_ms),
        seed: SEED,
    };
    let base = cfg.clone();
    // Several mixes: one team measures them interleaved, the read curve (the first) kept
    // where a single curve always was, the others beside it.
    let cfg = match s.loaded.mixes.as_slice() {
        [] | [_] => loaded::Config::Curve(cfg),
        mixes => loaded::Config::Family {
            curve: cfg,
            kernels: mixes.to_vec(),
        },
    };
    let mut curves = match loaded::run(topo, root, &cfg, step)?.report {
        LoadedReport::Curve(curve) => vec![*curve],
        LoadedReport::Family(f) => f.curves,
        LoadedReport::Matrix(_) => anyhow::bail!("loaded latency returned a matrix for one curve"),
    }
    .into_iter();
    r.loaded_latency = curves.next();
    r.loaded_latency_mixes = curves.collect();
    // The same curve on each other kind of memory (CXL, HBM, ...), where there is one.
    super::tier_curves::measure(topo, root, &base, r);
    Ok(())
}

/// Core to core over the plan's CPUs, the line on the home node.
fn core_to_core(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let home = home_node(topo).context("no memory node is allowed to this process")?;
    let cfg = c2c::Config {
        cpus: s.c2c.cpus.clone(),
        line_node: home,
        plan: BouncePlan {
            round_trips_per_sample: 200,
            repetitions: s.c2c.repetitions,
            repetition: Duration::from_millis(s.c2c.repetition_ms),
        },
    };
    r.c2c = Some(c2c::run(topo, root, &cfg, step)?.report);
    Ok(())
}
