//! The figure model: a finished run turned into the list of figures a person reads, each
//! made once with the conditions that define it. The one-screen summary (and any view that
//! wants the headline figures) reads this list and decides nothing: which latency is the
//! local one, which cells form the matrices, which placement wins for each kind of
//! application and by how much are all settled here. Two parts that report the same
//! quantity under the same conditions (the run's reference latency shown again as the
//! matrix's local cell) give one figure, and both places point to it.

use crate::results::scenarios::{AppKind, ScenarioId, ScenarioResult, ScenarioTable};
use crate::results::tiers::WeightsChoice;
use crate::results::RunResults;
use crate::stats::{Estimate, Summary};

mod loaded;
use loaded::loaded;

/// What was measured and under which conditions (any field may be unknown).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conditions {
    /// `random`, `page`, a bandwidth kernel (`read`, `triad`), ...
    pub method: Option<String>,
    pub working_set_bytes: Option<u64>,
    pub page_size: Option<String>,
    pub threads: Option<usize>,
    pub cpus: Vec<u32>,
    pub cpu_nodes: Vec<u32>,
    pub memory_nodes: Vec<u32>,
    /// The load beside the measurement (`1 read thread at full speed`), when any.
    pub load: Option<String>,
}

/// How far the figure can be trusted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quality {
    /// Its repetitions stayed disturbed after the retakes ran out.
    pub disturbed: bool,
}

/// One figure: what it is, its estimate and conditions.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Machine key (`latency.0.1`, `bandwidth.read.0.0`, `scenario.a`).
    pub key: String,
    pub label: String,
    /// `ns`, `MB/s`.
    pub unit: &'static str,
    pub estimate: Estimate,
    pub conditions: Conditions,
    pub quality: Quality,
    /// One of the figures a person came for (local latency, local bandwidth).
    pub headline: bool,
}

/// A node x node block: CPU node rows, memory node columns, each cell a figure index.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeMatrix {
    pub rows: Vec<u32>,
    pub columns: Vec<u32>,
    /// `cells[row][column]`: index into [`RunFigures::figures`].
    pub cells: Vec<Vec<Option<usize>>>,
    /// The block's conditions, said once.
    pub conditions: Conditions,
}

/// One row of "what to run".
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub kind: AppKind,
    /// The winner's letter and label (`(a) 1 thread, pinned, local memory`).
    pub best: String,
    /// The winner's bandwidth, an index into the figures.
    pub figure: Option<usize>,
    /// Gain over the runner-up, as a fraction with its paired interval (0.49 = +49 %).
    pub gain: Option<Estimate>,
    /// The runner-up's letter.
    pub over: Option<String>,
    /// The numactl line; empty when nothing is to choose.
    pub numactl: String,
    /// No winner is named (indistinguishable, or the same placement here).
    pub tie: bool,
}

/// Loaded latency in one line: idle, and at the highest load measured.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedLine {
    pub idle: usize,
    pub at_peak: usize,
    pub peak_mb_per_s: Estimate,
}

/// The kernel's `auto` weights (row (h)) against the weights from the measured bandwidths
/// (row (g)), measured in the same interleaved rounds: both figures and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsLine {
    pub measured: usize,
    pub auto: usize,
    pub choice: WeightsChoice,
}

/// The figures of a run, and the blocks that arrange them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFigures {
    pub figures: Vec<Figure>,
    pub local_latency: Option<usize>,
    pub local_bandwidth: Option<usize>,
    /// Present with two or more memory nodes.
    pub latency: Option<NodeMatrix>,
    pub bandwidth: Option<NodeMatrix>,
    /// The bandwidth matrix's kernel.
    pub bandwidth_kernel: Option<String>,
    pub what_to_run: Vec<Choice>,
    pub scenario_kernel: Option<String>,
    pub loaded: Option<LoadedLine>,
    /// Core to core, closest group first: (group label, figure index).
    pub c2c: Vec<(String, usize)>,
    /// The kernel's weights against the measured ones, where both rows ran.
    pub weights: Option<WeightsLine>,
    /// Loaded latency on each other kind of memory (`CXL node 2`), after [`Self::loaded`].
    pub loaded_kinds: Vec<(String, LoadedLine)>,
}

