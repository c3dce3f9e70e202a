//! `numascope inspect PID|NAME...`: where running processes' memory lives and where their
//! threads run; `inspect --system`: the machine's memory per node (`numastat -m`). With
//! `--watch INTERVAL` either repeats until Ctrl-C (exit status 130, as any stop signal);
//! `--compact` prints only per-node totals in whole MiB (`numastat -c`).

use std::time::{Duration, Instant};

use clap::Args;

use crate::cli::Context;
use crate::inspect::{inspect, read_system_memory, resolve_targets};
use crate::parse::duration::{parse_duration, DurationRange};
use crate::render::inspect as inspect_text;
use crate::topology::read_topology;

/// `inspect --watch`: a pause between two looks, 100 ms to a day.
const WATCH: DurationRange = DurationRange {
    flag: "--watch",
    min: Duration::from_millis(100),
    max: Duration::from_secs(24 * 3600),
    advice: "give 100ms to 24h between two looks, e.g. 2s",
};

/// Flags of `numascope inspect`.
#[derive(Debug, Args)]
#[command(
    after_help = "A NAME is matched as pgrep matches it: the process's comm exactly, else any comm that contains it; a name that fits several processes is refused with the list (give PIDs then).\nWith several processes, --json prints an array; with --watch, one JSON document per line (JSON Lines)."
)]
pub struct InspectArgs {
    /// Processes to inspect: PIDs or process names.
    #[arg(value_name = "PID|NAME", required_unless_present = "system")]
    pub targets: Vec<String>,
    /// Show the machine's memory per NUMA node from the kernel's per-node meminfo (what
    /// `numastat -m` shows) instead of a process.
    #[arg(long, conflicts_with = "targets")]
    pub system: bool,
    /// Look again every INTERVAL (e.g. 2s, 500ms; a bare number is milliseconds) until Ctrl-C.
    #[arg(long, value_name = "INTERVAL")]
    pub watch: Option<String>,
    /// Print only the per-node totals in whole MiB, as `numastat -c` does: with --system the
    /// meminfo table, with processes their resident memory per kind and node. JSON is the
    /// same with or without it.
    #[arg(long)]
    pub compact: bool,
    /// Print JSON (schema in docs/schema/inspect.md).
    #[arg(long)]
    pub json: bool,
}

/// Runs `inspect`.
pub fn run(ctx: &Context, args: &InspectArgs) -> anyhow::Result<()> {
    let interval = match &args.watch {
        Some(t) => Some(parse_duration(t, &WATCH).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let Some(interval) = interval else {
        return look(ctx, args, false);
    };
    crate::sys::signal::install_stop_handlers()?;
    loop {
        if !args.json {
            use std::io::Write as _;
            let now = crate::results::time::UtcTime::of(std::time::SystemTime::now());
            // Through a Result, not println!, so a reader that left ends the watch quietly.
            writeln!(
                std::io::stdout().lock(),
                "--- {} (every {:?}; Ctrl-C stops)",
                now.rfc3339(),
                interval
            )?;
        }
        look(ctx, args, true)?;
        // Sleep in short steps so Ctrl-C stops within a tenth of a second.
        let until = Instant::now() + interval;
        while Instant::now() < until && !crate::sys::signal::interrupted() {
            std::thread::sleep((until - Instant::now()).min(Duration::from_millis(100)));
        }
        if crate::sys::signal::interrupted() {
            return Ok(());
        }
    }
}

/// One look: the system table or every target, printed. `lines` prints each JSON document on
/// one line (for --watch).
fn look(ctx: &Context, args: &InspectArgs, lines: bool) -> anyhow::Result<()> {
    if args.system {
        let m = read_system_memory(&ctx.root)?;
        if m.nodes.is_empty() {
            anyhow::bail!(
                "{} has no nodeN/meminfo files, so there is no per-node memory to show (a kernel without NUMA); /proc/meminfo holds the machine's total",
                ctx.root.path("sys/devices/system/node").display()
            );
        }
        return print(args.json, lines, &m, |out| {
            inspect_text::render_system(&m, args.compact, out)
        });
    }
    let topo = read_topology(&ctx.root)?;
    let pids = resolve_targets(&ctx.root, &args.targets, std::process::id())?;
    let mut found = Vec::with_capacity(pids.len());
    for pid in pids {
        found.push(inspect(&ctx.root, &topo, pid)?);
    }
    let text = |out: &mut dyn std::io::Write| {
        for (k, i) in found.iter().enumerate() {
            if k > 0 {
                writeln!(out)?;
            }
            if args.compact {
                inspect_text::render_compact(i, out)?;
            } else {
                inspect_text::render(i, out)?;
            }
        }
        Ok(())
    };
    // One target given: one object (as before several were possible); several: an array,
    // even when they name the same process.
    match found.as_slice() {
        [one] if args.targets.len() == 1 => print(args.json, lines, one, text),
        _ => print(args.json, lines, &found, text),
    }
}

fn print<T: serde::Serialize>(
    json: bool,
    lines: bool,
    value: &T,
    text: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if json && lines {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        serde_json::to_writer(&mut out, value)?;
        writeln!(out)?;
        out.flush()?;
        Ok(())
    } else {
        super::print_result(json, value, text)
    }
}
