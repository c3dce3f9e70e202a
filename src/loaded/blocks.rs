//! The block plan of a loaded-latency sweep: how many blocks a point's time is cut into
//! (each long enough for several steady chaser samples), and the order of the sweep's
//! repetitions, every point once per round with the start shifted each round so each point's
//! blocks spread over the sweep. Pure planning; the engine measures what it lays out.

use std::time::Duration;

/// Target length of one chaser sample: the latency engine's default, so the no-load point
/// and `numascope latency` time the same walk the same way.
pub(super) const CHASER_SAMPLE: Duration =
    Duration::from_nanos(crate::latency::measure::SAMPLE_NS_DEFAULT);

/// Fewest blocks per point for an interval (fewer give a figure without one).
use crate::schedule::MIN_SAMPLES_FOR_INTERVAL as MIN_BLOCKS;
/// Most blocks per point: each block costs about one chaser sample more (the one the stop
/// flag cuts) and the team's start and stop, so beyond twelve a longer point gets longer
/// blocks instead of more of them.
pub const MAX_BLOCKS: usize = 12;
/// Chaser samples in the shortest block: eight of 2 ms, three kept once the steady-state lead
/// (the first 8 ms, `latency::steady`) and the last are dropped, so each block's median
/// stands on several samples taken at steady state. A point of 100 ms (`run
/// --quick`) then gets six blocks of about 17 ms; a point shorter than six of these (96 ms)
/// gets fewer blocks and no interval.
pub const MIN_BLOCK_SAMPLES: u32 = 8;

/// Blocks a point of `duration` is cut into: as many blocks of at least
/// `MIN_BLOCK_SAMPLES` chaser samples as fit, at least one, at most `MAX_BLOCKS`.
pub fn blocks_for(duration: Duration) -> usize {
    let shortest = (CHASER_SAMPLE * MIN_BLOCK_SAMPLES).as_nanos().max(1);
    usize::try_from(duration.as_nanos() / shortest)
        .unwrap_or(MAX_BLOCKS)
        .clamp(1, MAX_BLOCKS)
}

/// The shortest point duration cut into [`MIN_BLOCKS`] blocks (so with an interval).
pub fn min_duration_for_interval() -> Duration {
    CHASER_SAMPLE * MIN_BLOCK_SAMPLES * MIN_BLOCKS as u32
}

/// The length of one block of a point of `duration` cut into `blocks`.
pub fn block_duration(duration: Duration, blocks: usize) -> Duration {
    duration / u32::try_from(blocks.max(1)).unwrap_or(u32::MAX)
}

/// What one team repetition measures: a load kernel's full-speed warm-up (dropped), the
/// no-load point, or one kernel at one load fraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Kernel `k` at full speed, timing a line (the warm-up, not kept).
    Warmup(usize),
    /// Load threads asleep.
    Idle,
    /// Kernel `kernel` paced to fraction number `fraction` of [`super::engine::load_fractions`].
    Point { kernel: usize, fraction: usize },
}

/// The points of one round in their base order: the no-load point, then each load fraction
/// in rising order with every kernel at it before the next (the kernels' order rotated by one
/// at each fraction, so none is always measured first at a level).
pub fn round_points(kernels: usize, points: usize) -> Vec<Slot> {
    let k = kernels.max(1);
    let mut s = vec![Slot::Idle];
    for fraction in 0..points.max(1) {
        for i in 0..k {
            s.push(Slot::Point {
                kernel: (i + fraction) % k,
                fraction,
            });
        }
    }
    s
}

