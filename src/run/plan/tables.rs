//! The table parts' skip reasons and configs, decided once with the plan into its settings:
//! the estimates describe them and the runners measure them.
//!
//! RightMark (seed 000/001, `numascope rightmark`): on a machine of up to four cells (two
//! nodes) every cell is measured; beyond that the home row (the home CPU node against one
//! memory node per SLIT distance), and the plan says so. The stream matrix (seed 002/003,
//! LIKWID's per-stream copy matrix): the home node's threads, the read stream on each memory
//! node and the written stream on each (up to four memory nodes; beyond, the home node, its
//! nearest and its farthest). The plan leaves both out on one node and under `--quick`
//! ([`tables_skip_reason`]).

use std::time::Duration;

use crate::results::latency::SamplePlan;
use crate::results::placement::PageSize;
use crate::results::plan::{Budget, Part};
use crate::results::tables::RightmarkMetric;
use crate::results::topology::Topology;
use crate::tables::rightmark::{plan_cells, Config, BLOCK_BYTES};

use super::super::settings::Settings;

/// Why a table part (RightMark, the stream matrix) does not run on this machine or budget,
/// or `None` when it does: on one node its one cell would repeat the local figures, and
/// `--quick` leaves both out to hold 15 s.
pub(super) fn tables_skip_reason(part: Part, topo: &Topology, budget: Budget) -> Option<String> {
    if part == Part::StreamMatrix {
        if topo.memory_nodes().len() < 2 {
            return Some("one memory node: the matrix would be one cell, the copy kernel with both streams local".into());
        }
        return (budget == Budget::Quick).then(|| {
            "the quick budget leaves the per-stream matrix out to hold 15 s; run the default budget or `numascope bandwidth --stream-matrix`".into()
        });
    }
    if part != Part::Rightmark {
        return None;
    }
    let cells = topo.initiator_nodes().len() * topo.memory_nodes().len();
    if cells < 2 {
        return Some("one NUMA node: its one cell would repeat the local figures of the latency and bandwidth parts; `numascope rightmark` measures it alone".into());
    }
    (budget == Budget::Quick).then(|| {
        "the quick budget leaves the RightMark table out to hold 15 s; run the default budget or `numascope rightmark`".into()
    })
}

/// Decides the configs of the table parts among `runs` into `s`, from its final values (the
/// budget's with the command line's overrides): the estimate describes them and the runner
/// measures them.
pub(super) fn decide(s: &mut Settings, topo: &Topology, runs: &[Part]) {
    if runs.contains(&Part::Rightmark) {
        s.rightmark = Some(config(topo, s));
    }
    if runs.contains(&Part::StreamMatrix) {
        // None: no node has usable CPUs (the copy kernel always builds).
        s.stream_matrix = stream_config(topo, s).ok();
    }
}

/// Most cells measured whole; a bigger machine gets its home row.
const ALL_CELLS_UPTO: usize = 4;

/// The part's configuration from the run's settings: nine rounds under `--thorough`, six
/// otherwise (the fewest with an interval); repetitions a quarter of the bandwidth part's,
/// three latency samples of half its sample length per round.
fn config(topo: &Topology, s: &Settings) -> Config {
    let inits = topo.initiator_nodes();
    let mems = topo.memory_nodes();
    let (cells, cpus) = if inits.len() * mems.len() <= ALL_CELLS_UPTO {
        plan_cells(topo, &inits, &mems)
    } else {
        // The home row, its local cell first, then one memory node per SLIT distance.
        let home = s.home_node.filter(|h| inits.contains(h));
        let row: Vec<u32> = home
            .or_else(|| inits.first().copied())
            .into_iter()
            .collect();
        let mut cols: Vec<u32> = mems.clone();
        if let Some(&h) = row.first() {
            cols.sort_by_key(|&m| (m != h, m));
            let mut seen = Vec::new();
            cols.retain(|&m| {
                let d = topo.distance(h, m);
                let new = !seen.contains(&d);
                seen.push(d);
                new
            });
            cols.sort_unstable();
        }
        plan_cells(topo, &row, &cols)
    };
    Config {
        cells,
        cpus,
        block_bytes: BLOCK_BYTES,
        page: PageSize::Base,
        rounds: if s.bandwidth.timed.repetitions > 9 {
            9
        } else {
            6
        },
        bandwidth_repetition: Duration::from_millis((s.bandwidth.timed.duration_ms / 4).max(20)),
        latency: SamplePlan {
            samples: 3,
            warmup: 1,
            min_sample_ns: (s.latency.min_sample_ns / 2).max(500_000),
        },
        metrics: RightmarkMetric::ALL.to_vec(),
        clock: None,
    }
}

/// Most memory nodes whose every pair the stream matrix measures.
const STREAM_NODES_UPTO: usize = 4;

