//! The run-wide reference figures ("one quantity, one figure"): local idle DRAM
//! latency and local read bandwidth, each measured under one stated set of conditions in
//! short repetitions spread over the whole run (before each part after the topology and after
//! the last), so
//! their interval covers the run's drift. Every place of the run whose conditions are the
//! same (the sweep's point at that size, the matrices' home cell, scaling's full point, the
//! bandwidth part's local read) shows these figures instead of measuring its own, and is
//! listed in [`ReferenceFigures::filled`]. Plain serde types; measuring is `run::reference`.

use serde::{Deserialize, Serialize};

use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::plan::Part;
use crate::results::quality::RepetitionQuality;
use crate::stats::Summary;

/// Both reference figures of a run, their repetitions and the places that show them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceFigures {
    /// Local idle latency; absent when it could not be measured (the warning says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<ReferenceLatency>,
    /// Local read bandwidth; absent when it could not be measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<ReferenceBandwidth>,
    /// Every repetition taken (kept and discarded), in the order taken.
    pub repetitions: Vec<ReferenceRepetition>,
    /// The places of the run that show a reference figure instead of measuring their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filled: Vec<FilledPlace>,
    /// The places that measured a reference quantity again under the reference's conditions
    /// and whose steady-state blocks are pooled into its figure (one estimate, not a second
    /// figure: `results::agreement`); empty in files written before pooling.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pooled: Vec<PooledPlace>,
    /// True when the run stopped (Ctrl-C, SIGTERM) before every planned repetition was taken.
    #[serde(default)]
    pub partial: bool,
    /// Not written: whether the reference latency is being measured in this run (the parts
    /// ask it before the first repetition is kept).
    #[serde(skip)]
    pub latency_live: bool,
    /// Not written: whether the reference bandwidth is being measured in this run.
    #[serde(skip)]
    pub bandwidth_live: bool,
}

/// Local idle latency: one thread pinned to `cpu` chasing a random walk over a buffer bound
/// to `memory_node` (its own node), the other CPUs left idle by numascope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceLatency {
    pub cpu: u32,
    pub memory_node: u32,
    pub working_set_bytes: u64,
    pub page_size: PageSize,
    pub mode: Mode,
    /// Spacing of the chased elements, bytes (one cache line).
    pub element_bytes: u64,
    /// Fraction of the buffer's pages found on `memory_node`, 0..=1.
    pub placement_fraction: f64,
    /// Fraction of the buffer backed by huge pages, 0..=1.
    pub huge_fraction: f64,
    /// Dependent loads timed in one repetition, count.
    pub loads_per_repetition: u64,
    /// Timed samples in one repetition (each repetition walks to steady state untimed, then
    /// times this many samples of equal length); 1 in files written before this field existed.
    #[serde(default = "one")]
    pub samples_per_repetition: usize,
    /// ns per load over steady-state blocks: one per kept repetition (the median of its
    /// samples) and, where the run has them, the blocks of the places under the same
    /// conditions (`ReferenceFigures::pooled`); median, the order-statistic 95 % interval over
    /// the blocks, n = blocks. In files written before pooling: every sample of every kept
    /// repetition.
    pub ns_per_load: Summary,
    /// Repetitions taken, discarded (the thread got less than 90 % of its CPU, or steal) and
    /// kept.
    pub quality: RepetitionQuality,
    /// The paired idle probe's verdict on the kept blocks (`IdleProbe`); absent in files
    /// written before it existed and when the probe could not be set up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<IdleProbe>,
}

/// The paired idle probe of the reference latency (docs/METHODOLOGY.md, "Disturbed
/// repetitions"): right before and right after each repetition's timed samples the chasing
/// thread walks a small probe chain, one element per 4 KiB page, so every load misses the TLB
/// and the L2 and is served by a page walk and the L3 or memory, the parts of the machine that
/// another CPU shares (an SMT sibling on the host, a neighbour on the L3). A repetition's probe is the
/// lower of its two (a preemption of one probe is not a slow memory system); the run's quiet
/// level is the median of the lowest third of them, and a kept block whose probe exceeds it by
/// more than `threshold_fraction` was measured while something else used those parts: it is
/// disturbed although its thread had all of its CPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdleProbe {
    /// Dependent loads in one probe, count (one lap of the probe chain).
    pub loads: u64,
    /// The probe chain's working set, bytes (its pages, one element each).
    pub working_set_bytes: u64,
    /// The run's quiet level, ns per probe load (median of the lowest third of the kept
    /// blocks' probes).
    pub quiet_ns: f64,
    /// A block is disturbed when its probe exceeds `quiet_ns` by more than this, fraction.
    pub threshold_fraction: f64,
    /// Kept blocks whose probe was above the threshold, count.
    pub blocks_disturbed: usize,
    /// Kept blocks with a probe, count.
    pub blocks_probed: usize,
    /// True when the disturbed blocks (by this probe, or kept short of CPU once the retake
    /// allowance was spent) are left out of the figure (enough quiet blocks remained for an
    /// interval); false when they are in it and the figure is marked.
    pub left_out: bool,
}

