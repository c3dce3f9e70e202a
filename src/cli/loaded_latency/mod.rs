//! `numascope loaded-latency`: the latency one thread sees while others load memory. Raw
//! flags are resolved into a validated [`LoadedConfig`] (or a matrix template) by a pure
//! function of the topology, so bad input is refused before any thread is pinned; then the
//! engine runs and a renderer prints text or JSON.

use anyhow::Context as _;
use clap::Args;

use crate::cli::Context;
use crate::loaded::matrix::MatrixTemplate;
use crate::loaded::sizes::default_sizes;
use crate::loaded::Config;
use crate::loaded::{self, LoadedConfig};
use crate::parse::duration::{parse_duration, LOADED_POINT};
use crate::parse::size::parse_size;
use crate::render::loaded_text;
use crate::results::loaded::LoadKernel;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::threads::check_cpus;
use crate::topology::read_topology;

mod cpus;

use cpus::{check_memory_node, load_nodes, one_memory_node, team_cpus};

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
    #[arg(long, value_name = "NAME", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(super::hints::LOAD_KERNELS))]
    pub kernel: Option<String>,
    /// Read:write mix of the load threads instead of --kernel (not with it): 2:1, 3:1 or 1:1
    /// (1:0 is reads only), the same with non-temporal writes (2:1-nt, 3:1-nt, 1:1-nt) or
    /// triad-like (two reads per write). A comma list (`1:0,3:1,2:1,1:1`, which may also hold
    /// kernel names such as write-nt) or `all` (1:0, 3:1, 2:1, 1:1) measures one curve per
    /// mix, the mixes interleaved point by point so drift on the host hits every curve alike.
    #[arg(long, value_name = "R:W[,R:W...]")]
    pub mix: Option<String>,
    /// Nodes whose CPUs run the load threads (the chaser's CPU left out), e.g. `0,1` or
    /// `all`; with --matrix, the same load set for every cell (default: each initiator's other
    /// CPUs). Without --matrix, instead of --load-cpus.
    #[arg(long, value_name = "NODES")]
    pub load_nodes: Option<String>,
    /// Loaded points of the sweep: the load threads asked for 1/N, 2/N, ... N/N of their
    /// full-speed rate (each paces the spin between its lines from the clock); a no-load point
    /// is always measured first.
    #[arg(long, value_name = "N", default_value_t = 11)]
    pub points: usize,
    /// Every initiator node x every memory node; the load from --load-nodes (default: the
    /// initiator's other CPUs) onto --load-mem-nodes (default: the cell's target node).
    #[arg(long)]
    pub matrix: bool,
    /// Chased buffer size (default: max(256 MiB, 8 x LLC), capped by free memory).
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Page backing of the chased and the load buffers: 4k (MADV_NOHUGEPAGE; the default, as
    /// everywhere but bandwidth), thp, or 2m / 1g (reserved hugetlb). Huge pages take the page walks out of
    /// the chase, so the curve shows the memory system alone.
    #[arg(long, default_value = "4k", value_name = "PAGE", hide_possible_values = true,
        value_parser = super::hints::hinted::<PageSize>(super::hints::PAGE_SIZES))]
    pub page_size: PageSize,
    /// Length of each point, 20ms to 60s, e.g. 500ms or 2s (a bare number is milliseconds);
    /// each point is measured in blocks of at least 16 ms spread over the curve (up to 12),
    /// and 96ms or more gives the six blocks an interval needs.
    #[arg(long, value_name = "TIME", default_value = "1s")]
    pub duration: String,
    /// Seed of the chase shuffle.
    #[arg(long, default_value_t = 0x6e75_6d61)]
    pub seed: u64,
    /// Print JSON (schema in docs/schema/loaded-latency.md).
    #[arg(long)]
    pub json: bool,
    /// Also write the curves' points (loaded_curves.csv) and, with --matrix, the cells'
    /// headline figures (loaded_matrix.csv) into this directory (see docs/csv.md).
    #[arg(long, value_name = "DIR")]
    pub csv: Option<std::path::PathBuf>,
    /// Also write a self-contained HTML page with the curves on one chart (and the matrix as
    /// heat maps) to this file; an existing file is not overwritten.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<std::path::PathBuf>,
}

/// What `--mix all` measures: MLC's read:write mixes, all reads first.
pub const MIX_ALL: &[&str] = &["1:0", "3:1", "2:1", "1:1"];

/// One item of a `--mix` list: whatever [`LoadKernel::from_mix`] accepts, then `1:0` (reads
/// only) and the `--kernel` names.
fn mix_item(item: &str) -> anyhow::Result<LoadKernel> {
    let item = item.trim();
    match LoadKernel::from_mix(item) {
        Ok(k) => Ok(k),
        Err(_) if item == "1:0" => Ok(LoadKernel::Read),
        Err(e) => LoadKernel::from_mix_name(item).map_err(|_| {
            anyhow::anyhow!(
                "{e}; a list may also hold 1:0 (reads only), the ratios with non-temporal writes (2:1-nt, 3:1-nt, 1:1-nt), triad-like, and the --kernel names read, write and write-nt, or be `all`"
            )
        }),
    }
}

