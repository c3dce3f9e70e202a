//! Core-to-core latency: how long one cache line takes to travel between two CPUs
//! (docs/METHODOLOGY.md, "Core to core"). [`run`] places the line on its home node, measures the
//! selected ordered pairs with [`bounce`] in short blocks spread over the experiment ([`blocks`]:
//! rounds over all pairs, each pair's figure and interval from its block medians), and summarizes
//! the matrix by the cache topology ([`summary`]). It never prints; `cli/c2c.rs` and
//! `render/c2c_text.rs` do.

pub mod blocks;
pub mod bounce;
pub mod pairs;
pub mod summary;

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use anyhow::Context as _;

use crate::experiment::{Outcome, Progress};
use crate::placement::{PlacedBuffer, Policy};
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::{check_cpus, on_cpu};
use crate::traffic::TrafficRecorder;

use crate::results::c2c::{
    BlockMedian, C2cPlan, C2cResult, PairResult, Unstable, C2C_SCHEMA_VERSION,
};
pub use bounce::BouncePlan;

/// Attempts at a pair's first block, each with 4x longer repetitions and 16x smaller batches than the last
/// (10 ms and 200 round trips a sample become 640 ms and one).
const ATTEMPTS: usize = 4;

/// A validated c2c request.
#[derive(Clone, Debug)]
pub struct Config {
    /// Distinct CPUs, ascending, at least two.
    pub cpus: Vec<u32>,
    pub line_node: u32,
    pub plan: BouncePlan,
}

/// Checks the CPUs (exist, online, allowed, at least two) and returns them ascending.
pub fn check_config_cpus(
    topo: &Topology,
    root: &SysRoot,
    cpus: &[u32],
) -> anyhow::Result<Vec<u32>> {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    check_cpus(topo, root, &v)?;
    if v.len() < 2 {
        anyhow::bail!(
            "core-to-core latency needs at least two CPUs, --cpus gives only {}; name two or more, e.g. --cpus 0,1",
            crate::results::format::format_list(&v)
        );
    }
    Ok(v)
}

/// Measures every selected pair and builds the result; `progress(done, total)` after each
/// block. A pair that fails stops the experiment (its error names the pair); Ctrl-C stops at
/// the next block: a pair keeps the blocks it got, and the pairs not measured at all are
/// empty cells of the matrix.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<C2cResult>> {
    let cpus = check_config_cpus(topo, root, &cfg.cpus)?;
    let (mut buf, touched) = place_line(topo, root, cfg.line_node)?;
    let report = buf.verify()?;
    let line: &AtomicU64 = &buf.as_atomic_u64()[0];

    let (selected, sampling) = pairs::select_pairs(&cpus);
    let traffic = TrafficRecorder::start(root);
    let results = measure_pairs(topo, root, line, &selected, &cfg.plan, progress)?;
    let traffic = traffic.finish();
    drop(buf);

    let medians: Vec<(u32, u32, f64)> = results
        .iter()
        .map(|p| (p.from, p.to, p.ns_one_way.median))
        .collect();
    let groups = summary::group(topo, &medians);
    let unstable: Vec<(u32, u32, Unstable)> = results
        .iter()
        .filter_map(|p| Some((p.from, p.to, p.unstable?)))
        .collect();
    let warnings = disturbed_warning(&results)
        .into_iter()
        .chain(blocks::unstable_warning(&unstable))
        .collect();
    let layout = blocks::layout(&cfg.plan);
    Ok(Outcome::done(C2cResult {
        schema_version: C2C_SCHEMA_VERSION,
        matrix: crate::results::c2c::matrix_of(&cpus, &results),
        summary: summary::sentence(&groups),
        groups,
        cpus,
        line_node: cfg.line_node,
        line_touched_on_cpu: touched,
        placement_fraction: report.fraction_on_intended,
        line_placement: report,
        plan: C2cPlan {
            round_trips_per_sample: cfg.plan.round_trips_per_sample,
            repetitions: layout.blocks,
            warmup_repetitions: 0,
            repetition_ms: layout.block_ms,
            method: "compare-and-swap handshake on one 64-byte-aligned line; ns one way = round trip / 2; each pair in blocks spread over the experiment (rounds over all pairs, order rotated), the first fifth of each block dropped; figure and 95 % interval from the block medians".into(),
            blocks_per_pair: Some(layout.blocks),
        },
        sampling,
        pairs: results,
        traffic,
        environment: topo.environment.clone(),
        warnings,
    }))
}

