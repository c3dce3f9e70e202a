//! Memory figures from a meminfo file (`nodeN/meminfo` or `/proc/meminfo`): total, free and
//! an estimate of the memory available without swapping, each degrading to unknown (0) with
//! a warning.

use crate::parse::size::parse_meminfo_kb;
use crate::sys::safe_read::excerpt;
use crate::sysroot::{SysError, SysRoot};
use crate::topology::domain;
use crate::topology::files::{malformed, missing, shown};

/// Reads and parses node `id`'s meminfo file at `rel`; a missing file is an error.
pub(super) fn read_node_meminfo(
    root: &SysRoot,
    id: u32,
    rel: &str,
    warnings: &mut Vec<String>,
) -> Result<(u64, u64, u64), SysError> {
    let text = root.read_opt(rel)?.ok_or_else(|| {
        missing(
            root,
            rel,
            "the node is online, so the snapshot is incomplete; capture it again with `numascope capture`",
        )
    })?;
    parse_meminfo(root, rel, &text, Some(id), warnings)
}

/// Parses `MemTotal`/`MemFree` from a meminfo file, and estimates the memory available
/// without swapping: `MemAvailable` where the file has it (`/proc/meminfo`), otherwise (per-node
/// files) free memory plus half of the file-backed page cache and half of the reclaimable
/// slab, a conservative form of the kernel's own MemAvailable estimate. Per-node files prefix
/// every line with `Node N`; `/proc/meminfo` does not. Every line must have the
/// `Key: value [kB]` shape. A missing `MemTotal` or `MemFree`, or `MemFree` above `MemTotal`,
/// leaves the figure unknown (0) with a warning.
pub(super) fn parse_meminfo(
    root: &SysRoot,
    rel: &str,
    text: &str,
    node: Option<u32>,
    warnings: &mut Vec<String>,
) -> Result<(u64, u64, u64), SysError> {
    let source = MeminfoSource { root, rel, node };
    let mut figures = MeminfoFigures::default();
    for (i, line) in text.lines().enumerate() {
        let Some((key, v)) = meminfo_line(&source, i, line, &mut figures.refused, warnings)? else {
            continue;
        };
        match key {
            "MemTotal" => figures.total = Some(v),
            "MemFree" => figures.free = Some(v),
            "MemAvailable" => figures.mem_available = Some(v),
            "Active(file)" | "Inactive(file)" => {
                figures.file_pages = figures.file_pages.saturating_add(v)
            }
            "SReclaimable" => figures.reclaimable = v,
            _ => {}
        }
    }
    Ok(meminfo_answer(rel, &figures, warnings))
}

/// Where a meminfo text came from: the snapshot, its path, and the node whose prefix every
/// line carries (`None` for `/proc/meminfo`).
struct MeminfoSource<'a> {
    /// The snapshot, for error messages.
    root: &'a SysRoot,
    /// The file's path inside the snapshot.
    rel: &'a str,
    /// The node of a per-node file.
    node: Option<u32>,
}

/// The figures gathered from a meminfo file, in bytes.
#[derive(Default)]
struct MeminfoFigures {
    /// `MemTotal`.
    total: Option<u64>,
    /// `MemFree`.
    free: Option<u64>,
    /// `MemAvailable`, where the file has it.
    mem_available: Option<u64>,
    /// `Active(file)` plus `Inactive(file)`.
    file_pages: u64,
    /// `SReclaimable`.
    reclaimable: u64,
    /// The used keys whose values were refused (already warned about).
    refused: Vec<String>,
}

/// One meminfo line's trimmed key and value in bytes; `None` for a blank line or a refused
/// value (beyond any machine, with a warning when the key is one read here).
fn meminfo_line<'l>(
    source: &MeminfoSource,
    i: usize,
    line: &'l str,
    refused: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<Option<(&'l str, u64)>, SysError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let (root, rel) = (source.root, source.rel);
    let bad = |what: &str| {
        malformed(
            root,
            rel,
            format!("line {} `{}` {what}", i + 1, excerpt(line)),
        )
    };
    let mut rest = line.trim();
    if let Some(n) = source.node {
        let words: Vec<&str> = rest.splitn(3, char::is_whitespace).collect();
        if words.len() < 3 || words[0] != "Node" || words[1].parse::<u32>() != Ok(n) {
            return Err(bad(&format!("does not start with `Node {n}`")));
        }
        rest = words[2].trim_start();
    }
    let (key, value) = rest
        .split_once(':')
        .ok_or_else(|| bad("has no `Key: value` form"))?;
    let kb = value.trim();
    let is_number = kb
        .strip_suffix("kB")
        .unwrap_or(kb)
        .trim()
        .parse::<u64>()
        .is_ok();
    match parse_meminfo_kb(value) {
        Some(v) if v <= domain::MAX_MEMORY_BYTES => Ok(Some((key.trim(), v))),
        // A number of kB beyond any machine (or beyond 2^64 bytes once times 1024):
        // that line is refused, the others still count.
        _ if is_number => {
            if USED_KEYS.contains(&key.trim()) {
                refused.push(key.trim().to_string());
                warnings.push(domain::refused(
                    &shown(rel),
                    &format!("{} {kb}", key.trim()),
                    "more than the 64 PiB of any address space",
                    "that figure is left unknown (shown as 0)",
                ));
            }
            Ok(None)
        }
        _ => Err(bad("has a value that is not a number of kB")),
    }
}

/// Total, free and available memory from the gathered figures, each unknown (0) with a
/// warning where the file lacks it or contradicts itself.
fn meminfo_answer(
    rel: &str,
    figures: &MeminfoFigures,
    warnings: &mut Vec<String>,
) -> (u64, u64, u64) {
    let said = |k: &str| figures.refused.iter().any(|r| r == k);
    let shown = shown(rel);
    match (figures.total, figures.free) {
        (Some(t), Some(f)) if f <= t => {
            let available = figures
                .mem_available
                .unwrap_or(
                    f.saturating_add(figures.file_pages / 2)
                        .saturating_add(figures.reclaimable / 2),
                )
                .clamp(f, t);
            (t, f, available)
        }
        (Some(t), Some(f)) => {
            warnings.push(format!(
                "{shown} gives MemFree {} kB above MemTotal {} kB, which cannot be; the free memory is left unknown (shown as 0)",
                f / 1024,
                t / 1024
            ));
            (t, 0, 0)
        }
        (Some(t), None) => {
            if !said("MemFree") {
                warnings.push(format!(
                    "{shown} has no MemFree line; the free memory is unknown (shown as 0)"
                ));
            }
            (t, 0, 0)
        }
        (None, _) => {
            if !said("MemTotal") {
                warnings.push(format!(
                    "{shown} has no MemTotal line; the memory size and free memory are unknown (shown as 0)"
                ));
            }
            (0, 0, 0)
        }
    }
}

/// The meminfo lines read here; a refused value of another line is not worth a warning.
const USED_KEYS: [&str; 6] = [
    "MemTotal",
    "MemFree",
    "MemAvailable",
    "Active(file)",
    "Inactive(file)",
    "SReclaimable",
];
