//! The JSON contract of `numascope bandwidth --json` (schema_version 1): plain serde types with
//! units in their field names. Rates are MB/s with 1 MB = 10^6 B. `mb_per_s` counts application
//! bytes (STREAM's convention); `dram_mb_per_s_estimate` adds the write-allocate read of normal
//! stores and whole lines for strided/random reads (see `descriptor`). The headline figure is
//! the median over the kept repetitions (warm-up dropped); min and max come with it.

use serde::{Deserialize, Serialize};

use crate::results::environment::Environment;
use crate::results::placement::{PageSize, PlacementReport};
use crate::results::quality::RepetitionQuality;
use crate::stats::{Interval, Summary};

/// Version of the bandwidth JSON contract. Bump on any incompatible change.
pub const BANDWIDTH_SCHEMA_VERSION: u32 = 1;

/// Everything one `numascope bandwidth` invocation measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BandwidthReport {
    pub schema_version: u32,
    /// One entry per measured configuration (matrix cells and scaling points included; they
    /// refer to these by index).
    pub results: Vec<BandwidthResult>,
    /// Node x node matrices, one per kernel (empty unless `--matrix`).
    pub matrix: Vec<Matrix>,
    /// Thread-scaling curves, one per kernel (empty unless `--scaling`).
    pub scaling: Vec<Scaling>,
    /// Bandwidth against working-set size (`--sweep` or a list of `--size`); absent otherwise
    /// and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
    /// Peak injection bandwidth per read/write mix and the L3 domain table (`--peak`);
    /// absent otherwise and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<crate::results::peak::PeakReport>,
    /// `/proc/sys/kernel/numa_balancing` during the run (pages may migrate when on).
    pub numa_balancing: Option<u32>,
    /// The machine's environment (kernel, CPU, THP mode, governor, hypervisor...), recorded
    /// with the figures (docs/METHODOLOGY.md, "The environment recorded").
    pub environment: Environment,
    /// One sentence per figure whose repetitions stayed disturbed after the retakes ran out
    /// (see `BandwidthResult::quality`); absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Bytes per element as the descriptor counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BytesPerElement {
    /// Application bytes read (STREAM counting).
    pub read: u64,
    /// Application bytes written.
    pub written: u64,
    /// Extra DRAM bytes from write-allocate (0 for non-temporal stores).
    pub write_allocate: u64,
    /// Estimated DRAM bytes per element (what `dram_mb_per_s_estimate` uses).
    pub dram_estimate: u64,
}

/// A rate summarized over repetitions, with each thread's own rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Median over repetitions of the sum of the threads' rates, MB/s. The headline.
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Repetitions summarized.
    pub samples: usize,
    /// The distribution-free interval for the median (order statistics, as
    /// `stats::median_interval`), MB/s (keys `ci_low`, `ci_high`, `ci_level`); absent with
    /// fewer than 6 repetitions and in files written before intervals existed.
    #[serde(flatten)]
    pub ci: Option<crate::stats::Interval>,
    /// Per thread, in the order of `cpus`.
    pub per_thread: Vec<ThreadRate>,
}

impl Rates {
    /// The figure as a [`Summary`]: median, range and interval (rates keep no percentiles, so
    /// the maximum stands for p90 and p99; only the median and the interval are judged).
    pub fn summary(&self) -> Summary {
        Summary {
            median: self.median,
            min: self.min,
            max: self.max,
            p90: self.max,
            p99: self.max,
            samples: self.samples,
            ci: self.ci,
        }
    }

    /// The rates of one figure from the summary of its per-repetition totals (median, range
    /// and interval) and each thread's own rates.
    pub fn from_summary(total: &Summary, per_thread: Vec<ThreadRate>) -> Rates {
        Rates {
            median: total.median,
            min: total.min,
            max: total.max,
            samples: total.samples,
            ci: total.ci,
            per_thread,
        }
    }
}

/// One thread's rate over the repetitions, MB/s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadRate {
    pub cpu: u32,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl ThreadRate {
    /// The thread on `cpu` with its repetitions' summary.
    pub fn of(cpu: u32, s: &Summary) -> ThreadRate {
        ThreadRate {
            cpu,
            median: s.median,
            min: s.min,
            max: s.max,
        }
    }
}

