//! Hostile input: snapshots with symbolic links out of themselves, archives with
//! escaping links and oversized members, FIFOs and devices where files belong, and outputs
//! aimed at inputs. Each case must end (a FIFO must not block: every command runs under a
//! generous timeout that only a hang reaches), exit 2 with one sentence
//! `numascope: error: ...` on stderr, never show a secret it was pointed at, and write
//! nothing outside its output location. The marker string below stands in for a secret such
//! as /etc/shadow: it lives in a temporary file outside every snapshot.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

const SECRET: &str = "HOSTILE-INPUT-SECRET-MARKER-7f3a";
const NODE0: &str = "sys/devices/system/node/node0";

/// A private copy of a small fixture and a secret file beside it (outside the snapshot).
struct Scene {
    tmp: tempfile::TempDir,
    snap: PathBuf,
    secret: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let tmp = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/topology/edge-cgroup-restricted");
        let snap = tmp.path().join("snap");
        let ok = std::process::Command::new("cp")
            .arg("-a")
            .arg(&src)
            .arg(&snap)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let secret = tmp.path().join("secret.txt");
        std::fs::write(&secret, format!("{SECRET}\n{SECRET}:x:0:0\n")).unwrap();
        Scene { tmp, snap, secret }
    }

    /// Replaces `rel` in the snapshot by a symbolic link to `target`.
    fn link(&self, rel: &str, target: &Path) {
        let p = self.snap.join(rel);
        if p.is_dir() && !p.is_symlink() {
            std::fs::remove_dir_all(&p).unwrap();
        } else {
            let _ = std::fs::remove_file(&p);
        }
        std::os::unix::fs::symlink(target, &p).unwrap();
    }

    /// Makes a FIFO at `rel` in the snapshot (replacing a file).
    fn fifo(&self, rel: &str) -> PathBuf {
        let p = self.snap.join(rel);
        let _ = std::fs::remove_file(&p);
        mkfifo(&p);
        p
    }

    /// Every file under the scene's directory must be free of the secret, except the secret.
    fn assert_secret_not_copied(&self) {
        for f in walk(self.tmp.path()) {
            if f == self.secret {
                continue;
            }
            let meta = std::fs::symlink_metadata(&f).unwrap();
            if meta.is_file() {
                let bytes = std::fs::read(&f).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(SECRET),
                    "{} holds the secret",
                    f.display()
                );
            }
        }
    }
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let t = std::fs::symlink_metadata(&p).unwrap().file_type();
            if t.is_dir() {
                todo.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

/// `numascope ARGS` under a timeout that only a hang reaches.
fn numascope(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    out
}

/// Checks a refusal: exit 2, one line `numascope: error: ...` containing `needle`, and the
/// secret in neither stream. Returns stderr.
fn refused(out: &std::process::Output, needle: &str) -> String {
    refused_with(out, needle, 2)
}

/// [`refused`] with another exit status (3: the environment refused).
fn refused_with(out: &std::process::Output, needle: &str, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.starts_with("numascope: error: "), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.contains(needle), "`{needle}` not in: {err}");
    assert!(!err.contains(SECRET) && !stdout.contains(SECRET), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn topo(root: &Path) -> std::process::Output {
    numascope(&["--sysfs-root".as_ref(), root.as_os_str(), "topo".as_ref()])
}

#[test]
fn a_file_linked_out_of_the_snapshot_is_refused_not_read() {
    let s = Scene::new();
    s.link(&format!("{NODE0}/meminfo"), &s.secret);
    let err = refused(&topo(&s.snap), "node0/meminfo");
    assert!(err.contains("outside the snapshot"), "{err}");
    // The same through a relative link climbing out with `..`.
    let s = Scene::new();
    s.link(
        &format!("{NODE0}/meminfo"),
        Path::new("../../../../../../secret.txt"),
    );
    let err = refused(&topo(&s.snap), "node0/meminfo");
    assert!(err.contains("climbs out of the snapshot"), "{err}");
    // `latency` and `capture` on such a snapshot refuse too, and show nothing of the secret.
    let s = Scene::new();
    s.link(&format!("{NODE0}/meminfo"), &s.secret);
    let out = numascope(&[
        "--sysfs-root".as_ref(),
        s.snap.as_os_str(),
        "latency".as_ref(),
    ]);
    refused_with(&out, "snapshot", 3);
    let copy = s.tmp.path().join("copy");
    let out = numascope(&[
        "--sysfs-root".as_ref(),
        s.snap.as_os_str(),
        "capture".as_ref(),
        copy.as_os_str(),
    ]);
    refused(&out, "outside the snapshot");
    assert!(!copy.exists());
    s.assert_secret_not_copied();
}

#[test]
fn a_directory_linked_out_of_the_snapshot_is_refused() {
    // `proc -> /proc` would make a "snapshot" read the live machine.
    let s = Scene::new();
    s.link("proc", Path::new("/proc"));
    refused(&topo(&s.snap), "outside the snapshot");
    // The whole node directory linked out must not pass for a kernel without NUMA.
    let s = Scene::new();
    s.link("sys/devices/system/node", s.tmp.path());
    refused(&topo(&s.snap), "outside the snapshot");
    // A node directory linked to a directory holding the secret.
    let s = Scene::new();
    let outside = s.tmp.path().join("outside-node");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&s.secret, outside.join("meminfo")).unwrap();
    std::fs::write(outside.join("cpulist"), "0-3\n").unwrap();
    s.link(NODE0, &outside);
    refused(&topo(&s.snap), "outside the snapshot");
    s.assert_secret_not_copied();
}

#[test]
fn capture_of_a_snapshot_never_copies_a_file_from_outside_it() {
    for rel in ["proc/cpuinfo", "proc/self/status"] {
        let s = Scene::new();
        s.link(rel, &s.secret);
        let out_dir = s.tmp.path().join("out");
        let out = numascope(&[
            "--sysfs-root".as_ref(),
            s.snap.as_os_str(),
            "capture".as_ref(),
            out_dir.as_os_str(),
        ]);
        refused(&out, rel);
        assert!(!out_dir.exists(), "nothing written on refusal");
        s.assert_secret_not_copied();
        let names: Vec<String> = std::fs::read_dir(s.tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| !n.contains("partial")),
            "a temporary capture was left: {names:?}"
        );
    }
}

