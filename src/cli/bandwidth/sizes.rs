//! `numascope bandwidth --size` and `--sweep`: the working sets, as all threads together or
//! per thread.

use anyhow::Context as _;

use crate::parse::size::parse_size;
use crate::results::format::format_bytes;
use crate::results::topology::Topology;

use super::BandwidthArgs;

/// `--size`: one size or a comma-separated list, each above zero.
pub(super) fn parse_sizes(text: &str) -> anyhow::Result<Vec<u64>> {
    let sizes = text
        .split(',')
        .map(|t| {
            let s = parse_size(t.trim()).context("--size")?;
            anyhow::ensure!(s > 0, "--size 0 holds no data; give e.g. 1GiB");
            Ok(s)
        })
        .collect::<anyhow::Result<Vec<u64>>>()?;
    crate::cli::distinct("--size", &sizes)
}

/// The smallest working set per thread `--sweep` may start at.
const MIN_SWEEP_BYTES: u64 = 1024;

/// The working sets per thread of a size run: `--sweep`'s grid, or a `--size` list (each
/// size is all threads together, as a single --size is, so it is split over the threads),
/// ascending without duplicates. Empty for a single size or none.
pub(super) fn per_thread_sizes(
    topo: &Topology,
    args: &BandwidthArgs,
    cpus: &[u32],
    sizes: &[u64],
) -> anyhow::Result<Vec<u64>> {
    let threads = cpus.len().max(1) as u64;
    let mut v = if let Some(r) = &args.sweep {
        let (from, to) = crate::cli::latency::parse_range(r)?;
        let (dfrom, dto) = crate::bandwidth::plan::default_sweep(topo, cpus[0]);
        let (from, to) = (from.unwrap_or(dfrom), to.unwrap_or(dto));
        anyhow::ensure!(
            to >= from,
            "--sweep {}..{} ends before it starts; give FROM below TO",
            format_bytes(from),
            format_bytes(to)
        );
        // Each thread's arrays hold whole elements of a few words; below 1 KiB a kernel's
        // arrays would be empty (and the harness would then blame --size, not given).
        anyhow::ensure!(
            from >= MIN_SWEEP_BYTES,
            "--sweep {}..{} starts below {} per thread, too small for a kernel's arrays; give FROM of at least 1KiB, e.g. --sweep 16KiB..1GiB",
            format_bytes(from),
            format_bytes(to),
            format_bytes(MIN_SWEEP_BYTES)
        );
        crate::latency::sweep::sizes(
            from,
            to,
            crate::bandwidth::plan::SWEEP_POINTS_PER_OCTAVE,
            1024.min(from),
        )
    } else if sizes.len() > 1 {
        sizes.iter().map(|s| s / threads).collect()
    } else {
        return Ok(vec![]);
    };
    v.sort_unstable();
    v.dedup();
    Ok(v)
}
