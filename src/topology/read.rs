//! Assembles a whole [`Topology`] from a [`SysRoot`]: nodes, CPUs, caches, distances, HMAT,
//! allowed sets and the environment, each read by its own module. This is the one entry point
//! the command line and the planners call. Only the CPU and node structure is required; what
//! an optional file would have added is left unknown with a warning in `Topology::warnings`.

use crate::environment::read_environment_warn;
use crate::results::topology::{Cpu, Node, Topology, TOPOLOGY_SCHEMA_VERSION};
use crate::sysroot::{SysError, SysRoot};
use crate::topology::allowed::read_allowed;
use crate::topology::caches::read_caches;
use crate::topology::cpus::{present_cpus, read_cpus};
use crate::topology::distances::read_distances;
use crate::topology::domains::layout;
use crate::topology::files::degrade;
use crate::topology::hmat::{read_hmat, read_memory_side_caches};
use crate::topology::kinds::read_node_memory;
use crate::topology::nodes::{read_nodes, single_node};

/// Why a topology could not be read: always names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error(transparent)]
    Sys(#[from] SysError),
}

/// Reads the machine's topology (live or a snapshot) through `root`.
pub fn read_topology(root: &SysRoot) -> Result<Topology, TopologyError> {
    // An hwloc XML root was read into memory when it was opened (topology/xml).
    if let Some(t) = root.model() {
        return Ok(t.clone());
    }
    let mut warnings = Vec::new();
    let present = present_cpus(root)?;
    let nodes = match read_nodes(root, &present, &mut warnings)? {
        Some(n) => n,
        None => vec![single_node(root, &present, &mut warnings)?],
    };
    let mut nodes = nodes;
    let mut cpus = read_cpus(root, &present, &nodes, &mut warnings)?;
    restore_offline_cpus(&mut nodes, &cpus);
    let w = &mut warnings;
    let caches = read_caches(root, &cpus, w);
    let caches = degrade(root, caches, w, "the caches are unknown")?.unwrap_or_default();
    let distances = read_distances(root, &nodes);
    let distances =
        degrade(root, distances, w, "the node distances are unknown")?.unwrap_or_default();
    let hmat = read_hmat(root, &nodes);
    let mut hmat = degrade(root, hmat, w, "the HMAT figures are unknown")?.unwrap_or_default();
    crate::topology::domain::check_hmat(&mut hmat, w);
    let memory_side_caches = read_memory_side_caches(root, &nodes);
    let memory_side_caches = degrade(
        root,
        memory_side_caches,
        w,
        "the memory-side caches are unknown",
    )?
    .unwrap_or_default();
    let (allowed_cpus, allowed_nodes) = allowed_sets(root, &present, &nodes, &mut cpus, w)?;
    let environment = read_environment_warn(root, &cpus, &mut warnings)?;
    let node_memory = read_node_memory(root, &nodes, &hmat, &mut warnings)?;
    // The memory tiers are read by both (a malformed nodelist would be named twice).
    let mut seen = std::collections::HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    let model = environment.cpu_model.as_deref();
    let layout = layout(&nodes, &cpus, &caches, &distances, model, node_memory);
    Ok(Topology {
        schema_version: TOPOLOGY_SCHEMA_VERSION,
        live: root.is_live(),
        source: root.root().display().to_string(),
        nodes,
        distances,
        cpus,
        caches,
        hmat,
        memory_side_caches,
        allowed_cpus,
        allowed_nodes,
        environment,
        warnings,
        layout,
    })
}

/// The kernel drops an offline CPU from its node's cpulist but keeps the `cpuN/nodeM`
/// link, which read_cpus falls back to: put such CPUs back in their node's list, so a
/// node's CPUs are "online or not" as the model promises (seen in the QEMU guest B).
fn restore_offline_cpus(nodes: &mut [Node], cpus: &[Cpu]) {
    for c in cpus {
        if let Some(n) = c.node {
            if let Some(node) = nodes.iter_mut().find(|x| x.id == n) {
                if !node.cpus.contains(&c.id) {
                    node.cpus.push(c.id);
                    node.cpus.sort_unstable();
                }
            }
        }
    }
}

/// The CPUs and nodes this process may use (every present CPU and node where unknown),
/// marking each CPU's `allowed` flag.
fn allowed_sets(
    root: &SysRoot,
    present: &[u32],
    nodes: &[Node],
    cpus: &mut [Cpu],
    w: &mut Vec<String>,
) -> Result<(Vec<u32>, Vec<u32>), TopologyError> {
    let allowed = read_allowed(root);
    let allowed = degrade(
        root,
        allowed,
        w,
        "every present CPU and every node is taken as allowed",
    )?
    .unwrap_or_default();
    let allowed_cpus: Vec<u32> = allowed
        .cpus
        .map(|a| a.into_iter().filter(|c| present.contains(c)).collect())
        .unwrap_or_else(|| present.to_vec());
    let allowed_nodes: Vec<u32> = allowed
        .nodes
        .map(|a| {
            a.into_iter()
                .filter(|n| nodes.iter().any(|x| x.id == *n))
                .collect()
        })
        .unwrap_or_else(|| nodes.iter().map(|n| n.id).collect());
    for c in cpus.iter_mut() {
        c.allowed = allowed_cpus.contains(&c.id);
    }
    Ok((allowed_cpus, allowed_nodes))
}
