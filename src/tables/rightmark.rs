//! The RightMark table (seed 000/001): for every CPU node x memory node, one thread on the CPU
//! node and its block bound to the memory node; average read and write bandwidth (`read`,
//! `write`), maximum read with software prefetch (`read-prefetch`), maximum write with
//! non-temporal stores (`write-nt`), pseudo-random latency (the page-local chase) and random
//! latency (the chase over the whole block), on the article's 16 MB block. Each round calls
//! `bandwidth::run` once (the bandwidth columns, one warm-up and one timed repetition each) and
//! `latency::run` once (both chases) per cell, cells in rotating order; the ratios to the
//! row's local cell come from the paired rounds. [`run`] is the entry point `numascope
//! rightmark` and the full run call. Nothing here parses flags or prints.

use std::time::Duration;

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::bandwidth::plan::MemPlacement;
use crate::bandwidth::{self, RunSettings, WorkingSet};
use crate::experiment::{Outcome, Progress};
use crate::latency;
use crate::results::bandwidth::Isa;
use crate::results::clock::ClockInfo;
use crate::results::latency::{Mode, SamplePlan};
use crate::results::placement::PageSize;
use crate::results::tables::{
    RightmarkCell, RightmarkFigure, RightmarkMetric, RightmarkReport, RoundFigure,
};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::{fail, figure_warnings, ratio_to_local, record, summarize, Sample};
use crate::schedule::round_order;

/// The article's block: 16 MB, taken as 16 MiB.
pub const BLOCK_BYTES: u64 = 16 << 20;
/// The default timed bandwidth repetition of the subcommand.
pub const DEFAULT_REPETITION: Duration = Duration::from_millis(100);
/// Seed of the chases (the run's seed, so figures compare with the latency part's).
pub const SEED: u64 = 0x6e75_6d61_7363_6f70;

/// A validated RightMark request.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// (CPU node, memory node) rows, in table order.
    pub cells: Vec<(u32, u32)>,
    /// The CPU of each CPU node: (node, cpu).
    pub cpus: Vec<(u32, u32)>,
    pub block_bytes: u64,
    pub page: PageSize,
    pub rounds: usize,
    /// Timed bandwidth repetition (one warm-up repetition of the same length before it).
    pub bandwidth_repetition: Duration,
    /// Latency samples per round (their median is the round's value).
    pub latency: SamplePlan,
    pub metrics: Vec<RightmarkMetric>,
    /// The clock measured by the caller; `None`: measured once here.
    pub clock: Option<ClockInfo>,
}

/// The CPU one RightMark thread of `node` runs on: the node's first usable CPU.
pub fn cpu_of_node(topo: &Topology, node: u32) -> Option<u32> {
    topo.usable_cpus_of(node).first().copied()
}

/// (CPU node, memory node) cells and (node, CPU) pairs.
pub type Cells = (Vec<(u32, u32)>, Vec<(u32, u32)>);

/// Every (CPU node, memory node) of the two lists, CPU node major, with each CPU node's CPU;
/// a CPU node without a usable CPU is left out.
pub fn plan_cells(topo: &Topology, cpu_nodes: &[u32], mem_nodes: &[u32]) -> Cells {
    let mut cells = Vec::new();
    let mut cpus = Vec::new();
    for &i in cpu_nodes {
        let Some(cpu) = cpu_of_node(topo, i) else {
            continue;
        };
        cpus.push((i, cpu));
        for &m in mem_nodes {
            cells.push((i, m));
        }
    }
    (cells, cpus)
}

fn kernel_of(m: RightmarkMetric) -> Option<KernelId> {
    match m {
        RightmarkMetric::Read => Some(KernelId::Read),
        RightmarkMetric::Write => Some(KernelId::Write),
        RightmarkMetric::ReadPrefetch => Some(KernelId::ReadPrefetch),
        RightmarkMetric::WriteNt => Some(KernelId::WriteNt),
        _ => None,
    }
}

fn mode_of(m: RightmarkMetric) -> Option<Mode> {
    match m {
        RightmarkMetric::PseudoRandom => Some(Mode::Page),
        RightmarkMetric::Random => Some(Mode::Random),
        _ => None,
    }
}

/// Seconds one round of one cell takes, about: per bandwidth column a warm-up and a timed
/// repetition plus the block's fault-in, per latency column the chain's construction and the
/// samples (the run plan's estimate).
pub fn cell_round_s(
    cfg_metrics: &[RightmarkMetric],
    block: u64,
    rep: Duration,
    lat: &SamplePlan,
) -> f64 {
    let fault = block as f64 / 2.0e9 + 0.01;
    let chain = (block / 64) as f64 * 400e-9;
    let samples = (lat.samples + lat.warmup + 3) as f64 * lat.min_sample_ns as f64 / 1e9;
    cfg_metrics
        .iter()
        .map(|m| {
            if m.is_latency() {
                chain + samples
            } else {
                2.0 * rep.as_secs_f64() + fault
            }
        })
        .sum()
}

