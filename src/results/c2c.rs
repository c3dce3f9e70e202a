//! The result of `numascope c2c`: a versioned serde contract (schema_version 1). Every field
//! carries its unit in its name; the JSON output is exactly this struct.

use serde::{Deserialize, Serialize};

use crate::results::environment::Environment;
use crate::results::placement::PlacementReport;
use crate::results::traffic::NumaTraffic;
use crate::stats::Summary;

/// Version of the c2c JSON contract. Bump on any incompatible change.
pub const C2C_SCHEMA_VERSION: u32 = 1;

/// How every pair was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct C2cPlan {
    /// Round trips timed together as one sample.
    pub round_trips_per_sample: u64,
    /// Repetitions kept per pair; each runs `repetition_ms` of samples.
    pub repetitions: usize,
    /// Repetitions run first and dropped per pair.
    pub warmup_repetitions: usize,
    pub repetition_ms: u64,
    /// How one-way times are derived.
    pub method: String,
    /// Blocks each pair was measured in, in rounds over all pairs: each block is one
    /// kept repetition of `repetition_ms` (so `repetitions` equals it), its first fifth a
    /// warm-up whose batches are dropped. Absent in files written before blocks, whose pairs
    /// were measured once, back to back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_per_pair: Option<usize>,
}

/// One ordered pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// CPU of the ping thread (the one that times).
    pub from: u32,
    /// CPU of the pong thread.
    pub to: u32,
    pub relation: Relation,
    /// One-way ns, the headline is its median. With `blocks`: the summary of the block
    /// medians (`samples` = blocks with a median), so the interval is the variation between
    /// blocks spread over the part; in older files: over all kept samples.
    pub ns_one_way: Summary,
    /// One-way ns over every kept sample of every block (the tail: p90, p99); absent in files
    /// written before blocks, where `ns_one_way` is that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_one_way_all_samples: Option<Summary>,
    /// Each block of this pair in the order measured: when it started and its median.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockMedian>,
    /// Set when the block medians fall into two separated groups: the vCPUs (or threads) moved
    /// between host cores while the pair was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unstable: Option<Unstable>,
    /// Lowest CPU time / wall time of either thread in a kept repetition (1 = ran all along);
    /// the same as `quality.lowest_kept_cpu_share_fraction`, kept for older readers.
    pub cpu_share: Option<f64>,
    /// How many repetitions of this pair were taken, discarded (either thread below 90 % of
    /// its CPU, or steal) and kept; absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
    /// Set when this pair gave no sample with the plan's batches and repetitions (a busy
    /// machine, an emulated guest) and was measured with smaller batches in longer
    /// repetitions: the batch and repetition that gave its samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience: Option<Patience>,
}

/// One block of a pair: one team repetition, measured in its round.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockMedian {
    /// When the block started, milliseconds after the first block of the experiment.
    pub start_offset_ms: f64,
    /// Median one-way ns of the block's samples; null when the block completed no batch.
    pub ns_one_way_median: Option<f64>,
    /// Samples (timed batches) in the block after its warm-up.
    pub samples: usize,
    /// Its repetition stayed disturbed after its retake (a thread short of CPU, or steal);
    /// such blocks count in the figure but not in the two-group test of `unstable`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disturbed: bool,
}

/// Two separated groups of a pair's block medians (see `c2c::blocks::two_groups`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unstable {
    /// Median of the faster group's block medians, ns one way.
    pub low_ns_one_way: f64,
    /// Median of the slower group's block medians, ns one way.
    pub high_ns_one_way: f64,
    /// Blocks in the faster group.
    pub low_blocks: usize,
    /// Blocks in the slower group.
    pub high_blocks: usize,
}

/// The batch and repetition a pair needed instead of the plan's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Patience {
    pub round_trips_per_sample: u64,
    pub repetition_ms: u64,
}

/// The whole c2c result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct C2cResult {
    pub schema_version: u32,
    /// CPUs measured, ascending (matrix row and column order).
    pub cpus: Vec<u32>,
    /// Node the bounced line's page was bound to (its home node).
    pub line_node: u32,
    /// CPU that first touched the line's page (None: a memory-only node, touched by the
    /// calling thread under the bind policy).
    pub line_touched_on_cpu: Option<u32>,
    /// Verified placement of the line's page (move_pages).
    pub line_placement: PlacementReport,
    /// Fraction of the line's page on `line_node` (1.0 when placed as asked).
    pub placement_fraction: f64,
    pub plan: C2cPlan,
    pub sampling: Sampling,
    pub pairs: Vec<PairResult>,
    /// `matrix[i][j]`: median ns one way with ping on `cpus[i]`, pong on `cpus[j]`; null on the
    /// diagonal and for pairs not measured.
    pub matrix: Vec<Vec<Option<f64>>>,
    /// Pairs grouped by what their CPUs share, closest first.
    pub groups: Vec<Group>,
    /// The groups in one sentence.
    pub summary: String,
    pub traffic: NumaTraffic,
    pub environment: Environment,
    /// Conditions that make the figures doubtful, in words.
    pub warnings: Vec<String>,
}

/// Builds the matrix of medians from the pairs.
pub fn matrix_of(cpus: &[u32], pairs: &[PairResult]) -> Vec<Vec<Option<f64>>> {
    cpus.iter()
        .map(|&a| {
            cpus.iter()
                .map(|&b| {
                    pairs
                        .iter()
                        .find(|p| p.from == a && p.to == b)
                        .map(|p| p.ns_one_way.median)
                })
                .collect()
        })
        .collect()
}

/// The pair selection, stated in the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sampling {
    /// `all-pairs` or `each-cpu-against-sample`.
    pub strategy: String,
    /// The fixed partner CPUs (empty for all pairs).
    pub partners: Vec<u32>,
    /// Ordered pairs measured.
    pub pairs: usize,
    /// Ordered pairs of the chosen CPUs in total.
    pub possible_pairs: usize,
}

/// What two CPUs share, from closest to farthest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Relation {
    /// The same core (SMT siblings).
    SameCore,
    /// The smallest data/unified cache instance holding both CPUs has this level.
    SharedCache { level: u32 },
    /// No shared cache; same node and same package.
    SameNode,
    /// No shared cache; same package, different nodes (e.g. AMD NPS2/NPS4, Intel SNC).
    SamePackageOtherNode,
    /// Different packages, same node (a VM's node that spans sockets).
    SameNodeOtherPackage,
    /// Different packages and nodes, or different nodes with unknown packages.
    Remote,
}

/// One group of pairs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub relation: Relation,
    /// `relation` in words (`render::words::labels::relation`), kept for readers of the file.
    pub label: String,
    /// Ordered pairs in the group.
    pub pairs: usize,
    /// Summary over the group's per-pair medians, ns one way (the headline is its median).
    pub ns_one_way: Summary,
}
