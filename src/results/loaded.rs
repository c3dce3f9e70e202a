//! The results of `numascope loaded-latency`: versioned serde types (schema_version 1) with
//! units in every field name. A single curve, a family of curves (one per load mix) or a
//! node x node matrix of curves; each point with the blocks it was measured in.

use serde::{Deserialize, Serialize};

use crate::results::environment::Environment;
use crate::results::placement::{PageSize, PlacementReport};
use crate::results::traffic::{NodeEventCounts, NumaTraffic};
use crate::stats::Summary;

/// Version of the loaded-latency JSON contract. Bump on any incompatible change.
pub const LOADED_SCHEMA_VERSION: u32 = 1;

/// One thread's share of one point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadRate {
    pub cpu: u32,
    /// `chaser` or `load`.
    pub role: String,
    /// Application bytes per second (64 B per line or per chased load), MB/s.
    pub mb_per_s: f64,
    /// From the start barrier to the thread's return, ns.
    pub elapsed_ns: u64,
    /// CPU time of the thread over `elapsed_ns` (1 = ran all along; lower: descheduled by
    /// other work); null for sleeping load threads of the no-load point.
    pub cpu_share: Option<f64>,
    pub lines_read: u64,
    pub lines_written: u64,
}

/// One point of the curve: one load level of the load threads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedPoint {
    /// The load threads' mean spin after each line, in ns of the spin as calibrated alone
    /// (inside the loop it overlaps with memory traffic and costs less); null for the
    /// no-load point, where the load threads sleep.
    pub delay_ns: Option<f64>,
    /// The same in spin iterations (mean per line, rounded).
    pub delay_iterations: u64,
    /// Share of their full-speed line rate the load threads were asked for (the delay was
    /// derived from it); null for the no-load point.
    #[serde(default)]
    pub target_fraction: Option<f64>,
    /// Load threads plus the chaser's own traffic, MB/s (application bytes).
    pub total_mb_per_s: f64,
    /// The load threads only, MB/s.
    pub load_mb_per_s: f64,
    /// The chaser's own traffic (64 B per load), MB/s.
    pub chaser_mb_per_s: f64,
    /// `total_mb_per_s` plus the read-for-ownership of normally written lines, MB/s.
    pub dram_mb_per_s_estimate: f64,
    /// The chaser's ns per load: since blocks, the summary of the point's block
    /// medians (`samples` = blocks with a median, the 95 % interval over them); in files
    /// written before blocks, over the samples of its one repetition (first and last dropped).
    pub ns_per_load: Summary,
    /// The chaser thread's hardware node-read counts over the point; null where the machine
    /// offers no such events (see `traffic.perf`).
    pub chaser_node_events: Option<NodeEventCounts>,
    pub threads: Vec<ThreadRate>,
    /// How many takes of this point were timed, discarded (the chaser got less than 90 % of
    /// its CPU, or steal) and kept; absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
    /// The point's total bandwidth, MB/s: since blocks, the summary of its blocks' bandwidths
    /// (each the median of the block's slices; `samples` = blocks); before, of each chaser
    /// sample window (a slice of about 2 ms; the first and last of the point dropped, as for
    /// `ns_per_load`; `samples` = slices). Absent in files written before slices existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_mb_per_s_summary: Option<Summary>,
    /// The load threads' bandwidth per slice, MB/s, as `total_mb_per_s_summary`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_mb_per_s_summary: Option<Summary>,
    /// The DRAM estimate per slice, MB/s, as `total_mb_per_s_summary`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_mb_per_s_estimate_summary: Option<Summary>,
    /// The blocks the point was measured in, in measurement order: each a team
    /// repetition of `duration_ms_per_point / blocks`, spread over the curve's time in rounds
    /// over every point. `ns_per_load` and the `*_summary` bandwidths then summarize the block
    /// medians (n = blocks). Absent in files written before blocks existed (one repetition).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<LoadedBlock>,
    /// The chaser's 2 ms samples of every kept block pooled: their spread (p90, p99), with
    /// no interval on purpose (samples of one block are one moment of the host, not
    /// independent draws). Absent in files written before blocks existed, where
    /// `ns_per_load` itself summarizes the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_per_load_per_sample: Option<SampleSpread>,
}

