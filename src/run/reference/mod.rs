//! The run-wide reference measurement ("one quantity, one figure"): local idle DRAM
//! latency and local read bandwidth measured once per run under one stated set of conditions,
//! in short repetitions interleaved across the whole run (before each part after the topology
//! and after the last, at least six in all), so the figure's interval covers the run's drift instead of one moment of it.
//!
//! Conditions: latency is one thread pinned to the home node's first usable CPU chasing a
//! random walk (cache-line elements, the run's seed) over the latency matrix's working set
//! (8x the last-level cache) of 4 KiB pages bound to the home node; bandwidth is one pinned
//! thread per usable CPU of the home node reading its own buffer of the bandwidth part's size
//! per thread, 4 KiB pages bound to the home node, with the `read` kernel. The buffers are
//! placed, faulted in and (for latency) linked once and kept for the whole run, so a
//! repetition costs tens of milliseconds, not a page-fault pass. Each latency repetition
//! starts at steady state: the part before it streamed through the caches and the
//! TLB, so the chain is walked untimed for `latency::steady::STEADY_WARMUP_NS` first, then
//! timed in ten 2 ms samples (the standalone command's sample), and the figure pools every
//! kept repetition's samples: the chase lives on its own
//! pinned thread that waits between repetitions; the read buffers are handed from one team to
//! the next. Each repetition is judged like every other (CPU share and steal, `threads::Probe`
//! and the team's record): a disturbed one is taken again while a small allowance lasts.
//!
//! The parts whose conditions are the same skip that measurement (`run::runners` asks
//! [`latency_ready`] / [`bandwidth_ready`]) and record the place in
//! `ReferenceFigures::filled`; `Reference::fill` then writes the reference figure there, so
//! those places show exactly this figure. Nothing here prints.
//!
//! The module by concept: `plan` says which places the reference covers and what it adds to
//! the plan; `chaser` is the chasing thread that owns the latency chain; `take` holds the
//! [`Reference`] and its repetitions; `pool` adds the blocks of the places that measured a
//! reference quantity again under its conditions; `fill` writes the figures into the places
//! left to it.

mod chaser;
#[cfg(test)]
mod disturbed_tests;
mod fill;
mod plan;
mod pool;
mod probe;
mod take;
#[cfg(test)]
mod tests;

pub use fill::latency_result;
pub use plan::{
    bandwidth_ready, coverage, estimate_s, latency_ready, per_slot, planned, slot_before, slots,
    wanted, Coverage,
};
pub use probe::warning as probe_warning;
pub use take::Reference;

use crate::results::plan::Part;
use crate::results::topology::Topology;

use super::settings::Settings;

/// The parts that show the reference latency (the sweep's point, the matrix's home cell, the
/// loaded idle point beside its own): the latency side runs when any of them runs.
pub const SHOWN_BY_LATENCY: &[Part] = &[Part::Latency, Part::LatencyMatrix, Part::LoadedLatency];

/// The parts that show the reference bandwidth (the local read, the matrix's home cell,
/// scaling's full point): the bandwidth side runs when any of them runs. Neither side runs
/// for `--only topology`, `c2c` or `scenarios`, which show neither.
pub const SHOWN_BY_BANDWIDTH: &[Part] = &[Part::Bandwidth, Part::BandwidthMatrix, Part::Scaling];

/// Kept repetitions a run aims for at least: six, the fewest with a 95 % interval for the
/// median. A run of few parts takes several repetitions per slot to reach it.
pub const MIN_REPETITIONS: usize = crate::schedule::MIN_SAMPLES_FOR_INTERVAL;

/// Length of one latency sample, ns: the standalone `latency` command's (2 ms), so the
/// reference's samples and the standalone's are the same walk timed the same way.
const LATENCY_SAMPLE_NS: f64 = crate::latency::measure::SAMPLE_NS_DEFAULT as f64;

/// Samples of one latency repetition (20 ms timed, after the untimed walk to steady state of
/// `latency::steady`): the figure pools every kept repetition's samples, so its
/// interval is that of the samples, as the standalone command's is, while the repetitions
/// spread over the run put the run's drift into them; a repetition is judged (and retaken)
/// as a whole, so one preemption spoils one repetition.
const SAMPLES_PER_REP: usize = 10;

/// Length of one latency repetition, ns: its samples and the walk to steady state before them.
const LATENCY_REP_NS: f64 =
    LATENCY_SAMPLE_NS * SAMPLES_PER_REP as f64 + crate::latency::steady::STEADY_WARMUP_NS as f64;

/// Length of one bandwidth repetition, ms: every thread streams several MiB.
pub const BANDWIDTH_REP_MS: u64 = 60;

/// The reference's conditions on this machine under the plan's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Conditions {
    pub node: u32,
    /// The chasing CPU: the home node's first usable CPU.
    pub cpu: u32,
    /// The reading CPUs: every usable CPU of the home node.
    pub cpus: Vec<u32>,
    pub latency_bytes: u64,
    pub line_bytes: u64,
    pub bytes_per_thread: u64,
}

/// The conditions, or `None` when the machine has no node with both memory and CPUs.
pub fn conditions(topo: &Topology, s: &Settings) -> Option<Conditions> {
    let node = s.home_node?;
    let cpus = topo.usable_cpus_of(node);
    Some(Conditions {
        node,
        cpu: *cpus.first()?,
        latency_bytes: s.latency_matrix.size_bytes,
        line_bytes: topo.line_bytes(),
        bytes_per_thread: bytes_per_thread(topo, s, cpus.len()),
        cpus,
    })
}

/// Bytes each of `threads` threads reads in the run's bandwidth parts: the run sizes all
/// threads' arrays together at `bytes_per_thread` per usable CPU, whatever the thread count.
pub fn bytes_per_thread(topo: &Topology, s: &Settings, threads: usize) -> u64 {
    s.bandwidth.bytes_per_thread * topo.usable_cpus().len().max(1) as u64 / threads.max(1) as u64
}
