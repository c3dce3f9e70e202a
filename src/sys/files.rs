//! Creating files and directories in places other users can write to (`/tmp`, `/run/lock`, an
//! output directory under a shared tree), where numascope, often run as root, must never write
//! through a link someone planted:
//!
//! - [`create_new`]: a new file only (`O_CREAT|O_EXCL|O_NOFOLLOW`), never an existing one nor
//!   a symbolic link's target, with the mode asked for;
//! - [`write_replacing`]: the one atomic writer. The bytes go to a temporary file of an
//!   unpredictable name in the target's directory (created as above), are synced, then
//!   renamed over the target, and only over a regular file: a directory, a device node
//!   (`/dev/null`), a FIFO or a symbolic link at the target is refused, so a rename never
//!   replaces what is not a file of ours. A missing target is created with
//!   `renameat2(RENAME_NOREPLACE)`, so a file planted between the check and the rename is
//!   never replaced silently;
//! - [`make_private_dir`]: a fresh directory of an unpredictable name, mode 700 (`mkdtemp`),
//!   never an existing one, and never the missing parents of it;
//! - [`open_lock`]: a shared lock file opened without following a link, checked to be a
//!   regular file with one name, owned by the caller or root, and never chmodded;
//!   [`read_prefix`] reads its first bytes only (the holder's PID), whatever its size.

use std::ffi::CString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Mode of a file anyone may read (reports, results): 644 before the umask.
pub const SHARED_MODE: u32 = 0o644;
/// Mode of a file only its owner may read (a program's output): 600.
pub const PRIVATE_MODE: u32 = 0o600;

/// How often a fresh random name is tried before giving up (a collision of 64 random bits is
/// not chance: someone is guessing).
const NAME_TRIES: usize = 16;

