//! Runs a plan: each planned part in order, through the engines, into one [`RunResults`].
//! After every part the caller's `checkpoint` gets the results so far (the output writer saves
//! `results.json` then, so a later failure or Ctrl-C loses nothing). A part that fails is
//! recorded with its error and the run goes on; Ctrl-C (the SIGINT flag of `sys::signal`)
//! stops at the next check (between sweep curves, matrix cells, scenario rows, kernel calls)
//! and the run ends marked `partial`. Progress goes to a [`Progress`] sink; nothing here prints.

use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::harness::{self, RunSpec};
use crate::bandwidth::isa::Isa;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::bandwidth::plan::{node_cpus_cores_first, MemPlacement};
use crate::bandwidth::result::{
    BandwidthReport, Matrix as BwMatrix, MatrixCell as BwCell, Scaling, ScalingPoint,
    ScalingSeries, BANDWIDTH_SCHEMA_VERSION,
};
use crate::bandwidth::scaling::knee;
use crate::c2c::{BouncePlan, C2cConfig};
use crate::clock::ClockInfo;
use crate::latency::{self, chase::Mode, measure::SamplePlan, result::LatencyReport, sweep};
use crate::loaded::sizes::default_sizes;
use crate::loaded::{LoadKernel, LoadedConfig};
use crate::placement::PageSize;
use crate::results::{Part, PartError, PartTiming, RunResults, RESULTS_SCHEMA_VERSION};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::advisor::run_advisor;
use super::findings;
use super::plan::{Planned, Settings};
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
            r.loaded_latency = Some(crate::loaded::run(topo, root, &cfg)?);
            Ok(())
        }
        Part::C2c => {
            let home = home_node(topo).context("no memory node is allowed to this process")?;
            let cfg = C2cConfig {
                cpus: s.c2c.cpus.clone(),
                line_node: home,
                plan: BouncePlan {
                    round_trips_per_sample: 200,
                    repetitions: s.c2c.repetitions,
                    repetition: Duration::from_millis(s.c2c.repetition_ms),
                },
            };
            r.c2c = Some(crate::c2c::run(topo, root, &cfg)?);
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
    step: &(dyn Fn(usize, usize) + Sync),
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
    let mut report = latency::run(topo, root, &cfg, step)?;
    if let Some(earlier) = r.latency.take() {
        report.matrix = earlier.matrix;
        report.warnings.splice(0..0, earlier.warnings);
    }
    r.latency = Some(report);
    Ok(())
}

