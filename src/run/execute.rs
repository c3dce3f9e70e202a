//! Runs a plan: each planned part in order, through the engines, into one [`RunResults`].
//! After every part the caller's `checkpoint` gets the results so far (the output writer saves
//! `results.json` then, so a later failure or Ctrl-C loses nothing). A part that fails is
//! recorded with its error and the run goes on; Ctrl-C (the SIGINT flag of `sys::signal`)
//! stops at the next check (between sweep curves, matrix cells, scenario rows, kernel calls)
//! and the run ends marked `partial`. Progress goes to a [`Progress`] sink; nothing here prints.

use std::time::{Duration, Instant};

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
use crate::results::{Part, PartError, PartTiming, RunResults, RESULTS_SCHEMA_VERSION};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::advisor::run_advisor;
use super::findings;
use super::plan::{Planned, Settings, TimedSettings};
use super::scenarios::{home_node, run_scenarios, running_as_root, ScenarioInputs};

/// The parts this build can execute.
pub const BUILT: &[Part] = &[
    Part::Topology,
    Part::Latency,
    Part::LatencyMatrix,
    Part::LoadedLatency,
    Part::Bandwidth,
    Part::BandwidthMatrix,
    Part::Scaling,
    Part::C2c,
    Part::Scenarios,
    Part::Advisor,
];

/// Where progress goes (a terminal bar, or nowhere).
pub trait Progress: Sync {
    /// A part starts.
    fn start(&self, part: Part, estimate_s: f64);
    /// `done` of `total` steps of the current part are finished.
    fn step(&self, done: usize, total: usize);
    /// The current part ended.
    fn finish(&self);
}

/// Progress that goes nowhere.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: Part, _: f64) {}
    fn step(&self, _: usize, _: usize) {}
    fn finish(&self) {}
}

/// Fixed facts of the run, known before it starts.
pub struct RunHeader {
    pub started_at: String,
    pub host: String,
}

/// Seed of every chase of a run, so runs compare.
const SEED: u64 = 0x6e75_6d61_7363_6f70;

/// Executes `planned` on the machine. `checkpoint` is called after every part with the results
/// so far; its error stops the run (the output cannot be written).
pub fn execute(
    topo: &Topology,
    root: &SysRoot,
    planned: &Planned,
    header: RunHeader,
    progress: &dyn Progress,
    checkpoint: &mut dyn FnMut(&RunResults) -> anyhow::Result<()>,
) -> anyhow::Result<RunResults> {
    let t0 = Instant::now();
    let mut r = RunResults {
        schema_version: RESULTS_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        started_at: header.started_at,
        host: header.host,
        duration_s: 0.0,
        partial: false,
        plan: planned.plan.clone(),
        completed: vec![],
        failed: vec![],
        timings: vec![],
        topology: topo.clone(),
        clock: None,
        latency: None,
        bandwidth: None,
        scaling: None,
        loaded_latency: None,
        c2c: None,
        scenarios: None,
        advisor: None,
        findings: vec![],
        warnings: vec![],
    };
    let s = &planned.settings;
    let parts: Vec<(Part, f64)> = planned
        .plan
        .parts
        .iter()
        .map(|p| (p.part, p.estimate_s))
        .collect();
    for (k, &(part, est)) in parts.iter().enumerate() {
        if interrupted() {
            let rest: Vec<&str> = parts[k..].iter().map(|p| p.0.name()).collect();
            r.warnings.push(format!(
                "the run was interrupted (Ctrl-C); parts not run: {}",
                rest.join(", ")
            ));
            r.partial = true;
            break;
        }
        progress.start(part, est);
        let started = Instant::now();
        let outcome = run_part(part, topo, root, s, &mut r, progress);
        r.timings.push(PartTiming {
            part,
            seconds: started.elapsed().as_secs_f64(),
        });
        progress.finish();
        match outcome {
            Ok(()) if interrupted() => {
                r.partial = true;
                r.warnings.push(format!(
                    "{part} was interrupted (Ctrl-C): its figures are incomplete"
                ));
                r.failed.push(PartError {
                    part,
                    error: "interrupted (Ctrl-C)".into(),
                });
            }
            Ok(()) => r.completed.push(part),
            Err(e) => {
                r.partial = true;
                r.failed.push(PartError {
                    part,
                    error: crate::cli::one_sentence(&e),
                });
            }
        }
        r.duration_s = t0.elapsed().as_secs_f64();
        r.findings = findings::derive(&r);
        checkpoint(&r)?;
    }
    if interrupted() && !r.partial {
        r.partial = true;
    }
    r.duration_s = t0.elapsed().as_secs_f64();
    r.findings = findings::derive(&r);
    Ok(r)
}