/// What one pair gathered over its blocks.
#[derive(Default)]
struct PairBlocks {
    blocks: Vec<BlockMedian>,
    /// Every kept sample, for the tail (p90, p99). Single precision: all pairs' samples are
    /// held until the last round (about 1,500 a pair; a 64-CPU machine has 4,032 pairs).
    samples_ns: Vec<f32>,
    quality: Option<crate::results::quality::RepetitionQuality>,
    /// The block plan that gave the first block samples (patience included); `None` until
    /// the pair's first block.
    used: Option<BouncePlan>,
}

impl PairBlocks {
    /// Adds one block's bounce: its median, its samples and its quality.
    fn add_block(&mut self, offset_ms: f64, bounce: &bounce::Bounce) {
        self.blocks.push(BlockMedian {
            start_offset_ms: offset_ms,
            ns_one_way_median: (!bounce.samples_ns.is_empty())
                .then(|| crate::stats::median(&bounce.samples_ns)),
            samples: bounce.samples_ns.len(),
            disturbed: bounce.quality.disturbed,
        });
        self.samples_ns
            .extend(bounce.samples_ns.iter().map(|&ns| ns as f32));
        crate::results::quality::RepetitionQuality::merge_into(&mut self.quality, &bounce.quality);
    }

    /// The pair's result from its blocks; `None` when no block measured it.
    fn into_result(
        self,
        topo: &Topology,
        (a, b): (u32, u32),
        first_plan: &BouncePlan,
    ) -> Option<PairResult> {
        let p = self;
        let ns = blocks::pair_summary(&p.blocks)?;
        // A disturbed block's median includes waiting for a descheduled thread: two groups
        // are looked for among the others only, so contention is not taken for a move.
        let medians: Vec<f64> = p
            .blocks
            .iter()
            .filter(|b| !b.disturbed)
            .filter_map(|b| b.ns_one_way_median)
            .collect();
        Some(PairResult {
            from: a,
            to: b,
            relation: summary::relation(topo, a, b),
            ns_one_way: ns,
            ns_one_way_all_samples: Summary::of(
                &p.samples_ns
                    .iter()
                    .map(|&ns| f64::from(ns))
                    .collect::<Vec<_>>(),
            ),
            unstable: blocks::two_groups(&medians),
            blocks: p.blocks,
            cpu_share: p
                .quality
                .as_ref()
                .and_then(|q| q.lowest_kept_cpu_share_fraction),
            quality: p.quality,
            patience: p
                .used
                .filter(|u| u != first_plan)
                .map(|u| crate::results::c2c::Patience {
                    round_trips_per_sample: u.round_trips_per_sample,
                    repetition_ms: u.repetition.as_millis() as u64,
                }),
        })
    }
}

