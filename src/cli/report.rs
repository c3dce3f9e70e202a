//! `numascope report results.json`: re-render a saved run without measuring anything: the
//! terminal summary (default or `--text`), the HTML report (`--html OUT.html`), one CSV per
//! table (`--csv DIR`), the results JSON as this build writes it (`--json`), and the measured
//! matrices as hwloc memory attributes (`--hwloc-xml OUT.xml`). Files are written whole or not
//! at all (a temporary file renamed into place) and never overwrite without `--force`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;

use crate::cli::Context;
use crate::render::{csv as csv_render, html, run_text, topo::hwloc};
use crate::run::output::write_atomic;

/// Flags of `numascope report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The directory `numascope run` wrote (it names it at the end), or its results.json.
    #[arg(value_name = "DIR|RESULTS.json", value_hint = clap::ValueHint::AnyPath)]
    pub results: PathBuf,
    /// Write the self-contained HTML report to this file.
    #[arg(long, value_name = "OUT.html", value_hint = clap::ValueHint::FilePath)]
    pub html: Option<PathBuf>,
    /// Write one CSV file per table into this directory (created if missing).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub csv: Option<PathBuf>,
    /// Write the measured latency and bandwidth matrices as hwloc memory attributes, in an
    /// hwloc XML topology (`lstopo --memattrs -i OUT.xml` shows them).
    #[arg(long, value_name = "OUT.xml", value_hint = clap::ValueHint::FilePath)]
    pub hwloc_xml: Option<PathBuf>,
    /// Write the headline figures with their 95 % intervals and a host label in the
    /// OpenMetrics text format (for node_exporter's textfile collector: a FILE.prom in its
    /// --collector.textfile.directory).
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub openmetrics: Option<PathBuf>,
    /// Print the one-screen summary (the default when no other output is asked for).
    #[arg(long)]
    pub text: bool,
    /// Print every table, sweep point and decision instead of the one-screen summary.
    #[arg(long, visible_alias = "detail", conflicts_with = "json")]
    pub full: bool,
    /// Print the results as JSON (the file re-serialized by this build).
    #[arg(long, conflicts_with = "text")]
    pub json: bool,
    /// Overwrite output files that already exist.
    #[arg(long)]
    pub force: bool,
}

/// The results file a command line names: a run's directory (the one `numascope run` wrote
/// and named) stands for the results.json inside it; any other path is the file itself. A
/// directory without one is refused in one sentence naming it and the fix.
pub(crate) fn results_path(p: &Path) -> anyhow::Result<PathBuf> {
    if !p.is_dir() {
        return Ok(p.to_path_buf());
    }
    let file = p.join(crate::fleet::files::RESULTS_FILE);
    if file.exists() {
        return Ok(file);
    }
    Err(crate::error::usage(format!(
        "{} is a directory without a results.json; give the directory `numascope run` wrote (it names it at the end) or a results.json, and `numascope fleet` for a directory of runs",
        p.display()
    )))
}

/// Refuses an existing path unless `force`, and the input file even with `force`; one
/// sentence naming the path and the fix.
pub(crate) fn check_new(path: &Path, force: bool, input: &Path, cmd: &str) -> anyhow::Result<()> {
    if crate::sys::safe_read::same_file(path, input) {
        anyhow::bail!(
            "{} is the results file being read; {cmd} never overwrites its input, even with --force: choose another output path",
            path.display()
        );
    }
    if !force && path.exists() {
        anyhow::bail!(
            "{} already exists; add --force to overwrite it or choose another path",
            path.display()
        );
    }
    Ok(())
}

/// Where `p` would be written: its directory resolved (links and `..` followed) and its
/// name, so `out.html`, `./out.html` and `d/../out.html` compare equal before any exists.
fn destination(p: &Path) -> PathBuf {
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(dir), p.file_name()) {
        (Ok(d), Some(n)) => d.join(n),
        _ => p.to_path_buf(),
    }
}

/// Refuses two output flags naming one file (`--html F --hwloc-xml F`), before anything is
/// read or written: one would silently replace the other.
pub(crate) fn check_distinct(outputs: &[(&str, Option<&PathBuf>)]) -> anyhow::Result<()> {
    let given: Vec<(&str, &PathBuf)> = outputs
        .iter()
        .filter_map(|(flag, p)| p.map(|p| (*flag, p)))
        .collect();
    for (i, (fa, a)) in given.iter().enumerate() {
        for (fb, b) in &given[i + 1..] {
            if destination(a) == destination(b) || crate::sys::safe_read::same_file(a, b) {
                anyhow::bail!(
                    "{fa} {} and {fb} {} name one file, so one output would replace the other; give each its own path",
                    a.display(),
                    b.display()
                );
            }
        }
    }
    Ok(())
}

