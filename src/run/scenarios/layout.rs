//! The scenario rows of this machine before anything is measured: which node is home, which
//! CPUs each row uses, the policy and buffer size of each, the `numactl` line a reader can
//! repeat it with, and, for a row this machine cannot run, the reason instead of a
//! configuration. Split from the measuring so the plan of the eight rows reads on its own.

use super::*;

/// The rows of this machine before measuring, with the configuration each runs (`None`
/// where a row cannot run here, its reason already in the row; (g) is filled once its weights
/// are known, (h) by `auto_weights::plan_row`).
pub(super) struct Layout {
    pub(super) home: u32,
    pub(super) all: Vec<u32>,
    pub(super) mem: Vec<u32>,
    pub(super) interleave_arg: String,
    pub(super) rows: Vec<ScenarioResult>,
    pub(super) configs: Vec<Option<Config>>,
}

pub(super) fn layout(topo: &Topology, s: &ScenarioSettings) -> anyhow::Result<Layout> {
    let home = home_node(topo)
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
    // The copy-per-node line as a shell loop that runs (a "how" cell is a command
    // or plainly prose, never a command with prose in it).
    let copy_nodes_words: Vec<String> = copy_nodes.iter().map(|x| x.0.to_string()).collect();

    let mut rows = vec![
        // (a) binds its one thread to the home node's CPUs, as its numactl line does (and as
        // the article's "tied to the processor with memory" means); the scheduler picks among
        // them. On a machine whose usable CPUs are all on one node, that is (b).
        ScenarioResult {
            threads: 1,
            ..row(
                ScenarioId::PinnedLocal,
                &home_cpus,
                true,
                format!(
                    "bind to node {home}, thread on node {home}'s CPUs ({})",
                    format_list(&home_cpus)
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
            format!(
                "for N in {}; do numactl --cpunodebind=$N --membind=$N APP & done; wait",
                copy_nodes_words.join(" ")
            ),
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
            "numactl --localalloc APP  # APP pins its threads".into(),
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
        row(
            ScenarioId::AllAutoWeightedInterleave,
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
    let configs = vec![
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
        Some(team(&all, vec![Policy::Bind(vec![home]); n])),
        Some(team(&all, vec![Policy::FirstTouch; n])),
        Some(team(&all, vec![Policy::Interleave(mem.clone()); n])),
        None,
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
