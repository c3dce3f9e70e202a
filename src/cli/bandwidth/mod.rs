//! `numascope bandwidth`: the raw flags, resolved into validated runs (kernels, CPUs, memory
//! placement, sizes), measured by `crate::bandwidth`, and rendered as text or JSON, with the
//! run's CSV tables (`--csv DIR`) and an HTML page of its charts (`--html OUT.html`). Validation
//! happens before anything is allocated or pinned, so bad input (even against a replayed
//! snapshot) costs one sentence and exit status 2.

use clap::Args;

use super::Context;
use crate::bandwidth::descriptor::by_name;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::bandwidth::plan::{check_fits, memory_placement, select_cpus, MemPlacement, Order};
use crate::bandwidth::{Config, RunSettings, Variant, WorkingSet};
use crate::parse::cpulist::excerpt;
use crate::parse::duration::{parse_duration, BANDWIDTH_REPETITION};
use crate::parse::selection;
use crate::placement::Policy;
use crate::render::bandwidth_text;
use crate::results::bandwidth::Isa;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::topology::read_topology;

mod checks;
mod sizes;

use checks::{check_applicability, check_sizes, parse_stride, repetitions_and_page};
use sizes::{parse_sizes, per_thread_sizes};

/// `--repetitions` when not given: the fewest with a 95 % interval for the median.
pub const DEFAULT_REPETITIONS: usize = 6;

