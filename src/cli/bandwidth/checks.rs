//! `numascope bandwidth`'s checks: flags the chosen variant would ignore, the repetitions,
//! warm-up and page size, the stride, and each kernel's arrays against the placement and the
//! free memory, all before anything is allocated or pinned.

use crate::bandwidth::kernels::Kernel;
use crate::bandwidth::plan::{check_fits, MemPlacement};
use crate::bandwidth::RunSettings;
use crate::parse::cpulist::excerpt;
use crate::results::format::format_bytes;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;

use super::BandwidthArgs;

/// Most repetitions `--repetitions` may keep, and `--warmup` may drop.
const MAX_REPETITIONS: usize = 1000;
const MAX_WARMUP: usize = 100;

/// `--repetitions` and `--warmup` within their ranges, and `--page-size` parsed.
pub(super) fn repetitions_and_page(args: &BandwidthArgs) -> anyhow::Result<PageSize> {
    anyhow::ensure!(
        args.repetitions > 0,
        "--repetitions 0 measures nothing; give at least 1 (6 is the default, the fewest with an interval)"
    );
    anyhow::ensure!(
        args.repetitions <= MAX_REPETITIONS,
        "--repetitions {} is out of range; give 1 to {MAX_REPETITIONS} (6 is the default)",
        args.repetitions
    );
    anyhow::ensure!(
        args.warmup <= MAX_WARMUP,
        "--warmup {} is out of range; give 0 to {MAX_WARMUP} repetitions to drop",
        args.warmup
    );
    args.page_size
        .parse()
        .map_err(|e: String| anyhow::anyhow!("--page-size: {e}"))
}

/// `--stride`: a whole number of 8 B elements above zero, or `line` (the cache line in
/// elements).
pub(super) fn parse_stride(topo: &Topology, text: &str) -> anyhow::Result<usize> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("line") {
        return Ok((topo.line_bytes() / 8).max(1) as usize);
    }
    let n: usize = t.parse().map_err(|_| {
        anyhow::anyhow!(
            "--stride `{}` is not a number of elements; give a whole number of 8 B elements such as 8, or `line` for one element per cache line",
            excerpt(t)
        )
    })?;
    anyhow::ensure!(
        n > 0,
        "--stride 0 never advances; give a stride of at least 1 element (8, or `line`, for one element per 64 B cache line)"
    );
    Ok(n)
}

/// `--stride` against one array size: a stride longer than the array touches one element
/// per pass, which measures nothing of a strided walk.
pub(super) fn check_stride(kernels: &[Kernel], array_bytes: u64) -> anyhow::Result<()> {
    let len = array_bytes / 8;
    for k in kernels {
        if let Some(s) = k.stride() {
            anyhow::ensure!(
                s as u64 <= len,
                "--stride {s} is more than the {len} elements ({}) of each {} array; give a stride of at most {len} or a larger --size",
                format_bytes(array_bytes),
                k.descriptor().name
            );
        }
    }
    Ok(())
}

/// Flags the chosen variant or placement would ignore, refused with the flag that applies.
pub(super) fn check_applicability(args: &BandwidthArgs) -> anyhow::Result<()> {
    if args.list_kernels {
        if let Some(f) = measuring_flags(args).into_iter().find(|g| g.1) {
            anyhow::bail!("--list-kernels prints the kernel table and measures nothing, so {} does nothing there; drop {} or --list-kernels", f.0, f.0);
        }
    }
    if args.mix.is_some() && !args.peak {
        anyhow::bail!(
            "--mix chooses the read/write mixes of --peak, so it does nothing without it; add --peak or drop --mix"
        );
    }
    if args.peak {
        check_peak(args)?;
    }
    check_order_and_placement(args)
}

/// Every flag that shapes a measurement, and whether it was given.
fn measuring_flags(args: &BandwidthArgs) -> Vec<(&'static str, bool)> {
    vec![
        ("--kernel", args.kernel.is_some()),
        ("--threads", args.threads.is_some()),
        ("--cpus", args.cpus.is_some()),
        ("--cpu-nodes", args.cpu_nodes.is_some()),
        ("--packed", args.packed),
        ("--spread", args.spread),
        ("--placement", args.placement.is_some()),
        ("--mem-nodes", args.mem_nodes.is_some()),
        ("--weights", args.weights.is_some()),
        ("--matrix", args.matrix),
        ("--scaling", args.scaling),
        ("--size", args.size.is_some()),
        ("--sweep", args.sweep.is_some()),
        ("--isa", args.isa.is_some()),
        ("--stride", args.stride.is_some()),
        ("--peak", args.peak),
        ("--csv", args.csv.is_some()),
        ("--html", args.html.is_some()),
    ]
}

