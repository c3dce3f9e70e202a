//! `numascope app [OPTIONS] -- CMD ARGS...`: resolves the flags (candidates, runs, warm-up,
//! time limit, sampling interval, where the program's output goes) into an
//! [`crate::app::Config`], runs [`crate::app::run`], writes `results.json`, `app.csv` and
//! `app.html` with `--output`, and prints text or JSON. Exit statuses: 0 done, 1 the program
//! failed (non-zero exit without `--ignore-failure`, a signal, the time limit), 2 usage or
//! input, 3 this machine refuses a candidate, 130/143 stopped by Ctrl-C/SIGTERM (what was
//! measured is printed, marked partial).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::app::{self, AppError, ChildOutputTo};
use crate::cli::Context;
use crate::parse::duration::{parse_duration, DurationRange};
use crate::render::app as app_text;
use crate::results::app::Numactl as Installed;
use crate::run::output::OutputDir;
use crate::topology::read_topology;

/// `--time-limit`: one run of the program, 1 ms to a day.
const TIME_LIMIT: DurationRange = DurationRange {
    flag: "--time-limit",
    min: Duration::from_millis(1),
    max: Duration::from_secs(86_400),
    advice: "give 1ms to 86400s per run",
};

/// `--sample-interval`: 1 ms to a minute (0 turns sampling off).
const SAMPLE_INTERVAL: DurationRange = DurationRange {
    flag: "--sample-interval",
    min: Duration::from_millis(1),
    max: Duration::from_secs(60),
    advice: "give 1ms to 60s, or 0 to turn sampling off",
};