impl RunFigures {
    /// Adds a figure, or finds the one already made for the same quantity (unit, method,
    /// conditions, estimate): its index either way; the one figure is a headline, or
    /// disturbed, when either was.
    fn add(&mut self, f: Figure) -> usize {
        let same = |g: &Figure| {
            g.unit == f.unit && g.estimate == f.estimate && g.conditions == f.conditions
        };
        if let Some(i) = self.figures.iter().position(same) {
            self.figures[i].headline |= f.headline;
            self.figures[i].quality.disturbed |= f.quality.disturbed;
            return i;
        }
        self.figures.push(f);
        self.figures.len() - 1
    }

    pub fn get(&self, i: usize) -> &Figure {
        &self.figures[i]
    }
}

fn figure(key: String, label: &str, unit: &'static str, s: &Summary, c: Conditions) -> Figure {
    Figure {
        key,
        label: label.into(),
        unit,
        estimate: s.estimate(),
        conditions: c,
        quality: Quality::default(),
        headline: false,
    }
}

/// The run's figures, each once.
pub fn of_run(r: &RunResults) -> RunFigures {
    let mut f = RunFigures::default();
    reference(r, &mut f);
    latency_matrix(r, &mut f);
    bandwidth_matrix(r, &mut f);
    if let Some(t) = &r.scenarios {
        what_to_run(t, &mut f);
        weights(t, &mut f);
    }
    loaded(r, &mut f);
    c2c(r, &mut f);
    f
}

fn reference(r: &RunResults, f: &mut RunFigures) {
    let Some(rf) = &r.reference else { return };
    if let Some(l) = &rf.latency {
        let c = Conditions {
            method: Some(l.mode.label().into()),
            working_set_bytes: Some(l.working_set_bytes),
            page_size: Some(l.page_size.to_string()),
            threads: Some(1),
            cpus: vec![l.cpu],
            memory_nodes: vec![l.memory_node],
            ..Default::default()
        };
        let mut g = figure(
            "latency.local".into(),
            "local latency",
            "ns",
            &l.ns_per_load,
            c,
        );
        g.quality.disturbed = l.quality.disturbed;
        g.headline = true;
        f.local_latency = Some(f.add(g));
    }
    if let Some(b) = &rf.bandwidth {
        let c = Conditions {
            method: Some(b.kernel.clone()),
            working_set_bytes: Some(b.bytes_per_thread * b.threads as u64),
            page_size: Some(b.page_size.to_string()),
            threads: Some(b.threads),
            cpus: b.cpus.clone(),
            memory_nodes: vec![b.memory_node],
            ..Default::default()
        };
        let mut g = figure(
            "bandwidth.local".into(),
            "local bandwidth",
            "MB/s",
            &b.mb_per_s,
            c,
        );
        g.quality.disturbed = b.quality.disturbed;
        g.headline = true;
        f.local_bandwidth = Some(f.add(g));
    }
}

fn latency_matrix(r: &RunResults, f: &mut RunFigures) {
    let Some(m) = r.latency.as_ref().and_then(|l| l.matrix.as_ref()) else {
        return;
    };
    let mut rows: Vec<u32> = m.cells.iter().map(|c| c.initiator_node).collect();
    let mut cols: Vec<u32> = m.cells.iter().map(|c| c.memory_node).collect();
    rows.sort_unstable();
    rows.dedup();
    cols.sort_unstable();
    cols.dedup();
    let mut cells = vec![vec![None; cols.len()]; rows.len()];
    let mut block = Conditions::default();
    for c in &m.cells {
        let x = &c.result;
        let cond = Conditions {
            method: Some(x.mode.label().into()),
            working_set_bytes: Some(x.working_set_bytes),
            page_size: Some(x.page_size.to_string()),
            threads: Some(1),
            cpus: vec![x.cpu],
            memory_nodes: vec![c.memory_node],
            ..Default::default()
        };
        block = Conditions {
            cpus: Vec::new(),
            memory_nodes: Vec::new(),
            ..cond.clone()
        };
        let key = format!("latency.{}.{}", c.initiator_node, c.memory_node);
        let mut g = figure(key, "latency", "ns", &x.ns_per_load, cond);
        g.quality.disturbed = x.quality.as_ref().is_some_and(|q| q.disturbed);
        g.headline = c.initiator_node == c.memory_node && f.local_latency.is_none();
        let i = f.add(g);
        if f.figures[i].headline && f.local_latency.is_none() {
            f.local_latency = Some(i);
        }
        let ri = rows
            .iter()
            .position(|&n| n == c.initiator_node)
            .unwrap_or(0);
        let ci = cols.iter().position(|&n| n == c.memory_node).unwrap_or(0);
        cells[ri][ci] = Some(i);
    }
    if cols.len() > 1 {
        f.latency = Some(NodeMatrix {
            rows,
            columns: cols,
            cells,
            conditions: block,
        });
    }
}

