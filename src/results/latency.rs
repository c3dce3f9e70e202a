//! The latency JSON contract (`numascope latency --json`, schema_version 1): plain serde types
//! with units in their field names. Every result carries where it ran (CPU, memory node, page
//! size asked and obtained, the verified placement fraction) beside its figures, so a number
//! is never separated from the conditions that produced it.

use serde::{Deserialize, Serialize};

use crate::results::clock::ClockInfo;
use crate::results::placement::PageSize;
use crate::stats::Summary;

/// Version of the latency JSON contract. Bump on any incompatible change.
pub const LATENCY_SCHEMA_VERSION: u32 = 1;

/// Where a measurement ran; shared by every result of one buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Page size asked: `4k`, `thp`, `2m`, `1g`.
    pub page_size: PageSize,
    /// CPU the chasing thread was pinned to.
    pub cpu: u32,
    /// Memory node the buffer was meant for.
    pub memory_node: Option<u32>,
    /// Fraction of the buffer's pages found on `memory_node` (move_pages), 0..=1.
    pub placement_fraction: Option<f64>,
    /// Fraction of the buffer backed by huge pages (smaps AnonHugePages / hugetlb), 0..=1.
    pub huge_fraction: Option<f64>,
}

/// Core cycles per load, from the core clock estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CyclesPerLoad {
    pub median: f64,
    pub min: f64,
    pub p90: f64,
    pub p99: f64,
    /// The core clock used, Hz.
    pub core_hz: f64,
    /// How the core clock was obtained.
    pub source: String,
}

/// One pointer-chasing measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyResult {
    pub mode: Mode,
    pub working_set_bytes: u64,
    /// Spacing of the chased elements (the stride of `seq`), bytes.
    pub element_bytes: u64,
    /// Locality group of `page` mode, bytes; `None` for other modes.
    pub group_bytes: Option<u64>,
    pub page_size: PageSize,
    pub cpu: u32,
    pub memory_node: Option<u32>,
    pub placement_fraction: Option<f64>,
    pub huge_fraction: Option<f64>,
    /// Independent chains walked together; ns per load counts the loads of all of them.
    pub chains: usize,
    /// Headline: `median`; `samples` kept after `warmup_samples` dropped.
    pub ns_per_load: Summary,
    pub cycles_per_load: Option<CyclesPerLoad>,
    pub loads_per_sample: u64,
    pub warmup_samples: usize,
    /// How many timed samples were taken, discarded (the chasing thread got less than 90 %
    /// of its CPU, or steal) and kept, and the worst conditions seen; absent when the sampler
    /// did not judge (and in files written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
    /// How precise the median came out against the target it was measured toward:
    /// the headline figures (a sweep's largest point per curve, a matrix cell, a size asked
    /// for) take extra samples while their interval is wider than the target; `planned_rounds`
    /// and `extra_rounds` count samples here. Absent for the other sweep points and in files
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<crate::results::quality::Precision>,
    /// The blocks a sweep point or a size asked by name was measured in: the sizes are walked
    /// in passes spread over the measurement, and `ns_per_load` is then the summary of the
    /// block medians (`samples` = blocks), so its interval is the variation between blocks;
    /// `precision` then counts blocks. Absent for measurements of samples taken back to back
    /// (a RightMark table's round) and in files written before blocks. A matrix cell measured
    /// in rounds carries its rounds here (one block per round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<PointBlocks>,
}

/// How a sweep point was measured in blocks, one per pass over the sweep's sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointBlocks {
    /// Blocks with a kept sample: the passes, plus extra blocks toward the precision goal.
    pub blocks: usize,
    /// Samples each block kept, after its warm-up samples.
    pub samples_per_block: usize,
    /// Minimum length of one sample of a block, ns (the plan's sampling time per size spread
    /// over the blocks' samples).
    pub min_sample_ns: u64,
    /// Median ns per load of each block, in the order measured.
    pub block_medians_ns: Vec<f64>,
    /// ns per load over every kept sample of every block (its tail: p90, p99).
    pub all_samples: Summary,
}

