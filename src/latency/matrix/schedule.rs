//! The rounds' schedule: every cell once per round in rotating order, then whole extra rounds
//! toward a precision goal while its pool lasts.

use std::time::Duration;

use crate::schedule::extras::{next_batch, ExtraCost};
use crate::sys::signal::interrupted;
use crate::threads::precision::PrecisionGoal;

use super::super::measure::Measurement;
use super::super::sweep::{median_duration, Block, Point};
use super::RoundPlan;
use crate::schedule::round_order;

/// What the rounds did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Rounds started (planned and extra; the last may be cut short by a stop signal).
    pub rounds: usize,
    /// Rounds added toward the precision goal.
    pub extra: usize,
    /// A stop signal ended the rounds.
    pub stopped: bool,
}

/// The schedule of the rounds, with the block a parameter so it is tested with synthetic
/// samples: `planned` rounds over the `n` cells in [`round_order`], then toward `goal` whole
/// extra rounds (every cell, so every pair keeps its partner) while [`next_batch`] asks for
/// more for some cell (over its round medians, at most as many extra as planned) and a round
/// fits in the goal's pool; each extra block is paid from it. `block(i)` measures one block of
/// cell `i`; `None` means a stop signal came. `progress(done, n)` counts cells as the rounds
/// go.
pub(crate) fn in_rounds<E>(
    n: usize,
    planned: usize,
    goal: Option<&PrecisionGoal>,
    mut block: impl FnMut(usize) -> Result<Option<Block>, E>,
    mut progress: impl FnMut(usize, usize),
) -> Result<(Vec<Point>, Schedule), E> {
    let mut points: Vec<Point> = (0..n).map(|_| Point::default()).collect();
    let mut sched = Schedule::default();
    let planned = planned.max(1);
    let mut reported = 0;
    // One whole round; `false` when a stop signal came.
    let mut round =
        |points: &mut Vec<Point>, sched: &mut Schedule, extra: bool| -> Result<bool, E> {
            let r = sched.rounds;
            sched.rounds += 1;
            for (k, i) in round_order(n, r).into_iter().enumerate() {
                if interrupted() {
                    return Ok(false);
                }
                let Some(b) = block(i)? else {
                    return Ok(false);
                };
                if extra {
                    if let Some(g) = goal {
                        g.spend(b.elapsed);
                    }
                }
                let pt = &mut points[i];
                if pt.add(b) {
                    pt.extra += usize::from(extra);
                }
                let done = (r.min(planned) * n + k + 1) / planned;
                if !extra && done > reported {
                    reported = done;
                    progress(done, n);
                }
            }
            Ok(true)
        };
    for _ in 0..planned {
        if !round(&mut points, &mut sched, false)? {
            sched.stopped = true;
            return Ok((points, sched));
        }
    }
    let Some(g) = goal else {
        return Ok((points, sched));
    };
    loop {
        // What one more round costs: the cells' median blocks together.
        let per_round: Duration = points.iter().map(|p| median_duration(&p.elapsed)).sum();
        let cost = ExtraCost {
            per_repetition: per_round,
            per_batch: Duration::ZERO,
        };
        let batch = extra_rounds(&points, planned, sched.extra, g, cost);
        if batch == 0 || interrupted() {
            break;
        }
        for _ in 0..batch {
            if g.pool_left().is_some_and(|left| left < per_round) {
                return Ok((points, sched));
            }
            sched.extra += 1;
            if !round(&mut points, &mut sched, true)? {
                sched.stopped = true;
                return Ok((points, sched));
            }
        }
    }
    Ok((points, sched))
}

/// Whole extra rounds [`next_batch`] asks for: the most any cell wants, over its round
/// medians against the `planned` rounds and the `extra` taken, at `cost` a round.
fn extra_rounds(
    points: &[Point],
    planned: usize,
    extra: usize,
    g: &PrecisionGoal,
    cost: ExtraCost,
) -> usize {
    points
        .iter()
        .map(|p| {
            next_batch(
                &super::super::blocks::medians(&p.blocks),
                planned,
                extra,
                g.target_half_width_fraction,
                cost,
                g.time_left(),
            )
        })
        .max()
        .unwrap_or(0)
}

/// A cell's measurement from its rounds: the summary of its round medians (n = rounds with a
/// sample), the blocks record and, toward `goal`, the precision record; `None` when no round
/// kept a sample.
pub(crate) fn measurement_of(
    pt: Point,
    rp: &RoundPlan,
    planned: usize,
    goal: Option<&PrecisionGoal>,
) -> Option<Measurement> {
    pt.into_measurement(rp.per_round, rp.sample_ns, planned, goal)
}
