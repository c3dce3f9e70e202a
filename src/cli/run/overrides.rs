//! The parts' knobs on `numascope run` (`--kernel`, `--mode`, `--page-size`, `--sweep`,
//! `--duration`, `--sample-ms`, `--cpus`, `--cpu-nodes`, `--mem-nodes`, `--size`), parsed
//! and checked against the topology once, in the same vocabulary and with the same sentences
//! as the subcommands, and each named in the plan's record with the parts it applies to.

use anyhow::bail;

use super::RunArgs;
use crate::bandwidth::descriptor::by_name;
use crate::parse::cpulist::excerpt;
use crate::parse::duration::{parse_duration, RUN_REPETITION};
use crate::parse::selection;
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::plan::Part as P;
use crate::results::topology::Topology;
use crate::run::settings::Overrides;

/// Each knob given, with its value as written and the parts it applies to, for the plan's
/// record.
fn given(args: &RunArgs) -> Vec<(String, Vec<P>)> {
    let sample_ms = args.sample_ms.map(|ms| ms.to_string());
    let knobs: [(&str, Option<&String>, &[P]); 10] = [
        ("--kernel", args.kernel.as_ref(), &[P::Bandwidth]),
        ("--mode", args.mode.as_ref(), &[P::Latency]),
        ("--page-size", args.page_size.as_ref(), &[P::Latency]),
        ("--sweep", args.sweep.as_ref(), &[P::Latency]),
        (
            "--duration",
            args.duration.as_ref(),
            &[
                P::Bandwidth,
                P::BandwidthMatrix,
                P::Scaling,
                P::LoadedLatency,
                P::Scenarios,
                P::Advisor,
            ],
        ),
        (
            "--sample-ms",
            sample_ms.as_ref(),
            &[P::Latency, P::LatencyMatrix],
        ),
        ("--cpus", args.cpus.as_ref(), &[P::C2c]),
        (
            "--cpu-nodes",
            args.cpu_nodes.as_ref(),
            &[P::LatencyMatrix, P::BandwidthMatrix, P::Scaling],
        ),
        (
            "--mem-nodes",
            args.mem_nodes.as_ref(),
            &[P::LatencyMatrix, P::BandwidthMatrix],
        ),
        (
            "--size",
            args.size.as_ref(),
            &[
                P::LatencyMatrix,
                P::Bandwidth,
                P::BandwidthMatrix,
                P::Scenarios,
                P::Advisor,
            ],
        ),
    ];
    knobs
        .into_iter()
        .filter_map(|(flag, value, parts)| {
            value.map(|v| (format!("{flag} {}", excerpt(v.trim())), parts.to_vec()))
        })
        .collect()
}

/// A comma list of `T`, each parsed, repeats dropped.
fn list<T: std::str::FromStr<Err = String> + PartialEq + Copy>(
    flag: &str,
    text: &str,
) -> anyhow::Result<Vec<T>> {
    let v = text
        .split(',')
        .map(|x| x.trim().parse::<T>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
    crate::cli::distinct(flag, &v)
}

/// The parts' knobs given on the command line, parsed and checked against the topology once
/// (in the same vocabulary and with the same sentences as the subcommands).
pub fn overrides(topo: &Topology, args: &RunArgs) -> anyhow::Result<Overrides> {
    let mut o = Overrides {
        given: given(args),
        ..Overrides::default()
    };
    if let Some(t) = &args.kernel {
        let ids = t
            .split(',')
            .map(|n| by_name(n).map(|d| d.id))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| anyhow::anyhow!("--kernel: {e}"))?;
        o.kernels = Some(crate::cli::distinct("--kernel", &ids)?);
    }
    if let Some(t) = &args.mode {
        o.modes = Some(list::<Mode>("--mode", t)?);
    }
    if let Some(t) = &args.page_size {
        o.pages = Some(list::<PageSize>("--page-size", t)?);
    }
    if let Some(t) = &args.sweep {
        o.sweep = Some(sweep(topo, t)?);
    }
    if let Some(t) = &args.duration {
        let d = parse_duration(t, &RUN_REPETITION).map_err(anyhow::Error::msg)?;
        o.duration_ms = Some(d.as_millis() as u64);
    }
    if let Some(ms) = args.sample_ms {
        if !(ms > 0.0 && ms <= 10_000.0) {
            bail!("--sample-ms {ms} is out of range; give a duration above 0 and at most 10000 ms, e.g. 2");
        }
        o.min_sample_ns = Some((ms * 1e6) as u64);
    }
    if let Some(t) = &args.cpus {
        o.c2c_cpus = Some(c2c_cpus(topo, t)?);
    }
    if let Some(t) = &args.cpu_nodes {
        let what = "initiator nodes (nodes with usable CPUs)";
        o.cpu_nodes = Some(nodes(
            topo,
            "--cpu-nodes",
            t,
            &topo.initiator_nodes(),
            what,
        )?);
    }
    if let Some(t) = &args.mem_nodes {
        let what = "memory nodes (allowed nodes with memory)";
        o.mem_nodes = Some(nodes(topo, "--mem-nodes", t, &topo.memory_nodes(), what)?);
    }
    if let Some(t) = &args.size {
        o.size_bytes = Some(size(topo, t)?);
    }
    Ok(o)
}