#[test]
fn a_fifo_in_a_snapshot_is_refused_without_blocking() {
    let s = Scene::new();
    s.fifo(&format!("{NODE0}/meminfo"));
    let err = refused(&topo(&s.snap), "node0/meminfo");
    assert!(err.contains("FIFO"), "{err}");
    // An optional file is no different: refused by type, never opened for a blocking read.
    let s = Scene::new();
    s.fifo("proc/cpuinfo");
    refused(&topo(&s.snap), "FIFO");
}

#[test]
fn an_oversized_sysfs_file_is_refused_before_reading() {
    // A sparse 100 MB cpulist: refused by its size, and the message stays one short line.
    let s = Scene::new();
    let f = std::fs::File::create(s.snap.join(NODE0).join("cpulist")).unwrap();
    f.set_len(100_000_000).unwrap();
    let err = refused(&topo(&s.snap), "node0/cpulist");
    assert!(err.contains("larger than 4 MiB"), "{err}");
    assert!(err.len() < 400, "{err}");
    // A long malformed cpulist is quoted as a short excerpt only.
    let s = Scene::new();
    std::fs::write(
        s.snap.join(NODE0).join("cpulist"),
        format!("0-1,{}", "x".repeat(10_000)),
    )
    .unwrap();
    let err = refused(&topo(&s.snap), "node0/cpulist is malformed");
    assert!(err.len() < 400, "{err}");
    // A list naming absurdly many ids is refused before it is expanded.
    std::fs::write(
        s.snap.join(NODE0).join("cpulist"),
        "0-1000000,1000001-2000000\n",
    )
    .unwrap();
    let err = refused(&topo(&s.snap), "node0/cpulist is malformed");
    assert!(err.contains("more than 65536 ids"), "{err}");
}

/// One archive member: name, kind, declared size, link target, data.
type Member<'a> = (&'a str, tar::EntryType, u64, Option<&'a str>, &'a [u8]);

/// A gzip-compressed tar built from raw headers, so a header can declare a size its data
/// does not have and a link can point anywhere.
fn tar_gz(path: &Path, parts: &[Member]) {
    let mut raw = Vec::new();
    for (name, kind, size, link, data) in parts {
        let mut h = tar::Header::new_gnu();
        h.set_path(name).unwrap();
        h.set_entry_type(*kind);
        h.set_size(*size);
        h.set_mode(0o644);
        if let Some(l) = link {
            h.set_link_name(l).unwrap();
        }
        h.set_cksum();
        raw.extend_from_slice(h.as_bytes());
        raw.extend_from_slice(data);
        raw.resize(raw.len().div_ceil(512) * 512, 0);
    }
    raw.extend_from_slice(&[0u8; 1024]);
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    e.write_all(&raw).unwrap();
    e.finish().unwrap();
}

