//! Advisory file locks (`flock(2)`), the one syscall behind numascope's two locks: the
//! per-host measuring lock (two measuring processes on one host would measure each other) and
//! the per-output-directory lock (two runs into one directory would overwrite each other's
//! files). A `flock` belongs to the open file, so the kernel drops it when the process ends
//! however it ends (exit, panic, SIGKILL): a crashed run never leaves a stale lock behind,
//! only the lock file itself, which the next holder reuses. The holder writes its PID into
//! the file so a refused process can name it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
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
    /// Opens `path` (a lock file, created mode 0666 so other users on the host can take it
    /// in turn; or a directory) and tries once, without blocking, to lock it exclusively. A
    /// file another user created and we may not write is opened read-only: `flock` needs no
    /// write access. On success a lock file holds our PID.
    pub fn try_exclusive(path: &Path) -> Result<Attempt, SysCallError> {
        let opened = if path.is_dir() {
            File::open(path)
        } else {
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o666)
                .open(path)
            {
                Ok(f) => {
                    // The umask narrowed the mode; widen it so another user can lock too.
                    let _ = f.set_permissions(std::fs::Permissions::from_mode(0o666));
                    Ok(f)
                }
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied && path.exists() => {
                    File::open(path)
                }
                Err(e) => Err(e),
            }
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
            let mut text = String::new();
            let _ = file.seek(SeekFrom::Start(0));
            let _ = file.read_to_string(&mut text);
            return Ok(Attempt::Busy(Busy {
                file,
                path,
                holder: text.trim().parse().ok(),
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
