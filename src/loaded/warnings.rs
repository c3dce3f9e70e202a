//! The warnings a loaded-latency curve carries: load threads descheduled during a point,
//! points cut into too few blocks for an interval, disturbed blocks. Each reads the finished
//! points or the block layout; nothing here measures.

use super::blocks::min_duration_for_interval;
use super::points::{Layout, MIN_CPU_SHARE};
use crate::results::loaded::LoadedPoint;
use crate::results::quality::RepetitionQuality;
use crate::schedule::MIN_SAMPLES_FOR_INTERVAL as MIN_BLOCKS;

/// A warning naming the busiest competition seen: the lowest CPU share of any running thread.
pub(super) fn descheduling_warning(points: &[LoadedPoint]) -> Option<String> {
    let worst = points
        .iter()
        .flat_map(|p| p.threads.iter())
        .filter_map(|t| t.cpu_share.map(|s| (s, t.cpu)))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    (worst.0 < MIN_CPU_SHARE).then(|| {
        format!(
            "measurement threads were descheduled: CPU {} ran only {:.0}% of its time in one point; other work competes for these CPUs, so bandwidths are low and latencies noisy",
            worst.1,
            100.0 * worst.0
        )
    })
}

/// The sentence for points measured in too few blocks for an interval, with the duration
/// that gives six.
pub(super) fn few_blocks_warning(layout: &Layout) -> Option<String> {
    (layout.blocks < MIN_BLOCKS).then(|| {
        format!(
            "each point was measured in {} block(s) of {:.0} ms, fewer than the {MIN_BLOCKS} an interval needs, so its figures have no interval; give --duration {}ms or more per point",
            layout.blocks,
            layout.block_ms,
            min_duration_for_interval().as_millis()
        )
    })
}

/// One warning for the point whose chaser got the least of its CPU, when its repetition
/// stayed disturbed after the retakes ran out.
pub(super) fn disturbed_warning(points: &[LoadedPoint]) -> Option<String> {
    let share = |q: &RepetitionQuality| q.lowest_taken_cpu_share_fraction.unwrap_or(1.0);
    let (k, q) = points
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.quality.as_ref().filter(|q| q.disturbed).map(|q| (k, q)))
        .min_by(|a, b| share(a.1).total_cmp(&share(b.1)))?;
    let which = match points[k].target_fraction {
        None => "the no-load point".to_string(),
        Some(f) => format!("the point at {:.0} % load", 100.0 * f),
    };
    Some(format!(
        "loaded latency at {which}: {}",
        crate::render::words::disturbed::reason(q)?
    ))
}
