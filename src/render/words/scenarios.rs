//! The scenarios' single-thread latency clause: how (b)'s latency compares with (a)'s,
//! decided by the paired ratio of their interleaved blocks (the conditions line and the
//! HTML precision section say it).

use super::numbers::signed;
use crate::results::scenarios::{ScenarioId, ScenarioTable};
use crate::stats::decide::{percent, Decision, PRACTICAL_MARGIN};

/// How (b)'s single-thread latency compares with (a)'s, in one clause, decided by the
/// paired ratio of their interleaved blocks: a difference is stated only when
/// the ratio's whole interval lies beyond 1 +- the practical margin
/// (`(b) vs (a) latency: +12 % [+8, +15 %], paired, 9 rounds`); otherwise "indistinguishable
/// here (within +-x %)"; nothing is stated from too few rounds or from disturbed blocks.
/// `None` when (b) was not measured apart from (a) (merged, unavailable, older files).
pub fn latency_difference(t: &ScenarioTable) -> Option<String> {
    let a = t.get(ScenarioId::PinnedLocal)?;
    let b = t.get(ScenarioId::UnpinnedOneNode)?;
    if b.same_as.is_some() {
        return None;
    }
    let r = b.latency_ratio_to_a?;
    let rounds = format!(
        "paired, {} round{}",
        r.pairs,
        if r.pairs == 1 { "" } else { "s" }
    );
    if a.latency_disturbed() || b.latency_disturbed() {
        return Some(format!(
            "(b) vs (a) latency: not stated, their blocks stayed disturbed after the retakes ran out (DISTURBED; {rounds})"
        ));
    }
    let iv = r.interval();
    Some(match iv.decide(PRACTICAL_MARGIN) {
        Decision::Higher | Decision::Lower => format!(
            "(b) vs (a) latency: {} % [{}, {} %], {rounds}",
            signed(r.ratio - 1.0),
            signed(r.ci.map(|c| c.low).unwrap_or(r.ratio) - 1.0),
            signed(r.ci.map(|c| c.high).unwrap_or(r.ratio) - 1.0)
        ),
        Decision::Indistinguishable { within } => format!(
            "(b) vs (a) latency: indistinguishable here (within \u{b1}{}; {rounds})",
            percent(within)
        ),
        Decision::NoInterval { samples } => {
            format!("(b) vs (a) latency: no interval (n={samples}), so no difference is stated")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::words::disturbed::scenario_row;
    use crate::results::scenarios::tests::{ratio, table_with};

    /// (b) vs (a) is stated only when the paired interval clears the 3 % margin,
    /// in the house wording; otherwise "indistinguishable here (within +-x %)"; nothing from
    /// too few rounds or from disturbed blocks; nothing when (b) is (a) here.
    #[test]
    fn the_latency_difference_is_stated_only_beyond_noise() {
        let t = table_with(ratio(1.12, 1.08, 1.15, 9), false);
        assert_eq!(
            latency_difference(&t).unwrap(),
            "(b) vs (a) latency: +12 % [+8.0, +15 %], paired, 9 rounds"
        );
        let t = table_with(ratio(0.80, 0.75, 0.85, 9), false);
        assert_eq!(
            latency_difference(&t).unwrap(),
            "(b) vs (a) latency: -20 % [-25, -15 %], paired, 9 rounds"
        );
        // The interval reaches into 1 + 3 %: no difference, the reach said.
        let t = table_with(ratio(1.05, 1.02, 1.09, 9), false);
        assert_eq!(
            latency_difference(&t).unwrap(),
            "(b) vs (a) latency: indistinguishable here (within \u{b1}9 %; paired, 9 rounds)"
        );
        let mut few = ratio(1.3, 1.2, 1.4, 4).unwrap();
        few.ci = None;
        let t = table_with(Some(few), false);
        assert_eq!(
            latency_difference(&t).unwrap(),
            "(b) vs (a) latency: no interval (n=4), so no difference is stated"
        );
        let t = table_with(ratio(1.5, 1.4, 1.6, 9), true);
        let s = latency_difference(&t).unwrap();
        assert!(s.contains("not stated") && s.contains("DISTURBED"), "{s}");
        assert!(!s.contains("+50"), "{s}");
        let mut t = table_with(ratio(1.5, 1.4, 1.6, 9), false);
        t.scenarios[1].same_as = Some(ScenarioId::PinnedLocal);
        assert_eq!(latency_difference(&t), None);
        assert_eq!(latency_difference(&table_with(None, false)), None);
    }

    #[test]
    fn a_disturbed_latency_is_the_row_s_warning() {
        let t = table_with(None, true);
        let w = scenario_row(&t.scenarios[1]);
        assert!(
            w.as_deref().is_some_and(
                |w| w.starts_with("policy scenario (b)") && w.contains("its latency blocks")
            ),
            "{w:?}"
        );
        assert_eq!(scenario_row(&t.scenarios[0]), None);
    }
}
