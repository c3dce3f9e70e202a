//! The policy scenarios of the Opteron article's closing table, measured on this machine:
//! (a) one thread pinned with local memory, (b) one thread left to the scheduler with its
//! memory on one node, (c) one single-threaded copy per node, each local, run together,
//! (d) all threads with all memory on one node, (e) all threads with local memory, (f) all
//! threads interleaved over all memory nodes, (g) all threads with weighted interleave, the
//! weights derived from the measured bandwidth of all threads to each node. Every row uses the
//! same read kernel, so the rows compare. Before measuring, rows that place threads and pages
//! identically on this machine (one memory node: (d), (e), (f); one CPU per node: (c) and (e))
//! are recognised and measured once, the others showing that figure with the reason
//! (docs/METHODOLOGY.md, "Identical placements"); the distinct rows are measured side by side in
//! interleaved rounds ([`crate::bandwidth::team`]). A row that cannot run here says why; a row that fails
//! records its error and the others still run. The ranking is [`super::ranking`].

use crate::placement::Policy;
use crate::results::format::format_list;
use crate::results::latency::SamplePlan;
use crate::results::scenarios::{ScenarioId, ScenarioResult, ScenarioTable};
use crate::results::topology::Topology;
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::plan::ScenarioSettings;
use super::ranking::recommend;
use crate::bandwidth::team::read::KERNEL;
use crate::bandwidth::team::{keep_buffers, measure_once, run_rounds, Config, Job};
use crate::placement::measured_weights::{derive_weights, nodes_text, weights_text};
use crate::schedule::rounds::{budget_s, plan_rounds, RoundPlan};

mod auto_weights;
mod identical;
pub mod latency;
mod layout;
mod measuring;

use crate::latency::kept::LentChain;
use identical::{apply_merges, merge_identical};
use latency::{block_plan, measure_rows, ratio_to_a, row_latency, RowBuffer, Thread};
pub(crate) use layout::layout;
pub use layout::Layout;
use measuring::{bandwidth_rows, latency_of_a_and_b, weighted_row, Step};

/// Smallest buffer a thread gets.
const MIN_BYTES_PER_THREAD: u64 = 16 << 20;

/// Configurations measured apart: the rows' configurations less those that place identically
/// to an earlier one here, plus (g) when weighted interleave can run.
fn distinct_of(configs: &[Option<Config>], merged: &[Option<usize>], weighted: bool) -> usize {
    configs
        .iter()
        .zip(merged)
        .filter(|(c, m)| c.is_some() && m.is_none())
        .count()
        + usize::from(weighted)
}

/// What the run plan's estimate and detail line read of the scenarios on this machine, from
/// one layout of its rows.
#[derive(Debug, Default)]
pub struct Shape {
    /// How many configurations the part measures apart (the estimate is their time): (g) is
    /// counted when the machine has two memory nodes or more, and (h) when the firmware also
    /// declares bandwidth, whether or not the kernel and privileges then allow them (an
    /// estimate errs long).
    pub distinct: usize,
    /// Which of (a) and (b) measure their own single-thread latency: (a), and (b) unless it
    /// places its thread and pages as (a) here (then it shows (a)'s).
    pub latency_rows: Vec<ScenarioId>,
}

/// The scenarios' [`Shape`] on this machine from the plan's layout of the rows; empty where
/// no row can run (`None`).
pub fn shape(topo: &Topology, l: Option<&Layout>) -> Shape {
    let Some(l) = l else {
        return Shape::default();
    };
    let merged = merge_identical(topo, &l.configs);
    // (g), and (h) where the kernel's weights are known.
    let several = l.mem.len() >= 2;
    let auto = several && auto_weights::kernel_weights(topo).is_some();
    Shape {
        distinct: distinct_of(&l.configs, &merged, several) + usize::from(auto),
        latency_rows: [0, 1]
            .into_iter()
            .filter(|&i| l.configs[i].is_some() && merged[i].is_none())
            .map(|i| l.rows[i].id)
            .collect(),
    }
}