fn bandwidth_matrix(r: &RunResults, f: &mut RunFigures) {
    let Some(b) = &r.bandwidth else { return };
    let Some(m) = b.matrix.first() else { return };
    let mut cells = vec![vec![None; m.targets.len()]; m.initiators.len()];
    let mut block = Conditions::default();
    for c in &m.cells {
        let Some(x) = b.results.get(c.result_index) else {
            continue;
        };
        let cond = Conditions {
            method: Some(x.kernel.clone()),
            working_set_bytes: Some(x.working_set_bytes),
            page_size: Some(x.page_size.to_string()),
            threads: Some(x.threads),
            cpus: x.cpus.clone(),
            memory_nodes: vec![c.target],
            ..Default::default()
        };
        block = Conditions {
            cpus: Vec::new(),
            memory_nodes: Vec::new(),
            ..cond.clone()
        };
        let key = format!("bandwidth.{}.{}.{}", m.kernel, c.initiator, c.target);
        let mut g = figure(key, "bandwidth", "MB/s", &x.mb_per_s.summary(), cond);
        g.quality.disturbed = x.quality.as_ref().is_some_and(|q| q.disturbed);
        let local = c.initiator == c.target;
        g.headline = local && f.local_bandwidth.is_none();
        let i = f.add(g);
        if local && f.local_bandwidth.is_none() {
            f.local_bandwidth = Some(i);
        }
        let ri = m.initiators.iter().position(|&n| n == c.initiator);
        let ci = m.targets.iter().position(|&n| n == c.target);
        if let (Some(ri), Some(ci)) = (ri, ci) {
            cells[ri][ci] = Some(i);
        }
    }
    f.bandwidth_kernel = Some(m.kernel.clone());
    if m.targets.len() > 1 {
        f.bandwidth = Some(NodeMatrix {
            rows: m.initiators.clone(),
            columns: m.targets.clone(),
            cells,
            conditions: block,
        });
    }
}

fn what_to_run(t: &ScenarioTable, f: &mut RunFigures) {
    f.scenario_kernel = Some(t.kernel.clone());
    for rec in &t.recommendations {
        let Some(chosen) = t.get(rec.best) else {
            continue;
        };
        let figure = scenario_figure(t, chosen, f);
        let gain = rec
            .ratio
            .map(|r| Estimate::new(r, rec.ratio_ci, 0).shifted(-1.0));
        let over = rec
            .runner_up
            .and_then(|u| t.get(u))
            .map(|u| format!("({})", u.letter));
        f.what_to_run.push(Choice {
            kind: rec.app_kind,
            best: format!("({}) {}", chosen.letter, chosen.label),
            figure,
            gain,
            over,
            numactl: rec.numactl.clone(),
            tie: rec.tie,
        });
    }
}

/// A scenario row's bandwidth as a figure; a row that places exactly as another shows that
/// row's figure: one figure.
fn scenario_figure(t: &ScenarioTable, row: &ScenarioResult, f: &mut RunFigures) -> Option<usize> {
    let best = row.same_as.and_then(|s| t.get(s)).unwrap_or(row);
    let s = best.mb_per_s.as_ref()?;
    let c = Conditions {
        method: Some(t.kernel.clone()),
        working_set_bytes: Some(t.buffer_bytes_per_thread * best.threads as u64),
        threads: Some(best.threads),
        cpus: best.cpus.clone(),
        load: Some(format!("{}, {}", best.label, best.policy)),
        ..Default::default()
    };
    let key = format!("scenario.{}", best.letter.trim_matches(['(', ')']));
    Some(f.add(figure(key, &best.label, "MB/s", s, c)))
}

/// Rows (g) and (h), the measured weights against the kernel's, with the verdict.
fn weights(t: &ScenarioTable, f: &mut RunFigures) {
    let Some(choice) = crate::results::tiers::weights_choice(t) else {
        return;
    };
    let row = |id| t.get(id);
    let (Some(g), Some(h)) = (
        row(ScenarioId::AllWeightedInterleave),
        row(ScenarioId::AllAutoWeightedInterleave),
    ) else {
        return;
    };
    if let (Some(measured), Some(auto)) = (scenario_figure(t, g, f), scenario_figure(t, h, f)) {
        f.weights = Some(WeightsLine {
            measured,
            auto,
            choice,
        });
    }
}