/// Memory bandwidth with kernels described as data, pinned threads and placed buffers.
#[derive(Debug, Args)]
pub struct BandwidthArgs {
    /// Print the kernels with their byte accounting and exit.
    #[arg(long)]
    pub list_kernels: bool,
    /// Kernels to run, comma separated (see --list-kernels). Default: read,write,copy,triad;
    /// triad for --matrix and --scaling.
    #[arg(long, value_name = "LIST", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(&super::hints::bandwidth_kernels()))]
    pub kernel: Option<String>,
    /// Number of threads (default 1; with --matrix: every usable CPU of each initiator node).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Pin the threads to exactly these CPUs (one thread each), in the list syntax of
    /// docs/cli.md: `0-3,8`, `all`, `!0`, `+0-1`, `N:0-3`, `S0:`, `M1:`, `C0:`.
    #[arg(long, alias = "cpu", value_name = "LIST", conflicts_with = "cpu_nodes")]
    pub cpus: Option<String>,
    /// Take the threads' CPUs from these nodes (default: every node with usable CPUs).
    #[arg(long, alias = "cpu-node", value_name = "LIST")]
    pub cpu_nodes: Option<String>,
    /// Fill one node's CPUs (one per core first) before the next (default). Orders the CPUs
    /// --threads takes, so not with --cpus, --matrix or --scaling.
    #[arg(long, conflicts_with = "spread")]
    pub packed: bool,
    /// Round robin over the nodes: each new thread on the next node (not with --cpus,
    /// --matrix or --scaling).
    #[arg(long)]
    pub spread: bool,
    /// Memory: local (first touch by each thread), node, interleave or weighted.
    #[arg(long, value_name = "MODE")]
    pub placement: Option<String>,
    /// Memory nodes: for `node`, one node for every stream or one per stream in stream order
    /// (`1,0`: stream 0 on node 1, stream 1 on node 0); for `interleave`, the node set
    /// (`all`, `!0`, `+0-1` as in numactl).
    #[arg(long, alias = "mem-node", value_name = "LIST")]
    pub mem_nodes: Option<String>,
    /// Weights for --placement weighted (alone they imply it), e.g. 0:3,1:1.
    #[arg(long, value_name = "NODE:W,...")]
    pub weights: Option<String>,
    /// Measure every initiator node against every memory node.
    #[arg(long, conflicts_with = "scaling")]
    pub matrix: bool,
    /// Measure 1..N threads, packed within each node and packed/spread over the machine.
    #[arg(long)]
    pub scaling: bool,
    /// Total working set of one run, all threads and streams (likwid-bench's convention),
    /// e.g. 1GiB. Default: each stream's arrays together 4x the last-level cache, >= 256 MiB.
    /// A list (16KiB,256KiB,4MiB) measures every kernel at each size, as --sweep does.
    #[arg(long)]
    pub size: Option<String>,
    /// Bandwidth against working-set size per thread, FROM..TO (FROM.., ..TO or nothing for
    /// the default: half the L1d to 4x the last-level cache), 2 points per octave; each size
    /// is labelled with the cache it fits in. Default kernels: read,write,copy.
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "FROM..TO",
          conflicts_with_all = ["size", "matrix", "scaling"])]
    pub sweep: Option<String>,
    /// Peak injection bandwidth per read/write mix (MLC's --peak_injection_bandwidth with
    /// -W): every node of --cpu-nodes and every package with 1, half and all its usable CPUs,
    /// each thread's memory bound to its own node, and each node's L3 domains alone and all
    /// at once.
    #[arg(long, conflicts_with_all = ["matrix", "scaling", "sweep", "stream_matrix"])]
    pub peak: bool,
    /// Mixes for --peak: all (default) or a list of read, 3:1, 2:1, 1:1, write-nt, 2:1-nt,
    /// triad-like (also write, 3:1-nt, 1:1-nt); reads:writes in cache lines.
    #[arg(long, value_name = "LIST")]
    pub mix: Option<String>,
    /// Length of one repetition: 200ms, 1s, or milliseconds.
    #[arg(long, default_value = "200ms")]
    pub duration: String,
    /// Repetitions kept, 1 to 1000 (the median is the headline; 6 is the fewest with a 95 %
    /// interval for the median, and the headline figures take extras toward ±3 % up to twice
    /// as many).
    #[arg(long, default_value_t = DEFAULT_REPETITIONS)]
    pub repetitions: usize,
    /// Repetitions run first and dropped, 0 to 100.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Force an instruction set: scalar, avx2 or avx512 (default: avx2 where present, since
    /// 512-bit code lowers the clock of Intel server cores for no bandwidth gain).
    #[arg(long)]
    pub isa: Option<String>,
    /// Page backing of the arrays: thp (default: transparent huge pages via MADV_HUGEPAGE),
    /// 4k, 2m or 1g (hugetlbfs, must be reserved). Bandwidth is the one measurement whose
    /// default is not 4k: its streams touch every line of every page, so 4 KiB pages add a
    /// page walk every 64 lines that is not the memory's bandwidth.
    #[arg(long, default_value = "thp", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(super::hints::PAGE_SIZES))]
    pub page_size: String,
    /// Print JSON (schema_version 1).
    #[arg(long)]
    pub json: bool,
    /// LIKWID's per-stream placement as a matrix: threads on each --cpu-nodes node (default
    /// the first), the read stream(s) on each --mem-nodes node (rows) and the written stream
    /// on each (columns); kernel copy unless --kernel names copy-nt, scale, add or triad.
    #[arg(long, conflicts_with_all = ["matrix", "scaling", "sweep", "list_kernels"])]
    pub stream_matrix: bool,
    /// Interleaved rounds of --stream-matrix (each cell once per round; default 9).
    #[arg(long, requires = "stream_matrix", value_name = "N")]
    pub rounds: Option<usize>,
    /// Also write the tables as CSV into this directory, the files `run` writes for the same
    /// part (docs/csv.md): bandwidth.csv, with --sweep or a --size list bandwidth_sweep.csv,
    /// with --matrix bandwidth_matrix.csv, with --scaling scaling.csv, with --peak peak.csv
    /// and peak_domains.csv, with --stream-matrix stream_matrix.csv.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<std::path::PathBuf>,
    /// Also write a page with the run report's charts for what was measured (the peak's
    /// per-mix bars and L3-domain table, the matrices' heat maps, the curves) to this file;
    /// an existing file is refused.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<std::path::PathBuf>,
    // --- --stride (NUMA-STREAM's strided kernels) ---
    /// Process every N-th element (N in 8 B elements), or `line` for one element per cache
    /// line, on read, write, copy, scale, add, triad and update. MB/s then counts the useful
    /// bytes of the elements processed; the DRAM estimate counts the lines they move.
    #[arg(long, value_name = "N|line", conflicts_with_all = ["peak", "stream_matrix"])]
    pub stride: Option<String>,
}

