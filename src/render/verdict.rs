//! The verdict line and the gathered warnings, in one wording for every text output (the run
//! summary, the end-of-run brief, the standalone commands) and the HTML banner, so a
//! disturbance reaches the user wherever they look. The verdict itself is
//! computed by `results::verdict` (the rule) from the figures; `words::verdict` words it.

use std::io::{self, Write};

use crate::results::quality::DEFAULT_MIN_CPU_SHARE;
use crate::results::verdict::{judge_figures, FigureCheck, RunQuality};

/// The verdict of one standalone report's figures, worded.
pub fn of_checks(checks: &[FigureCheck]) -> RunQuality {
    super::words::verdict::recorded(&judge_figures(checks, DEFAULT_MIN_CPU_SHARE))
}

/// A whole run's verdict and every part's warnings, as the terminal summary and the brief
/// print them.
pub fn write_run(out: &mut dyn Write, r: &crate::results::RunResults) -> io::Result<()> {
    write_text(
        out,
        r.quality.as_ref(),
        &super::words::warnings::gathered(r),
        "",
    )
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
