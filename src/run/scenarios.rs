//! The policy scenarios of the Opteron article's closing table, measured on this machine:
//! (a) one thread pinned with local memory, (b) one thread left to the scheduler with its
//! memory on one node, (c) one single-threaded copy per node, each local, run together,
//! (d) all threads with all memory on one node, (e) all threads with local memory, (f) all
//! threads interleaved over all memory nodes, (g) all threads with weighted interleave, the
//! weights derived from the measured bandwidth of all threads to each node. Every row uses the
//! same read kernel, so the rows compare. Before measuring, rows that place threads and pages
//! identically on this machine (one memory node: (d), (e), (f); one CPU per node: (c) and (e))
//! are recognised and measured once, the others showing that figure with the reason
//! (METHODOLOGY point 25); the distinct rows are measured side by side in interleaved rounds
//! ([`super::rounds`]). A row that cannot run here says why; a row that fails records its error
//! and the others still run. The ranking is [`super::ranking`].

use crate::latency::measure::SamplePlan;
use crate::parse::cpulist::format_list;
use crate::placement::Policy;
use crate::results::scenarios::{ScenarioId, ScenarioResult, ScenarioTable};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::measure::{chase_latency, KERNEL};
use super::plan::ScenarioSettings;
use super::ranking::recommend;
use super::rounds::{budget_s, keep_buffers, measure_once, plan_rounds, run_rounds, Config, Job};
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
        rounds_mb_per_s: vec![],
        same_as: None,
        same_reason: None,
        quality: None,
    }
}

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
fn pages(
    topo: &Topology,
    mem: &[u32],
    policy: &Policy,
    cpu: Option<u32>,
) -> Option<Vec<(u32, u32)>> {
    let mut v: Vec<(u32, u32)> = match policy {
        Policy::Bind(ns) if ns.len() == 1 => vec![(ns[0], 1)],
        Policy::Interleave(ns) => ns.iter().map(|&n| (n, 1)).collect(),
        Policy::WeightedInterleave(ws) => ws.iter().map(|&(n, w)| (n, u32::from(w))).collect(),
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
        Job::Unpinned { policy } => {
            // With one usable CPU the scheduler has nowhere else to put the thread.
            let w = match usable.as_slice() {
                [only] => Where::Cpu(*only),
                _ => Where::Scheduler(usable.clone()),
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

/// Why configurations place identically here, from the machine's shape.
fn same_reason(topo: &Topology) -> String {
    let mem = topo.memory_nodes();
    let usable = topo.usable_cpus();
    let mut facts = Vec::new();
    if mem.len() == 1 {
        facts.push(format!(
            "one memory node (node {}), so every policy puts every page on it",
            mem[0]
        ));
    }
    if usable.len() == 1 {
        facts.push("one usable CPU, so the scheduler has nowhere else to run the thread".into());
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
fn merge_identical(topo: &Topology, configs: &[Option<Config>]) -> Vec<Option<usize>> {
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

/// Inputs of the scenario run besides the machine.
pub struct ScenarioInputs<'a> {
    pub settings: &'a ScenarioSettings,
    /// Samples for the single-thread latencies.
    pub latency_plan: SamplePlan,
    pub timer_resolution_ns: f64,
    pub is_root: bool,
}

/// Gives each merged row (`merged[i]` = the row measured for it) that row's figures, and
/// says why.
fn apply_merges(rows: &mut [ScenarioResult], merged: &[Option<usize>], reason: &str) {
    for i in 0..rows.len() {
        if let Some(j) = merged[i] {
            let src = rows[j].clone();
            let r = &mut rows[i];
            r.mb_per_s = src.mb_per_s;
            r.per_thread_mb_per_s = src.per_thread_mb_per_s;
            r.placement_fraction = src.placement_fraction;
            r.rounds_mb_per_s = src.rounds_mb_per_s;
            r.quality = src.quality;
            r.latency_ns = r.latency_ns.or(src.latency_ns);
            r.unavailable = src.unavailable;
            r.same_as = Some(src.id);
            r.same_reason = Some(reason.to_string());
        }
    }
}

/// The rows of this machine before measuring, with the configuration each runs (`None`
/// where a row cannot run here, its reason already in the row; (g) is filled once its weights
/// are known).
struct Layout {
    home: u32,
    all: Vec<u32>,
    mem: Vec<u32>,
    interleave_arg: String,
    rows: Vec<ScenarioResult>,
    configs: Vec<Option<Config>>,
}

fn layout(topo: &Topology, s: &ScenarioSettings) -> anyhow::Result<Layout> {
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
    let team = |cpus: &[u32], policies: Vec<Policy>| Config {
        bytes_per_thread: per_thread(cpus.len()),
        job: Job::Team {
            cpus: cpus.to_vec(),
            policies,
        },
        weights: None,
    };
    let n = all.len();
    let copy = if copy_cpus.is_empty() {
        rows[2].unavailable = Some("no node has both usable CPUs and memory".into());
        None
    } else {
        Some(team(
            &copy_cpus,
            copy_nodes.iter().map(|x| Policy::Bind(vec![x.0])).collect(),
        ))
    };
    let configs = vec![
        Some(team(&[home_cpu], vec![Policy::Bind(vec![home])])),
        Some(Config {
            job: Job::Unpinned {
                policy: Policy::Bind(vec![home]),
            },
            bytes_per_thread: per_thread(1),
            weights: None,
        }),
        copy,
        Some(team(&all, vec![Policy::Bind(vec![home]); n])),
        Some(team(&all, vec![Policy::FirstTouch; n])),
        Some(team(&all, vec![Policy::Interleave(mem.clone()); n])),
        None,
    ];
    Ok(Layout {
        home,
        all,
        mem,
        interleave_arg,
        rows,
        configs,
    })
}

/// Measures the seven rows: scenarios that place threads and pages identically on this
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
    let Layout {
        home,
        all,
        mem,
        interleave_arg,
        mut rows,
        mut configs,
    } = layout(topo, s)?;
    let per_thread = |n: usize| (s.total_bytes / n.max(1) as u64).max(MIN_BYTES_PER_THREAD);
    let weighted_why = weighted_unavailable(topo, inp.is_root);
    // The budget the run plan gave seven rows one after the other, spent on rounds instead.
    let extra = if weighted_why.is_none() { mem.len() } else { 0 };
    let distinct = configs
        .iter()
        .zip(merge_identical(topo, &configs))
        .filter(|(c, m)| c.is_some() && m.is_none())
        .count()
        + usize::from(weighted_why.is_none());
    let known: Vec<Config> = configs.iter().flatten().cloned().collect();
    let plan = plan_rounds(
        budget_s(rows.len(), &s.timed, s.total_bytes),
        distinct,
        extra,
        s.total_bytes,
        s.timed.duration_ms,
        keep_buffers(topo, &known),
    );
    let total = extra + plan.rounds * distinct + 2;
    let mut done = 0;
    let mut tick = || {
        done += 1;
        progress(done.min(total), total);
    };

    // (g): weights from all threads' bandwidth to each memory node, measured first.
    let mut weights = Vec::new();
    let g = 6;
    match weighted_why {
        Some(why) => {
            rows[g].unavailable = Some(why);
            rows[g].policy = "weighted interleave".into();
            rows[g].numactl = format!("numactl --weighted-interleave={interleave_arg} APP");
        }
        None => {
            let mut per_node_all: Vec<(u32, f64)> = Vec::new();
            for &m in &mem {
                if interrupted() {
                    break;
                }
                let cfg = Config {
                    job: Job::Team {
                        cpus: all.clone(),
                        policies: vec![Policy::Bind(vec![m]); all.len()],
                    },
                    bytes_per_thread: per_thread(all.len()),
                    weights: None,
                };
                if let Ok(t) = measure_once(topo, root, &cfg, &plan.timed) {
                    per_node_all.push((m, t.total_mb_per_s.median));
                }
                tick();
            }
            weights = derive_weights(&per_node_all);
            rows[g].policy = format!(
                "weighted interleave {} (from all threads' bandwidth per node: {})",
                weights_text(&weights),
                per_node_all
                    .iter()
                    .map(|(n, b)| format!("node {n} {b:.0} MB/s"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            rows[g].numactl = format!(
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
                rows[g].unavailable = Some("fewer than two memory nodes gave a bandwidth figure, so there were no weights to apply".into());
            } else {
                configs[g] = Some(Config {
                    job: Job::Team {
                        cpus: all.clone(),
                        policies: vec![Policy::WeightedInterleave(weights.clone()); all.len()],
                    },
                    bytes_per_thread: per_thread(all.len()),
                    weights: Some(weights.clone()),
                });
            }
        }
    }

    // Identical placements are measured once; the distinct ones side by side.
    let merged = merge_identical(topo, &configs);
    let measured: Vec<usize> = (0..configs.len())
        .filter(|&i| configs[i].is_some() && merged[i].is_none())
        .collect();
    let cfgs: Vec<Config> = measured
        .iter()
        .filter_map(|&i| configs[i].clone())
        .collect();
    let outcomes = run_rounds(topo, root, &cfgs, &plan, &mut tick);
    for (&i, o) in measured.iter().zip(outcomes) {
        let r = &mut rows[i];
        r.placement_fraction = o.placement_fraction;
        r.per_thread_mb_per_s = o.per_thread_medians();
        r.mb_per_s = Summary::of(&o.rounds);
        r.rounds_mb_per_s = o.rounds;
        r.quality = o.quality;
        if r.mb_per_s.is_none() {
            r.unavailable = Some(
                o.error
                    .unwrap_or_else(|| "not measured: the run was interrupted (Ctrl-C)".into()),
            );
        }
    }
    // Single-thread latencies of (a) and (b), on a buffer of the same size as their
    // bandwidth rows, so the two differ only in pinning (the latency matrix's cell is another
    // size).
    let home_cpu = rows[0].cpus.first().copied();
    for (i, cpu) in [(0, home_cpu), (1, None)] {
        if merged[i].is_some() || rows[i].mb_per_s.is_none() || interrupted() {
            continue;
        }
        rows[i].latency_ns = chase_latency(
            topo,
            root,
            cpu,
            &Policy::Bind(vec![home]),
            per_thread(1),
            &inp.latency_plan,
            inp.timer_resolution_ns,
        )
        .ok()
        .map(|x| x.0);
        tick();
    }
    apply_merges(&mut rows, &merged, &same_reason(topo));
    let recommendations = recommend(&rows);
    let kernel = KERNEL.descriptor().name.to_string();
    Ok(ScenarioTable {
        kernel,
        buffer_bytes_per_thread: per_thread(all.len()),
        duration_ms: plan.timed.duration_ms,
        repetitions: plan.rounds,
        interleaved_rounds: true,
        home_node: home,
        scenarios: rows,
        recommendations,
        weights,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::plan::TimedSettings;
    use crate::testutil::this_machine_one_node;

    fn settings() -> ScenarioSettings {
        ScenarioSettings {
            timed: TimedSettings {
                duration_ms: 100,
                repetitions: 2,
            },
            total_bytes: 64 << 20,
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
        let l = layout(topo, &settings()).unwrap();
        merge_identical(topo, &l.configs)
            .iter()
            .zip(&l.rows)
            .map(|(m, r)| (r.id.letter(), m.map(|j| l.rows[j].id.letter())))
            .collect()
    }

    /// Issue 19: on one memory node, (d), (e) and (f) put every page on the same node, and one
    /// copy per node is (a); they are merged before measuring, with the reason.
    #[test]
    fn one_memory_node_merges_d_e_f_and_c_into_a() {
        let topo = this_machine_one_node();
        assert_eq!(topo.memory_nodes().len(), 1);
        let m = merged_letters(&topo);
        assert_eq!(
            m,
            vec![
                ('a', None),
                (
                    'b',
                    if topo.usable_cpus().len() == 1 {
                        Some('a')
                    } else {
                        None
                    }
                ),
                ('c', Some('a')),
                ('d', None),
                ('e', Some('d')),
                ('f', Some('d')),
                ('g', None),
            ]
        );
        assert!(same_reason(&topo).contains("one memory node (node 0)"));
    }

    /// Issue 19 end to end without measuring: on one memory node, whatever the rounds say,
    /// no recommendation ranks (d), (e) and (f) against each other or gives a numactl line
    /// to choose between them.
    #[test]
    fn one_memory_node_advice_never_ranks_d_e_f() {
        use crate::results::scenarios::{AppKind, Verdict};
        let topo = this_machine_one_node();
        let mut l = layout(&topo, &settings()).unwrap();
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
        apply_merges(&mut l.rows, &merged, &same_reason(&topo));
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
            ]
        );
        assert!(same_reason(&topo).contains("one CPU per node"));
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
