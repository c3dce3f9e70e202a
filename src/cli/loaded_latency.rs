//! `numascope loaded-latency`: the latency one thread sees while others load memory. Raw
//! flags are resolved into a validated [`LoadedConfig`] (or a matrix template) by a pure
//! function of the topology, so bad input is refused before any thread is pinned; then the
//! engine runs and a renderer prints text or JSON.

use clap::Args;

use crate::cli::Context;
use crate::loaded::matrix::MatrixTemplate;
use crate::loaded::sizes::default_sizes;
use crate::loaded::Config;
use crate::loaded::{self, LoadKernel, LoadedConfig};
use crate::parse::cpulist::format_list;
use crate::parse::duration::{parse_duration, LOADED_POINT};
use crate::parse::selection;
use crate::parse::size::parse_size;
use crate::placement::PageSize;
use crate::render::loaded_text;
use crate::threads::check_cpus;
use crate::topology::{read_topology, Topology};

/// Flags of `numascope loaded-latency`.
#[derive(Debug, Args)]
pub struct LoadedLatencyArgs {
    /// CPU of the chasing thread, one CPU in the list syntax of docs/cli.md (`0`, `+0`,
    /// `S1:0`). Default: the first usable CPU, or of --cpu-nodes.
    #[arg(long, alias = "chaser-cpu", alias = "cpu", value_name = "CPU")]
    pub cpus: Option<String>,
    /// CPUs of the load threads, e.g. `1-7`, `!0` or `N:1-3` (default: every other usable
    /// CPU, or every other CPU of --cpu-nodes). Must not include the chaser CPU.
    #[arg(long, value_name = "LIST")]
    pub load_cpus: Option<String>,
    /// Run from this node: the chaser on its first usable CPU, load threads on the others
    /// (one node).
    #[arg(
        long,
        alias = "initiator-node",
        alias = "cpu-node",
        value_name = "NODE"
    )]
    pub cpu_nodes: Option<String>,
    /// Node holding the chased buffer (one node; default: the chaser CPU's node).
    #[arg(long, alias = "mem-node", value_name = "NODE")]
    pub mem_nodes: Option<String>,
    /// Node holding the load threads' buffers (one node; default: --mem-nodes).
    #[arg(long, alias = "load-mem-node", value_name = "NODE")]
    pub load_mem_nodes: Option<String>,
    /// Load kernel: read, write or write-nt (non-temporal stores). Default read.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Read:write mix of the load threads instead of --kernel (not with it): 2:1, 3:1 or 1:1.
    #[arg(long, value_name = "R:W")]
    pub mix: Option<String>,
    /// Loaded points of the sweep: the load threads asked for 1/N, 2/N, ... N/N of their
    /// full-speed rate (each paces the spin between its lines from the clock); a no-load point
    /// is always measured first.
    #[arg(long, value_name = "N", default_value_t = 11)]
    pub points: usize,
    /// Every initiator node x every memory node, load on the same target node.
    #[arg(long)]
    pub matrix: bool,
    /// Chased buffer size (default: max(256 MiB, 8 x LLC), capped by free memory).
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Page backing of the chased and the load buffers: 4k (MADV_NOHUGEPAGE; the default, as
    /// everywhere but bandwidth), thp, or 2m / 1g (reserved hugetlb). Huge pages take the page walks out of
    /// the chase, so the curve shows the memory system alone.
    #[arg(long, default_value = "4k", value_name = "PAGE")]
    pub page_size: PageSize,
    /// Length of each point, 20ms to 60s, e.g. 500ms or 2s (a bare number is milliseconds).
    #[arg(long, value_name = "TIME", default_value = "1s")]
    pub duration: String,
    /// Seed of the chase shuffle.
    #[arg(long, default_value_t = 0x6e75_6d61)]
    pub seed: u64,
    /// Print JSON (schema in docs/schema/loaded-latency.md).
    #[arg(long)]
    pub json: bool,
}

fn check_memory_node(topo: &Topology, flag: &str, n: u32) -> anyhow::Result<()> {
    let Some(node) = topo.node(n) else {
        anyhow::bail!(
            "{flag} {n}: node {n} does not exist; this machine has nodes {}",
            format_list(&topo.node_ids())
        );
    };
    if !node.has_memory {
        anyhow::bail!(
            "{flag} {n}: node {n} has no memory (it only has CPUs); choose a node with memory from {}",
            format_list(&topo.memory_nodes())
        );
    }
    if !topo.allowed_nodes.contains(&n) {
        anyhow::bail!(
            "{flag} {n}: node {n} is outside this process's allowed nodes {}; choose an allowed node",
            format_list(&topo.allowed_nodes)
        );
    }
    Ok(())
}

