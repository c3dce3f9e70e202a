//! A figure's precision record ([`Precision`]: the half-width reached, the target, the extra
//! rounds the target cost) in words, for labels and conditions lines, and the run's precision
//! line that `report --full` prints under the scenario table. The record itself is the
//! contract in `results::quality`.

use crate::results::quality::Precision;

/// The half-width reached ("no interval" without one), then the target and the extra rounds,
/// counted as `one` / `many` ("round"/"rounds" for interleaved rounds, "sample"/"samples" for
/// a latency measured alone, "repetition"/"repetitions" for a bandwidth):
/// "+-2.1 % (target +-3 %, 3 extra samples)".
pub fn clause_in(p: &Precision, one: &str, many: &str) -> String {
    let width = p.half_width_fraction.map_or("no interval".into(), |h| {
        format!("\u{b1}{:.1} %", h * 100.0)
    });
    let extra = match p.extra_rounds {
        0 => format!("no extra {many}"),
        1 => format!("1 extra {one}"),
        n => format!("{n} extra {many}"),
    };
    let target = p.target_half_width_fraction * 100.0;
    format!("{width} (target \u{b1}{target:.0} %, {extra})")
}

/// The precision line: the run's target and, for the scenario rows measured in rounds, the
/// width each reached and the extra rounds it got (the budget goes where the
/// intervals are widest). `None` when no row carries a precision record.
pub fn precision_line(r: &crate::results::RunResults) -> Option<String> {
    let t = r.scenarios.as_ref()?;
    // Each row measured toward the target, "(a) +-2.1 % (target +-3 %, 4 extra rounds)"; rows
    // that repeat another's measurement are left out.
    let rows: Vec<String> = (t.scenarios.iter())
        .filter(|s| s.same_as.is_none())
        .filter_map(|s| {
            Some(format!(
                "({}) {}",
                s.letter,
                clause_in(&s.precision?, "round", "rounds")
            ))
        })
        .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_clauses_name_the_width_the_target_and_the_extras() {
        let p = Precision {
            target_half_width_fraction: 0.03,
            half_width_fraction: Some(0.021),
            planned_rounds: 9,
            extra_rounds: 1,
        };
        assert_eq!(
            clause_in(&p, "sample", "samples"),
            "\u{b1}2.1 % (target \u{b1}3 %, 1 extra sample)"
        );
        let p = Precision {
            extra_rounds: 0,
            half_width_fraction: None,
            ..p
        };
        assert_eq!(
            clause_in(&p, "repetition", "repetitions"),
            "no interval (target \u{b1}3 %, no extra repetitions)"
        );
        let p = Precision {
            extra_rounds: 4,
            ..p
        };
        let rounds = clause_in(&p, "round", "rounds");
        assert_eq!(rounds, "no interval (target \u{b1}3 %, 4 extra rounds)");
    }
}
