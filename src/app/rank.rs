//! The decision between candidates, from their wall times in interleaved rounds: candidates
//! that place identically here are one configuration and are never ranked (said with the
//! reason); between distinct ones a winner is named only when every other candidate's paired
//! ratio has an interval beyond 1 + [`PRACTICAL_MARGIN`] (docs/METHODOLOGY.md, "Interleaving and
//! blocks", "Deciding", "Identical placements"), with the same rule as the run's
//! weighted-interleave advice ([`crate::stats::decide::unbeaten`]); otherwise "indistinguishable
//! here". Pure.

use crate::results::app::{AppCandidate, AppComparison, AppRanking};
use crate::results::scenarios::Verdict;
use crate::stats::decide::{percent, unbeaten};
use crate::stats::{paired_ratio, Decision, CONFIDENCE, PRACTICAL_MARGIN};

/// Per distinct candidate (its index in `cands`), the wall time of each round, `None` where
/// that round has no kept run.
pub type Rounds = Vec<(usize, Vec<Option<f64>>)>;

/// Ranks the candidates: `rounds` holds the distinct, measured ones.
pub fn rank(cands: &[AppCandidate], rounds: &Rounds) -> AppRanking {
    let name = |k: usize| format!("({}) {}", cands[k].letter, cands[k].id);
    let merged: Vec<usize> = (0..cands.len())
        .filter(|&k| cands[k].same_as.is_some())
        .collect();
    let base = |verdict, best: Option<usize>, text: String, comparisons| AppRanking {
        verdict,
        best: best.map(|k| cands[k].id.clone()),
        text,
        margin: PRACTICAL_MARGIN,
        comparisons,
    };
    match rounds.as_slice() {
        [] => base(
            Verdict::NoInterval,
            None,
            "nothing was measured: no candidate to rank.".into(),
            vec![],
        ),
        [(only, _)] if merged.is_empty() => base(
            Verdict::OnlyOne,
            None,
            format!(
                "{} is the only candidate measured: nothing to compare.",
                name(*only)
            ),
            vec![],
        ),
        [(only, _)] => {
            let names: Vec<String> = std::iter::once(*only)
                .chain(merged.iter().copied())
                .map(name)
                .collect();
            let why = merged
                .iter()
                .find_map(|&k| cands[k].same_reason.clone())
                .unwrap_or_else(|| "same placement here".into());
            base(
                Verdict::SamePlacement,
                None,
                format!(
                    "{} place threads and memory identically on this machine ({why}): indistinguishable here by construction, measured once, nothing to choose.",
                    names.join(", ")
                ),
                vec![],
            )
        }
        several => decide(cands, several, &name, &merged),
    }
}

/// Rounds where every distinct candidate has a run: the paired samples, as speeds (1 / wall
/// time, so higher is better as `unbeaten` expects).
fn paired_speeds(rounds: &[(usize, Vec<Option<f64>>)]) -> Vec<Vec<f64>> {
    let n = rounds.iter().map(|r| r.1.len()).min().unwrap_or(0);
    let full: Vec<usize> = (0..n)
        .filter(|&i| rounds.iter().all(|r| r.1[i].is_some_and(|w| w > 0.0)))
        .collect();
    rounds
        .iter()
        .map(|r| {
            full.iter()
                .map(|&i| 1.0 / r.1[i].unwrap_or(f64::NAN))
                .collect()
        })
        .collect()
}

fn decide(
    cands: &[AppCandidate],
    rounds: &[(usize, Vec<Option<f64>>)],
    name: &dyn Fn(usize) -> String,
    merged: &[usize],
) -> AppRanking {
    let speeds = paired_speeds(rounds);
    let refs: Vec<&[f64]> = speeds.iter().map(Vec::as_slice).collect();
    let (top, within, no_interval) = unbeaten(&refs, PRACTICAL_MARGIN);
    let comparisons = against_fastest(cands, rounds, &speeds);
    let also = merged_note(merged, name);
    let (verdict, best, text) = match top.as_slice() {
        [k] => {
            let c = &cands[rounds[*k].0];
            let overriding = c
                .observed
                .as_ref()
                .and_then(|o| o.overriding.as_ref())
                .map_or(String::new(), |_| {
                    " (but the program overrides this candidate's placement itself; see its observed placement)".to_string()
                });
            (
                Verdict::Winner,
                Some(rounds[*k].0),
                format!(
                    "{} is fastest beyond noise: every other candidate's paired wall-time ratio lies above 1 + {}{overriding}.{also}",
                    name(rounds[*k].0),
                    percent(PRACTICAL_MARGIN)
                ),
            )
        }
        _ if no_interval => (
            Verdict::NoInterval,
            None,
            format!(
                "{} paired round{} give no interval (at least 6 are needed): no candidate is named faster; raise --runs.{also}",
                speeds.first().map_or(0, Vec::len),
                if speeds.first().map_or(0, Vec::len) == 1 { "" } else { "s" }
            ),
        ),
        several => (
            Verdict::Indistinguishable,
            None,
            format!(
                "{} are indistinguishable here (within +-{}): no placement to choose between them.{also}",
                several.iter().map(|&k| name(rounds[k].0)).collect::<Vec<_>>().join(" and "),
                percent(within.unwrap_or(0.0))
            ),
        ),
    };
    AppRanking {
        verdict,
        best: best.map(|k| cands[k].id.clone()),
        text,
        margin: PRACTICAL_MARGIN,
        comparisons,
    }
}