/// One node of a memory role flag (`--mem-nodes`, `--load-mem-nodes`).
fn one_memory_node(topo: &Topology, flag: &str, text: &str, what: &str) -> anyhow::Result<u32> {
    selection::one_node(
        topo,
        flag,
        text,
        &topo.memory_nodes(),
        &format!("{what} lives on one node"),
    )
}

/// Turns the flags into a validated request (pure: reads only `topo`).
pub fn resolve(topo: &Topology, a: &LoadedLatencyArgs) -> anyhow::Result<Config> {
    let kernel = match (&a.mix, &a.kernel) {
        // Any --kernel beside --mix would be ignored (even `read`): one of the two applies.
        (Some(_), Some(k)) => anyhow::bail!(
            "--mix sets a read:write mix of normal loads and stores, which replaces --kernel; drop --kernel {} or --mix",
            crate::parse::cpulist::excerpt(k.trim())
        ),
        (Some(m), _) => LoadKernel::from_mix(m).map_err(anyhow::Error::msg)?,
        (None, Some(k)) => LoadKernel::from_kernel_name(k).map_err(anyhow::Error::msg)?,
        (None, None) => LoadKernel::Read,
    };
    if a.points == 0 || a.points > 64 {
        anyhow::bail!("--points {} is out of range; give 1 to 64", a.points);
    }
    let duration = parse_duration(&a.duration, &LOADED_POINT).map_err(anyhow::Error::msg)?;
    let size = match &a.size {
        Some(s) => Some(parse_size(s).map_err(|e| anyhow::anyhow!("--size: {e}"))?),
        None => None,
    };
    if let Some(s) = size {
        let text = a.size.as_deref().unwrap_or("");
        if s < (1 << 20) {
            anyhow::bail!("--size {text} is too small for a memory latency curve; give at least 1MiB (the default is well beyond the last-level cache)");
        }
        a.page_size
            .check_whole_pages(s)
            .map_err(|e| anyhow::anyhow!("--size {e}"))?;
    }
    if a.matrix {
        let given: Vec<&str> = [
            ("--cpus", a.cpus.is_some()),
            ("--load-cpus", a.load_cpus.is_some()),
            ("--cpu-nodes", a.cpu_nodes.is_some()),
            ("--mem-nodes", a.mem_nodes.is_some()),
            ("--load-mem-nodes", a.load_mem_nodes.is_some()),
        ]
        .iter()
        .filter(|x| x.1)
        .map(|x| x.0)
        .collect();
        if let Some(f) = given.first() {
            anyhow::bail!("--matrix chooses CPUs and nodes for every initiator x target pair itself; drop {f}");
        }
        return Ok(Config::Matrix(MatrixTemplate {
            kernel,
            points: a.points,
            duration,
            chaser_bytes: size,
            page: a.page_size,
            seed: a.seed,
        }));
    }

    let (chaser, load_cpus) = team_cpus(topo, a)?;
    let mem_node = match &a.mem_nodes {
        Some(t) => one_memory_node(topo, "--mem-nodes", t, "the chased buffer")?,
        None => topo.node_of_cpu(chaser).ok_or_else(|| {
            anyhow::anyhow!("CPU {chaser} belongs to no NUMA node; give --mem-nodes")
        })?,
    };
    check_memory_node(topo, "--mem-nodes", mem_node)?;
    let load_mem_node = match &a.load_mem_nodes {
        Some(t) => one_memory_node(topo, "--load-mem-nodes", t, "the load buffers")?,
        None => mem_node,
    };
    check_memory_node(topo, "--load-mem-nodes", load_mem_node)?;
    let (chaser_default, per_thread) =
        default_sizes(topo, mem_node, load_mem_node, load_cpus.len(), a.page_size);
    Ok(Config::Curve(LoadedConfig {
        chaser_cpu: chaser,
        load_cpus,
        mem_node,
        load_mem_node,
        kernel,
        points: a.points,
        chaser_bytes: size.unwrap_or(chaser_default),
        load_bytes_per_thread: per_thread,
        page: a.page_size,
        duration,
        seed: a.seed,
    }))
}

