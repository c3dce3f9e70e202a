//! `numascope app` as text: one line per candidate (wall time with its interval, CPU time,
//! maximum resident set, where memory and threads were seen, or which candidate it places
//! identically to), the verdict, what the program overrode, and how to run each candidate
//! (the numactl line the installed numactl accepts, or the kernel way). Also the CSV
//! (`app.csv`, one row per run) and a small self-contained HTML page. Reads results only.

use crate::render::format::estimate::num;
use std::io::{self, Write};

use crate::results::app::{AppCandidate, AppReport, AppRun, Observed};
use crate::results::format::format_bytes;
use crate::stats::Summary;

mod tiering;

use crate::render::format::estimate::bracketed;
use crate::render::html::esc;

/// The text report.
pub fn render(r: &AppReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "numascope app: {}", r.command.join(" "))?;
    writeln!(
        out,
        "{} run{} per candidate after {} warm-up, interleaved across candidates; {}",
        r.runs,
        if r.runs == 1 { "" } else { "s" },
        r.warmup,
        if r.sample_interval_ms == 0 {
            "placement not sampled".to_string()
        } else {
            format!(
                "numa_maps and thread CPUs sampled every {} ms",
                r.sample_interval_ms
            )
        }
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<16} {:<30} {:>8} {:>8} {:>10}  where it was",
        "candidate", "wall s (median [95 %] n)", "user s", "sys s", "max RSS"
    )?;
    candidates(r, out)?;
    writeln!(out)?;
    writeln!(out, "Verdict: {}", r.ranking.text)?;
    for cmp in &r.ranking.comparisons {
        writeln!(
            out,
            "  {} / {}: wall-time ratio {}{} over {} paired rounds: {}",
            cmp.candidate,
            cmp.reference,
            num(cmp.ratio),
            cmp.ci.map_or(String::new(), |c| {
                format!(" [{}, {}]", num(c.low), num(c.high))
            }),
            cmp.rounds,
            cmp.decision
        )?;
    }
    let kernel: Vec<String> = r.candidates.iter().flat_map(tiering::lines).collect();
    if !kernel.is_empty() {
        writeln!(out, "Kernel-managed candidates (what the kernel did):")?;
        for l in kernel {
            writeln!(out, "{l}")?;
        }
    }
    for c in &r.candidates {
        if let Some(o) = c.observed.as_ref().and_then(|o| o.overriding.as_ref()) {
            writeln!(out, "Overriding ({}) {}: {o}", c.letter, c.id)?;
        }
    }
    if let Some(s) = &r.stopped {
        writeln!(out, "Partial: {s}")?;
    }
    how_to_run(r, out)
}

/// One line per candidate: wall time with its interval, user and sys time, max RSS and where
/// its pages and threads were seen.
fn candidates(r: &AppReport, out: &mut dyn Write) -> io::Result<()> {
    let median = |s: Option<Summary>| s.map_or("-".into(), |s| num(s.median));
    for c in &r.candidates {
        let name = format!("({}) {}", c.letter, c.id);
        let figures = match (&c.same_as, &c.unavailable, &c.wall_s) {
            (_, Some(u), _) => format!("not run: {u}"),
            (Some(s), _, _) => format!("same placement as {s}, measured once there"),
            (None, None, Some(w)) => format!(
                "{:<30} {:>8} {:>8} {:>10}  {}",
                bracketed(&w.estimate()),
                median(c.user_s),
                median(c.sys_s),
                c.max_rss_kib
                    .map_or("-".into(), |s| format_bytes(s.median as u64 * 1024)),
                c.observed.as_ref().map_or("not sampled".into(), seen)
            ),
            (None, None, None) => "no run kept".into(),
        };
        writeln!(out, "{name:<16} {figures}")?;
    }
    Ok(())
}

/// Each candidate's numactl (or launcher) line, and where the program's output went.
fn how_to_run(r: &AppReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "How to run each ({}):", numactl_name(r))?;
    for c in &r.candidates {
        writeln!(out, "  ({}) {}: {}", c.letter, c.id, c.label)?;
        writeln!(out, "      {}", how(c))?;
    }
    let runs = r.candidates.iter().flat_map(|c| &c.runs);
    if let Some(f) = runs.filter_map(|run| run.stdout_file.as_ref()).next() {
        let dir = std::path::Path::new(f).parent();
        let dir = dir.map_or(String::new(), |p| p.display().to_string());
        writeln!(
            out,
            "The program's output: one .stdout and .stderr file per run in {dir}"
        )?;
    }
    Ok(())
}

fn numactl_name(r: &AppReport) -> String {
    match (&r.numactl.path, &r.numactl.version) {
        (None, _) => "no numactl on PATH".into(),
        (Some(p), Some(v)) => format!("numactl {v} at {}", p.display()),
        (Some(p), None) => format!("{}, version not reported", p.display()),
    }
}

/// The numactl line, or (as a shell comment, so it reads as prose) why there is none with
/// the kernel way.
fn how(c: &AppCandidate) -> String {
    if let Some(k) = c.kernel.as_ref().filter(|k| !k.settings.is_empty()) {
        return tiering::how(k, c.how.command.as_deref());
    }
    match &c.how.command {
        Some(cmd) => cmd.clone(),
        None => format!(
            "# no numactl line: {}; kernel way: {}",
            c.how.why_not.as_deref().unwrap_or("numactl cannot"),
            c.how.kernel_way
        ),
    }
}

