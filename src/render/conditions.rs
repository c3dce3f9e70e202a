//! The lines that say how a run's figures were measured, shared by `report --full` and the
//! HTML report: the scenario rows' precision against the run's target and the conditions of
//! the scenario table's latency column (the bandwidth figures' widths against their target
//! are in the `bandwidth` command's section, which `report --full` prints).

use crate::results::format::format_bytes;
use crate::results::RunResults;

/// The precision line: the run's target and, for the scenario rows measured in rounds, the
/// width each reached and the extra rounds it got (the budget goes where the
/// intervals are widest). `None` when no row carries a precision record.
pub(crate) fn precision_line(r: &RunResults) -> Option<String> {
    let t = r.scenarios.as_ref()?;
    let rows = crate::render::precision_words::scenario_clauses(t);
    if rows.is_empty() {
        return None;
    }
    Some(format!(
        "interval half-widths against the {} budget's target of \u{b1}{:.0} %: {}",
        r.plan.budget.name(),
        r.plan.budget.target_half_width() * 100.0,
        rows.join("; ")
    ))
}

/// What the scenario table's ns column is: one thread's latency under which conditions
/// (a latency measured apart from the headline's says its conditions); `None` when
/// no row has a latency.
pub(crate) fn latency_conditions(t: &crate::results::scenarios::ScenarioTable) -> Option<String> {
    if t.scenarios.iter().all(|s| s.latency_ns.is_none()) {
        return None;
    }
    let size = t
        .latency_working_set_bytes
        .map(|b| format!(" on {}", format_bytes(b)))
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
    if let Some(d) = crate::render::words::scenarios::latency_difference(t) {
        line.push_str("; ");
        line.push_str(&d);
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::quality::RepetitionQuality;
    use crate::run::sample;

    /// The scenario table's ns cells carry their interval over the blocks, a
    /// disturbed latency is marked, the conditions line says how the blocks ran and states
    /// (b) against (a) only beyond noise; `report --full`, the HTML cell and the CSV columns
    /// say the same.
    #[test]
    fn scenario_latencies_show_their_interval_blocks_and_paired_difference() {
        let mut r = sample::results();
        let full = |r: &RunResults| {
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
        let mut q = RepetitionQuality::new(0.9, 3);
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