/// 16 hex digits from the kernel's random source, for names nobody can predict.
pub fn random_name_part() -> io::Result<String> {
    let mut buf = [0u8; 8];
    // SAFETY: getrandom writes at most buf.len() bytes into the buffer we own; the return
    // value says how many it wrote.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n != buf.len() as isize {
        // The kernel is older than getrandom(2) (3.17) or was interrupted: read the device.
        File::open("/dev/urandom")?.read_exact(&mut buf)?;
    }
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Creates `path` as a new file for writing, with `mode` (narrowed by the umask): refused when
/// anything exists there, a symbolic link included.
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// The directory `path` is in, `.` for a bare name.
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new temporary file of an unpredictable name beside `path`, created exclusively.
fn temporary_beside(path: &Path, mode: u32) -> io::Result<(File, PathBuf)> {
    let dir = parent_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..NAME_TRIES {
        let tmp = dir.join(format!(".{name}.{}.tmp", random_name_part()?));
        match create_new(&tmp, mode) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Refuses a target that is there and not a regular file, in words for an error message.
fn check_replaceable(path: &Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(true),
        Ok(m) => Err(io::Error::other(format!(
            "it is {}, and numascope replaces only a regular file; choose another path",
            super::safe_read::kind_of(&m.file_type())
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

fn c_path(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// Renames `from` to `to` only if `to` does not exist (`renameat2(RENAME_NOREPLACE)`; a hard
/// link and an unlink where the file system lacks it, for a file): nothing planted at `to`
/// in the meantime is ever replaced.
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let (f, t) = (c_path(from)?, c_path(to)?);
    // SAFETY: both paths are NUL-terminated C strings that live across the call; AT_FDCWD
    // makes them relative to the working directory as plain paths are.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            f.as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) if !from.is_dir() => {
            std::fs::hard_link(from, to)?;
            std::fs::remove_file(from)
        }
        Some(libc::EINVAL) | Some(libc::ENOSYS) => match std::fs::symlink_metadata(to) {
            // A directory: no link to make; renamed when nothing is there (a narrow race
            // left only on file systems without RENAME_NOREPLACE).
            Err(n) if n.kind() == io::ErrorKind::NotFound => std::fs::rename(from, to),
            _ => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
        },
        _ => Err(e),
    }
}

/// Writes `bytes` to `path` atomically and exclusively (see the module text): a reader sees
/// the old file or the new one, never half of one, and nothing but a regular file is
/// replaced. `mode` is the new file's mode before the umask ([`SHARED_MODE`],
/// [`PRIVATE_MODE`]).
pub fn write_replacing(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    // Refused before anything is written, so a refusal leaves nothing behind.
    check_replaceable(path)?;
    let (mut f, tmp) = temporary_beside(path, mode)?;
    let res = (|| -> io::Result<()> {
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if check_replaceable(path)? {
            std::fs::rename(&tmp, path)
        } else {
            match rename_noreplace(&tmp, path) {
                // Planted between the check and the rename: replace it only if it is a file.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && check_replaceable(path)? => {
                    std::fs::rename(&tmp, path)
                }
                r => r,
            }
        }
    })();
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res
}

/// Makes a fresh directory `PREFIX-RANDOM` in `parent`, mode 700, as `mkdtemp(3)` does: never
/// an existing directory, never through a link, and never `parent` itself or its parents (a
/// missing `parent` is an error).
pub fn make_private_dir(parent: &Path, prefix: &str) -> io::Result<PathBuf> {
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..NAME_TRIES {
        let p = parent.join(format!("{prefix}-{}", random_name_part()?));
        match std::fs::DirBuilder::new().mode(0o700).create(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Opens the shared lock file `path` (created, mode 666 narrowed by the umask, when missing)
/// without following a link, and checks the opened file: a regular file with one name (no
/// hard link to another file), owned by the caller or root. An existing file we may not write
/// is opened read-only (`flock` needs no write access). Returns the file and whether it is
/// writable.
pub fn open_lock(path: &Path) -> io::Result<(File, bool)> {
    let flags = libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .custom_flags(flags)
        .open(path);
    let (file, writable) = match opened {
        Ok(f) => (f, true),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            let f = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(flags)
                .open(path)?;
            (f, false)
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(io::Error::other(
                "it is a symbolic link, which a lock file never is; remove it",
            ))
        }
        Err(e) => return Err(e),
    };
    let m = file.metadata()?;
    if !m.file_type().is_file() {
        return Err(io::Error::other(format!(
            "it is {}, not a regular file; remove it",
            super::safe_read::kind_of(&m.file_type())
        )));
    }
    if m.nlink() != 1 {
        return Err(io::Error::other(format!(
            "it has {} names (a hard link to another file); remove it",
            m.nlink()
        )));
    }
    let me = super::process::effective_uid();
    if m.uid() != me && m.uid() != 0 {
        return Err(io::Error::other(format!(
            "it belongs to user {}, neither you nor root; remove it or set NUMASCOPE_LOCK_DIR to a directory of your own",
            m.uid()
        )));
    }
    Ok((file, writable))
}

/// The first `max` bytes of `file` from its start, as text (lossy): enough for a PID, never a
/// whole file however large.
pub fn read_prefix(file: &mut File, max: u64) -> String {
    use std::io::Seek;
    let mut buf = Vec::new();
    if file.seek(io::SeekFrom::Start(0)).is_ok() {
        let _ = (&mut *file).take(max).read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_write_replaces_a_file_and_leaves_no_temporary_behind() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.txt");
        write_replacing(&p, b"one", SHARED_MODE).unwrap();
        write_replacing(&p, b"two", PRIVATE_MODE).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_link_a_directory_or_a_device_is_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = write_replacing(&link, b"x", SHARED_MODE).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let e = write_replacing(d.path(), b"x", SHARED_MODE).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let e = write_replacing(Path::new("/dev/null"), b"x", SHARED_MODE).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }

    #[test]
    fn private_dirs_are_fresh_and_parents_are_never_made() {
        let d = tempfile::tempdir().unwrap();
        let a = make_private_dir(d.path(), "x").unwrap();
        let b = make_private_dir(d.path(), "x").unwrap();
        assert_ne!(a, b);
        let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let missing = d.path().join("no/such");
        assert!(make_private_dir(&missing, "x").is_err());
        assert!(!d.path().join("no").exists());
    }

    #[test]
    fn a_lock_through_a_link_is_refused_and_the_prefix_is_bounded() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let link = d.path().join("l.lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(open_lock(&link).is_err());
        let hard = d.path().join("h.lock");
        std::fs::hard_link(&victim, &hard).unwrap();
        let e = open_lock(&hard).unwrap_err();
        assert!(e.to_string().contains("hard link"), "{e}");
        let p = d.path().join("ok.lock");
        let (mut f, w) = open_lock(&p).unwrap();
        assert!(w);
        f.write_all(&[b'7'; 10_000]).unwrap();
        assert_eq!(read_prefix(&mut f, 32).len(), 32);
    }
}
