//! The command line: a raw clap parse, then each subcommand resolves its flags into a validated
//! configuration, runs the library, and hands finished results to a renderer. Errors surface
//! here as one sentence (or a JSON object with `--json`) and the exit status of their kind
//! (`crate::error::Kind`, the table in [`EXIT_STATUS`]); nothing below this layer prints.

pub mod app;
pub mod bandwidth;

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::error::{is_broken_pipe, kind_of, one_sentence, Kind};
use crate::sysroot::SysRoot;

pub mod c2c;
pub mod capture;
pub mod compare;
pub mod completions;
pub mod fleet;
pub mod hints;
pub mod inspect;
pub mod latency;
pub mod loaded_latency;
pub mod man;
pub mod placement;
mod refusal;
pub mod report;
pub mod rightmark;
pub mod run;
pub mod stream_matrix;
pub mod topo;
pub mod ui;

/// The exit statuses, as `numascope --help` ends and README.md lists them.
pub const EXIT_STATUS: &str = "Exit status:
  0        done (also --help, --version, and a reader that closed the pipe early)
  1        `compare` found a difference beyond noise, `fleet` a host that stands out, or a
           run ended partial for a reason other than a stop signal (a part failed)
  2        usage or input error: a flag, a value, a file or a process was refused
  3        the environment refused: no permission, binding or pinning asked of a
           --sysfs-root snapshot, a kernel feature missing
  4        `compare` or `fleet` could judge too little to answer (said first; not \"no
           difference\")
  129/130/143  stopped by SIGHUP / SIGINT (Ctrl-C) / SIGTERM after keeping what was measured
With --json, an error is one JSON object on stderr: {\"error\", \"exit_code\", \"kind\"}.";

/// `numascope --help`'s opening: what the tool is, and what it does without a subcommand.
const LONG_ABOUT: &str = "How memory really behaves on a Linux machine: topology, latency, bandwidth, placement and policies, measured and explained.

Without a subcommand, numascope runs the full analysis (`numascope run`) and takes its flags directly: `numascope --quick`, `numascope --output DIR` (`numascope run --help` lists them).";

/// numascope: how memory really behaves on this Linux machine, and why.
#[derive(Debug, Parser)]
#[command(
    name = "numascope",
    version,
    about,
    long_about = LONG_ABOUT,
    propagate_version = true,
    after_help = "Bare `numascope` is `numascope run`, which takes the run's flags (`numascope run -h`).\nExit status: 0 done, 1 a difference or a partial run, 2 usage or input error, 3 the\nenvironment refused, 4 too little to judge, 129/130/143 a stop signal (--help: each).",
    after_long_help = EXIT_STATUS
)]
pub struct Cli {
    /// Read /sys and /proc from a snapshot (DIR, .tar.gz or hwloc XML) instead of this machine.
    ///
    /// Read /sys and /proc under DIR (a snapshot from `numascope capture` or hwloc's
    /// HWLOC_FSROOT layout, a `.tar.gz` made by `numascope capture`, or an hwloc XML topology
    /// from `lstopo --of xml`) instead of the running machine. Binding and pinning are refused.
    #[arg(long, global = true, value_name = "DIR")]
    pub sysfs_root: Option<PathBuf>,

    /// How long to wait for another measurement on this host (e.g. 600s; 0s: refuse at once).
    ///
    /// How long a measuring command (run, latency, bandwidth, loaded-latency, c2c) waits for
    /// another numascope measurement on this host to finish before refusing (e.g. 600s);
    /// 0s refuses at once. Default: wait until it finishes.
    #[arg(long, global = true, value_name = "DURATION")]
    pub wait_lock: Option<String>,
    /// Colour warnings, errors and the verdict: auto, always or never.
    ///
    /// Colour warnings, errors and the verdict: auto (on a terminal, unless NO_COLOR is set),
    /// always, or never.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = ui::ColorWhen::Auto,
        hide_possible_values = true)]
    pub color: ui::ColorWhen,

    /// Figures, warnings and errors only: no progress bars and no notes.
    ///
    /// Figures, warnings and errors only: no progress bars and no notes (which files were
    /// written, how long each part took).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,

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
    /// Pointer-chasing latency: one size, the size sweep, or the node x node matrix.
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
    /// Judge a fleet: the hosts that stand out, per figure, among runs of like hardware.
    ///
    /// Judge a fleet: every results.json under the given directories, grouped by hardware,
    /// the outlier hosts named per metric.
    Fleet(fleet::FleetArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff), of numascope or of one subcommand.
    Man(man::ManArgs),
    /// Run your program under every distinct placement: `numascope app -- CMD ARGS`.
    ///
    /// Run your own program under every distinct placement and compare, beyond noise:
    /// `numascope app -- CMD ARGS`.
    App(app::AppArgs),
    /// The RightMark table: bandwidth and latency, every CPU node x memory node.
    ///
    /// The RightMark table: every CPU node x memory node, one thread on a 16 MiB block;
    /// average and maximum read and write bandwidth, pseudo-random and random latency.
    Rightmark(rightmark::RightmarkArgs),
}

