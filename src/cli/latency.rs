//! `numascope latency`: pointer-chasing latency at one or more sizes (`--size`), the
//! working-set curve with its knees beside the sysfs cache sizes (`--sweep`), or the
//! initiator x memory node matrix (`--matrix`). Flags are parsed, resolved against the
//! topology and validated here into a [`Config`] (one sentence per mistake, exit 2), then
//! [`crate::latency::run`] measures and the finished report goes to the text or JSON renderer.

use anyhow::{bail, Context as _};
use clap::Args;

use crate::cli::Context;
use crate::latency::chase::{self, ChainSpec, Mode};
use crate::latency::matrix;
use crate::latency::measure::SamplePlan;
use crate::latency::sweep;
use crate::latency::{Chaser, Config, Variant};
use crate::parse::cpulist::format_list;
use crate::parse::size::{format_bytes, parse_size};
use crate::placement::PageSize;
use crate::render::latency_text;
use crate::sysroot::SysRoot;
use crate::topology::{read_topology, Topology};

/// Flags of `numascope latency`.
#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// How the next load is chosen: random (any line of the buffer: TLB misses included),
    /// page (random lines within a page, pages in random order) or seq (fixed stride).
    #[arg(long, default_value = "random", value_name = "MODE")]
    pub mode: Mode,
    /// Working set(s), comma-separated (e.g. 256MiB,1GiB); with --matrix the first one.
    /// Default: max(8 x LLC, 256 MiB), capped by half the free memory.
    #[arg(
        long,
        value_delimiter = ',',
        conflicts_with = "sweep",
        value_name = "SIZE"
    )]
    pub size: Vec<String>,
    /// Sweep the working set from FROM to TO (default 4KiB..8 x LLC), 4 points per octave,
    /// and find the cache plateaus.
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "FROM..TO",
          conflicts_with = "matrix")]
    pub sweep: Option<String>,
    /// Measure every initiator node against every memory node.
    #[arg(long, conflicts_with_all = ["mem_node", "cpu_node"])]
    pub matrix: bool,
    /// CPU to chase from (with --matrix: comma-separated, at most one per node).
    #[arg(long, value_delimiter = ',', value_name = "CPU")]
    pub cpu: Vec<u32>,
    /// Chase from the first usable CPU of this node.
    #[arg(long, conflicts_with = "cpu", value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this memory node (default: first touch from the chasing CPU).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Page backing, comma-separated: 4k (MADV_NOHUGEPAGE), thp, 2m or 1g (reserved hugetlb).
    #[arg(long, value_delimiter = ',', default_value = "4k", value_name = "PAGE")]
    pub page_size: Vec<PageSize>,
    /// Independent chains walked together, comma-separated: 1, 2, 4, 8, 16.
    #[arg(long, value_delimiter = ',', default_value = "1", value_name = "N")]
    pub chains: Vec<usize>,
    /// Spacing of the chased elements (the step of seq), bytes; default one cache line.
    #[arg(long, value_name = "BYTES")]
    pub stride: Option<String>,
    /// Locality group of page mode, bytes; default the page size in use (2 MiB for thp).
    #[arg(long, value_name = "BYTES")]
    pub locality: Option<String>,
    /// Samples kept per measurement (the median is the headline).
    #[arg(long, default_value_t = 25, value_name = "N")]
    pub samples: usize,
    /// Samples run and dropped first.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub warmup: usize,
    /// Minimum duration of one sample, milliseconds.
    #[arg(long, default_value_t = 2.0, value_name = "MS")]
    pub sample_ms: f64,
    /// Seed of the chain shuffles (the same seed builds the same chains).
    #[arg(long, default_value_t = 0x6e75_6d61_7363_6f70, value_name = "N")]
    pub seed: u64,
    /// Print the report as JSON (schema_version 1, see docs/schema/latency.md).
    #[arg(long)]
    pub json: bool,
}

fn size_flag(flag: &str, text: &str) -> anyhow::Result<u64> {
    parse_size(text).with_context(|| flag.to_string())
}

/// Parses `FROM..TO`, `FROM..`, `..TO` or empty.
fn parse_range(text: &str) -> anyhow::Result<(Option<u64>, Option<u64>)> {
    let t = text.trim();
    if t.is_empty() {
        return Ok((None, None));
    }
    let Some((a, b)) = t.split_once("..") else {
        bail!("--sweep `{t}` is not a range; write FROM..TO, e.g. --sweep 4KiB..1GiB");
    };
    let f = |s: &str| -> anyhow::Result<Option<u64>> {
        if s.trim().is_empty() {
            Ok(None)
        } else {
            size_flag("--sweep", s).map(Some)
        }
    };
    Ok((f(a)?, f(b)?))
}

