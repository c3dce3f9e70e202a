//! Every part's settings for this machine under the budget's constants: the sizes from the
//! caches and free memory, and what grows with the machine (matrix cells, core pairs, thread
//! counts, scaling nodes) sampled down to the budget's caps. Pure: nothing here measures.

use crate::results::topology::Topology;
use crate::schedule::TimedSettings;

use super::super::budget::{CellChoice, Knobs};
use super::machine::{read_machine, Machine};
use super::{
    BandwidthSettings, C2cSettings, LatencySettings, LoadedSettings, MatrixSettings, PeakSettings,
    ScalingSettings, ScenarioSettings, Settings,
};

/// Every part's settings for this machine under the budget's constants.
pub(super) fn settings_for(topo: &Topology, k: &Knobs) -> Settings {
    let Machine {
        home,
        measuring_cpu,
        llc_total,
        llc_one,
        free,
        dram_latency: lat_to,
        weighted_unavailable,
    } = read_machine(topo);
    let threads = topo.usable_cpus().len().max(1);
    // Bandwidth arrays: together at least 4x the LLC (docs/METHODOLOGY.md, "Buffers and kernels"),
    // at least 16 MiB a thread, at most an eighth of free memory over all threads. The
    // single-thread working set `lat_to` sizes from the one LLC a thread can fill instead.
    let bw_total = (4 * llc_total).max(16 << 20).min(free / 8);
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
    let (lcells, lall) = matrix_cells(topo, k.lat_cells, home);
    let latency_matrix = MatrixSettings {
        cells: lcells,
        all_cells: lall,
        size_bytes: lat_to,
    };
    let (bcells, ball) = matrix_cells(topo, k.bw_cells, home);
    let bandwidth_matrix = MatrixSettings {
        cells: bcells,
        all_cells: ball,
        size_bytes: bytes_per_thread,
    };
    let scaling = scaling_settings(topo, k, home);
    let (c2c_cpu_list, all_cpus) = c2c_cpus(topo, k.c2c_cap);
    Settings {
        home_node: home,
        measuring_cpu,
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
            // The run's DRAM latency working set: (a)'s latency is then the reference's.
            latency_bytes: lat_to.max(16 << 20),
            weighted_unavailable,
        },
        peak: peak_settings(topo, home),
        // Decided after the command line's overrides, for the planned table parts.
        rightmark: None,
        stream_matrix: None,
        scenario_layout: None,
    }
}

/// Scaling: thread counts up to the largest node's CPUs, on an even sample of the initiator
/// nodes that keeps the home node.
fn scaling_settings(topo: &Topology, k: &Knobs, home: Option<u32>) -> ScalingSettings {
    let init_nodes = topo.initiator_nodes();
    let per_node_max = init_nodes
        .iter()
        .map(|n| topo.usable_cpus_of(*n).len())
        .max()
        .unwrap_or(1);
    ScalingSettings {
        thread_counts: thread_counts(per_node_max, k.scaling_cap),
        nodes: {
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
pub(super) fn matrix_cells(
    topo: &Topology,
    choice: CellChoice,
    home: Option<u32>,
) -> (Vec<(u32, u32)>, usize) {
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
            let home = home.filter(|h| inits.contains(h));
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
pub(super) fn thread_counts(max: usize, cap: usize) -> Vec<usize> {
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

/// The peak part: every mix on the home node (its CPUs and, when it holds more than this
/// node, its package) and the node's L3 domains (no request without a node with CPUs), each
/// run the fewest repetitions with an interval, short ones since 7 mixes x 3 thread counts run.
fn peak_settings(topo: &Topology, home: Option<u32>) -> PeakSettings {
    use crate::bandwidth::peak_plan::{plan, PeakMix};
    let plan = home
        .filter(|n| !topo.usable_cpus_of(*n).is_empty())
        .and_then(|node| Some(plan(topo, &PeakMix::parse_list("all").ok()?, &[node], true)));
    PeakSettings {
        plan,
        timed: TimedSettings {
            duration_ms: 60,
            repetitions: crate::schedule::MIN_SAMPLES_FOR_INTERVAL,
        },
    }
}
