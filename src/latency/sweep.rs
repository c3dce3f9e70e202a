//! The working-set sweep (docs/METHODOLOGY.md, "Working-set sweep"): the sizes of the curve, and
//! the run over one buffer. One buffer is placed once and every point builds its chain in it, so
//! every point shares the same placement and page backing and the sweep does not pay a fresh
//! allocation per point. [`run_blocked`] (the sweep of `latency --sweep` and `run`) measures the
//! sizes in passes, each size's chain in its own region of the buffer where memory allows
//! ([`super::blocks`] says why); [`run`] measures each size once, back to back, over a prefix
//! of the buffer. Nothing here prints; progress goes to a callback.

use std::time::{Duration, Instant};

use super::blocks::{self, Place, Regions};
use super::chase::{ChainError, ChainSpec};
use super::measure::{measure_block, measure_toward, Aim, BlockPlan, Judge, Measurement, Samples};
use super::walk::{Chain, ChainArena, LOADS_PER_ITERATION};
use crate::results::latency::PointBlocks;
use crate::results::latency::SamplePlan;
use crate::results::quality::RepetitionQuality;
use crate::schedule::extras::{next_batch, ExtraCost};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::threads::precision::PrecisionGoal;

/// Default smallest working set.
pub const DEFAULT_FROM_BYTES: u64 = 4096;
/// Default points per octave.
pub const POINTS_PER_OCTAVE: u32 = 4;

/// Sizes from `from` to `to` inclusive, `per_octave` per doubling, each rounded down to a
/// multiple of `element_bytes`, without duplicates; `to` itself is always the last point.
pub fn sizes(from: u64, to: u64, per_octave: u32, element_bytes: u64) -> Vec<u64> {
    let e = element_bytes.max(1);
    let from = from.max(e);
    let mut out: Vec<u64> = Vec::new();
    let mut k = 0u32;
    loop {
        let s = (from as f64 * 2f64.powf(k as f64 / per_octave.max(1) as f64)) as u64 / e * e;
        if s > to {
            break;
        }
        if out.last() != Some(&s) && s > 0 {
            out.push(s);
        }
        k += 1;
    }
    let last = to / e * e;
    if last >= from && out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// The default upper end: the first grid point at or above 8x the last-level cache (512 MiB
/// when it is unknown), capped by `free_bytes` / 2 so the sweep leaves room for everything
/// else.
pub fn default_upper(llc_bytes: u64, free_bytes: u64) -> u64 {
    let want = if llc_bytes == 0 {
        512 << 20
    } else {
        8 * llc_bytes
    };
    let grid = sizes(DEFAULT_FROM_BYTES, u64::MAX / 4, POINTS_PER_OCTAVE, 4096);
    let up = grid.into_iter().find(|&s| s >= want).unwrap_or(want);
    up.min(free_bytes / 2)
}

/// How a sweep samples each size: the chain, the sampling plan, the timer's resolution, the
/// judge of each sample (its CPU) and the precision aim.
#[derive(Clone, Copy)]
pub struct Sampling<'a> {
    pub spec: &'a ChainSpec,
    pub plan: &'a SamplePlan,
    pub timer_resolution_ns: f64,
    pub judge: Option<Judge<'a>>,
    pub aim: Option<Aim<'a>>,
    /// Least time between the starts of two passes of [`run_blocked`]
    /// ([`blocks::PassPlan::spacing`]).
    pub pass_spacing: Duration,
}

impl<'a> Sampling<'a> {
    /// The goal size `k` (in sweep order) is measured toward: the aim's, from its `from` on.
    fn goal_of(&self, k: usize) -> Option<&'a PrecisionGoal> {
        self.aim.filter(|a| k >= a.from).map(|a| a.goal)
    }
}