/// `--mem-nodes`: plain comma lists keep their order (per-stream meaning); ranges, `all`,
/// `!` and `+` are sets.
fn parse_mem_nodes(topo: &Topology, text: &str) -> anyhow::Result<Vec<u32>> {
    let t = text.trim();
    let universe = topo.memory_nodes();
    if t.contains('-') || t.starts_with(['!', '+']) || t.eq_ignore_ascii_case("all") {
        return selection::nodes(topo, "--mem-nodes", t, &universe);
    }
    if t.is_empty() || t.split(',').any(|p| p.trim().is_empty()) {
        anyhow::bail!(
            "--mem-nodes `{}` is not a node list; write node numbers such as 0 or 0,1",
            excerpt(t)
        );
    }
    t.split(',')
        .map(|p| {
            selection::one_node(
                topo,
                "--mem-nodes",
                p,
                &universe,
                "each stream has one node",
            )
        })
        .collect()
}

/// Resolves the flags against the topology into a validated [`Config`]: every flag is parsed
/// and checked here, once, before anything is allocated or pinned.
fn resolve(topo: &Topology, args: &BandwidthArgs) -> anyhow::Result<Config> {
    check_applicability(args)?;
    let kernels = kernels(topo, args)?;
    let duration =
        parse_duration(&args.duration, &BANDWIDTH_REPETITION).map_err(anyhow::Error::msg)?;
    let page = repetitions_and_page(args)?;
    let order = if args.spread {
        Order::Spread
    } else {
        Order::Packed
    };
    if args.peak {
        return resolve_peak(topo, args, duration, page);
    }
    let (cpus, cpu_nodes) = threads(topo, args, order)?;
    let placement = placement(topo, args)?;
    let sizes = match &args.size {
        Some(t) => parse_sizes(t)?,
        None => vec![],
    };
    if sizes.len() > 1 && (args.matrix || args.scaling) {
        anyhow::bail!(
            "--{} measures one working set, so a list of sizes does nothing there; give one --size, or drop --{} to measure every kernel at each size",
            if args.matrix { "matrix" } else { "scaling" },
            if args.matrix { "matrix" } else { "scaling" }
        );
    }
    let size = (sizes.len() == 1).then(|| sizes[0]);
    let settings = settings(topo, args, page, duration, size);
    let per_thread = per_thread_sizes(topo, args, &cpus, &sizes)?;
    if per_thread.is_empty() {
        check_sizes(topo, args, &kernels, &cpus, &placement, &settings, size)?;
    } else {
        for &b in &per_thread {
            let s = RunSettings {
                size: WorkingSet::Total(b * cpus.len() as u64),
                ..settings.clone()
            };
            check_sizes(
                topo,
                args,
                &kernels,
                &cpus,
                &placement,
                &s,
                Some(b * cpus.len() as u64),
            )?;
        }
    }
    Ok(Config {
        kernels,
        variant: variant(args, cpus, cpu_nodes, per_thread),
        placement,
        settings,
        keep_going: false,
    })
}

/// The settings every bandwidth variant shares: pages, timing, repetitions and working set.
fn settings(
    topo: &Topology,
    args: &BandwidthArgs,
    page: PageSize,
    duration: std::time::Duration,
    size: Option<u64>,
) -> RunSettings {
    RunSettings {
        page,
        duration,
        repetitions: args.repetitions,
        warmup: args.warmup,
        params: Params {
            line_words: (topo.line_bytes() / 8) as usize,
            ..Params::default()
        },
        size: size.map_or(WorkingSet::Default, WorkingSet::Total),
    }
}

