//! The single door to `/sys` and `/proc`. Every read numascope makes of kernel-provided files
//! goes through a [`SysRoot`], which prefixes a root directory (`/` for the live machine, or a
//! captured snapshot given with `--sysfs-root`, laid out like hwloc's `HWLOC_FSROOT`). That one
//! rule makes real machines replayable as test fixtures, and lets `capture` copy exactly the
//! files that were read, because the root records every path it was asked for.
//!
//! A root other than `/` is *not live*: [`SysRoot::require_live`] refuses anything that would
//! pin threads or bind memory against it.
//!
//! A snapshot root is also *sealed*, because a snapshot is input someone else made: every path
//! is resolved component by component without leaving the root (as hwloc resolves paths
//! against its fsroot). A symbolic link inside the snapshot is followed relative to the root;
//! a link whose target is absolute and outside the root, or whose `..` climbs above it, is
//! refused with an error naming the link, never followed. Every file (live or snapshot) is
//! opened without blocking and checked by type before it is read, so a FIFO or a device is
//! refused instead of hanging, and no snapshot file larger than [`MAX_FILE_BYTES`] (live:
//! [`MAX_LIVE_FILE_BYTES`]) is read.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::sys::safe_read::{excerpt, read_capped};

mod resolve;
pub mod warn;

/// The largest file numascope reads from a snapshot, bytes. The biggest real ones
/// (`/proc/cpuinfo` of a machine with hundreds of CPUs) are well under 1 MiB.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The largest file read from the running machine, bytes: the kernel writes these, but
/// `inspect` reads another process's `numa_maps`, which for a process with tens of thousands
/// of mappings exceeds the snapshot limit.
pub const MAX_LIVE_FILE_BYTES: u64 = 256 << 20;

/// The longest explanation a [`SysError::Malformed`] shows, in characters.
pub const MAX_WHY_CHARS: usize = 300;

fn capped(why: &str) -> String {
    if why.chars().count() <= MAX_WHY_CHARS {
        why.to_string()
    } else {
        let cut: String = why.chars().take(MAX_WHY_CHARS).collect();
        format!("{}...", cut.escape_debug())
    }
}

/// Errors reading from the root; each names the full path and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    /// `why` is written by numascope and quotes at most a short excerpt of the file; as a
    /// last guard it is cut at [`MAX_WHY_CHARS`] when shown.
    #[error("{path} is malformed: {}", capped(why))]
    Malformed { path: PathBuf, why: String },
    #[error("{path} is missing: {why}")]
    Missing { path: PathBuf, why: String },
    /// Binding or pinning asked of a snapshot root: the environment refuses (exit status 3).
    #[error("{0}")]
    NotLive(#[source] crate::error::Marked),
    #[error("--sysfs-root {path}: {why}")]
    BadRoot { path: PathBuf, why: String },
    #[error("{path} is refused: {why}")]
    Refused { path: PathBuf, why: String },
}

/// A root directory under which `sys/...` and `proc/...` are read.
#[derive(Debug, Clone)]
pub struct SysRoot {
    root: PathBuf,
    live: bool,
    /// Relative paths read so far (files and directory listings), for `capture`.
    record: Arc<Mutex<BTreeSet<PathBuf>>>,
    /// An hwloc XML file given to `--sysfs-root`: a root without files (every path is
    /// absent), whose topology was read from the XML into memory (see [`SysRoot::model`]).
    xml: Option<Arc<XmlModel>>,
}

/// The topology an hwloc XML root holds, set once it has been read.
#[derive(Debug, Default)]
struct XmlModel {
    topology: std::sync::OnceLock<crate::results::topology::Topology>,
}

impl SysRoot {
    /// The running machine: reads `/sys` and `/proc`.
    pub fn live() -> Self {
        SysRoot {
            root: PathBuf::from("/"),
            live: true,
            record: Default::default(),
            xml: None,
        }
    }

