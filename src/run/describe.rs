//! The plan's words and numbers for one part: the detail line a report shows, what was left
//! out on a big machine (`reduced`), and the time estimate from simple documented cost models
//! (fault-in rate, chain construction, timed samples), checked against real runs on a 2-CPU
//! machine. Pure: nothing here measures.

use crate::latency::chase::Mode;
use crate::placement::PageSize;
use crate::results::plan::{Part, PlannedPart};
use crate::topology::Topology;

use super::settings::{MatrixSettings, Settings, TimedSettings};

/// Pages faulted in per second per thread, as bytes/s: a conservative figure for 4 KiB pages
/// (a fault plus zeroing costs about 1 µs per page).
const FAULT_BYTES_PER_S: f64 = 2.0e9;
/// Constructing a random chain and walking it once, seconds per element (one cache line).
const CHAIN_S_PER_ELEMENT: f64 = 400e-9;
/// One dependent load of a 4 KiB-page random walk at DRAM sizes, seconds: about 350 ns on the
/// shared 2-CPU development VM (TLB misses included), 100-150 ns on bare metal.
const DRAM_LOAD_S: f64 = 350e-9;

/// The grid of sizes from `from` to `to`, `per_octave` per doubling (the count only).
pub(super) fn grid_points(from: u64, to: u64, per_octave: u32) -> usize {
    if to <= from {
        return 1;
    }
    ((to as f64 / from as f64).log2() * per_octave as f64).floor() as usize + 1
}

/// The names of a typed list as the plan's detail line shows them.
fn labels<'a>(names: impl Iterator<Item = &'a str>, sep: &str) -> String {
    names.collect::<Vec<_>>().join(sep)
}

