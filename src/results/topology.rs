//! The topology data model: plain serde types that are the JSON contract of `topo --json`
//! (schema_version 1, documented field by field in `docs/schema/topology.md`) and the input of
//! every measurement planner. Reading fills them (see the sibling modules); rendering reads
//! them; nothing here touches the file system.

use serde::{Deserialize, Serialize};

use crate::results::environment::Environment;

/// Version of the topology JSON contract. Bump on any incompatible change.
pub const TOPOLOGY_SCHEMA_VERSION: u32 = 1;

/// The whole machine as numascope sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    pub schema_version: u32,
    /// True when read from the running machine; false for a replayed snapshot.
    pub live: bool,
    /// The root that was read (`/` when live).
    pub source: String,
    /// NUMA nodes in ascending id order. Ids can be sparse.
    pub nodes: Vec<Node>,
    /// SLIT distances: `distances[i][j]` is from `nodes[i]` to `nodes[j]` (10 = local).
    /// Empty when the kernel gives none.
    pub distances: Vec<Vec<u32>>,
    /// Every CPU the kernel knows (present), online or not, in ascending id order.
    pub cpus: Vec<Cpu>,
    /// Cache instances, one entry per physical instance (shared caches appear once).
    pub caches: Vec<Cache>,
    /// HMAT access attributes per target node, firmware-declared. Empty when absent.
    pub hmat: Vec<HmatTarget>,
    /// Memory-side caches declared by HMAT, per node. Empty when absent.
    pub memory_side_caches: Vec<MemorySideCache>,
    /// CPUs this process may run on (`Cpus_allowed_list` of /proc/self/status).
    pub allowed_cpus: Vec<u32>,
    /// Nodes this process may allocate on (`Mems_allowed_list` of /proc/self/status).
    pub allowed_nodes: Vec<u32>,
    pub environment: Environment,
    /// What could not be read or did not add up, one sentence each naming the file: an
    /// optional file missing or malformed (the field it feeds is left unknown) or values that
    /// contradict each other (a node listing CPUs that are not present, MemFree above
    /// MemTotal). Absent from the JSON when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What kind of memory each node holds, the kernel's memory tiers, nodes per package and
    /// L3 domains: facts derived from the files above and a few more. Written as
    /// top-level fields of the JSON; absent from an older file, where they read as unknown.
    #[serde(flatten, default)]
    pub layout: Layout,
}

/// How a fact was known: written by the kernel or a driver, inferred by numascope from other
/// facts (the evidence says which), or not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Known {
    Declared,
    Inferred,
    Unknown,
}

impl Known {
    /// The word shown to a reader.
    pub fn word(self) -> &'static str {
        match self {
            Known::Declared => "declared",
            Known::Inferred => "inferred",
            Known::Unknown => "unknown",
        }
    }
}

/// The kind of memory a node holds (hwloc's NUMA node subtypes name the same kinds: DRAM,
/// CXL-DRAM, HBM, GPUMemory, SPM).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    /// Ordinary memory attached to the CPUs' memory controllers.
    Dram,
    /// Memory attached over CXL.
    Cxl,
    /// High-bandwidth memory.
    Hbm,
    /// Memory owned by a GPU or accelerator.
    Gpu,
    /// Specific-purpose memory the firmware set aside (EFI_MEMORY_SP) without saying more.
    Spm,
    /// Persistent memory (an NVDIMM region) onlined as system memory.
    Nvm,
    /// Not known; also what a kind written by a newer numascope reads as.
    #[serde(other)]
    Unknown,
}

impl MemoryKind {
    /// The word shown to a reader.
    pub fn word(self) -> &'static str {
        match self {
            MemoryKind::Dram => "DRAM",
            MemoryKind::Cxl => "CXL",
            MemoryKind::Hbm => "HBM",
            MemoryKind::Gpu => "GPU memory",
            MemoryKind::Spm => "specific-purpose",
            MemoryKind::Nvm => "persistent (NVDIMM)",
            MemoryKind::Unknown => "unknown",
        }
    }
}

/// The memory kind and tier of one node with memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeMemory {
    pub node: u32,
    pub kind: MemoryKind,
    /// How the kind was known.
    pub known: Known,
    /// One sentence: the file or the facts the kind comes from.
    pub evidence: String,
    /// The kernel's memory tier (`memory_tierN` of /sys/devices/virtual/memory_tiering), a
    /// lower number being faster memory; `None` when the kernel has no tiers.
    pub tier: Option<u32>,
}

