//! Bandwidth: kernels described as data (`descriptor`), implemented per ISA and chosen at run
//! time (`kernels`, `isa`), run by a synchronized, time-bounded multi-thread harness over
//! placed, verified buffers (`harness`), planned from the user's choices (`plan`) and composed
//! into node x node matrices (`matrix`) and thread-scaling curves (`scaling`). Results are the
//! serde types of `result`. Nothing here prints; `render::bandwidth_text` shows the results.

pub mod descriptor;
pub mod harness;
pub mod isa;
pub mod kernels;
pub mod matrix;
pub mod plan;
pub mod result;
pub mod scaling;

use std::time::Duration;

use crate::placement::PageSize;
use crate::topology::Topology;

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
    /// Total working set of a run (all threads, all streams), likwid-bench's convention;
    /// `None`: the STREAM rule of [`plan::default_array_bytes`].
    pub size: Option<u64>,
}

impl RunSettings {
    /// Bytes of each stream's array per thread for a kernel with `streams` streams run by
    /// `threads` threads: the working set split evenly (rounded down to whole cache lines), or
    /// the default rule.
    pub fn array_bytes(&self, topo: &Topology, streams: usize, threads: usize) -> u64 {
        match self.size {
            Some(total) => total / (streams.max(1) * threads.max(1)) as u64 / 64 * 64,
            None => plan::default_array_bytes(topo, threads),
        }
    }
}
