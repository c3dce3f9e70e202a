//! One quantity, one figure: the places of a run that report
//! the run's local idle latency or its local read bandwidth, each judged against the run's
//! reference figure (`results::reference`). A pure decision over the results contract, so
//! run/ stores its warnings and render/ shows the same verdicts without recomputing them.
//!
//! What it compares: each place against the run's reference figure for the same quantity, and
//! only when the conditions are the reference's (same CPU, memory node, working set, page size
//! and walk for latency; same CPUs, kernel, bytes per thread and page size for bandwidth).
//! Such a place is one of three kinds:
//! - it shows the reference's figure itself (it was filled from it: [`Verdict::SameFigure`]);
//! - it measured its own steady-state blocks and the reference pooled them into its one
//!   estimate, as one block (their median: `run/reference/pool.rs` says why) ([`Verdict::Pooled`]; [`poolable`] lists them, `ReferenceFigures::pooled`
//!   records them): the loaded curves' no-load points and the scenario rows. A run drifts
//!   more between its parts than within one block (on the project's 2-vCPU guest the
//!   reference's own repetitions spread over 244-351 ns in one quick run while each place's
//!   interval spanned a few percent), so two estimates taken minutes apart disagree by the
//!   drift alone; one estimate over every block, spread over the whole run, is the figure;
//! - it measured its own and was not pooled (a results file written before pooling), and
//!   then its 95 % interval must overlap the reference's ([`Verdict::Agree`]); disjoint
//!   intervals are a [`Verdict::Disagree`], a warning naming both figures.
//!
//! A place without an interval (fewer than six samples) is [`Verdict::NoInterval`]: neither
//! agreement nor disagreement can be claimed. A place whose conditions differ is listed with
//! the difference in words ([`Verdict::OtherConditions`]), so its label can say so; it is
//! never judged against the reference nor pooled into it.

use serde::{Deserialize, Serialize};

use crate::results::reference::ReferenceFigure;
use crate::results::RunResults;
use crate::stats::{Interval, Summary};

pub(crate) mod places;

use places::{
    bandwidth_places, latency_places, loaded_and_scenario_places, scenario_bandwidth_places,
    BandwidthKey, LatencyKey,
};

/// Which of the run's two reference quantities a place reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quantity {
    LocalIdleLatency,
    LocalReadBandwidth,
}

impl Quantity {
    /// The quantity in words.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::LocalIdleLatency => "local idle latency",
            Quantity::LocalReadBandwidth => "local read bandwidth",
        }
    }
}

/// One figure as a place shows it: median and 95 % interval, in the quantity's unit (ns per
/// load, or MB/s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub median: f64,
    #[serde(flatten)]
    pub ci: Option<Interval>,
    pub samples: usize,
}

impl Figure {
    /// The figure of a summary.
    pub fn of(s: &Summary) -> Figure {
        Figure {
            median: s.median,
            ci: s.ci,
            samples: s.samples,
        }
    }

    /// Whether the two intervals share a point; `None` when either has none.
    pub fn overlaps(&self, other: &Figure) -> Option<bool> {
        Some(self.ci?.overlaps(&other.ci?))
    }
}

/// How a place stands against the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The place shows the reference's figure (its own measurement was skipped).
    SameFigure,
    /// Same conditions, its own measurement; the intervals overlap.
    Agree,
    /// Same conditions, its own measurement; the intervals are disjoint.
    Disagree,
    /// Same conditions, but one of the two has no interval.
    NoInterval,
    /// Same conditions; its steady-state blocks are pooled into the reference figure, which
    /// is the one estimate of the quantity (module docs).
    Pooled,
    /// Other conditions, in words ("128 MiB working set"); not judged.
    OtherConditions(String),
}

/// One place reporting a quantity, and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub quantity: Quantity,
    /// The place in words ("loaded-latency no-load point").
    pub place: String,
    pub figure: Figure,
    pub verdict: Verdict,
}

