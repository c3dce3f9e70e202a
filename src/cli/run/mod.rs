//! `numascope run` (and bare `numascope`): plan the parts within a time budget, run them, and
//! leave `results.json`, `report.html`, CSV tables and a summary in an output directory, printing a short summary at the
//! end. Flags are resolved and checked here (an unknown part name is one sentence listing the
//! known ones, exit 2); progress bars go to stderr only when it is a terminal.

use std::io::Write;
use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::bail;
use clap::Args;

use crate::cli::Context;
use crate::results::plan::{Budget, Part};
use crate::results::time::UtcTime;
use crate::run::execute::{execute, NoProgress, Progress, RunHeader, BUILT};
use crate::run::output::{self, OutputDir};
use crate::run::plan::{make_plan, parse_parts, PlanRequest};
use crate::topology::read_topology;

mod bars;
mod overrides;

use bars::Bars;
pub use overrides::overrides;

#[derive(Debug, Args, Default, Clone)]
pub struct RunArgs {
    /// Short budget: 10 to 30 s on a 2-CPU machine (fewer sizes and samples).
    #[arg(long, conflicts_with = "thorough")]
    pub quick: bool,
    /// Long budget: more sizes, samples, kernels and pairs (minutes on big machines).
    #[arg(long)]
    pub thorough: bool,
    /// Run only these parts, comma separated (--help lists them).
    ///
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
    /// Output directory (default numascope-HOST-DATE; {host} {date} {rank}).
    ///
    /// Output directory (default: numascope-HOST-YYYYMMDD-HHMMSS in the current one).
    /// `{host}`, `{date}` and `{rank}` (the launcher's rank: SLURM_PROCID,
    /// OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK) are replaced: `--output 'res/{host}'`.
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Write into an existing output directory, replacing files of the same name.
    #[arg(long)]
    pub force: bool,
    /// Also print results.json to stdout (the summary goes to stderr).
    ///
    /// Also print results.json to stdout (the summary then goes to stderr); with --dry-run,
    /// the plan as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print one `key=value` line instead of the summary.
    ///
    /// Print one `key=value` summary line instead of the summary (the default under a
    /// launcher: srun, mpirun); the full summary stays in summary.txt.
    #[arg(long)]
    pub summary_line: bool,

    // The knobs of the parts (docs/cli.md): each replaces the plan's choice for the parts it
    // applies to, is validated once in `overrides`, and is named in the plan's record.
    /// Bandwidth kernels of the bandwidth part, comma separated.
    ///
    /// Bandwidth kernels of the bandwidth part, comma separated (see `bandwidth
    /// --list-kernels`).
    #[arg(long, value_name = "LIST", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(&super::hints::bandwidth_kernels()))]
    pub kernel: Option<String>,
    /// Walk modes of the latency sweep, comma separated: random, page, seq.
    #[arg(long, value_name = "MODES", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(super::hints::MODES))]
    pub mode: Option<String>,
    /// Page backings of the latency sweep: 4k, thp, 2m, 1g (comma list).
    ///
    /// Page backings of the latency sweep, comma separated: 4k (the default everywhere but
    /// bandwidth, whose arrays use thp), thp, 2m, 1g.
    #[arg(long, value_name = "PAGES", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(super::hints::PAGE_SIZES))]
    pub page_size: Option<String>,
    /// Working sets of the latency sweep, FROM..TO (e.g. 4KiB..256MiB).
    #[arg(long, value_name = "FROM..TO")]
    pub sweep: Option<String>,
    /// Length of one timed bandwidth repetition, 20ms to 60s.
    ///
    /// Length of one timed repetition of bandwidth, its matrix, scaling, loaded latency and
    /// the scenarios, 20ms to 60s.
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,
    /// Minimum duration of one latency sample (sweep and matrix), milliseconds.
    #[arg(long, value_name = "MS")]
    pub sample_ms: Option<f64>,
    /// CPUs of the core-to-core part (at least two): `0-3`, `!0`, `S0:`.
    ///
    /// CPUs of the core-to-core part (at least two), CPU list syntax: `0-3`, `!0`, `S0:`.
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<String>,
    /// Initiator nodes of the latency and bandwidth matrices and of scaling.
    #[arg(long, value_name = "LIST")]
    pub cpu_nodes: Option<String>,
    /// Memory nodes of the latency and bandwidth matrices.
    #[arg(long, value_name = "LIST")]
    pub mem_nodes: Option<String>,
    /// Working set of the DRAM-sized parts (default: from the LLC).
    ///
    /// Working set of the DRAM-sized parts instead of the one derived from the last-level
    /// cache: each latency-matrix cell and the scenarios' single-thread latency chains, and the
    /// arrays of all threads together in bandwidth, its matrix, the scenarios and the advisor
    /// (still at least 16 MiB a thread). For small
    /// machines and test guests; below the caches it measures them, not memory.
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
}

