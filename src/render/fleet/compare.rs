//! Terminal rendering of a comparison of saved runs: one row per metric, the first run's value
//! then each other run's value with its ratio to the first, differences beyond noise marked,
//! figures not judged marked (`?` no interval, `~` not comparable), then the summary of what
//! differs, the verdict a script reads from the exit status, and, for a fleet, the outlier
//! hosts.

use std::io::{self, Write};

use crate::render::format::estimate::{compact, num};
use crate::results::compare::{Comparison, MIN_FLEET};

/// Renders the comparison; `all` keeps metrics that some runs lack.
pub fn render(c: &Comparison, all: bool, out: &mut dyn Write) -> io::Result<()> {
    legend(c, out)?;
    writeln!(out)?;
    table(c, all, out)?;
    writeln!(out)?;
    per_run(c, out)?;
    for l in crate::render::words::compare::vm_c2c_differences(c) {
        writeln!(out, "{l}")?;
    }
    writeln!(
        out,
        "{}",
        if c.differs {
            "Verdict: the runs differ beyond noise (exit status 1)."
        } else if c.too_little_compared.is_some() {
            "Verdict: too little could be compared to call the runs alike (exit status 4)."
        } else {
            "Verdict: no difference beyond noise (exit status 0)."
        }
    )?;
    fleet(c, out)
}

/// What is compared to what, what the marks mean, and how the runs' conditions differ.
fn legend(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    // Too little compared is said before anything else (exit status 4 unless a
    // difference was found among the few).
    if let Some(why) = &c.too_little_compared {
        writeln!(out, "Not comparable: {why}.")?;
    }
    writeln!(
        out,
        "Comparing {} runs; each figure is its median \u{b1} half its 95 % interval (n=count without one); ratios are to the first ({}).",
        c.runs.len(),
        c.runs[0]
    )?;
    writeln!(
        out,
        "* marks a difference beyond both runs' 95 % intervals and {:.0} %, Holm-adjusted over {} comparison(s) at {:.0} %;",
        c.margin * 100.0,
        c.judged,
        c.alpha * 100.0
    )?;
    writeln!(
        out,
        "? a figure without an interval (fewer than 6 repetitions, or a file written before intervals), ~ one not comparable; MB = 10^6 B."
    )?;
    writeln!(
        out,
        "! a figure marked disturbed or with an interval wider than +-10 %: shown, not judged (each figure on its own, whatever the run's verdict). Between runs a difference must also clear {}.",
        crate::results::compare::FLOORS_TEXT
    )?;
    for (name, why) in c.runs.iter().zip(&c.not_comparable) {
        if !why.is_empty() {
            writeln!(out, "{name} differs in conditions: {}", why.join(", "))?;
        }
    }
    for (name, what) in c.runs.iter().zip(&c.stated_differences) {
        if !what.is_empty() {
            writeln!(out, "{name} also differs in: {}", what.join(", "))?;
        }
    }
    Ok(())
}

/// One row per metric, one column per run, each cell with its ratio to the first run and its
/// mark; the metrics only some runs measured are hidden unless `all`.
fn table(c: &Comparison, all: bool, out: &mut dyn Write) -> io::Result<()> {
    let runs = c.runs.iter().map(String::as_str);
    let header: Vec<&str> = ["metric", "unit"].into_iter().chain(runs).collect();
    let mut rows = Vec::new();
    for row in &c.rows {
        if !all && row.cells.iter().any(|c| c.is_none()) {
            continue;
        }
        let mut cells = vec![row.label.clone(), row.unit.clone()];
        for cell in &row.cells {
            cells.push(match cell {
                None => "-".into(),
                Some(x) => match x.ratio_to_first {
                    None => compact(&x.estimate(), ""),
                    Some(r) => format!(
                        "{} (x{:.2}) {:<7}",
                        compact(&x.estimate(), ""),
                        r,
                        match (x.better_than_first, &x.not_judged) {
                            (Some(true), _) => "*better",
                            (Some(false), _) => "*worse",
                            (None, Some(w)) if w.starts_with("not comparable") => "~",
                            (None, Some(w)) if w != "no interval" => "!",
                            (None, Some(_)) => "?",
                            (None, None) => "",
                        }
                    ),
                },
            });
        }
        rows.push(cells);
    }
    if rows.is_empty() {
        writeln!(
            out,
            "The runs have no metric in common (use --all to see each run's own)."
        )?;
    } else {
        let right = 2..2 + c.runs.len();
        let t = crate::render::format::width::fit_aligned(&header, &rows, right);
        write!(out, "{t}")?;
    }
    let hidden = c.rows.len() - rows.len();
    if hidden > 0 {
        writeln!(
            out,
            "({hidden} metric(s) measured by only some runs are hidden; --all shows them)"
        )?;
    }
    Ok(())
}