/// What every subcommand receives: the root to read the machine from.
pub struct Context {
    pub root: SysRoot,
    /// The `.tar.gz` given to `--sysfs-root`, when the root is its unpacked copy.
    pub archive: Option<PathBuf>,
    /// How a measuring command treats another measurement holding the host's lock.
    pub wait_lock: crate::launcher::Wait,
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
            // Read into memory: the root has no files and names the XML as given.
            Some(p) if p.is_file() && crate::topology::xml::is_xml(p) => {
                crate::topology::xml::open(p)?
            }
            Some(dir) => SysRoot::snapshot(dir)?,
        };
        Ok(Context {
            root,
            archive,
            wait_lock: wait_lock(cli.wait_lock.as_deref())?,
            _unpacked: unpacked,
        })
    }
}

/// Runs the command line; returns the process exit status.
pub fn main() -> i32 {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = ui::json_requested(&argv);
    // Colour is read before clap, so its own help and errors follow --color too.
    ui::configure(ui::color_in_argv(&argv).unwrap_or_default(), false);
    let clap_color = match anstream::ColorChoice::global() {
        anstream::ColorChoice::Never => clap::ColorChoice::Never,
        anstream::ColorChoice::Auto => clap::ColorChoice::Auto,
        _ => clap::ColorChoice::Always,
    };
    let parsed = command()
        .color(clap_color)
        .try_get_matches_from(&argv)
        .and_then(|mut m| Cli::from_arg_matches_mut(&mut m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => return refusal::clap_error(&e, &argv, json),
    };
    ui::configure(cli.color, cli.quiet);
    // Tables printed to a terminal fit its width; piped output stays full width.
    crate::render::format::width::fit_stdout_terminal();
    let result = run(cli);
    let signal = crate::sys::signal::exit_status();
    match result {
        Ok(()) => match signal {
            // Stopped by a signal: what was measured has been written, marked partial.
            Some(status) => {
                let sentence = format!(
                    "stopped by {}: the figures above are what was measured before it (partial)",
                    crate::sys::signal::stop_reason()
                );
                if json {
                    // A script reading --json output gets a JSON object for every failure
                    // and every stop.
                    ui::error_json(&sentence, status, "interrupted");
                } else {
                    ui::stderr_line(&format!("numascope: {sentence}"));
                }
                status
            }
            None => 0,
        },
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            let kind = kind_of(&e);
            // A stop signal decides the status: an error after it is most likely its effect.
            // `app` carries its own status (1 when the user's program failed).
            let app_status = e
                .downcast_ref::<crate::app::AppError>()
                .map(|_| crate::app::exit_status_of(&e));
            let code = signal.unwrap_or(app_status.unwrap_or(kind.exit_code()));
            let sentence = one_sentence(&e);
            let name = match (signal, app_status) {
                (Some(_), _) => "interrupted",
                (None, Some(1)) => "program",
                (None, Some(3)) => "environment",
                _ => kind.name(),
            };
            if matches!(kind, Kind::Differs | Kind::NotComparable) && signal.is_none() {
                // A difference is the answer `compare` printed, not an error to repeat.
            } else if json {
                ui::error_json(&sentence, code, name);
            } else {
                ui::error_line(&sentence);
            }
            code
        }
    }
}

