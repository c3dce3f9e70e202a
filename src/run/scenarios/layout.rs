//! The scenario rows of this machine before anything is measured: which node is home, which
//! CPUs each row uses, the policy and buffer size of each, the `numactl` line a reader can
//! repeat it with, and, for a row this machine cannot run, the reason instead of a
//! configuration. Split from the measuring so the plan of the eight rows reads on its own.

use super::*;

/// The rows of this machine before measuring, with the configuration each runs (`None`
/// where a row cannot run here, its reason already in the row; (g) is filled once its weights
/// are known, (h) by `auto_weights::plan_row`). The plan lays the rows out once
/// (`run::plan`): its estimate reads them and the scenarios part measures them.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub(super) home: u32,
    pub(super) all: Vec<u32>,
    pub(super) mem: Vec<u32>,
    pub(super) interleave_arg: String,
    pub(super) rows: Vec<ScenarioResult>,
    pub(super) configs: Vec<Option<Config>>,
}

/// Lays out this machine's rows and the configuration each runs.
pub(crate) fn layout(
    topo: &Topology,
    s: &ScenarioSettings,
    home: Option<u32>,
) -> anyhow::Result<Layout> {
    let p = places(topo, s, home)?;
    let mut rows = plan_rows(&p);
    let configs = plan_configs(topo, &p, &mut rows);
    Ok(Layout {
        home: p.home,
        all: p.all,
        mem: p.mem,
        interleave_arg: p.interleave_arg,
        rows,
        configs,
    })
}

/// The nodes and CPUs the rows are laid out on.
struct Places {
    /// The node holding (a), (b) and (d).
    home: u32,
    /// The home node's usable CPUs (all of them when it has none of its own).
    home_cpus: Vec<u32>,
    /// All usable CPUs.
    all: Vec<u32>,
    /// The memory nodes.
    mem: Vec<u32>,
    /// `numactl`'s node argument for all memory nodes.
    interleave_arg: String,
    /// (c)'s copies: each initiator node with memory and its first usable CPU.
    copy_nodes: Vec<(u32, u32)>,
    /// The run's bytes, shared among a row's threads.
    total_bytes: u64,
}

impl Places {
    /// Bytes each of `n` threads gets.
    fn per_thread(&self, n: usize) -> u64 {
        (self.total_bytes / n.max(1) as u64).max(MIN_BYTES_PER_THREAD)
    }
}

/// The home node's CPUs, all CPUs and the memory nodes; an error where no row can run.
fn places(topo: &Topology, s: &ScenarioSettings, home: Option<u32>) -> anyhow::Result<Places> {
    let home = home
        .ok_or_else(|| anyhow::anyhow!("no memory node is allowed to this process, so no scenario can place memory; check the cpuset (Mems_allowed_list)"))?;
    let all = topo.usable_cpus();
    // The home node's usable CPUs; a memory node without CPUs of its own lends all of them.
    let home_cpus = match topo.usable_cpus_of(home) {
        v if v.is_empty() => all.clone(),
        v => v,
    };
    if home_cpus.is_empty() {
        anyhow::bail!("no usable CPU");
    }
    let mem = topo.memory_nodes();
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
    Ok(Places {
        home,
        home_cpus,
        all,
        mem,
        interleave_arg,
        copy_nodes,
        total_bytes: s.total_bytes,
    })
}

/// The eight rows with their CPUs, policy and `numactl` line, before any is measured.
fn plan_rows(p: &Places) -> Vec<ScenarioResult> {
    let Places {
        home,
        home_cpus,
        copy_nodes,
        ..
    } = p;
    let copy_cpus: Vec<u32> = copy_nodes.iter().map(|x| x.1).collect();
    let copy_nodes_text = format_list(&copy_nodes.iter().map(|x| x.0).collect::<Vec<_>>());
    // The copy-per-node line as a shell loop that runs (a "how" cell is a command
    // or plainly prose, never a command with prose in it).
    let copy_nodes_words: Vec<String> = copy_nodes.iter().map(|x| x.0.to_string()).collect();

    vec![
        // (a) binds its one thread to the home node's CPUs, as its numactl line does (and as
        // the article's "tied to the processor with memory" means); the scheduler picks among
        // them. On a machine whose usable CPUs are all on one node, that is (b).
        ScenarioResult {
            threads: 1,
            ..row(
                ScenarioId::PinnedLocal,
                home_cpus,
                true,
                format!(
                    "bind to node {home}, thread on node {home}'s CPUs ({})",
                    format_list(home_cpus)
                ),
                format!("numactl --cpunodebind={home} --membind={home} APP"),
            )
        },
        row(
            ScenarioId::UnpinnedOneNode,
            &home_cpus[..1],
            false,
            format!("bind to node {home}, thread placed by the scheduler"),
            format!("numactl --membind={home} APP"),
        ),
        row(
            ScenarioId::CopyPerNode,
            &copy_cpus,
            true,
            format!("each copy bound to its own node ({copy_nodes_text})"),
            copy_command(&copy_nodes_words),
        ),
    ]
    .into_iter()
    .chain(team_rows(p))
    .collect()
}

