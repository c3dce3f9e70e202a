//! `numascope c2c`: core-to-core latency. Resolves the CPU list and the line's home node,
//! runs [`crate::c2c::run`], and renders text or JSON.

use std::time::Duration;

use clap::Args;

use crate::c2c::{self, BouncePlan};
use crate::cli::Context;
use crate::parse::cpulist::excerpt;
use crate::parse::selection;
use crate::render::c2c_text;
use crate::results::format::format_list;
use crate::topology::read_topology;

/// Flags of `numascope c2c`.
#[derive(Debug, Args)]
pub struct C2cArgs {
    /// CPUs to measure (every ordered pair; a fixed sample of partners above 64 CPUs), at
    /// least two, in the list syntax of docs/cli.md: `0-3,8`, `all`, `!0`, `S0:`, `C0:0-3`
    /// (default: all usable CPUs).
    #[arg(long, alias = "cpu", value_name = "LIST")]
    pub cpus: Option<String>,
    /// Home node of the bounced line, one node (default: the node of the first CPU).
    #[arg(long, alias = "line-node", alias = "mem-node", value_name = "NODE")]
    pub mem_nodes: Option<String>,
    /// Time per pair, as N+1 repetitions of 10 ms: measured in max(N, 6) blocks spread over
    /// the run (rounds over all pairs), each block's median one sample of the pair's interval.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub samples: usize,
    /// Print JSON (schema in docs/schema/c2c.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &C2cArgs) -> anyhow::Result<()> {
    ctx.root
        .require_live("pin threads for core-to-core latency")?;
    let topo = read_topology(&ctx.root)?;
    let usable = topo.usable_cpus();
    let cpus = match &args.cpus {
        Some(text) => {
            let cpus = selection::cpus(&topo, "--cpus", text)?;
            if let [only] = cpus[..] {
                anyhow::bail!(
                    "--cpus {} names one CPU ({only}), but core-to-core latency needs at least two CPUs to bounce a line between; name two or more, e.g. --cpus 0,1",
                    excerpt(text.trim())
                );
            }
            cpus
        }
        None => usable,
    };
    let cpus = c2c::check_config_cpus(&topo, &ctx.root, &cpus)?;
    let line_node = match &args.mem_nodes {
        Some(text) => selection::one_node(
            &topo,
            "--mem-nodes",
            text,
            &topo.memory_nodes(),
            "the bounced line has one home node",
        )?,
        None => topo.node_of_cpu(cpus[0]).ok_or_else(|| {
            anyhow::anyhow!(
                "CPU {} belongs to no NUMA node, so the line has no default home; give --mem-nodes (nodes: {})",
                cpus[0],
                format_list(&topo.memory_nodes())
            )
        })?,
    };
    if args.samples == 0 || args.samples > 1000 {
        anyhow::bail!(
            "--samples {} is out of range; give 1 to 1000 repetitions per pair",
            args.samples
        );
    }
    let cfg = c2c::Config {
        cpus,
        line_node,
        plan: BouncePlan {
            repetitions: args.samples,
            repetition: Duration::from_millis(10),
            ..BouncePlan::default()
        },
    };
    let _host_lock = super::measuring_lock(ctx)?;
    let result = c2c::run(&topo, &ctx.root, &cfg, &|_, _| {})?.into_result()?;
    super::print_result(args.json, &result, |out| c2c_text::render(&result, out))
}
