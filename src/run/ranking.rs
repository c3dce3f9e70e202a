//! Which scenario wins for which kind of application: the Opteron article's closing table as
//! a pure function of measured scenario rows. For each kind of application only the scenarios
//! that are ways of running it compete (a single-threaded program can be pinned or not; a
//! NUMA-unaware multi-threaded one can have its memory on one node or interleaved), and the
//! one with the highest measured bandwidth wins. A win by less than [`TIE_FRACTION`] is
//! reported as a tie, because the runs' own spread is of that order.

use crate::results::scenarios::{AppKind, Recommendation, ScenarioId, ScenarioResult};

/// Below this relative margin the winner is called a tie with the runner-up.
pub const TIE_FRACTION: f64 = 0.05;

/// The recommendation for every kind of application that has at least one measured candidate.
pub fn recommend(rows: &[ScenarioResult]) -> Vec<Recommendation> {
    AppKind::ALL
        .iter()
        .filter_map(|&kind| recommend_for(kind, rows))
        .collect()
}

/// The recommendation for one kind of application, `None` when none of its scenarios was
/// measured.
pub fn recommend_for(kind: AppKind, rows: &[ScenarioResult]) -> Option<Recommendation> {
    let mut measured: Vec<(&ScenarioResult, f64)> = kind
        .candidates()
        .iter()
        .filter_map(|id| rows.iter().find(|r| r.id == *id))
        .filter_map(|r| r.bandwidth().map(|b| (r, b)))
        .filter(|(_, b)| b.is_finite() && *b > 0.0)
        .collect();
    // Several single-threaded copies compare only with rows running as many threads as there
    // are copies (one per node); on a machine with more CPUs than nodes the all-thread rows
    // run more threads and would not be the same workload.
    if kind == AppKind::SeveralSingleThreaded {
        if let Some(copies) = rows
            .iter()
            .find(|r| r.id == ScenarioId::CopyPerNode)
            .map(|r| r.threads)
        {
            measured.retain(|(r, _)| r.threads == copies);
        }
    }
    // Highest bandwidth first; on equal figures the earlier (simpler) candidate stays first.
    measured.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (best, bw) = *measured.first()?;
    let runner = measured.get(1).copied();
    let gain = runner.map(|(_, r)| bw / r);
    let tie = gain.is_some_and(|g| g < 1.0 + TIE_FRACTION);
    let text = sentence(kind, best, bw, runner, tie);
    Some(Recommendation {
        app_kind: kind,
        best: best.id,
        mb_per_s: bw,
        runner_up: runner.map(|(r, _)| r.id),
        gain_over_runner_up: gain,
        tie,
        numactl: best.numactl.clone(),
        text,
    })
}

fn sentence(
    kind: AppKind,
    best: &ScenarioResult,
    bw: f64,
    runner: Option<(&ScenarioResult, f64)>,
    tie: bool,
) -> String {
    let head = format!(
        "For {}, ({}) {} is best at {:.0} MB/s",
        kind.phrase(),
        best.letter,
        best.label,
        bw
    );
    match runner {
        None => format!("{head} (the only way measured)."),
        Some((r, rb)) if tie => format!(
            "{head}, but ({}) {} is within {:.0}% ({:.0} MB/s): either will do.",
            r.letter,
            r.label,
            (bw / rb - 1.0) * 100.0,
            rb
        ),
        Some((r, rb)) => format!(
            "{head}: {:+.0}% over ({}) {} ({:.0} MB/s).",
            (bw / rb - 1.0) * 100.0,
            r.letter,
            r.label,
            rb
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sample::opteron_scenarios;
    use crate::results::scenarios::ScenarioId::*;

    fn best(kind: AppKind, rows: &[ScenarioResult]) -> ScenarioId {
        recommend_for(kind, rows).unwrap().best
    }

    /// The article's conclusion on symmetric NUMA: pin single-threaded programs (6.4 vs 4.2),
    /// pin one copy per node (12.8 vs 8.4), interleave only NUMA-unaware multi-threaded
    /// programs (8.4 vs 6.4), and let NUMA-aware programs use local memory (12.8 vs 8.4).
    #[test]
    fn ranking_matches_the_opteron_article() {
        let rows = opteron_scenarios();
        assert_eq!(best(AppKind::SingleThreaded, &rows), PinnedLocal);
        assert_eq!(best(AppKind::SeveralSingleThreaded, &rows), CopyPerNode);
        assert_eq!(
            best(AppKind::MultiThreadedNumaUnaware, &rows),
            AllInterleave
        );
        assert_eq!(best(AppKind::MultiThreadedNumaAware, &rows), AllLocal);
        let recs = recommend(&rows);
        assert_eq!(recs.len(), 4);
        let unaware = &recs[2];
        assert_eq!(unaware.runner_up, Some(AllOneNode));
        assert!((unaware.gain_over_runner_up.unwrap() - 8422.0 / 6286.0).abs() < 1e-9);
        assert!(!unaware.tie);
        assert_eq!(unaware.numactl, "numactl --interleave=all APP");
        assert!(
            unaware.text.contains("8422 MB/s") && unaware.text.contains("+34%"),
            "{}",
            unaware.text
        );
    }

    #[test]
    fn unmeasured_rows_do_not_compete_and_close_figures_tie() {
        let mut rows = opteron_scenarios();
        // (g) unavailable: never recommended even though it is a candidate.
        assert!(recommend(&rows)
            .iter()
            .all(|r| r.best != AllWeightedInterleave));
        // A one-node machine: interleave equals bind within noise.
        for r in rows.iter_mut() {
            if r.id == AllInterleave {
                r.mb_per_s = crate::stats::Summary::of(&[6400.0]);
            }
        }
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert!(rec.tie, "{rec:?}");
        assert!(rec.text.contains("either will do"), "{}", rec.text);
        // More CPUs than nodes: one copy per node is not compared with all-thread rows.
        let mut one_node = opteron_scenarios();
        for r in one_node.iter_mut() {
            if r.id == CopyPerNode {
                r.threads = 1;
            }
        }
        let rec = recommend_for(AppKind::SeveralSingleThreaded, &one_node).unwrap();
        assert_eq!((rec.best, rec.runner_up), (CopyPerNode, None));
        // Nothing measured: no recommendation.
        for r in rows.iter_mut() {
            r.mb_per_s = None;
        }
        assert!(recommend(&rows).is_empty());
    }
}