fn one() -> usize {
    1
}

/// Local read bandwidth: one pinned thread per usable CPU of `memory_node`, each reading its
/// own buffer bound to that node with the `kernel` kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceBandwidth {
    pub kernel: String,
    pub cpus: Vec<u32>,
    pub threads: usize,
    pub memory_node: u32,
    pub bytes_per_thread: u64,
    pub page_size: PageSize,
    /// Length of one repetition, ms.
    pub duration_ms: u64,
    /// Fraction of the buffers' pages found on `memory_node`, 0..=1.
    pub placement_fraction: f64,
    /// All threads together, MB/s (10^6 B/s), one sample per kept repetition, and the rounds
    /// of the places under the same conditions (`ReferenceFigures::pooled`).
    pub mb_per_s: Summary,
    /// Each thread's median over the kept repetitions, MB/s, in the order of `cpus`.
    pub per_thread_mb_per_s: Vec<f64>,
    /// Per-thread elapsed time of each kept repetition, ns (`[rep][thread]`).
    pub elapsed_ns: Vec<Vec<u64>>,
    pub quality: RepetitionQuality,
}

/// One repetition of the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceRepetition {
    /// The part it was taken before; absent for the repetitions after the last part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Part>,
    /// Seconds from the start of the run to the start of the repetition.
    pub at_s: f64,
    /// The latency sample, ns per load; absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_per_load: Option<f64>,
    /// Whether the latency sample went into the figure.
    #[serde(default)]
    pub latency_kept: bool,
    /// The bandwidth sample, MB/s; absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mb_per_s: Option<f64>,
    /// Whether the bandwidth sample went into the figure.
    #[serde(default)]
    pub bandwidth_kept: bool,
    /// The paired idle probe right before and right after the latency samples, ns per probe
    /// load each (`IdleProbe`); absent when not taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_ns: Option<[f64; 2]>,
    /// Whether the idle probe judged this kept latency block disturbed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub probe_disturbed: bool,
    /// Whether this latency block was kept although its thread lacked its CPU (CPU share or
    /// steal) because the retake allowance was spent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cpu_disturbed: bool,
}

/// Which reference figure a place shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReferenceFigure {
    Latency,
    Bandwidth,
}

/// A place of the run that shows a reference figure (its own measurement was skipped).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FilledPlace {
    /// The part the place belongs to.
    pub part: Part,
    pub figure: ReferenceFigure,
    /// The place in words ("random 4k curve, 256 MiB point", "matrix cell 0 -> 0").
    pub place: String,
    /// Always `reference`: the figure there is the reference's, not a measurement of the part.
    pub source: String,
    /// For bandwidth places: the index of the result in the part's report that holds the
    /// reference figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_index: Option<usize>,
}

/// A place whose own steady-state blocks went into a reference figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PooledPlace {
    pub figure: ReferenceFigure,
    /// The place in words, as `results::agreement` names it ("loaded-latency no-load point
    /// (read)", "scenario (a)'s latency").
    pub place: String,
    /// Its blocks in the figure, count.
    pub blocks: usize,
}

/// The reference's entry in the plan: its estimate and conditions in words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedReference {
    /// Estimated wall time of the setup and every repetition, seconds.
    pub estimate_s: f64,
    /// What it measures under which conditions, and how often, in one line.
    pub detail: String,
}

impl ReferenceFigures {
    /// An empty record (nothing measured yet).
    pub fn empty() -> ReferenceFigures {
        ReferenceFigures {
            latency: None,
            bandwidth: None,
            repetitions: vec![],
            filled: vec![],
            pooled: vec![],
            partial: false,
            latency_live: false,
            bandwidth_live: false,
        }
    }

    /// Whether the place named `place` had its blocks pooled into `figure`.
    pub fn is_pooled(&self, figure: ReferenceFigure, place: &str) -> bool {
        self.pooled
            .iter()
            .any(|p| p.figure == figure && p.place == place)
    }

    /// Whether `part` shows `figure` somewhere.
    pub fn fills(&self, part: Part, figure: ReferenceFigure) -> bool {
        self.filled
            .iter()
            .any(|f| f.part == part && f.figure == figure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_filled_and_serde() {
        let mut f = ReferenceFigures::empty();
        f.filled.push(FilledPlace {
            part: Part::LatencyMatrix,
            figure: ReferenceFigure::Latency,
            place: "matrix cell 0 -> 0".into(),
            source: "reference".into(),
            result_index: None,
        });
        assert!(f.fills(Part::LatencyMatrix, ReferenceFigure::Latency));
        assert!(!f.fills(Part::LatencyMatrix, ReferenceFigure::Bandwidth));
        assert!(!f.fills(Part::Latency, ReferenceFigure::Latency));
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.contains("\"source\":\"reference\""), "{json}");
        assert!(!json.contains("live"), "{json}");
        let back: ReferenceFigures = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
    }
}
