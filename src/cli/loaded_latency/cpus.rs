//! `numascope loaded-latency`'s CPUs and nodes: the chaser, the load team, the load nodes and
//! the memory nodes of the chased and the load buffers, each checked against the topology.

use super::LoadedLatencyArgs;
use crate::parse::selection;
use crate::results::format::format_list;
use crate::results::topology::Topology;

/// `--load-nodes`: nodes with usable CPUs, ascending.
pub(super) fn load_nodes(topo: &Topology, text: &str) -> anyhow::Result<Vec<u32>> {
    let nodes = selection::nodes(topo, "--load-nodes", text, &topo.initiator_nodes())?;
    if nodes.is_empty() {
        anyhow::bail!(
            "--load-nodes is empty; name the nodes whose CPUs load, e.g. --load-nodes 0,1 or all"
        );
    }
    for &n in &nodes {
        if topo.usable_cpus_of(n).is_empty() {
            anyhow::bail!(
                "--load-nodes {}: node {n} has no usable CPU (memory-only, offline or outside this process's CPUs); choose from {}",
                crate::parse::cpulist::excerpt(text.trim()),
                format_list(&topo.initiator_nodes())
            );
        }
    }
    Ok(nodes)
}

pub(super) fn check_memory_node(topo: &Topology, flag: &str, n: u32) -> anyhow::Result<()> {
    let Some(node) = topo.node(n) else {
        anyhow::bail!(
            "{flag} {n}: node {n} does not exist; this machine has nodes {}",
            format_list(&topo.node_ids())
        );
    };
    if !node.has_memory {
        anyhow::bail!(
            "{flag} {n}: node {n} has no memory (it only has CPUs); choose a node with memory from {}",
            format_list(&topo.memory_nodes())
        );
    }
    if !topo.allowed_nodes.contains(&n) {
        anyhow::bail!(
            "{flag} {n}: node {n} is outside this process's allowed nodes {}; choose an allowed node",
            format_list(&topo.allowed_nodes)
        );
    }
    Ok(())
}

/// One node of a memory role flag (`--mem-nodes`, `--load-mem-nodes`).
pub(super) fn one_memory_node(
    topo: &Topology,
    flag: &str,
    text: &str,
    what: &str,
) -> anyhow::Result<u32> {
    selection::one_node(
        topo,
        flag,
        text,
        &topo.memory_nodes(),
        &format!("{what} lives on one node"),
    )
}

/// `--cpu-nodes`'s usable CPUs, checked (`None` without the flag).
pub(super) fn initiator_cpus(
    topo: &Topology,
    a: &LoadedLatencyArgs,
) -> anyhow::Result<Option<Vec<u32>>> {
    Ok(match &a.cpu_nodes {
        Some(text) => {
            let n = selection::one_node(
                topo,
                "--cpu-nodes",
                text,
                &topo.initiator_nodes(),
                "the chaser and its load threads run from one node",
            )?;
            let Some(node) = topo.node(n) else {
                anyhow::bail!(
                    "--cpu-nodes {n}: node {n} does not exist; this machine has nodes {}",
                    format_list(&topo.node_ids())
                );
            };
            let cpus = topo.usable_cpus_of(n);
            if cpus.is_empty() {
                if node.cpus.is_empty() {
                    anyhow::bail!(
                        "--cpu-nodes {n}: node {n} is a memory-only node (no CPUs); it can be a --mem-nodes but not an initiator, choose one of {}",
                        format_list(&topo.initiator_nodes())
                    );
                }
                anyhow::bail!(
                    "--cpu-nodes {n}: none of node {n}'s CPUs is online and allowed; choose one of {}",
                    format_list(&topo.initiator_nodes())
                );
            }
            Some(cpus)
        }
        None => None,
    })
}

/// The chaser CPU and the load CPUs from `--cpus`, `--load-cpus` and `--cpu-nodes`, each checked to exist, be online and allowed, and not to overlap.
pub(super) fn team_cpus(topo: &Topology, a: &LoadedLatencyArgs) -> anyhow::Result<(u32, Vec<u32>)> {
    let usable = topo.usable_cpus();
    let node_cpus = initiator_cpus(topo, a)?;
    let pool = node_cpus.clone().unwrap_or_else(|| usable.clone());
    let chaser = match &a.cpus {
        Some(t) => selection::one_cpu(
            topo,
            "--cpus",
            t,
            "one thread chases (--load-cpus takes the load threads' list)",
        )?,
        None => *pool.first().ok_or_else(|| {
            anyhow::anyhow!("this process may use no CPU at all; check taskset or the cgroup")
        })?,
    };
    if let (Some(_), Some(l)) = (&a.load_nodes, &a.load_cpus) {
        anyhow::bail!(
            "--load-nodes and --load-cpus both choose the load threads' CPUs; drop --load-cpus {} or --load-nodes",
            crate::parse::cpulist::excerpt(l.trim())
        );
    }
    let load_cpus = match (&a.load_cpus, &a.load_nodes) {
        (None, Some(text)) => {
            let nodes = load_nodes(topo, text)?;
            let l: Vec<u32> = nodes
                .iter()
                .flat_map(|&n| topo.usable_cpus_of(n))
                .filter(|&c| c != chaser)
                .collect();
            if l.is_empty() {
                anyhow::bail!(
                    "--load-nodes {}: the only usable CPU there is the chaser's ({chaser}); name nodes with other CPUs",
                    crate::parse::cpulist::excerpt(text.trim())
                );
            }
            l
        }
        (Some(text), _) => {
            if text.trim().is_empty() {
                anyhow::bail!(
                    "--load-cpus is empty; name the load threads' CPUs, e.g. --load-cpus 1-3"
                );
            }
            let l = selection::cpus(topo, "--load-cpus", text)?;
            if l.contains(&chaser) {
                anyhow::bail!(
                    "--load-cpus {} includes the chaser CPU {chaser}; the chaser needs its CPU to itself, remove {chaser} from --load-cpus",
                    crate::parse::cpulist::excerpt(text.trim())
                );
            }
            l
        }
        (None, None) => pool.iter().copied().filter(|&c| c != chaser).collect(),
    };
    if load_cpus.is_empty() {
        anyhow::bail!(
            "no CPU is left for load threads besides the chaser CPU {chaser} (usable: {}); name other CPUs with --load-cpus or allow more CPUs",
            format_list(&pool)
        );
    }
    for &c in std::iter::once(&chaser).chain(&load_cpus) {
        match topo.cpu(c) {
            None => anyhow::bail!(
                "CPU {c} does not exist; this machine has CPUs {}",
                format_list(&topo.cpus.iter().map(|c| c.id).collect::<Vec<_>>())
            ),
            Some(cpu) if !cpu.online || !cpu.allowed => anyhow::bail!(
                "CPU {c} is offline or outside this process's allowed CPUs; choose from {}",
                format_list(&usable)
            ),
            Some(_) => {}
        }
    }
    Ok((chaser, load_cpus))
}