/// Parses `--mix`: one mix, a comma list, or `all`; each mix once.
pub fn parse_mixes(text: &str) -> anyhow::Result<Vec<LoadKernel>> {
    let items: Vec<&str> = if text.trim() == "all" {
        MIX_ALL.to_vec()
    } else {
        text.split(',').collect()
    };
    let mut kernels: Vec<LoadKernel> = Vec::with_capacity(items.len());
    for item in items {
        if item.trim().is_empty() {
            anyhow::bail!(
                "--mix `{}` has an empty item; separate mixes with single commas, e.g. --mix 1:0,2:1",
                crate::parse::cpulist::excerpt(text.trim())
            );
        }
        let k = mix_item(item)?;
        if kernels.contains(&k) {
            anyhow::bail!(
                "--mix `{}` names {} twice; give each mix once",
                crate::parse::cpulist::excerpt(text.trim()),
                k.label()
            );
        }
        kernels.push(k);
    }
    Ok(kernels)
}

/// Turns the flags into a validated request (pure: reads only `topo`).
pub fn resolve(topo: &Topology, a: &LoadedLatencyArgs) -> anyhow::Result<Config> {
    let kernels = match (&a.mix, &a.kernel) {
        // Any --kernel beside --mix would be ignored (even `read`): one of the two applies.
        (Some(_), Some(k)) => anyhow::bail!(
            "--mix sets the load threads' read:write mix, which replaces --kernel; drop --kernel {} or --mix",
            crate::parse::cpulist::excerpt(k.trim())
        ),
        (Some(m), _) => parse_mixes(m)?,
        (None, Some(k)) => vec![LoadKernel::from_kernel_name(k).map_err(anyhow::Error::msg)?],
        (None, None) => vec![LoadKernel::Read],
    };
    let kernel = kernels[0];
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
        return matrix(topo, a, kernels, duration, size);
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
    let curve = LoadedConfig {
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
        lent: None,
    };
    Ok(if kernels.len() > 1 {
        Config::Family { curve, kernels }
    } else {
        Config::Curve(curve)
    })
}

/// `--matrix`: the template of every initiator x target cell; the flags that choose one
/// chaser are refused.
fn matrix(
    topo: &Topology,
    a: &LoadedLatencyArgs,
    kernels: Vec<LoadKernel>,
    duration: std::time::Duration,
    size: Option<u64>,
) -> anyhow::Result<Config> {
    let given: Vec<&str> = [
        ("--cpus", a.cpus.is_some()),
        ("--load-cpus", a.load_cpus.is_some()),
        ("--cpu-nodes", a.cpu_nodes.is_some()),
        ("--mem-nodes", a.mem_nodes.is_some()),
    ]
    .iter()
    .filter(|x| x.1)
    .map(|x| x.0)
    .collect();
    if let Some(f) = given.first() {
        let hint = if *f == "--load-cpus" {
            " (--load-nodes chooses the nodes whose CPUs load every cell)"
        } else {
            ""
        };
        anyhow::bail!("--matrix chooses the chaser and its node for every initiator x target pair itself; drop {f}{hint}");
    }
    let load_mem_node = match &a.load_mem_nodes {
        Some(t) => {
            let n = one_memory_node(topo, "--load-mem-nodes", t, "the load buffers")?;
            check_memory_node(topo, "--load-mem-nodes", n)?;
            Some(n)
        }
        None => None,
    };
    Ok(Config::Matrix(MatrixTemplate {
        kernels,
        points: a.points,
        duration,
        chaser_bytes: size,
        page: a.page_size,
        seed: a.seed,
        load_nodes: a
            .load_nodes
            .as_deref()
            .map(|t| load_nodes(topo, t))
            .transpose()?,
        load_mem_node,
    }))
}

/// Refuses an `--html` path that exists (nothing is overwritten) before measuring.
fn check_html_path(path: &std::path::Path) -> anyhow::Result<()> {
    if path.exists() {
        anyhow::bail!(
            "--html {} already exists; remove it or choose another path",
            path.display()
        );
    }
    Ok(())
}

