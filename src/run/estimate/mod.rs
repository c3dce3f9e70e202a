//! The plan's words and numbers for one part: the detail line a report shows, what was left
//! out on a big machine (`reduced`), and the time estimate from simple documented cost models
//! (fault-in rate, chain construction, timed samples), checked against real runs on a 2-CPU
//! machine. Pure: nothing here measures.
//!
//! One file per kind of part: [`latency`] (the sweep and the matrix), [`bandwidth`] (kernels,
//! matrix, scaling), [`loaded`], [`c2c`], [`peak`], [`scenarios`] (the policy scenarios and
//! the advisor) and [`tables`] (RightMark and the stream matrix).

mod bandwidth;
mod c2c;
mod latency;
mod loaded;
mod peak;
mod scenarios;
mod tables;

use crate::results::plan::{Part, PlannedPart};
use crate::results::topology::Topology;
use crate::schedule::TimedSettings;

use super::settings::Settings;

/// Pages faulted in per second per thread, as bytes/s: a conservative figure for 4 KiB pages
/// (a fault plus zeroing costs about 1 µs per page).
pub(super) const FAULT_BYTES_PER_S: f64 = 2.0e9;

/// Constructing a random chain and walking it once, seconds per element (one cache line).
pub(super) const CHAIN_S_PER_ELEMENT: f64 = 400e-9;

/// One dependent load of a 4 KiB-page random walk at DRAM sizes, seconds: about 350 ns on the
/// shared 2-CPU development VM (TLB misses included), 100-150 ns on bare metal.
pub(super) const DRAM_LOAD_S: f64 = 350e-9;

/// The names of a typed list as the plan's detail line shows them.
pub(super) fn labels<'a>(names: impl Iterator<Item = &'a str>, sep: &str) -> String {
    names.collect::<Vec<_>>().join(sep)
}

pub(super) fn mib(b: u64) -> String {
    crate::results::format::format_bytes(b)
}

/// Settings in words and the time estimate of one part.
pub(super) fn describe(
    part: Part,
    s: &Settings,
    topo: &Topology,
    mem_nodes: &[u32],
    threads: usize,
) -> PlannedPart {
    let mut reduced = Vec::new();
    // What the run's reference measures is not measured again by the parts.
    let cov = super::reference::coverage(topo, s);
    let (estimate_s, detail) = match part {
        Part::Topology => {
            reduced.extend(limit_note(topo));
            (0.2, "topology, environment and clock checks".to_string())
        }
        Part::Latency => latency::latency(s, &mut reduced, cov.sweep_point),
        Part::LatencyMatrix => latency::latency_matrix(s, topo, &mut reduced, cov.latency_cell),
        Part::Bandwidth => bandwidth::bandwidth(s, threads, cov.bandwidth_read),
        Part::BandwidthMatrix => {
            bandwidth::bandwidth_matrix(s, topo, &mut reduced, cov.bandwidth_cell)
        }
        Part::Scaling => bandwidth::scaling(s, topo, &mut reduced, cov.scaling_point),
        Part::LoadedLatency => loaded::loaded_latency(s, &mut reduced),
        Part::C2c => c2c::c2c(s, &mut reduced),
        Part::Scenarios => scenarios::scenarios(s, topo),
        Part::Advisor => scenarios::advisor(s, topo, mem_nodes),
        Part::Rightmark => tables::rightmark(s, topo, &mut reduced),
        Part::StreamMatrix => tables::stream_matrix(s, topo, &mut reduced),
        Part::Peak => peak::peak(s),
    };
    PlannedPart {
        part,
        estimate_s,
        detail,
        reduced,
    }
}

/// The run's note when a memory limit on this process (cgroup, RLIMIT_AS) leaves less than
/// the memory nodes have available: every size of the plan was fitted under it.
fn limit_note(topo: &Topology) -> Option<String> {
    let l = topo.environment.tightest_memory_limit()?;
    let free: u64 = topo
        .memory_nodes()
        .iter()
        .filter_map(|&n| topo.node(n))
        .map(|n| n.memory_available_bytes)
        .sum();
    (l.left_bytes() < free).then(|| {
        format!(
            "every buffer is sized to fit under the {} of {} set in {} ({} left for this process, less than the {} the memory nodes have available)",
            l.kind,
            mib(l.limit_bytes),
            l.source,
            mib(l.left_bytes()),
            mib(free)
        )
    })
}

/// Wall time of one timed setting: warm-up repetition included.
pub(super) fn timed_s(t: &TimedSettings) -> f64 {
    (t.repetitions + 1) as f64 * t.duration_ms as f64 / 1000.0 + 0.02
}

