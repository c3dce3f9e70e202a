//! `inspect PID`: where a running process's memory lives and where its threads run, from
//! procfs (`numa_maps`, `task/*/stat`, `status`) plus the system's numastat counters. It only
//! reads; it never changes the process.

mod numa_maps;
mod tasks;

pub use numa_maps::{parse_numa_maps, MappingKind, MappingNodes};
pub use tasks::{parse_stat_processor, ThreadPlace};

use crate::counters::read_numastat;
use crate::parse::cpulist::parse_list;
use crate::sysroot::{SysError, SysRoot};
use crate::topology::Topology;

pub use crate::results::inspect::{Inspection, KindMemory, NodeMemory, INSPECT_SCHEMA_VERSION};

/// Errors of inspect: the process is gone or unreadable, or procfs is malformed.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error("there is no process {0}; check the PID with `ps`")]
    NoSuchProcess(u32),
    #[error(
        "cannot read /proc/{0}/numa_maps: permission denied; run as the process's owner or root"
    )]
    NotReadable(u32),
    #[error(transparent)]
    Sys(#[from] SysError),
}

/// Inspects process `pid`.
pub fn inspect(root: &SysRoot, topo: &Topology, pid: u32) -> Result<Inspection, InspectError> {
    let base = format!("proc/{pid}");
    if !root.exists(&base) {
        return Err(InspectError::NoSuchProcess(pid));
    }
    let maps_text = match root.read(format!("{base}/numa_maps")) {
        Ok(t) => t,
        Err(SysError::Read { source, .. })
            if source.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            return Err(InspectError::NotReadable(pid))
        }
        Err(SysError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(InspectError::NoSuchProcess(pid))
        }
        Err(e) => return Err(e.into()),
    };
    let mappings: Vec<MappingNodes> = parse_numa_maps(&maps_text)
        .into_iter()
        .filter(|m| m.total_pages() > 0)
        .collect();
    let status = root
        .read(format!("{base}/status"))
        .map_err(|_| InspectError::NoSuchProcess(pid))?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let name = field("Name:").unwrap_or_default();
    let allowed_cpus = field("Cpus_allowed_list:")
        .and_then(|v| parse_list(&v).ok())
        .unwrap_or_default();
    let allowed_nodes = field("Mems_allowed_list:")
        .and_then(|v| parse_list(&v).ok())
        .unwrap_or_default();
    let threads = tasks::read_threads(root, topo, pid)?;

    let mut per_node: std::collections::BTreeMap<u32, u64> = Default::default();
    let mut per_kind: std::collections::BTreeMap<
        MappingKind,
        std::collections::BTreeMap<u32, u64>,
    > = Default::default();
    let mut policies: std::collections::BTreeMap<String, u64> = Default::default();
    for m in &mappings {
        for (node, pages4k) in m.pages_4k() {
            *per_node.entry(node).or_default() += pages4k;
            *per_kind.entry(m.kind).or_default().entry(node).or_default() += pages4k;
        }
        *policies.entry(m.policy.clone()).or_default() += m.total_pages_4k() * 4096;
    }
    let to_nodes = |m: &std::collections::BTreeMap<u32, u64>| -> Vec<NodeMemory> {
        m.iter()
            .map(|(&node, &pages)| NodeMemory {
                node,
                pages,
                bytes: pages * 4096,
            })
            .collect()
    };
    Ok(Inspection {
        schema_version: INSPECT_SCHEMA_VERSION,
        pid,
        name,
        nodes: to_nodes(&per_node),
        kinds: per_kind
            .iter()
            .map(|(&kind, m)| KindMemory {
                kind,
                bytes: m.values().sum::<u64>() * 4096,
                nodes: to_nodes(m),
            })
            .collect(),
        policies: policies.into_iter().collect(),
        mappings,
        threads,
        allowed_cpus,
        allowed_nodes,
        numastat: read_numastat(root)?,
    })
}