/// Measures the table; `progress(done, total)` after each cell of each round. Ctrl-C ends
/// the rounds early and keeps what was measured. A figure that fails keeps its error and sits
/// out the remaining rounds; the outcome's `failed` is set only when nothing at all was
/// measured.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<RightmarkReport>> {
    let clock = match &cfg.clock {
        Some(c) => c.clone(),
        None => ClockInfo::measure(root),
    };
    let mut rows: Vec<Vec<RoundFigure>> = cfg
        .cells
        .iter()
        .map(|_| cfg.metrics.iter().map(|_| RoundFigure::empty()).collect())
        .collect();
    // Kernels this CPU cannot run (non-temporal stores off x86) fail their column at once.
    let mut kernels: Vec<(usize, Kernel)> = Vec::new();
    for (k, &m) in cfg.metrics.iter().enumerate() {
        if let Some(id) = kernel_of(m) {
            match Kernel::new(id, Isa::best()) {
                Ok(kernel) => kernels.push((k, kernel)),
                Err(e) => {
                    for row in rows.iter_mut() {
                        fail(&mut row[k], format!("not measured: {e}"));
                    }
                }
            }
        }
    }
    let modes: Vec<(usize, Mode)> = cfg
        .metrics
        .iter()
        .enumerate()
        .filter_map(|(k, &m)| mode_of(m).map(|mode| (k, mode)))
        .collect();
    let total = cfg.rounds * cfg.cells.len();
    let mut done = 0;
    'rounds: for round in 0..cfg.rounds {
        for c in round_order(cfg.cells.len(), round) {
            if interrupted() {
                break 'rounds;
            }
            let (cpu_node, mem_node) = cfg.cells[c];
            let Some(cpu) = cfg.cpus.iter().find(|(n, _)| *n == cpu_node).map(|x| x.1) else {
                for f in rows[c].iter_mut() {
                    fail(f, format!("node {cpu_node} has no usable CPU"));
                }
                continue;
            };
            let at = Placed { cpu, mem_node };
            if !kernels.is_empty() {
                bandwidth_round(topo, root, cfg, at, &kernels, &mut rows[c]);
            }
            if !modes.is_empty() {
                latency_round(topo, root, cfg, &clock, at, &modes, &mut rows[c]);
            }
            done += 1;
            progress(done, total);
        }
    }
    let report = finish(topo, cfg, rows);
    let measured = report
        .cells
        .iter()
        .flat_map(|c| &c.figures)
        .any(|f| f.figure.summary.is_some());
    let failed = (!measured && !cfg.cells.is_empty() && !interrupted()).then(|| {
        let first = report
            .cells
            .iter()
            .flat_map(|c| &c.figures)
            .find_map(|f| f.figure.error.clone())
            .unwrap_or_else(|| "nothing was measured".into());
        anyhow::anyhow!("the RightMark table measured nothing: {first}")
    });
    Ok(Outcome { report, failed })
}

/// Where one cell's thread runs and where its block lives.
#[derive(Clone, Copy, Debug)]
struct Placed {
    cpu: u32,
    mem_node: u32,
}

/// One round of the bandwidth columns of one cell: one `bandwidth::run` with every kernel.
fn bandwidth_round(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    at: Placed,
    kernels: &[(usize, Kernel)],
    row: &mut [RoundFigure],
) {
    let bw = bandwidth::Config {
        kernels: kernels.iter().map(|(_, k)| *k).collect(),
        variant: bandwidth::Variant::Kernels { cpus: vec![at.cpu] },
        placement: MemPlacement::Node(vec![at.mem_node]),
        settings: RunSettings {
            page: cfg.page,
            duration: cfg.bandwidth_repetition,
            repetitions: 1,
            warmup: 1,
            params: Params {
                line_words: (topo.line_bytes() / 8).max(1) as usize,
                ..Params::default()
            },
            size: WorkingSet::Total(cfg.block_bytes),
        },
        keep_going: true,
    };
    let out = bandwidth::run(topo, root, &bw, &|_, _| {});
    record_round(out, kernels, row, |report, kernel| {
        let name = kernel.descriptor().name;
        let r = report.results.iter().find(|r| r.kernel == name)?;
        Some(Sample::of_bandwidth(r))
    });
}

