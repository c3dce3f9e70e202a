//! The precision lines of the HTML report: how wide each headline figure's interval came out
//! against the run's target. The latency and bandwidth lines read the figure list
//! ([`crate::results::figures`]), the scenario line the rows' own precision records; the note
//! under the scenario table says what its latency column measured.

use crate::results::figures::RunFigures;
use crate::results::scenarios::ScenarioTable;
use crate::results::RunResults;

/// "latency interval half-widths against the quick budget's target of ±5 %: " and `items`;
/// `None` without items.
fn against_target(r: &RunResults, what: &str, items: Vec<String>) -> Option<String> {
    (!items.is_empty()).then(|| {
        format!(
            "{what} interval half-widths against the {} budget's target of \u{b1}{:.0} %: {}",
            r.plan.budget.name(),
            r.plan.budget.target_half_width() * 100.0,
            items.join("; ")
        )
    })
}

/// The width each figure of `unit` (the local figure and the matrix cells) reached, from the
/// figure list: `local ±1.2 %; 0 → 1 ±2.0 %`.
pub(super) fn figures_line(
    r: &RunResults,
    f: &RunFigures,
    unit: &str,
    what: &str,
) -> Option<String> {
    let items = f
        .figures
        .iter()
        .filter(|g| g.unit == unit && g.key.starts_with(what))
        .filter_map(|g| {
            let w = g.estimate.relative_half_width()?;
            let cell = g.key.rsplitn(3, '.').collect::<Vec<_>>();
            let name = match cell.as_slice() {
                [to, from, _] if from.parse::<u32>().is_ok() => format!("{from} \u{2192} {to}"),
                _ => "local".to_string(),
            };
            Some(format!("{name} \u{b1}{:.1} %", w * 100.0))
        })
        .collect();
    against_target(r, what, items)
}

/// The scenario rows measured toward the target: the width each reached and the extra
/// rounds it got.
pub(super) fn scenarios_line(r: &RunResults, t: &ScenarioTable) -> Option<String> {
    let rows = crate::render::words::precision::scenario_clauses(t);
    against_target(r, "scenario", rows)
}

/// What the scenario table's ns column measured, and (b) against (a) when the paired rounds
/// decide it; `None` when no row has a latency.
pub(super) fn scenario_latency_note(t: &ScenarioTable) -> Option<String> {
    if t.scenarios.iter().all(|s| s.latency_ns.is_none()) {
        return None;
    }
    let size = t
        .latency_working_set_bytes
        .map(|b| format!(" on {}", crate::results::format::format_bytes(b)))
        .unwrap_or_default();
    let mut line = format!(
        "ns: one thread's median dependent-load latency, random walk, 4k pages{size} on node {}; \
         (a) bound to the node, (b) left to the scheduler",
        t.home_node
    );
    let blocks = t
        .scenarios
        .iter()
        .filter(|s| s.same_as.is_none())
        .filter_map(|s| s.latency.as_ref());
    if let Some(most) = blocks.map(|l| l.blocks.blocks).max() {
        line.push_str(&format!(
            "; measured in {most} blocks, [95 % interval] over the block medians"
        ));
    }
    if let Some(d) = crate::render::words::scenarios::latency_difference(t) {
        line.push_str("; ");
        line.push_str(&d);
    }
    Some(line)
}