/// One block of a loaded-latency point: one team repetition at the point's load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedBlock {
    /// When the block's chaser started, from the start of the curve's first kept block, ms.
    pub start_offset_ms: f64,
    /// The median of the chaser's samples in the block, ns per load.
    pub ns_per_load_median: f64,
    /// The chaser's samples in the block (first and last dropped), count.
    pub samples: usize,
    /// The block's total bandwidth, MB/s: the median of its slices (chaser sample windows),
    /// or its whole count when no slice was counted.
    pub total_mb_per_s: f64,
    /// The load threads' bandwidth, MB/s, as `total_mb_per_s`.
    pub load_mb_per_s: f64,
    /// The DRAM estimate, MB/s, as `total_mb_per_s`.
    pub dram_mb_per_s_estimate: f64,
    /// The chaser's CPU time over its wall time in the block, fraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chaser_cpu_share: Option<f64>,
    /// Kept although disturbed (the retakes ran out).
    #[serde(default)]
    pub disturbed: bool,
}

/// The spread of a set of samples without an interval for their median (see
/// [`LoadedPoint::ns_per_load_per_sample`]); nearest-rank percentiles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleSpread {
    pub samples: usize,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl SampleSpread {
    /// The spread of `samples`; `None` when there are none or any is not finite.
    pub fn of(samples: &[f64]) -> Option<SampleSpread> {
        let s = Summary::of(samples)?;
        Some(SampleSpread {
            samples: s.samples,
            min: s.min,
            p50: s.median,
            p90: s.p90,
            p99: s.p99,
            max: s.max,
        })
    }
}

impl LoadedPoint {
    /// The point on the curve: total bandwidth and the chaser's median latency.
    pub fn curve_point(&self) -> CurvePoint {
        CurvePoint {
            mb_per_s: self.mb_per_s(),
            ns_per_load: self.ns_per_load.median,
        }
    }

    /// The point's total bandwidth on the curve, MB/s: the median of its blocks' bandwidths
    /// (older files: of its slices), as its latency is the median of the blocks' latencies,
    /// or `total_mb_per_s` in files written before slices were counted.
    pub fn mb_per_s(&self) -> f64 {
        self.total_mb_per_s_summary
            .as_ref()
            .map_or(self.total_mb_per_s, |s| s.median)
    }

    /// Whether this point's latency is at least `factor` times `idle`'s beyond the noise of
    /// both (decided with the intervals, since blocks the between-block ones): the
    /// low end of its 95 % interval at or above `factor` times the high end of the idle
    /// point's. `None` when either has no interval.
    pub fn latency_beyond(&self, idle: &LoadedPoint, factor: f64) -> Option<bool> {
        let low = self.ns_per_load.ci?.low;
        let idle_high = idle.ns_per_load.ci?.high;
        Some(low >= factor * idle_high)
    }

    /// The chaser's p90 and p99 latency over its 2 ms samples: from the pooled samples where
    /// the point was measured in blocks, else from `ns_per_load` (which then summarizes them).
    pub fn sample_p90_p99(&self) -> (f64, f64) {
        match &self.ns_per_load_per_sample {
            Some(s) => (s.p90, s.p99),
            None => (self.ns_per_load.p90, self.ns_per_load.p99),
        }
    }
}

/// A loaded-latency curve for one placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedResult {
    pub schema_version: u32,
    pub chaser_cpu: u32,
    /// Node of the chaser CPU (the initiator).
    pub chaser_node: Option<u32>,
    pub load_cpus: Vec<u32>,
    /// Node the chased buffer is bound to.
    pub mem_node: u32,
    /// Node the load threads' buffers are bound to.
    pub load_mem_node: u32,
    pub kernel: LoadKernel,
    /// `kernel` in words (`read`, `write-nt`, `read:write 2:1`).
    pub kernel_label: String,
    /// Page backing of the chased and the load buffers (older files: 4k).
    #[serde(default)]
    pub page_size: PageSize,
    pub chaser_size_bytes: u64,
    /// Private buffer of each load thread, bytes.
    pub load_size_bytes_per_thread: u64,
    pub duration_ms_per_point: u64,
    /// Blocks each point was planned in: `duration_ms_per_point` cut into this
    /// many team repetitions spread over the curve's time; fewer than 6 give no interval.
    /// Absent in files written before blocks existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_per_point: Option<usize>,
    /// Length of one block, ms. Absent in files written before blocks existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ms: Option<f64>,
    /// Verified placement of the chased buffer.
    pub chaser_placement: PlacementReport,
    /// Lowest fraction of any load buffer's pages on `load_mem_node`.
    pub load_placement_fraction: f64,
    pub delay_calibration: DelayCalibration,
    /// The slowest load thread's time per line at full speed in the warm-up, ns: the delays
    /// are `this x (1 / target_fraction - 1)`.
    #[serde(default)]
    pub full_speed_ns_per_line: f64,
    /// The no-load point first, then rising load up to full speed (the measurement order).
    pub points: Vec<LoadedPoint>,
    pub curve: CurveSummary,
    /// How bytes are counted.
    pub counting: String,
    pub traffic: NumaTraffic,
    pub environment: Environment,
    /// Conditions that make the figures doubtful, in words.
    pub warnings: Vec<String>,
}