/// Measures every size over prefixes of `buf`, the sizes the aim names toward its goal;
/// `progress(done, total)` after each point. A stop signal ends the sweep at the next point or
/// sample: the sizes measured are returned, and a size that kept no sample is left out. Each
/// size's samples are taken back to back; [`run_blocked`] spreads them over the sweep.
pub fn run(
    buf: &mut [u64],
    sizes: &[u64],
    how: &Sampling<'_>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<(u64, Measurement)>, ChainError> {
    let mut out = Vec::with_capacity(sizes.len());
    for (k, &s) in sizes.iter().enumerate() {
        if interrupted() {
            break;
        }
        let words = ((s / 8) as usize).min(buf.len());
        let mut chain = Chain::build(&mut buf[..words], how.spec)?;
        let (plan, judge) = (how.plan, how.judge);
        match measure_toward(
            &mut chain,
            plan,
            how.timer_resolution_ns,
            judge,
            how.goal_of(k),
        ) {
            Some(m) => out.push((s, m)),
            None => break,
        }
        progress(k + 1, sizes.len());
    }
    Ok(out)
}

/// One block as the scheduler sees it.
pub(crate) struct Block {
    pub samples: Samples,
    /// Iterations of one sample.
    pub iterations: u64,
    /// How long the block took, warm-up included (what an extra block costs the goal).
    pub elapsed: Duration,
}

/// What a size has gathered over the passes.
#[derive(Debug, Default)]
pub(crate) struct Point {
    /// Iterations of one sample, calibrated in the size's first block.
    pub iterations: Option<u64>,
    /// Each block's kept samples, in the order measured.
    pub blocks: Vec<Vec<f64>>,
    pub quality: Option<RepetitionQuality>,
    /// How long each block took (what an extra block costs the goal's pool).
    pub elapsed: Vec<Duration>,
    /// Blocks taken toward the precision goal.
    pub extra: usize,
}

impl Point {
    /// Adds block `b`: its calibration, its quality and, when it kept samples, the samples
    /// and its time. True when the block kept samples.
    pub fn add(&mut self, b: Block) -> bool {
        self.iterations = Some(b.iterations);
        if let Some(q) = &b.samples.quality {
            RepetitionQuality::merge_into(&mut self.quality, q);
        }
        if b.samples.samples_ns.is_empty() {
            return false;
        }
        self.blocks.push(b.samples.samples_ns);
        self.elapsed.push(b.elapsed);
        true
    }

    /// The point's measurement from its blocks (each block `per_block` samples of at least
    /// `sample_ns`): the summary of its block medians (n = blocks with a sample), every
    /// sample, the blocks record and, toward `goal`, the precision record against `planned`
    /// blocks; `None` when no block kept a sample.
    pub fn into_measurement(
        self,
        per_block: usize,
        sample_ns: u64,
        planned: usize,
        goal: Option<&PrecisionGoal>,
    ) -> Option<Measurement> {
        let medians = blocks::medians(&self.blocks);
        let ns_per_load = Summary::of(&medians)?;
        let all: Vec<f64> = self.blocks.concat();
        let all_samples = Summary::of(&all)?;
        let precision = goal.map(|g| g.record(&medians, planned, self.extra));
        Some(Measurement {
            samples_ns: all,
            ns_per_load,
            loads_per_sample: self.iterations.unwrap_or(0) * LOADS_PER_ITERATION,
            quality: self.quality,
            precision,
            blocks: Some(PointBlocks {
                blocks: medians.len(),
                samples_per_block: per_block,
                min_sample_ns: sample_ns,
                block_medians_ns: medians,
                all_samples,
            }),
        })
    }
}

/// The chains of the sweep: a size with a place of its own keeps its chain (built in its
/// first block, in the arena); the others are rebuilt in the shared region for each block.
struct Chains<'a> {
    arena: ChainArena<'a>,
    /// The shared region, after every own place.
    shared: &'a mut [u64],
    /// Word where `shared` starts.
    shared_at: usize,
    built: Vec<Option<Chain<'a>>>,
}

