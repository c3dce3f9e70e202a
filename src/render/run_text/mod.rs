//! A run's texts: the plan `run --dry-run` prints ([`plan`]), the one-screen [`summary`] that
//! `run`, `report` and summary.txt print, and here the full terminal report
//! (`numascope report --full`): who and what was measured, the headline figures, the findings
//! in words, then each part through its own command's section (latency, bandwidth with its
//! matrix and scaling, loaded latency and core to core print as `numascope latency`,
//! `bandwidth`, `loaded-latency` and `c2c` do), the scenario table with the winner per kind
//! of application and the weighted-interleave advice (`policy.rs`), and what was not measured
//! and why.

use std::io::{self, Write};

use self::policy::{advisor, scenarios};
use crate::render::run_view as view;
use crate::results::{findings::Severity, plan::Part, RunResults};

pub mod plan;
mod policy;
pub mod summary;

fn section(out: &mut dyn Write, title: &str) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "{title}")?;
    writeln!(out, "{}", "-".repeat(title.chars().count()))
}

pub(super) fn absent(out: &mut dyn Write, r: &RunResults, part: Part) -> io::Result<()> {
    writeln!(
        out,
        "not measured in this run ({})",
        view::absent_reason(r, part)
    )
}

/// Writes the body of one section.
type SectionBody = fn(&RunResults, &mut dyn Write) -> io::Result<()>;

/// The sections of the summary in order: heading and the function that writes the body.
const SECTIONS: &[(&str, SectionBody)] = &[
    ("Findings", findings),
    ("Latency", latency),
    ("Bandwidth (MB/s, MB = 10^6 B)", bandwidth),
    ("Bandwidth scaling with threads", scaling),
    ("Loaded latency", loaded),
    ("Core to core", core_to_core),
    ("Policy scenarios", scenarios_and_precision),
    ("Weighted interleave", advisor),
];

/// The scenario table, then what its latency column measured and how precise each row came
/// out against the run's target.
fn scenarios_and_precision(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    scenarios(r, out)?;
    if let Some(t) = &r.scenarios {
        if let Some(l) = crate::render::words::scenarios::latency_conditions(t) {
            writeln!(out, "{l}")?;
        }
    }
    if let Some(p) = crate::render::words::precision::precision_line(r) {
        writeln!(out, "{p}")?;
    }
    Ok(())
}

/// Renders the summary.
pub fn render(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    headline(r, out)?;
    for (title, body) in SECTIONS {
        section(out, title)?;
        body(r, out)?;
    }
    // Only runs that measured it (two or more nodes): older and one-node runs print as before.
    if let Some(rm) = &r.rightmark {
        section(out, "RightMark table, CPU node x memory node")?;
        crate::render::tables_text::render_rightmark(rm, out)?;
    }
    if let Some(sm) = &r.stream_matrix {
        section(out, "Copy bandwidth, source node x destination node")?;
        crate::render::tables_text::render_stream_matrix(sm, out)?;
    }
    let tiers = crate::render::topo::tiering::section(&r.topology, Some(r));
    if !tiers.is_empty() {
        section(out, "Memory tiers")?;
        for l in tiers {
            writeln!(out, "{l}")?;
        }
    }
    not_measured(r, out)
}

/// The run line, the machine line, the partial-run banner and the two headline figures (the
/// figure list's local latency and bandwidth; each part's own figures are in its section).
fn headline(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    let env = &r.topology.environment;
    writeln!(
        out,
        "numascope {} on {}, started {}, {:.1} s ({} budget)",
        crate::sanitize::value(&r.tool_version),
        crate::sanitize::value(&r.host),
        crate::sanitize::value(&r.started_at),
        r.duration_s,
        r.plan.budget.name()
    )?;
    writeln!(
        out,
        "{}; Linux {}; {} NUMA node(s): {} with CPUs, {} with memory{}",
        env.cpu_model.as_deref().unwrap_or("unknown CPU"),
        env.kernel_release.as_deref().unwrap_or("unknown"),
        r.topology.nodes.len(),
        r.topology.initiator_nodes().len(),
        r.topology.memory_nodes().len(),
        if env.hypervisor {
            "; virtual machine"
        } else {
            ""
        }
    )?;
    if r.partial {
        writeln!(out)?;
        writeln!(
            out,
            "PARTIAL RUN: the run was interrupted or a part failed; absent sections say why."
        )?;
    }
    writeln!(out)?;
    let f = crate::results::figures::of_run(r);
    for (what, i) in [
        ("Local latency", f.local_latency),
        ("Local bandwidth", f.local_bandwidth),
    ] {
        match i.map(|i| f.get(i)) {
            Some(g) => writeln!(
                out,
                "{what}: {}; {}{}",
                summary::fig(g),
                summary::source(g).map_or(String::new(), |s| format!("{s}; ")),
                summary::conditions(&g.conditions)
            )?,
            None => writeln!(out, "{what}: not measured in this run")?,
        }
    }
    writeln!(out)?;
    let warnings = crate::render::words::warnings::gathered(r);
    crate::render::words::verdict::write_text(out, r.quality.as_ref(), &warnings, "")
}

