//! The plan of a run: which parts run, with which settings, in about how long. A budget
//! (`--quick`, default, `--thorough`) fixes the per-part settings; on a big machine the plan
//! then scales down what grows with the machine (matrix cells, core pairs, thread counts) and
//! records in `reduced` what it left out, so the report can say so. `--only` and `--skip`
//! choose parts; a part whose engine is not built in is skipped with that reason. The time
//! estimates are simple documented cost models (fault-in rate, chain construction, timed
//! samples); they are checked against real runs on a 2-CPU machine. Pure: nothing here
//! measures.

use crate::results::plan::{Budget, Part, Plan, SkippedPart};
use crate::results::topology::Topology;

use super::budget::{knobs, CellChoice, Knobs};
use super::estimate::describe;
/// Scaling: thread counts up to the largest node's CPUs, on an even sample of the initiator
/// nodes that keeps the home node.
fn scaling_settings(topo: &Topology, k: &Knobs) -> ScalingSettings {
    let init_nodes = topo.initiator_nodes();
    let per_node_max = init_nodes
        .iter()
        .map(|n| topo.usable_cpus_of(*n).len())
        .max()
        .unwrap_or(1);
    ScalingSettings {
        thread_counts: thread_counts(per_node_max, k.scaling_cap),
        nodes: {
            let home = home_node(topo);
            let mut v = sample_evenly(&init_nodes, k.scaling_nodes_cap, |n| Some(*n) == home);
            v.sort_unstable();
            v
        },
        timed: k.bw.clone(),
    }
}

/// Loaded latency: the budget's delay steps and load mixes, one repetition per point.
fn loaded_settings(k: &Knobs) -> LoadedSettings {
    LoadedSettings {
        delays: k.loaded_delays,
        timed: TimedSettings {
            duration_ms: k.bw.duration_ms,
            repetitions: 1,
        },
        mixes: crate::results::loaded::LoadKernel::all_mixes()
            .into_iter()
            .take(k.loaded_mixes.max(1))
            .collect(),
    }
}

#[cfg(test)]
use super::estimate::grid_points;
use super::scenarios::home_node;
pub use super::settings::{
    BandwidthSettings, C2cSettings, LatencySettings, LoadedSettings, MatrixSettings, Planned,
    ScalingSettings, ScenarioSettings, Settings,
};
use crate::schedule::TimedSettings;

/// What the user asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanRequest {
    pub budget: Budget,
    /// `--only`: run just these parts (`None`: all).
    pub only: Option<Vec<Part>>,
    /// `--skip`: parts left out.
    pub skip: Vec<Part>,
}

impl Default for PlanRequest {
    fn default() -> Self {
        PlanRequest {
            budget: Budget::Default,
            only: None,
            skip: vec![],
        }
    }
}

/// Parses a comma-separated list of part names given to `flag`; an unknown name is one
/// sentence that lists the known ones.
pub fn parse_parts(flag: &str, text: &str) -> Result<Vec<Part>, String> {
    let mut out = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let p: Part = name.parse().map_err(|_| {
            format!(
                "{flag}: unknown part `{}`; the parts are: {}",
                crate::parse::cpulist::excerpt(name),
                Part::known_names()
            )
        })?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "{flag} needs at least one part name; the parts are: {}",
            Part::known_names()
        ));
    }
    Ok(out)
}