impl<'a> Chains<'a> {
    fn new(buf: &'a mut [u64], regions: &Regions, sizes: &[u64]) -> Chains<'a> {
        let shared_at = regions
            .at
            .iter()
            .find(|p| !p.own)
            .map_or(buf.len(), |p| (p.offset / 8) as usize)
            .min(buf.len());
        let (own, shared) = buf.split_at_mut(shared_at);
        Chains {
            arena: ChainArena::new(own),
            shared,
            shared_at,
            built: (0..sizes.len()).map(|_| None).collect(),
        }
    }

    /// A chain of `bytes` at `place`: in the arena for an own place, else over the shared
    /// region (rebuilt each time).
    fn build_own(
        &mut self,
        place: Place,
        bytes: u64,
        spec: &ChainSpec,
    ) -> Result<Chain<'a>, ChainError> {
        self.arena
            .build((place.offset / 8) as usize + place.slot, bytes, spec)
    }

    fn build_shared<'s>(
        &'s mut self,
        place: Place,
        bytes: u64,
        spec: &ChainSpec,
    ) -> Result<Chain<'s>, ChainError> {
        let start = ((place.offset / 8) as usize)
            .saturating_sub(self.shared_at)
            .min(self.shared.len());
        let region = &mut self.shared[start..];
        let words = ((bytes / 8) as usize).min(region.len());
        Chain::build(&mut region[..words], spec)
    }
}

/// The sweep in passes (`blocks` says why): [`blocks::pass_plan`] of `plan`, every
/// size once per pass in [`blocks::pass_order`], each block keeping its samples after its
/// warm-up (a full walk of the chain when it was just built, or when [`blocks::walk_again`]
/// says it was cache-resident: within `resident_bytes`, the largest cache, or always when that
/// is 0, and its first block faster than half the largest size's; then `plan.warmup` samples
/// dropped). Each size's
/// chain lives where `regions` puts it in `buf`. A size's figure is the summary of its block
/// medians; toward `aim`'s goal the aimed sizes get extra blocks, in further passes over them
/// alone, while their interval is wider than the target and the goal's pool lasts (at most as
/// many as the passes). `progress(done, total)` counts sizes as the passes go. A stop signal
/// ends it at the next block: every size with a kept sample is returned.
pub fn run_blocked(
    buf: &mut [u64],
    sizes: &[u64],
    regions: &Regions,
    resident_bytes: u64,
    how: &Sampling<'_>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<(u64, Measurement)>, ChainError> {
    let Sampling {
        spec,
        plan,
        timer_resolution_ns,
        judge,
        aim,
        pass_spacing,
    } = *how;
    let n = sizes.len();
    let pp = blocks::PassPlan {
        spacing: pass_spacing,
        ..blocks::pass_plan(plan)
    };
    let mut chains = Chains::new(buf, regions, sizes);
    let mut iterations: Vec<Option<u64>> = vec![None; n];
    // Each size's first block median, and which size is the largest (its first block is the
    // memory latency the others are judged against: `blocks::walk_again`).
    let mut first_ns: Vec<Option<f64>> = vec![None; n];
    let largest = (0..n).max_by_key(|&i| (sizes[i], i));
    let bp = BlockPlan {
        sample_ns: pp.sample_ns,
        warmup: plan.warmup,
        keep: pp.per_pass,
        timer_resolution_ns,
    };
    // One block of size `i`: its chain (built in its first block, or rebuilt in the shared
    // region), warmed up and sampled; `None` when a stop signal came.
    let block = |i: usize| -> Result<Option<Block>, ChainError> {
        let s = sizes[i];
        let memory_ns = largest.and_then(|l| first_ns[l]);
        let resident = blocks::walk_again(s, resident_bytes, first_ns[i], memory_ns);
        let place = regions.at[i];
        let done = if place.own {
            let fresh = chains.built[i].is_none();
            if fresh {
                chains.built[i] = Some(chains.build_own(place, s, spec)?);
            }
            let Some(chain) = chains.built[i].as_mut() else {
                return Ok(None);
            };
            measure_block(chain, fresh || resident, iterations[i], bp, judge)
        } else {
            let mut chain = chains.build_shared(place, s, spec)?;
            measure_block(&mut chain, true, iterations[i], bp, judge)
        };
        Ok(done.map(|(samples, it, elapsed)| {
            iterations[i] = Some(it);
            if first_ns[i].is_none() && !samples.samples_ns.is_empty() {
                first_ns[i] = Some(crate::stats::median(&samples.samples_ns));
            }
            Block {
                samples,
                iterations: it,
                elapsed,
            }
        }))
    };
    let (points, stopped) = in_passes(n, &pp, aim, block, &mut progress)?;
    let mut out = Vec::with_capacity(n);
    for (i, pt) in points.into_iter().enumerate() {
        let goal = how.goal_of(i);
        if let Some(m) = pt.into_measurement(pp.per_pass, pp.sample_ns, pp.passes, goal) {
            out.push((sizes[i], m));
        }
    }
    // A stop signal is the caller's to report; the points measured are returned either way.
    let _ = stopped;
    Ok(out)
}

