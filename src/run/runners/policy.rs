//! The policy parts of a run: the Opteron article's scenarios and the weighted-interleave
//! advisor, each measured by its own module with the plan's settings as they are; a
//! disturbed row or check is the run's warning.

use anyhow::Context as _;

use crate::results::RunResults;

use super::super::advisor::run_advisor;
use super::super::scenarios::{run_scenarios, ScenarioInputs};
use super::{clock_of, sample_plan, Ctx};

/// The scenarios part: the table's rows measured in interleaved rounds.
pub(super) fn scenarios(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let layout = (c.s.scenario_layout.as_ref())
        .context("the plan laid out no scenario rows, so the scenarios part has nothing to run")?
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let clock = clock_of(r, c.root);
    let inp = ScenarioInputs {
        settings: &c.s.scenarios,
        layout,
        latency_plan: sample_plan(c.s),
        timer_resolution_ns: clock.resolution_ns,
        lent: c.lent,
    };
    let table = run_scenarios(c.topo, c.root, &inp, c.step)?;
    // The table has no warnings of its own: a disturbed row, or a latency not measured, is
    // the run's warning.
    r.warnings.extend(
        table
            .scenarios
            .iter()
            .filter_map(crate::render::words::disturbed::scenario_row),
    );
    r.warnings.extend(
        (table.scenarios.iter()).filter_map(crate::render::words::scenarios::latency_not_measured),
    );
    r.scenarios = Some(table);
    Ok(())
}

/// The advisor part: the weighted-interleave weights that serve the home node best.
pub(super) fn advisor(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let advice = run_advisor(c.topo, c.root, &c.s.scenarios, c.s.home_node, c.step)?;
    r.warnings.extend(
        advice
            .checks
            .iter()
            .filter_map(crate::render::words::disturbed::advisor_check),
    );
    r.advisor = Some(advice);
    Ok(())
}