/// One round of the latency columns of one cell: one `latency::run` with both chases.
fn latency_round(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    clock: &ClockInfo,
    at: Placed,
    modes: &[(usize, Mode)],
    row: &mut [RoundFigure],
) {
    let lat = latency::Config {
        variant: latency::Variant::Sizes {
            at: latency::Chaser {
                cpu: at.cpu,
                mem_node: Some(at.mem_node),
            },
            sizes: vec![cfg.block_bytes],
            // The table's rounds are its blocks: one moment per round.
            in_blocks: false,
        },
        modes: modes.iter().map(|(_, m)| *m).collect(),
        pages: vec![cfg.page],
        chains: vec![1],
        element_bytes: topo.line_bytes(),
        group_bytes: 0,
        seed: SEED,
        plan: cfg.latency,
        clock: Some(clock.clone()),
        keep_going: true,
        distribution: None,
        distribution_bytes: None,
    };
    let out = latency::run(topo, root, &lat, &|_, _| {});
    record_round(out, modes, row, |report, mode| {
        let r = report.results.iter().find(|r| r.mode == *mode)?;
        Some(Sample {
            value: r.ns_per_load.median,
            placement_fraction: r.placement_fraction,
            quality: r.quality.clone(),
            cache_level: None,
        })
    });
}

/// Records one run's round in `row`: each column `(k, what)` gets the sample `sample_of`
/// finds in the report, or the run's failure when it has none. After Ctrl-C a missing result
/// is no failure.
fn record_round<R, W>(
    out: anyhow::Result<Outcome<R>>,
    columns: &[(usize, W)],
    row: &mut [RoundFigure],
    sample_of: impl Fn(&R, &W) -> Option<Sample>,
) {
    match out {
        Ok(out) => {
            let why = out.failed.map(|e| crate::error::one_sentence(&e));
            for (k, what) in columns {
                match sample_of(&out.report, what) {
                    Some(s) => record(&mut row[*k], s),
                    None if interrupted() => {}
                    None => fail(
                        &mut row[*k],
                        format!(
                            "failed: {}",
                            why.clone().unwrap_or_else(|| "no result".into())
                        ),
                    ),
                }
            }
        }
        Err(_) if interrupted() => {}
        Err(e) => {
            let why = crate::error::one_sentence(&e);
            for (k, _) in columns {
                fail(&mut row[*k], format!("failed: {why}"));
            }
        }
    }
}

