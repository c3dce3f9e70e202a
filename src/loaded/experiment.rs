//! The one entry point of the loaded-latency experiment: [`run`] takes a validated [`Config`]
//! (one curve, or the initiator x target matrix of curves) and returns the finished
//! [`LoadedReport`]. `numascope loaded-latency` and `numascope run` both call it and nothing
//! else of the engine. Flags and budgets are resolved before this point; nothing here parses
//! text or prints.

use crate::experiment::{Outcome, Progress};
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::engine::{run_curve, LoadedConfig};
use super::matrix::{run_matrix, MatrixTemplate};
use super::result::LoadedReport;

/// A validated loaded-latency request.
#[derive(Clone, Debug, PartialEq)]
pub enum Config {
    /// One curve with the chaser, load threads and buffers as given.
    Curve(LoadedConfig),
    /// Every initiator node x memory node, each cell's curve built from the template.
    Matrix(MatrixTemplate),
}

/// Runs the experiment; `progress(done, total)` after each curve. A curve that fails stops
/// the experiment; Ctrl-C stops the matrix at the next cell.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<LoadedReport>> {
    let report = match cfg {
        Config::Curve(c) => {
            let r = run_curve(topo, root, c)?;
            progress(1, 1);
            LoadedReport::Curve(Box::new(r))
        }
        Config::Matrix(t) => LoadedReport::Matrix(run_matrix(topo, root, t, progress)?),
    };
    Ok(Outcome::done(report))
}