/// The stream-matrix part's configuration: copy, every usable CPU of the home node, each
/// stream's arrays of the bandwidth part's size (at most 128 MiB over the threads), six rounds (nine
/// with `--thorough`) of a quarter of the bandwidth part's repetition.
fn stream_config(topo: &Topology, s: &Settings) -> anyhow::Result<crate::tables::streams::Config> {
    use crate::bandwidth::kernels::{Kernel, Params};
    use crate::bandwidth::{RunSettings, WorkingSet};
    let home = (s.home_node)
        .filter(|h| topo.initiator_nodes().contains(h))
        .or_else(|| topo.initiator_nodes().first().copied())
        .ok_or_else(|| anyhow::anyhow!("no node with usable CPUs"))?;
    let cpus = crate::bandwidth::plan::node_cpus_cores_first(topo, home);
    let mut nodes = topo.memory_nodes();
    if nodes.len() > STREAM_NODES_UPTO {
        let by_distance = |n: &u32| (topo.distance(home, *n).unwrap_or(u32::MAX), *n);
        let mut remote: Vec<u32> = nodes.iter().copied().filter(|&n| n != home).collect();
        remote.sort_by_key(by_distance);
        let mut keep: Vec<u32> = nodes.iter().copied().filter(|&n| n == home).collect();
        keep.extend(remote.first().copied());
        keep.extend(remote.last().copied());
        keep.sort_unstable();
        keep.dedup();
        nodes = keep;
    }
    // The bandwidth part's arrays, at most 128 MiB per stream over all threads: a matrix of
    // nine cells re-faults them in every round.
    let per_stream = (s.bandwidth.bytes_per_thread * cpus.len().max(1) as u64).min(128 << 20);
    Ok(crate::tables::streams::Config {
        kernels: vec![Kernel::new(
            crate::bandwidth::descriptor::KernelId::Copy,
            crate::results::bandwidth::Isa::best(),
        )?],
        cpu_nodes: vec![(home, cpus)],
        sources: nodes.clone(),
        destinations: nodes,
        settings: RunSettings {
            page: PageSize::Base,
            duration: Duration::from_millis((s.bandwidth.timed.duration_ms / 4).max(20)),
            repetitions: 1,
            warmup: 1,
            params: Params::default(),
            size: WorkingSet::PerStream(per_stream),
        },
        rounds: if s.bandwidth.timed.repetitions > 9 {
            9
        } else {
            6
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::plan::{make_plan, PlanRequest};
    use crate::run::sample::opteron_topology;
    use tables_skip_reason as skip_reason;

    /// Two nodes: all four cells under the default budget, left out by --quick; one node:
    /// skipped with the reason.
    #[test]
    fn two_nodes_measure_every_cell_one_node_skips() {
        let t = opteron_topology();
        let p = make_plan(&t, &PlanRequest::default(), &Part::ALL);
        let estimated = |part, most_s: f64| {
            let planned = p.plan.planned(part).expect("planned on two nodes");
            let s = planned.estimate_s;
            assert!(s > 0.0 && s < most_s, "{part:?}: {s} s");
            planned.detail.clone()
        };
        let detail = estimated(Part::Rightmark, 15.0);
        assert!(
            detail.starts_with("4 CPU node x memory node cells"),
            "{detail}"
        );
        let c = p
            .settings
            .rightmark
            .as_ref()
            .expect("decided with the plan");
        assert_eq!(c.cells, vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(c.rounds, 6);
        let q = make_plan(
            &t,
            &PlanRequest {
                budget: Budget::Quick,
                ..Default::default()
            },
            &Part::ALL,
        );
        let why = q
            .plan
            .skipped
            .iter()
            .find(|s| s.part == Part::Rightmark)
            .unwrap();
        assert!(why.reason.contains("quick"), "{}", why.reason);
        // A table part left out has no config.
        assert!(q.settings.rightmark.is_none() && q.settings.stream_matrix.is_none());
        let mut one = t.clone();
        one.nodes.truncate(1);
        let n0: Vec<u32> = one.nodes[0].cpus.clone();
        one.cpus.retain(|c| n0.contains(&c.id));
        one.allowed_cpus.retain(|c| n0.contains(c));
        one.allowed_nodes = vec![0];
        let why = skip_reason(Part::Rightmark, &one, Budget::Default).unwrap();
        assert!(why.starts_with("one NUMA node"), "{why}");
        assert_eq!(skip_reason(Part::Latency, &one, Budget::Default), None);
        let why = skip_reason(Part::StreamMatrix, &one, Budget::Default).unwrap();
        assert!(why.starts_with("one memory node"), "{why}");
        // Two nodes: copy with each stream on each node, the home node's threads.
        estimated(Part::StreamMatrix, 10.0);
        let c = p
            .settings
            .stream_matrix
            .as_ref()
            .expect("decided with the plan");
        assert_eq!(
            (c.sources.clone(), c.destinations.clone()),
            (vec![0, 1], vec![0, 1])
        );
        assert_eq!(c.kernels[0].descriptor().name, "copy");
        assert!(q.plan.skipped.iter().any(|s| s.part == Part::StreamMatrix));
    }
}
