//! `numascope run` (and bare `numascope`): plan the parts within a time budget, run them, and
//! leave `results.json`, `report.html`, CSV tables and a summary in an output directory, printing a short summary at the
//! end. Flags are resolved and checked here (an unknown part name is one sentence listing the
//! known ones, exit 2); progress bars go to stderr only when it is a terminal.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use anyhow::bail;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::Context;
use crate::render::run_brief;
use crate::results::time::UtcTime;
use crate::results::{Budget, Part};
use crate::run::execute::{execute, NoProgress, Progress, RunHeader, BUILT};
use crate::run::output::{default_dir_name, safe_host, OutputDir};
use crate::run::plan::{make_plan, parse_parts, PlanRequest};
use crate::topology::read_topology;

#[derive(Debug, Args, Default, Clone)]
pub struct RunArgs {
    /// Short budget: about 15 s on a 2-CPU machine (fewer sizes and samples).
    #[arg(long, conflicts_with = "thorough")]
    pub quick: bool,
    /// Long budget: more sizes, samples, kernels and pairs (minutes on big machines).
    #[arg(long)]
    pub thorough: bool,
    /// Run only these parts (comma separated): topology, latency, latency-matrix, bandwidth,
    /// bandwidth-matrix, scaling, loaded-latency, c2c, scenarios, advisor.
    #[arg(long, value_name = "PARTS")]
    pub only: Option<String>,
    /// Leave these parts out (comma separated, same names as --only).
    #[arg(long, value_name = "PARTS")]
    pub skip: Option<String>,
    /// Print the plan with the estimated time of each part, and measure nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Output directory (default: numascope-<host>-<YYYYMMDD-HHMMSS> in the current one).
    /// `{host}`, `{date}` and `{rank}` (the launcher's rank: SLURM_PROCID,
    /// OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK) are replaced: `--output 'res/{host}'`.
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Write into an existing output directory, replacing files of the same name.
    #[arg(long)]
    pub force: bool,
    /// Also print results.json to stdout (the summary then goes to stderr); with --dry-run,
    /// the plan as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print one `key=value` summary line instead of the summary (the default under a
    /// launcher: srun, mpirun); the full summary stays in summary.txt.
    #[arg(long)]
    pub summary_line: bool,
}

/// Flags resolved into a plan request.
pub fn resolve(args: &RunArgs) -> anyhow::Result<PlanRequest> {
    let budget = if args.quick {
        Budget::Quick
    } else if args.thorough {
        Budget::Thorough
    } else {
        Budget::Default
    };
    let only = match &args.only {
        Some(t) => Some(parse_parts("--only", t).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let skip = match &args.skip {
        Some(t) => parse_parts("--skip", t).map_err(anyhow::Error::msg)?,
        None => vec![],
    };
    if skip.contains(&Part::Topology) {
        bail!("--skip topology is not possible: every part needs the topology; leave it out of --skip");
    }
    Ok(PlanRequest { budget, only, skip })
}

/// Progress bars on stderr, one per part.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    started: Mutex<Option<(Part, Instant)>>,
}

impl Progress for Bars {
    fn start(&self, part: Part, estimate_s: f64) {
        let b = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("{prefix:>16} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b.set_prefix(part.name());
        b.set_message(format!("(about {estimate_s:.0} s)"));
        b.set_position(0);
        *self.bar.lock().unwrap() = Some(b);
        *self.started.lock().unwrap() = Some((part, Instant::now()));
    }
    fn step(&self, done: usize, total: usize) {
        if let Some(b) = self.bar.lock().unwrap().as_ref() {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    }
    fn finish(&self) {
        if let Some(b) = self.bar.lock().unwrap().take() {
            b.finish_and_clear();
        }
        if let Some((p, t)) = self.started.lock().unwrap().take() {
            eprintln!(
                "{:>16} done in {:.1} s",
                p.name(),
                t.elapsed().as_secs_f64()
            );
        }
    }
}

pub fn run(ctx: &Context, args: &RunArgs) -> anyhow::Result<()> {
    let req = resolve(args)?;
    let root = &ctx.root;
    let topo = read_topology(root)?;
    let planned = make_plan(&topo, &req, BUILT);
    if args.dry_run {
        return super::print_result(args.json, &planned.plan, |out| {
            run_brief::render_plan(out, &planned.plan)
        });
    }
    root.require_live("run measurements")?;
    let host = root
        .read_trimmed_opt("proc/sys/kernel/hostname")?
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into());
    let now = UtcTime::of(SystemTime::now());
    let rank = crate::launcher::rank();
    let dir_path = match &args.output {
        Some(t) => crate::launcher::expand_output(
            t,
            &crate::launcher::TemplateValues {
                host: safe_host(&host),
                date: now.compact(),
                rank: rank.map(|r| r.0),
            },
        )?,
        None => PathBuf::from(default_dir_name(&host, &now.compact())),
    };
    crate::sys::signal::install_stop_handlers()?;
    let existed = dir_path.exists();
    let dir = OutputDir::prepare(&dir_path, args.force)?;
    // One run per output directory, then one measurement per host (issue 16, 17): the
    // second run into this directory is refused; a second measurement on this host waits
    // or is refused as --wait-lock says. Both locks go when the process ends. A refused
    // run removes the (still empty) directory it created.
    let _dir_lock = crate::launcher::output_lock(dir.path())?;
    let _host_lock = crate::cli::measuring_lock(ctx).inspect_err(|_| {
        if !existed {
            let _ = std::fs::remove_dir(dir.path());
        }
    })?;
    let header = RunHeader {
        started_at: now.rfc3339(),
        host,
    };
    let bars = Bars {
        bar: Mutex::new(None),
        started: Mutex::new(None),
    };
    let progress: &dyn Progress = if super::ui::show_progress() {
        &bars
    } else {
        &NoProgress
    };
    // Until the run completes, the file on disk says it is partial: a kill, an OOM or a full
    // disk between two checkpoints leaves a file that does not pass for a finished run.
    let results = execute(&topo, root, &planned, header, progress, &mut |r| {
        let mut so_far = r.clone();
        so_far.partial = true;
        dir.write_results(&so_far).map(|_| ())
    })?;
    dir.write_results(&results)?;
    // report.html and one CSV per table (the report renderers), then the text summary.
    for (name, bytes) in crate::render::run_files::run_files(&results)? {
        dir.write(&name, &bytes)?;
    }
    let mut summary = Vec::new();
    run_brief::render(&mut summary, &results, Some(dir.path()))?;
    dir.write("summary.txt", &summary)?;
    if args.json {
        let mut out = std::io::stdout().lock();
        out.write_all(results.to_json().as_bytes())?;
        out.flush()?;
        std::io::stderr().write_all(&summary)?;
    } else if args.summary_line || rank.is_some() {
        let mut out = std::io::stdout().lock();
        crate::render::run_line::render(&mut out, &results, dir.path())?;
        out.flush()?;
    } else {
        super::ui::write_stdout(&summary)?;
    }
    super::run_status(&results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_resolve_to_a_request() {
        let r = resolve(&RunArgs {
            quick: true,
            only: Some("scenarios,advisor".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(r.budget, Budget::Quick);
        assert_eq!(r.only, Some(vec![Part::Scenarios, Part::Advisor]));
        let e = resolve(&RunArgs {
            skip: Some("topology".into()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("--skip topology is not possible"), "{e}");
        let e = resolve(&RunArgs {
            only: Some("nope".into()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            format!(
                "--only: unknown part `nope`; the parts are: {}",
                Part::known_names()
            )
        );
    }
}
