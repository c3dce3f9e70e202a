//! `numascope latency`'s numbers: working sets (`--size`, `--sweep`), the chains' geometry,
//! the distribution's groups and the sample plan, each parsed and checked once.

use crate::latency::chase;
use anyhow::{bail, Context as _};

use super::LatencyArgs;
use crate::latency::sweep;
use crate::parse::cpulist::excerpt;
use crate::parse::size::parse_size;
use crate::results::format::format_bytes;
use crate::results::latency::SamplePlan;
use crate::results::topology::Topology;

pub(super) fn size_flag(flag: &str, text: &str) -> anyhow::Result<u64> {
    parse_size(text).with_context(|| flag.to_string())
}

/// Parses `FROM..TO`, `FROM..`, `..TO` or empty (also `run --sweep`).
pub(crate) fn parse_range(text: &str) -> anyhow::Result<(Option<u64>, Option<u64>)> {
    let t = text.trim();
    if t.is_empty() {
        return Ok((None, None));
    }
    let Some((a, b)) = t.split_once("..") else {
        bail!(
            "--sweep `{}` is not a range; write FROM..TO, e.g. --sweep 4KiB..1GiB",
            excerpt(t)
        );
    };
    let f = |s: &str| -> anyhow::Result<Option<u64>> {
        if s.trim().is_empty() {
            Ok(None)
        } else {
            size_flag("--sweep", s).map(Some)
        }
    };
    Ok((f(a)?, f(b)?))
}

/// `--stride` and `--locality`, checked: the element size and the page-mode group (0: the
/// page size's).
pub(super) fn chain_geometry(topo: &Topology, args: &LatencyArgs) -> anyhow::Result<(u64, u64)> {
    let line = topo.line_bytes();
    let element_bytes = match &args.stride {
        Some(s) => size_flag("--stride", s)?,
        None => line,
    };
    if element_bytes < 8 || element_bytes % 8 != 0 {
        bail!("--stride {element_bytes} is not a positive multiple of 8 bytes; use a multiple of the {line}-byte cache line");
    }
    let locality = match &args.locality {
        Some(s) => {
            let v = size_flag("--locality", s)?;
            if v < element_bytes {
                bail!("--locality {v} is smaller than one element ({element_bytes} bytes); use at least the page size");
            }
            v
        }
        None => 0,
    };
    for &c in &args.chains {
        if !chase::SUPPORTED_CHAINS.contains(&c) {
            bail!("--chains {c} is not supported; use 1, 2, 4, 8 or 16");
        }
    }
    Ok((element_bytes, locality))
}

/// Most groups `--groups` may ask for (8 bytes each: 80 MB).
const MAX_GROUPS: usize = 10_000_000;

/// `--distribution` and `--groups`, checked: the groups to time, if any.
pub(super) fn distribution_groups(args: &LatencyArgs) -> anyhow::Result<Option<usize>> {
    if !args.distribution {
        return Ok(None);
    }
    let groups = args
        .groups
        .unwrap_or(crate::latency::distribution::DEFAULT_GROUPS);
    if groups == 0 || groups > MAX_GROUPS {
        bail!("--groups {groups} is out of range; give 1 to {MAX_GROUPS}, e.g. 50000");
    }
    Ok(Some(groups))
}

/// Most samples `--samples` may keep, and `--warmup` may drop.
const MAX_SAMPLES: usize = 10_000;

const MAX_WARMUP: usize = 1_000;

/// `--samples`, `--warmup` and `--sample-ms`, checked.
pub(super) fn sample_plan(args: &LatencyArgs) -> anyhow::Result<SamplePlan> {
    if args.samples == 0 {
        bail!("--samples 0 keeps nothing; give at least 1");
    }
    if args.samples > MAX_SAMPLES {
        bail!(
            "--samples {} is out of range; give 1 to {MAX_SAMPLES} (25 is the default)",
            args.samples
        );
    }
    if args.warmup > MAX_WARMUP {
        bail!(
            "--warmup {} is out of range; give 0 to {MAX_WARMUP} samples to drop",
            args.warmup
        );
    }
    if !(args.sample_ms > 0.0 && args.sample_ms <= 10_000.0) {
        bail!(
            "--sample-ms {} is out of range; give a duration above 0 and at most 10000 ms, e.g. 2",
            args.sample_ms
        );
    }
    Ok(SamplePlan {
        samples: args.samples,
        warmup: args.warmup,
        min_sample_ns: (args.sample_ms * 1e6) as u64,
    })
}

/// `--sweep FROM..TO` as working sets (its defaults from the caches and the free memory);
/// `None` without `--sweep`.
pub(super) fn sweep_sizes(
    topo: &Topology,
    args: &LatencyArgs,
    free: u64,
    element_bytes: u64,
) -> anyhow::Result<Option<Vec<u64>>> {
    Ok(match &args.sweep {
        None => None,
        Some(r) => {
            let (from, to) = parse_range(r)?;
            let from = from.unwrap_or(sweep::DEFAULT_FROM_BYTES);
            let to = to.unwrap_or_else(|| sweep::default_upper(topo.llc_total_bytes(), free));
            if to < from {
                bail!(
                    "--sweep {}..{} ends before it starts; give FROM below TO",
                    format_bytes(from),
                    format_bytes(to)
                );
            }
            let sizes = sweep::sizes(from, to, sweep::POINTS_PER_OCTAVE, element_bytes);
            if sizes.is_empty() {
                bail!(
                    "--sweep {}..{} holds no working set of at least one element ({element_bytes} bytes); end the sweep higher, e.g. --sweep 4KiB..256MiB",
                    format_bytes(from),
                    format_bytes(to)
                );
            }
            Some(sizes)
        }
    })
}

/// One working set against the pages (`single`: a `--size`, which must hold whole pages),
/// one element, the memory limit and the free memory where the buffer would go.
pub(super) fn check_size(
    topo: &Topology,
    args: &LatencyArgs,
    s: u64,
    free: u64,
    element_bytes: u64,
    single: bool,
) -> anyhow::Result<()> {
    if single {
        for page in &args.page_size {
            page.check_whole_pages(s)
                .map_err(|e| anyhow::anyhow!("--size {e}"))?;
        }
    }
    if s < element_bytes {
        bail!("a working set of {s} bytes is smaller than one element ({element_bytes} bytes, a cache line unless --stride says otherwise); use at least {element_bytes}");
    }
    crate::placement::check_limit(topo, s, "--size")?;
    if s > free {
        // Blame the flag the size came from: a sweep's upper bound, else --size (or the
        // default, which is capped by free memory and so never lands here).
        if let Some(r) = &args.sweep {
            bail!(
                "--sweep {}: its upper bound is more than the {} free where the buffer would go; end the sweep lower, e.g. --sweep ..{}MiB",
                excerpt(r.trim()),
                format_bytes(free),
                (free / 2) >> 20
            );
        }
        bail!(
            "--size {} is more than the {} free where the buffer would go; use a smaller size",
            format_bytes(s),
            format_bytes(free)
        );
    }
    Ok(())
}