/// Nodes per package, as AMD's NPS and Intel's SNC settings divide a socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodesPerPackage {
    /// `NPS0` (one node for the whole machine), `one node per package`, `NPS2`/`SNC2`,
    /// `NPS4`/`SNC4`, `SNC3`, or `N nodes per package`.
    pub mode: String,
    /// Nodes with CPUs per package (0 for NPS0, where one node spans packages).
    pub nodes_per_package: u32,
    pub packages: u32,
    pub known: Known,
    /// The facts it was inferred from: packages, nodes and distances.
    pub evidence: String,
}

/// One L3 domain: the CPUs sharing one L3 instance (a CCX or CCD on AMD, a die on Intel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct L3Domain {
    /// The nodes its CPUs are in (more than one: the L3 spans nodes).
    pub nodes: Vec<u32>,
    pub cpus: Vec<u32>,
    pub size_bytes: u64,
}

/// Derived layout facts of a [`Topology`]; every field empty or `None` when unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// One entry per node with memory, in node order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_memory: Vec<NodeMemory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes_per_package: Option<NodesPerPackage>,
    /// L3 instances by first CPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub l3_domains: Vec<L3Domain>,
    /// Sentences about how L3s and nodes line up when they do not nest simply (an L3 spanning
    /// nodes, a node with several L3s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub l3_notes: Vec<String>,
}

/// One NUMA node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub id: u32,
    /// CPUs of this node (online or not), ascending.
    pub cpus: Vec<u32>,
    /// MemTotal of the node, bytes.
    pub memory_total_bytes: u64,
    /// MemFree of the node, bytes (a live figure: differs between runs).
    pub memory_free_bytes: u64,
    /// Memory that can be had without swapping, bytes: MemAvailable for a non-NUMA kernel,
    /// else MemFree + half the file page cache + half the reclaimable slab (an estimate;
    /// numascope sizes and refuses buffers against it). A live figure.
    #[serde(default)]
    pub memory_available_bytes: u64,
    /// The node has at least one CPU (kernel `has_cpu` mask).
    pub has_cpu: bool,
    /// The node has memory (kernel `has_memory` / `has_normal_memory` masks, or MemTotal > 0).
    pub has_memory: bool,
    /// Huge page pools of this node, one per supported size.
    pub hugepages: Vec<HugePages>,
}

/// One huge page pool of one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HugePages {
    /// Page size in bytes (2 MiB = 2097152, 1 GiB = 1073741824).
    pub page_size_bytes: u64,
    /// Pages reserved (nr_hugepages).
    pub total: u64,
    /// Pages free.
    pub free: u64,
}

/// One logical CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    pub id: u32,
    /// Node of this CPU; `None` if no node lists it.
    pub node: Option<u32>,
    /// physical_package_id; `None` when offline or absent.
    pub package: Option<u32>,
    /// core_id (unique within a package); `None` when offline or absent.
    pub core: Option<u32>,
    /// SMT siblings including this CPU (thread_siblings_list), ascending.
    pub siblings: Vec<u32>,
    pub online: bool,
    /// In this process's allowed set.
    pub allowed: bool,
}

/// One cache instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`, as the kernel writes it.
    #[serde(rename = "type")]
    pub kind: String,
    pub size_bytes: u64,
    pub line_bytes: Option<u64>,
    /// Ways of associativity; `None` when the kernel does not say.
    pub ways: Option<u32>,
    /// CPUs sharing this instance (shared_cpu_list), ascending.
    pub cpus: Vec<u32>,
}

/// HMAT attributes of one memory (target) node for one access class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HmatTarget {
    pub node: u32,
    /// Access class: 0 = any initiator (`access0`), 1 = CPU initiators only (`access1`).
    pub access_class: u32,
    /// Initiator nodes the figures apply to (the best-performing initiators).
    pub initiators: Vec<u32>,
    /// Firmware-declared, nanoseconds.
    pub read_latency_ns: Option<u64>,
    pub write_latency_ns: Option<u64>,
    /// Firmware-declared, MB/s as the kernel reports it.
    pub read_bandwidth_mb_s: Option<u64>,
    pub write_bandwidth_mb_s: Option<u64>,
}

/// A memory-side cache level declared for a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemorySideCache {
    pub node: u32,
    pub level: u32,
    pub size_bytes: u64,
    pub line_bytes: Option<u64>,
    /// `indexing` as the kernel gives it (0 direct-mapped... see kernel docs).
    pub indexing: Option<u64>,
    pub write_policy: Option<u64>,
}

impl Topology {
    /// The node with this id.
    pub fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The CPU with this id.
    pub fn cpu(&self, id: u32) -> Option<&Cpu> {
        self.cpus.iter().find(|c| c.id == id)
    }

    /// Node ids in order.
    pub fn node_ids(&self) -> Vec<u32> {
        self.nodes.iter().map(|n| n.id).collect()
    }