/// The schedule of [`run_blocked`], with the block a parameter so it is tested with synthetic
/// samples: `pp.passes` passes over the `n` sizes in [`blocks::pass_order`], then toward
/// `aim`'s goal further passes over the aimed sizes that [`next_batch`] (over their block
/// medians, the passes planned) still asks for, each extra block paid from the goal's pool.
/// `block(i)` measures one block of size `i`; `None` means a stop signal came. Returns each
/// size's blocks and whether it stopped early.
pub(crate) fn in_passes(
    n: usize,
    pp: &blocks::PassPlan,
    aim: Option<Aim<'_>>,
    mut block: impl FnMut(usize) -> Result<Option<Block>, ChainError>,
    mut progress: impl FnMut(usize, usize),
) -> Result<(Vec<Point>, bool), ChainError> {
    let mut points: Vec<Point> = (0..n).map(|_| Point::default()).collect();
    // Adds size `i`'s block to its point; `false` when a stop signal came.
    let mut one = |i: usize, points: &mut [Point]| -> Result<bool, ChainError> {
        let Some(b) = block(i)? else {
            return Ok(false);
        };
        points[i].add(b);
        Ok(!interrupted())
    };

    let mut stopped = false;
    let mut reported = 0;
    let mut pacer = Pacer::new(pp.spacing);
    'passes: for pass in 0..pp.passes {
        pacer.wait();
        for (k, i) in blocks::pass_order(n, pass).into_iter().enumerate() {
            if interrupted() || !one(i, &mut points)? {
                stopped = true;
                break 'passes;
            }
            let done = (pass * n + k + 1) / pp.passes;
            if done > reported {
                reported = done;
                progress(done, n);
            }
        }
    }

    let Some(a) = aim.filter(|_| !stopped) else {
        return Ok((points, stopped));
    };
    let mut pass = pp.passes;
    loop {
        let want = extra_wanted(&points, pp.passes, a);
        if want.is_empty() || interrupted() {
            break;
        }
        let rounds = want.iter().map(|w| w.1).max().unwrap_or(0);
        let mut short = false;
        'rounds: for r in 0..rounds {
            pacer.wait();
            for k in blocks::pass_order(want.len(), pass + r) {
                let (i, b) = want[k];
                if r >= b {
                    continue;
                }
                let per = median_duration(&points[i].elapsed);
                if a.goal.pool_left().is_some_and(|left| left < per) {
                    short = true;
                    continue;
                }
                let before = points[i].elapsed.len();
                let went_on = one(i, &mut points)?;
                let pt = &mut points[i];
                if pt.elapsed.len() > before {
                    a.goal.spend(pt.elapsed[before]);
                    pt.extra += 1;
                }
                if !went_on {
                    stopped = true;
                    break 'rounds;
                }
            }
        }
        pass += rounds;
        if short || stopped {
            break;
        }
    }
    Ok((points, stopped))
}

