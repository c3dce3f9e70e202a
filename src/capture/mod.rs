//! `capture`: copy exactly the /sys and /proc files numascope reads into a snapshot that
//! replays with `--sysfs-root`. The topology and environment are read once through the
//! recording [`SysRoot`]; every file it read is copied *by reading it* (sysfs reports 4096-byte
//! stat sizes whatever the content), every directory it listed is recreated, and the entries
//! it used from a listing are recreated as they were: directories as directories, links (such
//! as HMAT's `initiators/nodeX`) as links. Output goes to a temporary sibling first and is
//! renamed into place, so a failure never leaves a half-written snapshot.
//!
//! The same module unpacks a `.tar.gz` snapshot for `--sysfs-root` (an hwloc XML is read into
//! memory by `topology::xml` instead, and has no files to capture).

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context as _};

use crate::environment::read_environment;
use crate::sys::safe_read::excerpt;
use crate::sysroot::{SysError, SysRoot};
use crate::topology::read_topology;

mod archive;

pub use archive::{unpack_capped, UnpackLimits, Unpacked};

/// What a capture wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureSummary {
    pub files: usize,
    pub dirs: usize,
    pub links: usize,
}

/// One entry of a snapshot, relative to its root.
enum Entry {
    Dir(PathBuf),
    File(PathBuf, Vec<u8>),
    Link(PathBuf, PathBuf),
}

/// Companion files hwloc's Linux backend needs beside the ones numascope reads, so a snapshot
/// also replays with `HWLOC_FSROOT` (lstopo): hex masks of the per-CPU topology, node and
/// cache sharing, and the CPU-level online/possible lists. Keyed by the numascope file they
/// accompany; each is copied only when it exists.
const HWLOC_COMPANIONS: &[(&str, &[&str])] = &[
    (
        "thread_siblings_list",
        &[
            "thread_siblings",
            "core_siblings",
            "core_siblings_list",
            "core_cpus",
            "core_cpus_list",
            "package_cpus",
            "package_cpus_list",
            "die_id",
            "die_cpus",
            "die_cpus_list",
            "cluster_id",
            "cluster_cpus",
            "cluster_cpus_list",
        ],
    ),
    ("cpulist", &["cpumap"]),
    (
        "shared_cpu_list",
        &[
            "shared_cpu_map",
            "physical_line_partition",
            "number_of_sets",
            "id",
        ],
    ),
    ("present", &["possible", "kernel_max", "offline"]),
];

/// Reads (and so records) the hwloc companions of every file read so far.
fn read_hwloc_companions(root: &SysRoot) -> anyhow::Result<()> {
    for rel in root.recorded() {
        let Some(name) = rel.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        for (key, extra) in HWLOC_COMPANIONS {
            if name == *key {
                for e in *extra {
                    root.read_bytes_opt(rel.with_file_name(e))?;
                }
            }
        }
        // Per-CPU online flags: hwloc checks cpuN/online for every CPU directory.
        if name == "topology" || rel.parent().is_some_and(|p| p.ends_with("topology")) {
            if let Some(cpu_dir) = rel.ancestors().find(|a| {
                a.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("cpu") && n[3..].parse::<u32>().is_ok())
            }) {
                root.read_bytes_opt(cpu_dir.join("online"))?;
            }
        }
    }
    Ok(())
}

