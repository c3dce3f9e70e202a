//! Blocks: why one pair is measured several times over the part instead of once. On
//! a virtual machine the hypervisor moves virtual CPUs between host cores, so samples taken
//! back to back describe one placement at one moment: five runs on this project's VM gave one
//! pair 42 to 180 ns while each run's interval was +-1.2 %. So each pair is measured in short
//! blocks, in rounds over all pairs (the pair order rotated each round, as `bandwidth::team` does
//! for scenarios), and the pair's figure and 95 % interval come from the per-block medians: a
//! drift within the run widens the interval instead of hiding behind thousands of samples of
//! one moment. Blocks that fall into two separated groups mark the pair unstable: the vCPUs
//! (or threads) moved between host cores while it was measured.
//!
//! Pure functions: the block layout of a plan, the round order, the pair's summary from its
//! blocks and the two-group test. Measuring is `c2c::run`, wording the warning is here so the
//! engine and its tests share it; nothing prints.

use std::time::Duration;

use super::bounce::BouncePlan;
use crate::results::c2c::{BlockMedian, Unstable};
use crate::schedule::MIN_SAMPLES_FOR_INTERVAL;
use crate::stats::Summary;

/// Shortest block worth timing, milliseconds.
pub const MIN_BLOCK_MS: u64 = 2;
/// The median of the slower group over the median of the faster one above which two
/// separated groups of blocks mark a pair unstable.
pub const UNSTABLE_RATIO: f64 = 1.5;
/// Blocks each group needs: a single outlying block widens the interval but is no group.
pub const MIN_GROUP_BLOCKS: usize = 2;

/// How the pair's time is cut into blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    /// Blocks per pair, each one team of one repetition.
    pub blocks: usize,
    /// Length of one block, milliseconds; its first fifth is a warm-up whose batches are
    /// dropped.
    pub block_ms: u64,
}

/// The blocks of `plan`: the time a pair got before blocks existed (`repetitions` kept
/// repetitions plus one warm-up repetition of `repetition` each) cut into `repetitions`
/// blocks, at least [`MIN_SAMPLES_FOR_INTERVAL`], each at least [`MIN_BLOCK_MS`]. So `run --quick`
/// (3 x 10 ms) becomes 6 blocks of 6 ms and the default 5 x 10 ms becomes 6 blocks of 10 ms: about
/// the same time per pair, spread over the part.
pub fn layout(plan: &BouncePlan) -> BlockLayout {
    let reps = plan.repetitions.max(1);
    let blocks = reps.max(MIN_SAMPLES_FOR_INTERVAL);
    let per_pair_ms = (reps as u64 + 1) * (plan.repetition.as_millis() as u64).max(1);
    BlockLayout {
        blocks,
        block_ms: (per_pair_ms / blocks as u64).max(MIN_BLOCK_MS),
    }
}

impl BlockLayout {
    /// The bounce plan of one block: one repetition of the block's length.
    pub fn block_plan(&self, round_trips_per_sample: u64) -> BouncePlan {
        BouncePlan {
            round_trips_per_sample,
            repetitions: 1,
            repetition: Duration::from_millis(self.block_ms),
        }
    }
}

/// The pair's figure from its blocks: the summary of the block medians (n = blocks with a
/// median), so its interval is the between-block variation. `None` when no block gave a
/// sample.
pub fn pair_summary(blocks: &[BlockMedian]) -> Option<Summary> {
    let medians: Vec<f64> = blocks.iter().filter_map(|b| b.ns_one_way_median).collect();
    Summary::of(&medians)
}

