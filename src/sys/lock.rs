//! Advisory file locks (`flock(2)`), the one syscall behind numascope's two locks: the
//! per-host measuring lock (two measuring processes on one host would measure each other) and
//! the per-output-directory lock (two runs into one directory would overwrite each other's
//! files). A `flock` belongs to the open file, so the kernel drops it when the process ends
//! however it ends (exit, panic, SIGKILL): a crashed run never leaves a stale lock behind,
//! only the lock file itself, which the next holder reuses. The holder writes its PID into
//! the file so a refused process can name it.
//!
//! The lock file lives in a directory every user may write to (`/run/lock`), so it is opened
//! as `files::open_lock` says: never through a symbolic link, refused when it is not a regular
//! file with one name owned by the caller or root, never chmodded; and only its first bytes
//! are read for the holder's PID, however large someone made it.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use super::SysCallError;

/// A held exclusive lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

/// What a try to take a lock found.
#[derive(Debug)]
pub enum Attempt {
    /// The lock is ours.
    Held(FileLock),
    /// Another open file holds it.
    Busy(Busy),
}

/// A lock another process holds, with our file still open so a retry locks the same file.
#[derive(Debug)]
pub struct Busy {
    file: File,
    path: PathBuf,
    /// The PID its holder wrote, when readable.
    pub holder: Option<u32>,
}

impl Busy {
    /// Tries again, without blocking, on the file already open.
    pub fn retry(self) -> Result<Attempt, SysCallError> {
        lock(self.file, self.path)
    }
}

impl FileLock {
    /// Opens `path` (a lock file, created mode 0666 narrowed by the umask, see
    /// [`super::files::open_lock`]; or a directory) and tries once, without blocking, to lock
    /// it exclusively. A file another user created and we may not write is opened read-only:
    /// `flock` needs no write access. On success a lock file holds our PID.
    pub fn try_exclusive(path: &Path) -> Result<Attempt, SysCallError> {
        // A directory (the output directory's lock) is only read, never written, so one
        // reached through a link is harmless; a lock file is opened without following one.
        let opened = if path.is_dir() {
            File::open(path)
        } else {
            super::files::open_lock(path).map(|(f, _)| f)
        };
        let file = opened.map_err(|source| SysCallError {
            call: "open",
            what: path.display().to_string(),
            source,
            hint: String::new(),
        })?;
        lock(file, path.to_path_buf())
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// One non-blocking `flock(LOCK_EX)` on `file`.
fn lock(mut file: File, path: PathBuf) -> Result<Attempt, SysCallError> {
    // SAFETY: flock on a file descriptor we own and keep open; LOCK_NB makes it return at
    // once instead of blocking.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            // A PID is at most 10 digits; 64 bytes is plenty, whatever the file's size.
            let text = super::files::read_prefix(&mut file, 64);
            return Ok(Attempt::Busy(Busy {
                file,
                path,
                holder: leading_pid(&text),
            }));
        }
        return Err(SysCallError {
            call: "flock",
            what: path.display().to_string(),
            source: err,
            hint: String::new(),
        });
    }
    // Ours: record the PID for whoever is refused next (best effort; the lock holds
    // whether or not the write works).
    let _ = file.set_len(0);
    let _ = file.seek(SeekFrom::Start(0));
    let _ = writeln!(file, "{}", std::process::id());
    let _ = file.flush();
    Ok(Attempt::Held(FileLock { file, path }))
}

/// The PID at the start of a lock file's text (digits after optional blanks); whatever
/// follows (a newline, NUL bytes of a file someone made huge) is ignored.
fn leading_pid(text: &str) -> Option<u32> {
    let t = text.trim_start();
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    t[..end].parse().ok()
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // The PID is stale once we let go; an empty file reads as "holder unknown".
        let _ = self.file.set_len(0);
        // SAFETY: unlocking a descriptor we own; closing it would release the lock as well.
        unsafe {
            libc::flock(self.file.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_file_is_refused_with_the_holder_pid_until_the_first_drops() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("x.lock");
        let first = match FileLock::try_exclusive(&p).unwrap() {
            Attempt::Held(l) => l,
            Attempt::Busy(_) => panic!("a fresh lock file was busy"),
        };
        assert_eq!(first.path(), p);
        let busy = match FileLock::try_exclusive(&p).unwrap() {
            Attempt::Busy(b) => b,
            Attempt::Held(_) => panic!("the lock was taken twice"),
        };
        assert_eq!(busy.holder, Some(std::process::id()));
        drop(first);
        // The retry locks the file it already has open.
        assert!(matches!(busy.retry().unwrap(), Attempt::Held(_)));
    }

    #[test]
    fn a_directory_locks_too_and_nothing_is_left_in_it() {
        let tmp = tempfile::tempdir().unwrap();
        let first = FileLock::try_exclusive(tmp.path()).unwrap();
        assert!(matches!(first, Attempt::Held(_)));
        assert!(matches!(
            FileLock::try_exclusive(tmp.path()).unwrap(),
            Attempt::Busy(Busy { holder: None, .. })
        ));
        drop(first);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_unopenable_path_is_an_error_naming_it() {
        let e = FileLock::try_exclusive(Path::new("/nonexistent-dir/x.lock")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent-dir/x.lock"), "{e}");
    }
}
