//! One quantity, one estimate: the places that measure a reference quantity again under the
//! reference's own conditions (the loaded curves' no-load points, the scenario rows; listed by
//! `results::agreement::poolable`) join the reference's figure instead of standing beside it
//! as a second figure.
//!
//! Why pool rather than compare: on the project's 2-vCPU guest the reference's own
//! repetitions in one `run --quick` spread over 244-351 ns (the host's load drifting between
//! parts), while a place's interval describes its own few seconds; two intervals of the same
//! quantity taken minutes apart were disjoint in 2-3 of 5 runs by that drift alone.
//!
//! Why each place joins as one block: the figure is meant to hold the run's drift, so each
//! moment of the run weighs alike. The reference's blocks are repetitions seconds apart; a
//! place's blocks are taken back to back within its part, so they share that moment's host
//! state. Pooled block by block, two places of 6-9 blocks outweighed the run's 10 repetitions
//! and the headline followed the moment they ran in. So a place adds one block, the median of
//! its own blocks: the figure is the median of the reference's kept blocks and one block per
//! pooled place, with the order-statistic interval over them, and every view shows that one
//! figure. The places chase the reference's own buffer (`latency::kept`); when each had one of
//! its own, its pages alone put it 15-20 % below the repetitions on the project's guest
//! (docs/METHODOLOGY.md, "Physical pages").
use crate::results::quality::RepetitionQuality;
use crate::results::reference::{IdleProbe, PooledPlace, ReferenceFigure, ReferenceRepetition};
use crate::results::RunResults;
use crate::stats::Summary;

use super::probe;
use super::take::Reference;
use super::MIN_REPETITIONS;

/// The reference's own latency blocks after the idle probe's verdict.
pub(super) struct LatencyVerdict {
    /// The blocks in the figure: the median of each kept repetition's samples, those the
    /// probe judged disturbed left out when enough quiet ones remain.
    pub(super) blocks: Vec<f64>,
    /// The probe's record; `None` when no kept block has a probe.
    pub(super) probe: Option<IdleProbe>,
    /// The repetitions with `probe_disturbed` set.
    pub(super) repetitions: Vec<ReferenceRepetition>,
    /// Blocks kept short of CPU (`cpu_disturbed`) that were left out with the probe's.
    pub(super) cpu_left_out: u32,
}

/// Judges the kept latency blocks of `reps` by their idle probes (`probe`): the blocks that go
/// into the figure, the probe's record, and the repetitions marked. Pure.
pub(super) fn latency_verdict(reps: &[ReferenceRepetition]) -> LatencyVerdict {
    let mut repetitions = reps.to_vec();
    let kept: Vec<usize> = (0..reps.len())
        .filter(|&i| reps[i].latency_kept && reps[i].ns_per_load.is_some())
        .collect();
    let probes: Vec<Option<f64>> = kept
        .iter()
        .map(|&i| reps[i].probe_ns.map(|[b, a]| b.min(a)))
        .collect();
    let (quiet, disturbed) = probe::judge(&probes, probe::PROBE_THRESHOLD);
    let either: Vec<bool> = (0..kept.len())
        .map(|k| disturbed[k] || reps[kept[k]].cpu_disturbed)
        .collect();
    let (chosen, left_out) = probe::select(&either, MIN_REPETITIONS);
    let cpu_left_out = if left_out {
        kept.iter().filter(|&&i| reps[i].cpu_disturbed).count() as u32
    } else {
        0
    };
    for (k, &i) in kept.iter().enumerate() {
        repetitions[i].probe_disturbed = disturbed[k];
    }
    let blocks = chosen
        .iter()
        .filter_map(|&k| reps[kept[k]].ns_per_load)
        .collect();
    let probe = quiet.map(|quiet_ns| IdleProbe {
        loads: probe::PROBE_PAGES,
        working_set_bytes: probe::PROBE_PAGES * probe::PROBE_ELEMENT_BYTES,
        quiet_ns,
        threshold_fraction: probe::PROBE_THRESHOLD,
        blocks_disturbed: disturbed.iter().filter(|d| **d).count(),
        blocks_probed: probes.iter().flatten().count(),
        left_out,
    });
    LatencyVerdict {
        blocks,
        probe,
        repetitions,
        cpu_left_out,
    }
}

impl LatencyVerdict {
    /// The latency's quality record after the verdict: the blocks kept short of CPU that were
    /// left out count as discarded, and the figure is marked disturbed when a disturbed block
    /// (by CPU or by the probe) stayed in it.
    pub(super) fn quality(&self, q: &RepetitionQuality) -> RepetitionQuality {
        let mut q = q.clone();
        let n = self.cpu_left_out.min(q.repetitions_kept_disturbed);
        q.repetitions_discarded += n;
        q.repetitions_kept -= n.min(q.repetitions_kept);
        q.repetitions_kept_disturbed -= n;
        let probed = self
            .probe
            .as_ref()
            .is_some_and(|p| p.blocks_disturbed > 0 && !p.left_out);
        q.disturbed = q.repetitions_kept_disturbed > 0 || probed;
        q
    }
}

impl Reference {
    /// The reference's own latency blocks after the idle probe's verdict.
    pub(super) fn latency_verdict(&self) -> LatencyVerdict {
        latency_verdict(&self.repetitions)
    }

    /// Pools the places under the reference's conditions into `r`'s reference figures, one
    /// block each (the median of its blocks: module docs), and records those places
    /// (`ReferenceFigures::pooled`). Idempotent: every call starts again from the
    /// reference's own blocks.
    pub(super) fn pool(&self, r: &mut RunResults) {
        let places = crate::results::agreement::poolable(r);
        let Some(f) = r.reference.as_mut() else {
            return;
        };
        let mut latency = self.latency_verdict().blocks;
        let mut bandwidth = self.bw_totals.clone();
        f.pooled.clear();
        for p in places {
            let blocks: Vec<f64> = p.blocks.into_iter().filter(|v| v.is_finite()).collect();
            if blocks.is_empty() {
                continue;
            }
            let into = match p.figure {
                ReferenceFigure::Latency => &mut latency,
                ReferenceFigure::Bandwidth => &mut bandwidth,
            };
            into.push(crate::stats::median(&blocks));
            f.pooled.push(PooledPlace {
                figure: p.figure,
                place: p.place,
                blocks: blocks.len(),
            });
        }
        if let (Some(l), Some(s)) = (f.latency.as_mut(), Summary::of(&latency)) {
            l.ns_per_load = s;
        }
        if let (Some(b), Some(s)) = (f.bandwidth.as_mut(), Summary::of(&bandwidth)) {
            b.mb_per_s = s;
        }
    }
}