/// One line per finding: `!` for a warning or `*` for a fact, then the text.
fn findings(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    if r.findings.is_empty() {
        writeln!(out, "none")?;
    }
    for f in &r.findings {
        let mark = if f.severity == Severity::Warning {
            "!"
        } else {
            "*"
        };
        writeln!(out, "{mark} {}", f.text)?;
    }
    Ok(())
}

/// The `latency` command's own section (clock, sweeps with every point, the node x node
/// table against SLIT and HMAT with each cell's interval, precision, warnings).
fn latency(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    let Some(l) = &r.latency else {
        return absent(out, r, Part::Latency);
    };
    crate::render::latency_text::render(l, out)?;
    if l.matrix.is_none() {
        write!(out, "node x node latency: ")?;
        absent(out, r, Part::LatencyMatrix)?;
    }
    Ok(())
}

/// The `bandwidth` command's own section for the run's kernels and node x node matrix
/// (every result with its interval, the grid, precision, verdict), then the peak part, which
/// has no section of its own.
fn bandwidth(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    match &r.bandwidth {
        Some(b) if !b.results.is_empty() => {
            crate::render::bandwidth_text::render_report(out, b)?;
            if b.matrix.is_empty() {
                write!(out, "node x node bandwidth: ")?;
                absent(out, r, Part::BandwidthMatrix)?;
            }
        }
        _ => absent(out, r, Part::Bandwidth)?,
    }
    if let Some(p) = view::peak::peak_report(r) {
        writeln!(out)?;
        crate::render::peak_text::render_peak(out, p)?;
    }
    Ok(())
}

/// The `bandwidth` command's section for the run's scaling curves.
fn scaling(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    match r.scaling.as_ref().filter(|s| !s.scaling.is_empty()) {
        Some(s) => crate::render::bandwidth_text::render_report(out, s),
        None => absent(out, r, Part::Scaling),
    }
}

/// How a run measures its load mixes (the loaded-latency family's order, which the run file
/// does not keep in words).
const RUN_MIX_ORDER: &str = "one team measured the mixes interleaved, as `numascope \
    loaded-latency` with several --mix does; the no-load point heads every curve";

/// The `loaded-latency` command's own section: the curve, or with several mixes the family
/// (one headline row per mix, each mix's points, one sketch).
fn loaded(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    match view::loaded::run_loaded_curves(r).as_slice() {
        [] => absent(out, r, Part::LoadedLatency),
        [one] => crate::render::loaded_text::render_curves(&[one], None, out),
        several => crate::render::loaded_text::render_curves(several, Some(RUN_MIX_ORDER), out),
    }
}

/// The `c2c` command's own section: matrix, pair intervals, groups, what the figures mean.
fn core_to_core(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    match r.c2c.as_ref().filter(|c| !c.groups.is_empty()) {
        Some(c) => crate::render::c2c_text::render(c, out),
        None => absent(out, r, Part::C2c),
    }
}

/// Parts skipped by the plan or failed, when there are any.
fn not_measured(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    let mut not_run: Vec<String> = r
        .plan
        .skipped
        .iter()
        .map(|s| format!("{}: {}", s.part, s.reason))
        .collect();
    not_run.extend(
        r.failed
            .iter()
            .map(|f| format!("{}: failed: {}", f.part, f.error)),
    );
    if !not_run.is_empty() {
        section(out, "Not measured")?;
        for l in not_run {
            writeln!(out, "- {l}")?;
        }
    }
    timings(r, out)
}

/// The time each part took, with the plan's estimate beside it.
fn timings(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    if r.timings.is_empty() {
        return Ok(());
    }
    let rows: Vec<Vec<String>> = r
        .timings
        .iter()
        .map(|t| {
            vec![
                t.part.name().to_string(),
                format!("{:.1} s", t.seconds),
                r.plan
                    .planned(t.part)
                    .map_or("-".into(), |p| format!("{:.1} s", p.estimate_s)),
            ]
        })
        .collect();
    section(out, "Time per part")?;
    write!(
        out,
        "{}",
        crate::render::format::width::fit_columns(&["part", "took", "estimated"], &rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;

    // The whole report of the Opteron fixture is tests/cli_report.rs's text_report_full
    // snapshot (`report --full`, the same bytes).
    #[test]
    fn absent_parts_say_why_and_partial_is_announced() {
        let mut r = opteron_example();
        r.partial = true;
        r.latency = None;
        r.c2c = None;
        r.completed.retain(|p| *p != Part::C2c);
        r.plan.skipped.push(crate::results::plan::SkippedPart {
            part: Part::Latency,
            reason: "--skip latency".into(),
        });
        let t = crate::render::fixture::written(|o| render(&r, o));
        assert!(t.contains("PARTIAL RUN"));
        assert!(t.contains("not measured in this run (--skip latency)"));
        assert!(t.contains("not measured in this run (the run stopped before this part finished)"));
    }
}
