//! `numascope fleet DIR...`: every results.json under the given directories (one per host, as
//! `run --output 'res/{host}'` under srun, mpirun or pdsh leaves them), judged as a fleet by
//! `crate::fleet`: hosts grouped by hardware, per metric the median, spread and the hosts that
//! stand out, noisy runs and differently configured hosts reported as such. Text on stdout (or
//! JSON), and on request a CSV and a self-contained HTML page. Exit 0 when no host stands out,
//! 1 when one does, 2 on error (as `compare`).

use std::path::PathBuf;

use clap::Args;

use crate::cli::report::check_new;
use crate::cli::Context;
use crate::render::{fleet_text, html};
use crate::run::output::write_atomic;

/// Flags of `numascope fleet`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 when no host stands out, 1 when at least one does, 2 on error.\nHosts are grouped by CPU model, memory nodes, memory per node and kernel; within a group a figure stands out when it is beyond 3 robust z (1.4826 MAD) and 5 % of the group median and outside the host's own 95 % interval. Runs whose verdict is noisy or unusable, and hosts whose THP mode or numa_balancing differ from their group, are reported as such and not judged. See docs/fleet.md."
)]
pub struct FleetArgs {
    /// Directories holding run output (searched recursively for results.json), or results files.
    #[arg(value_name = "DIR", num_args = 1.., required = true)]
    pub dirs: Vec<PathBuf>,
    /// Print the fleet verdict as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write one CSV row per host and metric to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write a self-contained HTML page (hosts x metrics, distributions) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Overwrite existing --csv/--html files (never an input results file).
    #[arg(long)]
    pub force: bool,
}

/// Runs `fleet`.
pub fn run(_ctx: &Context, args: &FleetArgs) -> anyhow::Result<()> {
    crate::cli::report::check_distinct(&[
        ("--csv", args.csv.as_ref()),
        ("--html", args.html.as_ref()),
    ])?;
    let files = crate::fleet::files::find_results(&args.dirs)?;
    if files.is_empty() {
        anyhow::bail!(
            "no results.json under {}; give the directories `numascope run --output` wrote",
            args.dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for out in args.csv.iter().chain(args.html.iter()) {
        for input in &files {
            check_new(out, args.force, input, "fleet")?;
        }
    }
    let mut runs = Vec::new();
    for p in files {
        let r = crate::results_file::load(&p)?;
        runs.push((p, r));
    }
    let f = crate::fleet::judge(&runs);
    if let Some(p) = &args.csv {
        write_atomic(p, fleet_text::csv(&f)?.as_bytes())?;
    }
    if let Some(p) = &args.html {
        write_atomic(p, html::fleet::render(&f).as_bytes())?;
    }
    super::print_result(args.json, &f, |out| fleet_text::render(&f, out))?;
    if f.has_outliers() {
        // Exit status 1 once the verdict is printed, as `compare` does (nothing more printed).
        return Err(crate::error::differs("at least one host stands out"));
    }
    Ok(())
}
