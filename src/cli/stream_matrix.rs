//! `numascope bandwidth --stream-matrix`: LIKWID's per-stream placement (seed 002/003,
//! `likwid-bench -t copy_mem -w M0:1GB-0:M2,1:M2`) as a source node x destination node matrix.
//! The threads run on one CPU node (each node of `--cpu-nodes` in turn; default the first node
//! with usable CPUs), the kernel's read stream(s) bound to the row's node and its written
//! stream to the column's. The flags of `bandwidth` that mean something here are resolved
//! into a [`crate::tables::streams::Config`]; the others are refused by name.

use anyhow::{bail, Context as _};

use super::bandwidth::BandwidthArgs;
use super::Context;
use crate::bandwidth::descriptor::by_name;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::bandwidth::plan::{check_fits, node_cpus_cores_first};
use crate::bandwidth::{RunSettings, WorkingSet};
use crate::parse::duration::{parse_duration, BANDWIDTH_REPETITION};
use crate::parse::selection;
use crate::parse::size::parse_size;
use crate::render::tables_text;
use crate::results::bandwidth::Isa;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::tables::streams::{self, refuse_kernel, Config};

/// The bandwidth flags that do nothing with `--stream-matrix`, refused with what applies.
fn refuse_flags(args: &BandwidthArgs) -> anyhow::Result<()> {
    let given = [
        ("--cpus", args.cpus.is_some(), "it takes the threads from each --cpu-nodes node; use --cpu-nodes and --threads"),
        ("--packed", args.packed, "the threads are one node's CPUs, one per core first"),
        ("--spread", args.spread, "the threads are one node's CPUs, one per core first"),
        ("--placement", args.placement.is_some(), "it binds each stream to its row's or column's node itself; use --mem-nodes to choose the nodes"),
        ("--weights", args.weights.is_some(), "it binds each stream to one node"),
        ("--repetitions", args.repetitions != super::bandwidth::DEFAULT_REPETITIONS, "each round is one warm-up and one timed repetition; use --rounds"),
        ("--warmup", args.warmup != 1, "each round is one warm-up and one timed repetition; use --rounds"),
    ];
    if let Some((flag, _, why)) = given.iter().find(|g| g.1) {
        bail!("{flag} does nothing with --stream-matrix: {why}; drop {flag}");
    }
    Ok(())
}

/// Resolves `bandwidth --stream-matrix` against the topology.
pub fn resolve(topo: &Topology, args: &BandwidthArgs) -> anyhow::Result<Config> {
    refuse_flags(args)?;
    let isa = Isa::resolve(args.isa.as_deref())?;
    let mut kernels = Vec::new();
    for name in args.kernel.as_deref().unwrap_or("copy").split(',') {
        let k = Kernel::new(by_name(name)?.id, isa)?;
        if let Some(why) = refuse_kernel(&k) {
            bail!("--kernel {}: {why}", name.trim());
        }
        kernels.push(k);
    }
    let cpu_nodes = match &args.cpu_nodes {
        Some(t) => selection::nodes(topo, "--cpu-nodes", t, &topo.initiator_nodes())?,
        None => topo.initiator_nodes().into_iter().take(1).collect(),
    };
    if cpu_nodes.is_empty() {
        bail!("this process may run on no node with usable CPUs; check the allowed CPUs (taskset, cgroup cpuset)");
    }
    let per_node = threads_per_node(topo, args, &cpu_nodes)?;
    let nodes = match &args.mem_nodes {
        Some(t) => selection::nodes(topo, "--mem-nodes", t, &topo.memory_nodes())?,
        None => topo.memory_nodes(),
    };
    if nodes.is_empty() {
        bail!("this process may use no memory node; check the allowed memory nodes (numactl, cgroup cpuset)");
    }
    let size = match &args.size {
        Some(t) if t.contains(',') => bail!("--stream-matrix measures one working set, so a list of sizes does nothing there; give one --size"),
        Some(t) => {
            let s = parse_size(t.trim()).context("--size")?;
            anyhow::ensure!(s > 0, "--size 0 holds no data; give e.g. 1GiB");
            WorkingSet::Total(s)
        }
        None => WorkingSet::Default,
    };
    let page: PageSize = args
        .page_size
        .parse()
        .map_err(|e: String| anyhow::anyhow!("--page-size: {e}"))?;
    let settings = RunSettings {
        page,
        duration: parse_duration(&args.duration, &BANDWIDTH_REPETITION)
            .map_err(anyhow::Error::msg)?,
        repetitions: 1,
        warmup: 1,
        params: Params {
            line_words: (topo.line_bytes() / 8) as usize,
            ..Params::default()
        },
        size,
    };
    check_arrays(topo, &kernels, &per_node, &nodes, &settings)?;
    let rounds = args.rounds.unwrap_or(crate::tables::DEFAULT_ROUNDS);
    if rounds == 0 || rounds > 1000 {
        bail!("--rounds {rounds} is out of range; give 1 to 1000 (6 or more give intervals; 9 is the default)");
    }
    Ok(Config {
        kernels,
        cpu_nodes: per_node,
        sources: nodes.clone(),
        destinations: nodes,
        settings,
        rounds,
    })
}