/// Summaries, ratios to each row's local cell, and the warnings.
fn finish(topo: &Topology, cfg: &Config, mut rows: Vec<Vec<RoundFigure>>) -> RightmarkReport {
    for row in rows.iter_mut() {
        row.iter_mut().for_each(summarize);
    }
    // The local cell of each CPU node: its own node, when that is one of the memory nodes.
    let local_of = |node: u32| cfg.cells.iter().position(|&(i, m)| i == node && m == node);
    let mut cells = Vec::with_capacity(cfg.cells.len());
    let mut warnings = Vec::new();
    for (c, &(cpu_node, memory_node)) in cfg.cells.iter().enumerate() {
        let local = local_of(cpu_node);
        let mut figures = Vec::with_capacity(cfg.metrics.len());
        for (k, &metric) in cfg.metrics.iter().enumerate() {
            let mut figure = rows[c][k].clone();
            if let Some(l) = local.filter(|&l| l != c) {
                figure.ratio_to_local = ratio_to_local(&rows[l][k], &figure);
            }
            figure_warnings(
                &format!(
                    "CPU node {cpu_node} / memory node {memory_node}, {}",
                    metric.label()
                ),
                &figure,
                &mut warnings,
            );
            figures.push(RightmarkFigure { metric, figure });
        }
        cells.push(RightmarkCell {
            cpu_node,
            memory_node,
            cpu: cfg
                .cpus
                .iter()
                .find(|(n, _)| *n == cpu_node)
                .map_or(0, |x| x.1),
            local: cpu_node == memory_node,
            slit_distance: topo.distance(cpu_node, memory_node),
            figures,
        });
    }
    // A block that fits in a cache makes the bandwidth columns the cache's: say it once.
    if let Some(level) = cells
        .iter()
        .flat_map(|c| &c.figures)
        .find_map(|f| f.figure.cache_level.clone())
    {
        warnings.insert(
            0,
            format!(
                "the {} block fits in {level} on this machine, so the bandwidth columns are the cache's rather than the memory's (the latency columns still miss it); give a larger --size, e.g. 256MiB, for memory figures",
                crate::results::format::format_bytes(cfg.block_bytes)
            ),
        );
    }
    if topo.environment.numa_balancing.unwrap_or(0) != 0 && topo.memory_nodes().len() > 1 {
        warnings.insert(0, "automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing): the kernel may migrate the remote blocks toward the measuring CPU".into());
    }
    RightmarkReport {
        block_bytes: cfg.block_bytes,
        page_size: cfg.page.label().into(),
        rounds: cfg.rounds,
        bandwidth_repetition_ms: cfg.bandwidth_repetition.as_millis() as u64,
        latency_samples_per_round: cfg.latency.samples,
        latency_min_sample_ns: cfg.latency.min_sample_ns,
        metrics: cfg.metrics.clone(),
        cells,
        numa_balancing: topo.environment.numa_balancing,
        environment: topo.environment.clone(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sample::opteron_topology;

    /// Two CPU nodes x two memory nodes: four rows, CPU node major, each node's first CPU.
    #[test]
    fn cells_are_every_cpu_node_by_every_memory_node() {
        let t = opteron_topology();
        let (cells, cpus) = plan_cells(&t, &t.initiator_nodes(), &t.memory_nodes());
        assert_eq!(cells, vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(cpus.len(), 2);
        for (n, cpu) in &cpus {
            assert_eq!(t.node_of_cpu(*cpu), Some(*n));
            assert_eq!(Some(*cpu), t.usable_cpus_of(*n).first().copied());
        }
    }

    /// The ratios pair each remote row with its CPU node's local row; the local rows carry
    /// none, and a one-node table claims no ratio at all.
    #[test]
    fn ratios_are_to_the_rows_local_cell() {
        let t = opteron_topology();
        let (cells, cpus) = plan_cells(&t, &t.initiator_nodes(), &t.memory_nodes());
        let cfg = Config {
            cells: cells.clone(),
            cpus,
            block_bytes: BLOCK_BYTES,
            page: PageSize::Base,
            rounds: 6,
            bandwidth_repetition: Duration::from_millis(10),
            latency: SamplePlan {
                samples: 3,
                warmup: 1,
                min_sample_ns: 1_000_000,
            },
            metrics: vec![RightmarkMetric::Read, RightmarkMetric::Random],
            clock: None,
        };
        let rows: Vec<Vec<RoundFigure>> = cells
            .iter()
            .map(|&(i, m)| {
                let bw = if i == m { 6000.0 } else { 3000.0 };
                let ns = if i == m { 75.0 } else { 112.5 };
                vec![
                    RoundFigure {
                        rounds: vec![bw; 6],
                        ..RoundFigure::empty()
                    },
                    RoundFigure {
                        rounds: vec![ns; 6],
                        ..RoundFigure::empty()
                    },
                ]
            })
            .collect();
        let r = finish(&t, &cfg, rows);
        assert_eq!(r.cells.len(), 4);
        let remote = &r.cells[1];
        assert_eq!(
            (remote.cpu_node, remote.memory_node, remote.local),
            (0, 1, false)
        );
        let ratio = |cell: &RightmarkCell, m| cell.figure(m).unwrap().ratio_to_local;
        assert_eq!(ratio(remote, RightmarkMetric::Read).unwrap().ratio, 0.5);
        assert_eq!(ratio(remote, RightmarkMetric::Random).unwrap().ratio, 1.5);
        assert_eq!(ratio(&r.cells[2], RightmarkMetric::Read).unwrap().pairs, 6);
        assert!(ratio(&r.cells[0], RightmarkMetric::Read).is_none());
        assert!(ratio(&r.cells[3], RightmarkMetric::Random).is_none());
        // One node: the one row is local and has no ratio.
        let one = Config {
            cells: vec![(0, 0)],
            ..cfg
        };
        let r = finish(
            &t,
            &one,
            vec![vec![
                RoundFigure {
                    rounds: vec![1.0; 6],
                    ..RoundFigure::empty()
                },
                RoundFigure::empty(),
            ]],
        );
        assert!(r.cells[0].local);
        assert!(r.cells[0]
            .figures
            .iter()
            .all(|f| f.figure.ratio_to_local.is_none()));
        assert_eq!(r.cells[0].figures[0].figure.summary.unwrap().samples, 6);
        assert!(r.cells[0].figures[1].figure.summary.is_none());
    }

    #[test]
    fn round_estimate_counts_every_column() {
        let lat = SamplePlan {
            samples: 5,
            warmup: 1,
            min_sample_ns: 2_000_000,
        };
        let all = cell_round_s(&RightmarkMetric::ALL, BLOCK_BYTES, DEFAULT_REPETITION, &lat);
        let bw = cell_round_s(
            &RightmarkMetric::ALL[..4],
            BLOCK_BYTES,
            DEFAULT_REPETITION,
            &lat,
        );
        assert!(all > bw && bw >= 4.0 * 0.2, "{all} {bw}");
    }
}
