//! `numascope bandwidth`: the raw flags of the bandwidth command, resolved into a validated
//! plan, run, and rendered. This file only wires; the engine lives in `crate::bandwidth`.

use std::io::Write;

use clap::Args;

use super::Context;
use crate::render::bandwidth_text;

/// Memory bandwidth with kernels described as data, pinned threads and placed buffers.
#[derive(Debug, Args)]
pub struct BandwidthArgs {
    /// Print the kernels with their byte accounting and exit.
    #[arg(long)]
    pub list_kernels: bool,
}

pub fn run(ctx: &Context, args: &BandwidthArgs) -> anyhow::Result<()> {
    let line_bytes = ctx
        .root
        .read_u64_opt("sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")
        .ok()
        .flatten()
        .filter(|l| l.is_power_of_two() && *l >= 16)
        .unwrap_or(64);
    let mut out = anstream::stdout().lock();
    if args.list_kernels {
        bandwidth_text::render_kernel_list(&mut out, line_bytes)?;
        out.flush()?;
        return Ok(());
    }
    anyhow::bail!("give --list-kernels; measurement runs arrive with the placement engine")
}