    /// A live root at `dir` instead of `/`: unit tests that must write kernel settings
    /// (weighted-interleave weights) write into a temporary directory standing in for them.
    #[cfg(test)]
    pub(crate) fn live_at(dir: &Path) -> Self {
        SysRoot {
            root: dir.to_path_buf(),
            live: true,
            record: Default::default(),
            xml: None,
        }
    }

    /// A captured snapshot. Checks that it looks like one (has `sys/devices/system`), so a
    /// typo gives one clear sentence instead of an empty topology.
    pub fn snapshot(dir: &Path) -> Result<Self, SysError> {
        let bad = |why: &str| SysError::BadRoot {
            path: dir.to_path_buf(),
            why: why.to_string(),
        };
        let meta = std::fs::metadata(dir).map_err(|_| bad("this directory does not exist"))?;
        if !meta.is_dir() {
            return Err(bad(
                "this is not a directory; give the directory that holds sys/ and proc/",
            ));
        }
        if !dir.join("sys/devices/system").is_dir() {
            return Err(bad(
                "this is not a snapshot: it has no sys/devices/system; make one with `numascope capture DIR`",
            ));
        }
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let live = canonical == Path::new("/");
        Ok(SysRoot {
            root: canonical,
            live,
            record: Default::default(),
            xml: None,
        })
    }

    /// An hwloc XML file given to `--sysfs-root`: not live, and without files (every read
    /// finds its path absent, so what the XML does not hold is unknown). Its topology is read
    /// from the XML by `topology::xml` and kept here with [`SysRoot::set_model`].
    pub fn hwloc_xml(file: &Path) -> Self {
        SysRoot {
            root: file.canonicalize().unwrap_or_else(|_| file.to_path_buf()),
            live: false,
            record: Default::default(),
            xml: Some(Default::default()),
        }
    }

    /// True for a root made from an hwloc XML file.
    pub fn is_hwloc_xml(&self) -> bool {
        self.xml.is_some()
    }

    /// Keeps the topology read from this root's hwloc XML; a root that is not an XML, or
    /// whose topology is already set, keeps what it has.
    pub fn set_model(&self, topology: crate::results::topology::Topology) {
        if let Some(x) = &self.xml {
            let _ = x.topology.set(topology);
        }
    }

    /// The topology read from this root's hwloc XML, once set.
    pub fn model(&self) -> Option<&crate::results::topology::Topology> {
        self.xml.as_ref().and_then(|x| x.topology.get())
    }

    /// True when this is the running machine, where binding and pinning make sense.
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The root directory (`/` when live).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Refuses an action that needs the running machine when reading a snapshot.
    pub fn require_live(&self, action: &str) -> Result<(), SysError> {
        if self.live {
            Ok(())
        } else {
            Err(SysError::NotLive(crate::error::Marked::new(
                crate::error::Kind::Environment,
                format!(
                    "cannot {action}: the topology comes from the snapshot {}, not this machine; drop --sysfs-root to measure here",
                    self.root.display()
                ),
            )))
        }
    }

