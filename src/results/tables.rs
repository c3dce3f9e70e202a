//! The JSON contracts of the two node tables the seed articles print whole: the RightMark
//! table (`numascope rightmark`, seed 000/001: one thread on a CPU node, its 16 MB block on a
//! memory node; average and maximum read and write bandwidth, pseudo-random and random
//! latency) and LIKWID's per-stream placement matrix (`numascope bandwidth --stream-matrix`,
//! seed 002/003: copy's source stream on node i, its destination on node j). Both are
//! measured in interleaved rounds (every cell once per round, the order rotating), so each
//! figure is the median of its rounds with the order-statistic interval, and each ratio to the
//! row's local cell is the median of the paired per-round ratios with its interval. Rates are
//! MB/s (10^6 B/s), latencies ns per load. Plain serde types; nothing here measures or prints.

use serde::{Deserialize, Serialize};

use crate::results::environment::Environment;
use crate::results::quality::RepetitionQuality;
use crate::stats::Summary;

/// One figure measured once per round: its per-round values, their summary and how the
/// rounds went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundFigure {
    /// The value of each round, in round order (MB/s or ns per load, as the column says).
    pub rounds: Vec<f64>,
    /// Median over the rounds with its 95 % interval (none below 6 rounds); `None` when no
    /// round was measured.
    pub summary: Option<Summary>,
    /// This figure over the same figure of the row's local cell, the median of the paired
    /// per-round ratios; `None` for the local cell itself and for rows without a local cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to_local: Option<RatioToLocal>,
    /// Smallest fraction (0..=1) of the buffers' pages found on their intended nodes in any
    /// round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_fraction: Option<f64>,
    /// The repetition quality of all its rounds together (CPU share, steal, retakes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<RepetitionQuality>,
    /// The cache the working set fits in (bandwidth columns), when it fits in one: the figure
    /// is then the cache's, not DRAM's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_level: Option<String>,
    /// The first failure; the figure sat out the rounds after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl RoundFigure {
    /// An empty figure, before its first round.
    pub fn empty() -> RoundFigure {
        RoundFigure {
            rounds: vec![],
            summary: None,
            ratio_to_local: None,
            placement_fraction: None,
            quality: None,
            cache_level: None,
            error: None,
        }
    }

    /// True when its repetitions stayed disturbed after the retakes ran out.
    pub fn disturbed(&self) -> bool {
        self.quality.as_ref().is_some_and(|q| q.disturbed)
    }

    /// The median, when measured.
    pub fn median(&self) -> Option<f64> {
        self.summary.map(|s| s.median)
    }
}

/// A figure over its row's local figure, from paired rounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioToLocal {
    /// Median of the per-round ratios this / local.
    pub ratio: f64,
    /// The 95 % interval of that median (keys `ci_low`, `ci_high`, `ci_level`); absent
    /// below 6 pairs.
    #[serde(flatten)]
    pub ci: Option<crate::stats::Interval>,
    /// Rounds paired.
    pub pairs: usize,
}

impl RatioToLocal {
    /// `this` over `local` from their per-round values, round i with round i over the shorter
    /// prefix of both: the median of the per-round ratios with its order-statistic interval
    /// ([`crate::stats::paired_ratio`]); `None` without a usable pair.
    pub fn paired(local: &[f64], this: &[f64]) -> Option<Self> {
        let n = local.len().min(this.len());
        let r = crate::stats::paired_ratio(&local[..n], &this[..n], crate::stats::CONFIDENCE)?;
        Some(Self {
            ratio: r.ratio,
            ci: r.ci,
            pairs: r.samples,
        })
    }

    /// The same ratio as a [`crate::stats::RatioInterval`], to decide on it against a margin.
    pub fn interval(&self) -> crate::stats::RatioInterval {
        crate::stats::RatioInterval {
            ratio: self.ratio,
            ci: self.ci,
            samples: self.pairs,
            p_value: None,
        }
    }
}

/// A column of the RightMark table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RightmarkMetric {
    /// Average real read bandwidth: the `read` kernel, MB/s.
    Read,
    /// Average real write bandwidth: the `write` kernel, MB/s.
    Write,
    /// Maximum read bandwidth (software prefetch): the `read-prefetch` kernel, MB/s.
    ReadPrefetch,
    /// Maximum write bandwidth (non-temporal stores): the `write-nt` kernel, MB/s.
    WriteNt,
    /// Pseudo-random latency: the page-local chase (`--mode page`), ns per load.
    PseudoRandom,
    /// Random latency: the chase over the whole block (`--mode random`), ns per load.
    Random,
}

impl RightmarkMetric {
    /// The six columns in the article's order.
    pub const ALL: [RightmarkMetric; 6] = [
        RightmarkMetric::Read,
        RightmarkMetric::Write,
        RightmarkMetric::ReadPrefetch,
        RightmarkMetric::WriteNt,
        RightmarkMetric::PseudoRandom,
        RightmarkMetric::Random,
    ];

