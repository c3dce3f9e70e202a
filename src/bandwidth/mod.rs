//! Bandwidth: kernels described as data (`descriptor`), implemented per ISA and chosen at run
//! time (`kernels`, `isa`), run by a synchronized, time-bounded multi-thread harness over
//! placed, verified buffers (`harness`), planned from the user's choices (`plan`) and composed
//! into node x node matrices (`matrix`) and thread-scaling curves (`scaling`); `team` reads
//! placed buffers with a team of threads, configurations in interleaved rounds (the scenarios'
//! rows, the advisor's candidates, `app`'s measured weights). Results are the
//! serde types of `result`. [`run`] ([`experiment`]) is the one entry point the CLI and the
//! full run call. Nothing here prints; `render::bandwidth_text` shows the results.

pub mod descriptor;
pub mod experiment;
pub mod harness;
pub mod isa;
pub mod kernels;
pub mod matrix;
pub mod peak;
mod peak_domains;
pub mod peak_plan;
pub mod plan;
pub mod result;
pub mod scaling;
pub mod team;

pub use experiment::{run, Config, Variant};

use std::time::Duration;

use crate::results::placement::PageSize;
use crate::results::topology::Topology;

/// Settings shared by every run of one invocation.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// Page backing of every array.
    pub page: PageSize,
    /// Length of one repetition.
    pub duration: Duration,
    /// Repetitions kept.
    pub repetitions: usize,
    /// Repetitions run first and dropped.
    pub warmup: usize,
    pub params: kernels::Params,
    /// How big the arrays are.
    pub size: WorkingSet,
}

/// How the working set of one run is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkingSet {
    /// The STREAM rule of [`plan::default_array_bytes`].
    Default,
    /// All threads and all streams together (likwid-bench's convention, `--size`).
    Total(u64),
    /// Each stream's arrays over all threads together (the full run's budget: the same bytes
    /// whatever the thread count).
    PerStream(u64),
}

impl RunSettings {
    /// Bytes of each stream's array per thread for a kernel with `streams` streams run by
    /// `threads` threads: the working set split evenly (rounded down to whole cache lines), or
    /// the default rule.
    pub fn array_bytes(&self, topo: &Topology, streams: usize, threads: usize) -> u64 {
        match self.size {
            WorkingSet::Total(total) => total / (streams.max(1) * threads.max(1)) as u64 / 64 * 64,
            WorkingSet::PerStream(bytes) => bytes / threads.max(1) as u64 / 64 * 64,
            WorkingSet::Default => plan::default_array_bytes(topo, threads),
        }
    }

    /// The harness run of `kernel` on `cpus` (one thread each) with memory placed by
    /// `placement`: the one place a [`harness::RunSpec`] is filled.
    pub fn spec(
        &self,
        topo: &Topology,
        kernel: kernels::Kernel,
        cpus: Vec<u32>,
        placement: &plan::MemPlacement,
    ) -> anyhow::Result<harness::RunSpec> {
        let d = kernel.descriptor();
        Ok(harness::RunSpec {
            kernel,
            array_bytes: self.array_bytes(topo, d.stream_count(), cpus.len()),
            cpus,
            placement: placement.label().into(),
            stream_policies: placement
                .policies(d.name, d.stream_count())
                .map_err(anyhow::Error::msg)?,
            page: self.page,
            duration: self.duration,
            repetitions: self.repetitions,
            warmup: self.warmup,
            params: self.params,
            throttle: None,
        })
    }
}