/// A scenario row before measurement: who runs where, under which policy, nothing measured.
pub(crate) fn row(
    id: ScenarioId,
    cpus: &[u32],
    pinned: bool,
    policy: String,
    numactl: String,
) -> ScenarioResult {
    ScenarioResult {
        quality: None,
        id,
        letter: id.letter().to_string(),
        label: id.label().into(),
        threads: cpus.len().max(1),
        cpus: if pinned { cpus.to_vec() } else { vec![] },
        pinned,
        policy,
        numactl,
        mb_per_s: None,
        per_thread_mb_per_s: vec![],
        latency_ns: None,
        placement_fraction: None,
        unavailable: None,
        rounds_mb_per_s: vec![],
        same_as: None,
        same_reason: None,
        precision: None,
        pages_per_node: vec![],
        latency: None,
        latency_ratio_to_a: None,
        latency_unavailable: None,
    }
}

/// Inputs of the scenario run besides the machine.
pub struct ScenarioInputs<'a> {
    pub settings: &'a ScenarioSettings,
    /// The rows as the plan laid them out around its home node ((a), (b) and (d) are placed
    /// on it).
    pub layout: &'a Layout,
    /// Samples for the single-thread latencies.
    pub latency_plan: SamplePlan,
    pub timer_resolution_ns: f64,
    /// The run's kept chain: (a) and (b) chase it when it is their walk (`latency::kept`).
    pub lent: Option<&'a LentChain>,
}

/// Measures the eight rows: scenarios that place threads and pages identically on this
/// machine are recognised first and measured once (the others show that row's figures with
/// the reason), and the distinct ones are measured in interleaved rounds within the part's
/// budget. `progress(done, total)` after each measurement. Rows not reached because of Ctrl-C
/// are marked so.
pub fn run_scenarios(
    topo: &Topology,
    root: &SysRoot,
    inp: &ScenarioInputs<'_>,
    progress: &dyn Fn(usize, usize),
) -> anyhow::Result<ScenarioTable> {
    let s = inp.settings;
    let mut lay = inp.layout.clone();
    let team_bytes = (s.total_bytes / lay.all.len().max(1) as u64).max(MIN_BYTES_PER_THREAD);
    let weighted_why = s.weighted_unavailable.clone();
    // (h): the kernel's own weights, known before measuring, measured in the rounds beside (g).
    let auto_weights = auto_weights::plan_row(
        topo,
        &mut lay.rows[7],
        &mut lay.configs[7],
        weighted_why.as_deref(),
        team_bytes,
    );
    // The budget the run plan gave the distinct configurations one after the other, spent on
    // rounds instead.
    let extra = if weighted_why.is_none() {
        lay.mem.len()
    } else {
        0
    };
    let before_g = merge_identical(topo, &lay.configs);
    let distinct = distinct_of(&lay.configs, &before_g, weighted_why.is_none());
    let plan = round_plan(topo, s, &lay.configs, distinct, extra);
    let total = extra + plan.rounds * distinct + 2;
    let mut done = 0;
    let mut tick = || {
        done += 1;
        progress(done.min(total), total);
    };
    let all = lay.all.clone();
    let step = Step {
        topo,
        root,
        all: &all,
        team_bytes,
        plan: &plan,
    };
    let weights = weighted_row(&step, &mut lay, weighted_why, &mut tick);
    let merged = merge_identical(topo, &lay.configs);
    bandwidth_rows(&step, &mut lay, &merged, &mut tick);
    latency_of_a_and_b(&step, inp, &mut lay, &merged, &mut tick);
    apply_merges(&mut lay.rows, &merged, topo);
    let recommendations = recommend(&lay.rows);
    let kernel = KERNEL.descriptor().name.to_string();
    Ok(ScenarioTable {
        kernel,
        buffer_bytes_per_thread: team_bytes,
        duration_ms: plan.timed.duration_ms,
        repetitions: plan.rounds,
        interleaved_rounds: true,
        home_node: lay.home,
        scenarios: lay.rows,
        recommendations,
        weights,
        auto_weights,
        latency_working_set_bytes: Some(s.latency_bytes),
    })
}