/// Reads the topology through `root` and writes the files it read to `out` (a directory, or a
/// gzip-compressed tar archive when `out` ends with `.tar.gz`). Refuses an existing `out`.
/// With `for_hwloc`, also copies the companion files hwloc needs to replay the snapshot.
pub fn capture(root: &SysRoot, out: &Path, for_hwloc: bool) -> anyhow::Result<CaptureSummary> {
    if fs::symlink_metadata(out).is_ok() {
        bail!(
            "{} already exists; remove it or choose another name, capture never overwrites",
            out.display()
        );
    }
    if root.is_hwloc_xml() {
        bail!(
            "--sysfs-root {}: an hwloc XML holds no kernel files to capture; give it to --sysfs-root itself",
            root.root().display()
        );
    }
    let topo = read_topology(root)?;
    // The environment reader is part of the topology read; reading it again is harmless and
    // keeps capture complete should the two ever be read separately.
    read_environment(root, &topo.cpus)?;
    if for_hwloc {
        read_hwloc_companions(root)?;
    }
    let entries = collect(root)?;
    let summary = CaptureSummary {
        files: entries
            .iter()
            .filter(|e| matches!(e, Entry::File(..)))
            .count(),
        dirs: entries
            .iter()
            .filter(|e| matches!(e, Entry::Dir(..)))
            .count(),
        links: entries
            .iter()
            .filter(|e| matches!(e, Entry::Link(..)))
            .count(),
    };
    let tmp = temp_sibling(out)?;
    let result = if is_tar_gz(out) {
        write_tar_gz(&entries, &tmp)
    } else {
        write_dir(&entries, &tmp)
    };
    // Never over anything planted at `out` since the check above.
    let renamed = |()| crate::sys::files::rename_noreplace(&tmp, out).map_err(anyhow::Error::from);
    if let Err(e) = result.and_then(renamed) {
        let _ = fs::remove_dir_all(&tmp).or_else(|_| fs::remove_file(&tmp));
        return Err(e.context(format!("cannot write the snapshot {}", out.display())));
    }
    Ok(summary)
}

/// True for names ending in `.tar.gz` (or `.tgz`), in any letter case (`K.TAR.GZ` too).
pub fn is_tar_gz(p: &Path) -> bool {
    let s = p.to_string_lossy().to_ascii_lowercase();
    s.ends_with(".tar.gz") || s.ends_with(".tgz")
}

/// True when a link at `rel` (relative to a snapshot root) pointing to `target` stays inside
/// the root: a relative target whose `..` never climbs above the root.
fn link_stays_inside(rel: &Path, target: &Path) -> bool {
    if target.is_absolute() {
        return false;
    }
    let mut depth = rel.parent().map_or(0, |p| {
        p.components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count()
    });
    for c in target.components() {
        match c {
            Component::ParentDir => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
            }
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    true
}

/// Turns the recorded paths into snapshot entries, reading file contents now. Every path is
/// looked up through the root, so a snapshot being re-captured is read only inside itself;
/// a link that would lead out of the new snapshot is refused rather than copied.
fn collect(root: &SysRoot) -> anyhow::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for rel in root.recorded() {
        let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
            continue;
        };
        let parent_real = match root.resolve(parent) {
            Ok(p) => p,
            Err(SysError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                continue
            }
            Err(e) => return Err(e.into()),
        };
        let src = parent_real.join(name);
        let meta = match fs::symlink_metadata(&src) {
            Ok(m) => m,
            // Vanished between the read and now (a process's /proc entry): skip it.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot stat {}", src.display())),
        };
        if meta.file_type().is_symlink() {
            // A link to a file was read through: copy the content. A link to a directory, or
            // a dangling one (`cpuN/nodeM` of an offline node), is kept as a link.
            let followed_file = match root.resolve(&rel) {
                Ok(p) => fs::metadata(p).map(|m| m.is_file()).unwrap_or(false),
                Err(SysError::Read { .. }) => false,
                Err(e) => return Err(e.into()),
            };
            if !followed_file {
                let target = fs::read_link(&src)
                    .with_context(|| format!("cannot read the link {}", src.display()))?;
                if !link_stays_inside(&rel, &target) {
                    bail!(
                        "{} is a symbolic link to `{}`, which leads out of the snapshot; capture refuses to write such a link (replace it by what it should hold)",
                        root.path(&rel).display(),
                        excerpt(&target.to_string_lossy())
                    );
                }
                out.push(Entry::Link(rel, target));
                continue;
            }
        } else if meta.is_dir() {
            out.push(Entry::Dir(rel));
            continue;
        }
        let bytes = root
            .read_bytes_opt(&rel)?
            .with_context(|| format!("{} vanished during capture", src.display()))?;
        out.push(Entry::File(rel, bytes));
    }
    Ok(out)
}

