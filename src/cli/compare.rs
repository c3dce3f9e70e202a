//! `numascope compare A.json B.json [C.json ...]`: saved runs side by side, each figure as a
//! ratio to the first run, differences beyond both runs' intervals flagged (Holm over all
//! metrics), figures from runs under different conditions marked not comparable, and with four
//! or more runs the outlier hosts named. Usable as a test in a script: exit 0 when nothing
//! differs beyond noise, 1 when something does, 2 on error (as `diff`). The logic is
//! `crate::compare`; this file loads, names the runs, prints and sets the exit status.

use std::path::PathBuf;

use clap::Args;

use crate::cli::Context;
use crate::compare::{compare_with, metrics};
use crate::render::fleet::compare as compare_text;
use crate::results::compare::Conditions;

/// Flags of `numascope compare`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 when no figure differs beyond noise, 1 when at least one does, 2 on error (as diff), 4 when fewer than 25 % of the figures both runs have could be compared (nothing differing among them): too little compared is not \"no difference\".\nA difference needs both runs' 95 % intervals for the median (6 or more repetitions): the ratio's interval must lie beyond 1 +- 3 % and its p-value, Holm-adjusted over every metric compared, be at most 5 %. Figures without an interval are shown, not judged; runs with a different budget, kernel version, THP mode or host are marked not comparable for the affected figures (a kernel that differs only in its build string is stated, not a reason).\nEach figure is judged on its own, whatever the run's verdict: a figure marked disturbed or whose interval is wider than +-10 % of its median is shown, not judged. The intervals see only the variation inside a run, so a difference between runs must also clear a between-run floor: latency and bandwidth 5 %, core to core 10 % on bare metal; latency 40 %, bandwidth 50 % in a VM, where core to core is not compared."
)]
pub struct CompareArgs {
    /// Two or more results.json files (or the run directories holding them); the first is the
    /// reference (one or more with --baseline).
    #[arg(value_name = "RESULTS.json", num_args = 1.., required = true,
        value_hint = clap::ValueHint::AnyPath)]
    pub results: Vec<PathBuf>,
    /// Check each run against the fleet baseline FILE (from `fleet --save-baseline`) instead
    /// of against the first run: a figure whose whole interval lies outside its envelope is
    /// named (exit 1).
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub baseline: Option<PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Show every metric, not only those measured by every run.
    #[arg(long)]
    pub all: bool,
}

/// Runs `compare`.
pub fn run(_ctx: &Context, args: &CompareArgs) -> anyhow::Result<()> {
    if args.results.len() < 2 && args.baseline.is_none() {
        return Err(crate::error::usage(
            "compare needs two or more results files (the first is the reference), or --baseline FILE and one or more",
        ));
    }
    let mut runs = Vec::new();
    for p in &args.results {
        let (r, notes) = crate::results_file::load_noted(&super::report::results_path(p)?)?;
        for n in notes {
            super::ui::note(n);
        }
        runs.push((p.clone(), r));
    }
    if let Some(b) = &args.baseline {
        if args.all {
            return Err(crate::error::usage(
                "--all shows metrics some runs lack in a comparison of runs; with --baseline every checked figure is shown already, leave --all out",
            ));
        }
        let f = super::fleet::check_baseline(b, &runs)?;
        super::print_result(args.json, &f, |out| crate::render::fleet::render(&f, out))?;
        if f.has_outliers() {
            return Err(crate::error::differs("a run falls outside the baseline"));
        }
        if let Some(why) = crate::render::words::fleet::nothing_judged(&f) {
            return Err(crate::error::not_comparable(why));
        }
        return Ok(());
    }
    let n = crate::compare::run_names(
        &runs
            .iter()
            .map(|(p, r)| (p.as_path(), r.host.as_str()))
            .collect::<Vec<_>>(),
    );
    let metrics: Vec<_> = runs
        .iter()
        .zip(&n)
        .map(|((_, r), name)| metrics(r, name))
        .collect();
    let conditions: Vec<Conditions> = runs.iter().map(|(_, r)| Conditions::of(r)).collect();
    let c = compare_with(&metrics, &conditions);
    super::print_result(args.json, &c, |out| compare_text::render(&c, args.all, out))?;
    if c.differs {
        // Exit status 1 (as diff does) once the comparison is printed and flushed; cli::main
        // prints nothing more for this kind.
        return Err(crate::error::differs(
            "at least one figure differs beyond noise",
        ));
    }
    if let Some(why) = &c.too_little_compared {
        // Exit status 4: too little compared is not "no difference" (printed first already).
        return Err(crate::error::not_comparable(why.clone()));
    }
    Ok(())
}