/// `node 0 100 % (64 MiB); CPUs 0-1`.
fn seen(o: &Observed) -> String {
    let total: u64 = o.nodes.iter().map(|n| n.bytes).sum();
    let share = |b: u64| match total {
        0 => 0.0,
        _ => b as f64 * 100.0 / total as f64,
    };
    let mem: Vec<String> = (o.nodes.iter())
        .map(|n| format!("node {} {:.0} %", n.node, share(n.bytes)))
        .collect();
    let cpus: Vec<String> = o.thread_cpus.iter().map(u32::to_string).collect();
    let overridden = match o.overriding {
        Some(_) => "; OVERRIDDEN by the program",
        None => "",
    };
    let (mem, total, cpus) = (mem.join(", "), format_bytes(total), cpus.join(","));
    format!("memory {mem} of {total}; threads on CPU {cpus}{overridden}")
}

/// How one run of a candidate reads in one CSV column.
type CsvCell<'a> = dyn Fn(&AppCandidate, &AppRun) -> String + 'a;

/// `app.csv`: one row per run, snake_case headers with units, numbers as numbers, missing
/// as empty.
pub fn csv(r: &AppReport) -> Result<String, csv::Error> {
    use crate::sanitize::csv_text;
    let opt = |v: Option<i32>| v.map_or(String::new(), |x| x.to_string());
    let cols: [(&str, &CsvCell<'_>); 14] = [
        ("candidate", &|c, _| csv_text(&c.id)),
        ("policy", &|c, _| csv_text(&c.policy)),
        ("cpus", &|c, _| {
            let cpus = c.cpus.iter().flatten().map(u32::to_string);
            cpus.collect::<Vec<_>>().join(" ")
        }),
        ("same_as", &|c, _| {
            csv_text(c.same_as.as_deref().unwrap_or(""))
        }),
        ("round", &|_, run| run.round.to_string()),
        ("warmup", &|_, run| run.warmup.to_string()),
        ("wall_s", &|_, run| run.wall_s.to_string()),
        ("user_s", &|_, run| run.user_s.to_string()),
        ("sys_s", &|_, run| run.sys_s.to_string()),
        ("max_rss_kib", &|_, run| run.max_rss_kib.to_string()),
        ("exit_code", &|_, run| opt(run.exit_code)),
        ("signal", &|_, run| opt(run.signal)),
        ("stopped", &|_, run| run.stopped.to_string()),
        ("samples", &|_, run| run.samples.to_string()),
    ];
    let headers = cols.iter().map(|c| c.0.to_string());
    let header = headers.chain(tiering::csv_headers()).collect();
    let rows = (r.candidates.iter()).flat_map(|c| c.runs.iter().map(move |run| (c, run)));
    let rows = rows.map(|(c, run)| {
        let cells = cols.iter().map(|col| (col.1)(c, run));
        cells.chain(tiering::csv_cells(c, run)).collect()
    });
    crate::render::csv::records(std::iter::once(header).chain(rows))
}

/// `app.html`: the same report as one self-contained page (no scripts, no external files).
pub fn html(r: &AppReport) -> String {
    let mut text = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = render(r, &mut text);
    let mut rows = String::new();
    for c in &r.candidates {
        let wall = match (&c.same_as, &c.wall_s) {
            (Some(s), _) => format!("same placement as {s}"),
            (None, Some(w)) => bracketed(&w.estimate()),
            (None, None) => "no run kept".into(),
        };
        rows.push_str(&format!(
            "<tr><td>({}) {}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
            c.letter,
            esc(&c.id),
            esc(&c.label),
            esc(&wall),
            esc(&c.observed.as_ref().map_or("not sampled".into(), seen)),
            esc(&how(c))
        ));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>numascope app: {cmd}</title>\n<style>body{{font-family:system-ui,sans-serif;max-width:70rem;margin:1rem auto;padding:0 1rem;color:#111;background:#fff}}table{{border-collapse:collapse;width:100%}}td,th{{border-bottom:1px solid #ccc;padding:.3rem;text-align:left;vertical-align:top}}td.n{{text-align:right;font-variant-numeric:tabular-nums}}pre{{overflow-x:auto;background:#f4f4f4;padding:.5rem}}</style></head><body>\n<h1>numascope app</h1>\n<p><code>{cmd}</code></p>\n<p><strong>{verdict}</strong></p>\n<table><thead><tr><th>candidate</th><th>placement</th><th>wall s (median [95 % interval] n)</th><th>where it was</th><th>how to run it</th></tr></thead><tbody>\n{rows}</tbody></table>\n{kernel}<h2>Text report</h2>\n<pre>{text}</pre>\n</body></html>\n",
        cmd = esc(&r.command.join(" ")),
        verdict = esc(&r.ranking.text),
        kernel = tiering::html(&r.candidates),
        text = esc(&String::from_utf8_lossy(&text)),
    )
}
