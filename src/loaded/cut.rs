//! The loaded-latency family's sweep cut into one curve per kernel: each kernel's points
//! from the kept blocks, with what the family measured once.

use super::blocks::Slot;
use super::engine::LoadedConfig;
use super::points::{points_of, result_of, Measured, Sample};
use crate::results::loaded::LoadKernel;
use crate::results::loaded::LoadedResult;
use crate::results::quality::RepetitionQuality;
use crate::results::topology::Topology;

/// One curve per kernel of the family, in `taken.kernels` order.
pub(super) fn curves_of(
    topo: &Topology,
    cfg: &LoadedConfig,
    taken: &Taken,
    shared: &Measured,
) -> anyhow::Result<Vec<LoadedResult>> {
    taken
        .kernels
        .iter()
        .enumerate()
        .map(|(k, &kernel)| curve_of(topo, cfg, (k, kernel), taken, shared, taken.line_ns[k]))
        .collect()
}

/// The sweep's kept blocks, as the curves are cut from them.
pub(super) struct Taken<'a> {
    pub(super) reps: &'a [Vec<Sample>],
    pub(super) rep_quality: &'a [RepetitionQuality],
    /// The measured slots (warm-ups removed).
    pub(super) measured: &'a [Slot],
    pub(super) fractions: &'a [f64],
    /// The family's kernels, in slot order.
    pub(super) kernels: &'a [LoadKernel],
    /// Each kernel's full-speed line time, ns.
    pub(super) line_ns: Vec<f64>,
}

/// Kernel `k`'s curve: its points from the kept blocks, with what the family measured once
/// (`shared`) and the kernel's full-speed line time.
fn curve_of(
    topo: &Topology,
    cfg: &LoadedConfig,
    (k, kernel): (usize, LoadKernel),
    taken: &Taken,
    shared: &Measured,
    full_speed_ns_per_line: f64,
) -> anyhow::Result<LoadedResult> {
    let points = points_of(
        taken.reps,
        taken.rep_quality,
        taken.measured,
        k,
        taken.fractions,
        &shared.calibration,
    )?;
    let kcfg = LoadedConfig {
        kernel,
        ..cfg.clone()
    };
    Ok(result_of(
        topo,
        &kcfg,
        Measured {
            chaser_placement: shared.chaser_placement.clone(),
            traffic: shared.traffic.clone(),
            full_speed_ns_per_line,
            points,
            ..*shared
        },
    ))
}
