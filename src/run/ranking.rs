//! Which scenario wins for which kind of application: the Opteron article's closing table as
//! a pure function of measured scenario rows. For each kind of application only the scenarios
//! that are ways of running it compete (a single-threaded program can be pinned or not; a
//! NUMA-unaware multi-threaded one can have its memory on one node or interleaved). Scenarios
//! that place memory identically on this machine (`same_as`) are one configuration and are
//! never ranked against each other. Between distinct configurations a winner is named only
//! when the paired ratio of their interleaved rounds has an interval entirely beyond
//! 1 + [`PRACTICAL_MARGIN`] (docs/METHODOLOGY.md, "Deciding"); otherwise the sentence says they are
//! indistinguishable here, within +-x %, and gives no `numactl` line to choose between them.

use crate::results::scenarios::{AppKind, Recommendation, ScenarioId, ScenarioResult, Verdict};
use crate::stats::decide::percent;
use crate::stats::{paired_ratio, unpaired_ratio, Decision, RatioInterval, CONFIDENCE};

pub use crate::stats::PRACTICAL_MARGIN;

/// The recommendation for every kind of application that has at least one measured candidate.
pub fn recommend(rows: &[ScenarioResult]) -> Vec<Recommendation> {
    AppKind::ALL
        .iter()
        .filter_map(|&kind| recommend_for(kind, rows))
        .collect()
}

/// The ratio `b / a` of two measured rows: paired over their rounds when both have rounds,
/// else from their two summaries' intervals.
pub fn ratio_of(a: &ScenarioResult, b: &ScenarioResult) -> Option<RatioInterval> {
    if !a.rounds_mb_per_s.is_empty() && !b.rounds_mb_per_s.is_empty() {
        paired_ratio(&a.rounds_mb_per_s, &b.rounds_mb_per_s, CONFIDENCE)
    } else {
        unpaired_ratio(a.mb_per_s.as_ref()?, b.mb_per_s.as_ref()?)
    }
}

/// The recommendation for one kind of application, `None` when none of its scenarios was
/// measured.
pub fn recommend_for(kind: AppKind, rows: &[ScenarioResult]) -> Option<Recommendation> {
    let mut it = distinct_candidates(kind, rows).into_iter();
    let (mut best, mut bw, mut same) = it.next()?;
    let Some((mut runner, mut rb, _)) = it.next() else {
        return Some(alone(kind, best, bw, &same));
    };
    let mut ratio = ratio_of(runner, best);
    let mut decision = ratio.map_or(Decision::NoInterval { samples: 0 }, |r| {
        r.decide(PRACTICAL_MARGIN)
    });
    // The paired rounds have the last word on the order: if they put the runner-up ahead,
    // it is the winner.
    if decision == Decision::Lower {
        std::mem::swap(&mut best, &mut runner);
        std::mem::swap(&mut bw, &mut rb);
        same = vec![];
        ratio = ratio_of(runner, best);
        decision = Decision::Higher;
    }
    // The gain is the paired estimate when there is one (the median of the rounds' ratios).
    let gain = ratio.map_or(bw / rb, |r| r.ratio);
    let pair = Pair {
        kind,
        best: (best, bw),
        runner: (runner, rb),
        gain,
    };
    let (verdict, text, numactl) = verdict_of(&pair, decision);
    Some(Recommendation {
        app_kind: kind,
        best: best.id,
        mb_per_s: bw,
        runner_up: Some(runner.id),
        gain_over_runner_up: Some(gain),
        tie: verdict != Verdict::Winner,
        numactl,
        text,
        verdict: Some(verdict),
        ratio: ratio.map(|r| r.ratio),
        ratio_ci: ratio.and_then(|r| r.ci),
        margin: Some(PRACTICAL_MARGIN),
        same_placement: same.iter().map(|r| r.id).collect(),
    })
}

/// A candidate row with its bandwidth and the rows placed as it is.
type Candidate<'a> = (&'a ScenarioResult, f64, Vec<&'a ScenarioResult>);

