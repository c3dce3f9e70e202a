//! The policy scenarios (a)..(g) and the per-kind recommendations as tables.

use super::{ci_cells, ci_columns, interval_cells, quality_cells, Cell, Table};
use crate::render::format::estimate;
use crate::results::scenarios::Verdict;
use crate::results::{
    scenarios::{Recommendation, ScenarioResult},
    RunResults,
};
use crate::stats::Estimate;

/// The Opteron closing table for this machine.
pub fn scenarios_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "scenarios",
        "Policy scenarios",
        &[
            ("scenario", "scenario"),
            ("what_runs", "what runs"),
            ("threads_count", "threads"),
            ("memory_policy", "memory policy"),
        ],
    );
    t.extend_estimate("mb_per_s", "MB/s (MB = 10^6 B)");
    t.extend([
        ("mb_per_s_min", "MB/s min"),
        ("mb_per_s_max", "MB/s max"),
        ("ns_per_load_median", "ns per load"),
        ("on_intended_node_fraction", "on intended nodes (fraction)"),
        ("numactl", "numactl"),
        ("not_measured_because", "not measured because"),
        ("same_placement_as", "same placement as"),
        ("why_the_same", "why the same"),
    ]);
    // The single-thread latency's interval over its blocks and (b)'s paired ratio to (a),
    // appended so older readers' columns keep their places.
    t.extend(ci_columns("ns_per_load", "ns per load"));
    t.extend([
        (
            "ns_per_load_ci_level_fraction",
            "ns per load interval coverage (fraction)",
        ),
        ("ns_per_load_blocks_count", "ns per load: blocks"),
        ("ns_per_load_disturbed", "ns per load: disturbed"),
        ("ns_per_load_ratio_to_a", "ns per load over (a)'s (paired)"),
    ]);
    t.extend(ci_columns(
        "ns_per_load_ratio_to_a",
        "ns per load over (a)'s:",
    ));
    if let Some(s) = &r.scenarios {
        t.rows
            .extend(s.scenarios.iter().map(|row| scenario_row(s, row)));
    }
    t
}

/// One row of [`scenarios_table`].
fn scenario_row(s: &crate::results::scenarios::ScenarioTable, row: &ScenarioResult) -> Vec<Cell> {
    let mut cells = vec![
        Cell::Text(format!("({})", row.letter)),
        Cell::Text(row.label.clone()),
        Cell::Int(row.threads as u64),
        Cell::Text(row.policy.clone()),
    ];
    cells.extend(interval_cells(row.mb_per_s.as_ref()));
    cells.extend(quality_cells(row.quality.as_ref()));
    cells.extend([
        Cell::opt(row.mb_per_s.map(|s| s.min)),
        Cell::opt(row.mb_per_s.map(|s| s.max)),
        Cell::opt(row.latency_ns),
        Cell::opt(row.placement_fraction),
        Cell::Text(row.numactl.clone()),
        row.unavailable.clone().map_or(Cell::Missing, Cell::Text),
        row.same_as
            .and_then(|id| s.get(id))
            .map_or(Cell::Missing, |o| Cell::Text(format!("({})", o.letter))),
        row.same_reason.clone().map_or(Cell::Missing, Cell::Text),
    ]);
    let lat = row.latency.as_ref();
    let ratio = row.latency_ratio_to_a.as_ref();
    cells.extend(ci_cells(lat.and_then(|l| l.ns_per_load.ci)));
    let [low, high, _] = ci_cells(ratio.and_then(|r| r.ci));
    cells.extend([
        lat.map_or(Cell::Missing, |l| Cell::Int(l.ns_per_load.samples as u64)),
        lat.map_or(Cell::Missing, |l| Cell::Bool(l.disturbed())),
        Cell::opt(ratio.map(|r| r.ratio)),
        low,
        high,
    ]);
    cells
}

/// Replaces the `ns_per_load_median` column of [`scenarios_table`] by each row's
/// single-thread latency for people (text and HTML reports): `282 [270, 301]` (the median of
/// its blocks and the 95 % interval over them), `282, no interval` from fewer than six blocks
/// or from a file written before the blocks, with ` (disturbed)` where its blocks are.
pub fn with_latency_text(mut t: Table, r: &RunResults) -> Table {
    let c = t.col("ns_per_load_median");
    let results = r.scenarios.iter().flat_map(|s| &s.scenarios);
    for (row, res) in t.rows.iter_mut().zip(results) {
        let point = res.latency_ns.map(|v| crate::stats::Summary::point(v, 1));
        let Some(s) = res.latency.as_ref().map(|l| l.ns_per_load).or(point) else {
            continue;
        };
        let mut v = estimate::cell(&s.estimate());
        if res.latency_disturbed() {
            v.push_str(" (disturbed)");
        }
        row[c] = Cell::Text(v);
    }
    t.columns[c] = "ns per load median [95 % interval]".into();
    t
}

