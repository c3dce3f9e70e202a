//! `numascope placement`: show what a NUMA policy really does on this machine. It places a
//! buffer with the requested policy, page size and (optionally) pinned CPU, asks the kernel
//! where every page went, and judges the histogram against the request.

use std::time::Duration;

use anyhow::Context as _;
use clap::Args;

use crate::cli::Context;
use crate::parse::cpulist::excerpt;
use crate::parse::selection;
use crate::parse::size::parse_size;
use crate::placement::{PlacedBuffer, Policy};
use crate::render::placement_text;
use crate::results::format::format_list;
use crate::results::placement::PageSize;
use crate::results::placement::PlacementCheck;
use crate::results::topology::Topology;
use crate::sys::affinity;
use crate::threads::on_cpu;
use crate::topology::read_topology;

/// Flags of `numascope placement`.
#[derive(Debug, Args)]
pub struct PlacementArgs {
    /// first-touch, bind, preferred, preferred-many, interleave or weighted.
    #[arg(long, default_value = "first-touch", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(super::hints::POLICIES))]
    pub policy: String,
    /// Memory nodes of bind, preferred (one), preferred-many and interleave, numactl syntax:
    /// `0-2,5`, `all`, `!0`, `+0-1`. first-touch and weighted take none.
    #[arg(long, alias = "nodes", alias = "mem-node", value_name = "LIST")]
    pub mem_nodes: Option<String>,
    /// Weights for --policy weighted only: `0:3,1:1` (sets the system-wide sysfs weights while
    /// the buffer is faulted in, then restores them; needs root unless they are already set).
    #[arg(long, value_name = "NODE:W,...")]
    pub weights: Option<String>,
    /// Buffer size, e.g. 256MiB.
    #[arg(long, default_value = "64MiB")]
    pub size: String,
    /// Page size: 4k (THP off; the default, as everywhere but bandwidth), thp, 2m or 1g
    /// (hugetlbfs, must be reserved).
    #[arg(long, default_value = "4k", hide_possible_values = true,
        value_parser = super::hints::hinted::<String>(super::hints::PAGE_SIZES))]
    pub page_size: String,
    /// Fault the pages in from a thread pinned to this CPU (one CPU, list syntax of
    /// docs/cli.md: `1`, `+0`, `S0:1`).
    #[arg(long, alias = "cpu", value_name = "CPU")]
    pub cpus: Option<String>,
    /// After printing, keep the process alive this many seconds with the buffer mapped (so
    /// `numascope inspect PID` or numastat can look at it), at most 604800 (a week).
    #[arg(long, value_name = "SECONDS")]
    pub hold: Option<u64>,
    /// Print JSON (schema in docs/schema/placement.md).
    #[arg(long)]
    pub json: bool,
}

/// `--policy` with its `--mem-nodes` or `--weights`: the one that does not apply to the
/// policy is refused, the node list is resolved in the shared vocabulary.
fn policy(topo: &Topology, args: &PlacementArgs) -> anyhow::Result<Policy> {
    let name = args.policy.trim().to_ascii_lowercase();
    let weighted = matches!(name.as_str(), "weighted" | "weighted-interleave");
    let first_touch = matches!(
        name.as_str(),
        "first-touch" | "firsttouch" | "local" | "default"
    );
    if args.weights.is_some() && !weighted {
        anyhow::bail!(
            "--weights applies to --policy weighted, not --policy {}; drop --weights or use --policy weighted",
            excerpt(args.policy.trim())
        );
    }
    if args.mem_nodes.is_some() && (weighted || first_touch) {
        let why = if weighted {
            "takes its nodes from --weights"
        } else {
            "puts each page on the node of the CPU that first writes it"
        };
        anyhow::bail!(
            "--policy {} {why}, so --mem-nodes does nothing there; drop --mem-nodes or use --policy bind, preferred, preferred-many or interleave",
            excerpt(args.policy.trim())
        );
    }
    let nodes = match &args.mem_nodes {
        // Empty stays empty so the policy says the list is empty.
        Some(t) if !t.trim().is_empty() => Some(format_list(&selection::nodes(
            topo,
            "--mem-nodes",
            t,
            &topo.memory_nodes(),
        )?)),
        other => other.clone(),
    };
    Policy::from_args(
        &args.policy,
        nodes.as_deref(),
        args.weights.as_deref(),
        &topo.memory_nodes(),
    )
    .map_err(|e| anyhow::anyhow!(e.replace("--nodes", "--mem-nodes")))
}

/// The longest `--hold`: a week.
const MAX_HOLD_SECS: u64 = 7 * 24 * 3600;

pub fn run(ctx: &Context, args: &PlacementArgs) -> anyhow::Result<()> {
    // A stop signal only sets a flag here, so weighted-interleave weights set for the
    // fault-in are restored (WeightGuard's drop) before the command stops.
    crate::sys::signal::install_stop_handlers()?;
    // An unreadable snapshot is refused as a snapshot; a readable one first has its memory
    // limits checked against --size below.
    let topo = match read_topology(&ctx.root) {
        Ok(t) => t,
        Err(e) => {
            ctx.root.require_live("place memory")?;
            return Err(e.into());
        }
    };
    let policy = policy(&topo, args)?;
    if let Policy::WeightedInterleave(w) = &policy {
        for (n, _) in w {
            if topo.node(*n).is_none() {
                anyhow::bail!(
                    "--weights names node {n}, which does not exist; this machine has nodes {}",
                    crate::results::format::format_list(&topo.node_ids())
                );
            }
        }
    }
    if let Some(secs) = args.hold.filter(|&s| s > MAX_HOLD_SECS) {
        anyhow::bail!(
            "--hold {secs} is out of range; give at most {MAX_HOLD_SECS} seconds (a week)"
        );
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
    let cpu = match &args.cpus {
        Some(t) => Some(selection::one_cpu(
            &topo,
            "--cpus",
            t,
            "one thread faults the pages in",
        )?),
        None => None,
    };
    let (buf, ran_on) = match cpu {
        Some(cpu) => on_cpu(&topo, &ctx.root, cpu, place)??,
        None => place()?,
    };
    if crate::sys::signal::interrupted() {
        // Stopped during the fault-in: the weights are back; nothing was verified to show.
        return Ok(());
    }
    let report = buf.verify()?;
    let check = PlacementCheck::new(&policy, cpu, ran_on, report);
    super::print_result(args.json, &check, |out| placement_text::render(&check, out))?;
    if let Some(secs) = args.hold {
        // Held in short steps so a stop signal ends the hold within a tenth of a second.
        let start = std::time::Instant::now();
        let hold = Duration::from_secs(secs.min(MAX_HOLD_SECS));
        while !crate::sys::signal::interrupted() && start.elapsed() < hold {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    drop(buf);
    Ok(())
}
