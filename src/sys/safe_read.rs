//! Reading a file that someone else chose: a snapshot's sysfs file, a `results.json` given to
//! `report` or `compare`. Such a path can name a FIFO (opening it for reading would wait for a
//! writer forever), a device such as `/dev/zero` (endless) or a huge file, so this module opens
//! without blocking, checks the type with `fstat` on the opened descriptor before reading a
//! byte, refuses anything but a regular file, and caps the size both before reading (the
//! stat size) and while reading (files whose stat size lies, as in procfs and sysfs). It also
//! says whether two paths are one file, so an output never replaces an input, and makes the
//! short, escaped excerpts that error messages may quote instead of whole file contents.
//!
//! It does not decide *which* paths may be read; confining reads to a snapshot root is
//! [`crate::sysroot`]'s job.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// At most this many characters of a file's content are quoted in an error message.
pub const EXCERPT_CHARS: usize = 40;

/// What kind of non-regular file a path is, in words for an error message.
pub(crate) fn kind_of(ft: &std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading without blocking and checks that it is a regular file of at most
/// `cap` bytes. `nofollow` refuses a symbolic link as the last component. Errors are
/// [`io::Error`]s whose text is one clause saying what the file is and why it is refused.
pub fn open_regular(path: &Path, cap: u64, nofollow: bool) -> io::Result<(File, u64)> {
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if nofollow {
        flags |= libc::O_NOFOLLOW;
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            if nofollow && e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::other("it is a symbolic link, which is refused here")
            } else {
                e
            }
        })?;
    let meta = f.metadata()?;
    let ft = meta.file_type();
    if ft.is_dir() {
        // The same error a plain read of a directory gives, so callers treat it alike.
        return Err(io::Error::from_raw_os_error(libc::EISDIR));
    }
    if !ft.is_file() {
        return Err(io::Error::other(format!(
            "it is {}, not a regular file; numascope reads only regular files here",
            kind_of(&ft)
        )));
    }
    if meta.len() > cap {
        return Err(too_large(cap));
    }
    Ok((f, meta.len()))
}

fn too_large(cap: u64) -> io::Error {
    io::Error::other(format!(
        "it is larger than {} MiB, the most numascope reads from one such file",
        cap >> 20
    ))
}

/// Reads a whole regular file of at most `cap` bytes (see [`open_regular`]). The cap also
/// holds while reading, for files whose stat size is 0 or 4096 whatever they hold.
pub fn read_capped(path: &Path, cap: u64, nofollow: bool) -> io::Result<Vec<u8>> {
    let (f, len) = open_regular(path, cap, nofollow)?;
    // The file's own length (at most the cap) reserved at once: growing by doubling would
    // hold up to twice a large file's size.
    let mut bytes = Vec::with_capacity(len.min(cap).saturating_add(1) as usize);
    f.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(cap));
    }
    Ok(bytes)
}

/// True when `a` and `b` name the same existing file (same device and inode), whatever the
/// spelling: `out.json`, `./out.json` and a link to it are one file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// A short excerpt of untrusted text for an error message: at most [`EXCERPT_CHARS`]
/// characters, control characters escaped by the one sanitizer (`crate::sanitize`), `...`
/// when cut.
pub fn excerpt(text: &str) -> String {
    let t = text.trim();
    let head: String = t.chars().take(EXCERPT_CHARS).collect();
    let mut out = crate::sanitize::escape(&head).into_owned();
    if t.chars().nth(EXCERPT_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_by_type_and_big_ones_by_size() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 20, false).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_capped(&fifo, 1 << 20, false).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let big = d.path().join("big");
        std::fs::write(&big, vec![b'x'; 100]).unwrap();
        let e = read_capped(&big, 99, false).unwrap_err();
        assert!(e.to_string().contains("larger than"), "{e}");
        assert_eq!(read_capped(&big, 100, false).unwrap().len(), 100);
        let e = read_capped(d.path(), 100, false).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&big, &link).unwrap();
        assert!(read_capped(&link, 100, true).is_err());
        assert!(read_capped(&link, 100, false).is_ok());
    }

    #[test]
    fn same_file_sees_through_spellings_and_links() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.json");
        std::fs::write(&a, "{}").unwrap();
        let link = d.path().join("l.json");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        assert!(same_file(&a, &d.path().join("./a.json")));
        assert!(same_file(&a, &link));
        assert!(!same_file(&a, &d.path().join("missing")));
    }

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("0-x\n"), "0-x");
        assert_eq!(excerpt("a\u{1b}[2Jb"), "a\\x1b[2Jb");
        let long = "root:$6$secret".repeat(20);
        let e = excerpt(&long);
        assert!(
            e.ends_with("...") && e.chars().count() <= EXCERPT_CHARS + 3,
            "{e}"
        );
    }
}
