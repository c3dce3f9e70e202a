//! `numascope rightmark`: the RightMark table of seed 000/001 in one command. For every CPU
//! node x memory node, one thread on the CPU node's first usable CPU with its block bound to
//! the memory node: average read and write bandwidth, maximum read (software prefetch) and
//! write (non-temporal), pseudo-random (page-local) and random latency, in interleaved rounds,
//! with each remote figure's ratio to its row's local one. Flags are resolved into a
//! [`crate::tables::rightmark::Config`] here (one sentence per mistake, exit 2), then
//! [`crate::tables::rightmark::run`] measures and the report goes to text, JSON, CSV or an HTML page.

use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::Args;

use crate::cli::Context;
use crate::latency::chase::{self, ChainSpec};
use crate::parse::duration::{parse_duration, BANDWIDTH_REPETITION};
use crate::parse::selection;
use crate::parse::size::parse_size;
use crate::render::{tables_standalone, tables_text};
use crate::results::format::format_bytes;
use crate::results::latency::Mode;
use crate::results::latency::SamplePlan;
use crate::results::placement::PageSize;
use crate::results::tables::RightmarkMetric;
use crate::results::topology::Topology;
use crate::tables::rightmark::{self, Config, BLOCK_BYTES};
use crate::topology::read_topology;

/// Flags of `numascope rightmark`.
#[derive(Debug, Args)]
pub struct RightmarkArgs {
    /// CPU nodes whose first usable CPU runs the thread, in the node list syntax of
    /// docs/cli.md (`0,1`, `all`, `!0`). Default: every node with usable CPUs.
    #[arg(long, alias = "cpu-node", value_name = "NODES")]
    pub cpu_nodes: Option<String>,
    /// Memory nodes the block is bound to in turn. Default: every memory node.
    #[arg(long, alias = "mem-node", value_name = "NODES")]
    pub mem_nodes: Option<String>,
    /// The block every figure streams or walks; default 16MiB (the article's 16 MB). On a
    /// machine whose last-level cache holds it, the bandwidth columns are the cache's (the
    /// report says so); 256MiB gives memory figures there.
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Page backing of every block: 4k (default), thp, 2m or 1g. With 4 KiB pages the random
    /// chase includes TLB misses and the page-local chase mostly does not, as in the article.
    #[arg(long, default_value = "4k", value_name = "PAGE", hide_possible_values = true,
        value_parser = super::hints::hinted::<PageSize>(super::hints::PAGE_SIZES))]
    pub page_size: PageSize,
    /// Interleaved rounds: each round measures every cell once, in rotating order. Six or
    /// more give each median a 95 % interval.
    #[arg(long, default_value_t = crate::tables::DEFAULT_ROUNDS, value_name = "N")]
    pub rounds: usize,
    /// Length of the timed bandwidth repetition of each round (one warm-up of the same length
    /// runs before it).
    #[arg(long, default_value = "100ms", value_name = "DURATION")]
    pub duration: String,
    /// Latency samples kept per round, 1 to 1000 (their median is the round's value).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub samples: usize,
    /// Minimum duration of one latency sample, milliseconds.
    #[arg(long, default_value_t = 2.0, value_name = "MS")]
    pub sample_ms: f64,
    /// Also write the table as rightmark.csv into this directory (docs/csv.md).
    #[arg(long, value_name = "DIR")]
    pub csv: Option<std::path::PathBuf>,
    /// Also write the page with the table's heat maps (the run report's RightMark section)
    /// to this file; an existing file is refused.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<std::path::PathBuf>,
    /// Print the report as JSON (see docs/schema/rightmark.md).
    #[arg(long)]
    pub json: bool,
}

/// Most rounds `--rounds` may ask for.
const MAX_ROUNDS: usize = 1000;

