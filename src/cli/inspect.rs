//! `numascope inspect PID`: where a running process's memory lives and where its threads run.

use clap::Args;

use crate::cli::Context;
use crate::inspect::inspect;
use crate::render::inspect_text;
use crate::topology::read_topology;

/// Flags of `numascope inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The process to inspect.
    pub pid: u32,
    /// Print JSON (schema in docs/schema/inspect.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &InspectArgs) -> anyhow::Result<()> {
    let topo = read_topology(&ctx.root)?;
    let found = inspect(&ctx.root, &topo, args.pid)?;
    super::print_result(args.json, &found, |out| inspect_text::render(&found, out))
}