    /// SLIT distance between two nodes, if known.
    pub fn distance(&self, from: u32, to: u32) -> Option<u32> {
        let i = self.nodes.iter().position(|n| n.id == from)?;
        let j = self.nodes.iter().position(|n| n.id == to)?;
        self.distances.get(i)?.get(j).copied()
    }

    /// CPUs that are online and allowed, ascending: the ones a measurement may use.
    pub fn usable_cpus(&self) -> Vec<u32> {
        self.cpus
            .iter()
            .filter(|c| c.online && c.allowed)
            .map(|c| c.id)
            .collect()
    }

    /// Usable CPUs of one node.
    pub fn usable_cpus_of(&self, node: u32) -> Vec<u32> {
        self.cpus
            .iter()
            .filter(|c| c.online && c.allowed && c.node == Some(node))
            .map(|c| c.id)
            .collect()
    }

    /// Initiator nodes: nodes with at least one usable CPU.
    pub fn initiator_nodes(&self) -> Vec<u32> {
        self.nodes
            .iter()
            .filter(|n| !self.usable_cpus_of(n.id).is_empty())
            .map(|n| n.id)
            .collect()
    }

    /// Target nodes: allowed nodes with memory (memory-only nodes included).
    pub fn memory_nodes(&self) -> Vec<u32> {
        self.nodes
            .iter()
            .filter(|n| n.has_memory && self.allowed_nodes.contains(&n.id))
            .map(|n| n.id)
            .collect()
    }

    /// The cache line size: the L1 data cache's, else any cache's, else 64.
    pub fn line_bytes(&self) -> u64 {
        self.caches
            .iter()
            .filter(|c| c.level == 1 && c.kind != "Instruction")
            .chain(self.caches.iter())
            .find_map(|c| c.line_bytes)
            .filter(|&l| l.is_power_of_two() && l >= 16)
            .unwrap_or(64)
    }

    /// Memory this process can have on `node`: the node's available memory, capped by what
    /// the tightest limit on this process (cgroup, RLIMIT_AS) leaves. Every default size is
    /// planned from this, so defaults shrink to fit a container.
    pub fn available_on(&self, node: &Node) -> u64 {
        match self.environment.tightest_memory_limit() {
            Some(l) => node.memory_available_bytes.min(l.left_bytes()),
            None => node.memory_available_bytes,
        }
    }

    /// Memory this process can have over `nodes` together: their available memory, capped by
    /// what the tightest limit on this process leaves.
    pub fn available_over(&self, nodes: &[u32]) -> u64 {
        let sum: u64 = nodes
            .iter()
            .filter_map(|&n| self.node(n))
            .map(|n| n.memory_available_bytes)
            .sum();
        match self.environment.tightest_memory_limit() {
            Some(l) => sum.min(l.left_bytes()),
            None => sum,
        }
    }

    /// Total size of all last-level cache instances, bytes (0 when unknown).
    pub fn llc_total_bytes(&self) -> u64 {
        let max_level = self
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .map(|c| c.level)
            .max();
        match max_level {
            None => 0,
            Some(l) => self
                .caches
                .iter()
                .filter(|c| c.level == l && c.kind != "Instruction")
                .map(|c| c.size_bytes)
                .sum(),
        }
    }

    /// Data/unified cache sizes per level as seen by one CPU, ascending level.
    pub fn cache_sizes_for_cpu(&self, cpu: u32) -> Vec<(u32, u64)> {
        let mut v: Vec<(u32, u64)> = self
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction" && c.cpus.contains(&cpu))
            .map(|c| (c.level, c.size_bytes))
            .collect();
        v.sort_unstable();
        v
    }

    /// The node holding a CPU.
    pub fn node_of_cpu(&self, cpu: u32) -> Option<u32> {
        self.cpu(cpu).and_then(|c| c.node)
    }

    /// Firmware-declared HMAT figures for `initiator` -> `target` (access class 0 preferred).
    pub fn hmat_for(&self, initiator: u32, target: u32) -> Option<&HmatTarget> {
        let mut m: Vec<&HmatTarget> = self
            .hmat
            .iter()
            .filter(|h| h.node == target && h.initiators.contains(&initiator))
            .collect();
        m.sort_by_key(|h| h.access_class);
        m.into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::MemoryKind;

    #[test]
    fn a_memory_kind_from_a_newer_file_reads_as_unknown() {
        let k: MemoryKind = serde_json::from_str("\"hbm3e-stacked\"").unwrap();
        assert_eq!(k, MemoryKind::Unknown);
        let k: MemoryKind = serde_json::from_str("\"nvm\"").unwrap();
        assert_eq!(k, MemoryKind::Nvm);
    }
}
