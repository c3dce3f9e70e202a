//! The core-to-core part of a run, through `c2c::run`.

use std::time::Duration;

use anyhow::Context as _;

use crate::c2c::{self, BouncePlan};
use crate::results::RunResults;

use super::Ctx;

/// Core to core over the plan's CPUs, the line on the home node.
pub(super) fn core_to_core(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let home = s
        .home_node
        .context("no memory node is allowed to this process")?;
    let cfg = c2c::Config {
        cpus: s.c2c.cpus.clone(),
        line_node: home,
        plan: BouncePlan {
            round_trips_per_sample: 200,
            repetitions: s.c2c.repetitions,
            repetition: Duration::from_millis(s.c2c.repetition_ms),
        },
    };
    r.c2c = Some(c2c::run(topo, root, &cfg, step)?.report);
    Ok(())
}