/// Flags of `numascope app`.
#[derive(Debug, Args)]
pub struct AppArgs {
    /// Candidates, comma-separated: default, bind:N, interleave, interleave:LIST, weighted,
    /// preferred:N, pin:N (default: all of them that exist on this machine). Candidates that
    /// place identically here are merged and run once.
    #[arg(long, value_name = "LIST")]
    pub candidates: Option<String>,
    /// Measured runs per candidate, interleaved across candidates (6 or more give an
    /// interval).
    #[arg(long, value_name = "N", default_value_t = 6)]
    pub runs: usize,
    /// Warm-up runs per candidate, run first and dropped.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub warmup: usize,
    /// Stop a run that takes longer (e.g. 30s); the comparison ends there (exit status 1).
    #[arg(long, value_name = "DURATION")]
    pub time_limit: Option<String>,
    /// How often to sample the program's numa_maps and thread CPUs; 0 turns sampling off.
    /// Default: every 100 ms, spaced further so the sampling costs at most 0.5 % of one CPU;
    /// an interval given here is kept as given, whatever it costs.
    #[arg(long, value_name = "DURATION")]
    pub sample_interval: Option<String>,
    /// Write results.json, app.csv, app.html and the program's output per run into DIR.
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Write into an existing --output directory.
    #[arg(long)]
    pub force: bool,
    /// Show the program's own output on this terminal instead of writing it to files.
    #[arg(long)]
    pub show_output: bool,
    /// Keep going when the program exits with a non-zero status (its runs still count).
    #[arg(long)]
    pub ignore_failure: bool,
    /// Run candidates even when they place identically here (an A/A check:
    /// `--candidates default,default --no-merge`).
    #[arg(long)]
    pub no_merge: bool,
    /// Also run the kernel-managed candidates (NUMA balancing, memory-tiering mode with
    /// demotion, a DAMON migrating daemon) where this kernel has them: root only; their
    /// system-wide settings are in force for each of their runs and restored after
    /// (docs/app.md).
    #[arg(long)]
    pub tiering: bool,
    /// Print JSON (schema in docs/app.md).
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(ctx: &Context, args: &AppArgs) -> anyhow::Result<()> {
    check_input(args)?;
    let time_limit = args
        .time_limit
        .as_deref()
        .map(|t| parse_duration(t, &TIME_LIMIT))
        .transpose()
        .map_err(AppError::input)?;
    let sample_budgeted = args.sample_interval.is_none();
    let sample_every = match args.sample_interval.as_deref().unwrap_or("100ms").trim() {
        "0" | "off" => None,
        t => Some(parse_duration(t, &SAMPLE_INTERVAL).map_err(AppError::input)?),
    };
    ctx.root
        .require_live("run a program under a placement")
        .map_err(|e| AppError::environment(e.to_string()))?;
    let topo = read_topology(&ctx.root)?;
    let candidates = candidates(ctx, &topo, args)?;
    let dir = args
        .output
        .as_ref()
        .map(|p| OutputDir::prepare(p, args.force))
        .transpose()
        .map_err(|e| AppError::input(e.to_string()))?;
    let mut scratch: Option<std::path::PathBuf> = None;
    let output = child_output(args, dir.as_ref(), &mut scratch)?;
    let cfg = app::Config {
        command: args.command.clone(),
        candidates,
        runs: args.runs,
        warmup: args.warmup,
        time_limit,
        sample_every,
        sample_budgeted,
        output,
        ignore_failure: args.ignore_failure,
        no_merge: args.no_merge,
        numactl: Installed::find(),
    };
    let outcome = app::run(&topo, &ctx.root, &cfg, &|_, _| {});
    let outcome = match (outcome, &scratch) {
        (Ok(o), Some(p)) if o.failed.is_none() && all_succeeded(&o.report) => {
            let mut o = o;
            discard_scratch(p, &mut o.report);
            o
        }
        (Ok(o), _) => o,
        (Err(e), Some(p)) => {
            // Nothing ran to completion that a user would read: leave no directory behind.
            let _ = std::fs::remove_dir_all(p);
            return Err(e);
        }
        (Err(e), None) => return Err(e),
    };
    let report = outcome.report;
    if let Some(d) = &dir {
        d.write(
            "results.json",
            (serde_json::to_string_pretty(&report)? + "\n").as_bytes(),
        )?;
        d.write("app.csv", app_text::csv(&report)?.as_bytes())?;
        d.write("app.html", app_text::html(&report).as_bytes())?;
    }
    super::print_result(args.json, &report, |out| app_text::render(&report, out))?;
    match outcome.failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The command and the counts, checked before anything runs.
fn check_input(args: &AppArgs) -> anyhow::Result<()> {
    if args.command.is_empty() || args.command[0].trim().is_empty() {
        return Err(AppError::input(
            "no command given; put it after `--`, e.g. `numascope app -- ./prog ARGS`",
        )
        .into());
    }
    if args.runs == 0 || args.runs > 10_000 {
        return Err(AppError::input(format!(
            "--runs {} is out of range; give 1 to 10000 (6 or more give an interval)",
            args.runs
        ))
        .into());
    }
    if args.warmup > 100 {
        return Err(AppError::input(format!(
            "--warmup {} is out of range; give 0 to 100",
            args.warmup
        ))
        .into());
    }
    if args.force && args.output.is_none() {
        return Err(AppError::input(
            "--force lets --output write into an existing directory, and no --output is given, so it does nothing; drop --force or add --output DIR",
        )
        .into());
    }
    Ok(())
}

/// The placements to run: those named by `--candidates` (each must be possible here), or the
/// default list with the impossible ones kept and marked; `--tiering` adds its own.
fn candidates(
    ctx: &Context,
    topo: &crate::results::topology::Topology,
    args: &AppArgs,
) -> anyhow::Result<Vec<app::Candidate>> {
    // Candidates asked for by name must all be possible here; the default list keeps the
    // impossible ones, marked, so the report says why they were not run.
    let mut candidates = match &args.candidates {
        Some(list) => {
            let ids: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            app::candidates::resolve(topo, &ctx.root, &ids)?
        }
        None => {
            app::candidates::resolve_lenient(topo, &ctx.root, &app::candidates::default_ids(topo))?
        }
    };
    if args.tiering {
        candidates.extend(app::tiering::candidates(topo, &ctx.root)?);
    }
    Ok(candidates)
}

/// Where the program's output goes: the terminal (`--show-output`), DIR/runs under
/// `--output`, or a fresh private directory under $TMPDIR (its path left in `scratch`).
/// Without --output it is made with mkdtemp (an unpredictable name, mode 700, never an
/// existing one, never a missing TMPDIR's parents), and removed again when every run
/// succeeded (kept, private, and named, when one failed).
fn child_output(
    args: &AppArgs,
    dir: Option<&OutputDir>,
    scratch: &mut Option<std::path::PathBuf>,
) -> anyhow::Result<ChildOutputTo> {
    Ok(if args.show_output {
        ChildOutputTo::Terminal
    } else {
        let made = match dir {
            Some(d) => {
                let p = d.path().join("runs");
                private_runs_dir(&p).map(|()| p)
            }
            None => {
                let tmp = std::env::temp_dir();
                crate::sys::files::make_private_dir(&tmp, "numascope-app").inspect(|p| {
                    *scratch = Some(p.clone());
                })
            }
        };
        let runs_dir = made.map_err(|e| {
            AppError::environment(format!(
                "cannot create a directory for the program's output under {}: {e}; give a writable --output or --show-output",
                dir
                    .map_or_else(std::env::temp_dir, |d| d.path().to_path_buf())
                    .display()
            ))
        })?;
        ChildOutputTo::Files(runs_dir)
    })
}

/// `--output DIR/runs`, mode 700 when new (the program's output may be private); an existing
/// one (`--force`) must be a directory, not a link.
fn private_runs_dir(p: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    match std::fs::DirBuilder::new().mode(0o700).create(p) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if std::fs::symlink_metadata(p)?.is_dir() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "{} exists and is not a directory",
                    p.display()
                )))
            }
        }
        r => r,
    }
}

/// True when every run of the program exited with status 0 (nothing in its output a user
/// would need to read about a failure).
fn all_succeeded(report: &crate::results::app::AppReport) -> bool {
    report
        .candidates
        .iter()
        .flat_map(|c| &c.runs)
        .all(|r| r.exit_code == Some(0) && !r.stopped)
}

/// Removes the scratch directory of a run whose every program run succeeded, and the file
/// names of it from the report, so no report names files that are gone. A directory that
/// cannot be removed is kept and stays named.
fn discard_scratch(dir: &std::path::Path, report: &mut crate::results::app::AppReport) {
    if std::fs::remove_dir_all(dir).is_ok() {
        for run in report.candidates.iter_mut().flat_map(|c| c.runs.iter_mut()) {
            run.stdout_file = None;
            run.stderr_file = None;
        }
    }
}
