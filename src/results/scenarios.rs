//! The policy scenarios of the Opteron article's closing table, measured on this machine: one
//! row per way of running an application (pinned or not, one thread or all, local, one-node,
//! interleaved or weighted-interleaved memory), and for each kind of application the scenario
//! that wins with the `numactl` line that gets it, or why none wins. Measurement is
//! `crate::run::scenarios`; the ranking is the pure function `crate::run::ranking::recommend`.

use serde::{Deserialize, Serialize};

use crate::stats::{Interval, Summary};

/// The eight scenarios, (a) to (h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScenarioId {
    /// (a) one thread pinned to a CPU of node N, memory on node N.
    PinnedLocal,
    /// (b) one thread left to the scheduler, memory bound to one node.
    UnpinnedOneNode,
    /// (c) one single-threaded copy per node, each pinned with local memory, run together.
    CopyPerNode,
    /// (d) all threads, all memory on one node (a NUMA-unaware program).
    AllOneNode,
    /// (e) all threads, each with memory on its own node (a NUMA-aware program).
    AllLocal,
    /// (f) all threads, memory interleaved page by page over all memory nodes.
    AllInterleave,
    /// (g) all threads, weighted interleave with weights from the measured bandwidths.
    AllWeightedInterleave,
    /// (h) all threads, weighted interleave with the kernel's `auto` weights (read where the
    /// kernel's auto mode is on, else computed from HMAT as the kernel does), measured in the
    /// same interleaved rounds as (g) so the two weightings compare.
    AllAutoWeightedInterleave,
}

impl ScenarioId {
    pub const ALL: [ScenarioId; 8] = [
        ScenarioId::PinnedLocal,
        ScenarioId::UnpinnedOneNode,
        ScenarioId::CopyPerNode,
        ScenarioId::AllOneNode,
        ScenarioId::AllLocal,
        ScenarioId::AllInterleave,
        ScenarioId::AllWeightedInterleave,
        ScenarioId::AllAutoWeightedInterleave,
    ];

    /// The article-style letter, `a` to `h`.
    pub fn letter(self) -> char {
        (b'a' + ScenarioId::ALL.iter().position(|&s| s == self).unwrap_or(0) as u8) as char
    }

    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            ScenarioId::PinnedLocal => "1 thread, bound to its node, local memory",
            ScenarioId::UnpinnedOneNode => "1 thread, unpinned, memory on one node",
            ScenarioId::CopyPerNode => "1 single-threaded copy per node, each local",
            ScenarioId::AllOneNode => "all threads, memory on one node",
            ScenarioId::AllLocal => "all threads, local memory",
            ScenarioId::AllInterleave => "all threads, interleaved memory",
            ScenarioId::AllWeightedInterleave => "all threads, weighted interleave",
            ScenarioId::AllAutoWeightedInterleave => {
                "all threads, weighted interleave, the kernel's auto weights"
            }
        }
    }
}