#[test]
fn archives_with_escaping_links_or_oversized_members_are_refused() {
    let s = Scene::new();
    let secret = s.secret.to_str().unwrap().to_string();
    let cases: Vec<(&str, Vec<Member>, &str)> = vec![
        (
            "abs-link.tar.gz",
            vec![
                (
                    "sys/devices/system/",
                    tar::EntryType::Directory,
                    0,
                    None,
                    b"",
                ),
                ("proc", tar::EntryType::Symlink, 0, Some("/proc"), b""),
            ],
            "outside the snapshot",
        ),
        (
            "file-link.tar.gz",
            vec![(
                "sys/devices/system/node/node0/meminfo",
                tar::EntryType::Symlink,
                0,
                Some(secret.as_str()),
                b"",
            )],
            "outside the snapshot",
        ),
        (
            "climbing-link.tar.gz",
            vec![(
                "sys/x",
                tar::EntryType::Symlink,
                0,
                Some("../../../etc"),
                b"",
            )],
            "outside the snapshot",
        ),
        (
            // Declares 1 GiB, carries 512 bytes: refused from the header, nothing written.
            "bomb.tar.gz",
            vec![(
                "sys/devices/system/cpu/present",
                tar::EntryType::Regular,
                1 << 30,
                None,
                &[b'0'; 512],
            )],
            "more than the 4194304 bytes",
        ),
        (
            "fifo.tar.gz",
            vec![("sys/fifo", tar::EntryType::Fifo, 0, None, b"")],
            "a snapshot holds only files",
        ),
    ];
    // The archive is unpacked under TMPDIR: a private one shows whether anything is left.
    let private_tmp = s.tmp.path().join("tmpdir");
    std::fs::create_dir(&private_tmp).unwrap();
    for (name, parts, needle) in cases {
        let a = s.tmp.path().join(name);
        tar_gz(&a, &parts);
        let out = Command::cargo_bin("numascope")
            .unwrap()
            .env("TMPDIR", &private_tmp)
            .arg("--sysfs-root")
            .arg(&a)
            .arg("topo")
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let err = refused(&out, needle);
        assert!(err.contains(name), "{err}");
        assert_eq!(
            walk(&private_tmp),
            Vec::<PathBuf>::new(),
            "{name}: the unpacked copy was left behind"
        );
    }
    s.assert_secret_not_copied();
}

#[test]
fn an_upper_case_archive_name_is_an_archive() {
    // `capture k.TAR.GZ` writes a gzip archive, not a directory named k.TAR.GZ.
    let s = Scene::new();
    let out = s.tmp.path().join("k.TAR.GZ");
    let o = numascope(&[
        "--sysfs-root".as_ref(),
        s.snap.as_os_str(),
        "capture".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.is_file());
    let magic = std::fs::read(&out).unwrap();
    assert_eq!(&magic[..2], &[0x1f, 0x8b], "gzip magic");
    let o = topo(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn results_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/opteron-2node.json")
}

#[test]
fn report_and_compare_refuse_fifos_and_devices_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("results.json");
    mkfifo(&fifo);
    let good = results_fixture();
    for args in [
        vec!["report".as_ref(), fifo.as_os_str()],
        vec!["report".as_ref(), "/dev/zero".as_ref()],
        vec!["compare".as_ref(), good.as_os_str(), fifo.as_os_str()],
        vec!["compare".as_ref(), "/dev/zero".as_ref(), good.as_os_str()],
    ] {
        let out = numascope(&args);
        let err = refused(&out, "not a regular file");
        assert!(err.contains("cannot read results file"), "{err}");
        assert_eq!(out.stdout, b"", "{args:?}");
    }
    assert_eq!(
        walk(tmp.path()),
        vec![fifo.clone()],
        "nothing written beside the input"
    );
}

#[test]
fn report_never_overwrites_its_input_even_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("good.json");
    std::fs::copy(results_fixture(), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let link = tmp.path().join("alias.html");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    for flag in ["--html", "--hwloc-xml"] {
        for out in [&input, &link] {
            let o = numascope(&[
                "report".as_ref(),
                input.as_os_str(),
                flag.as_ref(),
                out.as_os_str(),
                "--force".as_ref(),
            ]);
            let err = refused(&o, "is the results file being read");
            assert!(err.contains("--force"), "{err}");
        }
    }
    assert_eq!(std::fs::read(&input).unwrap(), before, "input unchanged");
    let mut names: Vec<String> = walk(tmp.path())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec!["alias.html", "good.json"],
        "nothing else written"
    );
}

