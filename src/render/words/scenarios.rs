//! The scenarios' single-thread latency in words: what the scenario table's ns column
//! measured ([`latency_conditions`], which `report --full` and the HTML print under the
//! table) and how (b)'s latency compares with (a)'s, decided by the paired ratio of their
//! interleaved blocks.

use crate::render::format::estimate::ratio_gain;
use crate::results::scenarios::{ScenarioId, ScenarioResult, ScenarioTable};
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
        Decision::Higher | Decision::Lower => {
            format!("(b) vs (a) latency: {}, {rounds}", ratio_gain(&iv))
        }
        Decision::Indistinguishable { within } => format!(
            "(b) vs (a) latency: indistinguishable here (within \u{b1}{}; {rounds})",
            percent(within)
        ),
        Decision::NoInterval { samples } => {
            format!("(b) vs (a) latency: no interval (n={samples}), so no difference is stated")
        }
    })
}

/// The run's warning for a row of (a) and (b) whose single-thread latency was not
/// measured, naming the row and why; `None` where it was measured or not asked.
pub fn latency_not_measured(s: &ScenarioResult) -> Option<String> {
    let why = s.latency_unavailable.as_ref()?;
    Some(format!(
        "policy scenario ({}) {}: its single-thread latency was not measured: {why}",
        s.letter, s.label
    ))
}

/// What the scenario table's ns column is: one thread's latency under which conditions
/// (a latency measured apart from the headline's says its conditions); `None` when
/// no row has a latency.
pub fn latency_conditions(t: &ScenarioTable) -> Option<String> {
    if t.scenarios.iter().all(|s| s.latency_ns.is_none()) {
        return None;
    }
    let size = t
        .latency_working_set_bytes
        .map(|b| format!(" on {}", crate::results::format::format_bytes(b)))
        .unwrap_or_default();
    // Row (a) pinned its thread to one CPU in files before the fix; since, it binds the
    // thread to its node's CPUs (its numactl line). Say which this file holds.
    let a = match t.scenarios.first().map(|s| s.cpus.as_slice()) {
        Some([one]) => format!("pinned to CPU {one}"),
        Some(cpus) if !cpus.is_empty() => format!(
            "on node {}'s CPUs ({})",
            t.home_node,
            crate::results::format::format_list(cpus)
        ),
        _ => "pinned to its CPU".to_string(),
    };
    let conditions = format!(
        "ns: one thread's median dependent-load latency, random walk, 4k pages{size} on node {}; (a) {a}, (b) left to the scheduler",
        t.home_node
    );
    // The rows' blocks, interleaved or not, and (b) against (a) only as the
    // paired interval allows. Older files hold bare medians and read as before.
    let blocks: Vec<&crate::results::scenarios::ScenarioLatency> = t
        .scenarios
        .iter()
        .filter(|s| s.same_as.is_none())
        .filter_map(|s| s.latency.as_ref())
        .collect();
    let Some(most) = blocks.iter().map(|l| l.blocks.blocks).max() else {
        return Some(conditions);
    };
    let how = if blocks.iter().any(|l| l.interleaved) {
        format!(
            "(a) and (b) measured in {most} interleaved blocks each ((a) (b), then (b) (a), ...), [95 % interval] over the block medians"
        )
    } else {
        format!("measured in {most} blocks, [95 % interval] over the block medians")
    };
    let mut line = format!("{conditions}; {how}");
    if let Some(d) = latency_difference(t) {
        line.push_str("; ");
        line.push_str(&d);
    }
    Some(line)
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

    /// A row of (a) or (b) whose latency was not measured says so, with why, as the run's
    /// warning; a measured row says nothing.
    #[test]
    fn a_latency_not_measured_is_the_row_s_warning() {
        let mut t = table_with(None, false);
        assert_eq!(latency_not_measured(&t.scenarios[0]), None);
        t.scenarios[0].latency_unavailable = Some("node 0 has 12 MiB available".into());
        assert_eq!(
            latency_not_measured(&t.scenarios[0]).as_deref(),
            Some(
                "policy scenario (a) 1 thread, bound to its node, local memory: its single-thread latency was not measured: node 0 has 12 MiB available"
            )
        );
    }

    /// The scenario table's ns cells carry their interval over the blocks, a
    /// disturbed latency is marked, the conditions line says how the blocks ran and states
    /// (b) against (a) only beyond noise; `report --full`, the HTML cell and the CSV columns
    /// say the same.
    #[test]
    fn scenario_latencies_show_their_interval_blocks_and_paired_difference() {
        let mut r = crate::run::sample::results();
        let full = |r: &crate::results::RunResults| {
            crate::render::fixture::written(|o| crate::render::run_text::render(r, o))
        };
        let s = full(&r);
        assert!(s.contains("45.6 [45.6, 45.6]"), "{s}");
        assert!(s.contains("57.5 [57.5, 57.5]"), "{s}");
        assert!(
            s.contains("(a) and (b) measured in 9 interleaved blocks each ((a) (b), then (b) (a), ...), [95 % interval] over the block medians; (b) vs (a) latency: +26 % [+26, +26 %], paired, 9 rounds"),
            "{s}"
        );
        // Noise: the rounds' ratios straddle 1 beyond the margin's reach.
        let t = r.scenarios.as_mut().unwrap();
        let a = t.scenarios[0].latency.clone().unwrap();
        let mut b = a.clone();
        b.blocks.block_medians_ns = [0.9, 1.1, 0.95, 1.05, 1.0, 1.08, 0.93, 1.02, 0.99]
            .iter()
            .map(|f| f * 45.6)
            .collect();
        t.scenarios[1].latency_ratio_to_a = crate::run::scenarios::latency::ratio_to_a(&a, &b);
        let line = latency_conditions(r.scenarios.as_ref().unwrap()).unwrap();
        assert!(
            line.contains(
                "(b) vs (a) latency: indistinguishable here (within \u{b1}8 %; paired, 9 rounds)"
            ),
            "{line}"
        );
        let mut q = crate::results::quality::RepetitionQuality::new(0.9, 3);
        q.disturbed = true;
        let t = r.scenarios.as_mut().unwrap();
        t.scenarios[0].latency.as_mut().unwrap().quality = Some(q);
        let s = full(&r);
        assert!(s.contains("45.6 [45.6, 45.6] (disturbed)"), "{s}");
        assert!(s.contains("(b) vs (a) latency: not stated"), "{s}");
        let html = crate::render::html::render(&r);
        assert!(
            html.contains("<td>45.6 [45.6, 45.6] (disturbed)</td>"),
            "{html}"
        );
        let csv = crate::render::run_view::policy::scenarios_table(&r);
        let row = &csv.rows[1];
        assert_eq!(
            row[csv.col("ns_per_load_blocks_count")],
            crate::render::run_view::Cell::Int(9)
        );
        assert!(matches!(
            row[csv.col("ns_per_load_ratio_to_a")],
            crate::render::run_view::Cell::Num(_)
        ));
        assert_eq!(
            csv.rows[0][csv.col("ns_per_load_disturbed")],
            crate::render::run_view::Cell::Bool(true)
        );
    }
}