pub fn run(ctx: &Context, args: &LoadedLatencyArgs) -> anyhow::Result<()> {
    if let Some(p) = &args.html {
        check_html_path(p)?;
    }
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
    if let Some(dir) = &args.csv {
        // Every point of every curve, and one headline row per curve.
        let curves = crate::render::run_view::loaded_family::report_curves(&report);
        super::write_tables_csv(
            dir,
            [
                crate::render::run_view::loaded_family::loaded_curves_table(&curves),
                crate::render::run_view::loaded_family::loaded_summary_table(&curves),
            ],
        )?;
    }
    if let Some(path) = &args.html {
        crate::run::output::write_atomic(
            path,
            crate::render::html::render_loaded(&report).as_bytes(),
        )
        .with_context(|| {
            format!(
                "--html {}: cannot write the page; give a writable path",
                path.display()
            )
        })?;
    }
    super::print_result(args.json, &report, |out| loaded_text::render(&report, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        a: LoadedLatencyArgs,
    }

    use crate::testutil::topology_fixture as fixture;

    fn resolved(topo: &str, args: &[&str]) -> anyhow::Result<Config> {
        let cmd = Cmd::try_parse_from(std::iter::once("x").chain(args.iter().copied())).unwrap();
        resolve(&fixture(topo), &cmd.a)
    }

    #[test]
    fn a_mix_list_accepts_what_from_mix_accepts_plus_reads_only_and_kernel_names() {
        let mix = |r, w| LoadKernel::Mix {
            reads: r,
            writes: w,
        };
        assert_eq!(
            parse_mixes("all").unwrap(),
            vec![LoadKernel::Read, mix(3, 1), mix(2, 1), mix(1, 1)]
        );
        assert_eq!(
            parse_mixes(" 2:1 , 1:0,write").unwrap(),
            vec![mix(2, 1), LoadKernel::Read, LoadKernel::Write]
        );
        // Every item from_mix accepts is accepted as it parses it.
        for m in MIX_ALL {
            if let Ok(k) = LoadKernel::from_mix(m) {
                assert_eq!(parse_mixes(m).unwrap(), vec![k]);
            }
        }
        let e = parse_mixes("1:0,read").unwrap_err().to_string();
        assert!(e.contains("names read twice"), "{e}");
        let e = parse_mixes("1:0,").unwrap_err().to_string();
        assert!(e.contains("empty item"), "{e}");
        // The non-temporal ratios and triad-like, as run --thorough measures them.
        if cfg!(target_arch = "x86_64") {
            assert_eq!(
                parse_mixes("2:1-nt,triad-like").unwrap(),
                vec![
                    LoadKernel::MixNt {
                        reads: 2,
                        writes: 1
                    },
                    LoadKernel::Triad
                ]
            );
        }
        let e = parse_mixes("7:3").unwrap_err().to_string();
        assert!(e.contains("`7:3`") && e.contains("1:0 (reads only)"), "{e}");
    }

    #[test]
    fn one_mix_is_a_curve_and_several_a_family() {
        let Config::Curve(c) = resolved("guest-A", &["--mix", "2:1"]).unwrap() else {
            panic!("one mix is one curve");
        };
        assert_eq!(c.kernel, LoadKernel::from_mix("2:1").unwrap());
        let Config::Family { curve, kernels } =
            resolved("guest-A", &["--mix", "1:1,1:0", "--cpu-nodes", "1"]).unwrap()
        else {
            panic!("two mixes are a family");
        };
        assert_eq!(kernels.len(), 2);
        assert_eq!((curve.chaser_cpu, curve.load_cpus), (2, vec![3]));
    }

    /// Guest shape A: CPU nodes 0 (CPUs 0-1) and 1 (2-3), memory-only node 2.
    #[test]
    fn load_nodes_choose_the_load_cpus_of_a_curve_and_of_every_matrix_cell() {
        let Config::Curve(c) = resolved("guest-A", &["--load-nodes", "1"]).unwrap() else {
            panic!("a curve");
        };
        assert_eq!((c.chaser_cpu, c.load_cpus.clone()), (0, vec![2, 3]));
        assert_eq!((c.mem_node, c.load_mem_node), (0, 0));
        let Config::Curve(c) = resolved("guest-A", &["--load-nodes", "all"]).unwrap() else {
            panic!("a curve");
        };
        assert_eq!(c.load_cpus, vec![1, 2, 3], "the chaser's CPU left out");
        let Config::Matrix(t) = resolved(
            "guest-A",
            &[
                "--matrix",
                "--mix",
                "all",
                "--load-nodes",
                "0-1",
                "--load-mem-nodes",
                "2",
            ],
        )
        .unwrap() else {
            panic!("a matrix");
        };
        assert_eq!(t.kernels.len(), MIX_ALL.len());
        assert_eq!(t.load_nodes, Some(vec![0, 1]));
        assert_eq!(t.load_mem_node, Some(2));
        let Config::Matrix(t) = resolved("guest-A", &["--matrix"]).unwrap() else {
            panic!("a matrix");
        };
        assert_eq!((t.load_nodes, t.load_mem_node), (None, None));
        for (args, words) in [
            (
                &["--matrix", "--load-nodes", "2"][..],
                "node 2 has no usable CPU",
            ),
            (
                &["--load-nodes", "0", "--load-cpus", "3"][..],
                "drop --load-cpus 3",
            ),
            (
                &["--matrix", "--load-mem-nodes", "0-1"][..],
                "--load-mem-nodes",
            ),
        ] {
            let e = resolved("guest-A", args).unwrap_err().to_string();
            assert!(e.contains(words), "{args:?}: {e}");
        }
        // One CPU per node: the chaser's node has no other CPU to load from.
        let e = resolved("opteron250-2s", &["--load-nodes", "0"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the only usable CPU there is the chaser's"),
            "{e}"
        );
    }
}