/// One working-set curve (one mode, page size and chain count).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepCurve {
    pub mode: Mode,
    pub page_size: PageSize,
    pub chains: usize,
    /// Points in increasing working-set size.
    pub points: Vec<LatencyResult>,
}

/// The plateaus and per-level knees of one curve (same order as `sweep`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveKnees {
    pub mode: Mode,
    pub page_size: PageSize,
    pub chains: usize,
    pub plateaus: Vec<Plateau>,
    pub levels: Vec<LevelKnee>,
}

/// One cell of the node x node matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatrixCell {
    pub initiator_node: u32,
    pub memory_node: u32,
    pub result: LatencyResult,
    /// SLIT distance initiator -> memory (10 = local), firmware-declared.
    pub slit_distance: Option<u32>,
    /// HMAT read latency for this pair, ns, firmware-declared.
    pub hmat_read_latency_ns: Option<u64>,
    /// Measured median over the initiator's local (or fastest) median.
    pub measured_ratio: Option<f64>,
    /// SLIT distance / 10, the firmware's relative cost.
    pub slit_ratio: Option<f64>,
    /// measured_ratio / slit_ratio.
    pub measured_over_slit: Option<f64>,
    /// Measured median ns / HMAT read latency ns.
    pub measured_over_hmat: Option<f64>,
    /// The ratio to the row's reference cell from the paired rounds of the matrix:
    /// round i of this cell over round i of the reference cell, the median of those ratios
    /// (then also `measured_ratio`) with its 95 % order-statistic interval (none below six
    /// pairs). Absent for cells measured one after the other (the fallback when the buffers
    /// do not fit together) and in files written before rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_ratio_interval: Option<crate::results::tables::RatioToLocal>,
    /// The median, ns, of the row's reference cell as the rounds measured it, when the figure
    /// shown in that cell is another measurement of the same quantity (`run` shows its local
    /// reference latency, spread over the run, in the home cell): the paired ratio above is
    /// against this figure, not against the one shown. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_in_rounds_ns: Option<f64>,
}

impl MatrixCell {
    /// Whether this cell differs from its row's reference beyond noise: the paired ratio's
    /// interval excludes 1. `None` without an interval (unpaired, or fewer than six rounds).
    pub fn differs_from_reference(&self) -> Option<bool> {
        let r = self.measured_ratio_interval.as_ref()?;
        Some(r.ci.map(|c| c.low)? > 1.0 || r.ci.map(|c| c.high)? < 1.0)
    }
}

/// Initiator x memory node latencies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    pub working_set_bytes: u64,
    pub mode: Mode,
    pub page_size: PageSize,
    pub cells: Vec<MatrixCell>,
}

/// The whole output of `numascope latency`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyReport {
    pub schema_version: u32,
    pub clock: ClockInfo,
    pub plan: SamplePlan,
    /// Single-size measurements (`--size`).
    pub results: Vec<LatencyResult>,
    /// Working-set curves (`--sweep`).
    pub sweep: Vec<SweepCurve>,
    /// Plateaus and knees of each curve of `sweep`, same order.
    pub knees: Vec<CurveKnees>,
    /// The node x node matrix (`--matrix`).
    pub matrix: Option<Matrix>,
    /// Things the reader must know (placement below 100 %, THP not obtained, ...).
    pub warnings: Vec<String>,
    /// The per-load latency distribution (`--distribution`); absent otherwise and in files
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<LoadDistribution>,
    /// Memory-level parallelism: for each measurement with more than one chain, its
    /// throughput gain over one chain at the same size, mode and page size (`--chains 1,...`);
    /// empty when one chain count was measured, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mlp: Vec<MlpFactor>,
}