fn latency_matrix(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &(dyn Fn(usize, usize) + Sync),
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
    let measured = latency::run(topo, root, &cfg, step)?;
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

fn spec(
    kernel: Kernel,
    cpus: Vec<u32>,
    placement: &MemPlacement,
    array_bytes: u64,
    s: &Settings,
) -> anyhow::Result<RunSpec> {
    let d = kernel.descriptor();
    Ok(RunSpec {
        kernel,
        cpus,
        placement: placement.label().into(),
        stream_policies: placement
            .policies(d.name, d.stream_count())
            .map_err(anyhow::Error::msg)?,
        array_bytes: array_bytes / 64 * 64,
        page: PageSize::Base,
        duration: Duration::from_millis(s.bandwidth.timed.duration_ms),
        repetitions: s.bandwidth.timed.repetitions,
        warmup: 1,
        params: Params::default(),
        throttle: None,
    })
}

fn new_bw_report(topo: &Topology) -> BandwidthReport {
    BandwidthReport {
        schema_version: BANDWIDTH_SCHEMA_VERSION,
        results: vec![],
        matrix: vec![],
        scaling: vec![],
        numa_balancing: topo.environment.numa_balancing,
        environment: topo.environment.clone(),
    }
}

fn kernel(id: KernelId) -> anyhow::Result<Kernel> {
    Ok(Kernel::new(id, Isa::best())?)
}

fn bandwidth(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<()> {
    let mut report = r.bandwidth.take().unwrap_or_else(|| new_bw_report(topo));
    let cpus = topo.usable_cpus();
    let n = s.bandwidth.kernels.len();
    let mut outcome = Ok(());
    for (k, name) in s.bandwidth.kernels.iter().enumerate() {
        if interrupted() {
            break;
        }
        let res = kernel(*name)
            .and_then(|kn| {
                spec(
                    kn,
                    cpus.clone(),
                    &MemPlacement::Local,
                    s.bandwidth.bytes_per_thread,
                    s,
                )
            })
            .and_then(|sp| harness::run(topo, root, &sp));
        match res {
            Ok(x) => report.results.push(x),
            Err(e) => outcome = Err(e.context(format!("kernel {}", name.descriptor().name))),
        }
        step(k + 1, n);
    }
    r.bandwidth = Some(report);
    outcome
}

fn bandwidth_matrix(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<()> {
    let mut report = r.bandwidth.take().unwrap_or_else(|| new_bw_report(topo));
    let kn = kernel(KernelId::Read)?;
    let m = &s.bandwidth_matrix;
    let mut cells = Vec::new();
    let mut outcome = Ok(());
    for (k, &(i, t)) in m.cells.iter().enumerate() {
        if interrupted() {
            break;
        }
        let cpus = node_cpus_cores_first(topo, i);
        let bytes = (s.bandwidth.bytes_per_thread * topo.usable_cpus().len() as u64)
            / cpus.len().max(1) as u64;
        let res = spec(kn, cpus.clone(), &MemPlacement::Node(vec![t]), bytes, s)
            .and_then(|sp| harness::run(topo, root, &sp));
        match res {
            Ok(x) => {
                let hmat = topo.hmat_for(i, t);
                cells.push(BwCell {
                    initiator: i,
                    target: t,
                    threads: cpus.len(),
                    mb_per_s: x.mb_per_s.median,
                    dram_mb_per_s_estimate: x.dram_mb_per_s_estimate.median,
                    placement_fraction: x.placement_fraction,
                    hmat_read_mb_per_s: hmat.and_then(|h| h.read_bandwidth_mb_s),
                    hmat_write_mb_per_s: hmat.and_then(|h| h.write_bandwidth_mb_s),
                    result_index: report.results.len(),
                });
                report.results.push(x);
            }
            Err(e) => outcome = Err(e.context(format!("cell node {i} -> node {t}"))),
        }
        step(k + 1, m.cells.len());
    }
    let mut initiators: Vec<u32> = m.cells.iter().map(|c| c.0).collect();
    initiators.dedup();
    let mut targets: Vec<u32> = m.cells.iter().map(|c| c.1).collect();
    targets.sort_unstable();
    targets.dedup();
    report.matrix.push(BwMatrix {
        kernel: "read".into(),
        initiators,
        targets,
        cells,
    });
    r.bandwidth = Some(report);
    outcome
}

fn scaling(
    topo: &Topology,
    root: &SysRoot,
    s: &Settings,
    r: &mut RunResults,
    step: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<()> {
    let mut report = new_bw_report(topo);
    let kn = kernel(KernelId::Read)?;
    let sc = &s.scaling;
    let total = sc.nodes.len() * sc.thread_counts.len();
    let mut done = 0;
    let mut series = Vec::new();
    let total_bytes = s.bandwidth.bytes_per_thread * topo.usable_cpus().len() as u64;
    for &node in &sc.nodes {
        let pool = node_cpus_cores_first(topo, node);
        let mut points = Vec::new();
        for &k in sc.thread_counts.iter().filter(|&&k| k <= pool.len()) {
            if interrupted() {
                break;
            }
            let cpus = pool[..k].to_vec();
            let mut sp = spec(
                kn,
                cpus.clone(),
                &MemPlacement::Local,
                total_bytes / k as u64,
                s,
            )?;
            sp.duration = Duration::from_millis(sc.timed.duration_ms);
            sp.repetitions = sc.timed.repetitions;
            let x = harness::run(topo, root, &sp)?;
            points.push(ScalingPoint {
                threads: k,
                cpus,
                mb_per_s: x.mb_per_s.median,
                mb_per_s_max: x.mb_per_s.max,
                result_index: report.results.len(),
            });
            report.results.push(x);
            done += 1;
            step(done, total);
        }
        let t: Vec<usize> = points.iter().map(|p| p.threads).collect();
        let v: Vec<f64> = points.iter().map(|p| p.mb_per_s).collect();
        series.push(ScalingSeries {
            mode: "packed".into(),
            node: Some(node),
            knee_threads: knee(&t, &v),
            points,
        });
    }
    report.scaling.push(Scaling {
        kernel: "read".into(),
        series,
    });
    r.scaling = Some(report);
    Ok(())
}