/// Flags resolved into a plan request (the overrides, which need the topology, come after).
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
    // A part --skip names that --only already leaves out would be skipped twice, so --skip
    // would do nothing there.
    if let Some(only) = &only {
        if let Some(p) = skip.iter().find(|p| !only.contains(p)) {
            bail!(
                "--skip {} does nothing with --only, which already leaves that part out; drop it from --skip, or drop --only",
                p.name()
            );
        }
    }
    if args.summary_line && args.json {
        bail!("--json prints results.json (with --dry-run, the plan) to stdout, so --summary-line does nothing there; drop one of them");
    }
    if args.summary_line && args.dry_run {
        bail!("--dry-run prints the plan and measures nothing, so --summary-line has no summary to print; drop --summary-line or --dry-run");
    }
    if args.dry_run {
        // A dry run writes nothing, so the output flags would be ignored.
        for (flag, given) in [("--output", args.output.is_some()), ("--force", args.force)] {
            if given {
                bail!("--dry-run prints the plan and writes nothing, so {flag} does nothing there; drop {flag} or --dry-run");
            }
        }
    }
    Ok(PlanRequest {
        budget,
        only,
        skip,
        ..Default::default()
    })
}

pub fn run(ctx: &Context, args: &RunArgs) -> anyhow::Result<()> {
    let mut req = resolve(args)?;
    let root = &ctx.root;
    let topo = read_topology(root)?;
    req.overrides = overrides(&topo, args)?;
    let planned = make_plan(&topo, &req, BUILT);
    (req.overrides.check(&planned.plan)).map_err(anyhow::Error::msg)?;
    if args.dry_run {
        // The same warnings `topo` prints for this snapshot: the plan rests on its values.
        for w in &topo.warnings {
            super::ui::warning(w);
        }
        return super::print_result(args.json, &planned.plan, |out| {
            crate::render::run_text::plan::render_plan(out, &planned.plan)
        });
    }
    root.require_live("run measurements")?;
    let now = UtcTime::of(SystemTime::now());
    let rank = crate::launcher::rank();
    let (host, dir_path) = output::place(root, args.output.as_deref(), &now, rank)?;
    crate::sys::signal::install_stop_handlers()?;
    let existed = dir_path.exists();
    let dir = OutputDir::prepare(&dir_path, args.force)?;
    // One run per output directory, then one measurement per host: the
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
    let bars = Bars::default();
    let progress: &dyn Progress = if super::ui::show_progress() {
        &bars
    } else {
        &NoProgress
    };
    let results = execute(&topo, root, &planned, header, progress, &dir)?;
    let summary = dir.write_finished(&results)?;
    if args.json {
        let mut out = std::io::stdout().lock();
        out.write_all(results.to_json().as_bytes())?;
        out.flush()?;
        // The summary on stderr is a courtesy: a closed or full stderr does not fail the run.
        let _ = std::io::stderr().write_all(&summary);
    } else if args.summary_line || rank.is_some() {
        let mut line = Vec::new();
        crate::render::run_text::summary::line(&mut line, &results, dir.path())?;
        let mut out = std::io::stdout().lock();
        out.write_all(&crate::sanitize::text_bytes(&line))?;
        out.flush()?;
    } else {
        super::ui::write_stdout(&summary)?;
    }
    super::run_status(&results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::placement::PageSize;
    use crate::run::plan::Planned;

    /// The plan `run` makes of `args`, or its refusal of a flag.
    fn plan_of(
        topo: &crate::results::topology::Topology,
        args: &RunArgs,
    ) -> Result<Planned, String> {
        let mut req = resolve(args).unwrap();
        req.overrides = overrides(topo, args).unwrap();
        let planned = make_plan(topo, &req, BUILT);
        req.overrides.check(&planned.plan).map(|()| planned)
    }

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

    #[test]
    fn knobs_replace_the_plans_choices_and_are_recorded() {
        let topo = crate::testutil::this_machine_one_node();
        let args = RunArgs {
            quick: true,
            kernel: Some("copy".into()),
            page_size: Some("4k,thp".into()),
            duration: Some("50ms".into()),
            sweep: Some("4KiB..1MiB".into()),
            ..Default::default()
        };
        let planned = plan_of(&topo, &args).unwrap();
        let s = &planned.settings;
        assert_eq!(
            s.bandwidth.kernels,
            vec![crate::bandwidth::descriptor::KernelId::Copy]
        );
        assert_eq!(s.latency.pages, vec![PageSize::Base, PageSize::Thp]);
        assert_eq!((s.latency.from_bytes, s.latency.to_bytes), (4096, 1 << 20));
        assert_eq!(s.scaling.timed.duration_ms, 50);
        let bw = planned.plan.planned(Part::Bandwidth).unwrap();
        assert!(
            bw.detail
                .ends_with("(set by --kernel copy, --duration 50ms)"),
            "{}",
            bw.detail
        );
        // The total is the parts' estimates plus the run's reference measurement.
        let sum: f64 = planned.plan.parts.iter().map(|p| p.estimate_s).sum::<f64>()
            + planned
                .plan
                .reference
                .as_ref()
                .map_or(0.0, |r| r.estimate_s);
        assert!(planned.plan.reference.is_some());
        assert_eq!(planned.plan.estimate_s, sum);
    }

    #[test]
    fn bad_knobs_are_one_sentence_each() {
        let topo = crate::testutil::this_machine_one_node();
        let bad = |a: RunArgs, needle: &str| {
            let e = overrides(&topo, &a).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        };
        bad(
            RunArgs {
                kernel: Some("tirad".into()),
                ..Default::default()
            },
            "--kernel",
        );
        bad(
            RunArgs {
                sweep: Some("1MiB..4KiB".into()),
                ..Default::default()
            },
            "rising range",
        );
        bad(
            RunArgs {
                sample_ms: Some(0.0),
                ..Default::default()
            },
            "above 0",
        );
        bad(
            RunArgs {
                mem_nodes: Some("7".into()),
                ..Default::default()
            },
            "too large (max 0)",
        );
        bad(
            RunArgs {
                size: Some("64KiB".into()),
                ..Default::default()
            },
            "--size 64KiB is below 1 MiB",
        );
        bad(
            RunArgs {
                size: Some("1TiB".into()),
                ..Default::default()
            },
            "more than half the",
        );
        bad(
            RunArgs {
                size: Some("lots".into()),
                ..Default::default()
            },
            "--size",
        );
    }

    /// `--size` sets the DRAM working sets of the parts it names (guest-sized runs), keeping
    /// at least 16 MiB a thread, and the plan records it.
    #[test]
    fn size_sets_the_dram_working_sets() {
        let topo = crate::testutil::this_machine_one_node();
        let args = RunArgs {
            size: Some("24MiB".into()),
            ..Default::default()
        };
        let planned = plan_of(&topo, &args).unwrap();
        let s = &planned.settings;
        let threads = topo.usable_cpus().len().max(1) as u64;
        assert_eq!(s.latency_matrix.size_bytes, 24 << 20);
        assert_eq!(s.scenarios.total_bytes, 24 << 20);
        assert_eq!(s.scenarios.latency_bytes, 24 << 20);
        assert_eq!(
            s.bandwidth.bytes_per_thread,
            ((24u64 << 20) / threads).max(16 << 20)
        );
        assert_eq!(s.bandwidth_matrix.size_bytes, s.bandwidth.bytes_per_thread);
        for part in [Part::LatencyMatrix, Part::Scenarios, Part::Advisor] {
            let d = &planned.plan.planned(part).unwrap().detail;
            assert!(d.ends_with("(set by --size 24MiB)"), "{d}");
        }
        let args = RunArgs {
            only: Some("c2c".into()),
            size: Some("24MiB".into()),
            ..Default::default()
        };
        let e = plan_of(&topo, &args).unwrap_err();
        assert!(e.contains("--size 24MiB applies to"), "{e}");
    }
}
