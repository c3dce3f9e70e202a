//! The single-thread latencies of scenarios (a) and (b), measured side by side.
//! Both rows chase one buffer on the home node, taking it in turns (the run's reference
//! buffer when it is the same walk: `latency::kept`), each from its own thread: (a)'s bound to
//! the home node's CPUs, (b)'s left to the scheduler. With a buffer each, the pages alone
//! moved a row by 15-20 % on this project's VM (docs/METHODOLOGY.md, "Physical pages"), and
//! that went into (b)'s ratio to (a). Every row sizes its samples before the first block of
//! any row; then rounds alternate one short block of each ((a) (b), then (b) (a), as the node
//! tables rotate their cells), each block walking back to steady state first, so whatever
//! drifts on the host during the part hits both rows alike. A row's
//! figure is the median of its block medians with the order-statistic 95 % interval over the
//! blocks, and (b)'s latency over (a)'s is the paired ratio of the rounds. Before, each row
//! took its samples back to back, minutes apart, and kept a bare median.
//!
//! Every sample is judged (docs/METHODOLOGY.md, "Disturbed repetitions") by what can be judged of a
//! thread the scheduler may move: its own CPU time against wall time wherever it ran, and the steal
//! time of the CPUs it may run on. (b)'s thread is unpinned by design, so "its CPU" is
//! whichever one it was on; a disturbed sample is taken again while the allowance lasts, then
//! kept and the row marked disturbed.
//!
//! A row that cannot be measured (its thread cannot be placed) sits out the remaining rounds
//! while the other goes on; a stop signal ends the rounds, and the blocks measured so far are
//! the figure (fewer than six: no interval). Nothing here prints.

use std::sync::mpsc;

use anyhow::Context as _;

use crate::latency::blocks::{medians, pass_plan, MIN_PASSES};
use crate::latency::chase::ChainSpec;
use crate::latency::kept::{KeptChain, LentChain, Walk};
use crate::latency::measure::{calibrate, take_samples, Samples, Taken};
use crate::latency::walk::Chain;
use crate::placement::Policy;
use crate::results::latency::PointBlocks;
use crate::results::latency::SamplePlan;
use crate::results::placement::PageSize;
use crate::results::quality::RepetitionQuality;
use crate::results::scenarios::ScenarioLatency;
use crate::results::tables::RatioToLocal;
use crate::results::topology::Topology;
use crate::schedule::round_order;
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::quality::rep_sample;
use crate::threads::{StealProbe, ThreadProbe};

/// Rounds of blocks: nine give the 2nd and 8th block medians as a 96 % interval (six, the
/// fewest with an interval, would give only the extremes).
pub const ROUNDS: usize = crate::tables::DEFAULT_ROUNDS;

/// How each row's blocks are cut from the run's latency sample plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockPlan {
    /// Rounds: each row measures one block per round.
    pub rounds: usize,
    /// Samples a block keeps, after `warmup` dropped ones.
    pub per_block: usize,
    /// Samples dropped at the start of each block (the other row's thread ran in between).
    pub warmup: usize,
    /// Minimum length of one sample, ns.
    pub sample_ns: u64,
}

/// The blocks of `plan`, cut as the sweep cuts its passes (`latency::blocks::pass_plan`:
/// at least three samples a block, the plan's sampling time spread over them), in
/// [`ROUNDS`] rounds (never fewer than [`MIN_PASSES`]).
pub fn block_plan(plan: &SamplePlan) -> BlockPlan {
    let pp = pass_plan(plan);
    BlockPlan {
        rounds: ROUNDS.max(MIN_PASSES),
        per_block: pp.per_pass,
        warmup: plan.warmup,
        sample_ns: pp.sample_ns,
    }
}

/// What one block of one row gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// The block's kept samples (ns per load) and their quality.
    Samples(Vec<f64>, Option<RepetitionQuality>),
    /// The row cannot be measured (why); it sits out the remaining rounds.
    Failed(String),
    /// A stop signal came before the block kept a sample: the rounds end.
    Stopped,
}

