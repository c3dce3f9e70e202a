//! `inspect PID|NAME...`: where a running process's memory lives and where its threads run,
//! from procfs (`numa_maps`, `task/*/stat`, `status`) plus the system's numastat counters; and
//! `inspect --system`, the machine's memory per node (`numastat -m`). It only reads; it never
//! changes the process.

mod numa_maps;
mod system;
mod targets;
mod tasks;

pub use numa_maps::parse_numa_maps;
pub use system::{parse_node_meminfo, read_system_memory};
pub use targets::{match_name, resolve as resolve_targets};
pub use tasks::parse_stat_processor;

use crate::parse::cpulist::parse_list;
use crate::results::inspect::{
    Inspection, KindMemory, MappingKind, MappingNodes, NodeMemory, INSPECT_SCHEMA_VERSION,
};
use crate::results::topology::Topology;
use crate::sysroot::{SysError, SysRoot};
use crate::traffic::numastat::read_numastat;

/// Errors of inspect: the process is gone or unreadable, or procfs is malformed.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error("there is no process {0}; check the PID with `ps`")]
    NoSuchProcess(u32),
    /// A snapshot holds no processes to inspect.
    #[error("there is no process {pid} in the snapshot {root}: a capture holds no processes; drop --sysfs-root to inspect a running one (`inspect --system` reads a snapshot)")]
    NotInSnapshot { pid: u32, root: String },
    /// Permission denied: the environment refuses (exit status 3).
    #[error("{0}")]
    NotReadable(#[source] crate::error::Marked),
    /// A name or PID on the command line that fits no process, or several.
    #[error("{0}")]
    BadTarget(String),
    #[error(transparent)]
    Sys(#[from] SysError),
}

/// Inspects process `pid`.
pub fn inspect(root: &SysRoot, topo: &Topology, pid: u32) -> Result<Inspection, InspectError> {
    let base = format!("proc/{pid}");
    if !root.exists(&base) {
        if !root.is_live() {
            return Err(InspectError::NotInSnapshot {
                pid,
                root: root.root().display().to_string(),
            });
        }
        return Err(InspectError::NoSuchProcess(pid));
    }
    let maps_text = read_numa_maps(root, &base, pid)?;
    let mappings: Vec<MappingNodes> = parse_numa_maps(&maps_text)
        .into_iter()
        .filter(|m| m.total_pages() > 0)
        .collect();
    let (name, allowed_cpus, allowed_nodes) = read_status(root, &base, pid)?;
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

/// The process's numa_maps text; a permission refusal and a vanished process are told apart.
fn read_numa_maps(root: &SysRoot, base: &str, pid: u32) -> Result<String, InspectError> {
    match root.read(format!("{base}/numa_maps")) {
        Ok(t) => Ok(t),
        Err(SysError::Read { source, .. })
            if source.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            Err(InspectError::NotReadable(crate::error::Marked::new(
                crate::error::Kind::Environment,
                format!("cannot read /proc/{pid}/numa_maps: permission denied; run as the process's owner or root"),
            )))
        }
        Err(SysError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Err(InspectError::NoSuchProcess(pid))
        }
        Err(e) => Err(e.into()),
    }
}

/// The process's name and the CPUs and memory nodes it is allowed (from its status file).
fn read_status(
    root: &SysRoot,
    base: &str,
    pid: u32,
) -> Result<(String, Vec<u32>, Vec<u32>), InspectError> {
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
    Ok((name, allowed_cpus, allowed_nodes))
}