/// The repetitions of a sweep over `kernels` load kernels and `points` load fractions, each
/// point in `blocks` blocks, in measurement order: one warm-up per kernel first, then
/// `blocks` rounds, each visiting every point of [`round_points`] once. Round r starts r
/// steps of `max(1, points per round / blocks)` into the base order (wrapping around), so no
/// point is always first or last and each point's blocks are spread over the sweep: drift on
/// the host reaches every point and every curve alike. One block: warm-ups, then the base
/// order, as a single repetition per point.
pub fn schedule(kernels: usize, points: usize, blocks: usize) -> Vec<Slot> {
    let mut s: Vec<Slot> = (0..kernels.max(1)).map(Slot::Warmup).collect();
    let round = round_points(kernels, points);
    let step = (round.len() / blocks.max(1)).max(1);
    for r in 0..blocks.max(1) {
        let start = (r * step) % round.len();
        s.extend(round[start..].iter().chain(&round[..start]).copied());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_kernel_in_one_block_is_scheduled_as_a_single_curve() {
        use Slot::*;
        assert_eq!(
            schedule(1, 3, 1),
            vec![
                Warmup(0),
                Idle,
                Point {
                    kernel: 0,
                    fraction: 0
                },
                Point {
                    kernel: 0,
                    fraction: 1
                },
                Point {
                    kernel: 0,
                    fraction: 2
                },
            ]
        );
        assert_eq!(
            schedule(0, 0, 0).len(),
            3,
            "one kernel, one point, one block at least"
        );
    }

    #[test]
    fn several_kernels_are_interleaved_level_by_level_in_rotated_order() {
        use Slot::*;
        let s = schedule(3, 2, 1);
        assert_eq!(&s[..4], &[Warmup(0), Warmup(1), Warmup(2), Idle]);
        let order: Vec<(usize, usize)> = s[4..]
            .iter()
            .map(|x| match *x {
                Point { kernel, fraction } => (fraction, kernel),
                other => panic!("{other:?} after the idle point"),
            })
            .collect();
        assert_eq!(order, vec![(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (1, 0)]);
        // Every kernel gets every fraction once.
        for k in 0..3 {
            for f in 0..2 {
                assert_eq!(order.iter().filter(|&&x| x == (f, k)).count(), 1);
            }
        }
    }

    /// After the warm-ups (one per kernel, first), every round of blocks visits
    /// every point once; the rounds start at different points, so no point is always first
    /// or last, and each point's blocks are spread over the sweep.
    #[test]
    fn every_round_visits_every_point_once_in_rotated_order() {
        use Slot::*;
        for (kernels, points, blocks) in [(1, 3, 6), (1, 8, 7), (4, 8, 12), (2, 1, 6), (3, 2, 9)] {
            let s = schedule(kernels, points, blocks);
            let round = round_points(kernels, points);
            assert_eq!(round.len(), 1 + kernels * points);
            assert_eq!(s.len(), kernels + blocks * round.len());
            assert_eq!(
                &s[..kernels],
                &(0..kernels).map(Warmup).collect::<Vec<_>>()[..],
                "warm-ups first"
            );
            assert!(!s[kernels..].iter().any(|x| matches!(x, Warmup(_))));
            let rounds: Vec<&[Slot]> = s[kernels..].chunks(round.len()).collect();
            assert_eq!(rounds.len(), blocks);
            for r in &rounds {
                for p in &round {
                    assert_eq!(
                        r.iter().filter(|x| *x == p).count(),
                        1,
                        "{p:?} once a round"
                    );
                }
            }
            // Each round starts where the last one did, moved on (wrapping around).
            let step = (round.len() / blocks).max(1);
            for (i, r) in rounds.iter().enumerate() {
                assert_eq!(r[0], round[(i * step) % round.len()]);
            }
            for p in &round {
                let firsts = rounds.iter().filter(|r| r[0] == *p).count();
                let lasts = rounds.iter().filter(|r| r[r.len() - 1] == *p).count();
                assert!(firsts < blocks && lasts < blocks, "{p:?} always at one end");
            }
        }
        // Quick's curve: four points in six rounds, each starting one point later.
        let s = schedule(1, 3, 6);
        let starts: Vec<Slot> = s[1..].chunks(4).map(|r| r[0]).collect();
        let at = |f| Point {
            kernel: 0,
            fraction: f,
        };
        assert_eq!(starts, vec![Idle, at(0), at(1), at(2), Idle, at(0)]);
        assert_eq!(&s[5..9], &[at(0), at(1), at(2), Idle]);
    }

    /// A point's duration becomes blocks of at least eight chaser samples, six to
    /// twelve of them when it is long enough, and the blocks add up to the point's time.
    #[test]
    fn the_block_count_follows_the_duration() {
        let ms = Duration::from_millis;
        assert_eq!(
            CHASER_SAMPLE,
            Duration::from_millis(2),
            "the latency engine's sample"
        );
        assert_eq!(blocks_for(ms(100)), 6, "run --quick: six blocks of 16.7 ms");
        assert_eq!(blocks_for(ms(120)), 7, "default run");
        assert_eq!(
            blocks_for(ms(1000)),
            MAX_BLOCKS,
            "loaded-latency's default 1 s"
        );
        assert_eq!(blocks_for(ms(60_000)), MAX_BLOCKS);
        assert_eq!(blocks_for(ms(95)), 5, "too short for six: no interval");
        assert_eq!(blocks_for(ms(96)), MIN_BLOCKS);
        assert_eq!(min_duration_for_interval(), ms(96));
        assert_eq!(blocks_for(ms(20)), 1, "the shortest --duration: one block");
        assert_eq!(blocks_for(Duration::ZERO), 1);
        for d in [20, 50, 96, 100, 120, 250, 1000, 5000] {
            let b = blocks_for(ms(d));
            let block = block_duration(ms(d), b);
            assert!(
                block >= CHASER_SAMPLE * MIN_BLOCK_SAMPLES || b == 1,
                "{d} ms"
            );
            let n = b as u32;
            assert!(ms(d) - block * n < Duration::from_micros(1) * n);
        }
    }
}
