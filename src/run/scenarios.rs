//! The policy scenarios of the Opteron article's closing table, measured on this machine:
//! (a) one thread pinned with local memory, (b) one thread left to the scheduler with its
//! memory on one node, (c) one single-threaded copy per node, each local, run together,
//! (d) all threads with all memory on one node, (e) all threads with local memory, (f) all
//! threads interleaved over all memory nodes, (g) all threads with weighted interleave, the
//! weights derived from the measured bandwidth of all threads to each node. Every row uses the
//! same read kernel, so the rows compare. A row that cannot run here says why; a row that
//! fails records its error and the others still run. The ranking is [`super::ranking`].

use crate::latency::measure::SamplePlan;
use crate::parse::cpulist::format_list;
use crate::placement::Policy;
use crate::results::scenarios::{ScenarioId, ScenarioResult, ScenarioTable};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::measure::{chase_latency, team_read, unpinned_read, TeamBandwidth, KERNEL};
use super::plan::ScenarioSettings;
use super::ranking::recommend;
use super::weights::{derive_weights, nodes_text, weights_text};

/// Smallest buffer a thread gets.
const MIN_BYTES_PER_THREAD: u64 = 16 << 20;

/// The node holding (a), (b) and (d): the first memory node that has usable CPUs, else the
/// first memory node.
pub fn home_node(topo: &Topology) -> Option<u32> {
    let mem = topo.memory_nodes();
    mem.iter()
        .copied()
        .find(|n| !topo.usable_cpus_of(*n).is_empty())
        .or_else(|| mem.first().copied())
}

/// Why weighted interleave cannot be measured here, if it cannot.
pub fn weighted_unavailable(topo: &Topology, is_root: bool) -> Option<String> {
    let mem = topo.memory_nodes();
    if mem.len() < 2 {
        return Some(format!(
            "this machine has one memory node ({}): there is nothing to weigh",
            format_list(&mem)
        ));
    }
    if !topo.environment.weighted_interleave_available {
        return Some(format!(
            "weighted interleave needs Linux 6.9 or newer (this kernel is {}: no /sys/kernel/mm/mempolicy/weighted_interleave)",
            topo.environment.kernel_release.as_deref().unwrap_or("unknown")
        ));
    }
    if !is_root {
        return Some(
            "setting the weights (/sys/kernel/mm/mempolicy/weighted_interleave/nodeN) needs root; run numascope as root to measure (g)".into(),
        );
    }
    None
}

/// True when the process runs as root.
pub fn running_as_root() -> bool {
    crate::sys::process::effective_uid() == 0
}

fn row(
    id: ScenarioId,
    cpus: &[u32],
    pinned: bool,
    policy: String,
    numactl: String,
) -> ScenarioResult {
    ScenarioResult {
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
    }
}

fn fill(r: &mut ScenarioResult, m: anyhow::Result<TeamBandwidth>) {
    match m {
        Ok(t) => {
            r.mb_per_s = Some(t.total_mb_per_s);
            r.per_thread_mb_per_s = t.per_thread_mb_per_s;
            r.placement_fraction = Some(t.placement_fraction);
        }
        Err(e) if interrupted() => {
            r.unavailable = Some(format!(
                "interrupted (Ctrl-C) during this row ({})",
                crate::error::one_sentence(&e)
            ))
        }
        Err(e) => r.unavailable = Some(format!("failed: {}", crate::error::one_sentence(&e))),
    }
}

/// Inputs of the scenario run besides the machine.
pub struct ScenarioInputs<'a> {
    pub settings: &'a ScenarioSettings,
    /// Samples for the single-thread latencies.
    pub latency_plan: SamplePlan,
    pub timer_resolution_ns: f64,
    pub is_root: bool,
}