/// Resolves the flags against the topology: the cells, the block, the rounds, the budgets.
pub fn resolve(topo: &Topology, args: &RightmarkArgs) -> anyhow::Result<Config> {
    let cpu_nodes = match &args.cpu_nodes {
        Some(t) => selection::nodes(topo, "--cpu-nodes", t, &topo.initiator_nodes())?,
        None => topo.initiator_nodes(),
    };
    let mem_nodes = match &args.mem_nodes {
        Some(t) => selection::nodes(topo, "--mem-nodes", t, &topo.memory_nodes())?,
        None => topo.memory_nodes(),
    };
    if cpu_nodes.is_empty() {
        bail!("this process may run on no node with usable CPUs, so no thread can be placed; check the allowed CPUs (taskset, cgroup cpuset)");
    }
    if mem_nodes.is_empty() {
        bail!("this process may use no memory node; check the allowed memory nodes (numactl, cgroup cpuset)");
    }
    let block = match &args.size {
        Some(s) => parse_size(s).context("--size")?,
        None => BLOCK_BYTES,
    };
    args.page_size
        .check_whole_pages(block)
        .map_err(|e| anyhow::anyhow!("--size {e}"))?;
    let line = topo.line_bytes();
    if block < 64 * line {
        bail!(
            "--size {} is too small for a chase and a stream; give at least {} (the default is 16MiB)",
            format_bytes(block),
            format_bytes(64 * line)
        );
    }
    for &m in &mem_nodes {
        crate::bandwidth::plan::check_fits(topo, &[m], block).map_err(anyhow::Error::msg)?;
    }
    for mode in [Mode::Page, Mode::Random] {
        chase::check(
            &ChainSpec {
                mode,
                chains: 1,
                element_bytes: line,
                group_bytes: 0,
                seed: rightmark::SEED,
            },
            block,
        )?;
    }
    check_counts(args)?;
    let duration: Duration =
        parse_duration(&args.duration, &BANDWIDTH_REPETITION).map_err(anyhow::Error::msg)?;
    let (cells, cpus) = rightmark::plan_cells(topo, &cpu_nodes, &mem_nodes);
    Ok(Config {
        cells,
        cpus,
        block_bytes: block,
        page: args.page_size,
        rounds: args.rounds,
        bandwidth_repetition: duration,
        latency: SamplePlan {
            samples: args.samples,
            warmup: 1,
            min_sample_ns: (args.sample_ms * 1e6) as u64,
        },
        metrics: RightmarkMetric::ALL.to_vec(),
        clock: None,
    })
}

/// `--rounds`, `--samples` and `--sample-ms` within their ranges.
fn check_counts(args: &RightmarkArgs) -> anyhow::Result<()> {
    if args.rounds == 0 || args.rounds > MAX_ROUNDS {
        bail!(
            "--rounds {} is out of range; give 1 to {MAX_ROUNDS} (6 or more give intervals; 9 is the default)",
            args.rounds
        );
    }
    if args.samples == 0 || args.samples > 1000 {
        bail!(
            "--samples {} is out of range; give 1 to 1000 latency samples per round (5 is the default)",
            args.samples
        );
    }
    if !(args.sample_ms > 0.0 && args.sample_ms <= 10_000.0) {
        bail!(
            "--sample-ms {} is out of range; give a duration above 0 and at most 10000 ms, e.g. 2",
            args.sample_ms
        );
    }
    Ok(())
}

