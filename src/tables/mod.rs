//! Node tables measured in interleaved rounds: the RightMark table ([`rightmark`]: one thread
//! on a CPU node, its block on a memory node, six columns) and LIKWID's per-stream placement
//! matrix ([`streams`]: the source stream on one node, the destination on another). Neither
//! has kernels of its own: every figure is one call of the latency or bandwidth entry point
//! (`latency::run`, `bandwidth::run`) with one short repetition. Every cell is measured once
//! per round and the order rotates from round to round (docs/METHODOLOGY.md, "Interleaving and
//! blocks"), so whatever drifts on the host hits every cell alike and round i of a remote cell
//! pairs with round i of its row's local cell for the ratio. This file holds what both tables
//! share: the rotation, the per-figure bookkeeping and the summaries. Nothing here prints.

pub mod rightmark;
pub mod streams;

use crate::results::bandwidth::BandwidthResult;
use crate::results::quality::RepetitionQuality;
use crate::results::tables::{RatioToLocal, RoundFigure};
use crate::stats::Summary;

/// The default number of rounds.
pub const DEFAULT_ROUNDS: usize = crate::schedule::TARGET_SAMPLES;

/// What one measurement of a figure gave.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sample {
    pub value: f64,
    pub placement_fraction: Option<f64>,
    pub quality: Option<RepetitionQuality>,
    pub cache_level: Option<String>,
}

impl Sample {
    /// A bandwidth result's median rate, with its placement, quality and cache level.
    pub(crate) fn of_bandwidth(r: &BandwidthResult) -> Sample {
        Sample {
            value: r.mb_per_s.median,
            placement_fraction: Some(r.placement_fraction),
            quality: r.quality.clone(),
            cache_level: r.cache_level.clone(),
        }
    }
}

/// Adds one round's sample to `fig`; a figure that failed earlier sits out (its rounds stay
/// a prefix of the rounds, so pairs with other figures stay aligned).
pub(crate) fn record(fig: &mut RoundFigure, s: Sample) {
    if fig.error.is_some() {
        return;
    }
    fig.rounds.push(s.value);
    if let Some(p) = s.placement_fraction {
        fig.placement_fraction = Some(fig.placement_fraction.map_or(p, |f| f.min(p)));
    }
    if let Some(q) = &s.quality {
        RepetitionQuality::merge_into(&mut fig.quality, q);
    }
    if s.cache_level.is_some() {
        fig.cache_level = s.cache_level;
    }
}

/// Marks `fig` failed with `why` (the first failure is kept).
pub(crate) fn fail(fig: &mut RoundFigure, why: String) {
    fig.error.get_or_insert(why);
}

/// The summary of its rounds.
pub(crate) fn summarize(fig: &mut RoundFigure) {
    fig.summary = Summary::of(&fig.rounds);
}

/// `this` over `local` from their paired rounds (the shorter prefix of both).
pub fn ratio_to_local(local: &RoundFigure, this: &RoundFigure) -> Option<RatioToLocal> {
    RatioToLocal::paired(&local.rounds, &this.rounds)
}

/// The warnings of one figure: a failure, disturbed repetitions, pages off their node.
pub(crate) fn figure_warnings(what: &str, fig: &RoundFigure, out: &mut Vec<String>) {
    if let Some(e) = &fig.error {
        out.push(format!("{what}: {e}"));
    }
    if let Some(q) = fig.quality.as_ref().filter(|q| q.disturbed) {
        if let Some(why) = crate::render::words::disturbed::reason(q) {
            out.push(format!("{what} is marked disturbed: {why}"));
        }
    }
    if let Some(p) = fig.placement_fraction.filter(|p| *p < 0.999) {
        out.push(format!(
            "{what}: only {:.1} % of the pages were on the intended node in some round, so the figure is not purely this placement's",
            p * 100.0
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_figure_sits_out_and_ratios_pair_rounds() {
        let mut local = RoundFigure::empty();
        let mut remote = RoundFigure::empty();
        for i in 0..9 {
            let v = 100.0 + i as f64;
            record(
                &mut local,
                Sample {
                    value: v,
                    placement_fraction: Some(1.0),
                    ..Default::default()
                },
            );
            record(
                &mut remote,
                Sample {
                    value: v / 2.0,
                    placement_fraction: Some(if i == 3 { 0.5 } else { 1.0 }),
                    ..Default::default()
                },
            );
        }
        summarize(&mut local);
        summarize(&mut remote);
        let r = ratio_to_local(&local, &remote).unwrap();
        assert_eq!((r.ratio, r.pairs), (0.5, 9));
        assert_eq!(
            (r.ci.map(|c| c.low), r.ci.map(|c| c.high)),
            (Some(0.5), Some(0.5))
        );
        assert_eq!(remote.placement_fraction, Some(0.5));
        assert_eq!(local.summary.unwrap().samples, 9);
        assert!(local.summary.unwrap().ci.map(|c| c.low).is_some());
        fail(&mut remote, "failed: first".into());
        fail(&mut remote, "failed: second".into());
        record(
            &mut remote,
            Sample {
                value: 1.0,
                ..Default::default()
            },
        );
        assert_eq!(remote.rounds.len(), 9);
        assert_eq!(remote.error.as_deref(), Some("failed: first"));
        let mut w = Vec::new();
        figure_warnings("cell 0/1 read", &remote, &mut w);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("failed: first") && w[1].contains("50.0 %"));
        // Fewer than six pairs: a ratio without an interval.
        let short = RoundFigure {
            rounds: vec![50.0; 3],
            ..RoundFigure::empty()
        };
        let r = ratio_to_local(&local, &short).unwrap();
        assert_eq!((r.pairs, r.ci.map(|c| c.low)), (3, None));
    }
}
