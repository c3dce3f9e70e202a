//! `numascope fleet DIR...`: every results.json under the given directories (one per host, as
//! `run --output 'res/{host}'` under srun, mpirun or pdsh leaves them), judged as a fleet by
//! `crate::fleet`: hosts grouped by hardware, per metric the median, spread and the hosts that
//! stand out, noisy runs and differently configured hosts reported as such. Text on stdout (or
//! JSON), and on request a CSV and a self-contained HTML page. `--save-baseline FILE` also
//! writes the fleet's expected figures; `--baseline FILE` checks the hosts against such a file
//! instead of against each other. Exit 0 when no host stands out, 1 when one does, 2 on error
//! (as `compare`), 4 when no figure of any host could be judged.

use std::path::PathBuf;

use clap::Args;

use crate::cli::report::check_new;
use crate::cli::Context;
use crate::render::{fleet as fleet_text, html};
use crate::run::output::write_atomic;

/// Flags of `numascope fleet`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 when no host stands out, 1 when at least one does, 2 on error, 4 when no figure of any host could be judged (too few hosts, or every figure disturbed or too wide).\nHosts are grouped by CPU model, memory nodes, memory per node and kernel version; each figure is judged on its own, whatever its run's verdict, when it was not disturbed and its 95 % interval is within +-10 % of its median, and it stands out when it is beyond 3 robust z (1.4826 MAD) and 5 % of the group median and outside its own interval. Hosts whose THP mode or numa_balancing differ from their group are reported as such and not judged. --save-baseline FILE records each group's expected figures and envelopes; --baseline FILE checks the hosts against them instead. See docs/fleet.md."
)]
pub struct FleetArgs {
    /// Directories holding run output (searched recursively for results.json), or results files.
    #[arg(value_name = "DIR", num_args = 1.., required = true, value_hint = clap::ValueHint::AnyPath)]
    pub dirs: Vec<PathBuf>,
    /// Print the fleet verdict as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write one CSV row per host and metric to FILE.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub csv: Option<PathBuf>,
    /// Also write a self-contained HTML page (hosts x metrics, distributions) to FILE.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub html: Option<PathBuf>,
    /// Also save the fleet's expected figures and their envelopes, per hardware group, to FILE
    /// (docs/schema/baseline.md).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline", value_hint = clap::ValueHint::FilePath)]
    pub save_baseline: Option<PathBuf>,
    /// Check the hosts against the baseline FILE (from --save-baseline) instead of each other.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub baseline: Option<PathBuf>,
    /// Overwrite existing --csv/--html/--save-baseline files (never an input results file).
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
    let outputs = args.csv.iter().chain(args.html.iter());
    for out in outputs.chain(args.save_baseline.iter()) {
        for input in &files {
            check_new(out, args.force, input, "fleet")?;
        }
    }
    let mut runs = Vec::new();
    for p in files {
        let r = crate::results_file::load(&p)?;
        runs.push((p, r));
    }
    let f = match &args.baseline {
        Some(b) => check_baseline(b, &runs)?,
        None => crate::fleet::judge(&runs),
    };
    if let Some(p) = &args.save_baseline {
        let b = crate::fleet::baseline::save(&runs);
        let text = serde_json::to_string_pretty(&b)? + "\n";
        write_atomic(p, text.as_bytes())?;
    }
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
    if let Some(why) = crate::render::words::fleet::nothing_judged(&f) {
        // Exit status 4: nothing judged is not "no host stands out" (printed first already).
        return Err(crate::error::not_comparable(why));
    }
    Ok(())
}

/// Reads the baseline at `path` and checks `runs` against it (also `compare --baseline`).
pub fn check_baseline(
    path: &std::path::Path,
    runs: &[(PathBuf, crate::results::RunResults)],
) -> anyhow::Result<crate::results::fleet::FleetReport> {
    let bytes = crate::sys::safe_read::read_capped(path, crate::results_file::MAX_RESULTS_BYTES, false)
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot read the baseline {}: {e}; give a file written by `numascope fleet --save-baseline`",
                path.display()
            )
        })?;
    let text = String::from_utf8_lossy(&bytes);
    let b = crate::fleet::baseline::parse(&text, path)?;
    Ok(crate::fleet::baseline::check(
        runs,
        &b,
        &path.display().to_string(),
    ))
}