/// The aimed sizes that [`next_batch`] still asks extra blocks for, with how many: over
/// their block medians, against the `passes` planned, at the cost of their median block.
fn extra_wanted(points: &[Point], passes: usize, a: Aim<'_>) -> Vec<(usize, usize)> {
    (a.from..points.len())
        .filter_map(|i| {
            let pt = &points[i];
            let cost = ExtraCost {
                per_repetition: median_duration(&pt.elapsed),
                per_batch: Duration::ZERO,
            };
            let b = next_batch(
                &blocks::medians(&pt.blocks),
                passes,
                pt.extra,
                a.goal.target_half_width_fraction,
                cost,
                a.goal.time_left(),
            );
            (b > 0).then_some((i, b))
        })
        .collect()
}

/// Keeps the starts of passes at least `spacing` apart (`blocks::PassPlan::spacing`).
struct Pacer {
    spacing: Duration,
    last: Option<Instant>,
}

impl Pacer {
    fn new(spacing: Duration) -> Pacer {
        Pacer {
            spacing,
            last: None,
        }
    }

    /// Sleeps until `spacing` has passed since the last call (in steps of at most 10 ms, so
    /// a stop signal ends the wait), then marks now.
    fn wait(&mut self) {
        if let Some(last) = self.last {
            while !interrupted() {
                let left = self.spacing.saturating_sub(last.elapsed());
                if left.is_zero() {
                    break;
                }
                std::thread::sleep(left.min(Duration::from_millis(10)));
            }
        }
        self.last = Some(Instant::now());
    }
}