/// Bounces the line for every selected pair in rounds: each round measures one block of
/// every pair, the start of the order rotating by one pair a round, so whatever changes on
/// the host during the experiment (a vCPU moved to another host core, another tenant) shows
/// up between the blocks of every pair. A pair's first block is patient (longer blocks with
/// smaller batches while none completes); its later blocks use the plan that worked. Ctrl-C
/// stops before the next block.
fn measure_pairs(
    topo: &Topology,
    root: &SysRoot,
    line: &AtomicU64,
    selected: &[(u32, u32)],
    plan: &BouncePlan,
    progress: &Progress<'_>,
) -> anyhow::Result<Vec<PairResult>> {
    let layout = blocks::layout(plan);
    let first_plan = layout.block_plan(plan.round_trips_per_sample);
    let mut acc: Vec<PairBlocks> = selected.iter().map(|_| PairBlocks::default()).collect();
    let total = selected.len() * layout.blocks;
    let start = Instant::now();
    let mut done = 0;
    'rounds: for round in 0..layout.blocks {
        for k in crate::schedule::round_order(selected.len(), round) {
            if interrupted() {
                break 'rounds;
            }
            let (a, b) = selected[k];
            let pair = bounce::Pair {
                line,
                from: a,
                to: b,
            };
            let offset_ms = start.elapsed().as_secs_f64() * 1e3;
            let p = &mut acc[k];
            let bounce = match p.used {
                Some(used) => later_block(topo, root, pair, &used),
                None => first_block(topo, root, pair, &first_plan).map(|(bounce, used)| {
                    p.used = Some(used);
                    bounce
                }),
            }
            .with_context(|| format!("measuring CPU {a} -> CPU {b}"))?;
            if p.blocks.is_empty() && bounce.samples_ns.is_empty() {
                anyhow::bail!(
                    "CPU {a} and CPU {b} completed no round trip even in {} ms repetitions; the CPUs are too busy with other work, try again when they are idle",
                    p.used.map_or(0, |u| u.repetition.as_millis())
                );
            }
            p.add_block(offset_ms, &bounce);
            done += 1;
            progress(done, total);
        }
    }
    Ok(selected
        .iter()
        .zip(acc)
        .filter_map(|(&pair, p)| p.into_result(topo, pair, &first_plan))
        .collect())
}

/// A pair's first block and the plan its later blocks use. A block is one short repetition,
/// so one without a sample may be bad luck (the two threads never ran at the same time on a
/// busy host): the plan is tried once more before the patient retries lengthen every block of
/// the pair. As in the patient retries, the record of a try without a sample is dropped
/// with it.
fn first_block(
    topo: &Topology,
    root: &SysRoot,
    pair: bounce::Pair<'_>,
    plan: &BouncePlan,
) -> Result<(bounce::Bounce, BouncePlan), crate::threads::ThreadError> {
    let b = bounce::bounce_pair(topo, root, pair, plan)?;
    if !b.samples_ns.is_empty() {
        return Ok((b, *plan));
    }
    bounce::bounce_pair_patient(topo, root, pair, plan, ATTEMPTS)
}

/// A later block of a pair, tried once more when it completed no batch (the two threads did
/// not run at the same time during its few milliseconds): a block without a median would
/// leave the pair short of the six that give an interval. The empty try's record is dropped,
/// as in [`first_block`].
fn later_block(
    topo: &Topology,
    root: &SysRoot,
    pair: bounce::Pair<'_>,
    plan: &BouncePlan,
) -> Result<bounce::Bounce, crate::threads::ThreadError> {
    let b = bounce::bounce_pair(topo, root, pair, plan)?;
    if !b.samples_ns.is_empty() {
        return Ok(b);
    }
    bounce::bounce_pair(topo, root, pair, plan)
}

/// One warning for the pair whose threads got the least of their CPUs, when its repetitions
/// stayed disturbed after the retakes ran out (the times then include waiting for the other
/// thread to be scheduled).
fn disturbed_warning(results: &[PairResult]) -> Option<String> {
    let share = |p: &PairResult| p.cpu_share.unwrap_or(1.0);
    let worst = results
        .iter()
        .filter(|p| p.quality.as_ref().is_some_and(|q| q.disturbed))
        .min_by(|x, y| share(x).total_cmp(&share(y)))?;
    let reason = crate::render::words::disturbed::reason(worst.quality.as_ref()?)?;
    Some(format!(
        "core-to-core time of CPU {} -> CPU {}: {reason}",
        worst.from, worst.to
    ))
}