/// Runs `rightmark`.
pub fn run(ctx: &Context, args: &RightmarkArgs) -> anyhow::Result<()> {
    let root = &ctx.root;
    let topo = match read_topology(root) {
        Ok(t) => t,
        Err(e) => {
            root.require_live("measure the RightMark table")?;
            return Err(e.into());
        }
    };
    let cfg = resolve(&topo, args)?;
    check_html_path(args.html.as_deref())?;
    root.require_live("measure the RightMark table")?;
    let cpus: Vec<u32> = cfg.cpus.iter().map(|c| c.1).collect();
    crate::threads::check_cpus(&topo, root, &cpus)?;
    let _host_lock = super::measuring_lock(ctx)?;
    let bar = indicatif::ProgressBar::with_draw_target(None, super::ui::progress_target());
    let progress = |d: usize, t: usize| {
        bar.set_length(t as u64);
        bar.set_position(d as u64);
    };
    let out = rightmark::run(&topo, root, &cfg, &progress)?;
    bar.finish_and_clear();
    let report = out.into_result()?;
    if let Some(dir) = &args.csv {
        write_csv_files(dir, &tables_standalone::rightmark_csv(&report)?)?;
    }
    if let Some(path) = &args.html {
        write_html(path, &crate::render::html::render_rightmark(&report))?;
    }
    super::print_result(args.json, &report, |o| {
        tables_text::render_rightmark(&report, o)
    })
}

/// Refuses an `--html` path that exists (nothing is overwritten) or whose directory does not,
/// before anything is measured; `bandwidth` and `bandwidth --stream-matrix` use it too.
pub(super) fn check_html_path(path: Option<&std::path::Path>) -> anyhow::Result<()> {
    let Some(p) = path else { return Ok(()) };
    if p.exists() {
        bail!(
            "--html {} already exists; remove it or choose another path",
            p.display()
        );
    }
    if let Some(dir) = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
    {
        bail!(
            "--html {}: the directory {} does not exist; create it or choose another path",
            p.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Writes the page atomically (a temporary file renamed over the path), so no reader sees
/// half a page.
pub(super) fn write_html(path: &std::path::Path, html: &str) -> anyhow::Result<()> {
    crate::run::output::write_atomic(path, html.as_bytes()).with_context(|| {
        format!(
            "--html {}: cannot write the page; give a writable path",
            path.display()
        )
    })
}

/// Writes (file name, contents) pairs into `dir` (created when missing), each atomically as
/// the run's output directory does, so a reader never sees half a table.
pub(super) fn write_csv_files(
    dir: &std::path::Path,
    files: &[(String, String)],
) -> anyhow::Result<()> {
    crate::run::output::write_csv_dir(dir, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn plan(fixture: &str, flags: &[&str]) -> anyhow::Result<Config> {
        let dir = format!(
            "{}/tests/fixtures/topology/{fixture}",
            env!("CARGO_MANIFEST_DIR")
        );
        let root = crate::sysroot::SysRoot::snapshot(std::path::Path::new(&dir)).unwrap();
        let topo = crate::topology::read_topology(&root).unwrap();
        let mut argv = vec!["numascope", "rightmark"];
        argv.extend(flags);
        let Some(Command::Rightmark(args)) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not a rightmark command");
        };
        resolve(&topo, &args)
    }

    /// The article's machine replayed: four rows, each node's first CPU; a memory-only node
    /// is a column and never a row.
    #[test]
    fn plans_every_cpu_node_by_every_memory_node() {
        let c = plan("opteron250-2s", &[]).unwrap();
        assert_eq!(c.cells, vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(c.cpus.len(), 2);
        assert_eq!(c.block_bytes, BLOCK_BYTES);
        assert_eq!(c.metrics.len(), 6);
        let c = plan("opteron250-2s", &["--cpu-nodes", "1", "--mem-nodes", "0"]).unwrap();
        assert_eq!(c.cells, vec![(1, 0)]);
        let c = plan("cxl-tiered-memory", &[]).unwrap();
        let rows: Vec<u32> = c.cpus.iter().map(|x| x.0).collect();
        let cols: std::collections::BTreeSet<u32> = c.cells.iter().map(|x| x.1).collect();
        assert!(cols.len() > rows.len(), "{:?} {:?}", rows, cols);
        assert!(plan("opteron250-2s", &["--cpu-nodes", "5"]).is_err());
        let e = plan("opteron250-2s", &["--samples", "0"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--samples 0"), "{e}");
    }
}