/// Up to `cap` items of `all`, evenly spread, always keeping those `keep` says to keep.
pub fn sample_evenly<T: Copy + PartialEq>(
    all: &[T],
    cap: usize,
    keep: impl Fn(&T) -> bool,
) -> Vec<T> {
    if all.len() <= cap {
        return all.to_vec();
    }
    let mut out: Vec<T> = all.iter().copied().filter(|x| keep(x)).take(cap).collect();
    let rest: Vec<T> = all.iter().copied().filter(|x| !out.contains(x)).collect();
    let want = cap.saturating_sub(out.len());
    if want > 0 && !rest.is_empty() {
        let step = rest.len() as f64 / want as f64;
        for k in 0..want {
            let i = ((k as f64 + 0.5) * step) as usize;
            let x = rest[i.min(rest.len() - 1)];
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}

/// The remote cells at one SLIT distance (`None`: the firmware gives none).
type DistanceClass = (Option<u32>, Vec<(u32, u32)>);

/// Node x node cells as the budget chooses them (see [`CellChoice`]), and how many the
/// machine has. The cells come back sorted by (initiator, memory node).
fn matrix_cells(topo: &Topology, choice: CellChoice) -> (Vec<(u32, u32)>, usize) {
    let inits = topo.initiator_nodes();
    let mut all = Vec::new();
    for &i in &inits {
        for m in topo.memory_nodes() {
            all.push((i, m));
        }
    }
    let n = all.len();
    let dist = |&(i, m): &(u32, u32)| topo.distance(i, m);
    let mut out = match choice {
        CellChoice::HomeRowClasses { keep_all_upto } if n > keep_all_upto => {
            let home = home_node(topo).filter(|h| inits.contains(h));
            let Some(row) = home.or_else(|| inits.first().copied()) else {
                return (vec![], n);
            };
            // The local cell first, then the row's remote cells by node id: the first cell
            // of each distance class is measured.
            let mut cells: Vec<(u32, u32)> = all.iter().copied().filter(|c| c.0 == row).collect();
            cells.sort_by_key(|c| (c.1 != row, c.1));
            let mut seen = Vec::new();
            let mut out = Vec::new();
            for c in cells {
                if !seen.contains(&dist(&c)) {
                    seen.push(dist(&c));
                    out.push(c);
                }
            }
            out
        }
        CellChoice::Upto(cap) if n > cap => {
            let mut out: Vec<(u32, u32)> = all.iter().copied().filter(|c| c.0 == c.1).collect();
            out.truncate(cap);
            // Remote cells grouped by SLIT distance (unknown distance is its own class).
            let mut classes: Vec<DistanceClass> = Vec::new();
            for c in all.iter().copied().filter(|c| c.0 != c.1) {
                match classes.iter_mut().find(|(d, _)| *d == dist(&c)) {
                    Some((_, v)) => v.push(c),
                    None => classes.push((dist(&c), vec![c])),
                }
            }
            classes.sort_by_key(|(d, _)| *d);
            let mut counts = vec![0usize; classes.len()];
            let mut left = cap.saturating_sub(out.len());
            while left > 0 {
                let mut took = false;
                for (k, (_, v)) in classes.iter().enumerate() {
                    if left > 0 && counts[k] < v.len() {
                        counts[k] += 1;
                        left -= 1;
                        took = true;
                    }
                }
                if !took {
                    break;
                }
            }
            for ((_, v), &c) in classes.iter().zip(&counts) {
                out.extend(sample_evenly(v, c, |_| false));
            }
            out
        }
        _ => all,
    };
    out.sort_unstable();
    (out, n)
}

/// Bytes of the largest single last-level cache instance: the most one chasing thread can
/// fill (a remote line is cached in the requester's own LLC, not in the home node's), so
/// 8x this is a DRAM working set for single-thread latency (docs/METHODOLOGY.md, "Working-set
/// sweep") on a machine of any size. `None` when sysfs lists no caches.
pub fn llc_instance_bytes(topo: &Topology) -> Option<u64> {
    let data = || topo.caches.iter().filter(|c| c.kind != "Instruction");
    let level = data().map(|c| c.level).max()?;
    data()
        .filter(|c| c.level == level)
        .map(|c| c.size_bytes)
        .max()
        .filter(|&b| b > 0)
}

/// The single-thread DRAM latency working set of a run: 8x the largest LLC instance (32 MiB
/// assumed when sysfs lists none), at most a quarter of free memory, at least 1 MiB. The
/// latency matrix uses it, and the scenarios' single-thread latencies chase no more.
pub fn dram_latency_bytes(topo: &Topology) -> u64 {
    let llc = llc_instance_bytes(topo).unwrap_or(32 << 20);
    let free = free_memory_bytes(topo);
    let free = if free == 0 { 1 << 30 } else { free };
    (8 * llc).min(free / 4).max(1 << 20)
}

/// CPUs for core to core, at most `cap` ordered pairs: CPUs are taken round-robin over the
/// initiator nodes (so cross-node pairs are always present), one CPU per physical core before
/// any SMT sibling.
fn c2c_cpus(topo: &Topology, cap_pairs: usize) -> (Vec<u32>, usize) {
    let usable = topo.usable_cpus();
    let n = usable.len();
    let mut max = 2usize;
    while (max + 1) * max <= cap_pairs && max < n {
        max += 1;
    }
    if n <= max {
        return (usable, n);
    }
    // Per node: CPUs ordered first siblings (lowest of each core) then the rest.
    let mut per_node: Vec<Vec<u32>> = topo
        .initiator_nodes()
        .iter()
        .map(|&node| {
            let cpus = topo.usable_cpus_of(node);
            let (first, rest): (Vec<u32>, Vec<u32>) = cpus.iter().partition(|&&c| {
                topo.cpu(c)
                    .map(|x| x.siblings.iter().min().copied().unwrap_or(c) == c)
                    .unwrap_or(true)
            });
            let mut v = first;
            v.extend(rest);
            v.reverse();
            v
        })
        .collect();
    let mut out = Vec::new();
    while out.len() < max {
        let mut took = false;
        for q in per_node.iter_mut() {
            if out.len() < max {
                if let Some(c) = q.pop() {
                    out.push(c);
                    took = true;
                }
            }
        }
        if !took {
            break;
        }
    }
    out.sort_unstable();
    (out, n)
}

/// Thread counts 1, 2, 4, ... up to `max`, always ending at `max`, at most `cap` points
/// (the largest kept).
fn thread_counts(max: usize, cap: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut t = 1;
    while t < max {
        v.push(t);
        t *= 2;
    }
    if max > 0 {
        v.push(max);
    }
    if v.len() > cap {
        let last = *v.last().unwrap();
        let mut s = sample_evenly(&v[..v.len() - 1], cap.saturating_sub(1), |&x| x == 1);
        s.push(last);
        s.sort_unstable();
        s.dedup();
        return s;
    }
    v
}

/// Makes the plan. `built` lists the parts this build can execute; `weighted_ok` is not
/// needed here (the scenarios say themselves what they could not run).
pub fn make_plan(topo: &Topology, req: &PlanRequest, built: &[Part]) -> Planned {
    let k = knobs(req.budget);
    let settings = settings_for(topo, &k);
    let cpus = topo.usable_cpus().len();
    let threads = cpus.max(1);
    let mem_nodes = topo.memory_nodes();
    let mut parts = Vec::new();
    let mut skipped = Vec::new();
    for part in Part::ALL {
        match skip_reason(part, req, built, cpus)
            .or_else(|| super::rightmark::skip_reason(part, topo, req.budget))
        {
            Some(reason) => skipped.push(SkippedPart { part, reason }),
            None => parts.push(describe(part, &settings, topo, &mem_nodes, threads)),
        }
    }
    let mut planned = Planned {
        plan: Plan {
            budget: req.budget,
            target_s: k.target_s,
            estimate_s: 0.0,
            parts,
            skipped,
            reference: None,
        },
        settings,
    };
    plan_reference(&mut planned, topo);
    planned
}

/// Describes the run's reference measurement in the plan (it runs when a part that shows it
/// is planned) and makes the total the parts' estimates plus its own. Called again after
/// the command line's overrides changed the settings.
pub fn plan_reference(planned: &mut Planned, topo: &Topology) {
    planned.plan.reference = super::reference::planned(topo, &planned.settings, &planned.plan);
    planned.plan.estimate_s = planned.plan.parts.iter().map(|p| p.estimate_s).sum::<f64>()
        + planned
            .plan
            .reference
            .as_ref()
            .map_or(0.0, |r| r.estimate_s);
}

/// Why `part` does not run, or `None` when it does.
fn skip_reason(part: Part, req: &PlanRequest, built: &[Part], cpus: usize) -> Option<String> {
    if let Some(only) = &req.only {
        if !only.contains(&part) && part != Part::Topology {
            return Some("not named by --only".into());
        }
    }
    if req.skip.contains(&part) {
        return Some("left out with --skip".into());
    }
    if part == Part::LoadedLatency && cpus < 2 {
        return Some(format!(
            "loaded latency needs a second usable CPU for the load threads and this process may use {cpus}"
        ));
    }
    if part == Part::C2c && cpus < 2 {
        return Some(format!(
            "core-to-core latency needs two usable CPUs and this process may use {cpus}"
        ));
    }
    if !built.contains(&part) {
        return Some("its measurement engine is not part of this build of numascope".into());
    }
    let named = req.only.as_ref().is_some_and(|o| o.contains(&Part::Peak));
    if part == Part::Peak && req.budget != Budget::Thorough && !named {
        return Some(format!(
            "peak injection per mix takes about 20 s on a 2-CPU machine (7 mixes at 1, half and all CPUs, each run's buffers placed and verified), more than the {} budget leaves; add --thorough or --only peak, or run `numascope bandwidth --peak`",
            req.budget.name()
        ));
    }
    None
}

/// Repetitions of each run of the peak part: the fewest with an interval.
pub(super) const PEAK_REPETITIONS: usize = crate::schedule::MIN_SAMPLES_FOR_INTERVAL;
/// Length of one repetition of the peak part, ms: short, since 7 mixes x 3 thread counts run.
pub(super) const PEAK_DURATION_MS: u64 = 60;

/// The peak part's request: every mix on the home node (its CPUs and, when it holds more
/// than this node, its package) and the node's L3 domains; `None` without a node with CPUs.
pub(super) fn peak_request(topo: &Topology) -> Option<crate::bandwidth::peak::PeakRequest> {
    let node = home_node(topo).filter(|n| !topo.usable_cpus_of(*n).is_empty())?;
    Some(crate::bandwidth::peak::PeakRequest {
        mixes: crate::bandwidth::peak_plan::PeakMix::parse_list("all").ok()?,
        nodes: vec![node],
        domains: true,
    })
}

/// The peak part's estimate and detail line: its planned runs at the fixed timing, plus
/// 0.9 s each to map, place and verify the buffers and retake disturbed repetitions (14 runs
/// took 21 s on the 2-CPU development machine, busy).
pub(super) fn describe_peak(topo: &Topology) -> (f64, String) {
    let Some(req) = peak_request(topo) else {
        return (0.0, "no node with usable CPUs: nothing to measure".into());
    };
    let p = crate::bandwidth::peak_plan::plan(topo, &req.mixes, &req.nodes, req.domains);
    let per_run = (PEAK_REPETITIONS + 1) as f64 * PEAK_DURATION_MS as f64 / 1000.0 + 0.9;
    (
        p.runs.len() as f64 * per_run,
        format!(
            "peak injection per mix ({}) on node {} at 1, half and all CPUs, its package and L3 domains; {} runs of {} x {} ms",
            crate::bandwidth::peak_plan::ALL_MIXES.join(", "),
            req.nodes[0],
            p.runs.len(),
            PEAK_REPETITIONS,
            PEAK_DURATION_MS
        ),
    )
}

/// Memory available on the memory nodes, bytes (0 when the kernel reports none).
pub(super) fn free_memory_bytes(topo: &Topology) -> u64 {
    topo.available_over(&topo.memory_nodes())
}

/// Every part's settings for this machine under the budget's constants.
fn settings_for(topo: &Topology, k: &Knobs) -> Settings {
    let cpus = topo.usable_cpus();
    let threads = cpus.len().max(1);
    let llc = topo.llc_total_bytes();
    let llc_or = if llc == 0 { 32 << 20 } else { llc };
    let llc_one = llc_instance_bytes(topo).unwrap_or(32 << 20);
    let free = free_memory_bytes(topo);
    let free = if free == 0 { 1 << 30 } else { free };
    // Largest single-thread working set: 8x the LLC one thread can fill (docs/METHODOLOGY.md,
    // "Working-set sweep"), at most a quarter of free memory. Bandwidth, which uses every LLC at
    // once, sizes from their total below.
    let lat_to = dram_latency_bytes(topo);
    // Bandwidth arrays: together at least 4x the LLC (docs/METHODOLOGY.md, "Buffers and kernels"),
    // at least 16 MiB a thread, at most an eighth of free memory over all threads.
    let bw_total = (4 * llc_or).max(16 << 20).min(free / 8);
    let bytes_per_thread = (bw_total / threads as u64).max(16 << 20);

    let latency = LatencySettings {
        points_per_octave: k.lat_per_octave,
        from_bytes: 4096,
        to_bytes: (k.lat_sweep_llc * llc_one).min(lat_to).max(1 << 20),
        samples: k.lat_samples,
        warmup: 2,
        min_sample_ns: k.lat_min_sample_ns,
        modes: k.lat_modes.to_vec(),
        pages: k.lat_pages.to_vec(),
        distribution_groups: k.lat_dist_groups,
    };
    let (lcells, lall) = matrix_cells(topo, k.lat_cells);
    let latency_matrix = MatrixSettings {
        cells: lcells,
        all_cells: lall,
        size_bytes: lat_to,
    };
    let (bcells, ball) = matrix_cells(topo, k.bw_cells);
    let bandwidth_matrix = MatrixSettings {
        cells: bcells,
        all_cells: ball,
        size_bytes: bytes_per_thread,
    };
    let scaling = scaling_settings(topo, k);
    let (c2c_cpu_list, all_cpus) = c2c_cpus(topo, k.c2c_cap);
    Settings {
        latency,
        latency_matrix,
        bandwidth: BandwidthSettings {
            kernels: k.bw_kernels.to_vec(),
            timed: k.bw.clone(),
            bytes_per_thread,
        },
        bandwidth_matrix,
        scaling,
        loaded: loaded_settings(k),
        c2c: C2cSettings {
            cpus: c2c_cpu_list,
            all_cpus,
            repetitions: k.c2c_reps,
            repetition_ms: 10,
        },
        scenarios: ScenarioSettings {
            timed: k.scen.clone(),
            total_bytes: bw_total,
            target_half_width: k.target_half_width,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sample::opteron_topology;

    fn big_topology(nodes: u32, cpus_per_node: u32) -> Topology {
        let mut t = opteron_topology();
        let proto_node = t.nodes[0].clone();
        let proto_cpu = t.cpus[0].clone();
        t.nodes.clear();
        t.cpus.clear();
        for n in 0..nodes {
            let ids: Vec<u32> = (n * cpus_per_node..(n + 1) * cpus_per_node).collect();
            let mut node = proto_node.clone();
            node.id = n;
            node.cpus = ids.clone();
            t.nodes.push(node);
            for id in ids {
                let mut c = proto_cpu.clone();
                c.id = id;
                c.node = Some(n);
                c.core = Some(id);
                c.siblings = vec![id];
                t.cpus.push(c);
            }
        }
        t.allowed_cpus = (0..nodes * cpus_per_node).collect();
        t.allowed_nodes = (0..nodes).collect();
        t.distances = (0..nodes)
            .map(|i| (0..nodes).map(|j| if i == j { 10 } else { 20 }).collect())
            .collect();
        t
    }

    #[test]
    fn part_lists_parse_and_unknown_parts_name_the_known_ones() {
        assert_eq!(
            parse_parts("--only", "latency, c2c,latency").unwrap(),
            vec![Part::Latency, Part::C2c]
        );
        let e = parse_parts("--skip", "latency,bogus").unwrap_err();
        assert!(
            e.starts_with("--skip: unknown part `bogus`; the parts are: topology, latency"),
            "{e}"
        );
        assert!(parse_parts("--only", " , ")
            .unwrap_err()
            .contains("at least one"));
    }

    #[test]
    fn only_and_skip_choose_parts_with_reasons() {
        let t = opteron_topology();
        let req = PlanRequest {
            budget: Budget::Quick,
            only: Some(vec![Part::Scenarios, Part::Latency]),
            skip: vec![Part::Latency],
        };
        let p = make_plan(&t, &req, &Part::ALL).plan;
        let run: Vec<Part> = p.parts.iter().map(|p| p.part).collect();
        assert_eq!(run, vec![Part::Topology, Part::Scenarios]);
        let why = |part| {
            p.skipped
                .iter()
                .find(|s| s.part == part)
                .map(|s| s.reason.clone())
                .unwrap()
        };
        assert_eq!(why(Part::Latency), "left out with --skip");
        assert_eq!(why(Part::C2c), "not named by --only");
        let p = make_plan(
            &t,
            &PlanRequest::default(),
            &[Part::Topology, Part::Scenarios],
        )
        .plan;
        assert!(why_of(&p, Part::Bandwidth).contains("not part of this build"));
    }

    fn why_of(p: &Plan, part: Part) -> String {
        p.skipped
            .iter()
            .find(|s| s.part == part)
            .unwrap()
            .reason
            .clone()
    }

    /// The budgets' estimates on a 2-CPU one-or-two-node machine stay within their targets,
    /// and thorough measures more than default, which measures more than quick.
    #[test]
    fn budgets_fit_their_targets_on_a_small_machine() {
        let t = opteron_topology();
        let est = |b| {
            make_plan(
                &t,
                &PlanRequest {
                    budget: b,
                    ..Default::default()
                },
                &Part::ALL,
            )
            .plan
            .estimate_s
        };
        let (q, d, th) = (
            est(Budget::Quick),
            est(Budget::Default),
            est(Budget::Thorough),
        );
        assert!(q <= 15.0, "quick {q}");
        assert!(d <= 60.0 && d > q, "default {d}");
        assert!(th > d, "thorough {th}");
    }

    /// On a big machine, matrix cells, CPU pairs and scaling nodes are sampled, and the plan
    /// says what it left out: quick measures the home row once per SLIT distance, default
    /// the whole latency matrix and, past 24 cells, every local bandwidth cell and an even
    /// share of each distance class.
    #[test]
    fn big_machines_are_sampled_and_say_so() {
        let t = big_topology(8, 32);
        let pl = make_plan(
            &t,
            &PlanRequest {
                budget: Budget::Quick,
                ..Default::default()
            },
            &Part::ALL,
        );
        let m = &pl.settings.latency_matrix;
        assert_eq!(m.all_cells, 64);
        assert_eq!(m.cells, vec![(0, 0), (0, 1)]);
        let c = &pl.settings.c2c;
        assert_eq!(c.all_cpus, 256);
        // quick: at most 4 ordered pairs -> 2 CPUs, on two different nodes.
        assert_eq!(c.cpus, vec![0, 32]);
        let dp = make_plan(&t, &PlanRequest::default(), &Part::ALL);
        let d = &dp.settings.c2c;
        assert_eq!(d.cpus.len(), 8);
        assert_eq!(d.cpus, vec![0, 32, 64, 96, 128, 160, 192, 224]);
        let lm = pl.plan.planned(Part::LatencyMatrix).unwrap();
        assert_eq!(
            lm.reduced,
            vec!["2 of 64 node pairs measured (local 1 of 8, distance 20: 1 of 56); every other pair is shown as not measured, none is inferred from a measured one"]
        );
        assert!(!pl.plan.planned(Part::C2c).unwrap().reduced.is_empty());
        assert_eq!(pl.settings.scaling.thread_counts, vec![1, 8, 32]);
        assert_eq!(pl.settings.scaling.nodes, vec![0, 4]);
        // Default: all 64 latency cells; 24 bandwidth cells, the 8 local ones among them.
        assert_eq!(dp.settings.latency_matrix.cells.len(), 64);
        let bw = &dp.settings.bandwidth_matrix.cells;
        assert_eq!(bw.len(), 24);
        assert!((0..8).all(|n| bw.contains(&(n, n))));
        assert_eq!(dp.settings.scaling.nodes, vec![0, 2, 4, 6]);
    }

    /// Remote cells are shared round-robin over the distance classes, each class evenly
    /// sampled; a machine without caches in sysfs sizes the DRAM chase from 32 MiB.
    #[test]
    fn matrix_cells_by_distance_class() {
        let mut t = big_topology(4, 2);
        t.distances = vec![
            vec![10, 12, 32, 32],
            vec![12, 10, 32, 32],
            vec![32, 32, 10, 12],
            vec![32, 32, 12, 10],
        ];
        let (cells, all) = matrix_cells(&t, CellChoice::Upto(8));
        assert_eq!(all, 16);
        // 4 local, then 2 of the 4 at distance 12 (the 2nd and 4th: (1,0), (3,2)) and 2 of
        // the 8 at distance 32 (the 3rd and 7th: (1,2), (3,0)).
        assert_eq!(
            cells,
            vec![
                (0, 0),
                (1, 0),
                (1, 1),
                (1, 2),
                (2, 2),
                (3, 0),
                (3, 2),
                (3, 3)
            ]
        );
        let (cells, _) = matrix_cells(&t, CellChoice::HomeRowClasses { keep_all_upto: 4 });
        assert_eq!(cells, vec![(0, 0), (0, 1), (0, 2)]);
        let (cells, _) = matrix_cells(&t, CellChoice::Upto(16));
        assert_eq!(cells.len(), 16);
        t.caches.clear();
        assert_eq!(llc_instance_bytes(&t), None);
        assert_eq!(
            dram_latency_bytes(&t),
            (256u64 << 20).min(free_memory_bytes(&t) / 4)
        );
    }

    #[test]
    fn thread_counts_and_sampling() {
        assert_eq!(thread_counts(1, 6), vec![1]);
        assert_eq!(thread_counts(6, 6), vec![1, 2, 4, 6]);
        assert_eq!(thread_counts(64, 100), vec![1, 2, 4, 8, 16, 32, 64]);
        let v: Vec<u32> = (0..100).collect();
        let s = sample_evenly(&v, 10, |&x| x == 99);
        assert_eq!(s.len(), 10);
        assert!(s.contains(&99));
        assert_eq!(grid_points(4096, 8192, 4), 5);
    }
}