impl LoadedResult {
    /// Every point on the curve, the no-load one first.
    pub fn curve_points(&self) -> Vec<CurvePoint> {
        self.points.iter().map(LoadedPoint::curve_point).collect()
    }
}

/// One cell of the matrix form: initiator node x target node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedMatrixCell {
    pub initiator: u32,
    pub target: u32,
    /// The curve; null when the cell could not be measured (see `note`).
    pub result: Option<LoadedResult>,
    pub note: Option<String>,
    /// With several mixes (`--mix 1:0,1:1`): the curves of the mixes after the first, in the
    /// order given (`result` holds the first); measured interleaved with it point by point.
    /// Absent with one mix and in files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub further_mixes: Vec<LoadedResult>,
}

impl LoadedMatrixCell {
    /// Every curve of the cell, the first mix first (none when it was not measured).
    pub fn curves(&self) -> impl Iterator<Item = &LoadedResult> {
        self.result.iter().chain(self.further_mixes.iter())
    }
}

/// Every initiator node x every target node, load on the same target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedMatrix {
    pub schema_version: u32,
    pub initiators: Vec<u32>,
    pub targets: Vec<u32>,
    pub cells: Vec<LoadedMatrixCell>,
    /// Nodes whose CPUs ran the load threads of every cell (`--load-nodes`; the chaser's CPU
    /// left out); absent: each cell's initiator node's other CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_nodes: Option<Vec<u32>>,
    /// Node holding every cell's load buffers (`--load-mem-nodes`); absent: each cell's
    /// target node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_mem_node: Option<u32>,
}

/// Several load mixes from one placement (`--mix 1:0,3:1,2:1,1:1`): one curve per mix, the
/// points measured interleaved (every mix at one load level before the next level) by one
/// team, so drift on the host hits every curve alike. The no-load point is measured once and
/// heads every curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedFamily {
    pub schema_version: u32,
    /// The measurement order, in words.
    pub order: String,
    /// One curve per mix, in the order given.
    pub curves: Vec<LoadedResult>,
}

/// What `numascope loaded-latency --json` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "kebab-case")]
pub enum LoadedReport {
    Curve(Box<LoadedResult>),
    Matrix(LoadedMatrix),
    /// One curve per mix from one placement (`--mix` with more than one mix).
    Family(LoadedFamily),
}

/// One point of a curve: total bandwidth and the chaser's median latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub mb_per_s: f64,
    pub ns_per_load: f64,
}

/// The curve's headline figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveSummary {
    /// Median latency with the load threads idle, ns.
    pub idle_ns_per_load: f64,
    /// Total bandwidth at which the median latency reached twice the idle latency, MB/s
    /// (linear interpolation); null when it never did.
    pub doubled_at_mb_per_s: Option<f64>,
    /// Highest total bandwidth of any point, MB/s.
    pub peak_mb_per_s: f64,
    /// Median latency at the peak-bandwidth point, ns.
    pub ns_per_load_at_peak: f64,
    /// `ns_per_load_at_peak / idle_ns_per_load - 1`: the rise the load caused (absent in
    /// files written before it existed; `loaded::curve::fill_trend` computes it from the points).
    #[serde(default)]
    pub rise_at_peak_fraction: Option<f64>,
    /// Spearman's rank correlation of median latency with total bandwidth over all points
    /// (ties get their average rank); null with fewer than three points or a constant series.
    #[serde(default)]
    pub rank_correlation: Option<f64>,
}

/// The spin's cost on one CPU: `ns = overhead_ns + ns_per_iteration * iterations`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DelayCalibration {
    pub ns_per_iteration: f64,
    pub overhead_ns: f64,
    /// Coefficient of determination of the fit (1 = perfectly linear).
    pub r_squared: f64,
    /// CPU the calibration ran on.
    pub cpu: Option<u32>,
}

/// The load kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LoadKernel {
    Read,
    Write,
    WriteNt,
    /// Of every `reads + writes` consecutive lines, the first `reads` are read and the rest
    /// written with normal stores.
    Mix {
        reads: u32,
        writes: u32,
    },
    /// Of every `reads + writes` consecutive lines, the first `reads` are read and the rest
    /// written with non-temporal stores (MLC's reads + NT writes mixes).
    MixNt {
        reads: u32,
        writes: u32,
    },
    /// STREAM-triad-like: the buffer is three equal arrays a, b, c; each step reads one line
    /// of b and one of c and writes their sum to the line of a at the same offset with normal
    /// stores: two reads per write, over three streams.
    Triad,
}