fn run_part(
    part: Part,
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let step = |d: usize, t: usize| progress.step(d, t);
    match part {
        Part::Topology => {
            r.clock = Some(ClockInfo::measure(root));
            Ok(())
        }
        Part::Latency => latency_sweep(topo, root, s, r, &step),
        Part::LatencyMatrix => latency_matrix(topo, root, s, r, &step),
        Part::Bandwidth => bandwidth(topo, root, s, r, &step),
        Part::BandwidthMatrix => bandwidth_matrix(topo, root, s, r, &step),
        Part::Scaling => scaling(topo, root, s, r, &step),
        Part::LoadedLatency => {
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
                kernel: LoadKernel::Read,
                points: s.loaded.delays,
                chaser_bytes: chaser_bytes.min(s.latency.to_bytes.max(1 << 20)),
                load_bytes_per_thread,
                page: PageSize::Base,
                duration: Duration::from_millis(s.loaded.timed.duration_ms),
                seed: SEED,
            };
            let cfg = loaded::Config::Curve(cfg);
            let LoadedReport::Curve(curve) = loaded::run(topo, root, &cfg, &step)?.report else {
                anyhow::bail!("loaded latency returned a matrix for one curve");
            };
            r.loaded_latency = Some(*curve);
            Ok(())
        }
        Part::C2c => {
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
            r.c2c = Some(c2c::run(topo, root, &cfg, &step)?.report);
            Ok(())
        }
        Part::Scenarios => {
            let clock = clock_of(r, root);
            let inp = ScenarioInputs {
                settings: &s.scenarios,
                latency_plan: sample_plan(s),
                timer_resolution_ns: clock.resolution_ns,
                is_root: running_as_root(),
            };
            r.scenarios = Some(run_scenarios(topo, root, &inp, &step)?);
            Ok(())
        }
        Part::Advisor => {
            r.advisor = Some(run_advisor(
                topo,
                root,
                &s.scenarios,
                running_as_root(),
                &step,
            )?);
            Ok(())
        }
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
    }
}

fn latency_sweep(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &Step<'_>,
) -> anyhow::Result<()> {
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
    let out = latency::run(topo, root, &cfg, step)?;
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

fn latency_matrix(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &Step<'_>,
) -> anyhow::Result<()> {
    let m = &s.latency_matrix;
    let variant = latency::Variant::Matrix {
        cells: Some(m.cells.clone()),
        cpus: vec![],
        size: Some(m.size_bytes),
    };
    let mut cfg = latency_config(topo, root, s, r, variant);
    cfg.modes = vec![Mode::Random];
    cfg.pages = vec![PageSize::Base];
    let measured = latency::run(topo, root, &cfg, step)?.report;
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
}

/// Runs a bandwidth part and adds its report to `slot`; the part fails with the first cell
/// that failed, keeping the others.
fn bw_part(
    topo: &Topology,
    root: &SysRoot,
    cfg: &bandwidth::Config,
    slot: &mut Option<BandwidthReport>,
    step: &Step<'_>,
) -> anyhow::Result<()> {
    let out = bandwidth::run(topo, root, cfg, step)?;
    match slot {
        Some(r) => append(r, out.report),
        None => *slot = Some(out.report),
    }
    out.failed.map_or(Ok(()), Err)
}

fn bandwidth(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &Step<'_>,
) -> anyhow::Result<()> {
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
    let measured = bw_part(topo, root, &cfg, &mut r.bandwidth, step);
    unbuilt.map_or(measured, Err)
}

fn bandwidth_matrix(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &Step<'_>,
) -> anyhow::Result<()> {
    let variant = bandwidth::Variant::Matrix {
        cells: Some(s.bandwidth_matrix.cells.clone()),
        threads: None,
    };
    let kernels = vec![kernel(KernelId::Read)?];
    let cfg = bw_config(topo, s, kernels, variant, &s.bandwidth.timed);
    bw_part(topo, root, &cfg, &mut r.bandwidth, step)
}

fn scaling(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &Step<'_>,
) -> anyhow::Result<()> {
    let variant = bandwidth::Variant::Scaling {
        nodes: s.scaling.nodes.clone(),
        thread_counts: Some(s.scaling.thread_counts.clone()),
        machine_wide: false,
    };
    let kernels = vec![kernel(KernelId::Read)?];
    let cfg = bw_config(topo, s, kernels, variant, &s.scaling.timed);
    r.scaling = None;
    bw_part(topo, root, &cfg, &mut r.scaling, step)
}