/// One row's blocks as they came in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowBlocks {
    /// Each block's kept samples, in round order.
    pub blocks: Vec<Vec<f64>>,
    pub quality: Option<RepetitionQuality>,
    /// Why the row stopped being measured, when it failed.
    pub error: Option<String>,
}

/// Runs `rounds` rounds over `rows` rows, each round measuring every row still in once
/// (`schedule::round_order`: with two rows, 0 1, then 1 0, ...), by `block(row)`. A failed row
/// sits out the rest, so its blocks stay a prefix of the rounds and pair by index with the
/// other's; a stop ends every row. The measurer is a parameter so the order is tested without
/// a machine.
pub fn interleave(
    rows: usize,
    rounds: usize,
    mut block: impl FnMut(usize) -> Block,
) -> Vec<RowBlocks> {
    let mut out = vec![RowBlocks::default(); rows];
    'rounds: for round in 0..rounds {
        for i in round_order(rows, round) {
            if out[i].error.is_some() {
                continue;
            }
            if interrupted() {
                break 'rounds;
            }
            match block(i) {
                Block::Samples(v, q) if !v.is_empty() => {
                    out[i].blocks.push(v);
                    if let Some(q) = &q {
                        RepetitionQuality::merge_into(&mut out[i].quality, q);
                    }
                }
                Block::Samples(..) | Block::Stopped => break 'rounds,
                Block::Failed(why) => out[i].error = Some(why),
            }
        }
        if out.iter().all(|r| r.error.is_some()) {
            break;
        }
    }
    out
}

/// A row's figure from its blocks: the summary of the block medians (n = blocks), with the
/// blocks recorded; `None` when no block kept a sample.
pub fn row_latency(
    row: &RowBlocks,
    plan: &BlockPlan,
    interleaved: bool,
) -> Option<ScenarioLatency> {
    let block_medians = medians(&row.blocks);
    let ns_per_load = Summary::of(&block_medians)?;
    let all: Vec<f64> = row.blocks.iter().flatten().copied().collect();
    Some(ScenarioLatency {
        ns_per_load,
        blocks: PointBlocks {
            blocks: block_medians.len(),
            samples_per_block: plan.per_block,
            min_sample_ns: plan.sample_ns,
            block_medians_ns: block_medians,
            all_samples: Summary::of(&all)?,
        },
        cpus: vec![],
        interleaved,
        quality: row.quality.clone(),
    })
}

/// (b)'s latency over (a)'s from their paired rounds (the shorter prefix of both block
/// lists): the median of the per-round ratios with its order-statistic interval.
pub fn ratio_to_a(a: &ScenarioLatency, b: &ScenarioLatency) -> Option<RatioToLocal> {
    RatioToLocal::paired(&a.blocks.block_medians_ns, &b.blocks.block_medians_ns)
}

/// Where one row's thread may run: `cpus` (one CPU: pinned; several: the scheduler picks
/// among them; empty: every CPU this process may use).
pub struct Thread<'a> {
    pub cpus: &'a [u32],
}

/// The buffer the rows' threads chase in turns: `bytes` placed under `policy`, or the run's
/// kept chain (`lent`) when it is that walk.
#[derive(Clone, Copy)]
pub struct RowBuffer<'a> {
    pub policy: &'a Policy,
    pub bytes: u64,
    pub lent: Option<&'a LentChain>,
}

