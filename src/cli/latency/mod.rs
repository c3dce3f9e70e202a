//! `numascope latency`: pointer-chasing latency at one or more sizes (`--size`), the
//! working-set curve with its knees beside the sysfs cache sizes (`--sweep`), or the
//! initiator x memory node matrix (`--matrix`). Flags are parsed, resolved against the
//! topology and validated here into a [`Config`] (one sentence per mistake, exit 2), then
//! [`crate::latency::run`] measures and the finished report goes to the text or JSON renderer.

use anyhow::bail;
use clap::Args;

use crate::cli::Context;
use crate::latency::chase::{self, ChainSpec};
use crate::latency::matrix;
use crate::latency::{Chaser, Config, Variant};
use crate::parse::selection;
use crate::render::latency_text;
use crate::results::format::format_list;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::sysroot::SysRoot;
mod sizes;

use crate::results::topology::Topology;
use crate::topology::read_topology;
pub(crate) use sizes::parse_range;
use sizes::{chain_geometry, check_size, distribution_groups, sample_plan, size_flag, sweep_sizes};

/// Flags of `numascope latency`.
#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// How the next load is chosen: random (any line of the buffer: TLB misses included),
    /// page (random lines within a page, pages in random order) or seq (fixed stride).
    #[arg(long, default_value = "random", value_name = "MODE", hide_possible_values = true,
        value_parser = super::hints::hinted::<Mode>(super::hints::MODES))]
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
    #[arg(long, conflicts_with_all = ["mem_nodes", "cpu_nodes"])]
    pub matrix: bool,
    /// CPU to chase from, in the CPU list syntax of docs/cli.md (`1`, `+0`, `!0`, `S0:1`,
    /// `M1:0`); one CPU, except with --matrix: a list with at most one CPU per node.
    /// Default: the first usable CPU.
    #[arg(long, alias = "cpu", value_name = "CPUS")]
    pub cpus: Option<String>,
    /// Chase from the first usable CPU of this node (one node, node list syntax).
    #[arg(long, alias = "cpu-node", conflicts_with = "cpus", value_name = "NODE")]
    pub cpu_nodes: Option<String>,
    /// Bind the buffer to this memory node (one node; default: first touch from the chasing
    /// CPU).
    #[arg(long, alias = "mem-node", value_name = "NODE")]
    pub mem_nodes: Option<String>,
    /// Page backing, comma-separated: 4k (MADV_NOHUGEPAGE), thp, 2m or 1g (reserved hugetlb).
    /// Default 4k, numascope's default everywhere but bandwidth: a random chase over 4 KiB
    /// pages includes the page walks most programs pay.
    #[arg(long, value_delimiter = ',', default_value = "4k", value_name = "PAGE", hide_possible_values = true,
        value_parser = super::hints::hinted::<PageSize>(super::hints::PAGE_SIZES))]
    pub page_size: Vec<PageSize>,
    /// Independent chains walked together, comma-separated: 1, 2, 4, 8, 16.
    #[arg(long, value_delimiter = ',', default_value = "1", value_name = "N")]
    pub chains: Vec<usize>,
    /// Spacing of the chased elements (the step of seq), bytes; default one cache line.
    #[arg(long, value_name = "BYTES")]
    pub stride: Option<String>,
    /// Locality group of --mode page, bytes; default the page size in use (2 MiB for thp).
    /// Only page mode has groups, so other modes refuse it.
    #[arg(long, value_name = "BYTES")]
    pub locality: Option<String>,
    /// Samples per measurement, 1 to 10000: a size (asked by --size, or a sweep's point) is
    /// measured in at least 6 blocks of them spread over the command (passes over the sizes,
    /// a --size pass at least 100 ms after the last), each after an untimed walk back to
    /// steady state; the headline is the median of the block medians and its interval is
    /// over the blocks.
    #[arg(long, default_value_t = 25, value_name = "N")]
    pub samples: usize,
    /// Samples run and dropped first, 0 to 1000.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub warmup: usize,
    /// Minimum duration of one sample, milliseconds.
    #[arg(long, default_value_t = 2.0, value_name = "MS")]
    pub sample_ms: f64,
    /// Seed of the chain shuffles of random and page mode (the same seed builds the same
    /// chains); default 7959388181762371440. Seq mode shuffles nothing, so it refuses a seed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Also measure the per-load latency distribution at the first --size (default: the DRAM
    /// size), first --page-size and --mode, one chain: groups of 16 dependent loads each timed
    /// with the CPU's counter, its own cost subtracted; prints percentiles and a histogram
    /// beside the chase's ns per load.
    #[arg(long, conflicts_with_all = ["sweep", "matrix"])]
    pub distribution: bool,
    /// Groups of 16 loads timed by --distribution.
    #[arg(long, requires = "distribution", value_name = "N")]
    pub groups: Option<usize>,
    /// Also write the distribution and MLP tables as CSV files into this directory
    /// (latency_distribution.csv, latency_histogram.csv, latency_mlp.csv; see docs/csv.md),
    /// each only when the report holds its rows.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<std::path::PathBuf>,
    /// Print the report as JSON (schema_version 1, see docs/schema/latency.md).
    #[arg(long)]
    pub json: bool,
}

