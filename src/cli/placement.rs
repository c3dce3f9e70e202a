//! `numascope placement`: show what a NUMA policy really does on this machine. It places a
//! buffer with the requested policy, page size and (optionally) pinned CPU, asks the kernel
//! where every page went, and judges the histogram against the request.

use std::time::Duration;

use anyhow::Context as _;
use clap::Args;

use crate::cli::Context;
use crate::parse::size::parse_size;
use crate::placement::{PageSize, PlacedBuffer, PlacementCheck, Policy};
use crate::render::placement_text;
use crate::sys::affinity;
use crate::threads::on_cpu;
use crate::topology::read_topology;

/// Flags of `numascope placement`.
#[derive(Debug, Args)]
pub struct PlacementArgs {
    /// first-touch, bind, preferred, preferred-many, interleave or weighted.
    #[arg(long, default_value = "first-touch")]
    pub policy: String,
    /// Nodes for the policy, numactl syntax: `0-2,5` or `all`.
    #[arg(long, value_name = "LIST")]
    pub nodes: Option<String>,
    /// Weights for --policy weighted: `0:3,1:1` (sets the system-wide sysfs weights while the
    /// buffer is faulted in, then restores them; needs root unless they are already set).
    #[arg(long, value_name = "NODE:W,...")]
    pub weights: Option<String>,
    /// Buffer size, e.g. 256MiB.
    #[arg(long, default_value = "64MiB")]
    pub size: String,
    /// Page size: 4k (THP off), thp, 2m or 1g (hugetlbfs, must be reserved).
    #[arg(long, default_value = "4k")]
    pub page_size: String,
    /// Fault the pages in from a thread pinned to this CPU.
    #[arg(long)]
    pub cpu: Option<u32>,
    /// After printing, keep the process alive this many seconds with the buffer mapped (so
    /// `numascope inspect PID` or numastat can look at it).
    #[arg(long, value_name = "SECONDS")]
    pub hold: Option<u64>,
    /// Print JSON (schema in docs/schema/placement.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &PlacementArgs) -> anyhow::Result<()> {
    // A stop signal only sets a flag here, so weighted-interleave weights set for the
    // fault-in are restored (WeightGuard's drop) before the command stops (issue 17).
    crate::sys::signal::install_stop_handlers()?;
    let topo = read_topology(&ctx.root)?;
    let policy = Policy::from_args(
        &args.policy,
        args.nodes.as_deref(),
        args.weights.as_deref(),
        &topo.memory_nodes(),
    )
    .map_err(anyhow::Error::msg)?;
    if let Policy::WeightedInterleave(w) = &policy {
        for (n, _) in w {
            if topo.node(*n).is_none() {
                anyhow::bail!(
                    "--weights names node {n}, which does not exist; this machine has nodes {}",
                    crate::parse::cpulist::format_list(&topo.node_ids())
                );
            }
        }
    }
    let size = parse_size(&args.size).with_context(|| "--size".to_string())?;
    let page: PageSize = args
        .page_size
        .parse()
        .map_err(|e: String| anyhow::anyhow!("--page-size: {e}"))?;
    // Refused before allocating, and before "a snapshot cannot place", when a memory limit of
    // this process (cgroup, RLIMIT_AS) leaves less.
    crate::placement::check_limit(&topo, size, "--size")?;
    ctx.root.require_live("place memory")?;
    let place = || -> anyhow::Result<(PlacedBuffer, u32)> {
        let buf = PlacedBuffer::new(&topo, &ctx.root, size, &policy, page)?;
        let (cpu, _) = affinity::current_cpu_and_node()?;
        Ok((buf, cpu))
    };
    let (buf, ran_on) = match args.cpu {
        Some(cpu) => on_cpu(&topo, &ctx.root, cpu, place)??,
        None => place()?,
    };
    if crate::sys::signal::interrupted() {
        // Stopped during the fault-in: the weights are back; nothing was verified to show.
        return Ok(());
    }
    let report = buf.verify()?;
    let check = PlacementCheck::new(&policy, args.cpu, ran_on, report);
    super::print_result(args.json, &check, |out| placement_text::render(&check, out))?;
    if let Some(secs) = args.hold {
        // Held in short steps so a stop signal ends the hold within a tenth of a second.
        let end = std::time::Instant::now() + Duration::from_secs(secs);
        while !crate::sys::signal::interrupted() && std::time::Instant::now() < end {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    drop(buf);
    Ok(())
}
