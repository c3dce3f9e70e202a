//! The policy scenarios (a)..(g) and the per-kind recommendations as tables.

use super::{Cell, Table};
use crate::results::RunResults;

/// The Opteron closing table for this machine.
pub fn scenarios_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "scenarios",
        "Policy scenarios",
        &[
            "scenario",
            "what runs",
            "threads",
            "memory policy",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "ns per load",
            "on intended nodes (fraction)",
            "numactl",
            "not measured because",
        ],
    );
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            t.rows.push(vec![
                Cell::Text(format!("({})", row.letter)),
                Cell::Text(row.label.clone()),
                Cell::Int(row.threads as u64),
                Cell::Text(row.policy.clone()),
                Cell::opt(row.mb_per_s.map(|s| s.median)),
                Cell::opt(row.mb_per_s.map(|s| s.min)),
                Cell::opt(row.mb_per_s.map(|s| s.max)),
                Cell::opt(row.latency_ns),
                Cell::opt(row.placement_fraction),
                Cell::Text(row.numactl.clone()),
                row.unavailable.clone().map_or(Cell::Missing, Cell::Text),
            ]);
        }
    }
    t
}

/// The winner per kind of application.
pub fn recommendations_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "recommendations",
        "Best placement per kind of application",
        &[
            "application",
            "best scenario",
            "MB/s (MB = 10^6 B)",
            "gain over runner-up",
            "numactl",
        ],
    );
    if let Some(s) = &r.scenarios {
        for rec in &s.recommendations {
            let best = s.get(rec.best);
            t.rows.push(vec![
                Cell::Text(rec.app_kind.label().into()),
                Cell::Text(best.map_or_else(
                    || rec.best.label().to_string(),
                    |b| format!("({}) {}", b.letter, b.label),
                )),
                Cell::Num(rec.mb_per_s),
                match (rec.gain_over_runner_up, rec.tie) {
                    (_, true) => Cell::Text("tie (< 5 %)".into()),
                    (Some(g), _) => Cell::Text(format!("{:+.0} %", (g - 1.0) * 100.0)),
                    (None, _) => Cell::Missing,
                },
                Cell::Text(rec.numactl.clone()),
            ]);
        }
    }
    t
}