/// `--cpu-nodes`'s usable CPUs, checked (`None` without the flag).
fn initiator_cpus(topo: &Topology, a: &LoadedLatencyArgs) -> anyhow::Result<Option<Vec<u32>>> {
    Ok(match &a.cpu_nodes {
        Some(text) => {
            let n = selection::one_node(
                topo,
                "--cpu-nodes",
                text,
                &topo.initiator_nodes(),
                "the chaser and its load threads run from one node",
            )?;
            let Some(node) = topo.node(n) else {
                anyhow::bail!(
                    "--cpu-nodes {n}: node {n} does not exist; this machine has nodes {}",
                    format_list(&topo.node_ids())
                );
            };
            let cpus = topo.usable_cpus_of(n);
            if cpus.is_empty() {
                if node.cpus.is_empty() {
                    anyhow::bail!(
                        "--cpu-nodes {n}: node {n} is a memory-only node (no CPUs); it can be a --mem-nodes but not an initiator, choose one of {}",
                        format_list(&topo.initiator_nodes())
                    );
                }
                anyhow::bail!(
                    "--cpu-nodes {n}: none of node {n}'s CPUs is online and allowed; choose one of {}",
                    format_list(&topo.initiator_nodes())
                );
            }
            Some(cpus)
        }
        None => None,
    })
}

/// The chaser CPU and the load CPUs from `--cpus`, `--load-cpus` and `--cpu-nodes`, each checked to exist, be online and allowed, and not to overlap.
fn team_cpus(topo: &Topology, a: &LoadedLatencyArgs) -> anyhow::Result<(u32, Vec<u32>)> {
    let usable = topo.usable_cpus();
    let node_cpus = initiator_cpus(topo, a)?;
    let pool = node_cpus.clone().unwrap_or_else(|| usable.clone());
    let chaser = match &a.cpus {
        Some(t) => selection::one_cpu(
            topo,
            "--cpus",
            t,
            "one thread chases (--load-cpus takes the load threads' list)",
        )?,
        None => *pool.first().ok_or_else(|| {
            anyhow::anyhow!("this process may use no CPU at all; check taskset or the cgroup")
        })?,
    };
    let load_cpus = match &a.load_cpus {
        Some(text) => {
            if text.trim().is_empty() {
                anyhow::bail!(
                    "--load-cpus is empty; name the load threads' CPUs, e.g. --load-cpus 1-3"
                );
            }
            let l = selection::cpus(topo, "--load-cpus", text)?;
            if l.contains(&chaser) {
                anyhow::bail!(
                    "--load-cpus {} includes the chaser CPU {chaser}; the chaser needs its CPU to itself, remove {chaser} from --load-cpus",
                    crate::parse::cpulist::excerpt(text.trim())
                );
            }
            l
        }
        None => pool.iter().copied().filter(|&c| c != chaser).collect(),
    };
    if load_cpus.is_empty() {
        anyhow::bail!(
            "no CPU is left for load threads besides the chaser CPU {chaser} (usable: {}); name other CPUs with --load-cpus or allow more CPUs",
            format_list(&pool)
        );
    }
    for &c in std::iter::once(&chaser).chain(&load_cpus) {
        match topo.cpu(c) {
            None => anyhow::bail!(
                "CPU {c} does not exist; this machine has CPUs {}",
                format_list(&topo.cpus.iter().map(|c| c.id).collect::<Vec<_>>())
            ),
            Some(cpu) if !cpu.online || !cpu.allowed => anyhow::bail!(
                "CPU {c} is offline or outside this process's allowed CPUs; choose from {}",
                format_list(&usable)
            ),
            Some(_) => {}
        }
    }
    Ok((chaser, load_cpus))
}

pub fn run(ctx: &Context, args: &LoadedLatencyArgs) -> anyhow::Result<()> {
    let topo = read_topology(&ctx.root)?;
    let resolved = resolve(&topo, args)?;
    ctx.root.require_live("pin threads for loaded latency")?;
    if let Config::Curve(cfg) = &resolved {
        let mut cpus = vec![cfg.chaser_cpu];
        cpus.extend(&cfg.load_cpus);
        check_cpus(&topo, &ctx.root, &cpus)?;
    }
    let _host_lock = super::measuring_lock(ctx)?;
    let bar = indicatif::ProgressBar::with_draw_target(None, super::ui::progress_target());
    let progress = |d: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(d as u64);
    };
    let report = loaded::run(&topo, &ctx.root, &resolved, &progress)?.into_result()?;
    bar.finish_and_clear();
    super::print_result(args.json, &report, |out| loaded_text::render(&report, out))
}