fn temp_sibling(out: &Path) -> anyhow::Result<PathBuf> {
    let name = out.file_name().with_context(|| {
        format!(
            "{} has no file name; give a path like snap/ or snap.tar.gz",
            out.display()
        )
    })?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        bail!(
            "the directory {} does not exist; create it first",
            parent.display()
        );
    }
    // An unpredictable name, created exclusively by write_dir (create_dir) or write_tar_gz
    // (create_new), so nobody can plant a link there beforehand.
    Ok(parent.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        crate::sys::files::random_name_part()?
    )))
}

fn write_dir(entries: &[Entry], dir: &Path) -> anyhow::Result<()> {
    fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for e in entries {
        match e {
            Entry::Dir(rel) => fs::create_dir_all(dir.join(rel))?,
            Entry::File(rel, bytes) => {
                let p = dir.join(rel);
                if let Some(parent) = p.parent() {
                    fs::create_dir_all(parent)?;
                }
                fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
            }
            Entry::Link(rel, target) => {
                let p = dir.join(rel);
                if let Some(parent) = p.parent() {
                    fs::create_dir_all(parent)?;
                }
                std::os::unix::fs::symlink(target, &p)
                    .with_context(|| format!("cannot create the link {}", p.display()))?;
            }
        }
    }
    Ok(())
}

