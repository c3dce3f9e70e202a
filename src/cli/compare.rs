//! `numascope compare A.json B.json [C.json ...]`: saved runs side by side, each figure as a
//! ratio to the first run, differences beyond the runs' own spread flagged, and with three or
//! more runs the outlier hosts named. The logic is `crate::compare`; this file loads, names
//! the runs and prints.

use std::path::PathBuf;

use clap::Args;

use crate::cli::Context;
use crate::compare::compare;
use crate::render::compare_text;
use crate::render::run_view::metrics;
use crate::results::RunResults;

/// Flags of `numascope compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two or more results.json files; the first is the reference.
    #[arg(value_name = "RESULTS.json", num_args = 2.., required = true)]
    pub results: Vec<PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Show every metric, not only those measured by every run.
    #[arg(long)]
    pub all: bool,
}

/// Names runs by host, adding the file name where hosts repeat.
fn names(runs: &[(PathBuf, RunResults)]) -> Vec<String> {
    runs.iter()
        .map(|(p, r)| {
            let dup = runs.iter().filter(|(_, o)| o.host == r.host).count() > 1;
            if dup {
                format!(
                    "{} ({})",
                    r.host,
                    p.file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default()
                )
            } else {
                r.host.clone()
            }
        })
        .collect()
}

/// Runs `compare`.
pub fn run(_ctx: &Context, args: &CompareArgs) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for p in &args.results {
        runs.push((p.clone(), RunResults::load(p)?));
    }
    let mut n = names(&runs);
    // Same host and same file name (a/results.json, b/results.json): use the whole path.
    for i in 0..n.len() {
        if n.iter().filter(|m| **m == n[i]).count() > 1 {
            n[i] = format!("{} ({})", runs[i].1.host, runs[i].0.display());
        }
    }
    let metrics: Vec<_> = runs
        .iter()
        .zip(&n)
        .map(|((_, r), name)| metrics(r, name))
        .collect();
    let c = compare(&metrics);
    super::print_result(args.json, &c, |out| compare_text::render(&c, args.all, out))
}