fn c2c(r: &RunResults, f: &mut RunFigures) {
    let Some(c) = &r.c2c else { return };
    for g in &c.groups {
        let cond = Conditions {
            threads: Some(2),
            memory_nodes: vec![c.line_node],
            ..Default::default()
        };
        let key = format!("c2c.{}", g.label);
        let mut fig = figure(key, &g.label, "ns", &g.ns_one_way, cond);
        // A group is disturbed when one of its pairs stayed disturbed after its retakes.
        fig.quality.disturbed = c
            .pairs
            .iter()
            .filter(|p| p.relation == g.relation)
            .any(|p| p.quality.as_ref().is_some_and(|q| q.disturbed));
        let i = f.add(fig);
        f.c2c.push((g.label.clone(), i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opteron_figures_each_once() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/opteron-2node.json"
        );
        let r = RunResults::from_json(&std::fs::read_to_string(path).unwrap(), "x").unwrap();
        let f = of_run(&r);
        let lat = f.latency.as_ref().expect("two nodes give a latency matrix");
        assert_eq!((lat.rows.len(), lat.columns.len()), (2, 2));
        // Equal values on other memory nodes are other figures: four cells, four figures.
        let mut idx: Vec<usize> = lat.cells.iter().flatten().flatten().copied().collect();
        idx.dedup();
        assert_eq!(idx.len(), 4);
        assert!(f.local_latency.is_some() && f.local_bandwidth.is_some());
        assert_eq!(f.what_to_run.len(), 4);
        let keys: std::collections::HashSet<&str> =
            f.figures.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys.len(), f.figures.len(), "one figure per key");
    }

    #[test]
    fn the_same_quantity_twice_is_one_figure() {
        let mut f = RunFigures::default();
        let s = Summary::point(45.6, 15);
        let c = Conditions {
            method: Some("random".into()),
            working_set_bytes: Some(1 << 24),
            memory_nodes: vec![0],
            ..Default::default()
        };
        let a = f.add(figure("a".into(), "x", "ns", &s, c.clone()));
        let b = f.add(figure("b".into(), "y", "ns", &s, c.clone()));
        assert_eq!(a, b);
        let other = Conditions {
            memory_nodes: vec![1],
            ..c
        };
        assert_ne!(a, f.add(figure("c".into(), "z", "ns", &s, other)));
    }

    /// A loaded curve whose no-load point was pooled into the reference shows the reference's
    /// figure as its idle latency (no second figure for one quantity); unpooled, it keeps its own.
    #[test]
    fn a_pooled_no_load_point_is_the_reference_figure() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-quick-v657.json"
        );
        let mut r = RunResults::from_json(&std::fs::read_to_string(path).unwrap(), "x").unwrap();
        let label = r
            .loaded_latency
            .as_ref()
            .expect("a loaded curve")
            .kernel_label
            .clone();
        let own = of_run(&r);
        let local = own.local_latency.expect("a reference latency");
        let idle = own.loaded.as_ref().expect("a loaded line").idle;
        assert_ne!(idle, local);
        assert!(own.figures.iter().any(|g| g.key == "loaded.idle"));
        let rf = r.reference.as_mut().expect("a reference");
        rf.pooled.push(super::super::reference::PooledPlace {
            figure: super::super::reference::ReferenceFigure::Latency,
            place: super::super::agreement::places::loaded_place(&label),
            blocks: 3,
        });
        let pooled = of_run(&r);
        assert_eq!(pooled.loaded.as_ref().unwrap().idle, local);
        assert!(!pooled.figures.iter().any(|g| g.key == "loaded.idle"));
    }

    /// A core-to-core group with a pair that stayed disturbed is a disturbed figure (the
    /// summary printed "Core to core 203 ns" unmarked beside a busy loop on one of its CPUs).
    #[test]
    fn a_disturbed_pair_marks_its_core_to_core_group() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-quick-v657.json"
        );
        let mut r = RunResults::from_json(&std::fs::read_to_string(path).unwrap(), "x").unwrap();
        let disturbed = |r: &RunResults| {
            let f = of_run(r);
            let i = f.c2c.first().expect("a core-to-core group").1;
            f.get(i).quality.disturbed
        };
        let c = r.c2c.as_mut().expect("a core-to-core part");
        for p in &mut c.pairs {
            p.quality.get_or_insert_with(Default::default).disturbed = false;
        }
        assert!(!disturbed(&r));
        let c = r.c2c.as_mut().unwrap();
        c.pairs[0].quality.as_mut().unwrap().disturbed = true;
        assert!(disturbed(&r));
    }
}