/// Timed groups of dependent loads (`latency --distribution`): each group of
/// `loads_per_group` loads of one chain is timed with the CPU's counter, the counter's own
/// cost (measured with no loads between the two reads) is subtracted, and the rest divided by
/// the loads gives that group's ns per load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadDistribution {
    pub mode: Mode,
    pub working_set_bytes: u64,
    pub element_bytes: u64,
    pub page_size: PageSize,
    pub cpu: u32,
    pub memory_node: Option<u32>,
    pub placement_fraction: Option<f64>,
    /// Dependent loads between the two counter reads of one group.
    pub loads_per_group: u64,
    /// Groups timed (after a warm-up pass over the whole chain).
    pub groups: usize,
    /// Which counter and fences time a group, in words.
    pub counter: String,
    /// Counter ticks per second, measured against the monotonic clock over ~20 ms.
    pub counter_hz: f64,
    /// Whether the counter runs at a constant rate whatever the core's frequency and sleep
    /// states (CPUID invariant TSC on x86_64; the architected generic timer on AArch64);
    /// `None` when it cannot be told.
    pub counter_invariant: Option<bool>,
    /// The cost of the two counter reads and their fences with no load between them.
    pub timer_overhead: TimerOverhead,
    /// Groups whose time was below the median overhead: clamped to 0 ns, counted here.
    pub clamped_groups: usize,
    /// Percentiles of the groups' ns per load (after subtracting the overhead).
    pub ns_per_load: LoadPercentiles,
    /// Log-spaced histogram of the groups' ns per load, lowest bin first; only bins from the
    /// first to the last non-empty one.
    pub histogram: Vec<HistogramBin>,
    /// Bins per factor of two in `histogram`.
    pub bins_per_octave: u32,
    /// The chase's median ns per load at the same working set, mode and page size, measured
    /// in the same run (the usual samples of elapsed time over many loads), for comparison
    /// with `ns_per_load.p50`.
    pub chase_ns_per_load_median: Option<f64>,
    /// The chase walked between the timed batches on the same chain, in the same time window,
    /// timed as one span per batch with the same counter: the median of the spans' ns per
    /// load. The reference `ns_per_load.p50` is checked against; absent in files
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interleaved_chase_ns_per_load_median: Option<f64>,
    /// The batches of groups taken, discarded (the thread got less than 90 % of its CPU) and
    /// kept, as for the chase's samples; absent when not judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
}

/// The counter-read cost, ns per timed group (two reads with their fences).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimerOverhead {
    /// Subtracted from every group.
    pub median_ns: f64,
    pub min_ns: f64,
    pub p10_ns: f64,
    pub p90_ns: f64,
    pub p99_ns: f64,
    /// Empty timed pairs measured.
    pub reads: usize,
}

/// Nearest-rank percentiles of per-group ns per load.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadPercentiles {
    pub min: f64,
    pub p1: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
    pub mean: f64,
    /// A 95 % distribution-free interval for each percentile from order statistics over all
    /// groups (`stats::quantile_interval`); absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<PercentileIntervals>,
}

/// The interval of each percentile of [`LoadPercentiles`]; `None` where the groups were too
/// few for one (p99.9 needs about 3000 groups at 95 %).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PercentileIntervals {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p1: Option<PercentileInterval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p10: Option<PercentileInterval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50: Option<PercentileInterval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90: Option<PercentileInterval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99: Option<PercentileInterval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_9: Option<PercentileInterval>,
}

/// One percentile's interval, ns per load (exact coverage for continuous data, at least
/// 0.95).
pub type PercentileInterval = crate::stats::Interval;