/// Two separated groups among the block medians, when there are: the medians sorted and cut
/// at the widest gap (as a ratio) that leaves [`MIN_GROUP_BLOCKS`] on each side; they form two
/// groups when that gap is wider than either group's own spread (so a steady drift is not
/// mistaken for two placements) and the slower group's median is more than [`UNSTABLE_RATIO`]
/// times the faster one's. The groups never overlap by construction.
pub fn two_groups(medians: &[f64]) -> Option<Unstable> {
    let mut v: Vec<f64> = medians
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if v.len() < 2 * MIN_GROUP_BLOCKS {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let cut = (MIN_GROUP_BLOCKS..=v.len() - MIN_GROUP_BLOCKS)
        .max_by(|&i, &j| (v[i] / v[i - 1]).total_cmp(&(v[j] / v[j - 1])))?;
    let (low, high) = v.split_at(cut);
    let gap = high[0] / low[low.len() - 1];
    let spread = |g: &[f64]| g[g.len() - 1] / g[0];
    let (m_low, m_high) = (crate::stats::median(low), crate::stats::median(high));
    let separated = gap > spread(low) && gap > spread(high) && high[0] > low[low.len() - 1];
    (separated && m_high > UNSTABLE_RATIO * m_low).then_some(Unstable {
        low_ns_one_way: m_low,
        high_ns_one_way: m_high,
        low_blocks: low.len(),
        high_blocks: high.len(),
    })
}

/// At most this many pairs are named in the warning; the rest are counted.
const NAMED: usize = 3;

/// One warning for every pair marked unstable, `(from, to, groups)`; `None` when none is.
pub fn unstable_warning(pairs: &[(u32, u32, Unstable)]) -> Option<String> {
    let groups = |u: &Unstable| {
        format!(
            "{} blocks near {:.0} ns, {} near {:.0} ns",
            u.low_blocks, u.low_ns_one_way, u.high_blocks, u.high_ns_one_way
        )
    };
    const MOVED: &str = "the vCPUs (or threads) moved between host cores during the measurement";
    match pairs {
        [] => None,
        [(a, b, u)] => Some(format!(
            "pair CPU {a} -> CPU {b} unstable: {MOVED} ({}); its interval spans both placements",
            groups(u)
        )),
        _ => {
            let named: Vec<String> = pairs
                .iter()
                .take(NAMED)
                .map(|(a, b, u)| format!("CPU {a} -> CPU {b}: {}", groups(u)))
                .collect();
            let more = match pairs.len().saturating_sub(NAMED) {
                0 => String::new(),
                n => format!("; and {n} more pair(s)"),
            };
            Some(format!(
                "{} pairs unstable: {MOVED} ({}{more}); their intervals span both placements",
                pairs.len(),
                named.join("; ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(ms: f64, ns: f64) -> BlockMedian {
        BlockMedian {
            start_offset_ms: ms,
            ns_one_way_median: Some(ns),
            samples: 50,
            disturbed: false,
        }
    }

    #[test]
    fn the_pair_time_is_cut_into_at_least_six_blocks() {
        let quick = BouncePlan {
            round_trips_per_sample: 200,
            repetitions: 3,
            repetition: Duration::from_millis(10),
        };
        assert_eq!(
            layout(&quick),
            BlockLayout {
                blocks: 6,
                block_ms: 6
            }
        );
        assert_eq!(
            layout(&BouncePlan::default()),
            BlockLayout {
                blocks: 6,
                block_ms: 10
            }
        );
        let thorough = BouncePlan {
            repetitions: 9,
            ..BouncePlan::default()
        };
        assert_eq!(layout(&thorough).blocks, 9);
        assert_eq!(layout(&thorough).block_ms, 11);
        let one = BouncePlan {
            repetitions: 1,
            repetition: Duration::from_millis(1),
            ..BouncePlan::default()
        };
        assert_eq!(layout(&one).block_ms, MIN_BLOCK_MS);
        let p = layout(&quick).block_plan(200);
        assert_eq!((p.repetitions, p.repetition.as_millis()), (1, 6));
    }

    /// The interval is the between-block one: its n is the blocks, and a pair whose
    /// blocks drift has an interval that holds them all, however many samples each block had.
    #[test]
    fn the_interval_comes_from_the_block_medians() {
        let blocks: Vec<BlockMedian> = [40.0, 44.0, 52.0, 47.0, 41.0, 60.0]
            .iter()
            .enumerate()
            .map(|(i, &ns)| block(i as f64 * 10.0, ns))
            .collect();
        let s = pair_summary(&blocks).unwrap();
        assert_eq!(s.samples, 6, "n = blocks");
        // Six values: the interval is their extremes (96.9 %).
        assert_eq!(
            (s.ci.map(|c| c.low), s.ci.map(|c| c.high)),
            (Some(40.0), Some(60.0))
        );
        assert_eq!(s.median, 45.5);
        // A block without a sample is not a median.
        let mut with_empty = blocks.clone();
        with_empty.push(BlockMedian {
            start_offset_ms: 70.0,
            ns_one_way_median: None,
            samples: 0,
            disturbed: false,
        });
        assert_eq!(pair_summary(&with_empty).unwrap().samples, 6);
        // Five blocks: a figure without an interval.
        assert_eq!(pair_summary(&blocks[..5]).unwrap().ci.map(|c| c.low), None);
        assert!(pair_summary(&[]).is_none());
    }

    /// A placement change within the run (42 ns then 180 ns) is two groups; one
    /// placement with noise, a steady drift, or a single slow block is not.
    #[test]
    fn two_separated_groups_mark_the_pair_unstable() {
        let u = two_groups(&[42.0, 180.0, 43.5, 178.0, 41.0, 185.0]).unwrap();
        assert_eq!((u.low_blocks, u.high_blocks), (3, 3));
        assert_eq!(u.low_ns_one_way, 42.0);
        assert_eq!(u.high_ns_one_way, 180.0);
        // Moved once, late: four blocks at one place, two at the other.
        let u = two_groups(&[40.0, 42.0, 41.0, 39.5, 62.0, 64.0]).unwrap();
        assert_eq!((u.low_blocks, u.high_blocks), (4, 2));

        // One cluster with noise.
        assert_eq!(two_groups(&[42.0, 44.0, 41.0, 47.0, 43.0, 45.0]), None);
        // A steady drift from 40 to 90 ns: no gap wider than the groups' own spread.
        assert_eq!(two_groups(&[40.0, 50.0, 60.0, 70.0, 80.0, 90.0]), None);
        // One slow block is an outlier, not a group (the interval shows it).
        assert_eq!(two_groups(&[42.0, 43.0, 41.0, 44.0, 42.5, 180.0]), None);
        // Two groups too close to matter (x1.2).
        assert_eq!(two_groups(&[50.0, 51.0, 50.5, 60.0, 61.0, 60.5]), None);
        // Too few blocks to tell.
        assert_eq!(two_groups(&[42.0, 180.0, 43.0]), None);
    }

    #[test]
    fn one_warning_names_the_unstable_pairs() {
        assert_eq!(unstable_warning(&[]), None);
        let u = two_groups(&[42.0, 180.0, 43.5, 178.0, 41.0, 185.0]).unwrap();
        let one = unstable_warning(&[(0, 1, u)]).unwrap();
        assert_eq!(
            one,
            "pair CPU 0 -> CPU 1 unstable: the vCPUs (or threads) moved between host cores during the measurement (3 blocks near 42 ns, 3 near 180 ns); its interval spans both placements"
        );
        let many: Vec<(u32, u32, Unstable)> = (0..5).map(|k| (k, k + 1, u)).collect();
        let w = unstable_warning(&many).unwrap();
        assert!(w.starts_with("5 pairs unstable: the vCPUs"), "{w}");
        assert!(w.contains("CPU 2 -> CPU 3: 3 blocks near 42 ns"), "{w}");
        assert!(!w.contains("CPU 3 -> CPU 4"), "{w}");
        assert!(w.contains("; and 2 more pair(s))"), "{w}");
    }
}