    /// The name in JSON and CSV (`read`, `read-prefetch`, `pseudo-random`, ...).
    pub fn name(self) -> &'static str {
        match self {
            RightmarkMetric::Read => "read",
            RightmarkMetric::Write => "write",
            RightmarkMetric::ReadPrefetch => "read-prefetch",
            RightmarkMetric::WriteNt => "write-nt",
            RightmarkMetric::PseudoRandom => "pseudo-random",
            RightmarkMetric::Random => "random",
        }
    }

    /// The article's wording of the column.
    pub fn label(self) -> &'static str {
        match self {
            RightmarkMetric::Read => "average read",
            RightmarkMetric::Write => "average write",
            RightmarkMetric::ReadPrefetch => "max read (prefetch)",
            RightmarkMetric::WriteNt => "max write (non-temporal)",
            RightmarkMetric::PseudoRandom => "pseudo-random latency",
            RightmarkMetric::Random => "random latency",
        }
    }

    /// `MB/s` or `ns`.
    pub fn unit(self) -> &'static str {
        if self.is_latency() {
            "ns"
        } else {
            "MB/s"
        }
    }

    /// True for the two latency columns (lower is better).
    pub fn is_latency(self) -> bool {
        matches!(
            self,
            RightmarkMetric::PseudoRandom | RightmarkMetric::Random
        )
    }
}

/// What `numascope rightmark` measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RightmarkReport {
    /// Size of the block each figure walks or streams, bytes (the article's 16 MB block:
    /// 16 MiB).
    pub block_bytes: u64,
    /// Page backing of every block: `4k`, `thp`, `2m` or `1g`.
    pub page_size: String,
    /// Rounds planned; a cell measured in fewer (a failure, Ctrl-C) has fewer values.
    pub rounds: usize,
    /// Length of one timed bandwidth repetition, milliseconds (one warm-up repetition before
    /// it in every round).
    pub bandwidth_repetition_ms: u64,
    /// Latency samples kept per round (their median is the round's value) and the minimum
    /// length of one, nanoseconds.
    pub latency_samples_per_round: usize,
    pub latency_min_sample_ns: u64,
    /// The columns measured, in table order.
    pub metrics: Vec<RightmarkMetric>,
    /// One row per (CPU node, memory node), CPU node major.
    pub cells: Vec<RightmarkCell>,
    /// `/proc/sys/kernel/numa_balancing` during the run (pages may migrate when on).
    pub numa_balancing: Option<u32>,
    pub environment: Environment,
    /// Disturbed figures, failures and anything else the reader must know, one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One (CPU node, memory node) row of the RightMark table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RightmarkCell {
    pub cpu_node: u32,
    pub memory_node: u32,
    /// The CPU the one thread ran on (the node's first usable CPU).
    pub cpu: u32,
    /// True when the memory node is the CPU node (the row's reference for the ratios).
    pub local: bool,
    /// SLIT distance cpu node -> memory node (10 = local), firmware-declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slit_distance: Option<u32>,
    /// One figure per column, in the order of `metrics`.
    pub figures: Vec<RightmarkFigure>,
}

/// One column of one row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RightmarkFigure {
    pub metric: RightmarkMetric,
    #[serde(flatten)]
    pub figure: RoundFigure,
}

impl RightmarkCell {
    /// The figure of one column, when measured.
    pub fn figure(&self, m: RightmarkMetric) -> Option<&RoundFigure> {
        self.figures
            .iter()
            .find(|f| f.metric == m)
            .map(|f| &f.figure)
    }
}

/// What `numascope bandwidth --stream-matrix` measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamMatrixReport {
    /// Rounds planned.
    pub rounds: usize,
    /// Length of one timed repetition, milliseconds (one warm-up before it in every round).
    pub repetition_ms: u64,
    /// Page backing of every array.
    pub page_size: String,
    /// One matrix per kernel and CPU node.
    pub matrices: Vec<StreamMatrix>,
    pub numa_balancing: Option<u32>,
    pub environment: Environment,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Source node x destination node for one kernel, threads on one CPU node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamMatrix {
    /// `copy` or `triad` (for triad both read streams are on the source node).
    pub kernel: String,
    pub non_temporal: bool,
    pub cpu_node: u32,
    /// The threads' CPUs (one thread each).
    pub cpus: Vec<u32>,
    /// Bytes of each stream's array per thread.
    pub array_bytes_per_thread: u64,
    /// Source (read) stream nodes, the rows.
    pub source_nodes: Vec<u32>,
    /// Destination (written) stream nodes, the columns.
    pub destination_nodes: Vec<u32>,
    /// One cell per (source, destination), source major.
    pub cells: Vec<StreamCell>,
}

/// One (source, destination) placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamCell {
    pub source_node: u32,
    pub destination_node: u32,
    /// Application bytes of all threads per second, MB/s; the ratio is to the cell with both
    /// streams on the CPU node (absent there, and when the CPU node has no memory).
    pub mb_per_s: RoundFigure,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names_are_the_serde_names() {
        for m in RightmarkMetric::ALL {
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
        }
        assert_eq!(RightmarkMetric::Random.unit(), "ns");
        assert_eq!(RightmarkMetric::WriteNt.unit(), "MB/s");
    }
}
