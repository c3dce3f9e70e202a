//! The weighted-interleave advice: proposed per-node weights for an initiator node's threads,
//! derived from the measured bandwidth matrix, and their check by measurement against plain
//! interleave and bind, measured side by side in interleaved rounds and decided by the paired
//! ratios' intervals. Derivation is `crate::run::advisor`.

use serde::{Deserialize, Serialize};

/// One verified policy of the advice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyCheck {
    /// `bind to node 0`, `interleave 0,1`, `weighted 0:4,1:1`.
    pub policy: String,
    pub numactl: String,
    /// Total bandwidth of the initiator's threads, median MB/s; `None` when not measured.
    pub mb_per_s: Option<f64>,
    /// Why it was not measured.
    pub unavailable: Option<String>,
    /// Total MB/s of each interleaved round (the checks are measured A B C A B C ..., so round
    /// i of two checks forms a pair); empty in files written before rounds existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds_mb_per_s: Vec<f64>,
    /// Summary of the rounds, with the interval for the median (`mb_per_s` is its median).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mb_per_s_summary: Option<crate::stats::Summary>,
    /// How many repetitions of its interleaved rounds were taken, discarded (a thread got
    /// less than 90 % of its CPU, or steal) and kept, all rounds together; absent for an
    /// unpinned thread and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
    /// Base pages of the threads' buffers per node, as move_pages found them when they were
    /// last placed (ascending node id); empty when not measured and in older files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_per_node: Vec<crate::results::placement::NodePages>,
}

/// The advice of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    /// The initiator node whose threads the weights are for.
    pub initiator_node: u32,
    /// Bandwidth from the initiator to each memory node, MB/s, as measured (the inputs).
    pub measured_mb_per_s: Vec<(u32, f64)>,
    /// Proposed weights, (node, weight), small integers; empty when there is nothing to weigh.
    pub weights: Vec<(u32, u8)>,
    /// The measured checks: bind to the best node, plain interleave, weighted interleave.
    pub checks: Vec<PolicyCheck>,
    /// How to apply the weights: shell lines (`echo 4 > /sys/.../node0`, `numactl ...`).
    pub apply: Vec<String>,
    /// The conclusion in words (or why there is nothing to weigh).
    pub summary: String,
}
