//! One quantity, one figure: the places of a run that report
//! the run's local idle latency or its local read bandwidth, each judged against the run's
//! reference figure (`results::reference`). A pure decision over the results contract, so
//! run/ stores its warnings and render/ shows the same verdicts without recomputing them.
//!
//! The rule: a place whose conditions are the reference's (same CPU, memory node, working
//! set, page size and walk for latency; same CPUs, kernel, bytes per thread and page size for
//! bandwidth) either shows the reference's figure itself (it was filled from it:
//! [`Verdict::SameFigure`]) or measured its own, and then its 95 % interval must overlap the
//! reference's ([`Verdict::Agree`]); disjoint intervals are a [`Verdict::Disagree`], which
//! is a warning naming both figures. A place without an interval (fewer than six samples) is
//! [`Verdict::NoInterval`]: neither agreement nor disagreement can be claimed. A place whose
//! conditions differ is listed with the difference in words ([`Verdict::OtherConditions`]),
//! so its label can say so; it is never judged against the reference.

use serde::{Deserialize, Serialize};

use crate::results::latency::Mode;
use crate::results::placement::PageSize;
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
        let key = LatencyKey {
            cpus: vec![l.cpu],
            node: l.memory_node,
            bytes: l.working_set_bytes,
            page: l.page_size,
            mode: l.mode,
        };
        for (place, cond, figure) in latency_places(r) {
            let verdict = judge(&reference, &figure, key.differs(&cond));
            out.push(Place {
                quantity: Quantity::LocalIdleLatency,
                place,
                figure,
                verdict,
            });
        }
    }
    if let Some(b) = f.bandwidth.as_ref() {
        let reference = Figure::of(&b.mb_per_s);
        let key = BandwidthKey {
            cpus: b.cpus.clone(),
            kernel: b.kernel.clone(),
            bytes: b.bytes_per_thread,
            page: b.page_size,
        };
        for (place, cond, figure) in bandwidth_places(r) {
            let verdict = judge(&reference, &figure, key.differs(&cond));
            out.push(Place {
                quantity: Quantity::LocalReadBandwidth,
                place,
                figure,
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

fn judge(reference: &Figure, figure: &Figure, differs: Option<String>) -> Verdict {
    if let Some(d) = differs {
        return Verdict::OtherConditions(d);
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

/// Every local, single-chain latency figure of the run at the reference's node: the sweep's
/// points at the reference's size, the matrix's home cell, the loaded curves' no-load points,
/// scenario (a).
fn latency_places(r: &RunResults) -> Vec<(String, LatencyKey, Figure)> {
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
                out.push((place, key, Figure::of(&p.ns_per_load)));
            }
        }
        if let Some(m) = rep.matrix.as_ref() {
            let home = l.memory_node;
            for c in m
                .cells
                .iter()
                .filter(|c| c.initiator_node == home && c.memory_node == home)
            {
                let key = LatencyKey {
                    cpus: vec![c.result.cpu],
                    node: home,
                    bytes: c.result.working_set_bytes,
                    page: c.result.page_size,
                    mode: c.result.mode,
                };
                let place = format!("latency matrix's cell {home} -> {home}");
                out.push((place, key, Figure::of(&c.result.ns_per_load)));
            }
        }
    }
    out.extend(loaded_and_scenario_places(r));
    out
}

/// The loaded curves' no-load points and scenario (a)'s latency, with their conditions.
fn loaded_and_scenario_places(r: &RunResults) -> Vec<(String, LatencyKey, Figure)> {
    let mut out = Vec::new();
    let curves = r.loaded_latency.iter().chain(&r.loaded_latency_mixes);
    for c in curves.filter(|c| c.chaser_node == Some(c.mem_node)) {
        let Some(p) = c.points.first().filter(|p| p.delay_ns.is_none()) else {
            continue;
        };
        let key = LatencyKey {
            cpus: vec![c.chaser_cpu],
            node: c.mem_node,
            bytes: c.chaser_size_bytes,
            page: c.page_size,
            mode: Mode::Random,
        };
        let place = format!("loaded-latency no-load point ({})", c.kernel_label);
        out.push((place, key, Figure::of(&p.ns_per_load)));
    }
    if let Some(t) = r.scenarios.as_ref() {
        let bytes = t.latency_working_set_bytes.unwrap_or(0);
        for s in t
            .scenarios
            .iter()
            .filter(|s| s.id == ScenarioId::PinnedLocal)
        {
            let Some(lat) = s.latency.as_ref() else {
                continue;
            };
            let key = LatencyKey {
                cpus: if lat.cpus.is_empty() {
                    s.cpus.clone()
                } else {
                    lat.cpus.clone()
                },
                node: t.home_node,
                bytes,
                page: PageSize::Base,
                mode: Mode::Random,
            };
            out.push((
                "scenario (a)'s latency".into(),
                key,
                Figure::of(&lat.ns_per_load),
            ));
        }
    }
    out
}

/// Every all-threads read bandwidth of the run on the reference's node: the bandwidth part's
/// results (the matrix's home cell and the local read among them), scaling's points, and the
/// scenario rows with the reference's thread count.
fn bandwidth_places(r: &RunResults) -> Vec<(String, BandwidthKey, Figure)> {
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
            let key = BandwidthKey {
                cpus: x.cpus.clone(),
                kernel: x.kernel.clone(),
                bytes: x.array_bytes_per_thread,
                page: x.page_size,
            };
            let m = &x.mb_per_s;
            let figure = Figure {
                median: m.median,
                ci: m.ci,
                samples: m.samples,
            };
            let place = format!("{name} part's {} threads, {}", x.threads, x.placement);
            out.push((place, key, figure));
        }
    }
    if let Some(t) = r
        .scenarios
        .as_ref()
        .filter(|t| t.home_node == b.memory_node)
    {
        let own = t
            .scenarios
            .iter()
            .filter(|s| s.same_as.is_none() && s.threads == b.threads);
        for s in own {
            let Some(m) = s.mb_per_s.as_ref() else {
                continue;
            };
            let key = BandwidthKey {
                cpus: if s.pinned {
                    s.cpus.clone()
                } else {
                    b.cpus.clone()
                },
                kernel: t.kernel.clone(),
                bytes: t.buffer_bytes_per_thread,
                page: PageSize::Base,
            };
            // Only rows whose pages all sit on the home node place like the reference.
            if s.placement_fraction.is_some_and(|f| f < 1.0) {
                continue;
            }
            let place = format!("scenario ({})'s bandwidth", s.letter);
            out.push((place, key, Figure::of(m)));
        }
    }
    out
}

#[cfg(test)]
#[path = "agreement_tests.rs"]
mod tests;