/// One measured (or unavailable) scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub id: ScenarioId,
    /// `a` to `h`.
    pub letter: String,
    /// What was run, in words (`1 thread, bound to its node, local memory`).
    pub label: String,
    /// Threads that ran.
    pub threads: usize,
    /// CPUs the threads were pinned to, one per thread; for row (a)'s one thread bound to its
    /// node, that node's CPUs (the scheduler picks among them); empty when left to the
    /// scheduler.
    pub cpus: Vec<u32>,
    pub pinned: bool,
    /// The memory policy in words (`bind to node 0`, `interleave over 0,1`, `weights 0:3,1:1`).
    pub policy: String,
    /// The command line that gives a program this placement.
    pub numactl: String,
    /// Total bandwidth of all threads, MB/s (10^6 B/s), over the repetitions; `None` when
    /// not measured.
    pub mb_per_s: Option<Summary>,
    /// Median bandwidth of each thread, MB/s, in `cpus` order.
    pub per_thread_mb_per_s: Vec<f64>,
    /// Median dependent-load latency of one thread with this placement, ns; `None` where a
    /// latency is not meaningful (several threads) or not measured. Since the blocks,
    /// the median of `latency`'s block medians (kept for readers of older files).
    pub latency_ns: Option<f64>,
    /// Fraction of the buffers' pages on the nodes the policy intended (move_pages), 0..=1.
    pub placement_fraction: Option<f64>,
    /// Why the scenario was not measured (kernel too old, one node, no root).
    pub unavailable: Option<String>,
    /// Total MB/s of each interleaved round, in round order (all distinct scenarios were
    /// measured once per round, A B C A B C ..., so round i of two rows forms a pair).
    /// Empty in results files written before rounds existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds_mb_per_s: Vec<f64>,
    /// Set when this scenario places threads and pages exactly as another one on this machine:
    /// that row was measured, this one shows its figures and is never ranked against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<ScenarioId>,
    /// Why the placement is the same (`same placement here: one memory node (node 0)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_reason: Option<String>,
    /// How many repetitions of its interleaved rounds were taken, discarded (a thread got
    /// less than 90 % of its CPU, or steal) and kept, all rounds together; absent for an
    /// unpinned thread and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
    /// Its interval's half-width against the run's target and the rounds added to reach it;
    /// absent for rows not measured in rounds and in files written before it
    /// existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<crate::results::quality::Precision>,
    /// Base pages of all the row's buffers per node, as move_pages found them when they were
    /// last placed (ascending node id, nodes without pages omitted); empty when not measured
    /// and in files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_per_node: Vec<crate::results::placement::NodePages>,
    /// The single-thread latency of (a) or (b) with its interval, measured in blocks
    /// interleaved with the other row's; absent for the other rows, where not
    /// measured, and in files written before it existed (they hold `latency_ns` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<ScenarioLatency>,
    /// On row (b): its latency over (a)'s, paired by round (block i of (b) over block i of
    /// (a)), median of the per-round ratios with the order-statistic interval; absent when
    /// (b) was not measured apart from (a) and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ratio_to_a: Option<crate::results::tables::RatioToLocal>,
    /// On (a) and (b): why its single-thread latency was not measured (its thread or the
    /// chased buffer could not be placed); absent where measured, on the other rows and in
    /// files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_unavailable: Option<String>,
}

/// One thread's dependent-load latency in a scenario row, measured in blocks: each round
/// measures (a) and (b) one block each, the order alternating (A B, B A, ...), so whatever
/// drifts on the host hits both alike and round i of (b) pairs with round i of (a).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioLatency {
    /// ns per load: the median of the block medians with its order-statistic 95 % interval
    /// (`samples` = blocks; fewer than six blocks: no interval).
    pub ns_per_load: Summary,
    /// The blocks: how many, samples per block, sample length, each block's median in round
    /// order, and the summary of every kept sample.
    pub blocks: crate::results::latency::PointBlocks,
    /// The CPUs the measuring thread could run on (one for (a): the home node's first usable
    /// CPU, as the run's reference; empty for (b), left to the scheduler, and in files
    /// written before this field existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<u32>,
    /// True when the blocks alternated with the other single-thread row's; false when this
    /// row was measured alone ((b) places like (a) here, or the other row failed).
    pub interleaved: bool,
    /// The samples' quality, all blocks together: the measuring thread's CPU share wherever
    /// the scheduler ran it (pinned or not) and the steal time of the CPUs it may run on; a
    /// disturbed sample is taken again while the allowance lasts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<crate::results::quality::RepetitionQuality>,
}

impl ScenarioLatency {
    /// True when a block's samples stayed disturbed after the retakes ran out.
    pub fn disturbed(&self) -> bool {
        self.quality.as_ref().is_some_and(|q| q.disturbed)
    }
}

impl ScenarioResult {
    /// The headline bandwidth, MB/s, when measured.
    pub fn bandwidth(&self) -> Option<f64> {
        self.mb_per_s.map(|s| s.median)
    }

    /// True when this row's latency blocks stayed disturbed after the retakes ran out.
    pub fn latency_disturbed(&self) -> bool {
        self.latency
            .as_ref()
            .is_some_and(ScenarioLatency::disturbed)
    }
}

/// The kinds of application of the article's closing table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AppKind {
    SingleThreaded,
    SeveralSingleThreaded,
    MultiThreadedNumaUnaware,
    MultiThreadedNumaAware,
}

impl AppKind {
    pub const ALL: [AppKind; 4] = [
        AppKind::SingleThreaded,
        AppKind::SeveralSingleThreaded,
        AppKind::MultiThreadedNumaUnaware,
        AppKind::MultiThreadedNumaAware,
    ];