fn mib(b: u64) -> String {
    crate::parse::size::format_bytes(b)
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
        Part::Latency => latency(s, &mut reduced, cov.sweep_point),
        Part::LatencyMatrix => latency_matrix(s, topo, &mut reduced, cov.latency_cell),
        Part::Bandwidth => bandwidth(s, threads, cov.bandwidth_read),
        Part::BandwidthMatrix => bandwidth_matrix(s, topo, &mut reduced, cov.bandwidth_cell),
        Part::Scaling => scaling(s, topo, &mut reduced, cov.scaling_point),
        Part::LoadedLatency => loaded_latency(s, &mut reduced),
        Part::C2c => c2c(s, &mut reduced),
        Part::Scenarios => scenarios(s, topo),
        Part::Advisor => advisor(s, topo, mem_nodes),
        Part::Rightmark => super::rightmark::describe(s, topo, &mut reduced),
        Part::StreamMatrix => super::rightmark::describe_streams(s, topo, &mut reduced),
        Part::Peak => super::plan::describe_peak(topo),
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
fn timed_s(t: &TimedSettings) -> f64 {
    (t.repetitions + 1) as f64 * t.duration_ms as f64 / 1000.0 + 0.02
}

/// The estimate and detail line of the Latency part; with `covered`, the random 4k curve's
/// largest point is the run's reference latency and that curve ends one point earlier.
fn latency(s: &Settings, reduced: &mut Vec<String>, covered: bool) -> (f64, String) {
    let l = &s.latency;
    let points = grid_points(l.from_bytes, l.to_bytes, l.points_per_octave);
    let curves = l.modes.len() * l.pages.len();
    let per_point = (l.samples + l.warmup + 3) as f64 * l.min_sample_ns as f64 / 1e9;
    // Chain construction over the geometric series of sizes is about twice the largest.
    let curve = |to: u64, points: usize| {
        points as f64 * per_point
            + 2.0 * (to / 64) as f64 * CHAIN_S_PER_ELEMENT
            + to as f64 / FAULT_BYTES_PER_S
    };
    let full = curve(l.to_bytes, points);
    let est = if covered && points > 1 {
        let before =
            (l.to_bytes as f64 / 2f64.powf(1.0 / l.points_per_octave.max(1) as f64)) as u64;
        (curves - 1) as f64 * full + curve(before, points - 1)
    } else {
        curves as f64 * full
    } + distribution(l, per_point);
    if l.to_bytes < s.latency_matrix.size_bytes {
        reduced.push(format!(
            "the sweep ends at {} (4x the last-level cache) instead of {}; the DRAM figure comes from the latency matrix at {}",
            mib(l.to_bytes),
            mib(s.latency_matrix.size_bytes),
            mib(s.latency_matrix.size_bytes)
        ));
    }
    let mut detail = format!(
        "sweep {} to {} ({} per octave, {} points), modes {}, pages {}, {} samples",
        mib(l.from_bytes),
        mib(l.to_bytes),
        l.points_per_octave,
        points,
        labels(l.modes.iter().map(Mode::label), "/"),
        labels(l.pages.iter().map(PageSize::label), "/"),
        l.samples
    );
    match l.distribution_groups {
        Some(g) => detail.push_str(&format!(
            "; per-load distribution at {} ({} walk, {} pages): {g} timed groups of 16 loads",
            mib(l.to_bytes),
            l.modes.first().map_or("random", Mode::label),
            l.pages.first().map_or("4k", PageSize::label),
        )),
        None => reduced.push(format!(
            "the per-load latency distribution is not measured (about {:.0} s more at {} on a 2-CPU machine: a buffer and chain of its own, the chase and {} timed groups); run without --quick, or `numascope latency --distribution`",
            distribution(
                &super::settings::LatencySettings {
                    distribution_groups: Some(crate::latency::distribution::DEFAULT_GROUPS),
                    ..l.clone()
                },
                per_point
            ),
            mib(l.to_bytes),
            crate::latency::distribution::DEFAULT_GROUPS
        )),
    }
    (est, detail)
}

/// Seconds the per-load distribution adds (0 when not measured): its own buffer at the
/// sweep's largest size (fault-in, chain construction and first walk), one point's chase
/// samples (which leave the chain warm for the distribution), then each group of 16 loads
/// walked twice (timed, and again as the interleaved chase).
fn distribution(l: &super::settings::LatencySettings, per_point: f64) -> f64 {
    let Some(groups) = l.distribution_groups else {
        return 0.0;
    };
    let elements = (l.to_bytes / 64) as f64;
    l.to_bytes as f64 / FAULT_BYTES_PER_S
        + elements * (CHAIN_S_PER_ELEMENT + DRAM_LOAD_S)
        + per_point
        + groups as f64 * 32.0 * DRAM_LOAD_S
}

/// What a matrix left out, by class of cell: local pairs, then each SLIT distance of the
/// remote pairs ("3 of 64 node pairs measured (local 1 of 8, distance 12: 1 of 24, distance
/// 32: 1 of 32); ..."). `None` when every pair is measured.
fn matrix_reduced(m: &MatrixSettings, topo: &Topology) -> Option<String> {
    if m.cells.len() >= m.all_cells {
        return None;
    }
    // (class, measured, all); class None is local, Some(None) a remote pair without SLIT.
    let mut classes: Vec<(Option<Option<u32>>, usize, usize)> = Vec::new();
    for i in topo.initiator_nodes() {
        for t in topo.memory_nodes() {
            let class = (i != t).then(|| topo.distance(i, t));
            let measured = usize::from(m.cells.contains(&(i, t)));
            match classes.iter_mut().find(|c| c.0 == class) {
                Some(c) => {
                    c.1 += measured;
                    c.2 += 1;
                }
                None => classes.push((class, measured, 1)),
            }
        }
    }
    classes.sort_by_key(|c| c.0);
    let parts: Vec<String> = classes
        .iter()
        .map(|(class, got, all)| match class {
            None => format!("local {got} of {all}"),
            Some(Some(d)) => format!("distance {d}: {got} of {all}"),
            Some(None) => format!("no SLIT distance: {got} of {all}"),
        })
        .collect();
    Some(format!(
        "{} of {} node pairs measured ({}); every other pair is shown as not measured, none is inferred from a measured one",
        m.cells.len(),
        m.all_cells,
        parts.join(", ")
    ))
}

/// The estimate and detail line of the LatencyMatrix part, as `latency::matrix::run_cells`
/// measures it: one buffer and chain per memory node (fault-in and construction), then the
/// cells in interleaved rounds whose sampling time adds up to 12 samples per cell. With
/// `covered`, the home cell is the run's reference latency: it is measured only when its row
/// has other cells (their ratios to it are paired over the rounds).
fn latency_matrix(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
    covered: bool,
) -> (f64, String) {
    let m = &s.latency_matrix;
    reduced.extend(matrix_reduced(m, topo));
    let home = super::scenarios::home_node(topo);
    let home_row_has_others = home.is_some_and(|h| m.cells.iter().any(|&(i, t)| i == h && t != h));
    let measured: Vec<(u32, u32)> = m
        .cells
        .iter()
        .copied()
        .filter(|&(i, t)| !(covered && i == t && Some(i) == home && !home_row_has_others))
        .collect();
    let mut mem_nodes: Vec<u32> = measured.iter().map(|&(_, t)| t).collect();
    mem_nodes.sort_unstable();
    mem_nodes.dedup();
    let chain =
        m.size_bytes as f64 / FAULT_BYTES_PER_S + (m.size_bytes / 64) as f64 * CHAIN_S_PER_ELEMENT;
    let sampling = 12.0 * s.latency.min_sample_ns as f64 / 1e9;
    (
        mem_nodes.len() as f64 * chain + measured.len() as f64 * sampling,
        format!(
            "{} initiator x memory cells at {} (random walk), in interleaved rounds over one chain per memory node",
            m.cells.len(),
            mib(m.size_bytes)
        ),
    )
}

/// The estimate and detail line of the Bandwidth part; with `covered`, the read kernel is the
/// run's reference bandwidth and is not measured.
fn bandwidth(s: &Settings, threads: usize, covered: bool) -> (f64, String) {
    let b = &s.bandwidth;
    let run = timed_s(&b.timed);
    let fault = (b.bytes_per_thread * 3) as f64 / FAULT_BYTES_PER_S;
    let kernels = b.kernels.len() - usize::from(covered && !b.kernels.is_empty());
    (
        kernels as f64 * run + if kernels > 0 { fault } else { 0.0 },
        format!(
            "kernels {} on {} threads, {} per thread, {} x {} ms",
            labels(b.kernels.iter().map(|k| k.descriptor().name), ", "),
            threads,
            mib(b.bytes_per_thread),
            b.timed.repetitions,
            b.timed.duration_ms
        ),
    )
}

/// The estimate and detail line of the BandwidthMatrix part; with `covered`, the home cell
/// is the run's reference bandwidth and is not measured.
fn bandwidth_matrix(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
    covered: bool,
) -> (f64, String) {
    let m = &s.bandwidth_matrix;
    reduced.extend(matrix_reduced(m, topo));
    let per = timed_s(&s.bandwidth.timed) + m.size_bytes as f64 / FAULT_BYTES_PER_S;
    (
        (m.cells.len() - usize::from(covered && !m.cells.is_empty())) as f64 * per,
        format!(
            "{} initiator x memory cells, read kernel, all CPUs of the initiator",
            m.cells.len()
        ),
    )
}

/// The estimate and detail line of the Scaling part; with `covered`, the home node's full
/// point is the run's reference bandwidth and is not measured.
fn scaling(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
    covered: bool,
) -> (f64, String) {
    let sc = &s.scaling;
    let nodes = topo.initiator_nodes().len();
    if sc.nodes.len() < nodes {
        reduced.push(format!(
            "thread scaling on {} of {} initiator nodes (the home node and an even spread of the others)",
            sc.nodes.len(),
            nodes
        ));
    }
    let mut all = 0;
    let mut t = 1;
    let max = sc.thread_counts.last().copied().unwrap_or(1);
    while t < max {
        all += 1;
        t *= 2;
    }
    all += 1;
    if sc.thread_counts.len() < all {
        reduced.push(format!(
            "{} of {} thread counts measured",
            sc.thread_counts.len(),
            all
        ));
    }
    let n = (sc.thread_counts.len() * sc.nodes.len()) as f64 - f64::from(u8::from(covered));
    (
        n * (timed_s(&sc.timed) + 0.05),
        format!(
            "read bandwidth with {} threads on each of {} node(s)",
            sc.thread_counts
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join("/"),
            sc.nodes.len()
        ),
    )
}

/// The estimate and detail line of the LoadedLatency part: one team runs a warm-up per mix,
/// the no-load point once and every mix at every delay step, each `duration_ms`; the chased
/// buffer (the latency matrix size) is built once; the delay loop is calibrated first. The
/// mixes left out are named in `reduced`, with what each more would cost.
fn loaded_latency(s: &Settings, reduced: &mut Vec<String>) -> (f64, String) {
    let l = &s.loaded;
    let chased = s.latency_matrix.size_bytes;
    let chain = (chased / 64) as f64 * CHAIN_S_PER_ELEMENT + chased as f64 / FAULT_BYTES_PER_S;
    let per_mix_s = (l.delays + 1) as f64 * l.timed.duration_ms as f64 / 1000.0;
    let mixes = l.mixes.len().max(1);
    let mix_list = || {
        l.mixes
            .iter()
            .map(|k| k.label())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let left: Vec<String> = crate::loaded::LoadKernel::all_mixes()
        .into_iter()
        .filter(|k| !l.mixes.contains(k))
        .map(|k| k.label())
        .collect();
    if !left.is_empty() {
        // `--mix all` of the loaded-latency command is the read:write family (the first
        // four of `all_mixes`): worth naming only when some of it is left out.
        let family_left = l.mixes.len() < 4;
        reduced.push(format!(
            "loaded latency measures {} of {} load mixes ({}); left out: {} (about {:.1} s more); --thorough measures every mix{}",
            mixes,
            mixes + left.len(),
            mix_list(),
            left.join(", "),
            left.len() as f64 * per_mix_s,
            if family_left {
                ", and `numascope loaded-latency --mix all` the read:write family (read, 3:1, 2:1, 1:1) on its own"
            } else {
                ""
            }
        ));
    }
    let what = if mixes == 1 {
        String::new()
    } else {
        format!(", {mixes} load mixes ({}) measured interleaved", mix_list())
    };
    // Repetitions: a warm-up and every delay step per mix, and the one no-load point; each
    // point is cut into blocks spread over the curve (the warm-up is one block long).
    let reps = mixes * (l.delays + 1) + 1;
    let blocks = crate::loaded::blocks_for(std::time::Duration::from_millis(l.timed.duration_ms));
    (
        reps as f64 * l.timed.duration_ms as f64 / 1000.0 + chain + 0.3,
        format!(
            "{} load-delay steps, one chasing thread plus load threads on the other CPUs{what}; each point in {blocks} blocks of {:.0} ms spread over the curve",
            l.delays,
            l.timed.duration_ms as f64 / blocks as f64
        ),
    )
}

/// The estimate and detail line of the C2c part.
fn c2c(s: &Settings, reduced: &mut Vec<String>) -> (f64, String) {
    let c = &s.c2c;
    if c.cpus.len() < c.all_cpus {
        reduced.push(format!(
            "{} of {} CPUs paired ({} ordered pairs; CPUs taken round-robin over the nodes, one per core first)",
            c.cpus.len(),
            c.all_cpus,
            c.pairs()
        ));
    }
    (
        c.pairs() as f64 * ((c.repetitions + 1) as f64 * c.repetition_ms as f64 / 1000.0 + 0.005),
        format!(
            "{} ordered CPU pairs over CPUs {}, {} x {} ms each",
            c.pairs(),
            crate::parse::cpulist::format_list(&c.cpus),
            c.repetitions,
            c.repetition_ms
        ),
    )
}

/// The estimate and detail line of the Scenarios part, as `run::scenarios` measures it: the
/// time the seven rows would take one after the other (`rounds::budget_s`) is spent on
/// interleaved rounds of the distinct configurations (at least six, see
/// `rounds::plan_rounds`), then (a) and (b) (or (a) alone when (b) places as (a) here) each
/// build one single-thread latency chase over a buffer of the whole size (fault-in, chain
/// construction and a full walk) and measure it in blocks interleaved with the other's
/// (`scenarios::latency`: each block a few warm-up and kept samples). Retakes of disturbed
/// repetitions add time only on a busy machine.
fn scenarios(s: &Settings, topo: &Topology) -> (f64, String) {
    let sc = &s.scenarios;
    let distinct = super::scenarios::distinct_configurations(topo, sc);
    let rounds = super::rounds::budget_s(distinct, &sc.timed, sc.total_bytes);
    let l = &s.latency;
    let chase_bytes = super::scenarios::chase_bytes(topo);
    let bp = super::scenarios::latency::block_plan(&crate::results::latency::SamplePlan {
        samples: l.samples,
        warmup: l.warmup,
        min_sample_ns: l.min_sample_ns,
    });
    let chase = chase_bytes as f64 / FAULT_BYTES_PER_S
        + (chase_bytes / 64) as f64 * CHAIN_S_PER_ELEMENT
        + ((bp.rounds * (bp.per_block + bp.warmup)) as f64 + 3.0) * bp.sample_ns as f64 / 1e9;
    let rows = super::scenarios::latency_rows(topo, sc);
    let which = match rows.len() {
        2 => format!(
            "single-thread latency of (a) and (b) over {} each, in {} interleaved blocks",
            mib(chase_bytes),
            bp.rounds
        ),
        1 => format!(
            "single-thread latency of (a) over {} in {} blocks ((b) places as (a) here)",
            mib(chase_bytes),
            bp.rounds
        ),
        _ => "no single-thread latency".to_string(),
    };
    (
        rounds + rows.len() as f64 * chase,
        format!(
            "7 policy scenarios (a)-(g), read kernel, {} over all threads; identical placements measured once: {distinct} distinct configuration(s) here, in interleaved rounds (at least {}) within the time of {} x {} ms each; {which}",
            mib(sc.total_bytes),
            super::rounds::MIN_ROUNDS,
            sc.timed.repetitions,
            sc.timed.duration_ms,
        ),
    )
}

/// The estimate and detail line of the Advisor part.
fn advisor(s: &Settings, topo: &Topology, mem_nodes: &[u32]) -> (f64, String) {
    if mem_nodes.len() < 2 {
        (
            0.0,
            "one memory node: nothing to weigh (reported without measuring)".to_string(),
        )
    } else {
        let sc = &s.scenarios;
        let checks = (mem_nodes.len() + 2) as f64;
        let _ = topo;
        (
            checks * (timed_s(&sc.timed) + sc.total_bytes as f64 / FAULT_BYTES_PER_S),
            format!(
                "weights for {} memory nodes, checked against bind and interleave",
                mem_nodes.len()
            ),
        )
    }
}

#[cfg(test)]
mod loaded_mix_tests {
    use crate::loaded::LoadKernel;
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
        let single = super::loaded_latency(&one, &mut Vec::new()).0;
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
