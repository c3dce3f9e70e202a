//! The places of a run that report a reference quantity, each with its conditions, its
//! figure and its blocks, and the conditions compared.

use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::scenarios::ScenarioId;
use crate::results::RunResults;

use super::Figure;

/// One place as found: its name, conditions, figure and blocks (empty when it kept none).
pub(super) struct Candidate<K> {
    pub place: String,
    pub key: K,
    pub figure: Figure,
    pub blocks: Vec<f64>,
}

/// The conditions of a local idle latency.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LatencyKey {
    /// The CPUs the chasing thread may run on (the reference's: its one CPU). On a guest
    /// two vCPUs can read differently (their host threads' siblings differ).
    cpus: Vec<u32>,
    node: u32,
    bytes: u64,
    page: PageSize,
    mode: Mode,
}

impl LatencyKey {
    pub(super) fn of(l: &crate::results::reference::ReferenceLatency) -> LatencyKey {
        LatencyKey {
            cpus: vec![l.cpu],
            node: l.memory_node,
            bytes: l.working_set_bytes,
            page: l.page_size,
            mode: l.mode,
        }
    }

    pub(super) fn differs(&self, o: &LatencyKey) -> Option<String> {
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
pub(super) struct BandwidthKey {
    cpus: Vec<u32>,
    kernel: String,
    bytes: u64,
    page: PageSize,
}

impl BandwidthKey {
    pub(super) fn of(b: &crate::results::reference::ReferenceBandwidth) -> BandwidthKey {
        BandwidthKey {
            cpus: b.cpus.clone(),
            kernel: b.kernel.clone(),
            bytes: b.bytes_per_thread,
            page: b.page_size,
        }
    }

    pub(super) fn differs(&self, o: &BandwidthKey) -> Option<String> {
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
pub(super) fn latency_places(r: &RunResults) -> Vec<Candidate<LatencyKey>> {
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

/// The name of a loaded curve's no-load point as a place, e.g. "loaded-latency no-load point
/// (read)": what the reference records when it pools the point's blocks.
pub fn loaded_place(kernel_label: &str) -> String {
    format!("loaded-latency no-load point ({kernel_label})")
}

/// The loaded curve's no-load point and scenario (a)'s latency, with their conditions and
/// blocks. The curves of further load mixes (`loaded_latency_mixes`) are not places of their
/// own: one team measured them together and one no-load point heads every curve, so it is one
/// measurement, counted once.
pub(super) fn loaded_and_scenario_places(r: &RunResults) -> Vec<Candidate<LatencyKey>> {
    let mut out = Vec::new();
    for c in (r.loaded_latency.iter()).filter(|c| c.chaser_node == Some(c.mem_node)) {
        let Some(p) = c.points.first().filter(|p| p.delay_ns.is_none()) else {
            continue;
        };
        out.push(Candidate {
            place: loaded_place(&c.kernel_label),
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
pub(super) fn bandwidth_places(r: &RunResults) -> Vec<Candidate<BandwidthKey>> {
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
pub(super) fn scenario_bandwidth_places(r: &RunResults) -> Vec<Candidate<BandwidthKey>> {
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