/// Where one stream of one thread was placed and where it really is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamPlacement {
    /// Index of the thread in `cpus`.
    pub thread: usize,
    pub cpu: u32,
    /// Stream index (0 is the written stream when there is one).
    pub stream: usize,
    /// The policy, human form (`first-touch`, `bind 1`, `interleave 0-3`, ...).
    pub policy: String,
    pub report: PlacementReport,
}

/// One kernel run with one thread set and one memory placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BandwidthResult {
    pub kernel: String,
    /// The ISA whose code ran (`scalar` for kernels without SIMD variants).
    pub isa: Isa,
    pub non_temporal: bool,
    pub threads: usize,
    /// CPUs the threads were pinned to (verified with getcpu), in thread order.
    pub cpus: Vec<u32>,
    /// Nodes of those CPUs, ascending, deduplicated.
    pub cpu_nodes: Vec<u32>,
    /// Nodes the placement intended for the memory, ascending (for first touch: the threads'
    /// nodes).
    pub memory_nodes: Vec<u32>,
    /// The placement mode: `local`, `node`, `interleave` or `weighted`.
    pub placement: String,
    /// The policy of each stream, human form.
    pub stream_policies: Vec<String>,
    /// Byte-weighted fraction (0..=1) of all buffers' pages found on their intended nodes.
    pub placement_fraction: f64,
    /// Byte-weighted fraction (0..=1) backed by huge pages.
    pub huge_fraction: f64,
    /// Application bytes per second, MB/s (10^6 B/s).
    pub mb_per_s: Rates,
    /// Estimated DRAM bytes per second, MB/s (10^6 B/s).
    pub dram_mb_per_s_estimate: Rates,
    pub bytes_per_element: BytesPerElement,
    /// Bytes of each stream's array per thread.
    pub array_bytes_per_thread: u64,
    /// All arrays of all threads, bytes.
    pub working_set_bytes: u64,
    pub page_size: PageSize,
    /// Length of one repetition, milliseconds.
    pub duration_ms: u64,
    pub repetitions: usize,
    pub warmup_repetitions: usize,
    /// Per-thread elapsed time of each kept repetition, nanoseconds (`[rep][thread]`):
    /// every thread stops on the shared flag, so these stay close to `duration_ms`.
    pub elapsed_ns: Vec<Vec<u64>>,
    pub placements: Vec<StreamPlacement>,
    /// How many repetitions were taken, discarded (a thread got too little of its CPU, or
    /// steal) and kept, and the worst conditions seen; absent in files written before it
    /// existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<RepetitionQuality>,
    /// The cache the working set fits in, from the topology's declared caches (each thread's
    /// arrays, summed over the threads sharing one cache instance), e.g.
    /// `L2 (1 MiB per core)`; absent when it fits in none (the rates are DRAM's) and in files
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_level: Option<String>,
    /// `--stride`: elements (8 B words) from one element processed to the next (8 = one per
    /// 64 B line); `mb_per_s` then counts the useful bytes of the elements processed and
    /// `dram_mb_per_s_estimate` the lines moved. Absent for contiguous runs and in files
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride_elements: Option<u64>,
    /// How precise the median total rate came out against the target it was measured toward:
    /// a kernel's result, a matrix cell and a scaling point take extra
    /// repetitions while their interval is wider than the target; `planned_rounds` and
    /// `extra_rounds` count repetitions here (`repetitions` includes the extras). Absent when
    /// measured without a target (sizes, peak) and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<crate::results::quality::Precision>,
}

/// Bandwidth against working-set size: every kernel at every size, one thread per CPU of
/// `cpus`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// Threads that ran each point (one per CPU of `cpus`).
    pub threads: usize,
    pub cpus: Vec<u32>,
    /// `sweep` (a geometric range, `--sweep`) or `sizes` (a list, `--size A,B`).
    pub mode: String,
    /// One point per size and kernel, in increasing size, kernels in the order run.
    pub points: Vec<SweepPoint>,
}

