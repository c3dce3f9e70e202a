//! What a measurement did to the NUMA counters, as results carry it: per-node numastat deltas
//! and whether hardware node events were available (with their counts). Plain serde types;
//! reading the counters is `crate::traffic::numastat`, `crate::traffic::perf` and `crate::traffic`.

use serde::{Deserialize, Serialize};

/// NUMA counters around one measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NumaTraffic {
    /// Per-node numastat deltas (pages; allocation events, not traffic), ascending node.
    /// Empty when the counters could not be read (see `numastat_note`).
    pub numastat_delta: Vec<NodeNumaStat>,
    /// Why numastat is missing, when it is.
    pub numastat_note: Option<String>,
    /// Hardware node events: availability checked on the measuring process.
    pub perf: PerfAvailability,
}

/// One node's counters (pages).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeNumaStat {
    pub node: u32,
    pub numa_hit: u64,
    pub numa_miss: u64,
    pub numa_foreign: u64,
    pub interleave_hit: u64,
    pub local_node: u64,
    pub other_node: u64,
}

/// Whether the node events can be counted here, stated in every result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerfAvailability {
    /// The events asked for.
    pub events: String,
    pub available: bool,
    /// "available", or "not available: " and the reason.
    pub detail: String,
}

/// Node-read counts of one thread over one measurement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeEventCounts {
    /// Reads that reached a memory node (PERF_COUNT_HW_CACHE_NODE, read, access).
    pub node_reads: u64,
    /// Of those, reads served by a remote node (read, miss).
    pub node_read_misses: u64,
}
