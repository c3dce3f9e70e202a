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
//!   estimate ([`Verdict::Pooled`]; [`poolable`] lists them, `ReferenceFigures::pooled`
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

use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::reference::ReferenceFigure;
use crate::results::scenarios::ScenarioId;
use crate::results::RunResults;
use crate::stats::{Interval, Summary};

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

/// One place as found: its name, conditions, figure and blocks (empty when it kept none).
struct Candidate<K> {
    place: String,
    key: K,
    figure: Figure,
    blocks: Vec<f64>,
}

/// The conditions of a local idle latency.
#[derive(Clone, Debug, PartialEq)]
struct LatencyKey {
    /// The CPUs the chasing thread may run on (the reference's: its one CPU). On a guest
    /// two vCPUs can read differently (their host threads' siblings differ).
    cpus: Vec<u32>,
    node: u32,
    bytes: u64,
    page: PageSize,
    mode: Mode,
}

impl LatencyKey {
    fn of(l: &crate::results::reference::ReferenceLatency) -> LatencyKey {
        LatencyKey {
            cpus: vec![l.cpu],
            node: l.memory_node,
            bytes: l.working_set_bytes,
            page: l.page_size,
            mode: l.mode,
        }
    }

    fn differs(&self, o: &LatencyKey) -> Option<String> {
        let mut d = Vec::new();
        if o.cpus != self.cpus {
            d.push(match o.cpus.as_slice() {
                [one] => format!("CPU {one}"),
                many => format!("CPUs {many:?} (the scheduler's choice)"),
            });
        }
        if o.node != self.node {
            d.push(format!("memory on node {}", o.node));
        }
        if o.bytes != self.bytes {
            d.push(format!("{} MiB working set", o.bytes >> 20));
        }
        if o.page != self.page {
            d.push(format!("{:?} pages", o.page).to_lowercase());
        }
        if o.mode != self.mode {
            d.push(format!("{:?} walk", o.mode).to_lowercase());
        }
        (!d.is_empty()).then(|| d.join(", "))
    }
}

/// The conditions of a local read bandwidth.
#[derive(Clone, Debug, PartialEq)]
struct BandwidthKey {
    cpus: Vec<u32>,
    kernel: String,
    bytes: u64,
    page: PageSize,
}

impl BandwidthKey {
    fn of(b: &crate::results::reference::ReferenceBandwidth) -> BandwidthKey {
        BandwidthKey {
            cpus: b.cpus.clone(),
            kernel: b.kernel.clone(),
            bytes: b.bytes_per_thread,
            page: b.page_size,
        }
    }

    fn differs(&self, o: &BandwidthKey) -> Option<String> {
        let mut d = Vec::new();
        if o.cpus != self.cpus {
            d.push(format!("{} threads on other CPUs", o.cpus.len()));
        }
        if o.kernel != self.kernel {
            d.push(format!("the {} kernel", o.kernel));
        }
        if o.bytes != self.bytes {
            d.push(format!("{} MiB per thread", o.bytes >> 20));
        }
        if o.page != self.page {
            d.push(format!("{:?} pages", o.page).to_lowercase());
        }
        (!d.is_empty()).then(|| d.join(", "))
    }
}

/// The blocks of a latency result measured in blocks (none otherwise).
fn result_blocks(x: &crate::results::latency::LatencyResult) -> Vec<f64> {
    x.blocks
        .as_ref()
        .map(|b| b.block_medians_ns.clone())
        .unwrap_or_default()
}

/// Every local, single-chain latency figure of the run at the reference's node: the sweep's
/// points at the reference's size, the matrix's home cell, the loaded curves' no-load points,
/// scenario (a).
fn latency_places(r: &RunResults) -> Vec<Candidate<LatencyKey>> {
    let f = r.reference.as_ref().and_then(|f| f.latency.as_ref());
    let Some(l) = f else { return vec![] };
    let mut out = Vec::new();
    if let Some(rep) = r.latency.as_ref() {
        for c in rep.sweep.iter().filter(|c| c.chains == 1) {
            for p in c
                .points
                .iter()
                .filter(|p| p.working_set_bytes == l.working_set_bytes)
                .filter(|p| p.memory_node == Some(l.memory_node))
            {
                let key = LatencyKey {
                    cpus: vec![p.cpu],
                    node: l.memory_node,
                    bytes: p.working_set_bytes,
                    page: p.page_size,
                    mode: p.mode,
                };
                let (mode, page) = (format!("{:?}", p.mode), format!("{:?}", p.page_size));
                let place = format!(
                    "{} {} curve's {} MiB point",
                    mode.to_lowercase(),
                    page.to_lowercase(),
                    p.working_set_bytes >> 20
                );
                let (figure, blocks) = (Figure::of(&p.ns_per_load), result_blocks(p));
                out.push(Candidate {
                    place,
                    key,
                    figure,
                    blocks,
                });
            }
        }
        let home = l.memory_node;
        let cells = rep.matrix.iter().flat_map(|m| m.cells.iter());
        for c in cells.filter(|c| c.initiator_node == home && c.memory_node == home) {
            let x = &c.result;
            out.push(Candidate {
                place: format!("latency matrix's cell {home} -> {home}"),
                key: LatencyKey {
                    cpus: vec![x.cpu],
                    node: home,
                    bytes: x.working_set_bytes,
                    page: x.page_size,
                    mode: x.mode,
                },
                figure: Figure::of(&x.ns_per_load),
                blocks: result_blocks(x),
            });
        }
    }
    out.extend(loaded_and_scenario_places(r));
    out
}