/// The variant the flags ask for: a size list or sweep, the matrix, scaling, or kernels.
fn variant(args: &BandwidthArgs, cpus: Vec<u32>, nodes: Vec<u32>, per_thread: Vec<u64>) -> Variant {
    if !per_thread.is_empty() {
        Variant::Sizes {
            cpus,
            per_thread_bytes: per_thread,
            sweep: args.sweep.is_some(),
        }
    } else if args.matrix {
        Variant::Matrix {
            cells: None,
            threads: args.threads,
        }
    } else if args.scaling {
        Variant::Scaling {
            nodes,
            thread_counts: None,
            machine_wide: true,
        }
    } else {
        Variant::Kernels { cpus }
    }
}

/// `--peak`: the mixes, the nodes, the read kernel for `--isa`, and the largest run's working
/// set checked against each node's free memory.
fn resolve_peak(
    topo: &Topology,
    args: &BandwidthArgs,
    duration: std::time::Duration,
    page: PageSize,
) -> anyhow::Result<Config> {
    use crate::bandwidth::peak::buffer_bytes;
    use crate::bandwidth::peak_plan::{plan, PeakMix};
    let mixes =
        PeakMix::parse_list(args.mix.as_deref().unwrap_or("all")).map_err(anyhow::Error::msg)?;
    let nodes = match &args.cpu_nodes {
        Some(t) => selection::nodes(topo, "--cpu-nodes", t, &topo.initiator_nodes())?,
        None => topo.initiator_nodes(),
    };
    anyhow::ensure!(
        !nodes.is_empty(),
        "no node has usable CPUs, so --peak has nothing to run; check the process's allowed CPUs (taskset, cgroup cpuset)"
    );
    let size = match &args.size {
        Some(t) => Some(parse_sizes(t)?[0]),
        None => None,
    };
    let isa = Isa::resolve(args.isa.as_deref())?;
    let read = Kernel::new(by_name("read")?.id, isa)?;
    let settings = settings(topo, args, page, duration, size);
    for &n in &nodes {
        let threads = topo.usable_cpus_of(n).len();
        let most = mixes
            .iter()
            .map(|&m| buffer_bytes(topo, &settings, m, threads))
            .max()
            .unwrap_or(0);
        if topo.node(n).is_some_and(|x| x.has_memory) {
            check_fits(topo, &[n], most * threads as u64).map_err(anyhow::Error::msg)?;
        }
    }
    Ok(Config {
        kernels: vec![read],
        variant: Variant::Peak(plan(topo, &mixes, &nodes, true)),
        placement: MemPlacement::Local,
        settings,
        keep_going: false,
    })
}

/// `--kernel` (or the variant's default kernels) built for `--isa`.
fn kernels(topo: &Topology, args: &BandwidthArgs) -> anyhow::Result<Vec<Kernel>> {
    let isa = Isa::resolve(args.isa.as_deref())?;
    let default_kernels = if args.matrix || args.scaling {
        "triad"
    } else if args.sweep.is_some() {
        "read,write,copy"
    } else {
        "read,write,copy,triad"
    };
    let stride = match &args.stride {
        Some(t) => Some(parse_stride(topo, t)?),
        None => None,
    };
    let mut kernels = Vec::new();
    for name in args.kernel.as_deref().unwrap_or(default_kernels).split(',') {
        let d = by_name(name)?;
        let k = Kernel::new(d.id, isa)?;
        kernels.push(match stride {
            Some(s) => k.with_stride(s)?,
            None => k,
        });
    }
    Ok(kernels)
}

