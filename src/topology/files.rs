//! Small helpers shared by the topology readers: reading a kernel list or mask file through the
//! [`SysRoot`] and turning a parse failure into [`SysError::Malformed`] that names the file.
//! They exist so every reader reports bad input the same way, in one sentence.

use std::path::Path;

use crate::parse::cpulist::{parse_list, parse_mask};
use crate::sys::safe_read::{excerpt, EXCERPT_CHARS};
pub use crate::sysroot::warn::{degrade, shown};
use crate::sysroot::{SysError, SysRoot};

/// The sysfs directory of NUMA nodes.
pub const NODE_DIR: &str = "sys/devices/system/node";
/// The sysfs directory of CPUs.
pub const CPU_DIR: &str = "sys/devices/system/cpu";

/// A [`SysError::Malformed`] for `rel` under `root`.
pub fn malformed(root: &SysRoot, rel: impl AsRef<Path>, why: impl Into<String>) -> SysError {
    SysError::Malformed {
        path: root.path(rel),
        why: why.into(),
    }
}

/// A [`SysError::Missing`] for a required file of an incomplete snapshot.
pub fn missing(root: &SysRoot, rel: impl AsRef<Path>, why: impl Into<String>) -> SysError {
    SysError::Missing {
        path: root.path(rel),
        why: why.into(),
    }
}

/// The most ids one kernel list may name. Linux supports at most 8192 CPUs (NR_CPUS) and
/// 1024 nodes; a list naming more is not a real machine's and would cost time to expand.
pub const MAX_LIST_IDS: u64 = 1 << 16;

/// How many ids a cpulist names, counted without expanding it (`None` when it does not
/// parse; [`parse_list`] then says why).
fn list_span(text: &str) -> Option<u64> {
    let mut n = 0u64;
    for part in text.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?),
            None => {
                let v = part.trim().parse::<u64>().ok()?;
                (v, v)
            }
        };
        n += b.saturating_sub(a) + 1;
    }
    Some(n)
}

/// Parses list or mask `text` of `rel`; the error quotes at most a short excerpt of it.
pub fn parse_ids(root: &SysRoot, rel: &Path, text: &str, mask: bool) -> Result<Vec<u32>, SysError> {
    let what = if mask {
        "a CPU mask"
    } else {
        "a CPU/node list"
    };
    if !mask && list_span(text).is_some_and(|n| n > MAX_LIST_IDS) {
        return Err(malformed(
            root,
            rel,
            format!(
                "`{}` names more than {MAX_LIST_IDS} ids, which no machine has",
                excerpt(text)
            ),
        ));
    }
    let parsed = if mask {
        parse_mask(text)
    } else {
        parse_list(text)
    };
    parsed.map_err(|e| {
        if text.trim().chars().count() > EXCERPT_CHARS {
            malformed(
                root,
                rel,
                format!(
                    "`{}` ({} characters) is not {what}",
                    excerpt(text),
                    text.trim().chars().count()
                ),
            )
        } else {
            malformed(root, rel, format!("not {what}: {e}"))
        }
    })
}

/// Reads an optional cpulist file (`0-3,8`); absent gives `None`.
pub fn read_list_opt(root: &SysRoot, rel: impl AsRef<Path>) -> Result<Option<Vec<u32>>, SysError> {
    let rel = rel.as_ref();
    match root.read_opt(rel)? {
        None => Ok(None),
        Some(text) => parse_ids(root, rel, &text, false).map(Some),
    }
}

/// Reads an optional hexadecimal cpumask file (`00000000,0000000f`); absent gives `None`.
pub fn read_mask_opt(root: &SysRoot, rel: impl AsRef<Path>) -> Result<Option<Vec<u32>>, SysError> {
    let rel = rel.as_ref();
    match root.read_opt(rel)? {
        None => Ok(None),
        Some(text) => parse_ids(root, rel, &text, true).map(Some),
    }
}

/// Reads an optional file holding a signed integer; negative values (the kernel's `-1` for
/// "unknown") give `None`, like an absent file.
pub fn read_id_opt(root: &SysRoot, rel: impl AsRef<Path>) -> Result<Option<u32>, SysError> {
    let rel = rel.as_ref();
    match root.read_opt(rel)? {
        None => Ok(None),
        Some(text) => {
            let t = text.trim();
            let v: i64 = t.parse().map_err(|_| {
                malformed(
                    root,
                    rel,
                    format!("expected an integer id, found `{}`", excerpt(t)),
                )
            })?;
            Ok(u32::try_from(v).ok())
        }
    }
}