/// `kind`'s measured candidates, one per distinct placement, highest bandwidth first.
fn distinct_candidates(kind: AppKind, rows: &[ScenarioResult]) -> Vec<Candidate<'_>> {
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
    // One entry per distinct placement: a row merged into another (`same_as`) joins the first
    // candidate of its group.
    let group = |r: &ScenarioResult| r.same_as.unwrap_or(r.id);
    let mut distinct: Vec<(&ScenarioResult, f64, Vec<&ScenarioResult>)> = Vec::new();
    for (r, b) in measured {
        match distinct.iter_mut().find(|d| group(d.0) == group(r)) {
            Some(d) => d.2.push(r),
            None => distinct.push((r, b, vec![])),
        }
    }
    // Highest bandwidth first; on equal figures the earlier (simpler) candidate stays first.
    distinct.sort_by(|a, b| b.1.total_cmp(&a.1));
    distinct
}

/// The winner and the runner-up of one kind's comparison, each with its bandwidth.
struct Pair<'a> {
    /// The kind of application.
    kind: AppKind,
    /// The leading row and its MB/s.
    best: (&'a ScenarioResult, f64),
    /// The runner-up and its MB/s.
    runner: (&'a ScenarioResult, f64),
    /// The leader's gain over the runner-up (paired where there is a paired estimate).
    gain: f64,
}

/// The verdict, the sentence and the `numactl` line (empty where no winner is named) of a
/// comparison `decision` settled (`Lower` already turned into `Higher`).
fn verdict_of(p: &Pair<'_>, decision: Decision) -> (Verdict, String, String) {
    let Pair {
        kind,
        best: (best, bw),
        runner: (runner, rb),
        gain,
    } = *p;
    // A winner drawn from disturbed rounds is noise with a numactl line: name none.
    let disturbed: Vec<&ScenarioResult> = [best, runner]
        .into_iter()
        .filter(|r| r.quality.as_ref().is_some_and(|q| q.disturbed))
        .collect();
    match decision {
        Decision::Higher if !disturbed.is_empty() => {
            let names: Vec<String> = disturbed.iter().map(|r| format!("({})", r.letter)).collect();
            (
                Verdict::Disturbed,
                format!(
                    "{}, but the rounds of {} were disturbed (a measuring thread did not have its CPU to itself): no winner named; rerun on an idle machine.",
                    both_measured(kind, (best, bw), (runner, rb)),
                    names.join(" and ")
                ),
                String::new(),
            )
        }
        Decision::Higher => (
            Verdict::Winner,
            format!(
                "{}: {:+.0}% over ({}) {} ({:.0} MB/s).",
                head(kind, best, bw),
                (gain - 1.0) * 100.0,
                runner.letter,
                runner.label,
                rb
            ),
            best.numactl.clone(),
        ),
        Decision::Indistinguishable { within } => (
            Verdict::Indistinguishable,
            format!(
                "For {}, ({}) {} and ({}) {} are indistinguishable here (within +-{}: {:.0} and {:.0} MB/s); no placement to choose between them.",
                kind.phrase(),
                best.letter,
                best.label,
                runner.letter,
                runner.label,
                percent(within),
                bw,
                rb
            ),
            String::new(),
        ),
        other => {
            // Lower was turned into Higher above, so this is NoInterval.
            let samples = match other {
                Decision::NoInterval { samples } => samples,
                _ => 0,
            };
            (
                Verdict::NoInterval,
                format!(
                    "{}, but {} paired round{} give no interval: no winner named.",
                    both_measured(kind, (best, bw), (runner, rb)),
                    samples,
                    if samples == 1 { "" } else { "s" }
                ),
                String::new(),
            )
        }
    }
}

/// "For <kind>, (a) <label> measured <bw> MB/s and (b) <label> <rb> MB/s": both figures of a
/// comparison that names no winner.
fn both_measured(kind: AppKind, a: (&ScenarioResult, f64), b: (&ScenarioResult, f64)) -> String {
    format!(
        "For {}, ({}) {} measured {:.0} MB/s and ({}) {} {:.0} MB/s",
        kind.phrase(),
        a.0.letter,
        a.0.label,
        a.1,
        b.0.letter,
        b.0.label,
        b.1
    )
}

fn head(kind: AppKind, best: &ScenarioResult, bw: f64) -> String {
    format!(
        "For {}, ({}) {} is best at {:.0} MB/s",
        kind.phrase(),
        best.letter,
        best.label,
        bw
    )
}

/// One distinct configuration: either the only way measured, or several scenarios that place
/// memory identically here (nothing to choose).
fn alone(
    kind: AppKind,
    best: &ScenarioResult,
    bw: f64,
    same: &[&ScenarioResult],
) -> Recommendation {
    let (verdict, text, numactl) = if same.is_empty() {
        (
            Verdict::OnlyOne,
            format!("{} (the only way measured).", head(kind, best, bw)),
            best.numactl.clone(),
        )
    } else {
        let names: Vec<String> = std::iter::once(best)
            .chain(same.iter().copied())
            .map(|r| format!("({}) {}", r.letter, r.label))
            .collect();
        let why = same
            .iter()
            .find_map(|r| r.same_reason.clone())
            .unwrap_or_else(|| "same placement here".into());
        (
            Verdict::SamePlacement,
            format!(
                "For {}, {} place threads and memory identically on this machine ({why}): {bw:.0} MB/s either way, nothing to choose.",
                kind.phrase(),
                names.join(" and "),
            ),
            String::new(),
        )
    };
    Recommendation {
        app_kind: kind,
        best: best.id,
        mb_per_s: bw,
        runner_up: None,
        gain_over_runner_up: None,
        tie: verdict != Verdict::OnlyOne,
        numactl,
        text,
        verdict: Some(verdict),
        ratio: None,
        ratio_ci: None,
        margin: Some(PRACTICAL_MARGIN),
        same_placement: same.iter().map(|r| r.id).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::scenarios::ScenarioId::*;
    use crate::run::sample::opteron_scenarios;

    fn best(kind: AppKind, rows: &[ScenarioResult]) -> ScenarioId {
        recommend_for(kind, rows).unwrap().best
    }

    /// Sets a row's rounds (and its summary from them).
    fn set_rounds(rows: &mut [ScenarioResult], id: ScenarioId, rounds: Vec<f64>) {
        let r = rows.iter_mut().find(|r| r.id == id).unwrap();
        r.mb_per_s = crate::stats::Summary::of(&rounds);
        r.rounds_mb_per_s = rounds;
    }

    /// 9 rounds around `mb` with a drift shared by every row (`drift[i]`) and a little noise
    /// of the row's own (`wiggle` as a fraction, alternating in sign).
    fn rounds(mb: f64, wiggle: f64, phase: usize) -> Vec<f64> {
        let drift = [1.0, 0.8, 1.1, 0.95, 1.2, 0.9, 1.05, 0.85, 1.0];
        let sign = |i: usize| {
            if (i + phase).is_multiple_of(3) {
                1.0
            } else {
                -0.5
            }
        };
        crate::testutil::drifting(mb, &drift, |i| wiggle * sign(i))
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
        assert_eq!(unaware.verdict, Some(Verdict::Winner));
        assert_eq!(unaware.numactl, "numactl --interleave=all APP");
        assert!(
            unaware.text.contains("8422 MB/s") && unaware.text.contains("+34%"),
            "{}",
            unaware.text
        );
    }

    /// A clear winner over drifting rounds is named; noise alone is
    /// "indistinguishable here" with no numactl line.
    #[test]
    fn paired_rounds_name_a_clear_winner_and_call_noise_indistinguishable() {
        let mut rows = opteron_scenarios();
        // (f) 30 % above (d), the host drifting +-20 % under both.
        set_rounds(&mut rows, AllOneNode, rounds(6000.0, 0.02, 0));
        set_rounds(&mut rows, AllInterleave, rounds(7800.0, 0.02, 1));
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert_eq!(
            (rec.best, rec.verdict),
            (AllInterleave, Some(Verdict::Winner))
        );
        assert_eq!(rec.numactl, "numactl --interleave=all APP");
        assert!(
            rec.ratio_ci.unwrap().low > 1.0 + PRACTICAL_MARGIN,
            "{rec:?}"
        );
        // The same gap between rounds that stayed disturbed names no winner (docs/METHODOLOGY.md,
        // "Disturbed repetitions"): the gap may be the other program's, not the placement's.
        let d = rows.iter_mut().find(|r| r.id == AllOneNode).unwrap();
        let mut q = crate::results::quality::RepetitionQuality::new(0.9, 0);
        q.disturbed = true;
        d.quality = Some(q);
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert_eq!(rec.verdict, Some(Verdict::Disturbed), "{rec:?}");
        assert!(rec.tie && rec.numactl.is_empty(), "{rec:?}");
        assert!(
            rec.text.contains("disturbed") && rec.text.contains("(d)"),
            "{}",
            rec.text
        );
        rows.iter_mut()
            .find(|r| r.id == AllOneNode)
            .unwrap()
            .quality = None;
        // Same mean, +-2 % of their own noise each, 20 % drift: indistinguishable.
        set_rounds(&mut rows, AllInterleave, rounds(6000.0, 0.02, 1));
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert_eq!(rec.verdict, Some(Verdict::Indistinguishable));
        assert!(rec.tie && rec.numactl.is_empty(), "{rec:?}");
        assert!(
            rec.text.contains("indistinguishable here (within +-")
                && rec.text.contains("no placement to choose"),
            "{}",
            rec.text
        );
        // A 2 % real difference stays under the practical margin.
        set_rounds(&mut rows, AllInterleave, rounds(6120.0, 0.0, 0));
        set_rounds(&mut rows, AllOneNode, rounds(6000.0, 0.0, 0));
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert_eq!(rec.verdict, Some(Verdict::Indistinguishable), "{rec:?}");
        // Four rounds: no interval, no winner, however large the gap.
        let r4: Vec<f64> = rounds(6000.0, 0.0, 0)[..4].to_vec();
        set_rounds(&mut rows, AllOneNode, r4.clone());
        set_rounds(
            &mut rows,
            AllInterleave,
            r4.iter().map(|x| x * 2.0).collect(),
        );
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert_eq!(rec.verdict, Some(Verdict::NoInterval));
        assert!(rec.numactl.is_empty() && rec.text.contains("no winner named"));
    }

    /// When the pairs disagree with the medians, the pairs decide.
    #[test]
    fn paired_rounds_overrule_the_medians() {
        let mut rows = opteron_scenarios();
        // Medians: (d) 300, (f) 270; but (f) is ahead in 8 of 9 rounds (+10 to +20 %).
        let d = vec![
            100.0, 100.0, 100.0, 100.0, 300.0, 300.0, 300.0, 300.0, 300.0,
        ];
        let f = vec![
            120.0, 120.0, 120.0, 120.0, 270.0, 330.0, 330.0, 330.0, 330.0,
        ];
        set_rounds(&mut rows, AllOneNode, d);
        set_rounds(&mut rows, AllInterleave, f);
        let rec = recommend_for(AppKind::MultiThreadedNumaUnaware, &rows).unwrap();
        assert_eq!(
            (rec.best, rec.verdict),
            (AllInterleave, Some(Verdict::Winner))
        );
        assert!(
            (rec.gain_over_runner_up.unwrap() - 1.1).abs() < 1e-9,
            "{rec:?}"
        );
        assert!(rec.text.contains("+10% over (d)"), "{}", rec.text);
    }

    #[test]
    fn merged_scenarios_are_never_ranked_against_each_other() {
        let mut rows = opteron_scenarios();
        for r in rows.iter_mut() {
            if matches!(r.id, AllLocal | AllInterleave) {
                r.same_as = Some(AllOneNode);
                r.same_reason = Some("same placement here: one memory node (node 0)".into());
            }
        }
        for kind in [
            AppKind::MultiThreadedNumaUnaware,
            AppKind::MultiThreadedNumaAware,
        ] {
            let rec = recommend_for(kind, &rows).unwrap();
            assert_eq!(rec.verdict, Some(Verdict::SamePlacement), "{rec:?}");
            assert!(rec.numactl.is_empty() && rec.runner_up.is_none());
            assert!(rec.text.contains("one memory node"), "{}", rec.text);
        }
    }

    #[test]
    fn unmeasured_rows_do_not_compete() {
        let mut rows = opteron_scenarios();
        // (g) unavailable: never recommended even though it is a candidate.
        assert!(recommend(&rows)
            .iter()
            .all(|r| r.best != AllWeightedInterleave));
        // More CPUs than nodes: one copy per node is not compared with all-thread rows.
        let mut one_node = opteron_scenarios();
        for r in one_node.iter_mut() {
            if r.id == CopyPerNode {
                r.threads = 1;
            }
        }
        let rec = recommend_for(AppKind::SeveralSingleThreaded, &one_node).unwrap();
        assert_eq!((rec.best, rec.runner_up), (CopyPerNode, None));
        assert_eq!(rec.verdict, Some(Verdict::OnlyOne));
        // Nothing measured: no recommendation.
        for r in rows.iter_mut() {
            r.mb_per_s = None;
        }
        assert!(recommend(&rows).is_empty());
    }
}