// Unclear messages: each case names the value, what is wrong and the fix.

fn run_args(args: &[&str]) -> std::process::Output {
    let a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_ref()).collect();
    numascope(&a)
}

#[test]
fn a_number_beyond_every_id_is_too_large_with_the_maximum() {
    for args in [
        &[
            "placement",
            "--policy",
            "bind",
            "--nodes",
            "18446744073709551616",
        ][..],
        &["placement", "--policy", "bind", "--mem-nodes", "4294967296"][..],
        &["bandwidth", "--cpus", "99999999999999999999"][..],
        &["latency", "--cpus", "4294967295"][..],
        &["c2c", "--cpus", "0,18446744073709551616"][..],
    ] {
        let err = refused(&run_args(args), "is too large (max ");
        assert!(!err.contains("not a CPU or node number"), "{err}");
    }
}

#[test]
fn c2c_with_one_cpu_says_it_needs_two() {
    let err = refused(
        &run_args(&["c2c", "--cpus", "0"]),
        "needs at least two CPUs",
    );
    assert!(err.contains("--cpus 0 names one CPU"), "{err}");
    assert!(!err.contains("gives only"), "{err}");
}

#[test]
fn sample_ms_zero_states_a_range_without_zero() {
    let err = refused(&run_args(&["latency", "--sample-ms", "0"]), "--sample-ms 0");
    assert!(err.contains("above 0 and at most 10000 ms"), "{err}");
    assert!(!err.contains("between 0"), "{err}");
}

#[test]
fn a_sweep_too_large_blames_the_sweep_not_size() {
    let err = refused(
        &run_args(&["latency", "--sweep", "4KiB..900TiB"]),
        "--sweep 4KiB..900TiB: its upper bound",
    );
    assert!(!err.contains("--size"), "{err}");
}

#[test]
fn a_huge_cpu_list_argument_gives_a_short_error() {
    // The longest single argument Linux passes is 128 KiB; the message quotes 40 characters.
    let list = format!("{}x", "1,".repeat(60_000));
    for flag in ["--cpus", "--cpu-nodes"] {
        let err = refused(&run_args(&["bandwidth", flag, &list]), flag);
        assert!(err.len() < 300, "{} bytes: {err}", err.len());
        assert!(err.contains("(120001 bytes)"), "{err}");
    }
}

#[test]
fn an_unprivileged_weighted_placement_says_writing_is_denied() {
    let dir = Path::new("/sys/kernel/mm/mempolicy/weighted_interleave");
    let bin = assert_cmd::cargo::cargo_bin("numascope");
    let current: u32 = std::fs::read_to_string(dir.join("node0"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(1);
    // A weight that differs from the one in force, so numascope must write it.
    let weights = format!("0:{}", current % 100 + 1);
    let args = [
        "placement",
        "--policy",
        "weighted",
        "--weights",
        &weights,
        "--size",
        "1MiB",
    ];
    // As root, drop to nobody: root may write the weights, which is not the case tested.
    let mut cmd = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    let out = cmd
        .args(args)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    // Both are the environment refusing (exit status 3): a kernel feature missing, or a
    // permission denied.
    if !dir.exists() {
        refused_with(&out, "Linux 6.9", 3);
        return;
    }
    let err = refused_with(
        &out,
        "cannot write /sys/kernel/mm/mempolicy/weighted_interleave/node0",
        3,
    );
    assert!(err.contains("need root"), "{err}");
    assert!(!err.contains("cannot read"), "{err}");
}

/// True when this test runs as root (the owner of /proc/self is uid 0).
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

#[test]
fn a_failed_write_to_stdout_says_stdout() {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists on Linux");
    // std's Command: assert_cmd's captures stdout. `topo` reads a few files and ends; a
    // snapshot without warnings, so the error is the only line (a live machine may warn, e.g.
    // of a DAMON scheme that can reclaim pages).
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/topology/opteron250-2s"
    );
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("numascope"))
        .args(["topo", "--sysfs-root", fixture])
        .stdout(full)
        .output()
        .unwrap();
    refused(&out, "cannot write the topology to standard output");
}
