//! The `weighted:measured` candidate: weighted-interleave weights derived from this machine's
//! measured bandwidth, as the run's scenario (g) derives them. All the program's allowed CPUs
//! read from each memory node in turn (one short timed repetition per node, threads pinned,
//! pages bound to that node), and the weights are the per-node bandwidths reduced to small
//! integers (`placement::measured_weights::derive_weights`). The kernel's weights are system-wide,
//! so they are set only while the candidate's program runs and restored after each run
//! (`placement::WeightGuard`, which also restores them on a stop signal or an error).

use crate::bandwidth::team::{measure_once, Config, Job};
use crate::placement::measured_weights::{derive_weights, weights_text};
use crate::placement::Policy;
use crate::results::topology::Topology;
use crate::schedule::TimedSettings;
use crate::sysroot::SysRoot;

use super::error::AppError;

/// Bytes each reading thread streams per node: well beyond any last-level cache of one core.
const BYTES_PER_THREAD: u64 = 64 << 20;
/// The smallest buffer per thread worth timing (beyond a core's L2).
const MIN_BYTES_PER_THREAD: u64 = 4 << 20;
/// One repetition per node, long enough to leave the ramp-up behind.
const TIMED: TimedSettings = TimedSettings {
    duration_ms: 200,
    repetitions: 3,
};

/// The measured weights and the per-node bandwidths (MB/s) they came from.
pub struct Measured {
    pub weights: Vec<(u32, u8)>,
    pub per_node_mb_s: Vec<(u32, f64)>,
}

impl Measured {
    /// The candidate's label: the weights and their evidence.
    pub fn label(&self) -> String {
        format!(
            "memory weighted-interleaved with weights {} measured here (all CPUs reading each node: {}); set for each run, restored after",
            weights_text(&self.weights),
            self.per_node_mb_s
                .iter()
                .map(|(n, b)| format!("node {n} {b:.0} MB/s"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Measures the bandwidth of every allowed CPU reading each memory node and derives weights.
pub fn measure(topo: &Topology, root: &SysRoot) -> Result<Measured, AppError> {
    let cpus = topo.allowed_cpus.clone();
    let mut per_node = Vec::new();
    for m in topo.memory_nodes() {
        if crate::sys::signal::interrupted() {
            break;
        }
        // Bound to one node, the buffers must fit in what that node (and this process's
        // memory limits) has available, with room to spare: at most half of it.
        let available = topo.node(m).map_or(0, |n| topo.available_on(n));
        let room = available / 2 / cpus.len().max(1) as u64;
        let bytes_per_thread = BYTES_PER_THREAD.min(room).max(MIN_BYTES_PER_THREAD);
        if bytes_per_thread > room {
            return Err(AppError::environment(format!(
                "`weighted:measured` cannot measure node {m}: it has too little memory available for a bandwidth test; use `interleave` or `weighted`"
            )));
        }
        let cfg = Config {
            job: Job::Team {
                cpus: cpus.clone(),
                policies: vec![Policy::Bind(vec![m]); cpus.len()],
            },
            bytes_per_thread,
            weights: None,
        };
        let t = measure_once(topo, root, &cfg, &TIMED).map_err(|e| {
            AppError::environment(format!(
                "measuring the bandwidth of node {m} for `weighted:measured` failed: {}",
                crate::error::one_sentence(&e)
            ))
        })?;
        per_node.push((m, t.total_mb_per_s.median));
    }
    let weights = derive_weights(&per_node);
    if weights.is_empty() {
        return Err(AppError::environment(
            "`weighted:measured` found fewer than two memory nodes with a usable bandwidth figure; use `interleave`",
        ));
    }
    Ok(Measured {
        weights,
        per_node_mb_s: per_node,
    })
}