/// The seed of the chain shuffles when `--seed` is not given.
const DEFAULT_SEED: u64 = 0x6e75_6d61_7363_6f70;

fn choose_cpu(topo: &Topology, args: &LatencyArgs) -> anyhow::Result<u32> {
    if let Some(text) = &args.cpus {
        return selection::one_cpu(
            topo,
            "--cpus",
            text,
            "latency chases from one CPU (a list is for --matrix)",
        );
    }
    if let Some(text) = &args.cpu_nodes {
        let n = selection::one_node(
            topo,
            "--cpu-nodes",
            text,
            &topo.initiator_nodes(),
            "one chaser runs on one node",
        )?;
        if topo.node(n).is_none() {
            bail!(
                "--cpu-nodes {n} does not exist; this machine has nodes {}",
                format_list(&topo.node_ids())
            );
        }
        return topo.usable_cpus_of(n).first().copied().ok_or_else(|| {
            anyhow::anyhow!(
                "--cpu-nodes {n} has no CPU this process may use; choose one of the initiator nodes {}",
                format_list(&topo.initiator_nodes())
            )
        });
    }
    topo.usable_cpus()
        .first()
        .copied()
        .ok_or_else(|| anyhow::anyhow!("this process may run on no online CPU"))
}

/// `--mem-nodes`: the one node the buffer is bound to, checked to exist and hold memory.
fn mem_node(topo: &Topology, args: &LatencyArgs) -> anyhow::Result<Option<u32>> {
    let Some(text) = &args.mem_nodes else {
        return Ok(None);
    };
    let n = selection::one_node(
        topo,
        "--mem-nodes",
        text,
        &topo.memory_nodes(),
        "the chased buffer is bound to one node",
    )?;
    // PlacedBuffer checks this too; saying it before any thread starts is clearer.
    match topo.node(n) {
        None => bail!(
            "--mem-nodes {n}: node {n} does not exist; this machine has nodes {}",
            format_list(&topo.node_ids())
        ),
        Some(node) if !node.has_memory => bail!(
            "--mem-nodes {n} has no memory (CPUs only), so nothing can be placed there; choose one of the memory nodes {}",
            format_list(&topo.memory_nodes())
        ),
        _ => Ok(Some(n)),
    }
}

/// Flags that the chosen mode or variant would ignore, refused with the flag that applies.
fn check_applicability(args: &LatencyArgs) -> anyhow::Result<()> {
    if args.locality.is_some() && args.mode != Mode::Page {
        bail!(
            "--locality sets the groups of --mode page and --mode {} has none; drop --locality or use --mode page",
            args.mode.label()
        );
    }
    // --csv writes the distribution and MLP tables; the MLP factor needs one chain and more
    // (`--chains 1,4`), so without either there is no row to write.
    let mlp = args.chains.contains(&1) && args.chains.iter().any(|&c| c > 1);
    if args.csv.is_some() && !args.distribution && !mlp {
        bail!("--csv writes the --distribution and MLP tables, and neither is measured here; add --distribution or --chains 1,4 (MLP), or drop --csv");
    }
    if args.seed.is_some() && args.mode == Mode::Seq {
        bail!("--seed shuffles the chains of --mode random and page, and --mode seq walks in order; drop --seed or use --mode random");
    }
    if args.matrix {
        if args.size.len() > 1 {
            bail!(
                "--matrix measures one working set and --size names {}; give one --size",
                args.size.len()
            );
        }
        if args.chains.len() > 1 {
            bail!(
                "--matrix walks one chain count and --chains names {}; give one --chains",
                args.chains.len()
            );
        }
        if args.page_size.len() > 1 {
            bail!(
                "--matrix measures one page backing and --page-size names {}; give one --page-size",
                args.page_size.len()
            );
        }
    }
    Ok(())
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
    check_applicability(args)?;
    let (element_bytes, locality) = chain_geometry(topo, args)?;
    let plan = sample_plan(args)?;
    let mem_node = mem_node(topo, args)?;
    let seed = args.seed.unwrap_or(DEFAULT_SEED);
    let spec_for = |chains: usize| ChainSpec {
        mode: args.mode,
        chains,
        element_bytes,
        group_bytes: locality,
        seed,
    };
    let variant = if args.matrix {
        matrix_variant(topo, root, args)?
    } else {
        point_variant(topo, root, args, mem_node, element_bytes, &spec_for)?
    };
    Ok(Config {
        variant,
        modes: vec![args.mode],
        pages: super::distinct("--page-size", &args.page_size)?,
        chains: super::distinct("--chains", &args.chains)?,
        element_bytes,
        group_bytes: locality,
        seed,
        plan,
        clock: None,
        keep_going: false,
        distribution: distribution_groups(args)?,
        distribution_bytes: None,
    })
}