/// The CPUs of each CPU node: `--threads` of them (default all), one per core first.
fn threads_per_node(
    topo: &Topology,
    args: &BandwidthArgs,
    cpu_nodes: &[u32],
) -> anyhow::Result<Vec<(u32, Vec<u32>)>> {
    let mut per_node = Vec::new();
    for &n in cpu_nodes {
        let cpus = node_cpus_cores_first(topo, n);
        let want = args.threads.unwrap_or(cpus.len());
        if want == 0 {
            bail!("--threads 0 runs nothing; give at least 1");
        }
        if want > cpus.len() {
            bail!(
                "--threads {want} is more than the {} usable CPUs of node {n}; use at most {}",
                cpus.len(),
                cpus.len()
            );
        }
        per_node.push((n, cpus[..want].to_vec()));
    }
    Ok(per_node)
}

/// Every kernel's arrays hold a cache line per thread and fit on each memory node: every
/// stream of every thread on one node at worst (the diagonal).
fn check_arrays(
    topo: &Topology,
    kernels: &[Kernel],
    per_node: &[(u32, Vec<u32>)],
    nodes: &[u32],
    settings: &RunSettings,
) -> anyhow::Result<()> {
    for k in kernels {
        let streams = k.descriptor().stream_count();
        for (_, cpus) in per_node {
            let a = settings.array_bytes(topo, streams, cpus.len());
            anyhow::ensure!(
                a >= 64,
                "--size is too small to give each of {} threads {streams} arrays of at least one cache line; use a larger --size",
                cpus.len()
            );
            for &n in nodes {
                check_fits(topo, &[n], a * (streams * cpus.len()) as u64)
                    .map_err(anyhow::Error::msg)?;
            }
        }
    }
    Ok(())
}

/// Runs `bandwidth --stream-matrix`.
pub fn run(ctx: &Context, args: &BandwidthArgs, topo: &Topology) -> anyhow::Result<()> {
    let cfg = resolve(topo, args)?;
    super::rightmark::check_html_path(args.html.as_deref())?;
    ctx.root.require_live("measure bandwidth")?;
    let _host_lock = super::measuring_lock(ctx)?;
    let bar = indicatif::ProgressBar::with_draw_target(None, super::ui::progress_target());
    let progress = |d: usize, t: usize| {
        bar.set_length(t as u64);
        bar.set_position(d as u64);
    };
    let out = streams::run(topo, &ctx.root, &cfg, &progress)?;
    bar.finish_and_clear();
    let report = out.into_result()?;
    if let Some(dir) = &args.csv {
        let files = crate::render::tables_standalone::stream_matrix_csv(&report)?;
        super::rightmark::write_csv_files(dir, &files)?;
    }
    if let Some(path) = &args.html {
        let page = crate::render::html::render_stream_matrix(&report);
        super::rightmark::write_html(path, &page)?;
    }
    super::print_result(args.json, &report, |o| {
        tables_text::render_stream_matrix(&report, o)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    /// The replayed two-node Opteron 250 and the bandwidth flags as parsed.
    fn plan(flags: &[&str]) -> anyhow::Result<Config> {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/topology/magnycours-2s-likwid"
        );
        let root = crate::sysroot::SysRoot::snapshot(std::path::Path::new(dir)).unwrap();
        let topo = crate::topology::read_topology(&root).unwrap();
        let mut argv = vec!["numascope", "bandwidth", "--stream-matrix"];
        argv.extend(flags);
        let Some(Command::Bandwidth(args)) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not a bandwidth command");
        };
        resolve(&topo, &args)
    }

    /// LIKWID's own machine (seed 003: four domains): every source x destination, threads on
    /// the first domain's CPUs (one per core first), one matrix per kernel and CPU node.
    #[test]
    fn plans_every_source_and_destination_on_a_replayed_machine() {
        let c = plan(&["--size", "64MiB"]).unwrap();
        assert_eq!(c.kernels.len(), 1);
        assert_eq!(c.kernels[0].descriptor().name, "copy");
        assert_eq!(c.sources, c.destinations);
        assert!(c.sources.len() >= 2, "{:?}", c.sources);
        assert_eq!(c.cpu_nodes.len(), 1);
        let (node, cpus) = &c.cpu_nodes[0];
        assert!(!cpus.is_empty());
        let c2 = plan(&[
            "--cpu-nodes",
            "0,1",
            "--threads",
            "1",
            "--kernel",
            "copy,triad",
        ])
        .unwrap();
        assert_eq!(c2.cpu_nodes.len(), 2);
        assert!(c2.cpu_nodes.iter().all(|(_, c)| c.len() == 1));
        assert_eq!(c2.cpu_nodes[0].0, *node);
        assert_eq!(c2.rounds, crate::tables::DEFAULT_ROUNDS);
        let e = plan(&["--threads", "999"]).unwrap_err().to_string();
        assert!(e.contains("--threads 999"), "{e}");
        let e = plan(&["--rounds", "0"]).unwrap_err().to_string();
        assert!(e.contains("--rounds 0"), "{e}");
    }
}