/// The winner per kind of application. `gain_over_runner_up_ratio` is the winner's median
/// over the runner-up's (1.07 = 7 % more); `comparison` says the same in words with the
/// paired interval.
pub fn recommendations_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "recommendations",
        "Best placement per kind of application",
        &[
            ("application", "application"),
            ("best_scenario", "best scenario"),
            ("mb_per_s_median", "MB/s (MB = 10^6 B)"),
            ("comparison", "gain over runner-up"),
            ("numactl", "numactl"),
            ("verdict", "verdict"),
            ("gain_over_runner_up_ratio", "gain over runner-up (ratio)"),
            ("paired_ratio", "paired ratio (winner / runner-up)"),
        ],
    );
    t.extend(ci_columns("paired_ratio", "paired ratio"));
    t.extend([
        ("ci_level_fraction", "interval coverage (fraction)"),
        ("margin_fraction", "practical margin (fraction)"),
    ]);
    if let Some(s) = &r.scenarios {
        for rec in &s.recommendations {
            let best = s.get(rec.best);
            let named = names_winner(rec);
            t.rows.push(vec![
                Cell::Text(rec.app_kind.label().into()),
                Cell::Text(if named {
                    best.map_or_else(
                        || rec.best.label().to_string(),
                        |b| format!("({}) {}", b.letter, b.label),
                    )
                } else {
                    "none named".into()
                }),
                Cell::Num(rec.mb_per_s),
                Cell::Text(comparison(rec)),
                // No placement named: no command (a dash in the report, empty in the CSV).
                if rec.numactl.trim().is_empty() {
                    Cell::Missing
                } else {
                    Cell::Text(rec.numactl.clone())
                },
                // The verdict's name as results.json spells it.
                rec.verdict
                    .and_then(|v| serde_json::to_value(v).ok()?.as_str().map(String::from))
                    .map_or(Cell::Missing, Cell::Text),
            ]);
            let row = t.rows.last_mut().expect("pushed above");
            row.extend([rec.gain_over_runner_up, rec.ratio].map(Cell::opt));
            row.extend(ci_cells(rec.ratio_ci));
            row.push(Cell::opt(rec.margin));
        }
    }
    t
}

/// True when the recommendation names a winner to act on (a winner, or the only candidate
/// measured); old files without a verdict name one unless they called a tie.
pub fn names_winner(rec: &Recommendation) -> bool {
    match rec.verdict {
        Some(v) => matches!(v, Verdict::Winner | Verdict::OnlyOne),
        None => !rec.tie,
    }
}

/// How the winner compares with the runner-up, in words with the paired interval:
/// "+12 % [+8, +16 %] paired", "indistinguishable here (within +-4 %)", "same placement".
pub fn comparison(rec: &Recommendation) -> String {
    let pct = |r: f64| (r - 1.0) * 100.0;
    let reach = rec
        .ratio_ci
        .map(|c| pct(c.low).abs().max(pct(c.high).abs()));
    let gain = |r: f64, ci| estimate::gain(&Estimate::new(r, ci, 0).shifted(-1.0));
    match rec.verdict {
        Some(Verdict::Winner) => match (rec.ratio, rec.ratio_ci) {
            (Some(r), ci @ Some(_)) => format!("{} paired", gain(r, ci)),
            _ => rec
                .gain_over_runner_up
                .map_or_else(|| "winner".into(), |g| gain(g, None)),
        },
        Some(Verdict::Indistinguishable) => match reach {
            Some(x) => format!("indistinguishable here (within \u{b1}{x:.0} %)"),
            None => "indistinguishable here".into(),
        },
        Some(Verdict::SamePlacement) => "same placement: nothing to choose".into(),
        Some(Verdict::OnlyOne) => "only one candidate measured".into(),
        Some(Verdict::NoInterval) => "no interval (too few rounds): no winner named".into(),
        Some(Verdict::Disturbed) => "disturbed rounds: no winner named".into(),
        None => match (rec.gain_over_runner_up, rec.tie) {
            (_, true) => "tie (< 5 %)".into(),
            (Some(g), _) => gain(g, None),
            (None, _) => "-".into(),
        },
    }
}

/// The letters of a scenario and of every scenario measured as the same placement,
/// "(d) = (e) = (f)", and the reason they are one configuration here.
pub fn merged_letters(
    t: &crate::results::scenarios::ScenarioTable,
    row: &crate::results::scenarios::ScenarioResult,
) -> (String, Option<String>) {
    let same: Vec<&crate::results::scenarios::ScenarioResult> = t
        .scenarios
        .iter()
        .filter(|o| o.same_as == Some(row.id))
        .collect();
    let mut letters = format!("({})", row.letter);
    for o in &same {
        letters.push_str(&format!(" = ({})", o.letter));
    }
    let reason = same.iter().find_map(|o| o.same_reason.clone());
    (letters, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recommendation that names no placement has no command: the cell is missing (a dash
    /// in the report, empty in the CSV), never an empty command.
    #[test]
    fn a_recommendation_without_a_winner_has_no_command() {
        let mut r = crate::run::sample::results();
        let recs = &mut r.scenarios.as_mut().unwrap().recommendations;
        assert!(!recs.is_empty());
        recs[0].numactl = String::new();
        let t = recommendations_table(&r);
        let col = t.columns.iter().position(|c| c == "numactl").unwrap();
        assert!(matches!(t.rows[0][col], Cell::Missing));
        assert_eq!(t.rows[0][col].display(), "-");
        assert!(matches!(&t.rows[1][col], Cell::Text(x) if !x.is_empty()));
    }
}