    /// The kind in a sentence: "a single-threaded application", "several ...".
    pub fn phrase(self) -> &'static str {
        match self {
            AppKind::SingleThreaded => "a single-threaded application",
            AppKind::SeveralSingleThreaded => "several single-threaded applications",
            AppKind::MultiThreadedNumaUnaware => "a NUMA-unaware multi-threaded application",
            AppKind::MultiThreadedNumaAware => "a NUMA-aware multi-threaded application",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            AppKind::SingleThreaded => "single-threaded application",
            AppKind::SeveralSingleThreaded => "several single-threaded applications",
            AppKind::MultiThreadedNumaUnaware => "multi-threaded application (NUMA-unaware)",
            AppKind::MultiThreadedNumaAware => "NUMA-aware multi-threaded application",
        }
    }

    /// The scenarios that are ways of running this kind of application.
    pub fn candidates(self) -> &'static [ScenarioId] {
        match self {
            AppKind::SingleThreaded => &[ScenarioId::PinnedLocal, ScenarioId::UnpinnedOneNode],
            AppKind::SeveralSingleThreaded => &[
                ScenarioId::CopyPerNode,
                ScenarioId::AllInterleave,
                ScenarioId::AllOneNode,
            ],
            AppKind::MultiThreadedNumaUnaware => &[
                ScenarioId::AllOneNode,
                ScenarioId::AllInterleave,
                ScenarioId::AllWeightedInterleave,
            ],
            AppKind::MultiThreadedNumaAware => &[
                ScenarioId::AllLocal,
                ScenarioId::AllInterleave,
                ScenarioId::AllWeightedInterleave,
            ],
        }
    }
}

/// The winning scenario for one kind of application.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    pub app_kind: AppKind,
    pub best: ScenarioId,
    /// The winner's bandwidth, MB/s.
    pub mb_per_s: f64,
    /// The best measured alternative among the kind's candidates, if any.
    pub runner_up: Option<ScenarioId>,
    /// Winner over runner-up, as a ratio (1.5 = 50 % more bandwidth).
    pub gain_over_runner_up: Option<f64>,
    /// True when no winner is named: the candidates are indistinguishable here (the paired
    /// ratio's interval reaches into 1 +- the margin), place memory identically on this
    /// machine, or had too few rounds for an interval.
    pub tie: bool,
    /// The winner's `numactl` line; empty when no winner is named (nothing to choose).
    pub numactl: String,
    /// The recommendation in one sentence, numbers included.
    pub text: String,
    /// How the comparison came out; `None` in results files written before decisions were
    /// made with intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Paired ratio winner / runner-up over the interleaved rounds: median of the per-round
    /// ratios and its order-statistic interval (`None` without enough rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Its interval and exact coverage (keys `ratio_ci_low`, `ratio_ci_high`,
    /// `ratio_ci_level`).
    #[serde(flatten, with = "crate::stats::estimate::ratio_keys")]
    pub ratio_ci: Option<Interval>,
    /// Practical margin a winner must clear beyond the interval, as a fraction (0.03 = 3 %).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// Candidates of this kind that place memory exactly as `best` on this machine and so
    /// were not ranked against it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub same_placement: Vec<ScenarioId>,
}

/// How a recommendation was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The winner's paired ratio interval lies beyond 1 + margin: a winner is named.
    Winner,
    /// The interval reaches into 1 +- margin: no winner, no numactl line.
    Indistinguishable,
    /// Every candidate places memory identically here: nothing to choose.
    SamePlacement,
    /// Only one candidate was measured.
    OnlyOne,
    /// Too few paired rounds for an interval: no winner named.
    NoInterval,
    /// The rounds of a compared configuration stayed disturbed (a measuring thread got too
    /// little of its CPU, or steal) after the retakes ran out: their ratio is not evidence,
    /// and no winner is named.
    Disturbed,
}

