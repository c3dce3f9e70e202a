//! The `numascope app` contract: a user's program run under each candidate placement, in
//! interleaved rounds, with its wall time, CPU time and maximum resident set per run, where
//! its memory and threads were observed to be (sampled from procfs while it ran), the
//! candidates merged because they place identically here, the paired comparison of the
//! distinct ones, and for each candidate the numactl line the installed numactl accepts and
//! the kernel-interface way. Plain serde types, documented field by field in docs/app.md;
//! running programs is `crate::app`.

use serde::{Deserialize, Serialize};

use crate::results::inspect::{KindMemory, NodeMemory};
use crate::results::scenarios::Verdict;
use crate::stats::Summary;

/// Version of the `numascope app` contract.
pub const APP_SCHEMA_VERSION: u32 = 1;

/// The numactl found on this machine (what advice lines are checked against).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Numactl {
    /// Where it is; `None` when no `numactl` is on `PATH`.
    pub path: Option<std::path::PathBuf>,
    /// Its version when it tells one (`numactl --version` exists only in newer releases).
    pub version: Option<String>,
    /// The long options its usage text lists (`--membind`, `--weighted-interleave`, ...).
    pub options: Vec<String>,
}

/// One way to run a program under a placement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HowTo {
    /// A command line the installed numactl accepts (or the bare program when nothing needs
    /// to be set); `None` when numactl cannot give this placement here.
    pub command: Option<String>,
    /// Why there is no numactl command (missing, or too old for an option).
    pub why_not: Option<String>,
    /// The kernel interface that gives the same placement, as prose.
    pub kernel_way: String,
}

/// The whole `numascope app` result (`results.json` of `--output`, or `--json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppReport {
    pub schema_version: u32,
    /// The program and its arguments, as given after `--`.
    pub command: Vec<String>,
    /// Measured runs per candidate (after the warm-up).
    pub runs: usize,
    /// Warm-up runs per candidate, run first and dropped.
    pub warmup: usize,
    /// Interval between samples of /proc/PID/numa_maps and the threads' CPUs, ms; 0: off.
    pub sample_interval_ms: u64,
    /// Every candidate, in the order asked.
    pub candidates: Vec<AppCandidate>,
    /// The decision between the distinct candidates.
    pub ranking: AppRanking,
    /// The numactl the lines were checked against.
    pub numactl: Numactl,
    /// True when the comparison stopped early (a signal, a failed run, the time limit).
    pub partial: bool,
    /// Why it stopped early, one sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// One candidate placement and what the program did under it; the default is nothing
/// measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppCandidate {
    /// Short name as `--candidates` takes it: `default`, `bind:0`, `interleave`, ...
    pub id: String,
    /// Letter in tables: (a), (b), ...
    pub letter: char,
    /// What it does, in words.
    pub label: String,
    /// The memory policy, as `placement` prints it (`first-touch`, `bind 0`, ...).
    pub policy: String,
    /// CPUs the program was confined to; `None`: all it was allowed.
    pub cpus: Option<Vec<u32>>,
    /// Id of an earlier candidate that places identically here (then this one was not run
    /// and shows that one's figures).
    pub same_as: Option<String>,
    pub same_reason: Option<String>,
    /// Why this candidate was not run (not possible here), one sentence.
    pub unavailable: Option<String>,
    /// How to get this placement outside numascope.
    pub how: HowTo,
    /// Wall time per measured run, seconds (median with its interval when there are enough
    /// runs).
    pub wall_s: Option<Summary>,
    pub user_s: Option<Summary>,
    pub sys_s: Option<Summary>,
    pub max_rss_kib: Option<Summary>,
    /// Every run, warm-up included, in the order run.
    pub runs: Vec<AppRun>,
    /// Where memory and threads were seen (the largest sample of the measured runs).
    pub observed: Option<Observed>,
    /// A kernel-managed candidate's settings, counters and pages over time (`app --tiering`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<crate::results::app_tiering::KernelManaged>,
}

/// One run of the program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppRun {
    /// Round number (0-based); rounds run every candidate once, in order.
    pub round: usize,
    /// True for a warm-up run (dropped from the figures).
    pub warmup: bool,
    pub wall_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
    pub max_rss_kib: u64,
    /// Exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// True when numascope stopped it (time limit or a stop request).
    pub stopped: bool,
    /// procfs samples taken during the run.
    pub samples: usize,
    /// Files holding its standard output and error (with `--output`; without it, only when
    /// a run failed: the scratch directory is removed otherwise).
    pub stdout_file: Option<String>,
    pub stderr_file: Option<String>,
}

/// Where the program's memory and threads were seen during its runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    /// Samples behind these figures (all measured runs).
    pub samples: usize,
    /// Resident memory per node at the largest sample.
    pub nodes: Vec<NodeMemory>,
    /// Per mapping kind (heap, stack, anon, file, huge) at the largest sample.
    pub kinds: Vec<KindMemory>,
    /// Policies numa_maps showed (`bind:0`, `interleave:0-1`, ...) with their bytes, at the
    /// largest sample.
    pub policies: Vec<(String, u64)>,
    /// Every CPU a thread of the program was seen on, over all samples.
    pub thread_cpus: Vec<u32>,
    /// The nodes of those CPUs.
    pub thread_nodes: Vec<u32>,
    /// Most threads seen at once.
    pub max_threads: usize,
    /// Share of the resident bytes on the nodes the candidate intends (when it intends
    /// specific nodes).
    pub fraction_on_intended: Option<f64>,
    /// Set when the program placed itself differently from the candidate (its own mbind or
    /// set_mempolicy, threads outside the candidate's CPUs): then the figures are the
    /// program's placement, not the candidate's.
    pub overriding: Option<String>,
}

/// The decision between distinct candidates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppRanking {
    pub verdict: Verdict,
    /// The fastest candidate when `verdict` is `winner`.
    pub best: Option<String>,
    /// The conclusion in one sentence.
    pub text: String,
    /// Practical margin a winner must clear beyond the interval (0.03 = 3 %).
    pub margin: f64,
    /// Paired comparisons of each distinct candidate against the fastest one.
    pub comparisons: Vec<AppComparison>,
}

/// Paired wall-time ratio `candidate / reference` over the interleaved rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppComparison {
    pub reference: String,
    pub candidate: String,
    /// Median of the per-round ratios of wall time (above 1: the candidate is slower).
    pub ratio: f64,
    /// Keys `ci_low`, `ci_high`, `ci_level`; absent below 6 rounds.
    #[serde(flatten)]
    pub ci: Option<crate::stats::Interval>,
    pub rounds: usize,
    /// `slower`, `faster`, `indistinguishable` or `no-interval`.
    pub decision: String,
}