fn choose_cpu(topo: &Topology, args: &LatencyArgs) -> anyhow::Result<u32> {
    if let Some(&c) = args.cpu.first() {
        if args.cpu.len() > 1 {
            bail!(
                "--cpu {} names several CPUs; without --matrix give one",
                format_list(&args.cpu)
            );
        }
        return Ok(c);
    }
    if let Some(n) = args.cpu_node {
        if topo.node(n).is_none() {
            bail!(
                "--cpu-node {n} does not exist; this machine has nodes {}",
                format_list(&topo.node_ids())
            );
        }
        return topo.usable_cpus_of(n).first().copied().ok_or_else(|| {
            anyhow::anyhow!(
                "--cpu-node {n} has no CPU this process may use; choose one of the initiator nodes {}",
                format_list(&topo.initiator_nodes())
            )
        });
    }
    topo.usable_cpus()
        .first()
        .copied()
        .ok_or_else(|| anyhow::anyhow!("this process may run on no online CPU"))
}

/// Free memory where the buffer will go: the bound node, else all allowed memory nodes.
fn free_bytes(topo: &Topology, mem_node: Option<u32>) -> u64 {
    match mem_node {
        Some(n) => topo.available_over(&[n]),
        None => topo.available_over(&topo.memory_nodes()),
    }
}

/// Resolves the flags against the topology into a validated [`Config`]: every flag is
/// parsed and checked here, once.
fn resolve(topo: &Topology, root: &SysRoot, args: &LatencyArgs) -> anyhow::Result<Config> {
    let (element_bytes, locality) = chain_geometry(topo, args)?;
    let plan = sample_plan(args)?;
    if let Some(n) = args.mem_node {
        // PlacedBuffer checks this too; saying it before any thread starts is clearer.
        match topo.node(n) {
            None => bail!(
                "--mem-node {n} does not exist; this machine has nodes {}",
                format_list(&topo.node_ids())
            ),
            Some(node) if !node.has_memory => bail!(
                "--mem-node {n} has no memory (CPUs only), so nothing can be placed there; choose one of the memory nodes {}",
                format_list(&topo.memory_nodes())
            ),
            _ => {}
        }
    }
    let spec_for = |chains: usize| ChainSpec {
        mode: args.mode,
        chains,
        element_bytes,
        group_bytes: locality,
        seed: args.seed,
    };
    let variant = if args.matrix {
        matrix_variant(topo, root, args)?
    } else {
        point_variant(topo, root, args, element_bytes, &spec_for)?
    };
    Ok(Config {
        variant,
        modes: vec![args.mode],
        pages: args.page_size.clone(),
        chains: args.chains.clone(),
        element_bytes,
        group_bytes: locality,
        seed: args.seed,
        plan,
        clock: None,
        keep_going: false,
    })
}

/// `--stride` and `--locality`, checked: the element size and the page-mode group (0: the
/// page size's).
fn chain_geometry(topo: &Topology, args: &LatencyArgs) -> anyhow::Result<(u64, u64)> {
    let line = topo.line_bytes();
    let element_bytes = match &args.stride {
        Some(s) => size_flag("--stride", s)?,
        None => line,
    };
    if element_bytes < 8 || element_bytes % 8 != 0 {
        bail!("--stride {element_bytes} is not a positive multiple of 8 bytes; use a multiple of the {line}-byte cache line");
    }
    let locality = match &args.locality {
        Some(s) => {
            let v = size_flag("--locality", s)?;
            if v < element_bytes {
                bail!("--locality {v} is smaller than one element ({element_bytes} bytes); use at least the page size");
            }
            v
        }
        None => 0,
    };
    for &c in &args.chains {
        if !chase::SUPPORTED_CHAINS.contains(&c) {
            bail!("--chains {c} is not supported; use 1, 2, 4, 8 or 16");
        }
    }
    Ok((element_bytes, locality))
}

/// `--samples`, `--warmup` and `--sample-ms`, checked.
fn sample_plan(args: &LatencyArgs) -> anyhow::Result<SamplePlan> {
    if args.samples == 0 {
        bail!("--samples 0 keeps nothing; give at least 1");
    }
    if !(args.sample_ms > 0.0 && args.sample_ms <= 10_000.0) {
        bail!(
            "--sample-ms {} is out of range; give a duration between 0 and 10000 ms",
            args.sample_ms
        );
    }
    Ok(SamplePlan {
        samples: args.samples,
        warmup: args.warmup,
        min_sample_ns: (args.sample_ms * 1e6) as u64,
    })
}

