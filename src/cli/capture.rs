//! `numascope capture OUT`: snapshot exactly the /sys and /proc files numascope reads into a
//! directory, or a `.tar.gz` when OUT ends with that, so a machine can be attached to a bug
//! report and replayed with `--sysfs-root`.

use std::path::PathBuf;

use clap::Args;

use crate::capture::capture;
use crate::cli::Context;

/// Flags of `numascope capture`.
#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// Where to write the snapshot: a new directory, or a file ending in `.tar.gz`.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Also copy the few files hwloc's Linux backend needs (CPU, node and cache masks), so the
    /// snapshot replays with `HWLOC_FSROOT=OUT lstopo` too.
    #[arg(long)]
    pub for_hwloc: bool,
}

/// Runs `capture`.
pub fn run(ctx: &Context, args: &CaptureArgs) -> anyhow::Result<()> {
    let summary = capture(&ctx.root, &args.out, args.for_hwloc)?;
    eprintln!(
        "numascope: captured {} files, {} directories and {} links into {}",
        summary.files,
        summary.dirs,
        summary.links,
        args.out.display()
    );
    Ok(())
}