/// The interleaved rounds the distinct configurations share, from the run's budget for them
/// and the `extra` single measurements of (g)'s weights.
fn round_plan(
    topo: &Topology,
    s: &ScenarioSettings,
    configs: &[Option<Config>],
    distinct: usize,
    extra: usize,
) -> RoundPlan {
    let known: Vec<Config> = configs.iter().flatten().cloned().collect();
    let mut plan = plan_rounds(
        budget_s(distinct, &s.timed, s.total_bytes),
        distinct,
        extra,
        s.total_bytes,
        s.timed.duration_ms,
        keep_buffers(topo, &known),
    );
    plan.target_half_width = s.target_half_width;
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::model::{pages, same_reason};
    use crate::run::plan::home_node;
    use crate::schedule::TimedSettings;
    use crate::testutil::this_machine_one_node;

    fn settings() -> ScenarioSettings {
        ScenarioSettings {
            timed: TimedSettings {
                duration_ms: 100,
                repetitions: 2,
            },
            total_bytes: 64 << 20,
            target_half_width: 0.05,
            latency_bytes: 64 << 20,
            weighted_unavailable: None,
        }
    }

    fn fixture(name: &str) -> Topology {
        let p = format!(
            "{}/tests/fixtures/topology/{name}.expected.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    }

    fn merged_letters(topo: &Topology) -> Vec<(char, Option<char>)> {
        let l = layout(topo, &settings(), home_node(topo)).unwrap();
        merge_identical(topo, &l.configs)
            .iter()
            .zip(&l.rows)
            .map(|(m, r)| (r.id.letter(), m.map(|j| l.rows[j].id.letter())))
            .collect()
    }

    /// On one memory node, (d), (e) and (f) put every page on the same node; one
    /// copy per node is (a); and with every CPU on that node, (a)'s thread bound to the node
    /// is (b)'s thread left to the scheduler. They are merged before measuring, with the
    /// reason, so the single-threaded advice cannot rank two runs of one configuration.
    #[test]
    fn one_memory_node_merges_d_e_f_and_b_c_into_a() {
        let topo = this_machine_one_node();
        assert_eq!(topo.memory_nodes().len(), 1);
        let m = merged_letters(&topo);
        assert_eq!(
            m,
            vec![
                ('a', None),
                ('b', Some('a')),
                ('c', Some('a')),
                ('d', None),
                ('e', Some('d')),
                ('f', Some('d')),
                ('g', None),
                ('h', None),
            ]
        );
        assert!(same_reason(&topo, false).contains("one memory node (node 0)"));
        if topo.usable_cpus().len() > 1 {
            assert!(
                same_reason(&topo, true).contains("every usable CPU is on node 0"),
                "{}",
                same_reason(&topo, true)
            );
            assert!(!same_reason(&topo, false).contains("every usable CPU"));
        }
    }

    /// End to end without measuring: on one memory node, whatever the rounds say,
    /// no recommendation ranks (d), (e) and (f) against each other or gives a numactl line
    /// to choose between them.
    #[test]
    fn one_memory_node_advice_never_ranks_d_e_f() {
        use crate::results::scenarios::{AppKind, Verdict};
        let topo = this_machine_one_node();
        let mut l = layout(&topo, &settings(), home_node(&topo)).unwrap();
        let merged = merge_identical(&topo, &l.configs);
        // Noisy rounds for the measured rows, each its own level.
        for (i, r) in l.rows.iter_mut().enumerate() {
            if merged[i].is_none() && l.configs[i].is_some() {
                r.rounds_mb_per_s = (0..9)
                    .map(|k| 1000.0 * (i + 1) as f64 * (1.0 + 0.3 * ((k * 7 + i) % 5) as f64))
                    .collect();
                r.mb_per_s = Summary::of(&r.rounds_mb_per_s);
            }
        }
        apply_merges(&mut l.rows, &merged, &topo);
        let recs = recommend(&l.rows);
        for kind in [
            AppKind::MultiThreadedNumaUnaware,
            AppKind::MultiThreadedNumaAware,
        ] {
            let r = recs.iter().find(|r| r.app_kind == kind).unwrap();
            assert_eq!(r.verdict, Some(Verdict::SamePlacement), "{r:?}");
            assert!(r.numactl.is_empty() && r.runner_up.is_none(), "{r:?}");
            assert!(r.text.contains("one memory node (node 0)"), "{}", r.text);
        }
        let e = l
            .rows
            .iter()
            .find(|r| r.id == ScenarioId::AllLocal)
            .unwrap();
        assert_eq!(e.same_as, Some(ScenarioId::AllOneNode));
        assert_eq!(e.mb_per_s, l.rows[3].mb_per_s);
    }

    /// The Opteron 250 pair: two nodes, one CPU each. Bind, first touch and interleave differ;
    /// one copy per node is all threads with local memory (one CPU per node).
    #[test]
    fn two_nodes_one_cpu_each_keeps_d_e_f_apart() {
        let topo = fixture("opteron250-2s");
        assert_eq!(topo.memory_nodes().len(), 2);
        let m = merged_letters(&topo);
        assert_eq!(
            m,
            vec![
                ('a', None),
                ('b', None),
                ('c', None),
                ('d', None),
                ('e', Some('c')),
                ('f', None),
                ('g', None),
                ('h', None),
            ]
        );
        assert!(same_reason(&topo, false).contains("one CPU per node"));
    }

    /// (c)'s command: one copy per node in a loop on two nodes, the one copy itself on one.
    #[test]
    fn one_copy_per_node_is_a_loop_only_over_several_nodes() {
        let copy = |topo: &Topology| {
            let l = layout(topo, &settings(), home_node(topo)).unwrap();
            let c = l.rows.iter().find(|r| r.id == ScenarioId::CopyPerNode);
            c.unwrap().numactl.clone()
        };
        assert_eq!(
            copy(&this_machine_one_node()),
            "numactl --cpunodebind=0 --membind=0 APP"
        );
        assert_eq!(
            copy(&fixture("opteron250-2s")),
            "for N in 0 1; do numactl --cpunodebind=$N --membind=$N APP & done; wait"
        );
    }

    /// Several CPUs per node on several nodes: every scenario is its own configuration.
    #[test]
    fn many_cpus_per_node_merges_nothing() {
        let topo = fixture("magnycours-2s-likwid");
        assert!(topo.memory_nodes().len() >= 2);
        assert!(merged_letters(&topo).iter().all(|(_, m)| m.is_none()));
    }

    #[test]
    fn interleave_over_one_node_is_bind_and_equal_weights_are_interleave() {
        let topo = fixture("opteron250-2s");
        let mem = topo.memory_nodes();
        assert_eq!(
            pages(&topo, &mem, &Policy::Interleave(vec![1]), None),
            pages(&topo, &mem, &Policy::Bind(vec![1]), None)
        );
        assert_eq!(
            pages(
                &topo,
                &mem,
                &Policy::WeightedInterleave(vec![(0, 3), (1, 3)]),
                None
            ),
            pages(&topo, &mem, &Policy::Interleave(vec![0, 1]), None)
        );
        assert_ne!(
            pages(
                &topo,
                &mem,
                &Policy::WeightedInterleave(vec![(0, 2), (1, 1)]),
                None
            ),
            pages(&topo, &mem, &Policy::Interleave(vec![0, 1]), None)
        );
        // First touch from a thread left to the scheduler on two memory nodes: unknown.
        assert_eq!(pages(&topo, &mem, &Policy::FirstTouch, None), None);
    }
}
