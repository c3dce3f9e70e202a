//! The policy sections of the run's full report ([`super`]): the scenario table
//! with merged configurations and each kind of application's verdict, and the
//! weighted-interleave advice with each check's interval.

use crate::render::format::estimate::num;
use std::io::{self, Write};

use super::absent;
use crate::render::format::{estimate::bracketed, width};
use crate::render::run_view as view;
use crate::render::svg::bytes_short;
use crate::results::{plan::Part, RunResults};

pub(super) fn scenarios(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    let Some(s) = &r.scenarios else {
        return absent(out, r, Part::Scenarios);
    };
    writeln!(
        out,
        "kernel {}, {} per thread, {} x {} ms",
        s.kernel,
        bytes_short(s.buffer_bytes_per_thread as f64),
        s.repetitions,
        s.duration_ms
    )?;
    let t = view::policy::with_latency_text(
        view::policy::scenarios_table(r).with_interval_text("mb_per_s", "MB/s"),
        r,
    );
    let cols = [
        "what_runs",
        "mb_per_s_median",
        "ns_per_load_median",
        "numactl",
    ]
    .map(|k| t.col(k));
    let (mut rows, mut notes) = (Vec::new(), Vec::new());
    // A scenario placed exactly as another is shown once, on that one's row.
    for (row, res) in t
        .rows
        .iter()
        .zip(&s.scenarios)
        .filter(|(_, x)| x.same_as.is_none())
    {
        let (letters, why) = view::policy::merged_letters(s, res);
        notes.extend(why.map(|why| format!("{letters}: {why}")));
        let mut cells: Vec<String> = cols.iter().map(|&c| row[c].display()).collect();
        if let Some(u) = &res.unavailable {
            notes.push(format!("({}) not measured: {u}", res.letter));
            cells[1] = "n/a".into();
        }
        rows.push([vec![letters], cells].concat());
    }
    let head = ["", "what runs", "MB/s", "ns", "numactl"];
    write!(out, "{}", width::fit_columns(&head, &rows))?;
    for n in notes {
        writeln!(out, "{n}")?;
    }
    writeln!(out)?;
    for rec in &s.recommendations {
        writeln!(out, "* {}", rec.text)?;
        if rec.verdict == Some(crate::results::scenarios::Verdict::Winner) {
            writeln!(out, "  ({})", view::policy::comparison(rec))?;
        }
    }
    // Row (h) against (g): the kernel's auto weights against the measured ones.
    let f = crate::results::figures::of_run(r);
    for l in crate::render::topo::tiering::weights_lines(&f) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

pub(super) fn advisor(r: &RunResults, out: &mut dyn Write) -> io::Result<()> {
    let Some(a) = &r.advisor else {
        return absent(out, r, Part::Advisor);
    };
    if r.topology.memory_nodes().len() <= 1 {
        return writeln!(
            out,
            "one memory node: weighted interleave has nothing to spread pages over on this machine"
        );
    }
    writeln!(out, "{}", a.summary)?;
    let (mut rows, mut notes) = (Vec::new(), Vec::new());
    for c in &a.checks {
        let v = match (&c.mb_per_s_summary, c.mb_per_s) {
            (Some(m), Some(_)) => bracketed(&m.estimate()),
            (_, Some(v)) => num(v),
            (_, None) => "n/a".into(),
        };
        let why = c.unavailable.as_deref().filter(|_| c.mb_per_s.is_none());
        notes.extend(why.map(|u| format!("{}: not measured: {u}", c.policy)));
        rows.push(vec![c.policy.clone(), v]);
    }
    let table = width::fit_columns(&["policy", "MB/s"], &rows);
    write!(out, "{}", width::indent(&table))?;
    for n in notes {
        writeln!(out, "{n}")?;
    }
    if !a.apply.is_empty() {
        writeln!(out, "To apply:")?;
        for l in &a.apply {
            writeln!(out, "  {l}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::results::RunResults;

    /// numactl's long options (numactl 2.0.19's usage text, the newest with every option the
    /// advice uses; `--weighted-interleave` included).
    const NUMACTL_OPTIONS: [&str; 12] = [
        "--interleave",
        "--weighted-interleave",
        "--preferred",
        "--preferred-many",
        "--membind",
        "--cpunodebind",
        "--physcpubind",
        "--localalloc",
        "--balancing",
        "--all",
        "--show",
        "--huge",
    ];

    /// Every "how" string a run's tables and advice show: each scenario's line, each
    /// recommendation's, each advisor check's and each line of the advisor's "to apply".
    fn how_strings(r: &RunResults) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(s) = &r.scenarios {
            out.extend(s.scenarios.iter().map(|x| x.numactl.clone()));
            out.extend(s.recommendations.iter().map(|x| x.numactl.clone()));
        }
        if let Some(a) = &r.advisor {
            out.extend(a.checks.iter().map(|c| c.numactl.clone()));
            out.extend(a.apply.iter().cloned());
        }
        out.retain(|s| !s.is_empty());
        out
    }

    /// Why `how` is neither a command nor plainly prose, or `None` when it is one of them: a
    /// shell comment (`# ...`) is prose; otherwise, without a trailing `  # note`, it starts
    /// with a known command, holds no prose in parentheses or after a comma, and every
    /// numactl option in it is one numactl has.
    fn not_command_nor_prose(how: &str) -> Option<String> {
        if how.starts_with("# ") {
            return None;
        }
        let cmd = how.split("  # ").next().unwrap_or(how).trim_end();
        let first = cmd.split_whitespace().next().unwrap_or("");
        if !["numactl", "echo", "for", "APP"].contains(&first) {
            return Some(format!("starts with {first:?}, not a known command"));
        }
        if cmd.contains('(') || cmd.contains(", ") {
            return Some("prose inside the command".into());
        }
        for tok in cmd.split_whitespace().filter(|t| t.starts_with("--")) {
            let name = tok.split('=').next().unwrap_or(tok);
            if !NUMACTL_OPTIONS.contains(&name) {
                return Some(format!("numactl has no {name}"));
            }
        }
        None
    }

    /// Every "how" cell of the sample run and of the Opteron fixture is a command
    /// (numactl with options numactl has, a shell loop, an echo into sysfs) or a shell
    /// comment; `numactl --localalloc APP (threads pinned, ...)` was neither.
    #[test]
    fn every_how_cell_is_a_command_or_prose() {
        let mut sample = crate::run::sample::results();
        sample.advisor = Some(crate::run::sample::advice(0, &[(0, 6286.0), (1, 3116.0)]));
        let fixture = crate::render::fixture::opteron_example();
        for r in [sample, fixture] {
            let hows = how_strings(&r);
            assert!(hows.len() >= 7, "{hows:?}");
            for h in &hows {
                assert_eq!(not_command_nor_prose(h), None, "{h}");
            }
        }
        // The checker itself refuses the wording it exists to catch.
        for bad in [
            "numactl --localalloc APP (threads pinned, each allocating its own data)",
            "numactl --cpunodebind=N --membind=N APP, one copy per node N in 0",
            "threads pinned by the application",
            "numactl --weighted APP",
        ] {
            assert!(not_command_nor_prose(bad).is_some(), "{bad}");
        }
    }
}