/// The command for (c): one copy per node in a loop, or the one copy itself on a machine with
/// one node (a loop over one node reads as a mistake).
fn copy_command(nodes: &[String]) -> String {
    match nodes {
        [n] => format!("numactl --cpunodebind={n} --membind={n} APP"),
        _ => format!(
            "for N in {}; do numactl --cpunodebind=$N --membind=$N APP & done; wait",
            nodes.join(" ")
        ),
    }
}

/// Rows (d) to (h): all threads, the memory placed as each row says ((g) and (h) described
/// once their weights are known).
fn team_rows(p: &Places) -> Vec<ScenarioResult> {
    let Places {
        home,
        all,
        mem,
        interleave_arg,
        ..
    } = p;
    vec![
        row(
            ScenarioId::AllOneNode,
            all,
            true,
            format!("bind to node {home}"),
            format!("numactl --membind={home} APP"),
        ),
        row(
            ScenarioId::AllLocal,
            all,
            true,
            "first touch: each thread's memory on its own node".into(),
            "numactl --localalloc APP  # APP pins its threads".into(),
        ),
        row(
            ScenarioId::AllInterleave,
            all,
            true,
            format!("interleave over nodes {}", format_list(mem)),
            format!("numactl --interleave={interleave_arg} APP"),
        ),
        row(
            ScenarioId::AllWeightedInterleave,
            all,
            true,
            String::new(),
            String::new(),
        ),
        row(
            ScenarioId::AllAutoWeightedInterleave,
            all,
            true,
            String::new(),
            String::new(),
        ),
    ]
}

/// The configuration each row runs (`None` for (g) and (h), filled later); marks (c)
/// unavailable where no node has both CPUs and memory.
fn plan_configs(topo: &Topology, p: &Places, rows: &mut [ScenarioResult]) -> Vec<Option<Config>> {
    let Places {
        home,
        home_cpus,
        all,
        mem,
        copy_nodes,
        ..
    } = p;
    let home = *home;
    let copy_cpus: Vec<u32> = copy_nodes.iter().map(|x| x.1).collect();
    let per_thread = |n: usize| p.per_thread(n);
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
    } else if let [(node, _)] = copy_nodes.as_slice() {
        // One node with CPUs and memory: its one copy is bound to the node as its numactl line
        // says, which is (a) when that node is home.
        let cpus = topo.usable_cpus_of(*node);
        rows[2].cpus = cpus.clone();
        Some(Config {
            job: Job::Unpinned {
                policy: Policy::Bind(vec![*node]),
                cpus,
            },
            bytes_per_thread: per_thread(1),
            weights: None,
        })
    } else {
        // Several nodes: each copy pinned to its node's first CPU, all running at once.
        Some(team(
            &copy_cpus,
            copy_nodes.iter().map(|x| Policy::Bind(vec![x.0])).collect(),
        ))
    };
    vec![
        Some(Config {
            job: Job::Unpinned {
                policy: Policy::Bind(vec![home]),
                cpus: home_cpus.clone(),
            },
            bytes_per_thread: per_thread(1),
            weights: None,
        }),
        Some(Config {
            job: Job::Unpinned {
                policy: Policy::Bind(vec![home]),
                cpus: vec![],
            },
            bytes_per_thread: per_thread(1),
            weights: None,
        }),
        copy,
        Some(team(all, vec![Policy::Bind(vec![home]); n])),
        Some(team(all, vec![Policy::FirstTouch; n])),
        Some(team(all, vec![Policy::Interleave(mem.clone()); n])),
        None,
        None,
    ]
}