/// The scenario table of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioTable {
    /// Bandwidth kernel used for every row (`read`: one load stream, summed).
    pub kernel: String,
    /// Buffer per thread of the all-thread rows, bytes (single-thread rows use the total
    /// of all threads, so every row reads well beyond the caches).
    pub buffer_bytes_per_thread: u64,
    /// Timed run per repetition (one per round), milliseconds.
    pub duration_ms: u64,
    /// Repetitions per scenario: the number of interleaved rounds.
    pub repetitions: usize,
    /// True when the distinct scenarios were measured in interleaved rounds (A B C A B C ...);
    /// false in results files written before rounds existed.
    #[serde(default)]
    pub interleaved_rounds: bool,
    /// The memory node of (a), (b) and (d).
    pub home_node: u32,
    pub scenarios: Vec<ScenarioResult>,
    pub recommendations: Vec<Recommendation>,
    /// Weights used for (g), (node, weight), when derived.
    pub weights: Vec<(u32, u8)>,
    /// The kernel's `auto` weights used for (h), (node, weight); empty where (h) could not
    /// run and in files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_weights: Vec<(u32, u8)>,
    /// Working set of the single-thread latency of (a) and (b), bytes (random walk, 4 KiB
    /// pages, memory on the home node; (a) pinned, (b) left to the scheduler), so its label
    /// can say under which conditions it was measured; absent in files written
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_working_set_bytes: Option<u64>,
}

impl ScenarioTable {
    pub fn get(&self, id: ScenarioId) -> Option<&ScenarioResult> {
        self.scenarios.iter().find(|s| s.id == id)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::tables::RatioToLocal;

    pub(crate) fn table_with(ratio: Option<RatioToLocal>, disturbed: bool) -> ScenarioTable {
        let mut a = crate::run::scenarios::row(
            ScenarioId::PinnedLocal,
            &[0, 1],
            true,
            String::new(),
            String::new(),
        );
        let mut b = crate::run::scenarios::row(
            ScenarioId::UnpinnedOneNode,
            &[],
            false,
            String::new(),
            String::new(),
        );
        for r in [&mut a, &mut b] {
            let s = Summary::of(&[100.0; 9]).unwrap();
            r.latency_ns = Some(100.0);
            r.latency = Some(crate::testutil::nine_blocks(100.0, s));
        }
        if disturbed {
            let mut q = crate::results::quality::RepetitionQuality::new(0.9, 1);
            q.disturbed = true;
            q.repetitions_taken = 27;
            q.repetitions_short_of_cpu = 12;
            q.lowest_taken_cpu_share_fraction = Some(0.48);
            q.lowest_taken_cpu = Some(1);
            b.latency.as_mut().unwrap().quality = Some(q);
        }
        b.latency_ratio_to_a = ratio;
        ScenarioTable {
            kernel: "read".into(),
            buffer_bytes_per_thread: 1 << 26,
            duration_ms: 100,
            repetitions: 9,
            interleaved_rounds: true,
            home_node: 0,
            scenarios: vec![a, b],
            recommendations: vec![],
            weights: vec![],
            auto_weights: vec![],
            latency_working_set_bytes: Some(1 << 26),
        }
    }

    pub(crate) fn ratio(r: f64, lo: f64, hi: f64, pairs: usize) -> Option<RatioToLocal> {
        Some(RatioToLocal {
            ratio: r,
            ci: Some(crate::stats::Interval {
                low: lo,
                high: hi,
                level: 0.96,
            }),
            pairs,
        })
    }

    /// Files written before the blocks hold `latency_ns` only: they load, without an interval
    /// or a ratio, and serialize back without the new fields.
    #[test]
    fn rows_without_the_latency_blocks_load_and_round_trip() {
        let t = table_with(ratio(1.12, 1.08, 1.15, 9), false);
        let mut j = serde_json::to_value(&t.scenarios[1]).unwrap();
        assert!(j.get("latency").is_some() && j.get("latency_ratio_to_a").is_some());
        let back: ScenarioResult = serde_json::from_value(j.clone()).unwrap();
        assert_eq!(back, t.scenarios[1]);
        let o = j.as_object_mut().unwrap();
        o.remove("latency");
        o.remove("latency_ratio_to_a");
        let old: ScenarioResult = serde_json::from_value(j.clone()).unwrap();
        assert_eq!(old.latency_ns, Some(100.0));
        assert_eq!((&old.latency, old.latency_ratio_to_a), (&None, None));
        assert_eq!(serde_json::to_value(&old).unwrap(), j);
        // A table of such rows states no difference.
        let mut t = t;
        for r in &mut t.scenarios {
            r.latency = None;
            r.latency_ratio_to_a = None;
        }
        assert_eq!(
            crate::render::words::scenarios::latency_difference(&t),
            None
        );
    }
}
