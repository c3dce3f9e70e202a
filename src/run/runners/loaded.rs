//! The loaded-latency part of a run, through `loaded::run`.

use std::time::Duration;

use anyhow::Context as _;

use crate::loaded::sizes::default_sizes;
use crate::loaded::{self, LoadedConfig};
use crate::results::loaded::{LoadKernel, LoadedReport};
use crate::results::placement::PageSize;
use crate::results::RunResults;

use super::{measuring_cpu, Ctx, SEED};

/// Loaded latency: the chaser on the measuring CPU, every other usable CPU loading, both
/// buffers on the home node.
pub(super) fn loaded_latency(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let home = s
        .home_node
        .context("no memory node is allowed to this process")?;
    let chaser = measuring_cpu(s)?;
    let load_cpus: Vec<u32> = topo
        .usable_cpus()
        .into_iter()
        .filter(|c| *c != chaser)
        .collect();
    anyhow::ensure!(
        !load_cpus.is_empty(),
        "loaded latency needs a second usable CPU for the load threads"
    );
    let (chaser_bytes, load_bytes_per_thread) =
        default_sizes(topo, home, home, load_cpus.len(), PageSize::Base);
    let cfg = LoadedConfig {
        chaser_cpu: chaser,
        load_cpus,
        mem_node: home,
        load_mem_node: home,
        kernel: s.loaded.mixes.first().copied().unwrap_or(LoadKernel::Read),
        points: s.loaded.delays,
        // The run's reference working set: the no-load point is then the same
        // quantity as the reference's local idle latency and is judged against it.
        chaser_bytes: chaser_bytes.min(s.latency_matrix.size_bytes.max(1 << 20)),
        load_bytes_per_thread,
        page: PageSize::Base,
        duration: Duration::from_millis(s.loaded.timed.duration_ms),
        seed: SEED,
        // The reference's buffer when this is its walk: one quantity on one buffer.
        lent: c.lent.cloned(),
    };
    let base = cfg.clone();
    // Several mixes: one team measures them interleaved, the read curve (the first) kept
    // where a single curve always was, the others beside it.
    let cfg = match s.loaded.mixes.as_slice() {
        [] | [_] => loaded::Config::Curve(cfg),
        mixes => loaded::Config::Family {
            curve: cfg,
            kernels: mixes.to_vec(),
        },
    };
    let mut curves = match loaded::run(topo, root, &cfg, step)?.report {
        LoadedReport::Curve(curve) => vec![*curve],
        LoadedReport::Family(f) => f.curves,
        LoadedReport::Matrix(_) => anyhow::bail!("loaded latency returned a matrix for one curve"),
    }
    .into_iter();
    r.loaded_latency = curves.next();
    r.loaded_latency_mixes = curves.collect();
    // The same curve on each other kind of memory (CXL, HBM, ...), where there is one.
    super::super::tier_curves::measure(topo, root, &base, r);
    Ok(())
}
