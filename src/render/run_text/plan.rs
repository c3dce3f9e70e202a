//! The plan `numascope run --dry-run` prints: the parts with their estimates and settings,
//! the run's reference figures, then the skipped parts. Pure: takes a plan and a writer.

use std::io::{self, Write};

use crate::results::plan::Plan;

/// The plan of `--dry-run`: parts with estimates and settings, then skipped parts.
pub fn render_plan(out: &mut dyn Write, plan: &Plan) -> io::Result<()> {
    let target = plan
        .target_s
        .map(|t| format!(", target {t:.0} s on a 2-CPU machine"))
        .unwrap_or_default();
    writeln!(
        out,
        "numascope run plan ({} budget{target}): about {:.0} s",
        plan.budget.name(),
        plan.estimate_s
    )?;
    let mut rows: Vec<Vec<String>> = plan
        .parts
        .iter()
        .map(|p| {
            let mut d = p.detail.clone();
            for r in &p.reduced {
                d.push_str(&format!("; reduced: {r}"));
            }
            vec![
                p.part.name().to_string(),
                format!("{:.1} s", p.estimate_s),
                d,
            ]
        })
        .collect();
    // The run's reference figures, measured between the parts (not a part of its own).
    if let Some(x) = &plan.reference {
        rows.push(vec![
            "(reference)".to_string(),
            format!("{:.1} s", x.estimate_s),
            x.detail.clone(),
        ]);
    }
    write!(
        out,
        "{}",
        crate::render::format::width::fit_columns(&["part", "estimate", "what"], &rows)
    )?;
    if !plan.skipped.is_empty() {
        writeln!(out, "skipped:")?;
        for s in &plan.skipped {
            writeln!(out, "  {}: {}", s.part.name(), s.reason)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sample;

    #[test]
    fn plan_of_the_opteron_lists_parts_and_skips() {
        let t = sample::opteron_topology();
        let p =
            crate::run::plan::make_plan(&t, &Default::default(), crate::run::execute::BUILT).plan;
        let s = crate::render::fixture::written(|o| render_plan(o, &p));
        assert!(
            s.starts_with("numascope run plan (default budget, target 60 s"),
            "{s}"
        );
        assert!(s.contains("loaded-latency    "), "{s}");
        let only_topo = [crate::results::plan::Part::Topology];
        let p = crate::run::plan::make_plan(&t, &Default::default(), &only_topo).plan;
        let s = crate::render::fixture::written(|o| render_plan(o, &p));
        assert!(
            s.contains("c2c: its measurement engine is not part of this build"),
            "{s}"
        );
    }
}