    /// The absolute path of `rel` (e.g. `sys/devices/system/node`) under this root.
    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        let rel = rel.as_ref();
        let rel = rel.strip_prefix("/").unwrap_or(rel);
        self.root.join(rel)
    }

    fn note(&self, rel: &Path) {
        let rel = rel.strip_prefix("/").unwrap_or(rel).to_path_buf();
        if let Ok(mut r) = self.record.lock() {
            r.insert(rel);
        }
    }

    /// Reads a whole file as bytes: resolved inside the root, checked by type and capped in
    /// size before reading.
    fn read_raw(&self, rel: &Path) -> Result<Vec<u8>, SysError> {
        let path = self.resolve(rel)?;
        let cap = if self.live {
            MAX_LIVE_FILE_BYTES
        } else {
            MAX_FILE_BYTES
        };
        read_capped(&path, cap, !self.live).map_err(|source| match source.kind() {
            io::ErrorKind::Other => SysError::Refused {
                path: self.path(rel),
                why: source.to_string(),
            },
            _ => SysError::Read {
                path: self.path(rel),
                source,
            },
        })
    }

    /// Reads a whole file as text. Missing files are errors; see [`SysRoot::read_opt`].
    /// Text ends at the first NUL byte: kernel text files never hold one, but snapshots made
    /// by copying fixed-size blocks (some of hwloc's recorded machines) are padded with them.
    pub fn read(&self, rel: impl AsRef<Path>) -> Result<String, SysError> {
        let rel = rel.as_ref();
        let mut bytes = self.read_raw(rel)?;
        self.note(rel);
        if let Some(nul) = bytes.iter().position(|&b| b == 0) {
            bytes.truncate(nul);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Reads a whole file as bytes (for binary files such as `proc/self/auxv`). Absent gives
    /// `Ok(None)`, like [`SysRoot::read_opt`].
    pub fn read_bytes_opt(&self, rel: impl AsRef<Path>) -> Result<Option<Vec<u8>>, SysError> {
        let rel = rel.as_ref();
        match self.read_raw(rel) {
            Ok(bytes) => {
                self.note(rel);
                Ok(Some(bytes))
            }
            Err(SysError::Read { source, .. })
                if source.kind() == io::ErrorKind::NotFound
                    || source.kind() == io::ErrorKind::PermissionDenied =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Reads a file that may legitimately be absent (HMAT, caches, hugepages...). Absent gives
    /// `Ok(None)`; a file that exists but cannot be read is still an error.
    pub fn read_opt(&self, rel: impl AsRef<Path>) -> Result<Option<String>, SysError> {
        let rel = rel.as_ref();
        match self.read(rel) {
            Ok(s) => Ok(Some(s)),
            Err(SysError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                Ok(None)
            }
            // Some sysfs attributes are write-only or need privileges we lack: treat as absent.
            Err(SysError::Read { source, .. })
                if source.kind() == io::ErrorKind::PermissionDenied
                    || crate::sys::is_attribute_refusal(&source) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Reads an optional file and trims it.
    pub fn read_trimmed_opt(&self, rel: impl AsRef<Path>) -> Result<Option<String>, SysError> {
        Ok(self.read_opt(rel)?.map(|s| s.trim().to_string()))
    }

    /// Reads a file holding one unsigned integer.
    pub fn read_u64(&self, rel: impl AsRef<Path>) -> Result<u64, SysError> {
        let rel = rel.as_ref();
        let text = self.read(rel)?;
        text.trim().parse::<u64>().map_err(|_| SysError::Malformed {
            path: self.path(rel),
            why: format!("expected an unsigned integer, found `{}`", excerpt(&text)),
        })
    }

    /// Reads an optional file holding one unsigned integer.
    pub fn read_u64_opt(&self, rel: impl AsRef<Path>) -> Result<Option<u64>, SysError> {
        let rel = rel.as_ref();
        match self.read_opt(rel)? {
            None => Ok(None),
            Some(text) => text
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| SysError::Malformed {
                    path: self.path(rel),
                    why: format!("expected an unsigned integer, found `{}`", excerpt(&text)),
                }),
        }
    }

    /// Lists the entry names of a directory, sorted. A missing directory gives an empty list.
    /// The directory itself is recorded (so `capture` recreates it); its entries are not,
    /// because a listing is usually filtered: see [`SysRoot::list_prefixed`].
    pub fn list(&self, rel: impl AsRef<Path>) -> Result<Vec<String>, SysError> {
        let rel = rel.as_ref();
        let path = match self.resolve(rel) {
            Ok(p) => p,
            Err(SysError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return Ok(Vec::new())
            }
            Err(e) => return Err(e),
        };
        let rd = match std::fs::read_dir(&path) {
            Ok(rd) => rd,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(SysError::Read {
                    path: self.path(rel),
                    source,
                })
            }
        };
        self.note(rel);
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Lists the entries whose names start with `prefix`, sorted, and records each of them:
    /// `capture` recreates exactly these entries (as directories, files or symlinks), so the
    /// listing replays identically (e.g. the `nodeX` initiator links of HMAT).
    pub fn list_prefixed(
        &self,
        rel: impl AsRef<Path>,
        prefix: &str,
    ) -> Result<Vec<String>, SysError> {
        let rel = rel.as_ref();
        let names: Vec<String> = self
            .list(rel)?
            .into_iter()
            .filter(|n| n.starts_with(prefix))
            .collect();
        for n in &names {
            self.note(&rel.join(n));
        }
        Ok(names)
    }

    /// Lists entries named `<prefix><number>` (e.g. `node0`, `cpu12`) and returns the numbers,
    /// sorted numerically. The matching entries are recorded (see [`SysRoot::list_prefixed`]).
    pub fn list_numbered(&self, rel: impl AsRef<Path>, prefix: &str) -> Result<Vec<u32>, SysError> {
        let rel = rel.as_ref();
        let mut ids = Vec::new();
        for n in self.list(rel)? {
            if let Some(id) = n
                .strip_prefix(prefix)
                .and_then(|rest| rest.parse::<u32>().ok())
            {
                self.note(&rel.join(&n));
                ids.push(id);
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }

    /// True when `rel` exists under the root (for a snapshot: reachable without leaving it).
    pub fn exists(&self, rel: impl AsRef<Path>) -> bool {
        self.resolve(rel).is_ok_and(|p| p.exists())
    }

    /// Like [`SysRoot::exists`], but a path that leads out of a snapshot is an error rather
    /// than "absent", for the checks whose answer changes what is read next (a node directory
    /// linked out of the snapshot must not pass for a kernel without NUMA).
    pub fn try_exists(&self, rel: impl AsRef<Path>) -> Result<bool, SysError> {
        match self.resolve(rel) {
            Ok(p) => Ok(p.exists()),
            Err(SysError::Read { source, .. })
                if source.kind() == io::ErrorKind::NotFound
                    || source.kind() == io::ErrorKind::NotADirectory =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Writes a kernel tunable (e.g. a weighted-interleave weight). Refused on a snapshot.
    pub fn write(&self, rel: impl AsRef<Path>, content: &str) -> Result<(), SysError> {
        self.require_live("change kernel settings")?;
        let path = self.path(rel);
        std::fs::write(&path, content).map_err(|source| SysError::Write { path, source })
    }

    /// The relative paths read so far, for `capture`.
    pub fn recorded(&self) -> Vec<PathBuf> {
        self.record
            .lock()
            .map(|r| r.iter().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_root_reads_relative_and_records() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sys/devices/system/node/node2")).unwrap();
        std::fs::write(
            dir.path().join("sys/devices/system/node/node2/cpulist"),
            "0-1\n",
        )
        .unwrap();
        let root = SysRoot::snapshot(dir.path()).unwrap();
        assert!(!root.is_live());
        assert_eq!(
            root.read("sys/devices/system/node/node2/cpulist").unwrap(),
            "0-1\n"
        );
        assert_eq!(
            root.list_numbered("sys/devices/system/node", "node")
                .unwrap(),
            vec![2]
        );
        assert!(root.read_opt("sys/missing").unwrap().is_none());
        assert_eq!(
            root.recorded(),
            vec![
                PathBuf::from("sys/devices/system/node"),
                PathBuf::from("sys/devices/system/node/node2"),
                PathBuf::from("sys/devices/system/node/node2/cpulist")
            ]
        );
        let e = root.require_live("bind memory").unwrap_err().to_string();
        assert!(e.contains("snapshot"), "{e}");
    }

    #[test]
    fn bad_roots_are_named() {
        let e = SysRoot::snapshot(Path::new("/nonexistent/xyz"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/nonexistent/xyz") && e.contains("does not exist"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = SysRoot::snapshot(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a snapshot"), "{e}");
    }

    /// A snapshot with a node0 directory, for the sealing tests.
    fn sealed() -> (tempfile::TempDir, SysRoot) {
        let dir = tempfile::tempdir().unwrap();
        let n = dir.path().join("snap/sys/devices/system/node/node0");
        std::fs::create_dir_all(&n).unwrap();
        std::fs::write(n.join("cpulist"), "0-1\n").unwrap();
        let root = SysRoot::snapshot(&dir.path().join("snap")).unwrap();
        (dir, root)
    }

    #[test]
    fn links_inside_the_snapshot_are_followed_from_its_root() {
        let (d, root) = sealed();
        let s = d.path().join("snap");
        let cpu = s.join("sys/devices/system/cpu/cpu0");
        std::fs::create_dir_all(&cpu).unwrap();
        std::os::unix::fs::symlink("../../node/node0", cpu.join("node0")).unwrap();
        // An absolute link naming a place inside the root is read inside it.
        std::os::unix::fs::symlink(
            s.join("sys/devices/system/node/node0/cpulist"),
            cpu.join("abs"),
        )
        .unwrap();
        assert_eq!(
            root.read("sys/devices/system/cpu/cpu0/node0/cpulist")
                .unwrap(),
            "0-1\n"
        );
        assert_eq!(
            root.read("sys/devices/system/cpu/cpu0/abs").unwrap(),
            "0-1\n"
        );
        assert_eq!(
            root.list("sys/devices/system/cpu/cpu0/node0").unwrap(),
            vec!["cpulist".to_string()]
        );
    }

    #[test]
    fn links_out_of_the_snapshot_are_refused_not_followed() {
        let (d, root) = sealed();
        let s = d.path().join("snap");
        let secret = d.path().join("secret");
        std::fs::write(&secret, "SECRET-MARKER\n").unwrap();
        let n = s.join("sys/devices/system/node/node0");
        std::os::unix::fs::symlink(&secret, n.join("meminfo")).unwrap();
        std::os::unix::fs::symlink("../../../../../../secret", n.join("distance")).unwrap();
        std::os::unix::fs::symlink("/proc", s.join("proc")).unwrap();
        std::os::unix::fs::symlink("loop", n.join("loop")).unwrap();
        for rel in [
            "sys/devices/system/node/node0/meminfo",
            "sys/devices/system/node/node0/distance",
            "proc/self/status",
            "sys/devices/system/node/node0/loop",
        ] {
            let e = root.read_opt(rel).unwrap_err().to_string();
            assert!(e.contains("is refused") && !e.contains("SECRET"), "{e}");
        }
        assert!(!root.exists("proc/self"));
        assert!(root.list("proc").is_err());
        let e = root.read("sys/devices/system/node/node0/meminfo");
        assert!(e.unwrap_err().to_string().contains("outside the snapshot"));
        // `..` that stays inside is fine; climbing above the root is not.
        assert!(root
            .read("sys/devices/system/node/../node/node0/cpulist")
            .is_ok());
        assert!(root.read("../secret").is_err());
        assert!(root.recorded().iter().all(|p| !p.ends_with("meminfo")));
    }

    #[test]
    fn special_and_huge_files_are_refused() {
        let (d, root) = sealed();
        let n = d.path().join("snap/sys/devices/system/node/node0");
        let made = std::process::Command::new("mkfifo")
            .arg(n.join("fifo"))
            .status()
            .unwrap();
        assert!(made.success());
        let e = root
            .read_opt("sys/devices/system/node/node0/fifo")
            .unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let f = std::fs::File::create(n.join("huge")).unwrap();
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = root
            .read_opt("sys/devices/system/node/node0/huge")
            .unwrap_err();
        assert!(e.to_string().contains("larger than 4 MiB"), "{e}");
        std::fs::write(n.join("long"), "x".repeat(1000)).unwrap();
        let e = root
            .read_u64("sys/devices/system/node/node0/long")
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200, "{e}");
    }
}
