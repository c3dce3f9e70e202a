//! Estimate and detail line of the peak part.

use crate::bandwidth::peak_plan::{Level, ALL_MIXES};

use super::super::settings::Settings;

/// The peak part's estimate and detail line: its planned runs at the fixed timing, plus
/// 0.9 s each to map, place and verify the buffers and retake disturbed repetitions (14 runs
/// took 21 s on the 2-CPU development machine, busy).
pub(super) fn peak(s: &Settings) -> (f64, String) {
    let Some(p) = &s.peak.plan else {
        return (0.0, "no node with usable CPUs: nothing to measure".into());
    };
    let t = &s.peak.timed;
    // The plan's first scopes are its nodes': here the one home node.
    let node = p.scopes.iter().find(|x| x.level == Level::Node);
    let per_run = (t.repetitions + 1) as f64 * t.duration_ms as f64 / 1000.0 + 0.9;
    (
        p.runs.len() as f64 * per_run,
        format!(
            "peak injection per mix ({}) on node {} at 1, half and all CPUs, its package and L3 domains; {} runs of {} x {} ms",
            ALL_MIXES.join(", "),
            node.map_or_else(|| "none".to_string(), |x| x.id.to_string()),
            p.runs.len(),
            t.repetitions,
            t.duration_ms
        ),
    )
}
