//! The verdict in words: [`recorded`] turns `results::verdict`'s judgement into the record
//! results files store (its figures named, its sentence worded); [`sentence`] words any
//! record, a saved file's included, from its counts and evidence; [`write_text`] prints it
//! with the warnings in one wording for every text output (the run's full report, the
//! standalone commands), so a disturbance reaches the user wherever they look.

use std::io::{self, Write};

use crate::results::quality::DEFAULT_MIN_CPU_SHARE;
use crate::results::verdict::{
    judge_figures, FigureCheck, Judgement, RunQuality, Verdict, WIDE_INTERVAL,
};

use super::figure::name;

/// The judgement as results files store it.
pub fn recorded(j: &Judgement) -> RunQuality {
    let split = |e: &Option<(f64, _)>| match e {
        Some((v, f)) => (Some(*v), Some(name(f))),
        None => (None, None),
    };
    let (lowest_cpu_share_fraction, lowest_cpu_share_where) = split(&j.lowest_cpu_share);
    let (highest_steal_fraction, highest_steal_where) = split(&j.highest_steal);
    let (widest_interval_fraction, widest_interval_figure) = split(&j.widest_interval);
    let mut q = RunQuality {
        verdict: j.verdict,
        figures: j.figures,
        figures_disturbed: j.figures_disturbed,
        figures_wide: j.figures_wide,
        lowest_cpu_share_fraction,
        lowest_cpu_share_where,
        highest_steal_fraction,
        highest_steal_where,
        widest_interval_fraction,
        widest_interval_figure,
        sentence: String::new(),
    };
    q.sentence = sentence(&q);
    q
}

/// The evidence clause: lowest CPU share, steal, widest interval.
fn evidence(q: &RunQuality) -> String {
    let mut e = Vec::new();
    match (&q.lowest_cpu_share_fraction, &q.lowest_cpu_share_where) {
        (Some(s), Some(w)) => e.push(format!("lowest CPU share {:.0} % ({w})", s * 100.0)),
        _ => e.push("CPU share not recorded".into()),
    }
    if let (Some(s), Some(w)) = (&q.highest_steal_fraction, &q.highest_steal_where) {
        e.push(format!("largest steal {:.0} % ({w})", s * 100.0));
    }
    if let (Some(h), Some(w)) = (&q.widest_interval_fraction, &q.widest_interval_figure) {
        e.push(format!("widest interval \u{b1}{:.1} % ({w})", h * 100.0));
    }
    e.join("; ")
}

/// The one-line verdict.
pub fn sentence(q: &RunQuality) -> String {
    let wide = WIDE_INTERVAL * 100.0;
    match q.verdict {
        Verdict::Quiet => format!(
            "quiet: {} and every interval is within \u{b1}{wide:.0} % ({} figures; {})",
            if q.lowest_cpu_share_fraction.is_some() {
                "every checked repetition ran with its CPU to itself"
            } else {
                "no figure marked disturbed"
            },
            q.figures,
            evidence(q)
        ),
        // Wide intervals alone, with every checked thread on its CPU: said so first, so the
        // one-screen summary (which prints this clause) does not read as a disturbed machine.
        Verdict::Noisy if q.figures_disturbed == 0 => format!(
            "noisy: {} of {} figures have an interval wider than \u{b1}{wide:.0} %, none disturbed; {}",
            q.figures_wide,
            q.figures,
            evidence(q)
        ),
        Verdict::Noisy => format!(
            "noisy: {} of {} figures marked ({} disturbed, {} with an interval wider than \u{b1}{wide:.0} %); {}",
            q.figures_disturbed + q.figures_wide,
            q.figures,
            q.figures_disturbed,
            q.figures_wide,
            evidence(q)
        ),
        Verdict::Unusable => format!(
            "unusable: {} of {} figures disturbed: rerun on an idle machine; {}",
            q.figures_disturbed,
            q.figures,
            evidence(q)
        ),
    }
}

/// The verdict of one standalone report's figures, worded.
pub fn of_checks(checks: &[FigureCheck]) -> RunQuality {
    recorded(&judge_figures(checks, DEFAULT_MIN_CPU_SHARE))
}

/// `verdict: <sentence>` then one "warning: ..." line per warning.
pub fn write_text(
    out: &mut dyn Write,
    q: Option<&RunQuality>,
    warnings: &[String],
    indent: &str,
) -> io::Result<()> {
    match q {
        Some(q) => writeln!(out, "{indent}verdict: {}", q.sentence)?,
        None => writeln!(
            out,
            "{indent}verdict: not recorded (results file written before verdicts existed)"
        )?,
    }
    for w in warnings {
        writeln!(out, "{indent}warning: {w}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::verdict::FigureName;

    fn fig(row: &str, half: Option<f64>, share: Option<f64>, disturbed: bool) -> FigureCheck {
        FigureCheck {
            figure: FigureName::Scenario { letter: row.into() },
            half_width: half,
            cpu_share: share,
            steal: None,
            disturbed,
        }
    }

    fn worded(checks: &[FigureCheck]) -> RunQuality {
        recorded(&judge_figures(checks, 0.9))
    }

    #[test]
    fn verdict_rule() {
        let quiet = worded(&[
            fig("a", Some(0.02), Some(0.99), false),
            fig("b", Some(0.04), Some(0.98), false),
        ]);
        assert_eq!(quiet.verdict, Verdict::Quiet);
        assert!(quiet
            .sentence
            .starts_with("quiet: every checked repetition"));
        assert!(
            quiet
                .sentence
                .contains("lowest CPU share 98 % (scenario (b))"),
            "{}",
            quiet.sentence
        );
        let noisy = worded(&[
            fig("a", Some(0.02), Some(0.99), false),
            fig("b", Some(0.25), None, false),
            fig("c", None, None, false),
        ]);
        assert_eq!(noisy.verdict, Verdict::Noisy);
        assert_eq!((noisy.figures_wide, noisy.figures_disturbed), (1, 0));
        // Only wide, none disturbed: the first clause says so (a quiet 16-core machine read
        // "noisy: 80 of 251 figures marked" for sweep points at its cache edges).
        assert!(
            noisy.sentence.starts_with(
                "noisy: 1 of 3 figures have an interval wider than \u{b1}10 %, none disturbed; "
            ),
            "{}",
            noisy.sentence
        );
        assert!(
            noisy
                .sentence
                .contains("widest interval \u{b1}25.0 % (scenario (b))"),
            "{}",
            noisy.sentence
        );
        let bad = worded(&[
            fig("a", None, Some(0.47), false),
            fig("b", None, None, true),
            fig("c", Some(0.01), Some(0.99), false),
        ]);
        assert_eq!(bad.verdict, Verdict::Unusable);
        assert!(bad.sentence.contains("rerun on an idle machine"));
        assert_eq!(worded(&[]).verdict, Verdict::Quiet);
    }
}