/// The CPUs of a kernels run and the initiator nodes of a scaling run, from `--cpus`,
/// `--cpu-nodes`, `--threads` and the order, checked against the variant.
fn threads(
    topo: &Topology,
    args: &BandwidthArgs,
    order: Order,
) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    let cpu_list = match &args.cpus {
        Some(t) => Some(selection::cpus(topo, "--cpus", t)?),
        None => None,
    };
    let node_list = match &args.cpu_nodes {
        Some(t) => Some(selection::nodes(
            topo,
            "--cpu-nodes",
            t,
            &topo.initiator_nodes(),
        )?),
        None => None,
    };
    Ok(if args.matrix {
        anyhow::ensure!(
            cpu_list.is_none() && node_list.is_none(),
            "--matrix uses every initiator node's CPUs; drop --cpus/--cpu-nodes (use --threads N to take N CPUs of each node)"
        );
        anyhow::ensure!(
            args.threads != Some(0),
            "--threads 0 runs nothing; give at least 1"
        );
        (vec![], topo.initiator_nodes())
    } else if args.scaling {
        anyhow::ensure!(
            cpu_list.is_none() && args.threads.is_none(),
            "--scaling chooses the thread counts itself; drop --cpus/--threads (use --cpu-nodes to restrict the nodes)"
        );
        (vec![], node_list.unwrap_or_else(|| topo.initiator_nodes()))
    } else {
        let cpus = select_cpus(
            topo,
            cpu_list.as_deref(),
            node_list.as_deref(),
            args.threads,
            order,
        )
        .map_err(anyhow::Error::msg)?;
        let mut nodes: Vec<u32> = cpus.iter().filter_map(|&c| topo.node_of_cpu(c)).collect();
        nodes.sort_unstable();
        nodes.dedup();
        (cpus, nodes)
    })
}

/// `--placement`, `--mem-nodes` and `--weights` as one memory placement.
fn placement(topo: &Topology, args: &BandwidthArgs) -> anyhow::Result<MemPlacement> {
    let mem_nodes = match &args.mem_nodes {
        Some(t) => Some(parse_mem_nodes(topo, t)?),
        None => None,
    };
    let weights = match &args.weights {
        Some(t) => match Policy::from_args("weighted", None, Some(t), &[]) {
            Ok(Policy::WeightedInterleave(w)) => Some(w),
            Ok(_) => unreachable!("from_args(\"weighted\") builds a weighted policy"),
            Err(e) => anyhow::bail!("--weights: {e}"),
        },
        None => None,
    };
    anyhow::ensure!(
        !(args.matrix && (mem_nodes.is_some() || args.placement.is_some())),
        "--matrix binds each column's memory to its node itself; drop --placement/--mem-nodes"
    );
    memory_placement(
        topo,
        args.placement.as_deref(),
        mem_nodes.as_deref(),
        weights.as_deref(),
    )
    .map_err(anyhow::Error::msg)
}

pub fn run(ctx: &Context, args: &BandwidthArgs) -> anyhow::Result<()> {
    check_applicability(args)?;
    let topo = read_topology(&ctx.root)?;
    if args.list_kernels {
        let listing = crate::bandwidth::result::kernel_listing(topo.line_bytes());
        return super::print_result(args.json, &listing, |out| {
            bandwidth_text::render_kernel_list(out, &listing)
        });
    }
    if args.stream_matrix {
        return super::stream_matrix::run(ctx, args, &topo);
    }
    let cfg = resolve(&topo, args)?;
    super::rightmark::check_html_path(args.html.as_deref())?;
    ctx.root.require_live("measure bandwidth")?;
    let _host_lock = super::measuring_lock(ctx)?;
    // The headline figures take extras toward +-3 %, at most the planned count.
    let goal = crate::threads::precision::PrecisionGoal::standalone();
    let report =
        crate::bandwidth::experiment::run_toward(&topo, &ctx.root, &cfg, Some(&goal), &|_, _| {})?
            .into_result()?;
    if let Some(dir) = &args.csv {
        let files = crate::render::tables_standalone::bandwidth_csv(&report, &topo)?;
        super::rightmark::write_csv_files(dir, &files)?;
    }
    if let Some(path) = &args.html {
        let page = crate::render::html::render_bandwidth(&report, &topo);
        super::rightmark::write_html(path, &page)?;
    }
    super::print_result(args.json, &report, |out| {
        bandwidth_text::render_report(out, &report)
    })
}