fn write_tar_gz(entries: &[Entry], file: &Path) -> anyhow::Result<()> {
    let f =
        fs::File::create_new(file).with_context(|| format!("cannot create {}", file.display()))?;
    let gz = flate2::write::GzEncoder::new(f, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let mut dirs_done = std::collections::BTreeSet::new();
    let mut add_parents = |tar: &mut tar::Builder<_>, rel: &Path| -> io::Result<()> {
        let mut parents: Vec<&Path> = rel
            .ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        parents.reverse();
        for p in parents {
            if dirs_done.insert(p.to_path_buf()) {
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Directory);
                h.set_mode(0o755);
                h.set_size(0);
                tar.append_data(&mut h, p, io::empty())?;
            }
        }
        Ok(())
    };
    for e in entries {
        match e {
            Entry::Dir(rel) => {
                add_parents(&mut tar, &rel.join("x"))?;
            }
            Entry::File(rel, bytes) => {
                add_parents(&mut tar, rel)?;
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Regular);
                h.set_mode(0o644);
                h.set_size(bytes.len() as u64);
                tar.append_data(&mut h, rel, bytes.as_slice())?;
            }
            Entry::Link(rel, target) => {
                add_parents(&mut tar, rel)?;
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_mode(0o777);
                h.set_size(0);
                tar.append_link(&mut h, rel, target)?;
            }
        }
    }
    let gz = tar.into_inner()?;
    gz.finish()?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gzip-compressed tar of raw 512-byte headers (and data), built by hand so a header can
    /// declare a size its data does not have.
    fn gz(parts: &[(tar::Header, &[u8])]) -> Vec<u8> {
        use std::io::Write as _;
        let mut raw = Vec::new();
        for (h, data) in parts {
            raw.extend_from_slice(h.as_bytes());
            raw.extend_from_slice(data);
            raw.resize(raw.len().div_ceil(512) * 512, 0);
        }
        raw.extend_from_slice(&[0u8; 1024]);
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&raw).unwrap();
        e.finish().unwrap()
    }

    fn header(path: &str, kind: tar::EntryType, size: u64, link: Option<&str>) -> tar::Header {
        let mut h = tar::Header::new_gnu();
        h.set_path(path).unwrap();
        h.set_entry_type(kind);
        h.set_size(size);
        h.set_mode(0o644);
        if let Some(l) = link {
            h.set_link_name(l).unwrap();
        }
        h.set_cksum();
        h
    }

    #[test]
    fn archives_unpack_within_their_limits_and_links_stay_inside() {
        let ok = gz(&[
            (header("sys/a", tar::EntryType::Regular, 3, None), b"abc"),
            (header("sys/b", tar::EntryType::Symlink, 0, Some("a")), b""),
        ]);
        let d = tempfile::tempdir().unwrap();
        unpack_capped(ok.as_slice(), d.path(), UnpackLimits::default()).unwrap();
        assert_eq!(fs::read(d.path().join("sys/b")).unwrap(), b"abc");

        for (bytes, want) in [
            (
                gz(&[(
                    header("sys/x", tar::EntryType::Symlink, 0, Some("/etc/hostname")),
                    b"",
                )]),
                "outside the snapshot",
            ),
            (
                gz(&[(
                    header("sys/x", tar::EntryType::Symlink, 0, Some("../../etc")),
                    b"",
                )]),
                "outside the snapshot",
            ),
            // Declares 1 TiB and carries nothing: refused from the header alone.
            (
                gz(&[(
                    header("sys/big", tar::EntryType::Regular, 1 << 40, None),
                    b"",
                )]),
                "more than the",
            ),
            (
                gz(&[(header("sys/fifo", tar::EntryType::Fifo, 0, None), b"")]),
                "a snapshot holds only",
            ),
        ] {
            let d = tempfile::tempdir().unwrap();
            let e = unpack_capped(bytes.as_slice(), d.path(), UnpackLimits::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
            assert!(fs::symlink_metadata(d.path().join("sys/x")).is_err());
            assert!(fs::symlink_metadata(d.path().join("sys/big")).is_err());
        }
        // The total is capped as well as each member.
        let two = gz(&[
            (header("a", tar::EntryType::Regular, 3, None), b"abc"),
            (header("b", tar::EntryType::Regular, 3, None), b"def"),
        ]);
        let limits = UnpackLimits {
            member_bytes: 4,
            total_bytes: 5,
            members: 10,
        };
        let d = tempfile::tempdir().unwrap();
        let e = unpack_capped(two.as_slice(), d.path(), limits).unwrap_err();
        assert!(e.to_string().contains("add up to more than 5"), "{e}");
        let e = unpack_capped(
            two.as_slice(),
            d.path(),
            UnpackLimits {
                members: 1,
                ..limits
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("more than 1 members"), "{e}");
    }

    #[test]
    fn a_stream_that_inflates_past_the_cap_is_refused() {
        // A GNU long name of 20 MiB (beyond the 16 MiB allowed for the format's own data):
        // the tar crate would read it whole into memory before any member.
        let big = vec![b'a'; 20 << 20];
        let bytes = gz(&[(
            header("x", tar::EntryType::GNULongName, big.len() as u64, None),
            big.as_slice(),
        )]);
        assert!(bytes.len() < 1 << 20, "the gzip file itself is small");
        let d = tempfile::tempdir().unwrap();
        let limits = UnpackLimits {
            member_bytes: 1 << 20,
            total_bytes: 0,
            members: 10,
        };
        let e = unpack_capped(bytes.as_slice(), d.path(), limits).unwrap_err();
        let chain = format!("{e:#}");
        assert!(chain.contains("decompresses to more than"), "{chain}");
    }

    #[test]
    fn archive_names_are_recognised_in_any_case() {
        assert!(is_tar_gz(Path::new("k.TAR.GZ")));
        assert!(is_tar_gz(Path::new("k.Tgz")));
        assert!(!is_tar_gz(Path::new("k.tar")));
    }

    #[test]
    fn links_are_judged_from_where_they_are() {
        assert!(link_stays_inside(
            Path::new("sys/devices/system/cpu/cpu0/node0"),
            Path::new("../../node/node0")
        ));
        assert!(!link_stays_inside(Path::new("sys/x"), Path::new("../../x")));
        assert!(!link_stays_inside(Path::new("proc"), Path::new("/proc")));
    }
}
