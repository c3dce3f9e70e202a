//! Warnings about one optional file, shared by every reader of `/sys` and `/proc` (topology,
//! environment): how a warning names the file, and [`degrade`], which turns the failure to
//! read an optional file into a warning and an unknown field instead of refusing the machine.

use std::path::Path;

use crate::sysroot::{SysError, SysRoot};

/// How a warning names the file `rel`: as the machine's own path (`/sys/...`), the same for a
/// live read, a snapshot directory and an unpacked archive, so warnings in JSON compare
/// across copies of one snapshot (the topology's `source` says which root was read).
pub fn shown(rel: impl AsRef<Path>) -> String {
    let rel = rel.as_ref();
    Path::new("/")
        .join(rel.strip_prefix("/").unwrap_or(rel))
        .display()
        .to_string()
}

/// Turns the failure to read an optional file into a warning in `warnings` and `None`, so the
/// field it feeds is left unknown instead of refusing the whole machine (hwloc degrades the
/// same way, field by field). The warning names the file as the machine's path, says what is
/// wrong with it, then `then` (what is left unknown). A snapshot that tries to leave its root
/// or a bad root stays an error: those are not about one optional file.
pub fn degrade<T>(
    root: &SysRoot,
    res: Result<T, SysError>,
    warnings: &mut Vec<String>,
    then: &str,
) -> Result<Option<T>, SysError> {
    let rel = |p: &Path| shown(p.strip_prefix(root.root()).unwrap_or(p));
    let what = match &res {
        Ok(_) => None,
        Err(SysError::Malformed { path, why }) => {
            Some(format!("{} is malformed: {why}", rel(path)))
        }
        Err(SysError::Missing { path, .. }) => Some(format!("{} is missing", rel(path))),
        Err(SysError::Read { path, source }) => {
            Some(format!("{} cannot be read ({source})", rel(path)))
        }
        Err(_) => None,
    };
    match (res, what) {
        (Ok(v), _) => Ok(Some(v)),
        (Err(_), Some(what)) => {
            warnings.push(format!("{what}; {then}"));
            Ok(None)
        }
        (Err(e), None) => Err(e),
    }
}