/// `--matrix` with its `--cpu` list (at most one CPU per node) and `--size`.
fn matrix_variant(topo: &Topology, root: &SysRoot, args: &LatencyArgs) -> anyhow::Result<Variant> {
    if !args.cpu.is_empty() {
        crate::threads::check_cpus(topo, root, &args.cpu)?;
    }
    let mut seen: Vec<u32> = Vec::new();
    for &c in &args.cpu {
        let node = topo.node_of_cpu(c).unwrap_or(u32::MAX);
        if seen.contains(&node) {
            bail!("--cpu {} names two CPUs of node {node}; with --matrix give at most one CPU per node", format_list(&args.cpu));
        }
        seen.push(node);
    }
    let size = match args.size.first() {
        Some(s) => Some(size_flag("--size", s)?),
        None => None,
    };
    Ok(Variant::Matrix {
        cells: None,
        cpus: args.cpu.clone(),
        size,
    })
}

/// One CPU: `--size` (or the default size) or `--sweep`, each size checked against the
/// chain geometry and the free memory where the buffer goes.
fn point_variant(
    topo: &Topology,
    root: &SysRoot,
    args: &LatencyArgs,
    element_bytes: u64,
    spec_for: &dyn Fn(usize) -> ChainSpec,
) -> anyhow::Result<Variant> {
    let cpu = choose_cpu(topo, args)?;
    crate::threads::check_cpus(topo, root, &[cpu])?;
    let at = Chaser {
        cpu,
        mem_node: args.mem_node,
    };
    let free = free_bytes(topo, args.mem_node);
    let sweep_sizes = match &args.sweep {
        None => None,
        Some(r) => {
            let (from, to) = parse_range(r)?;
            let from = from.unwrap_or(sweep::DEFAULT_FROM_BYTES);
            let to = to.unwrap_or_else(|| sweep::default_upper(topo.llc_total_bytes(), free));
            if to < from {
                bail!(
                    "--sweep {}..{} ends before it starts; give FROM below TO",
                    format_bytes(from),
                    format_bytes(to)
                );
            }
            Some(sweep::sizes(
                from,
                to,
                sweep::POINTS_PER_OCTAVE,
                element_bytes,
            ))
        }
    };
    let sizes: Vec<u64> = match &sweep_sizes {
        Some(s) => s.clone(),
        None if args.size.is_empty() => {
            vec![matrix::default_size(
                topo,
                &args
                    .mem_node
                    .map_or_else(|| topo.memory_nodes(), |n| vec![n]),
                // Whole pages of the largest backing asked for, so 1g gets 1 GiB multiples.
                args.page_size
                    .iter()
                    .copied()
                    .max_by_key(|p| p.bytes())
                    .unwrap_or(PageSize::Base),
            )]
        }
        None => args
            .size
            .iter()
            .map(|s| size_flag("--size", s))
            .collect::<anyhow::Result<_>>()?,
    };
    for &s in &sizes {
        if sweep_sizes.is_none() {
            for page in &args.page_size {
                page.check_whole_pages(s)
                    .map_err(|e| anyhow::anyhow!("--size {e}"))?;
            }
        }
        if s < element_bytes {
            bail!("a working set of {s} bytes is smaller than one element ({element_bytes} bytes, a cache line unless --stride says otherwise); use at least {element_bytes}");
        }
        crate::placement::check_limit(topo, s, "--size")?;
        if s > free {
            bail!(
                "--size {} is more than the {} free where the buffer would go; use a smaller size",
                format_bytes(s),
                format_bytes(free)
            );
        }
        for &c in &args.chains {
            chase::check(&spec_for(c), s)?;
        }
    }
    Ok(match sweep_sizes {
        Some(sizes) => Variant::Sweep { at, sizes },
        None => Variant::Sizes { at, sizes },
    })
}

/// Runs `latency`.
pub fn run(ctx: &Context, args: &LatencyArgs) -> anyhow::Result<()> {
    let root = &ctx.root;
    let topo = read_topology(root)?;
    // A size the process's memory limits refuse is said before "a snapshot cannot measure".
    if let Some(s) = args.size.first() {
        crate::placement::check_limit(&topo, size_flag("--size", s)?, "--size")?;
    }
    root.require_live("measure latency")?;
    let cfg = resolve(&topo, root, args)?;
    let _host_lock = super::measuring_lock(ctx)?;
    let bar = indicatif::ProgressBar::with_draw_target(None, super::ui::progress_target());
    let progress = |d: usize, t: usize| {
        bar.set_length(t as u64);
        bar.set_position(d as u64);
    };
    let mut report = crate::latency::run(&topo, root, &cfg, &progress)?.into_result()?;
    bar.finish_and_clear();
    // A standalone report carries this warning first; the full run states it once, as a
    // finding.
    if topo.environment.numa_balancing.unwrap_or(0) != 0 && topo.memory_nodes().len() > 1 {
        report.warnings.insert(0,
            "automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing): the kernel may migrate pages of a remote-memory measurement toward the chasing CPU".into(),
        );
    }

    super::print_result(args.json, &report, |out| latency_text::render(&report, out))
}
