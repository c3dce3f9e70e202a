//! The `inspect --json` contract: where a running process's memory lives (per node, per kind,
//! per mapping) and where its threads ran last. Plain serde types; reading procfs is
//! `crate::inspect`.

use serde::{Deserialize, Serialize};

use crate::results::traffic::NodeNumaStat;

/// Version of the `inspect --json` contract.
pub const INSPECT_SCHEMA_VERSION: u32 = 1;

/// Memory of the process on one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeMemory {
    pub node: u32,
    /// Pages counted in 4 KiB units (huge pages converted).
    pub pages: u64,
    pub bytes: u64,
}

/// Memory of one kind (heap, stack, anon, file, huge) per node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindMemory {
    pub kind: MappingKind,
    pub nodes: Vec<NodeMemory>,
    pub bytes: u64,
}

/// What `inspect` found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inspection {
    pub schema_version: u32,
    pub pid: u32,
    /// Process name (`Name:` of /proc/PID/status).
    pub name: String,
    /// Resident memory per node, all mappings.
    pub nodes: Vec<NodeMemory>,
    /// Per mapping kind.
    pub kinds: Vec<KindMemory>,
    /// Distinct memory policies seen in numa_maps with the bytes under each.
    pub policies: Vec<(String, u64)>,
    /// Every mapping with resident pages.
    pub mappings: Vec<MappingNodes>,
    /// Where each thread ran last.
    pub threads: Vec<ThreadPlace>,
    pub allowed_cpus: Vec<u32>,
    pub allowed_nodes: Vec<u32>,
    /// System-wide numastat counters per node (pages), at the time of inspection.
    pub numastat: Vec<NodeNumaStat>,
}

/// What a mapping holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    Heap,
    Stack,
    /// Anonymous memory (mmap, thread stacks, allocator arenas).
    Anon,
    /// File-backed (binaries, libraries, mapped files).
    File,
    /// hugetlbfs.
    Huge,
}

/// One mapping's resident pages per node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MappingNodes {
    /// Start address, hex as in numa_maps.
    pub address: String,
    /// Policy as the kernel prints it (`default`, `bind:2`, `interleave:0-2`, ...).
    pub policy: String,
    pub kind: MappingKind,
    /// File path for file mappings.
    pub file: Option<String>,
    /// (node, pages) in units of `page_kib`.
    pub nodes: Vec<(u32, u64)>,
    /// Page size of the counts, KiB.
    pub page_kib: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadPlace {
    pub tid: u32,
    /// Thread name (comm).
    pub name: String,
    /// CPU the thread last ran on.
    pub cpu: Option<u32>,
    pub node: Option<u32>,
    /// Scheduler state letter (R running, S sleeping, ...).
    pub state: String,
}

/// Version of the `inspect --system --json` contract.
pub const SYSTEM_MEMORY_SCHEMA_VERSION: u32 = 1;

/// The unit of a per-node meminfo value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeminfoUnit {
    /// Bytes (the file says kB; converted, 1 kB = 1024 bytes).
    Bytes,
    /// A count of default-size huge pages (`HugePages_Total`, `_Free`, `_Surp`).
    HugePages,
}

/// One line of the per-node meminfo files, for every node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeminfoField {
    /// The kernel's name (`MemTotal`, `Active(file)`, `HugePages_Free`, ...).
    pub name: String,
    pub unit: MeminfoUnit,
    /// One value per node, in the order of [`SystemMemory::nodes`]; 0 where a node's file
    /// lacks the line.
    pub values: Vec<u64>,
    /// The sum over the nodes.
    pub total: u64,
}

/// `inspect --system`: the system's memory per NUMA node as the kernel counts it in
/// `/sys/devices/system/node/nodeN/meminfo` (what `numastat -m` shows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMemory {
    pub schema_version: u32,
    /// The nodes, in column order.
    pub nodes: Vec<u32>,
    /// Size of a default huge page (`Hugepagesize` of /proc/meminfo), bytes; `None` when
    /// unknown. Multiplies the `huge_pages` counts into bytes.
    pub huge_page_bytes: Option<u64>,
    /// Every meminfo line, in the kernel's order.
    pub fields: Vec<MeminfoField>,
}
