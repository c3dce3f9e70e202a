//! Which scenario rows place threads and pages identically on this machine (METHODOLOGY point
//! 25): a model of where each thread runs and where its pages land under a policy, so rows
//! that this machine cannot tell apart (one memory node: (d), (e), (f); one CPU per node: (c)
//! and (e)) are measured once and the others show that figure with the reason. Pure: it
//! reads the topology model and the planned configurations, never the machine.

use crate::placement::Policy;
use crate::results::scenarios::ScenarioResult;
use crate::topology::Topology;

use super::super::rounds::{Config, Job};

/// Where one thread runs, for comparing placements.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Where {
    Cpu(u32),
    /// Left to the scheduler over these CPUs.
    Scheduler(Vec<u32>),
}

/// Where a thread's pages land: (node, share) reduced by their gcd; `None` when it depends
/// on something this model does not know (first touch on a node without memory among several
/// memory nodes, a multi-node bind).
pub(crate) fn pages(
    topo: &Topology,
    mem: &[u32],
    policy: &Policy,
    cpu: Option<u32>,
) -> Option<Vec<(u32, u32)>> {
    let mut v: Vec<(u32, u32)> = match policy {
        Policy::Bind(ns) if ns.len() == 1 => vec![(ns[0], 1)],
        Policy::Interleave(ns) => ns.iter().map(|&n| (n, 1)).collect(),
        Policy::WeightedInterleave(ws) => ws.iter().map(|&(n, w)| (n, u32::from(w))).collect(),
        // With one memory node, "that node first" is "that node".
        Policy::Preferred(n) if mem == [*n] => vec![(*n, 1)],
        Policy::FirstTouch => {
            let local = cpu
                .and_then(|c| topo.node_of_cpu(c))
                .filter(|n| mem.contains(n));
            match (local, mem) {
                (Some(n), _) => vec![(n, 1)],
                (None, [only]) => vec![(*only, 1)],
                _ => return None,
            }
        }
        _ => return None,
    };
    // Only memory nodes can hold pages; one memory node holds them all.
    if let [only] = mem {
        if v.iter().all(|(n, _)| n == only) {
            return Some(vec![(*only, 1)]);
        }
    }
    v.sort();
    v.dedup_by_key(|x| x.0);
    let g = v.iter().fold(0, |a, &(_, w)| gcd(a, w)).max(1);
    Some(v.into_iter().map(|(n, w)| (n, w / g)).collect())
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Each thread's place with its pages' (node, share), and the bytes per thread.
type PlacementKey = (Vec<(Where, Vec<(u32, u32)>)>, u64);

/// The placement a configuration produces on this machine: each thread's CPU (or the
/// scheduler's CPU set) with where its pages land, threads sorted, and the buffer size;
/// `None` when it cannot be pinned down (then it is never merged).
fn placement_key(topo: &Topology, cfg: &Config) -> Option<PlacementKey> {
    let mem = topo.memory_nodes();
    let usable = topo.usable_cpus();
    let mut threads = match &cfg.job {
        Job::Team { cpus, policies } => cpus
            .iter()
            .zip(policies)
            .map(|(&c, p)| Some((Where::Cpu(c), pages(topo, &mem, p, Some(c))?)))
            .collect::<Option<Vec<_>>>()?,
        Job::Unpinned { policy, cpus } => {
            // The scheduler's choice: the set it was given (all usable CPUs when none); with
            // one CPU it has nowhere else to put the thread.
            let mut set: Vec<u32> = if cpus.is_empty() {
                usable.clone()
            } else {
                cpus.iter()
                    .copied()
                    .filter(|c| usable.contains(c))
                    .collect()
            };
            set.sort_unstable();
            let w = match set.as_slice() {
                [only] => Where::Cpu(*only),
                _ => Where::Scheduler(set),
            };
            let cpu = match w {
                Where::Cpu(c) => Some(c),
                Where::Scheduler(_) => None,
            };
            vec![(w, pages(topo, &mem, policy, cpu)?)]
        }
    };
    threads.sort();
    Some((threads, cfg.bytes_per_thread))
}

/// Why configurations place identically here, from the machine's shape; `one_thread` for rows
/// of one thread, where a thread bound to its node and one left free can also be the same.
pub(crate) fn same_reason(topo: &Topology, one_thread: bool) -> String {
    let mem = topo.memory_nodes();
    let usable = topo.usable_cpus();
    let mut facts = Vec::new();
    if mem.len() == 1 {
        facts.push(format!(
            "one memory node (node {}), so every policy puts every page on it",
            mem[0]
        ));
    }
    let cpu_nodes: Vec<u32> = topo
        .initiator_nodes()
        .into_iter()
        .filter(|n| !topo.usable_cpus_of(*n).is_empty())
        .collect();
    if usable.len() == 1 {
        facts.push("one usable CPU, so the scheduler has nowhere else to run the thread".into());
    } else if let ([only], true) = (cpu_nodes.as_slice(), one_thread) {
        facts.push(format!(
            "every usable CPU is on node {only}, so binding a thread to its node leaves the scheduler the same CPUs"
        ));
    } else if topo
        .initiator_nodes()
        .iter()
        .all(|n| topo.usable_cpus_of(*n).len() <= 1)
    {
        facts.push("one CPU per node, so all threads are one thread per node".into());
    }
    if facts.is_empty() {
        facts.push("the same CPUs with pages on the same nodes".into());
    }
    format!("same placement here: {}", facts.join("; "))
}

/// For each configuration (`None`: not measured), the index of an earlier one with the same
/// placement on this machine.
pub(super) fn merge_identical(topo: &Topology, configs: &[Option<Config>]) -> Vec<Option<usize>> {
    let keys: Vec<_> = configs
        .iter()
        .map(|c| c.as_ref().and_then(|c| placement_key(topo, c)))
        .collect();
    (0..configs.len())
        .map(|i| {
            let k = keys[i].as_ref()?;
            (0..i).find(|&j| keys[j].as_ref() == Some(k))
        })
        .collect()
}

/// Gives each merged row (`merged[i]` = the row measured for it) that row's figures, and
/// says why.
pub(super) fn apply_merges(rows: &mut [ScenarioResult], merged: &[Option<usize>], topo: &Topology) {
    for i in 0..rows.len() {
        if let Some(j) = merged[i] {
            let src = rows[j].clone();
            let r = &mut rows[i];
            r.mb_per_s = src.mb_per_s;
            r.per_thread_mb_per_s = src.per_thread_mb_per_s;
            r.placement_fraction = src.placement_fraction;
            r.pages_per_node = src.pages_per_node;
            r.rounds_mb_per_s = src.rounds_mb_per_s;
            r.quality = src.quality.clone();
            r.latency_ns = r.latency_ns.or(src.latency_ns);
            r.latency = r.latency.take().or(src.latency);
            r.unavailable = src.unavailable;
            r.same_as = Some(src.id);
            r.same_reason = Some(same_reason(topo, r.threads == 1));
        }
    }
}