/// One page bound to `node`, first touched from a usable CPU of that node when it has one.
fn place_line(
    topo: &Topology,
    root: &SysRoot,
    node: u32,
) -> anyhow::Result<(PlacedBuffer, Option<u32>)> {
    let policy = Policy::Bind(vec![node]);
    let page = topo.environment.page_size_bytes.max(4096);
    match topo.usable_cpus_of(node).first() {
        Some(&cpu) => {
            let buf = on_cpu(topo, root, cpu, || {
                PlacedBuffer::new(topo, root, page, &policy, PageSize::Base)
            })??;
            Ok((buf, Some(cpu)))
        }
        None => Ok((
            PlacedBuffer::new(topo, root, page, &policy, PageSize::Base)?,
            None,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::this_machine_one_node;
    use std::sync::Mutex;
    use std::time::Duration;

    /// Mechanics only: every pair is measured in the layout's blocks, one per round,
    /// the order rotating each round; its figure's n is its blocks with a median, and the
    /// plan states the blocks.
    #[test]
    fn pairs_are_measured_in_rotating_rounds_of_blocks() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let cpus = topo.usable_cpus();
        if cpus.len() < 2 {
            eprintln!("skipped: c2c needs two usable CPUs, this process has one");
            return;
        }
        let cfg = Config {
            cpus: cpus[..2].to_vec(),
            line_node: topo.cpu(cpus[0]).and_then(|c| c.node).unwrap_or(0),
            plan: BouncePlan {
                round_trips_per_sample: 20,
                repetitions: 2,
                repetition: Duration::from_millis(2),
            },
        };
        let steps = Mutex::new(Vec::new());
        let progress = |done: usize, total: usize| steps.lock().unwrap().push((done, total));
        let r = run(&topo, &SysRoot::live(), &cfg, &progress)
            .unwrap()
            .into_result()
            .unwrap();
        let layout = blocks::layout(&cfg.plan);
        assert_eq!(layout.blocks, crate::schedule::MIN_SAMPLES_FOR_INTERVAL);
        assert_eq!(r.plan.blocks_per_pair, Some(layout.blocks));
        assert_eq!(
            (
                r.plan.repetitions,
                r.plan.warmup_repetitions,
                r.plan.repetition_ms
            ),
            (layout.blocks, 0, layout.block_ms)
        );
        assert_eq!(r.pairs.len(), 2);
        for p in &r.pairs {
            assert_eq!(p.blocks.len(), layout.blocks, "one block per round");
            let medians = p.blocks.iter().filter(|b| b.ns_one_way_median.is_some());
            assert_eq!(p.ns_one_way.samples, medians.count(), "n = blocks");
            let all = p.ns_one_way_all_samples.expect("samples of every block");
            let samples: usize = p.blocks.iter().map(|b| b.samples).sum();
            assert_eq!(all.samples, samples);
            assert!(p.quality.is_some());
        }
        // Round k of every pair ends before round k + 1 of any starts, and each round starts
        // one pair later than the last.
        let (a, b) = (&r.pairs[0].blocks, &r.pairs[1].blocks);
        for k in 0..layout.blocks {
            let (first, second) = if k % 2 == 0 { (a, b) } else { (b, a) };
            assert!(
                first[k].start_offset_ms < second[k].start_offset_ms,
                "round {k}"
            );
            if k + 1 < layout.blocks {
                assert!(
                    second[k].start_offset_ms
                        < a[k + 1].start_offset_ms.min(b[k + 1].start_offset_ms)
                );
            }
        }
        let steps = steps.into_inner().unwrap();
        assert_eq!(steps.len(), 2 * layout.blocks);
        assert_eq!(steps.last(), Some(&(2 * layout.blocks, 2 * layout.blocks)));
    }
}
