//! The table parts of a run, each the table its own command measures, through that command's
//! entry point, with the config the plan decided (`plan::tables`); nothing here prints.

use crate::experiment::Outcome;
use crate::results::RunResults;
use crate::tables::rightmark;

use anyhow::Context as _;

use super::Ctx;

/// Measures the RightMark part into `r.rightmark`.
pub(super) fn run_rightmark(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let mut cfg = (c.s.rightmark.clone()).context("the plan has no RightMark config")?;
    cfg.clock = r.clock.clone();
    let out = rightmark::run(c.topo, c.root, &cfg, c.step)?;
    file(r, out, |t| &t.warnings, |r| &mut r.rightmark)
}

/// Files a table's outcome in the run: the report in `slot`, its warnings as the run's, its
/// failure as the part's. NUMA balancing is the run's finding, stated once; every other
/// sentence (a disturbed figure, pages off their node, a block that fits in a cache) is kept.
fn file<T>(
    r: &mut RunResults,
    out: Outcome<T>,
    warnings: impl FnOnce(&T) -> &Vec<String>,
    slot: impl FnOnce(&mut RunResults) -> &mut Option<T>,
) -> anyhow::Result<()> {
    let kept = warnings(&out.report)
        .iter()
        .filter(|w| !w.starts_with("automatic NUMA balancing"))
        .cloned();
    r.warnings.extend(kept);
    *slot(r) = Some(out.report);
    out.failed.map_or(Ok(()), Err)
}

/// Measures the stream-matrix part into `r.stream_matrix`.
pub(super) fn run_stream_matrix(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let cfg = (c.s.stream_matrix.as_ref()).context("no node with usable CPUs")?;
    let out = crate::tables::streams::run(c.topo, c.root, cfg, c.step)?;
    file(r, out, |t| &t.warnings, |r| &mut r.stream_matrix)
}
