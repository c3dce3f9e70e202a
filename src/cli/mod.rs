//! The command line: a raw clap parse, then each subcommand resolves its flags into a validated
//! configuration, runs the library, and hands finished results to a renderer. Errors surface
//! here as one sentence and exit status 2; nothing below this layer prints.

pub mod bandwidth;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::{is_broken_pipe, one_sentence};
use crate::sysroot::SysRoot;

pub mod c2c;
pub mod capture;
pub mod compare;
pub mod inspect;
pub mod latency;
pub mod loaded_latency;
pub mod placement;
pub mod report;
pub mod run;
pub mod topo;

/// numascope: how memory really behaves on this Linux machine, and why.
#[derive(Debug, Parser)]
#[command(
    name = "numascope",
    version,
    about,
    long_about = None,
    propagate_version = true
)]
pub struct Cli {
    /// Read /sys and /proc under DIR (a snapshot from `numascope capture` or hwloc's
    /// HWLOC_FSROOT layout, or a `.tar.gz` made by `numascope capture`) instead of the running
    /// machine. Binding and pinning are refused.
    #[arg(long, global = true, value_name = "DIR")]
    pub sysfs_root: Option<PathBuf>,

    /// Without a subcommand, numascope runs the full analysis (`numascope run`) and takes its
    /// flags directly: `numascope --quick`, `numascope --output DIR`.
    #[command(flatten)]
    pub run: run::RunArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands. Each lives in its own file under `src/cli/`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The full analysis (the default): measure, explain, and write a report directory.
    Run(run::RunArgs),
    /// Show the memory topology: NUMA nodes, CPUs, caches, distances, HMAT, allowed sets.
    Topo(topo::TopoArgs),
    /// Snapshot the /sys and /proc files numascope reads, for replay with --sysfs-root.
    Capture(capture::CaptureArgs),
    /// Place a buffer with a NUMA policy and show, page by page, where it really went.
    Placement(placement::PlacementArgs),
    /// Show where a running process's memory lives and where its threads run.
    Inspect(inspect::InspectArgs),
    /// Pointer-chasing latency: one size, the working-set sweep, or the node x node matrix.
    Latency(latency::LatencyArgs),
    /// Memory bandwidth: kernels, threads, placement, node x node matrix, scaling.
    Bandwidth(bandwidth::BandwidthArgs),
    /// Loaded latency: one thread's latency while others load memory, as a curve.
    LoadedLatency(loaded_latency::LoadedLatencyArgs),
    /// Core-to-core latency: one cache line bounced between every pair of CPUs.
    C2c(c2c::C2cArgs),
    /// Re-render a saved run (results.json) as text, HTML, CSV or hwloc XML.
    Report(report::ReportArgs),
    /// Compare saved runs side by side: ratios, significant differences, fleet outliers.
    Compare(compare::CompareArgs),
}

/// What every subcommand receives: the root to read the machine from.
pub struct Context {
    pub root: SysRoot,
    /// The `.tar.gz` given to `--sysfs-root`, when the root is its unpacked copy.
    pub archive: Option<PathBuf>,
    /// A `.tar.gz` snapshot unpacked for this run; removed when the context drops.
    _unpacked: Option<crate::capture::Unpacked>,
}

impl Context {
    fn from_cli(cli: &Cli) -> anyhow::Result<Context> {
        let mut unpacked = None;
        let mut archive = None;
        let root = match &cli.sysfs_root {
            None => SysRoot::live(),
            Some(p) if p.is_file() && crate::capture::is_tar_gz(p) => {
                let u = crate::capture::Unpacked::new(p)?;
                let r = SysRoot::snapshot(u.path())?;
                unpacked = Some(u);
                archive = Some(p.clone());
                r
            }
            Some(dir) => SysRoot::snapshot(dir)?,
        };
        Ok(Context {
            root,
            archive,
            _unpacked: unpacked,
        })
    }
}

/// Runs the command line; returns the process exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // Tables printed to a terminal fit its width; piped output stays full width.
    crate::render::width::fit_stdout_terminal();
    match run(cli) {
        Ok(()) => match crate::sys::signal::exit_status() {
            // Stopped by a signal: what was measured has been written, marked partial.
            Some(status) => {
                eprintln!(
                    "numascope: stopped by {}: the figures above are what was measured before it (partial)",
                    crate::sys::signal::stop_reason()
                );
                status
            }
            None => 0,
        },
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            eprintln!("numascope: error: {}", one_sentence(&e));
            2
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let ctx = Context::from_cli(&cli)?;
    match cli.command {
        None => run::run(&ctx, &cli.run),
        // clap's args_conflicts_with_subcommands would also reject the global --sysfs-root
        // before a subcommand, so the run flags are checked here instead.
        Some(_) if format!("{:?}", cli.run) != format!("{:?}", run::RunArgs::default()) => {
            anyhow::bail!(
                "--quick, --thorough, --only, --skip, --dry-run, --output, --force and --json before a subcommand belong to the full analysis; put the subcommand's own flags after it, or drop the subcommand to run the analysis"
            )
        }
        Some(cmd) => {
            if cmd.measures() {
                crate::sys::signal::install_stop_handlers()?;
            }
            match cmd {
                Command::Bandwidth(args) => bandwidth::run(&ctx, &args),
                Command::Topo(a) => topo::run(&ctx, &a),
                Command::Capture(a) => capture::run(&ctx, &a),
                Command::Placement(a) => placement::run(&ctx, &a),
                Command::Inspect(a) => inspect::run(&ctx, &a),
                Command::C2c(a) => c2c::run(&ctx, &a),
                Command::LoadedLatency(a) => loaded_latency::run(&ctx, &a),
                Command::Latency(a) => latency::run(&ctx, &a),
                Command::Run(a) => run::run(&ctx, &a),
                Command::Report(a) => report::run(&ctx, &a),
                Command::Compare(a) => compare::run(&ctx, &a),
            }
        }
    }
}

impl Command {
    /// True for the commands that time measurements: a stop signal lets them finish the
    /// current step and print what they measured, instead of killing them.
    fn measures(&self) -> bool {
        matches!(
            self,
            Command::Run(_)
                | Command::Latency(_)
                | Command::Bandwidth(_)
                | Command::LoadedLatency(_)
                | Command::C2c(_)
        )
    }
}

/// Prints a command's finished result to stdout: pretty JSON and a newline with `--json`,
/// else what `text` renders. The one place every subcommand writes its answer.
pub fn print_result<T: serde::Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
    } else {
        text(&mut out)?;
    }
    out.flush()?;
    Ok(())
}
