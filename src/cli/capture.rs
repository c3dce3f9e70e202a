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
    /// Print what was written as JSON on stdout (out, archive, files, dirs, links).
    #[arg(long)]
    pub json: bool,
}

/// What `capture --json` prints: where the snapshot went and what it holds.
#[derive(Debug, serde::Serialize)]
struct Captured {
    /// The directory or `.tar.gz` written.
    out: String,
    /// True when `out` is a `.tar.gz` archive.
    archive: bool,
    files: usize,
    dirs: usize,
    links: usize,
    /// The hwloc companion files were asked for (`--for-hwloc`).
    for_hwloc: bool,
}

/// Runs `capture`.
pub fn run(ctx: &Context, args: &CaptureArgs) -> anyhow::Result<()> {
    let summary = capture(&ctx.root, &args.out, args.for_hwloc)?;
    let line = format!(
        "numascope: captured {} files, {} directories and {} links into {}",
        summary.files,
        summary.dirs,
        summary.links,
        args.out.display()
    );
    if args.json {
        let c = Captured {
            out: args.out.display().to_string(),
            archive: crate::capture::is_tar_gz(&args.out),
            files: summary.files,
            dirs: summary.dirs,
            links: summary.links,
            for_hwloc: args.for_hwloc,
        };
        super::ui::note(line);
        super::print_result(true, &c, |_| Ok(()))
    } else {
        super::ui::note(line);
        Ok(())
    }
}