/// The command line as clap parses it: the derive's definition, with the run flags that a
/// bare `numascope` also takes left out of the top-level help (they are `numascope run`'s,
/// and its `-h` lists them), so `numascope -h` fits a screen.
pub fn command() -> clap::Command {
    let run_ids: Vec<String> =
        <run::RunArgs as clap::Args>::augment_args(clap::Command::new("run"))
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
    Cli::command().mut_args(|a| {
        if run_ids.iter().any(|id| id == a.get_id()) {
            a.hide(true)
        } else {
            a
        }
    })
}

fn run(cli: Cli) -> anyhow::Result<()> {
    if let (Some(root), Some(cmd)) = (&cli.sysfs_root, &cli.command) {
        if let Some(name) = cmd.reads_no_machine() {
            return Err(crate::error::usage(format!(
                "--sysfs-root {} does nothing for `{name}`, which reads no machine; drop it",
                root.display()
            )));
        }
    }
    let ctx = Context::from_cli(&cli)?;
    match cli.command {
        None => run::run(&ctx, &cli.run),
        // clap's args_conflicts_with_subcommands would also reject the global --sysfs-root
        // before a subcommand, so the run flags are checked here instead.
        Some(_) if format!("{:?}", cli.run) != format!("{:?}", run::RunArgs::default()) => {
            Err(crate::error::usage(
                "--quick, --thorough, --only, --skip, --dry-run, --output, --force, --json, --summary-line and the part knobs (--kernel, --mode, --page-size, --sweep, --duration, --sample-ms, --cpus, --cpu-nodes, --mem-nodes) before a subcommand belong to the full analysis; put the subcommand's own flags after it, or drop the subcommand to run the analysis",
            ))
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
                Command::Fleet(a) => fleet::run(&ctx, &a),
                Command::Completions(a) => completions::run(&a),
                Command::Man(a) => man::run(&a),
                Command::App(a) => app::run(&ctx, &a),
                Command::Rightmark(a) => rightmark::run(&ctx, &a),
            }
        }
    }
}

/// `--wait-lock DURATION` resolved: absent waits until the lock is free, `0s` refuses at once.
fn wait_lock(text: Option<&str>) -> anyhow::Result<crate::launcher::Wait> {
    use crate::launcher::Wait;
    const RANGE: crate::parse::duration::DurationRange = crate::parse::duration::DurationRange {
        flag: "--wait-lock",
        min: std::time::Duration::from_millis(1),
        max: std::time::Duration::from_secs(7 * 24 * 3600),
        advice: "give 0s (refuse at once) up to a week, e.g. 600s",
    };
    Ok(match text {
        None => Wait::Forever,
        // Zero exactly as written with one unit: `0msms` or `0ss` is no duration.
        Some(t) if matches!(t.trim(), "0" | "0s" | "0ms") => {
            Wait::AtMost(std::time::Duration::ZERO)
        }
        Some(t) => Wait::AtMost(
            crate::parse::duration::parse_duration(t, &RANGE).map_err(anyhow::Error::msg)?,
        ),
    })
}

/// The most distinct values a list flag (`--size A,B,...`, `--chains`) may name: each value
/// is a measurement of its own.
pub const MAX_LIST: usize = 64;

/// A list flag's values without repeats, in the order given, refused above [`MAX_LIST`]
/// distinct values: a value named twice would be measured twice for nothing.
pub fn distinct<T: PartialEq + Copy>(flag: &str, values: &[T]) -> anyhow::Result<Vec<T>> {
    let mut out: Vec<T> = Vec::new();
    for &v in values {
        if !out.contains(&v) {
            if out.len() == MAX_LIST {
                anyhow::bail!(
                    "{flag} names more than {MAX_LIST} different values ({} given); measure at most {MAX_LIST} at a time, or use --sweep for a range",
                    values.len()
                );
            }
            out.push(v);
        }
    }
    Ok(out)
}

/// `--csv DIR` of a standalone command: one CSV file per table (`NAME.csv`),
/// each written atomically through `sys::files` as the run's output directory is.
pub fn write_tables_csv(
    dir: &std::path::Path,
    tables: impl IntoIterator<Item = crate::render::run_view::Table>,
) -> anyhow::Result<()> {
    let mut files = Vec::new();
    for t in tables {
        files.push((
            format!("{}.csv", t.name),
            crate::render::csv::table_csv(&t)?,
        ));
    }
    crate::run::output::write_csv_dir(dir, &files)
}

