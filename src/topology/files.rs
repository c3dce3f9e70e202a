//! Small helpers shared by the topology readers: reading a kernel list or mask file through the
//! [`SysRoot`] and turning a parse failure into [`SysError::Malformed`] that names the file.
//! They exist so every reader reports bad input the same way, in one sentence.

use std::path::Path;

use crate::parse::cpulist::{parse_list, parse_mask};
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

/// Reads an optional cpulist file (`0-3,8`); absent gives `None`.
pub fn read_list_opt(root: &SysRoot, rel: impl AsRef<Path>) -> Result<Option<Vec<u32>>, SysError> {
    let rel = rel.as_ref();
    match root.read_opt(rel)? {
        None => Ok(None),
        Some(text) => parse_list(&text)
            .map(Some)
            .map_err(|e| malformed(root, rel, format!("not a CPU/node list: {e}"))),
    }
}

/// Reads an optional hexadecimal cpumask file (`00000000,0000000f`); absent gives `None`.
pub fn read_mask_opt(root: &SysRoot, rel: impl AsRef<Path>) -> Result<Option<Vec<u32>>, SysError> {
    let rel = rel.as_ref();
    match root.read_opt(rel)? {
        None => Ok(None),
        Some(text) => parse_mask(&text)
            .map(Some)
            .map_err(|e| malformed(root, rel, format!("not a CPU mask: {e}"))),
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
                malformed(root, rel, format!("expected an integer id, found `{t}`"))
            })?;
            Ok(u32::try_from(v).ok())
        }
    }
}
