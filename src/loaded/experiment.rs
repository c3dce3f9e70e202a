//! The one entry point of the loaded-latency experiment: [`run`] takes a validated [`Config`]
//! (one curve, one curve per load mix, or the initiator x target matrix of curves) and returns the finished
//! [`LoadedReport`]. `numascope loaded-latency` and `numascope run` both call it and nothing
//! else of the engine. Flags and budgets are resolved before this point; nothing here parses
//! text or prints.

use crate::experiment::{Outcome, Progress};
use crate::results::topology::Topology;
use crate::sysroot::SysRoot;

use super::engine::{run_curve, run_family, LoadedConfig};
use super::matrix::{run_matrix, MatrixTemplate};
use crate::results::loaded::LoadKernel;
use crate::results::loaded::{LoadedFamily, LoadedReport, LOADED_SCHEMA_VERSION};

/// A validated loaded-latency request.
#[derive(Clone, Debug, PartialEq)]
pub enum Config {
    /// One curve with the chaser, load threads and buffers as given.
    Curve(LoadedConfig),
    /// Every initiator node x memory node, each cell's curve built from the template.
    Matrix(MatrixTemplate),
    /// One curve per load mix from the placement of `curve` (whose `kernel` is ignored),
    /// measured interleaved by one team.
    Family {
        curve: LoadedConfig,
        kernels: Vec<LoadKernel>,
    },
}

/// The family's measurement order in words.
pub const FAMILY_ORDER: &str = "one team; a full-speed warm-up per mix, then rounds of blocks: each round visits the no-load point once (it heads every curve) and each load level in rising order with every mix at it before the next level (the mixes' order rotated by one per level), the round's starting point moved on from round to round, so each point's blocks are spread over the whole sweep";

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
        Config::Family { curve, kernels } => {
            let curves = run_family(topo, root, curve, kernels)?;
            progress(1, 1);
            LoadedReport::Family(LoadedFamily {
                schema_version: LOADED_SCHEMA_VERSION,
                order: FAMILY_ORDER.into(),
                curves,
            })
        }
    };
    Ok(Outcome::done(report))
}