/// The OpenMetrics text of a run's headline figures (`--openmetrics`).
fn openmetrics_text(r: &crate::results::RunResults) -> String {
    let m = crate::compare::metrics(r, &r.host);
    let env = &r.topology.environment;
    let info = crate::render::fleet::openmetrics::RunInfo {
        host: &r.host,
        kernel: env.kernel_release.as_deref().unwrap_or("unknown"),
        cpu_model: env.cpu_model.as_deref().unwrap_or("unknown"),
        verdict: r.quality.as_ref().map_or("unknown", |q| q.verdict.label()),
        budget: r.plan.budget.name(),
        tool_version: &r.tool_version,
        started_at: &r.started_at,
    };
    let vm = m.virtual_machine;
    crate::render::fleet::openmetrics::render(&m, &info, &|x| {
        crate::compare::figure_unjudged(x, vm, true).is_none()
    })
}

/// Refuses every destination that exists (without `--force`) or is the input, before
/// anything is written, so a refusal leaves no partial output; gives the CSV files to write.
fn check_outputs(
    args: &ReportArgs,
    input: &Path,
    r: &crate::results::RunResults,
) -> anyhow::Result<Vec<(String, String)>> {
    for p in [&args.html, &args.hwloc_xml, &args.openmetrics]
        .into_iter()
        .flatten()
    {
        check_new(p, args.force, input, "report")?;
    }
    Ok(match &args.csv {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                anyhow::bail!(
                    "{} is not a directory; give --csv a directory",
                    dir.display()
                );
            }
            let files = csv_render::run_csv(r).context("cannot format the CSV tables")?;
            for (name, _) in &files {
                check_new(&dir.join(name), args.force, input, "report")?;
            }
            files
        }
        None => Vec::new(),
    })
}

/// Runs `report`.
pub fn run(_ctx: &Context, args: &ReportArgs) -> anyhow::Result<()> {
    check_distinct(&[
        ("--html", args.html.as_ref()),
        ("--hwloc-xml", args.hwloc_xml.as_ref()),
        ("--openmetrics", args.openmetrics.as_ref()),
    ])?;
    let input = results_path(&args.results)?;
    let (r, notes) = crate::results_file::load_noted(&input)?;
    for n in notes {
        super::ui::note(n);
    }
    let csv_files = check_outputs(args, &input, &r)?;
    let hwloc_text = match &args.hwloc_xml {
        Some(_) => Some(hwloc::hwloc_xml(&r)?),
        None => None,
    };
    if let Some(p) = &args.html {
        write_atomic(p, html::render(&r).as_bytes())?;
        super::ui::note(format!("wrote {}", p.display()));
    }
    if let Some(dir) = &args.csv {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for (name, text) in &csv_files {
            write_atomic(&dir.join(name), text.as_bytes())?;
        }
        super::ui::note(format!(
            "wrote {} CSV file(s) into {}",
            csv_files.len(),
            dir.display()
        ));
    }
    if let (Some(p), Some(x)) = (&args.hwloc_xml, &hwloc_text) {
        write_atomic(p, x.as_bytes())?;
        super::ui::note(format!(
            "wrote {} (lstopo --memattrs -i {} shows the measured values)",
            p.display(),
            p.display()
        ));
    }
    if let Some(p) = &args.openmetrics {
        write_atomic(p, openmetrics_text(&r).as_bytes())?;
        super::ui::note(format!("wrote {}", p.display()));
    }
    let wrote_files = args.html.is_some()
        || args.csv.is_some()
        || args.hwloc_xml.is_some()
        || args.openmetrics.is_some();
    if args.json {
        let mut out = std::io::stdout().lock();
        out.write_all(r.to_json().as_bytes())?;
        out.flush()?;
    } else if args.full {
        let mut text = Vec::new();
        run_text::render(&r, &mut text)?;
        super::ui::write_stdout(&text)?;
    } else if args.text || !wrote_files {
        let mut text = Vec::new();
        crate::render::run_text::summary::render(&mut text, &r, None)?;
        super::ui::write_stdout(&text)?;
    }
    Ok(())
}