/// Per run: how many differences beyond noise, and how many figures could not be judged, by
/// reason.
fn per_run(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    for (i, name) in c.runs.iter().enumerate().skip(1) {
        let n = c.significant_per_run[i];
        writeln!(
            out,
            "{name}: {} difference(s) beyond noise from {}",
            n, c.runs[0]
        )?;
        let cells: Vec<&str> = c
            .rows
            .iter()
            .filter_map(|r| r.cells.get(i)?.as_ref())
            .filter(|x| x.ratio_to_first.is_some())
            .map(|x| x.not_judged.as_deref().unwrap_or(""))
            .collect();
        let unjudged = cells.iter().filter(|w| !w.is_empty()).count();
        if unjudged > 0 {
            // How many were judged, and the others counted by reason.
            let mut counts: Vec<(&str, usize)> = Vec::new();
            for w in cells.iter().filter(|w| !w.is_empty()) {
                let kind = w.split([':', ';']).next().unwrap_or(w);
                let kind = kind.split(" in ").next().unwrap_or(kind);
                match counts.iter_mut().find(|c| c.0 == kind) {
                    Some(c) => c.1 += 1,
                    None => counts.push((kind, 1)),
                }
            }
            counts.sort_by_key(|c| std::cmp::Reverse(c.1));
            let counts: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
            writeln!(
                out,
                "  {} of {} figure(s) judged; not judged, so they cannot show a difference either: {} (e.g. {})",
                cells.len() - unjudged,
                cells.len(),
                counts.join(", "),
                cells.iter().find(|w| !w.is_empty()).unwrap_or(&"")
            )?;
        }
    }
    Ok(())
}

/// With enough runs for a fleet: the hosts that stand out, each with its outlying metrics.
fn fleet(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    if c.runs.len() >= MIN_FLEET {
        writeln!(out)?;
        if c.outlier_hosts.is_empty() {
            writeln!(out, "Fleet: no host stands out (median absolute deviation rule, robust z > 3 and > 5 %, outside its own interval).")?;
        } else {
            for h in &c.outlier_hosts {
                writeln!(
                    out,
                    "Outlier: {} ({} of {} metrics outlying, {} worse than the fleet)",
                    crate::sanitize::value(&h.run),
                    h.outlying_metrics,
                    h.compared_metrics,
                    h.worse
                )?;
                for o in c.outliers.iter().filter(|o| o.run == h.run) {
                    let dir = if o.worse { "worse" } else { "better" };
                    writeln!(
                        out,
                        "  {}: {} {} vs fleet median {} (x{:.2}, {dir})",
                        o.label,
                        num(o.value),
                        o.unit,
                        num(o.fleet_median),
                        o.ratio_to_median
                    )?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::compare::{compare_with, metrics};
    use crate::render::fixture::opteron_example;
    use crate::render::format::width::with_width;
    use crate::results::compare::Conditions;

    /// `compare` of two copies of the Opteron results, rendered for an 80-column
    /// terminal: every table line fits (columns two spaces apart are table lines; prose is
    /// left to the terminal's word wrap).
    #[test]
    fn two_copies_at_80_columns() {
        let r = opteron_example();
        let runs = [metrics(&r, "a.json"), metrics(&r, "b.json")];
        let conditions = [Conditions::of(&r), Conditions::of(&r)];
        let c = compare_with(&runs, &conditions);
        for all in [false, true] {
            let mut out = Vec::new();
            with_width(Some(80), || super::render(&c, all, &mut out)).unwrap();
            let s = String::from_utf8(out).unwrap();
            for l in s.lines() {
                if l.trim().contains("  ") {
                    assert!(l.trim_end().chars().count() <= 80, "wider than 80: {l:?}");
                }
            }
            if all {
                insta::assert_snapshot!("compare_two_copies_all_80", s);
            } else {
                insta::assert_snapshot!("compare_two_copies_80", s);
            }
        }
    }
}
