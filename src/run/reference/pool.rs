//! One quantity, one estimate: the places that measure a reference quantity again under the
//! reference's own conditions (the loaded curves' no-load points, the scenario rows; listed by
//! `results::agreement::poolable`) feed their steady-state blocks into the reference's figure
//! instead of standing beside it as a second figure.
//!
//! Why pool rather than compare: on the project's 2-vCPU guest the reference's own
//! repetitions in one `run --quick` spread over 244-351 ns (the host's load drifting between
//! parts), while a place's interval describes its own few seconds; two intervals of the same
//! quantity taken minutes apart were disjoint in 2-3 of 5 runs by that drift alone. The
//! figure is therefore the median of every steady-state block of the run under those
//! conditions (one per reference repetition: the median of its samples; one per block of
//! each pooled place), with the order-statistic interval over the blocks, so the interval
//! holds the run's drift, and every view shows that one figure.

use crate::results::reference::{PooledPlace, ReferenceFigure};
use crate::results::RunResults;
use crate::stats::Summary;

use super::take::Reference;

impl Reference {
    /// The reference's own latency blocks: the median of each kept repetition's samples.
    pub(super) fn latency_blocks(&self) -> Vec<f64> {
        self.repetitions
            .iter()
            .filter(|x| x.latency_kept)
            .filter_map(|x| x.ns_per_load)
            .collect()
    }

    /// Pools the blocks of the places under the reference's conditions into `r`'s reference
    /// figures and records those places (`ReferenceFigures::pooled`). Idempotent: every call
    /// starts again from the reference's own blocks.
    pub(super) fn pool(&self, r: &mut RunResults) {
        let places = crate::results::agreement::poolable(r);
        let Some(f) = r.reference.as_mut() else {
            return;
        };
        let mut latency = self.latency_blocks();
        let mut bandwidth = self.bw_totals.clone();
        f.pooled.clear();
        for p in places {
            let blocks: Vec<f64> = p.blocks.into_iter().filter(|v| v.is_finite()).collect();
            let into = match p.figure {
                ReferenceFigure::Latency => &mut latency,
                ReferenceFigure::Bandwidth => &mut bandwidth,
            };
            into.extend(&blocks);
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