/// Measures the seven rows; `progress(done, total)` after each. Rows not reached because of
/// Ctrl-C are marked so.
pub fn run_scenarios(
    topo: &Topology,
    root: &SysRoot,
    inp: &ScenarioInputs<'_>,
    progress: &dyn Fn(usize, usize),
) -> anyhow::Result<ScenarioTable> {
    let home = home_node(topo)
        .ok_or_else(|| anyhow::anyhow!("no memory node is allowed to this process, so no scenario can place memory; check the cpuset (Mems_allowed_list)"))?;
    let all = topo.usable_cpus();
    let home_cpu = topo
        .usable_cpus_of(home)
        .first()
        .copied()
        .or_else(|| all.first().copied())
        .ok_or_else(|| anyhow::anyhow!("no usable CPU"))?;
    let mem = topo.memory_nodes();
    let s = inp.settings;
    let per_thread = |n: usize| (s.total_bytes / n.max(1) as u64).max(MIN_BYTES_PER_THREAD);
    let interleave_arg = if mem.len() == topo.nodes.iter().filter(|n| n.has_memory).count() {
        "all".to_string()
    } else {
        format_list(&mem)
    };
    // (c): the first usable CPU of each initiator node that has memory.
    let copy_nodes: Vec<(u32, u32)> = topo
        .initiator_nodes()
        .into_iter()
        .filter(|n| mem.contains(n))
        .filter_map(|n| topo.usable_cpus_of(n).first().map(|&c| (n, c)))
        .collect();
    let copy_cpus: Vec<u32> = copy_nodes.iter().map(|x| x.1).collect();
    let copy_nodes_text = format_list(&copy_nodes.iter().map(|x| x.0).collect::<Vec<_>>());

    let mut rows = vec![
        row(
            ScenarioId::PinnedLocal,
            &[home_cpu],
            true,
            format!("bind to node {home}, thread on CPU {home_cpu}"),
            format!("numactl --cpunodebind={home} --membind={home} APP"),
        ),
        row(
            ScenarioId::UnpinnedOneNode,
            &[home_cpu],
            false,
            format!("bind to node {home}, thread placed by the scheduler"),
            format!("numactl --membind={home} APP"),
        ),
        row(
            ScenarioId::CopyPerNode,
            &copy_cpus,
            true,
            format!("each copy bound to its own node ({copy_nodes_text})"),
            format!("numactl --cpunodebind=N --membind=N APP, one copy per node N in {copy_nodes_text}"),
        ),
        row(
            ScenarioId::AllOneNode,
            &all,
            true,
            format!("bind to node {home}"),
            format!("numactl --membind={home} APP"),
        ),
        row(
            ScenarioId::AllLocal,
            &all,
            true,
            "first touch: each thread's memory on its own node".into(),
            "numactl --localalloc APP (threads pinned, each allocating and first touching its own data)".into(),
        ),
        row(
            ScenarioId::AllInterleave,
            &all,
            true,
            format!("interleave over nodes {}", format_list(&mem)),
            format!("numactl --interleave={interleave_arg} APP"),
        ),
        row(
            ScenarioId::AllWeightedInterleave,
            &all,
            true,
            String::new(),
            String::new(),
        ),
    ];
    let total = rows.len();
    let mut weights = Vec::new();
    let mut per_node_all: Vec<(u32, f64)> = Vec::new();
    for k in 0..total {
        if interrupted() {
            for r in rows[k..].iter_mut() {
                if r.unavailable.is_none() {
                    r.unavailable = Some("not measured: the run was interrupted (Ctrl-C)".into());
                }
            }
            break;
        }
        let r = &mut rows[k];
        match r.id {
            ScenarioId::PinnedLocal => {
                fill(
                    r,
                    team_read(
                        topo,
                        root,
                        &[home_cpu],
                        &[Policy::Bind(vec![home])],
                        per_thread(1),
                        &s.timed,
                    ),
                );
                // Measured here, on a buffer of the same size as (b)'s, so the two rows
                // differ only in pinning (the latency matrix's cell is another size).
                if !interrupted() {
                    r.latency_ns = chase_latency(
                        topo,
                        root,
                        Some(home_cpu),
                        &Policy::Bind(vec![home]),
                        per_thread(1),
                        &inp.latency_plan,
                        inp.timer_resolution_ns,
                    )
                    .ok()
                    .map(|x| x.0);
                }
            }
            ScenarioId::UnpinnedOneNode => {
                fill(
                    r,
                    unpinned_read(
                        topo,
                        root,
                        &Policy::Bind(vec![home]),
                        per_thread(1),
                        &s.timed,
                    ),
                );
                if !interrupted() {
                    r.latency_ns = chase_latency(
                        topo,
                        root,
                        None,
                        &Policy::Bind(vec![home]),
                        per_thread(1),
                        &inp.latency_plan,
                        inp.timer_resolution_ns,
                    )
                    .ok()
                    .map(|x| x.0);
                }
            }
            ScenarioId::CopyPerNode => {
                if copy_cpus.is_empty() {
                    r.unavailable = Some("no node has both usable CPUs and memory".into());
                } else {
                    let pols: Vec<Policy> =
                        copy_nodes.iter().map(|x| Policy::Bind(vec![x.0])).collect();
                    fill(
                        r,
                        team_read(
                            topo,
                            root,
                            &copy_cpus,
                            &pols,
                            per_thread(copy_cpus.len()),
                            &s.timed,
                        ),
                    );
                }
            }
            ScenarioId::AllOneNode => {
                let pols = vec![Policy::Bind(vec![home]); all.len()];
                fill(
                    r,
                    team_read(topo, root, &all, &pols, per_thread(all.len()), &s.timed),
                );
                if let Some(b) = r.bandwidth() {
                    per_node_all.push((home, b));
                }
            }
            ScenarioId::AllLocal => {
                let pols = vec![Policy::FirstTouch; all.len()];
                fill(
                    r,
                    team_read(topo, root, &all, &pols, per_thread(all.len()), &s.timed),
                );
            }
            ScenarioId::AllInterleave => {
                let pols = vec![Policy::Interleave(mem.clone()); all.len()];
                fill(
                    r,
                    team_read(topo, root, &all, &pols, per_thread(all.len()), &s.timed),
                );
            }
            ScenarioId::AllWeightedInterleave => {
                if let Some(why) = weighted_unavailable(topo, inp.is_root) {
                    r.unavailable = Some(why);
                    r.policy = "weighted interleave".into();
                    r.numactl = format!("numactl --weighted-interleave={interleave_arg} APP");
                } else {
                    // All threads' bandwidth from each other memory node (home is (d)).
                    for &m in mem.iter().filter(|m| **m != home) {
                        if interrupted() {
                            break;
                        }
                        let pols = vec![Policy::Bind(vec![m]); all.len()];
                        if let Ok(t) =
                            team_read(topo, root, &all, &pols, per_thread(all.len()), &s.timed)
                        {
                            per_node_all.push((m, t.total_mb_per_s.median));
                        }
                    }
                    per_node_all.sort_by_key(|x| x.0);
                    weights = derive_weights(&per_node_all);
                    r.policy = format!(
                        "weighted interleave {} (from all threads' bandwidth per node: {})",
                        weights_text(&weights),
                        per_node_all
                            .iter()
                            .map(|(n, b)| format!("node {n} {b:.0} MB/s"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    r.numactl = format!(
                        "{}; numactl --weighted-interleave={} APP",
                        weights
                            .iter()
                            .map(|(n, w)| format!(
                                "echo {w} > /sys/kernel/mm/mempolicy/weighted_interleave/node{n}"
                            ))
                            .collect::<Vec<_>>()
                            .join("; "),
                        nodes_text(&weights)
                    );
                    if weights.len() < 2 {
                        r.unavailable = Some("fewer than two memory nodes gave a bandwidth figure, so there were no weights to apply".into());
                    } else {
                        // Hold the weights for the whole setup: the threads fault in
                        // concurrently and must all see the same weights.
                        match crate::placement::WeightGuard::set(root, &weights) {
                            Ok(guard) => {
                                let pols =
                                    vec![Policy::WeightedInterleave(weights.clone()); all.len()];
                                fill(
                                    r,
                                    team_read(
                                        topo,
                                        root,
                                        &all,
                                        &pols,
                                        per_thread(all.len()),
                                        &s.timed,
                                    ),
                                );
                                drop(guard);
                            }
                            Err(e) => r.unavailable = Some(e.to_string()),
                        }
                    }
                }
            }
        }
        progress(k + 1, total);
    }
    let recommendations = recommend(&rows);
    let kernel = KERNEL.descriptor().name.to_string();
    Ok(ScenarioTable {
        kernel,
        buffer_bytes_per_thread: per_thread(all.len()),
        duration_ms: s.timed.duration_ms,
        repetitions: s.timed.repetitions,
        home_node: home,
        scenarios: rows,
        recommendations,
        weights,
    })
}