/// One kernel at one working-set size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub kernel: String,
    /// One thread's arrays, all its streams together, bytes.
    pub working_set_bytes_per_thread: u64,
    /// All threads' arrays, bytes.
    pub working_set_bytes: u64,
    /// Cache level the working set fits in (1, 2, 3...); `None`: DRAM.
    pub cache_level: Option<u32>,
    /// `fits in L1d (32 KiB per core)`, ... or `DRAM`.
    pub fits_in: String,
    /// Application rate summed over the threads, MB/s, with its interval (the result's).
    pub mb_per_s: f64,
    /// Keys `ci_low`, `ci_high`, `ci_level` (the level absent in older files: 95 %).
    #[serde(flatten)]
    pub ci: Option<Interval>,
    /// Repetitions stayed disturbed after the retakes (see the result's `quality`).
    pub disturbed: bool,
    /// Index into `results`.
    pub result_index: usize,
}

/// A kernel's bandwidth for each initiator node (its CPUs) and memory node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    pub kernel: String,
    /// Initiator (CPU) nodes, rows.
    pub initiators: Vec<u32>,
    /// Memory (target) nodes, columns; memory-only nodes included.
    pub targets: Vec<u32>,
    pub cells: Vec<MatrixCell>,
}

/// One cell of a [`Matrix`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatrixCell {
    pub initiator: u32,
    pub target: u32,
    pub threads: usize,
    /// Median application rate, MB/s.
    pub mb_per_s: f64,
    /// Median estimated DRAM rate, MB/s.
    pub dram_mb_per_s_estimate: f64,
    pub placement_fraction: f64,
    /// Firmware-declared (ACPI HMAT) read bandwidth for this pair, MB/s; not a measurement.
    pub hmat_read_mb_per_s: Option<u64>,
    /// Firmware-declared (ACPI HMAT) write bandwidth for this pair, MB/s; not a measurement.
    pub hmat_write_mb_per_s: Option<u64>,
    /// Index into `results`.
    pub result_index: usize,
}

/// Bandwidth against thread count for one kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    pub kernel: String,
    pub series: Vec<ScalingSeries>,
}

/// One curve: threads placed `packed` within one node, or `packed`/`spread` over the machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingSeries {
    /// `packed` (fill one node first) or `spread` (round robin over nodes).
    pub mode: String,
    /// The node the curve is confined to (`None`: the whole machine).
    pub node: Option<u32>,
    pub points: Vec<ScalingPoint>,
    /// Smallest thread count after which more threads stop helping (see `scaling::knee`);
    /// `None` when the curve still rises at its end.
    pub knee_threads: Option<usize>,
}

/// One point of a scaling curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingPoint {
    pub threads: usize,
    pub cpus: Vec<u32>,
    /// Median application rate, MB/s.
    pub mb_per_s: f64,
    pub mb_per_s_max: f64,
    /// Index into `results`.
    pub result_index: usize,
}

/// A kernel implementation family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Isa {
    /// Portable Rust; the compiler may use the target's baseline SIMD (SSE2 on x86-64,
    /// NEON on aarch64). Non-temporal stores use SSE2 `movnti` on x86-64.
    Scalar,
    /// 256-bit AVX2 intrinsics, 8 vectors per loop iteration.
    Avx2,
    /// 512-bit AVX-512F intrinsics, 8 vectors (8 cache lines) per loop iteration.
    Avx512,
}

impl Isa {
    pub fn label(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The kernel catalog as `bandwidth --list-kernels` shows it, byte accounting worked out for
/// one cache-line size. Built by `crate::bandwidth::result::kernel_listing` from the kernel
/// descriptors; `bandwidth --list-kernels --json` prints it (not part of a results file).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelListing {
    /// Cache line the DRAM estimate counts, bytes.
    pub line_bytes: u64,
    pub kernels: Vec<KernelRow>,
}

/// One kernel of the catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelRow {
    pub name: String,
    pub description: String,
    /// Arrays the kernel uses.
    pub streams: usize,
    pub read_bytes_per_element: u64,
    pub written_bytes_per_element: u64,
    /// Read plus written: STREAM's application bytes.
    pub app_bytes_per_element: u64,
    pub write_allocate_bytes_per_element: u64,
    /// DRAM bytes per element estimated for `line_bytes` lines.
    pub dram_bytes_per_element: u64,
    /// Stores bypass the caches.
    pub non_temporal: bool,
    /// Has avx2 and avx512 variants beside the scalar one.
    pub simd: bool,
    /// Not a sequential walk (strided or random): each access costs a whole line.
    pub strided: bool,
}
