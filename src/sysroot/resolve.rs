//! Sealed path resolution for a snapshot root: a relative path is walked component by
//! component without ever leaving the root, symbolic links inside the snapshot are followed
//! relative to the root, and a link leading out (an absolute target outside, or `..` climbing
//! above the root) is refused with an error naming the link. Split from `sysroot` because it
//! is the one part of the door that is a small algorithm rather than plumbing.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use super::{SysError, SysRoot};
use crate::sys::safe_read::excerpt;

/// How many symbolic links one path may pass through in a snapshot (Linux allows 40).
const MAX_LINK_HOPS: usize = 40;

impl SysRoot {
    /// Where `rel` really is: for the live root, `/rel`; for a snapshot, the path reached by
    /// resolving `rel` component by component inside the root (see the module text). Every
    /// component of the result exists and none is a symbolic link, except that a missing
    /// component gives a `NotFound` read error. A link leading out of the root is refused.
    pub fn resolve(&self, rel: impl AsRef<Path>) -> Result<PathBuf, SysError> {
        let rel = rel.as_ref();
        if self.live {
            return Ok(self.path(rel));
        }
        let shown = self.path(rel);
        if self.is_hwloc_xml() {
            // An hwloc XML holds no kernel files: every one is absent.
            return Err(SysError::Read {
                path: shown,
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
        let refused = |why: String| SysError::Refused {
            path: shown.clone(),
            why,
        };
        // Components still to walk (a stack: a link pushes its target's components), and the
        // components resolved so far, relative to the root.
        let mut todo: Vec<OsString> = Vec::new();
        push_components(&mut todo, rel);
        let mut done: Vec<OsString> = Vec::new();
        let mut hops = 0;
        while let Some(c) = todo.pop() {
            if c == ".." {
                if done.pop().is_none() {
                    return Err(refused(
                        "its path climbs above the snapshot root with `..`; a snapshot may only refer to files inside itself".into(),
                    ));
                }
                continue;
            }
            done.push(c);
            let here: PathBuf = self.root.join(done.iter().collect::<PathBuf>());
            let meta = match std::fs::symlink_metadata(&here) {
                Ok(m) => m,
                Err(source) => {
                    return Err(SysError::Read {
                        path: shown.clone(),
                        source,
                    })
                }
            };
            if !meta.file_type().is_symlink() {
                continue;
            }
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Err(refused(format!(
                    "it passes through more than {MAX_LINK_HOPS} symbolic links (a loop?) inside the snapshot"
                )));
            }
            let target = self.link_target(&here, &mut done, &shown)?;
            push_components(&mut todo, &target);
        }
        Ok(self.root.join(done.iter().collect::<PathBuf>()))
    }

    /// The target of the link `here` (the last of the components `done`), to walk next,
    /// relative to where `done` is left: the link's own component is dropped, and an
    /// absolute target inside the root restarts from the root. A target outside the root,
    /// or one climbing out of it with `..`, is refused (in the message about `shown`).
    fn link_target(
        &self,
        here: &Path,
        done: &mut Vec<OsString>,
        shown: &Path,
    ) -> Result<PathBuf, SysError> {
        let refused = |why: String| SysError::Refused {
            path: shown.to_path_buf(),
            why,
        };
        let target = std::fs::read_link(here).map_err(|source| SysError::Read {
            path: here.to_path_buf(),
            source,
        })?;
        let link_name = done.iter().collect::<PathBuf>();
        done.pop();
        let target = if target.is_absolute() {
            // An absolute link is acceptable only when it names a place inside this root
            // (a snapshot that was unpacked where it was made).
            match target.strip_prefix(&self.root) {
                Ok(inside) => {
                    done.clear();
                    inside.to_path_buf()
                }
                Err(_) => {
                    return Err(refused(format!(
                        "{} is a symbolic link to `{}`, outside the snapshot; numascope never follows a link out of a snapshot (replace the link by the file it should hold)",
                        link_name.display(),
                        excerpt(&target.to_string_lossy())
                    )))
                }
            }
        } else {
            target
        };
        let before = done.len();
        // Check the climb now, to name the link rather than a later component.
        let ups = target
            .components()
            .take_while(|c| matches!(c, Component::ParentDir | Component::CurDir))
            .filter(|c| matches!(c, Component::ParentDir))
            .count();
        if ups > before {
            return Err(refused(format!(
                "{} is a symbolic link to `{}`, which climbs out of the snapshot; numascope never follows a link out of a snapshot",
                link_name.display(),
                excerpt(&target.to_string_lossy())
            )));
        }
        Ok(target)
    }
}

/// Pushes the normal and `..` components of `p` onto `todo` so that the first is popped first.
fn push_components(todo: &mut Vec<OsString>, p: &Path) {
    let mut parts: Vec<OsString> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect();
    parts.reverse();
    todo.extend(parts);
}
