//! Which scenario rows place threads and pages identically on this machine (docs/METHODOLOGY.md,
//! "Identical placements"): a model of where each thread runs and where its pages land under a
//! policy, so rows that this machine cannot tell apart (one memory node: (d), (e), (f); one CPU per
//! node: (c) and (e)) are measured once and the others show that figure with the reason. Pure: it
//! reads the topology model and the planned configurations, never the machine.

use crate::placement::model::{pages, same_reason};
use crate::results::scenarios::ScenarioResult;
use crate::results::topology::Topology;

use crate::bandwidth::team::{Config, Job};

/// Where one thread runs, for comparing placements.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Where {
    Cpu(u32),
    /// Left to the scheduler over these CPUs.
    Scheduler(Vec<u32>),
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
