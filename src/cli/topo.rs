//! `numascope topo`: read the topology (live or from `--sysfs-root`) and print it as text
//! (default), a drawn per-package view (`--graph`) or the JSON contract (`--json`).

use anyhow::Context as _;
use clap::Args;

use crate::cli::Context;
use crate::render::topo::{self as topo_text, graph as topo_graph};
use crate::topology::read_topology;

/// Flags of `numascope topo`.
#[derive(Debug, Args)]
pub struct TopoArgs {
    /// Draw each package: cores, caches with their sharing, and NUMA nodes.
    #[arg(long, conflicts_with = "json")]
    pub graph: bool,
    /// Print the topology as JSON (schema_version 1, see docs/schema/topology.md).
    #[arg(long)]
    pub json: bool,
}

/// Runs `topo`.
pub fn run(ctx: &Context, args: &TopoArgs) -> anyhow::Result<()> {
    let mut topo = read_topology(&ctx.root)?;
    for w in &topo.warnings {
        super::ui::warning(w);
    }
    for m in crate::render::topo::tiering::mover_sentences(&topo.environment) {
        super::ui::warning(format!("{m} (placement is checked after each measurement)"));
    }
    if let Some(a) = &ctx.archive {
        // Name the archive the user gave, not its temporary unpacked copy.
        topo.source = a.display().to_string();
    }
    super::print_result(args.json, &topo, |out| {
        if args.graph {
            topo_graph::render(&topo, out)
        } else {
            topo_text::render(&topo, out)
        }
    })
    // A full disk or /dev/full fails the write; say it was standard output that failed, not
    // the topology (a broken pipe stays recognisable in the chain and exits quietly).
    .context("cannot write the topology to standard output")
}