impl LoadPercentiles {
    /// The names of the percentiles of [`LoadPercentiles::named`], in order.
    pub const NAMES: [&'static str; 6] = ["p1", "p10", "p50", "p90", "p99", "p99.9"];

    /// The percentiles with their names and intervals, in order: (`p50`, value, interval).
    pub fn named(&self) -> [(&'static str, f64, Option<PercentileInterval>); 6] {
        let i = self.intervals.unwrap_or_default();
        [
            ("p1", self.p1, i.p1),
            ("p10", self.p10, i.p10),
            ("p50", self.p50, i.p50),
            ("p90", self.p90, i.p90),
            ("p99", self.p99, i.p99),
            ("p99.9", self.p99_9, i.p99_9),
        ]
    }
}

/// One histogram bin: `low_ns <= x < high_ns` (the first bin starts at 0 when clamped groups
/// exist).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistogramBin {
    pub low_ns: f64,
    pub high_ns: f64,
    pub count: u64,
}

/// The memory-level-parallelism factor of one multi-chain measurement: how many times more
/// loads per second `chains` independent chains complete than one chain, at the same working
/// set, mode and page size (multichase's and MLC's convention). ns per load counts the loads
/// of all chains, so the factor is `one_chain_ns_per_load / ns_per_load`; it equals the
/// average loads in flight when one load's latency stays that of one chain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpFactor {
    pub mode: Mode,
    pub page_size: PageSize,
    pub working_set_bytes: u64,
    pub chains: usize,
    /// Median ns per load with one chain.
    pub one_chain_ns_per_load: f64,
    /// Median ns per load (over all chains' loads) with `chains` chains.
    pub ns_per_load: f64,
    /// Median time between two loads of one chain with `chains` chains:
    /// `chains x ns_per_load`.
    pub per_chain_ns_per_load: f64,
    /// `one_chain_ns_per_load / ns_per_load`.
    pub factor: f64,
    /// Conservative interval of the factor from the two medians' intervals (low: the
    /// one-chain interval's low end over the multi-chain's high end; high the other way
    /// round); `None` when either has fewer than six samples.
    /// Its level is a lower bound of the coverage (product of the two coverages).
    #[serde(flatten)]
    pub ci: Option<crate::stats::Interval>,
}

impl LatencyReport {
    /// Every result of the report: single sizes, then every sweep point, then every matrix
    /// cell.
    pub fn all_results(&self) -> impl Iterator<Item = &LatencyResult> {
        self.results
            .iter()
            .chain(self.sweep.iter().flat_map(|c| c.points.iter()))
            .chain(
                self.matrix
                    .iter()
                    .flat_map(|m| m.cells.iter().map(|c| &c.result)),
            )
    }
}

/// How the next element is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Random,
    Page,
    Seq,
}

impl Mode {
    pub fn label(&self) -> &'static str {
        match self {
            Mode::Random => "random",
            Mode::Page => "page",
            Mode::Seq => "seq",
        }
    }
}

/// How many samples and how long each.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplePlan {
    /// Samples kept.
    pub samples: usize,
    /// Samples run and dropped before the kept ones.
    pub warmup: usize,
    /// Minimum duration of one sample, ns.
    pub min_sample_ns: u64,
}

/// One flat stretch of the curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plateau {
    /// Smallest working set on the plateau, bytes.
    pub from_bytes: u64,
    /// The knee: the largest working set on the plateau within half the tolerance of its
    /// median, bytes.
    pub to_bytes: u64,
    /// Largest working set in the run (at or beyond the knee), bytes.
    pub end_bytes: u64,
    /// Median latency of the plateau's points, ns per load.
    pub ns_per_load: f64,
    /// Points on the plateau.
    pub points: usize,
}

/// One level of the hierarchy as the curve shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelKnee {
    /// `L1`, `L2`, `L3`, ... or `memory`.
    pub level: String,
    /// Cache size from sysfs, bytes (`None` for memory).
    pub sysfs_bytes: Option<u64>,
    /// The matched plateau's knee, bytes; `None` when no plateau's knee lies in the level's
    /// range.
    pub knee_bytes: Option<u64>,
    /// The matched plateau's latency, ns per load.
    pub plateau_ns: Option<f64>,
    /// The same in core cycles (core clock estimate; see the clock section).
    pub plateau_cycles: Option<f64>,
}