/// Takes the host's measuring lock as `--wait-lock` says. Each measuring command calls it
/// once its flags are checked, right before it measures, so a refusal of bad input never
/// waits. The waiting notice goes to stderr only on a terminal: a script or a launcher's log
/// keeps the one-line-per-error rule of stderr.
pub fn measuring_lock(ctx: &Context) -> anyhow::Result<crate::sys::lock::FileLock> {
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    crate::launcher::measuring_lock(ctx.wait_lock, &mut |s| {
        if tty {
            ui::stderr_line(&crate::sanitize::text(s))
        }
    })
}

impl Command {
    /// The name of a subcommand that reads no machine (saved files or the CLI definition
    /// only), where `--sysfs-root` would do nothing; `None` for the others.
    fn reads_no_machine(&self) -> Option<&'static str> {
        match self {
            Command::Report(_) => Some("report"),
            Command::Compare(_) => Some("compare"),
            Command::Completions(_) => Some("completions"),
            Command::Man(_) => Some("man"),
            Command::Fleet(_) => Some("fleet"),
            _ => None,
        }
    }

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
                | Command::App(_)
                | Command::Rightmark(_)
        )
    }
}

/// The outcome of a finished run for the exit status: a run left partial by a failed part (not
/// by a stop signal, which has its own status) is a [`Kind::Partial`] error, exit status 1,
/// once everything it measured has been written.
pub fn run_status(r: &crate::results::RunResults) -> anyhow::Result<()> {
    if !r.partial || crate::sys::signal::exit_status().is_some() {
        return Ok(());
    }
    let failed: Vec<&str> = r.failed.iter().map(|f| f.part.name()).collect();
    Err(crate::error::partial(if failed.is_empty() {
        "the run is partial; results.json says which figures are missing".to_string()
    } else {
        format!(
            "the run is partial: {} failed (results.json names why); the other parts were written",
            failed.join(", ")
        )
    }))
}

/// A report a stop signal cut short, as its JSON says so: `partial` and `stopped_by` first,
/// then the report's own fields (docs/schema: "A stopped command").
#[derive(serde::Serialize)]
struct Stopped<'a, T: serde::Serialize> {
    partial: bool,
    stopped_by: &'static str,
    #[serde(flatten)]
    report: &'a T,
}

/// True when `value` serializes to an object that has its own `partial` field.
fn has_partial_field<T: serde::Serialize>(value: &T) -> anyhow::Result<bool> {
    Ok(serde_json::to_value(value)?
        .as_object()
        .is_some_and(|o| o.contains_key("partial")))
}

/// Prints a command's finished result to stdout: pretty JSON and a newline with `--json`,
/// else what `text` renders. The one place every subcommand writes its answer. After a stop
/// signal the JSON says it is partial and why (a report with its own `partial`, as `app`'s,
/// keeps it), so `> out.json` never passes for a complete measurement.
pub fn print_result<T: serde::Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    if json {
        let mut out = std::io::stdout().lock();
        let stopped = match crate::sys::signal::stop_signal_name() {
            Some(name) if !has_partial_field(value)? => Some(name),
            _ => None,
        };
        if let Some(stopped_by) = stopped {
            let wrapped = Stopped {
                partial: true,
                stopped_by,
                report: value,
            };
            serde_json::to_writer_pretty(&mut out, &wrapped)?;
        } else {
            serde_json::to_writer_pretty(&mut out, value)?;
        }
        writeln!(out)?;
        out.flush()?;
    } else {
        // Rendered whole, then coloured line by line when stdout gets colour.
        let mut buf = Vec::new();
        text(&mut buf)?;
        ui::write_stdout(&buf)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_partial_without_a_signal_is_status_1() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-kvm-2cpu.json"
        );
        let mut r = crate::results_file::load(std::path::Path::new(path)).unwrap();
        r.partial = false;
        assert!(run_status(&r).is_ok());
        r.partial = true;
        r.failed.push(crate::results::PartError {
            part: crate::results::plan::Part::C2c,
            error: "c2c needs two CPUs".into(),
        });
        let e = run_status(&r).unwrap_err();
        assert_eq!(kind_of(&e), Kind::Partial);
        assert_eq!(kind_of(&e).exit_code(), 1);
        assert!(e.to_string().contains("c2c failed"), "{e}");
    }
}
