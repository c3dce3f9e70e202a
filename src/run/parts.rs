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
use super::scenarios::{home_node, run_scenarios, running_as_root, ScenarioInputs};

/// Seed of every chase of a run, so runs compare.
const SEED: u64 = 0x6e75_6d61_7363_6f70;

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
    let cfg = latency_config(topo, root, s, r, latency::Variant::Sweep { at, sizes });
    let goal = super::budget::precision_goal(&r.plan, Part::Latency);
    let out = latency::experiment::run_toward(topo, root, &cfg, Some(&goal), step)?;
    let mut report = out.report;
    if let Some(earlier) = r.latency.take() {
        report.matrix = earlier.matrix;
        report.warnings.splice(0..0, earlier.warnings);
    }
    // One curve failing (e.g. THP unavailable) keeps the others; the part fails only when no
    // curve was measured.
    let none = report.sweep.is_empty();
    r.latency = Some(report);
    match out.failed {
        Some(e) if none => Err(e),
        _ => Ok(()),
    }
}

fn latency_matrix(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let m = &s.latency_matrix;
    let variant = latency::Variant::Matrix {
        cells: Some(m.cells.clone()),
        cpus: vec![],
        size: Some(m.size_bytes),
    };
    let mut cfg = latency_config(topo, root, s, r, variant);
    cfg.modes = vec![Mode::Random];
    cfg.pages = vec![PageSize::Base];
    let goal = super::budget::precision_goal(&r.plan, Part::LatencyMatrix);
    let measured = latency::experiment::run_toward(topo, root, &cfg, Some(&goal), step)?.report;
    let mut report = r.latency.take().unwrap_or_else(|| LatencyReport {
        matrix: None,
        warnings: vec![],
        ..measured.clone()
    });
    report.warnings.extend(measured.warnings);
    report.matrix = measured.matrix;
    r.latency = Some(report);
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
    // A kernel this CPU cannot run (non-temporal stores off x86) fails alone.
    let mut kernels = Vec::new();
    let mut unbuilt = None;
    for &id in &s.bandwidth.kernels {
        match kernel(id) {
            Ok(k) => kernels.push(k),
            Err(e) => {
                unbuilt.get_or_insert(e.context(format!("kernel {}", id.descriptor().name)));
            }
        }
    }
    let variant = bandwidth::Variant::Kernels {
        cpus: topo.usable_cpus(),
    };
    let cfg = bw_config(topo, s, kernels, variant, &s.bandwidth.timed);
    let goal = super::budget::precision_goal(&r.plan, Part::Bandwidth);
    let measured = bw_part(topo, root, &cfg, Some(&goal), &mut r.bandwidth, step);
    unbuilt.map_or(measured, Err)
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
    let variant = bandwidth::Variant::Matrix {
        cells: Some(s.bandwidth_matrix.cells.clone()),
        threads: None,
    };
    let kernels = vec![kernel(KernelId::Read)?];
    let cfg = bw_config(topo, s, kernels, variant, &s.bandwidth.timed);
    let goal = super::budget::precision_goal(&r.plan, Part::BandwidthMatrix);
    bw_part(topo, root, &cfg, Some(&goal), &mut r.bandwidth, step)
}

fn scaling(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let variant = bandwidth::Variant::Scaling {
        nodes: s.scaling.nodes.clone(),
        thread_counts: Some(s.scaling.thread_counts.clone()),
        machine_wide: false,
    };
    let kernels = vec![kernel(KernelId::Read)?];
    let cfg = bw_config(topo, s, kernels, variant, &s.scaling.timed);
    r.scaling = None;
    let goal = super::budget::precision_goal(&r.plan, Part::Scaling);
    bw_part(topo, root, &cfg, Some(&goal), &mut r.scaling, step)
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
        chaser_bytes: chaser_bytes.min(s.latency.to_bytes.max(1 << 20)),
        load_bytes_per_thread,
        page: PageSize::Base,
        duration: Duration::from_millis(s.loaded.timed.duration_ms),
        seed: SEED,
    };
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