/// `--peak` chooses its threads, CPUs, order and memory itself: those flags are refused,
/// each with what the peak does instead.
fn check_peak(args: &BandwidthArgs) -> anyhow::Result<()> {
    const ORDER: &str =
        "it adds threads one per core first (a package's round robin over its nodes)";
    const OWN_NODE: &str = "each thread's memory is bound to its own node";
    let chosen = [
        (
            "--kernel",
            "the read mix runs the read kernel; choose mixes with --mix",
        ),
        (
            "--threads",
            "it measures 1, half and all of each node's and package's CPUs",
        ),
        (
            "--cpus",
            "it takes every usable CPU of each node; choose the nodes with --cpu-nodes",
        ),
        ("--packed", ORDER),
        ("--spread", ORDER),
        ("--placement", OWN_NODE),
        ("--mem-nodes", OWN_NODE),
        ("--weights", OWN_NODE),
    ];
    let given = measuring_flags(args);
    for (flag, why) in chosen {
        if given.iter().any(|&(f, g)| f == flag && g) {
            anyhow::bail!(
                "--peak chooses this itself ({why}), so {flag} does nothing there; drop {flag}"
            );
        }
    }
    if args.size.as_deref().is_some_and(|s| s.contains(',')) {
        anyhow::bail!("--peak measures one working set per run, so a list of sizes does nothing there; give one --size (all threads together) or none");
    }
    Ok(())
}

/// `--packed`/`--spread` against the variants that fix the order, and `--weights` against
/// the placement.
fn check_order_and_placement(args: &BandwidthArgs) -> anyhow::Result<()> {
    let order = if args.packed {
        Some("--packed")
    } else if args.spread {
        Some("--spread")
    } else {
        None
    };
    if let Some(f) = order {
        if args.cpus.is_some() {
            anyhow::bail!("{f} orders the CPUs --threads takes from the nodes, and --cpus names them exactly; drop {f} or --cpus");
        }
        if args.matrix {
            anyhow::bail!("--matrix takes each node's CPUs in one fixed order, so {f} does nothing there; drop {f}");
        }
        if args.scaling {
            anyhow::bail!("--scaling measures both packed and spread orders itself; drop {f}");
        }
    }
    let placement = args
        .placement
        .as_deref()
        .map(|p| p.trim().to_ascii_lowercase());
    match placement.as_deref() {
        Some(p) if p != "weighted" && args.weights.is_some() => anyhow::bail!(
            "--weights applies to --placement weighted, not --placement {p}; drop --weights or use --placement weighted"
        ),
        Some("weighted") | None if args.weights.is_some() && args.mem_nodes.is_some() => anyhow::bail!(
            "--placement weighted takes its nodes from --weights, so --mem-nodes does nothing there; drop --mem-nodes"
        ),
        _ => {}
    }
    Ok(())
}

/// Every kernel's streams under the placement, and its working set against the free memory.
pub(super) fn check_sizes(
    topo: &Topology,
    args: &BandwidthArgs,
    kernels: &[Kernel],
    cpus: &[u32],
    placement: &MemPlacement,
    settings: &RunSettings,
    size: Option<u64>,
) -> anyhow::Result<()> {
    for k in kernels {
        let d = k.descriptor();
        placement
            .policies(d.name, d.stream_count())
            .map_err(anyhow::Error::msg)?;
        if !args.matrix && !args.scaling {
            let a = settings.array_bytes(topo, d.stream_count(), cpus.len());
            anyhow::ensure!(
                a >= 64,
                "--size is too small to give each of {} threads {} arrays of at least one cache line; use a larger --size",
                cpus.len(),
                d.stream_count()
            );
            check_stride(std::slice::from_ref(k), a)?;
            check_fits(
                topo,
                &placement.nodes(),
                a * (d.stream_count() * cpus.len()) as u64,
            )
            .map_err(anyhow::Error::msg)?;
        } else if let Some(s) = size {
            check_fits(topo, &placement.nodes(), s).map_err(anyhow::Error::msg)?;
        }
    }
    Ok(())
}