/// `--sweep FROM..TO`: both ends, rising, at most half the free memory.
fn sweep(topo: &Topology, t: &str) -> anyhow::Result<(u64, u64)> {
    let (from, to) = crate::cli::latency::parse_range(t)?;
    let (Some(from), Some(to)) = (from, to) else {
        bail!(
            "--sweep {} needs both ends on run; write FROM..TO, e.g. --sweep 4KiB..256MiB",
            excerpt(t.trim())
        );
    };
    if from < 64 || to < from {
        bail!("--sweep {} is not a rising range of at least one cache line; give FROM below TO, e.g. --sweep 4KiB..256MiB", excerpt(t.trim()));
    }
    let free = free_over_memory_nodes(topo);
    if to > free / 2 {
        bail!(
            "--sweep {}: its upper bound is more than half the {} free; end the sweep lower, e.g. --sweep ..{}MiB",
            excerpt(t.trim()),
            format_bytes(free),
            (free / 4) >> 20
        );
    }
    Ok((from, to))
}

/// `--cpus` of the core-to-core part: two or more usable CPUs.
fn c2c_cpus(topo: &Topology, t: &str) -> anyhow::Result<Vec<u32>> {
    let cpus = selection::cpus(topo, "--cpus", t)?;
    if cpus.len() < 2 {
        bail!("--cpus {} names one CPU, but core-to-core latency needs at least two CPUs to bounce a line between; name two or more, e.g. --cpus 0,1", excerpt(t.trim()));
    }
    let usable = topo.usable_cpus();
    if let Some(c) = cpus.iter().find(|c| !usable.contains(c)) {
        bail!(
            "CPU {c} in --cpus is offline or outside this process's allowed CPUs; choose from {}",
            format_list(&usable)
        );
    }
    Ok(cpus)
}

/// A node list of `flag`, every node among `valid` (the `what` it chooses from).
fn nodes(
    topo: &Topology,
    flag: &str,
    t: &str,
    valid: &[u32],
    what: &str,
) -> anyhow::Result<Vec<u32>> {
    let n = selection::nodes(topo, flag, t, valid)?;
    if let Some(x) = n.iter().find(|x| !valid.contains(x)) {
        bail!(
            "{flag} names node {x}, which is not among the {what}; choose from {}",
            format_list(valid)
        );
    }
    Ok(n)
}

/// `--size`: at least 1 MiB and at most half the free memory.
fn size(topo: &Topology, t: &str) -> anyhow::Result<u64> {
    let bytes = crate::parse::size::parse_size(t).map_err(|e| anyhow::anyhow!("--size: {e}"))?;
    let free = free_over_memory_nodes(topo);
    if bytes < 1 << 20 {
        bail!(
            "--size {} is below 1 MiB, too small for a working set of memory; give 1MiB or more, e.g. --size 16MiB",
            excerpt(t.trim())
        );
    }
    if free > 0 && bytes > free / 2 {
        bail!(
            "--size {}: more than half the {} free; give a smaller size, e.g. --size {}MiB",
            excerpt(t.trim()),
            format_bytes(free),
            (free / 4) >> 20
        );
    }
    Ok(bytes)
}

/// Memory available on the memory nodes, bytes (0 when the kernel reports none).
fn free_over_memory_nodes(topo: &Topology) -> u64 {
    topo.memory_nodes()
        .iter()
        .filter_map(|n| topo.node(*n))
        .map(|n| n.memory_available_bytes)
        .sum()
}