#[cfg(test)]
mod loaded_mix_tests {
    use crate::results::loaded::LoadKernel;
    use crate::results::plan::{Budget, Part};
    use crate::run::plan::{make_plan, PlanRequest};

    /// The run's loaded-latency part measures the read curve with `--quick`, the
    /// read:write family (read, 3:1, 2:1, 1:1) by default and every mix with `--thorough`;
    /// the plan names the mixes measured, those left out and how to get them.
    #[test]
    fn the_plan_lists_the_loaded_mixes_and_those_left_out() {
        let t = crate::run::sample::opteron_topology();
        let plan = |budget| {
            make_plan(
                &t,
                &PlanRequest {
                    budget,
                    ..Default::default()
                },
                &Part::ALL,
            )
        };
        let part = |p: &crate::run::plan::Planned| {
            p.plan
                .parts
                .iter()
                .find(|x| x.part == Part::LoadedLatency)
                .cloned()
                .unwrap()
        };
        let all = LoadKernel::all_mixes();

        let quick = plan(Budget::Quick);
        assert_eq!(quick.settings.loaded.mixes, vec![LoadKernel::Read]);
        let q = part(&quick);
        let note = q.reduced.join(" ");
        assert!(note.contains("measures 1 of"), "{note}");
        assert!(
            note.contains("read:write 3:1") && note.contains("--thorough"),
            "{note}"
        );
        assert!(note.contains("--mix all"), "{note}");

        let default = plan(Budget::Default);
        assert_eq!(default.settings.loaded.mixes, all[..4].to_vec());
        let d = part(&default);
        assert!(
            d.detail
                .contains("4 load mixes (read, read:write 3:1, read:write 2:1, read:write 1:1)"),
            "{}",
            d.detail
        );
        let note = d.reduced.join(" ");
        for k in &all[4..] {
            assert!(note.contains(&k.label()), "{note} lacks {}", k.label());
        }
        assert!(
            !note.contains("--mix all"),
            "the family is measured: {note}"
        );
        // Each further mix costs a warm-up and every delay step.
        let l = &default.settings.loaded;
        let per_mix = (l.delays + 1) as f64 * l.timed.duration_ms as f64 / 1000.0;
        let mut one = default.settings.clone();
        one.loaded.mixes.truncate(1);
        let single = super::loaded::loaded_latency(&one, &mut Vec::new()).0;
        assert!((d.estimate_s - single - 3.0 * per_mix).abs() < 1e-9);

        let thorough = plan(Budget::Thorough);
        assert_eq!(thorough.settings.loaded.mixes, all);
        assert!(part(&thorough)
            .reduced
            .iter()
            .all(|r| !r.contains("load mixes")));
    }
}

#[cfg(test)]
mod latency_matrix_tests {
    use super::{CHAIN_S_PER_ELEMENT, FAULT_BYTES_PER_S};
    use crate::results::plan::{Budget, Part};
    use crate::run::plan::{make_plan, PlanRequest};

    /// The matrix keeps one chain per memory node for all its rounds: the estimate pays the
    /// fault-in and construction once per memory node, not once per cell, and the detail line
    /// says how the cells are measured.
    #[test]
    fn the_matrix_estimate_builds_one_chain_per_memory_node() {
        let t = crate::run::sample::opteron_topology();
        let planned = make_plan(
            &t,
            &PlanRequest {
                budget: Budget::Default,
                ..Default::default()
            },
            &Part::ALL,
        );
        let m = &planned.settings.latency_matrix;
        let mut mem: Vec<u32> = m.cells.iter().map(|&(_, n)| n).collect();
        mem.sort_unstable();
        mem.dedup();
        assert!(m.cells.len() > mem.len(), "{:?}", m.cells);
        let part = planned.plan.planned(Part::LatencyMatrix).unwrap();
        assert!(
            part.detail.contains("interleaved rounds"),
            "{}",
            part.detail
        );
        let chain = m.size_bytes as f64 / FAULT_BYTES_PER_S
            + (m.size_bytes / 64) as f64 * CHAIN_S_PER_ELEMENT;
        // Every cell is sampled (the home row has remote cells, so its local cell stays in
        // the rounds even though the reference covers it): 12 samples' time per cell.
        let sampling =
            m.cells.len() as f64 * 12.0 * planned.settings.latency.min_sample_ns as f64 / 1e9;
        let want = mem.len() as f64 * chain + sampling;
        assert!(
            (part.estimate_s - want).abs() < 1e-9,
            "{} vs {want}",
            part.estimate_s
        );
        assert!(part.estimate_s < m.cells.len() as f64 * chain + sampling);
    }
}