/// Every place of `r` that reports a reference quantity, judged (module docs). Empty when the
/// run has no reference figure.
pub fn places(r: &RunResults) -> Vec<Place> {
    let mut out = Vec::new();
    let Some(f) = r.reference.as_ref() else {
        return out;
    };
    if let Some(l) = f.latency.as_ref() {
        let reference = Figure::of(&l.ns_per_load);
        let key = LatencyKey::of(l);
        for c in latency_places(r) {
            let pooled = f.is_pooled(ReferenceFigure::Latency, &c.place);
            let verdict = judge(&reference, &c.figure, key.differs(&c.key), pooled);
            out.push(Place {
                quantity: Quantity::LocalIdleLatency,
                place: c.place,
                figure: c.figure,
                verdict,
            });
        }
    }
    if let Some(b) = f.bandwidth.as_ref() {
        let reference = Figure::of(&b.mb_per_s);
        let key = BandwidthKey::of(b);
        for c in bandwidth_places(r) {
            let pooled = f.is_pooled(ReferenceFigure::Bandwidth, &c.place);
            let verdict = judge(&reference, &c.figure, key.differs(&c.key), pooled);
            out.push(Place {
                quantity: Quantity::LocalReadBandwidth,
                place: c.place,
                figure: c.figure,
                verdict,
            });
        }
    }
    out
}

/// One warning per disagreeing place, naming both figures.
pub fn warnings(r: &RunResults) -> Vec<String> {
    let Some(f) = r.reference.as_ref() else {
        return vec![];
    };
    places(r)
        .into_iter()
        .filter(|p| p.verdict == Verdict::Disagree)
        .filter_map(|p| {
            let (reference, unit) = match p.quantity {
                Quantity::LocalIdleLatency => (Figure::of(&f.latency.as_ref()?.ns_per_load), "ns"),
                Quantity::LocalReadBandwidth => {
                    (Figure::of(&f.bandwidth.as_ref()?.mb_per_s), "MB/s")
                }
            };
            Some(format!(
                "the run's {} reads {} but the {} reads {} under the same conditions: the intervals exclude each other, so one of them did not measure the steady state (a disturbance, or drift between them)",
                p.quantity.name(),
                words(&reference, unit),
                p.place,
                words(&p.figure, unit)
            ))
        })
        .collect()
}

fn words(f: &Figure, unit: &str) -> String {
    match f.ci.map(|c| c.ends()) {
        Some((l, h)) => format!("{:.0} {unit} [{l:.0}, {h:.0}], n={}", f.median, f.samples),
        _ => format!("{:.0} {unit}, n={}", f.median, f.samples),
    }
}

fn judge(reference: &Figure, figure: &Figure, differs: Option<String>, pooled: bool) -> Verdict {
    if let Some(d) = differs {
        return Verdict::OtherConditions(d);
    }
    if pooled {
        return Verdict::Pooled;
    }
    if figure == reference {
        return Verdict::SameFigure;
    }
    match reference.overlaps(figure) {
        Some(true) => Verdict::Agree,
        Some(false) => Verdict::Disagree,
        None => Verdict::NoInterval,
    }
}

/// A place under a reference's conditions with its own steady-state blocks: each block's
/// median (ns per load, or MB/s for bandwidth rounds), in the order measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolBlocks {
    pub figure: ReferenceFigure,
    pub place: String,
    pub blocks: Vec<f64>,
}

/// The places the reference pools into its figures (module docs): the places that measure
/// a reference quantity by design (the loaded curves' no-load points, the scenario rows)
/// whose conditions are the reference's and that kept blocks. Places the reference fills
/// are never listed (they show its figure); neither are the sweep's and matrix's own
/// measurements, which the reference replaces.
pub fn poolable(r: &RunResults) -> Vec<PoolBlocks> {
    let Some(f) = r.reference.as_ref() else {
        return vec![];
    };
    let mut out = Vec::new();
    if let Some(l) = f.latency.as_ref() {
        let key = LatencyKey::of(l);
        for c in loaded_and_scenario_places(r) {
            if key.differs(&c.key).is_none() && !c.blocks.is_empty() {
                out.push(PoolBlocks {
                    figure: ReferenceFigure::Latency,
                    place: c.place,
                    blocks: c.blocks,
                });
            }
        }
    }
    if let Some(b) = f.bandwidth.as_ref() {
        let key = BandwidthKey::of(b);
        for c in scenario_bandwidth_places(r) {
            if key.differs(&c.key).is_none() && !c.blocks.is_empty() {
                out.push(PoolBlocks {
                    figure: ReferenceFigure::Bandwidth,
                    place: c.place,
                    blocks: c.blocks,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