/// `--matrix` with its `--cpu` list (at most one CPU per node) and `--size`.
fn matrix_variant(topo: &Topology, root: &SysRoot, args: &LatencyArgs) -> anyhow::Result<Variant> {
    let cpus = match &args.cpus {
        Some(text) => selection::cpus(topo, "--cpus", text)?,
        None => vec![],
    };
    if !cpus.is_empty() {
        crate::threads::check_cpus(topo, root, &cpus)?;
    }
    let mut seen: Vec<u32> = Vec::new();
    for &c in &cpus {
        let node = topo.node_of_cpu(c).unwrap_or(u32::MAX);
        if seen.contains(&node) {
            bail!("--cpus {} names two CPUs of node {node}; with --matrix give at most one CPU per node", format_list(&cpus));
        }
        seen.push(node);
    }
    let size = match args.size.first() {
        Some(s) => Some(size_flag("--size", s)?),
        None => None,
    };
    Ok(Variant::Matrix {
        cells: None,
        cpus,
        size,
    })
}

/// One CPU: `--size` (or the default size) or `--sweep`, each size checked against the
/// chain geometry and the free memory where the buffer goes.
fn point_variant(
    topo: &Topology,
    root: &SysRoot,
    args: &LatencyArgs,
    mem_node: Option<u32>,
    element_bytes: u64,
    spec_for: &dyn Fn(usize) -> ChainSpec,
) -> anyhow::Result<Variant> {
    let cpu = choose_cpu(topo, args)?;
    crate::threads::check_cpus(topo, root, &[cpu])?;
    let at = Chaser { cpu, mem_node };
    let free = free_bytes(topo, mem_node);
    let sweep_sizes = sweep_sizes(topo, args, free, element_bytes)?;
    let sizes: Vec<u64> = match &sweep_sizes {
        Some(s) => s.clone(),
        None if args.size.is_empty() => {
            vec![matrix::default_size(
                topo,
                &mem_node.map_or_else(|| topo.memory_nodes(), |n| vec![n]),
                // Whole pages of the largest backing asked for, so 1g gets 1 GiB multiples.
                args.page_size
                    .iter()
                    .copied()
                    .max_by_key(|p| p.bytes())
                    .unwrap_or(PageSize::Base),
            )]
        }
        None => super::distinct(
            "--size",
            &args
                .size
                .iter()
                .map(|s| size_flag("--size", s))
                .collect::<anyhow::Result<Vec<u64>>>()?,
        )?,
    };
    for &s in &sizes {
        check_size(topo, args, s, free, element_bytes, sweep_sizes.is_none())?;
        for &c in &args.chains {
            chase::check(&spec_for(c), s)?;
        }
    }
    Ok(match sweep_sizes {
        Some(sizes) => Variant::Sweep { at, sizes },
        None => Variant::Sizes {
            at,
            sizes,
            in_blocks: true,
        },
    })
}

/// Runs `latency`.
pub fn run(ctx: &Context, args: &LatencyArgs) -> anyhow::Result<()> {
    let root = &ctx.root;
    // A snapshot that cannot even be read is refused as a snapshot (nothing is measured on
    // one); a readable one first has its memory limits checked against --size.
    let topo = match read_topology(root) {
        Ok(t) => t,
        Err(e) => {
            root.require_live("measure latency")?;
            return Err(e.into());
        }
    };
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
    // The headline figures take extras toward +-3 %, at most the planned count.
    let goal = crate::threads::precision::PrecisionGoal::standalone();
    let mut report =
        crate::latency::experiment::run_toward(&topo, root, &cfg, Some(&goal), &progress)?
            .into_result()?;
    bar.finish_and_clear();
    // A standalone report carries this warning first; the full run states it once, as a
    // finding.
    if topo.environment.numa_balancing.unwrap_or(0) != 0 && topo.memory_nodes().len() > 1 {
        report.warnings.insert(0,
            "automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing): the kernel may migrate pages of a remote-memory measurement toward the chasing CPU".into(),
        );
    }

    if let Some(dir) = &args.csv {
        // The tables with rows, one file each.
        let l = Some(&report);
        use crate::render::run_view::latency as view;
        let tables = [
            view::latency_sizes_table(l),
            view::latency_sweep_table(l),
            crate::render::run_view::latency_matrix::latency_matrix_table(l),
        ];
        let extra = crate::render::run_view::latency_dist::latency_extra_tables(l);
        let all = tables.into_iter().chain(extra);
        super::write_tables_csv(dir, all.filter(|t| !t.rows.is_empty()))?;
    }
    super::print_result(args.json, &report, |out| latency_text::render(&report, out))
}
