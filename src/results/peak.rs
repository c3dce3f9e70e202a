//! The JSON contract of `numascope bandwidth --peak`: peak injection bandwidth per read/write
//! mix (MLC's `--peak_injection_bandwidth` / `--max_bandwidth` with -W), measured per NUMA
//! node and per package at a few thread counts, and the per-L3-domain table (each domain
//! alone, every domain at once, each domain's share). It is a section of the bandwidth report
//! (`BandwidthReport::peak`); every rate is MB/s (10^6 B/s) with its median, 95 % interval
//! and repetition count, and the quality of its repetitions.

use serde::{Deserialize, Serialize};

use crate::results::bandwidth::Rates;
use crate::results::quality::RepetitionQuality;
use crate::stats::{Estimate, Interval};

/// The peak injection measurement: mixes, runs, best thread counts and L3 domains.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakReport {
    /// The mixes measured, in order, with what counts as a byte for each.
    pub mixes: Vec<PeakMixInfo>,
    /// Node and package scopes, in order (a package whose usable CPUs are exactly one node's
    /// is not repeated: see `notes`).
    pub scopes: Vec<PeakScope>,
    /// Every measured run; scopes, best figures and domain tables refer to these by index.
    pub runs: Vec<PeakRun>,
    /// Per scope and mix, the thread count with the highest median and whether its interval
    /// clears the others'.
    pub best: Vec<PeakBest>,
    /// The L3 domain tables, one per node that was measured with `domains`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<DomainNode>,
    /// Sentences about what was planned and why (scopes measured once, single domains).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One mix and its byte accounting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakMixInfo {
    /// The `--mix` name: `read`, `3:1`, `2:1`, `1:1`, `write-nt`, `2:1-nt`, `triad-like`.
    pub name: String,
    /// What the threads do, in words.
    pub description: String,
    /// Cache lines read per `reads + writes` lines.
    pub reads: u32,
    /// Cache lines written per `reads + writes` lines.
    pub writes: u32,
    /// The writes are non-temporal stores (no read-for-ownership).
    pub non_temporal: bool,
    /// What `mb_per_s` counts: bytes read plus bytes written by the program; the
    /// read-for-ownership of a normal store is not counted there (MLC's and STREAM's rule) and
    /// is added in `dram_mb_per_s_estimate`.
    pub counting: String,
}

/// A set of CPUs measured as one: a NUMA node or a package.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakScope {
    /// `node` or `package`.
    pub level: String,
    pub id: u32,
    /// Its usable CPUs in the order threads are added (one per core first).
    pub cpus: Vec<u32>,
    /// Thread counts measured (1, half, all; duplicates removed).
    pub thread_counts: Vec<usize>,
    /// Memory nodes (each thread's memory is bound to its own CPU's node).
    pub memory_nodes: Vec<u32>,
    /// `[mix][thread count]`: index into `runs`, in the order of `mixes` and
    /// `thread_counts`; `None` where the run failed or was stopped.
    pub runs: Vec<Vec<Option<usize>>>,
}

/// One mix on one set of CPUs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakRun {
    /// `node`, `package` or `l3-domain` (the first scope that planned it).
    pub level: String,
    /// Node or package id; for `l3-domain`, the domain's first CPU.
    pub id: u32,
    pub mix: String,
    pub threads: usize,
    /// CPUs of the threads, in thread order (pinned and checked with getcpu).
    pub cpus: Vec<u32>,
    /// Where each thread's memory was bound: its own CPU's node.
    pub memory_nodes: Vec<u32>,
    /// What ran: `read kernel (avx2)` or `line walk` (the load kernels).
    pub code: String,
    /// Application bytes per second summed over the threads, MB/s (see the mix's counting).
    pub mb_per_s: Rates,
    /// Plus the read-for-ownership of normal stores, MB/s.
    pub dram_mb_per_s_estimate: Rates,
    /// Each thread's buffer, bytes (all arrays of the triad-like mix together).
    pub bytes_per_thread: u64,
    /// Byte-weighted fraction (0..=1) of the pages found on their intended node.
    pub placement_fraction: f64,
    /// Byte-weighted fraction (0..=1) backed by huge pages.
    pub huge_fraction: f64,
    pub duration_ms: u64,
    pub warmup_repetitions: usize,
    /// Repetitions taken, discarded and kept, and the worst CPU share and steal seen.
    pub quality: RepetitionQuality,
}

/// The thread count that gave the highest median for one scope and mix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakBest {
    pub level: String,
    pub id: u32,
    pub mix: String,
    pub threads: usize,
    /// Index into `runs`.
    pub run: usize,
    pub mb_per_s: f64,
    /// The 95 % interval of that median (keys `ci_low`, `ci_high`, `ci_level`; the level is
    /// absent in older files, which read at 95 %).
    #[serde(flatten)]
    pub ci: Option<Interval>,
    /// Its interval lies above every other thread count's interval: the peak is that count's
    /// and not noise. False when any interval is missing or overlaps.
    pub clear: bool,
    /// The thread counts whose intervals overlap the best one's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indistinguishable_from: Vec<usize>,
}

/// A rate derived from per-repetition sums (a domain's threads inside a larger run), MB/s.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateInterval {
    pub median: f64,
    /// The 95 % interval of the median (keys `ci_low`, `ci_high`, `ci_level`; the level is
    /// absent in older files, which read at 95 %).
    #[serde(flatten)]
    pub ci: Option<Interval>,
    /// Repetitions summarized.
    pub samples: usize,
}

impl RateInterval {
    /// The median with its interval and count, for the one formatter.
    pub const fn estimate(&self) -> Estimate {
        Estimate::new(self.median, self.ci, self.samples)
    }
}

/// The L3 domains of one node: each alone, all at once, and each one's share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DomainNode {
    pub node: u32,
    /// One row per L3 domain whose CPUs are all on this node, by first CPU.
    pub domains: Vec<DomainRow>,
    /// The run with every domain's CPUs at once (read mix, local memory); for a node with
    /// one domain this is the node's own all-CPU read run.
    pub all_run: Option<usize>,
    /// The finding in one sentence (or that there is one domain, so nothing to compare).
    pub finding: String,
}

/// One L3 domain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DomainRow {
    /// Its first CPU (the domain's id).
    pub first_cpu: u32,
    /// Its usable CPUs.
    pub cpus: Vec<u32>,
    pub l3_bytes: u64,
    /// The run of this domain alone (index into `runs`); `None` with one domain on the node.
    pub alone_run: Option<usize>,
    /// Its threads' summed rate inside the all-at-once run, per repetition, MB/s.
    pub in_all_mb_per_s: Option<RateInterval>,
    /// `in_all` over the all-at-once total, fraction (medians).
    pub share_fraction: Option<f64>,
    /// Alone over the all-at-once total, fraction (medians): below 1, this domain alone
    /// cannot draw what the node gives every domain together.
    pub alone_fraction_of_all: Option<f64>,
}