/// The median of block durations (zero for none).
pub(crate) fn median_duration(d: &[Duration]) -> Duration {
    let mut v = d.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_four_points_per_octave_and_ends_at_to() {
        let s = sizes(4096, 1 << 20, 4, 64);
        assert_eq!(s[0], 4096);
        assert_eq!(s[4], 8192);
        assert_eq!(*s.last().unwrap(), 1 << 20);
        assert_eq!(s.len(), 4 * 8 + 1);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.iter().all(|x| x % 64 == 0));
        let odd = sizes(4096, 5000, 4, 64);
        assert_eq!(odd, vec![4096, 4864, 4992]);
    }

    use crate::latency::measure::Samples;
    use crate::results::quality::RepSample;
    use crate::threads::precision::PrecisionGoal;
    use std::time::Duration;

    /// A synthetic block source: size `i`'s `k`-th block keeps three samples around
    /// `values(i, k)`, takes 1 ms, and its second sample is disturbed when `(i, k)` is in
    /// `disturbed` (discarded and taken again); every call is logged as the size it measured.
    fn source<'a>(
        values: &'a dyn Fn(usize, usize) -> f64,
        disturbed: &'a [(usize, usize)],
        log: &'a mut Vec<usize>,
    ) -> impl FnMut(usize) -> Result<Option<Block>, ChainError> + 'a {
        move |i| {
            let k = log.iter().filter(|&&x| x == i).count();
            log.push(i);
            let v = values(i, k);
            let hit = disturbed.contains(&(i, k));
            let shares: Vec<f64> = if hit {
                vec![0.99, 0.4, 0.99, 0.99]
            } else {
                vec![0.99; 3]
            };
            let mut taken = shares.into_iter();
            let s = crate::latency::measure::take_samples(3, true, None, || {
                crate::latency::measure::Taken {
                    ns_per_load: v,
                    elapsed: Duration::from_micros(300),
                    judged: Some(RepSample {
                        cpu_share_fraction: taken.next(),
                        cpu: Some(0),
                        ..RepSample::default()
                    }),
                }
            });
            let samples = Samples {
                samples_ns: vec![v * 0.99, v, v * 1.01],
                ..s
            };
            Ok(Some(Block {
                samples,
                iterations: 10,
                elapsed: Duration::from_millis(1),
            }))
        }
    }

    fn plan6() -> blocks::PassPlan {
        blocks::PassPlan {
            passes: 6,
            per_pass: 3,
            sample_ns: 100_000,
            spacing: Duration::ZERO,
        }
    }

    /// Three sizes in [`plan6`]'s passes, the sizes from `from` on aimed at `goal`: their
    /// points and the sizes in the order measured.
    fn aimed(
        values: &dyn Fn(usize, usize) -> f64,
        goal: &PrecisionGoal,
        from: usize,
    ) -> (Vec<Point>, Vec<usize>) {
        let mut log = Vec::new();
        let aim = Aim { goal, from };
        let block = source(values, &[], &mut log);
        let (points, _) = in_passes(3, &plan6(), Some(aim), block, |_, _| {}).unwrap();
        (points, log)
    }

    /// Each pass measures every size once, each pass starting elsewhere; a size's
    /// figure is the median of its six block medians with n = 6; its quality record sums its
    /// blocks; progress counts sizes up to all of them.
    #[test]
    fn passes_measure_every_size_once_each_and_summarise_the_block_medians() {
        let values = |i: usize, k: usize| 10.0 * (i + 1) as f64 + k as f64;
        let mut log = Vec::new();
        let mut seen = Vec::new();
        let (points, stopped) = in_passes(
            4,
            &plan6(),
            None,
            source(&values, &[(2, 3)], &mut log),
            |d, t| seen.push((d, t)),
        )
        .unwrap();
        assert!(!stopped);
        assert_eq!(log.len(), 24);
        for (pass, chunk) in log.chunks(4).enumerate() {
            assert_eq!(chunk, blocks::pass_order(4, pass).as_slice(), "pass {pass}");
        }
        assert_eq!(&log[..8], &[0, 1, 2, 3, 1, 2, 3, 0]);
        assert_eq!(seen.last(), Some(&(4, 4)));
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
        for (i, pt) in points.iter().enumerate() {
            assert_eq!(pt.blocks.len(), 6);
            assert_eq!(pt.extra, 0);
            let s = blocks::summary(&pt.blocks).unwrap();
            assert_eq!(s.samples, 6, "n = passes");
            // Block k's median is 10 (i + 1) + k: the six are the interval's extremes.
            let base = 10.0 * (i + 1) as f64;
            assert_eq!(s.median, base + 2.5);
            assert_eq!(
                (s.ci.map(|c| c.low), s.ci.map(|c| c.high)),
                (Some(base), Some(base + 5.0))
            );
            let q = pt.quality.as_ref().unwrap();
            let discarded = u32::from(i == 2);
            assert_eq!(q.repetitions_kept, 18);
            assert_eq!(q.repetitions_discarded, discarded);
            assert_eq!(q.repetitions_taken, 18 + discarded);
            assert_eq!(q.retake_allowance, 18, "each block brings its own");
        }
    }

    /// Toward a goal, only the aimed sizes get extra blocks, in further passes, while their
    /// interval is wider than the target: 3 then 3 more (from 6 block medians to 9 and 12,
    /// where the interval's ranks move), never more than the passes; a quiet size gets none;
    /// a pool stops them sooner and is spent by the blocks taken.
    #[test]
    fn extra_blocks_go_to_the_aimed_sizes_within_the_goal() {
        // Size 2 drifts +-20 % from block to block; size 1 is flat.
        let values = |i: usize, k: usize| match i {
            2 => [80.0, 120.0, 90.0, 110.0, 100.0, 85.0, 115.0, 95.0, 105.0][k % 9],
            _ => 50.0,
        };
        let goal = PrecisionGoal::count_bounded(0.03);
        let (points, log) = aimed(&values, &goal, 1);
        assert_eq!(points[0].blocks.len(), 6, "not aimed");
        assert_eq!((points[1].blocks.len(), points[1].extra), (6, 0), "met");
        assert_eq!((points[2].blocks.len(), points[2].extra), (12, 6));
        assert_eq!(
            &log[18..],
            &[2; 6],
            "extra passes over the aimed size alone"
        );

        // 3.5 ms of pool at 1 ms a block: one batch of three, then the pool is short.
        let goal = PrecisionGoal::within(0.03, Duration::from_micros(3500));
        let (points, _) = aimed(&values, &goal, 2);
        assert_eq!((points[2].blocks.len(), points[2].extra), (9, 3));
        assert_eq!(goal.pool_left(), Some(Duration::from_micros(500)));
        let rec = goal.record(&blocks::medians(&points[2].blocks), 6, points[2].extra);
        assert_eq!((rec.planned_rounds, rec.extra_rounds), (6, 3));
    }

    /// Five blocks (a stop after the fifth pass) give a figure without an interval.
    #[test]
    fn fewer_than_six_passes_give_no_interval() {
        let pp = blocks::PassPlan {
            passes: 5,
            ..plan6()
        };
        let values = |_: usize, k: usize| 20.0 + k as f64;
        let mut log = Vec::new();
        let (points, _) =
            in_passes(2, &pp, None, source(&values, &[], &mut log), |_, _| {}).unwrap();
        let s = blocks::summary(&points[0].blocks).unwrap();
        assert_eq!(
            (s.samples, s.ci.map(|c| c.low), s.ci.map(|c| c.high)),
            (5, None, None)
        );
    }

    /// Sizes asked by name pause between passes: six passes of one size whose blocks take
    /// no time at all still start at least `spacing` apart (a sleep never ends early, so the
    /// lower bound holds on any machine), and the sizes' blocks are all taken.
    #[test]
    fn passes_start_at_least_their_spacing_apart() {
        let pp = blocks::PassPlan {
            spacing: Duration::from_millis(5),
            ..plan6()
        };
        let values = |_: usize, k: usize| 20.0 + k as f64;
        let mut log = Vec::new();
        let t = Instant::now();
        let (points, stopped) =
            in_passes(1, &pp, None, source(&values, &[], &mut log), |_, _| {}).unwrap();
        assert!(
            t.elapsed() >= Duration::from_millis(25),
            "{:?}",
            t.elapsed()
        );
        assert!(!stopped);
        assert_eq!(points[0].blocks.len(), 6);
        assert_eq!(log, vec![0; 6]);
    }

    /// The real thing over a small heap buffer: every size of the sweep gets its six blocks
    /// and a figure from their medians, in its own region or rebuilt in the shared one.
    #[test]
    fn a_blocked_sweep_measures_every_size_in_every_pass() {
        let sizes = [4096u64, 8192, 16384, 32768];
        let plan = SamplePlan {
            samples: 6,
            warmup: 1,
            min_sample_ns: 50_000,
        };
        let spec = ChainSpec {
            mode: crate::results::latency::Mode::Random,
            chains: 1,
            element_bytes: 64,
            group_bytes: 4096,
            seed: 3,
        };
        let layouts = [
            blocks::interleaved(&sizes, 8, 64, |_| 4096),
            blocks::regions(&sizes, 1 << 20, |_| 4096),
            blocks::regions(&sizes, 0, |_| 4096),
        ];
        for regions in layouts {
            let mut buf = vec![0u64; (regions.total_bytes / 8) as usize];
            let how = Sampling {
                spec: &spec,
                plan: &plan,
                timer_resolution_ns: 30.0,
                judge: None,
                aim: None,
                pass_spacing: Duration::ZERO,
            };
            let out = run_blocked(&mut buf, &sizes, &regions, 16384, &how, |_, _| {}).unwrap();
            assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), sizes.to_vec());
            for (_, m) in &out {
                let b = m.blocks.as_ref().unwrap();
                assert_eq!((b.blocks, b.samples_per_block), (6, 3));
                assert_eq!(b.block_medians_ns.len(), 6);
                assert_eq!(m.ns_per_load.samples, 6);
                assert!(m.ns_per_load.ci.map(|c| c.low).is_some());
                assert_eq!(m.samples_ns.len(), 18);
                assert_eq!(b.all_samples.samples, 18);
                assert!(m.loads_per_sample > 0);
                assert_eq!(m.precision, None);
            }
        }
    }

    #[test]
    fn upper_bound_is_eight_llc_within_free_memory() {
        let llc = 36608 * 1024;
        let up = default_upper(llc, 16 << 30);
        assert!(up >= 8 * llc && up < 8 * llc * 1200 / 1000, "{up}");
        assert_eq!(default_upper(llc, 100 << 20), 50 << 20);
        assert_eq!(default_upper(0, 64 << 30), 512 << 20);
    }
}
