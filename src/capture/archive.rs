//! Unpacking a snapshot archive given to `--sysfs-root` (a `.tar.gz` that `capture` wrote, or
//! one from someone else): every member is checked before it is written (only files,
//! directories and links that stay inside the snapshot; no member, and not the whole, over its
//! size limit; the decompressed stream capped too, so a gzip bomb stops early), and the
//! unpacked tree lives in a temporary directory removed on drop. Split from `capture` because
//! reading untrusted archives is its own job with its own limits.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use super::link_stays_inside;
use crate::sys::safe_read::excerpt;
use crate::sysroot::MAX_FILE_BYTES;

/// Limits on what an archive given to `--sysfs-root` may unpack. A snapshot holds small
/// kernel text files, so anything near these limits is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnpackLimits {
    /// Largest member, bytes.
    pub member_bytes: u64,
    /// All members together, bytes.
    pub total_bytes: u64,
    /// Number of members.
    pub members: u64,
}

impl Default for UnpackLimits {
    fn default() -> Self {
        UnpackLimits {
            member_bytes: MAX_FILE_BYTES,
            total_bytes: 64 << 20,
            members: 200_000,
        }
    }
}

/// Room the tar format itself takes beyond its members' data (headers, padding, long names),
/// allowed on top of [`UnpackLimits::total_bytes`] in the decompressed stream.
const TAR_OVERHEAD_BYTES: u64 = 16 << 20;

/// A reader that fails, with a sentence, once more than `left` bytes have been read: it caps
/// the decompressed stream, so a small gzip file that inflates without end (or a tar long-name
/// header the `tar` crate would read whole into memory) stops at the cap.
struct Capped<R> {
    inner: R,
    left: u64,
    cap: u64,
}

impl<R: io::Read> io::Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            // One byte more means the stream is over the cap; a clean end is not.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(io::Error::other(format!(
                    "it decompresses to more than {} bytes, more than a snapshot holds",
                    self.cap
                ))),
            };
        }
        let want = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Unpacks a gzip-compressed tar stream into the existing directory `dir`, member by member:
/// each member's declared size is checked against `limits` before any of it is written;
/// regular files, directories and hard links are unpacked by the `tar` crate (which keeps
/// every path, `../` and absolute ones included, and every hard link inside `dir`); a symbolic
/// link is unpacked only when its target stays inside `dir`; devices, FIFOs and other kinds
/// are refused. The decompressed stream itself is capped (see `Capped`). The error names the
/// member and the rule it broke.
pub fn unpack_capped(
    reader: impl io::Read,
    dir: &Path,
    limits: UnpackLimits,
) -> anyhow::Result<()> {
    let cap = limits.total_bytes.saturating_add(TAR_OVERHEAD_BYTES);
    let mut ar = tar::Archive::new(Capped {
        inner: flate2::read::GzDecoder::new(reader),
        left: cap,
        cap,
    });
    let mut total = 0u64;
    let mut count = 0u64;
    for entry in ar.entries()? {
        let mut entry = entry?;
        let name = entry.path()?.into_owned();
        let shown = excerpt(&name.to_string_lossy());
        count += 1;
        if count > limits.members {
            bail!(
                "it has more than {} members, which no snapshot has",
                limits.members
            );
        }
        let size = entry.header().size()?;
        if size > limits.member_bytes {
            bail!(
                "the member `{shown}` is {size} bytes, more than the {} bytes a snapshot file may hold",
                limits.member_bytes
            );
        }
        total += size;
        if total > limits.total_bytes {
            bail!(
                "its members add up to more than {} bytes, more than a snapshot holds",
                limits.total_bytes
            );
        }
        let kind = entry.header().entry_type();
        match kind {
            tar::EntryType::Regular
            | tar::EntryType::Continuous
            | tar::EntryType::Directory
            | tar::EntryType::Link => {}
            tar::EntryType::Symlink => {
                let target = entry
                    .link_name()?
                    .map(|t| t.into_owned())
                    .unwrap_or_default();
                if !link_stays_inside(&name, &target) {
                    bail!(
                        "the member `{shown}` is a symbolic link to `{}`, outside the snapshot; numascope never unpacks a link that leads out",
                        excerpt(&target.to_string_lossy())
                    );
                }
            }
            // Long names and extended headers are read by the tar crate itself.
            tar::EntryType::GNULongName
            | tar::EntryType::GNULongLink
            | tar::EntryType::XHeader
            | tar::EntryType::XGlobalHeader => continue,
            _ => bail!(
                "the member `{shown}` is a {kind:?} entry; a snapshot holds only files, directories and links"
            ),
        }
        entry.unpack_in(dir)?;
    }
    Ok(())
}

/// A `.tar.gz` snapshot unpacked into a private temporary directory, removed on drop.
#[derive(Debug)]
pub struct Unpacked {
    dir: PathBuf,
}

impl Unpacked {
    /// Unpacks `archive` within [`UnpackLimits::default`]; the snapshot root is
    /// [`Unpacked::path`].
    pub fn new(archive: &Path) -> anyhow::Result<Unpacked> {
        let (f, _) =
            crate::sys::safe_read::open_regular(archive, u64::MAX, false).with_context(|| {
                format!(
                    "--sysfs-root {}: cannot open the archive",
                    archive.display()
                )
            })?;
        let me = Unpacked::fresh()?;
        unpack_capped(f, &me.dir, UnpackLimits::default()).with_context(|| {
            format!(
                "--sysfs-root {}: not a readable .tar.gz snapshot",
                archive.display()
            )
        })?;
        Ok(me)
    }

    /// A new empty private directory for a snapshot (mkdtemp: an unpredictable name, mode
    /// 700, never an existing directory), removed on drop.
    pub fn fresh() -> anyhow::Result<Unpacked> {
        let tmp = std::env::temp_dir();
        let dir = crate::sys::files::make_private_dir(&tmp, "numascope-snapshot")
            .with_context(|| format!("cannot create a snapshot directory in {}", tmp.display()))?;
        Ok(Unpacked { dir })
    }

    /// The unpacked snapshot root.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