/// Each candidate's paired wall-time ratio to the fastest by median wall time, and the
/// decision beyond noise.
fn against_fastest(
    cands: &[AppCandidate],
    rounds: &[(usize, Vec<Option<f64>>)],
    speeds: &[Vec<f64>],
) -> Vec<AppComparison> {
    // The fastest by median wall time is the reference of the comparisons.
    let median_wall = |k: usize| {
        cands[rounds[k].0]
            .wall_s
            .map_or(f64::INFINITY, |s| s.median)
    };
    let fastest = (0..rounds.len())
        .min_by(|&a, &b| median_wall(a).total_cmp(&median_wall(b)))
        .unwrap_or(0);
    let walls = |k: usize| -> Vec<f64> { speeds[k].iter().map(|s| 1.0 / s).collect() };
    (0..rounds.len())
        .filter(|&k| k != fastest)
        .map(|k| {
            let r = paired_ratio(&walls(fastest), &walls(k), CONFIDENCE);
            let decision = r.map_or(Decision::NoInterval { samples: 0 }, |r| {
                r.decide(PRACTICAL_MARGIN)
            });
            AppComparison {
                reference: cands[rounds[fastest].0].id.clone(),
                candidate: cands[rounds[k].0].id.clone(),
                ratio: r.map_or(f64::NAN, |r| r.ratio),
                ci: r.and_then(|r| r.ci),
                rounds: r.map_or(0, |r| r.samples),
                decision: match decision {
                    Decision::Higher => "slower",
                    Decision::Lower => "faster",
                    Decision::Indistinguishable { .. } => "indistinguishable",
                    Decision::NoInterval { .. } => "no-interval",
                }
                .into(),
            }
        })
        .collect()
}

/// The sentence naming the candidates merged into a measured one (empty when none).
fn merged_note(merged: &[usize], name: &dyn Fn(usize) -> String) -> String {
    if merged.is_empty() {
        String::new()
    } else {
        format!(
            " ({} place{} identically to a measured candidate and {} not ranked separately.)",
            merged
                .iter()
                .map(|&k| name(k))
                .collect::<Vec<_>>()
                .join(", "),
            if merged.len() == 1 { "s" } else { "" },
            if merged.len() == 1 { "is" } else { "are" },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Summary;

    fn cand(k: usize, walls: &[f64], same_as: Option<&str>) -> AppCandidate {
        AppCandidate {
            id: format!("c{k}"),
            letter: (b'a' + k as u8) as char,
            same_as: same_as.map(str::to_string),
            same_reason: same_as.map(|_| "same placement here: one memory node".to_string()),
            wall_s: Summary::of(walls),
            ..AppCandidate::default()
        }
    }

    /// Nine rounds with a drift shared by every candidate and a small wiggle of their own.
    fn walls(base: f64, wiggle: f64, phase: usize) -> Vec<f64> {
        let drift = [1.0, 1.3, 0.9, 1.1, 1.25, 0.95, 1.05, 1.2, 1.0];
        let sign = |i: usize| {
            if (i + phase).is_multiple_of(2) {
                1.0
            } else {
                -1.0
            }
        };
        crate::testutil::drifting(base, &drift, |i| wiggle * sign(i))
    }

    fn rounds_of(cands: &[AppCandidate], w: &[Vec<f64>]) -> Rounds {
        (0..cands.len())
            .filter(|&k| cands[k].same_as.is_none())
            .map(|k| (k, w[k].iter().map(|&x| Some(x)).collect()))
            .collect()
    }

    #[test]
    fn a_a_is_indistinguishable_and_a_clear_gap_names_a_winner() {
        // A/A: the same program twice, noise of its own in each round.
        let w = vec![walls(2.0, 0.01, 0), walls(2.0, 0.01, 1)];
        let c = vec![cand(0, &w[0], None), cand(1, &w[1], None)];
        let r = rank(&c, &rounds_of(&c, &w));
        assert_eq!(r.verdict, Verdict::Indistinguishable, "{}", r.text);
        assert!(r.best.is_none());
        assert_eq!(r.comparisons[0].decision, "indistinguishable");
        // One candidate 1.5x slower in every round, through a drift larger than the gap.
        let w = vec![walls(2.0, 0.01, 0), walls(3.0, 0.01, 1)];
        let c = vec![cand(0, &w[0], None), cand(1, &w[1], None)];
        let r = rank(&c, &rounds_of(&c, &w));
        assert_eq!(r.verdict, Verdict::Winner, "{}", r.text);
        assert_eq!(r.best.as_deref(), Some("c0"));
        assert_eq!(r.comparisons[0].decision, "slower");
        assert!((r.comparisons[0].ratio - 1.5).abs() < 0.05);
    }

    #[test]
    fn too_few_rounds_and_merged_candidates_name_no_winner() {
        let w: Vec<Vec<f64>> = vec![
            walls(2.0, 0.0, 0)[..3].to_vec(),
            walls(4.0, 0.0, 0)[..3].to_vec(),
        ];
        let c = vec![cand(0, &w[0], None), cand(1, &w[1], None)];
        let r = rank(&c, &rounds_of(&c, &w));
        assert_eq!(r.verdict, Verdict::NoInterval, "{}", r.text);
        assert!(r.text.contains("raise --runs"));
        // Identical placements: one measured, the other merged; never a winner between them.
        let w = vec![walls(2.0, 0.0, 0), walls(9.0, 0.0, 0)];
        let c = vec![cand(0, &w[0], None), cand(1, &w[1], Some("c0"))];
        let r = rank(&c, &rounds_of(&c, &w));
        assert_eq!(r.verdict, Verdict::SamePlacement);
        assert!(
            r.text
                .contains("(a) c0, (b) c1 place threads and memory identically"),
            "{}",
            r.text
        );
        let r = rank(&c[..1], &rounds_of(&c[..1], &w[..1]));
        assert_eq!(r.verdict, Verdict::OnlyOne);
        assert_eq!(rank(&c, &vec![]).verdict, Verdict::NoInterval);
    }
}