/// The loaded curves' no-load points and scenario (a)'s latency, with their conditions and
/// blocks.
fn loaded_and_scenario_places(r: &RunResults) -> Vec<Candidate<LatencyKey>> {
    let mut out = Vec::new();
    let curves = r.loaded_latency.iter().chain(&r.loaded_latency_mixes);
    for c in curves.filter(|c| c.chaser_node == Some(c.mem_node)) {
        let Some(p) = c.points.first().filter(|p| p.delay_ns.is_none()) else {
            continue;
        };
        out.push(Candidate {
            place: format!("loaded-latency no-load point ({})", c.kernel_label),
            key: LatencyKey {
                cpus: vec![c.chaser_cpu],
                node: c.mem_node,
                bytes: c.chaser_size_bytes,
                page: c.page_size,
                mode: Mode::Random,
            },
            figure: Figure::of(&p.ns_per_load),
            blocks: p.blocks.iter().map(|b| b.ns_per_load_median).collect(),
        });
    }
    let Some(t) = r.scenarios.as_ref() else {
        return out;
    };
    let bytes = t.latency_working_set_bytes.unwrap_or(0);
    for s in t
        .scenarios
        .iter()
        .filter(|s| s.id == ScenarioId::PinnedLocal)
    {
        let Some(lat) = s.latency.as_ref() else {
            continue;
        };
        let cpus = if lat.cpus.is_empty() {
            s.cpus.clone()
        } else {
            lat.cpus.clone()
        };
        out.push(Candidate {
            place: "scenario (a)'s latency".into(),
            key: LatencyKey {
                cpus,
                node: t.home_node,
                bytes,
                page: PageSize::Base,
                mode: Mode::Random,
            },
            figure: Figure::of(&lat.ns_per_load),
            blocks: lat.blocks.block_medians_ns.clone(),
        });
    }
    out
}

/// Every all-threads read bandwidth of the run on the reference's node: the bandwidth part's
/// results (the matrix's home cell and the local read among them), scaling's points, and the
/// scenario rows with the reference's thread count.
fn bandwidth_places(r: &RunResults) -> Vec<Candidate<BandwidthKey>> {
    let f = r.reference.as_ref().and_then(|f| f.bandwidth.as_ref());
    let Some(b) = f else { return vec![] };
    let mut out = Vec::new();
    let parts = [
        ("bandwidth", r.bandwidth.as_ref()),
        ("scaling", r.scaling.as_ref()),
    ];
    for (name, rep) in parts {
        let Some(rep) = rep else { continue };
        for x in rep.results.iter().filter(|x| {
            x.memory_nodes == [b.memory_node] && x.threads == b.threads && x.kernel == b.kernel
        }) {
            let m = &x.mb_per_s;
            out.push(Candidate {
                place: format!("{name} part's {} threads, {}", x.threads, x.placement),
                key: BandwidthKey {
                    cpus: x.cpus.clone(),
                    kernel: x.kernel.clone(),
                    bytes: x.array_bytes_per_thread,
                    page: x.page_size,
                },
                figure: Figure {
                    median: m.median,
                    ci: m.ci,
                    samples: m.samples,
                },
                blocks: vec![],
            });
        }
    }
    out.extend(scenario_bandwidth_places(r));
    out
}

/// The scenario rows measured on their own with the bandwidth reference's thread count, every
/// page on the home node, with their rounds as blocks.
fn scenario_bandwidth_places(r: &RunResults) -> Vec<Candidate<BandwidthKey>> {
    let f = r.reference.as_ref().and_then(|f| f.bandwidth.as_ref());
    let Some(b) = f else { return vec![] };
    let Some(t) = r
        .scenarios
        .as_ref()
        .filter(|t| t.home_node == b.memory_node)
    else {
        return vec![];
    };
    let own = t
        .scenarios
        .iter()
        .filter(|s| s.same_as.is_none() && s.threads == b.threads)
        // Only rows whose pages all sit on the home node place like the reference.
        .filter(|s| !s.placement_fraction.is_some_and(|f| f < 1.0));
    let mut out = Vec::new();
    for s in own {
        let Some(m) = s.mb_per_s.as_ref() else {
            continue;
        };
        let cpus = if s.pinned {
            s.cpus.clone()
        } else {
            b.cpus.clone()
        };
        out.push(Candidate {
            place: format!("scenario ({})'s bandwidth", s.letter),
            key: BandwidthKey {
                cpus,
                kernel: t.kernel.clone(),
                bytes: t.buffer_bytes_per_thread,
                page: PageSize::Base,
            },
            figure: Figure::of(m),
            blocks: s.rounds_mb_per_s.clone(),
        });
    }
    out
}

#[cfg(test)]
#[path = "agreement_tests.rs"]
mod tests;