/// Measures the rows' latencies over the one [`RowBuffer`], one thread per row placed as its
/// [`Thread`] says, in interleaved blocks (module docs). The chain is placed and linked (or
/// borrowed) before any row starts, and every row sizes its samples before the first block of
/// any row. Returns each row's blocks in the order given; a row whose thread could not be
/// set up holds the error; a chain that cannot be placed is the error.
pub fn measure_rows(
    topo: &Topology,
    root: &SysRoot,
    threads: &[Thread<'_>],
    buffer: RowBuffer<'_>,
    plan: &BlockPlan,
    timer_resolution_ns: f64,
) -> anyhow::Result<Vec<RowBlocks>> {
    root.require_live("measure latency")?;
    for t in threads {
        if !t.cpus.is_empty() {
            crate::threads::check_cpus(topo, root, t.cpus)?;
        }
    }
    let chain = row_chain(topo, root, buffer)?;
    let chain = &chain;
    std::thread::scope(|s| {
        let mut ask = Vec::new();
        let mut answers = Vec::new();
        let mut ready = Vec::new();
        for t in threads {
            let (tx_cmd, rx_cmd) = mpsc::channel::<()>();
            let (tx_out, rx_out) = mpsc::channel::<Block>();
            let (tx_ready, rx_ready) = mpsc::channel::<Result<(), Block>>();
            ask.push(tx_cmd);
            answers.push(rx_out);
            ready.push(rx_ready);
            let cpus = t.cpus;
            s.spawn(move || {
                let Some(row) = prepare(chain, topo, cpus, plan, timer_resolution_ns, &tx_ready)
                else {
                    return;
                };
                while rx_cmd.recv().is_ok() {
                    if tx_out.send(row.block(chain, plan, root)).is_err() {
                        return;
                    }
                }
            });
        }
        // Every chain built and walked (the rows prepare at once), before any block.
        let setup: Vec<Option<Block>> = ready
            .iter()
            .map(|r| match r.recv() {
                Ok(Ok(())) => None,
                Ok(Err(b)) => Some(b),
                Err(_) => Some(Block::Failed("the latency thread ended".into())),
            })
            .collect();
        let out = interleave(threads.len(), plan.rounds, |i| {
            if let Some(b) = &setup[i] {
                return b.clone();
            }
            if ask[i].send(()).is_err() {
                return Block::Failed("the latency thread ended".into());
            }
            answers[i]
                .recv()
                .unwrap_or_else(|_| Block::Failed("the latency thread ended".into()))
        });
        // Dropping the senders ends every worker's loop.
        drop(ask);
        Ok(out)
    })
}

/// One row once prepared: its thread placed, its samples sized on the chain.
struct Prepared {
    iterations: u64,
    /// The CPUs the thread may run on (their steal is watched).
    watched: Vec<u32>,
}

/// The rows' one chain: the run's when it is this walk, else placed from the calling thread
/// under the buffer's policy and linked.
fn row_chain(topo: &Topology, root: &SysRoot, buffer: RowBuffer<'_>) -> anyhow::Result<LentChain> {
    let walk = Walk {
        bytes: buffer.bytes,
        policy: buffer.policy,
        page: PageSize::Base,
        element_bytes: topo.line_bytes(),
    };
    LentChain::or_place(walk.lender(buffer.lent), || {
        let spec = ChainSpec::random(topo.line_bytes(), 0x5eed);
        KeptChain::place(
            topo,
            root,
            buffer.bytes,
            buffer.policy,
            PageSize::Base,
            &spec,
        )
        .context("placing the scenarios' latency buffer")
    })
}

/// Places the calling thread on `cpus` (empty: left where it is, every CPU this process may
/// use), brings the chain to steady state and sizes the samples; says on `ready` that the
/// row is ready, or why not (a failure, or a stop signal). Every page of the chain was faulted
/// in and every element written when it was linked, so no full first pass is needed.
fn prepare(
    chain: &LentChain,
    topo: &Topology,
    cpus: &[u32],
    plan: &BlockPlan,
    timer_resolution_ns: f64,
    ready: &mpsc::Sender<Result<(), Block>>,
) -> Option<Prepared> {
    if !cpus.is_empty() {
        if let Err(e) = crate::sys::affinity::set_current(cpus) {
            let why = format!("could not bind the latency thread to CPUs {cpus:?}: {e}");
            let _ = ready.send(Err(Block::Failed(why)));
            return None;
        }
    }
    let sized = {
        let mut kept = chain.lock();
        let mut walk = kept.chain();
        crate::latency::steady::settle(&mut walk);
        calibrate(&mut walk, plan.sample_ns, timer_resolution_ns)
    };
    let Some(iterations) = sized else {
        let _ = ready.send(Err(Block::Stopped));
        return None;
    };
    let watched = if cpus.is_empty() {
        topo.usable_cpus()
    } else {
        cpus.to_vec()
    };
    ready.send(Ok(())).ok()?;
    Some(Prepared {
        iterations,
        watched,
    })
}

impl Prepared {
    /// One block on `chain` (the rows take it in turns): back to steady state, `warmup`
    /// dropped samples, then `per_block` kept ones, each judged.
    fn block(&self, chain: &LentChain, plan: &BlockPlan, root: &SysRoot) -> Block {
        let it = self.iterations;
        let mut kept = chain.lock();
        let mut chain = kept.chain();
        // The other row's thread walked in between: back to steady state first.
        crate::latency::steady::settle(&mut chain);
        for _ in 0..plan.warmup {
            chain.walk(it);
        }
        let watched = &self.watched;
        let Samples {
            samples_ns,
            quality,
            ..
        } = take_samples(plan.per_block.max(1), true, None, || {
            judged_sample(&mut chain, it, root, watched)
        });
        if samples_ns.is_empty() {
            Block::Stopped
        } else {
            Block::Samples(samples_ns, quality)
        }
    }
}

/// One timed walk, judged by the thread's CPU share wherever it ran and the steal of the CPUs
/// it may run on.
fn judged_sample(chain: &mut Chain<'_>, iterations: u64, root: &SysRoot, watched: &[u32]) -> Taken {
    let steal = StealProbe::start(root, watched);
    let probe = ThreadProbe::start();
    let t = std::time::Instant::now();
    let loads = chain.walk(iterations);
    let elapsed = t.elapsed();
    let usage = probe.finish();
    let cpu = match watched {
        [one] => *one,
        _ => crate::sys::affinity::current_cpu_and_node()
            .map(|c| c.0)
            .unwrap_or(watched.first().copied().unwrap_or(0)),
    };
    Taken {
        ns_per_load: elapsed.as_nanos() as f64 / loads.max(1) as f64,
        elapsed,
        judged: Some(rep_sample(&[(cpu, usage)], steal.finish())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> BlockPlan {
        BlockPlan {
            rounds: 9,
            per_block: 3,
            warmup: 1,
            sample_ns: 1_000_000,
        }
    }

    /// (a) and (b) alternate, A B then B A, one block each per round, so neither
    /// always runs first and round i of one pairs with round i of the other.
    #[test]
    fn rounds_alternate_a_b_then_b_a() {
        let mut order = Vec::new();
        let out = interleave(2, 6, |i| {
            order.push(i);
            Block::Samples(vec![10.0 + i as f64], None)
        });
        assert_eq!(order, vec![0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0]);
        assert!(out.iter().all(|r| r.blocks.len() == 6 && r.error.is_none()));
        // One row alone: one block per round.
        let mut alone = Vec::new();
        let out = interleave(1, 6, |i| {
            alone.push(i);
            Block::Samples(vec![1.0], None)
        });
        assert_eq!(alone, vec![0; 6]);
        assert_eq!(out[0].blocks.len(), 6);
    }

    /// A row that fails sits out the remaining rounds while the other goes on; a stop ends
    /// both, keeping what was measured (aligned prefixes).
    #[test]
    fn a_failed_row_sits_out_and_a_stop_ends_the_rounds() {
        let mut calls = 0;
        let out = interleave(2, 6, |i| {
            calls += 1;
            if i == 1 {
                Block::Failed("no chain".into())
            } else {
                Block::Samples(vec![5.0], None)
            }
        });
        assert_eq!(out[0].blocks.len(), 6);
        assert!(out[1].blocks.is_empty());
        assert_eq!(out[1].error.as_deref(), Some("no chain"));
        assert_eq!(calls, 7, "(b) was asked once, then sat out");
        let mut n = 0;
        let out = interleave(2, 6, |_| {
            n += 1;
            if n == 6 {
                Block::Stopped
            } else {
                Block::Samples(vec![5.0], None)
            }
        });
        // Rounds 0 and 1 whole, round 2's first block, then the stop.
        assert_eq!((out[0].blocks.len(), out[1].blocks.len()), (3, 2));
        assert!(out.iter().all(|r| r.error.is_none()));
    }

    fn blocks(medians: &[f64]) -> RowBlocks {
        RowBlocks {
            blocks: medians
                .iter()
                .map(|m| vec![m - 1.0, *m, m + 50.0])
                .collect(),
            quality: None,
            error: None,
        }
    }

    /// A row's figure is the summary of its block medians (n = blocks, the interval over
    /// them, not over the samples), and (b) over (a) is the paired ratio of the rounds.
    #[test]
    fn figures_and_the_paired_ratio_come_from_block_medians() {
        let a_med = [100.0, 104.0, 98.0, 102.0, 120.0, 101.0, 99.0, 103.0, 100.5];
        // (b) 20 % slower in every round, whatever the round's drift.
        let b_med: Vec<f64> = a_med.iter().map(|v| v * 1.2).collect();
        let a = row_latency(&blocks(&a_med), &plan(), true).unwrap();
        let b = row_latency(&blocks(&b_med), &plan(), true).unwrap();
        assert_eq!(a.ns_per_load.samples, 9, "n = blocks");
        assert_eq!(a.ns_per_load.median, 101.0);
        // Nine medians: the 2nd and 8th sorted, 99 and 104; neither the 120 block nor the
        // samples' +50 tails.
        assert_eq!(
            (
                a.ns_per_load.ci.map(|c| c.low),
                a.ns_per_load.ci.map(|c| c.high)
            ),
            (Some(99.0), Some(104.0))
        );
        assert_eq!(a.blocks.block_medians_ns, a_med.to_vec());
        assert_eq!(a.blocks.blocks, 9);
        assert_eq!(a.blocks.all_samples.samples, 27);
        assert_eq!(a.blocks.all_samples.max, 170.0);
        let r = ratio_to_a(&a, &b).unwrap();
        assert!((r.ratio - 1.2).abs() < 1e-9);
        assert!(
            (r.ci.map(|c| c.low).unwrap() - 1.2).abs() < 1e-9
                && (r.ci.map(|c| c.high).unwrap() - 1.2).abs() < 1e-9
        );
        assert_eq!(r.pairs, 9);
        // Unequal lengths (a stop mid-round): the shorter prefix pairs; five pairs, no interval.
        let short = row_latency(&blocks(&b_med[..5]), &plan(), true).unwrap();
        let r = ratio_to_a(&a, &short).unwrap();
        assert_eq!((r.pairs, r.ci.map(|c| c.low)), (5, None));
        assert_eq!(short.ns_per_load.ci.map(|c| c.low), None);
        assert!(row_latency(&RowBlocks::default(), &plan(), false).is_none());
    }

    #[test]
    fn the_blocks_follow_the_sweep_s_cut() {
        let quick = block_plan(&SamplePlan {
            samples: 7,
            warmup: 2,
            min_sample_ns: 1_000_000,
        });
        assert_eq!(quick.rounds, 9);
        assert!(quick.rounds >= MIN_PASSES);
        assert_eq!((quick.per_block, quick.warmup), (3, 2));
        assert_eq!(quick.sample_ns, 7_000_000 / 18);
    }

    #[test]
    fn the_scenarios_latency_rows_keep_judged_blocks() {
        let topo = crate::testutil::this_machine_one_node();
        let root = crate::sysroot::SysRoot::live();
        let cpus: Vec<u32> = topo.usable_cpus().into_iter().take(1).collect();
        // The scenarios' single-thread latency: one thread left to the scheduler, one on the
        // first CPU, two rounds of blocks over their one buffer.
        let plan = BlockPlan {
            rounds: 2,
            per_block: 3,
            warmup: 1,
            sample_ns: 200_000,
        };
        let threads = [Thread { cpus: &[] }, Thread { cpus: &cpus }];
        let rows = measure_rows(
            &topo,
            &root,
            &threads,
            RowBuffer {
                policy: &Policy::Bind(vec![0]),
                bytes: 4 << 20,
                lent: None,
            },
            &plan,
            30.0,
        )
        .unwrap();
        for r in &rows {
            assert_eq!(r.error, None);
            assert_eq!(r.blocks.len(), 2, "{r:?}");
            let q = r.quality.as_ref().expect("every block is judged");
            assert_eq!(q.repetitions_kept, 6);
            for &ns in r.blocks.iter().flatten() {
                // A dependent load cannot take less than a cycle; a folded chain would show
                // ~0. No upper bound: a busy machine only makes it slower.
                assert!(ns.is_finite() && ns > 0.3, "{ns}");
            }
        }
    }
}
