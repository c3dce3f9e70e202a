//! Hostile input, links and temporary files. An attacker (`nobody`) plants
//! symbolic and hard links in a mode-1777 directory, where numascope running as root creates
//! its lock, its temporary files and its scratch directory; the victim is a private file
//! (mode 600) of root's. Each case asserts that the victim keeps its mode and its bytes, that
//! nothing but a regular file is ever replaced (a device node, a link), and that what
//! numascope creates for itself is fresh and private. Two outputs naming one file are refused
//! before anything is written.
//!
//! The link cases need root (to plant as another user and to use PID namespaces, where
//! numascope is PID 1 so yesterday's `.NAME.tmp-PID` names are known) and
//! `/proc/sys/fs/protected_symlinks` at 0 (with it on, the kernel itself refuses to follow
//! another user's link in a sticky directory, which would hide the defect); elsewhere they
//! are skipped with a printed reason. Everything lives in temporary directories removed at
//! the end; no process is left behind (every command is waited for).

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VICTIM_BYTES: &str = "root's private data\n";
const NOBODY: u32 = 65534;

/// A mode-1777 directory and a mode-600 victim file outside it.
struct Scene {
    _tmp: tempfile::TempDir,
    /// The world-writable sticky directory.
    sticky: PathBuf,
    victim: PathBuf,
}

impl Scene {
    /// The scene, or `None` (with the reason printed) where the link cases cannot run.
    fn new(case: &str) -> Option<Scene> {
        let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
        if uid != Some(0) {
            println!("skipped {case}: needs root to plant links as another user");
            return None;
        }
        let protected = std::fs::read_to_string("/proc/sys/fs/protected_symlinks")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        if protected != "0" {
            println!(
                "skipped {case}: /proc/sys/fs/protected_symlinks is {protected:?}, not 0; the kernel would refuse the planted link itself (set it to 0 to run this case)"
            );
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        let sticky = tmp.path().join("sticky");
        std::fs::create_dir(&sticky).unwrap();
        std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, VICTIM_BYTES).unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
        Some(Scene {
            _tmp: tmp,
            sticky,
            victim,
        })
    }

    /// [`Scene::new`] for a case that runs numascope as PID 1 of its own PID namespace:
    /// `None` (with the reason printed) where `unshare` cannot make one.
    fn with_pid_namespace(case: &str) -> Option<Scene> {
        let s = Scene::new(case)?;
        let ok = Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc", "true"])
            .status()
            .is_ok_and(|st| st.success());
        if !ok {
            println!("skipped {case}: `unshare --pid --fork --mount-proc` is not possible here");
            return None;
        }
        Some(s)
    }

    /// A symbolic link `name` in the sticky directory to the victim, owned by nobody.
    fn plant_symlink(&self, rel: &str) -> PathBuf {
        let p = self.sticky.join(rel);
        std::os::unix::fs::symlink(&self.victim, &p).unwrap();
        std::os::unix::fs::lchown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
        p
    }

    /// A directory in the sticky directory owned by nobody, mode 777.
    fn plant_dir(&self, rel: &str) -> PathBuf {
        let p = self.sticky.join(rel);
        std::fs::create_dir(&p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::os::unix::fs::lchown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
        p
    }

    fn assert_victim_untouched(&self) {
        let m = std::fs::metadata(&self.victim).unwrap();
        assert_eq!(
            m.permissions().mode() & 0o7777,
            0o600,
            "the victim's mode was changed"
        );
        assert_eq!(
            std::fs::read_to_string(&self.victim).unwrap(),
            VICTIM_BYTES,
            "the victim was written"
        );
    }
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("numascope")
}

/// Runs numascope as PID 1 of a new PID namespace (`unshare --pid --fork --mount-proc`).
fn as_pid_one(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new("unshare");
    c.args(["--pid", "--fork", "--mount-proc"])
        .arg(bin())
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn results_fixture() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/this-machine-kvm-2cpu.json"
    )
    .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `run --only topology` (no measurement, but it takes the host's measuring lock) with the
/// lock directory `lock_dir` and the output `out`.
fn run_topology(lock_dir: &Path, out: &Path) -> Output {
    Command::new(bin())
        .args(["run", "--only", "topology", "--wait-lock", "0s", "--output"])
        .arg(out)
        .env("NUMASCOPE_LOCK_DIR", lock_dir)
        .output()
        .unwrap()
}

#[test]
fn a_lock_symlinked_to_a_victim_is_not_opened_through() {
    let Some(s) = Scene::new("lock symlink") else {
        return;
    };
    s.plant_symlink("numascope.lock");
    let out = run_topology(&s.sticky, &s._tmp.path().join("out"));
    s.assert_victim_untouched();
    assert_ne!(out.status.code(), Some(0), "ran with a planted lock link");
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
}

#[test]
fn a_lock_hard_linked_to_a_victim_is_neither_chmodded_nor_emptied() {
    let Some(s) = Scene::new("lock hard link") else {
        return;
    };
    std::fs::hard_link(&s.victim, s.sticky.join("numascope.lock")).unwrap();
    let out = run_topology(&s.sticky, &s._tmp.path().join("out"));
    s.assert_victim_untouched();
    assert_ne!(out.status.code(), Some(0), "ran with a hard-linked lock");
    assert!(stderr(&out).contains("hard link"), "{}", stderr(&out));
}

#[test]
fn a_lock_owned_by_another_user_is_refused_and_not_chmodded() {
    let Some(s) = Scene::new("foreign lock") else {
        return;
    };
    let lock = s.sticky.join("numascope.lock");
    std::fs::write(&lock, "").unwrap();
    std::fs::set_permissions(&lock, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::lchown(&lock, Some(NOBODY), Some(NOBODY)).unwrap();
    let out = run_topology(&s.sticky, &s._tmp.path().join("out"));
    let m = std::fs::metadata(&lock).unwrap();
    assert_eq!(
        m.permissions().mode() & 0o777,
        0o600,
        "the lock was chmodded"
    );
    assert_eq!(m.len(), 0, "the lock was written");
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("belongs to user"), "{}", stderr(&out));
}

#[test]
fn a_huge_lock_file_names_its_holder_from_its_first_bytes() {
    let Some(s) = Scene::new("huge lock") else {
        return;
    };
    // A 1 GiB sparse lock file that another open file holds, the holder's PID first.
    let lock = s.sticky.join("numascope.lock");
    let mut f = std::fs::File::create(&lock).unwrap();
    std::io::Write::write_all(&mut f, b"4242\n").unwrap();
    f.set_len(1 << 30).unwrap();
    let holder = std::fs::File::open(&lock).unwrap();
    // SAFETY: flock on a descriptor this test owns and keeps open until the end.
    let rc = unsafe {
        libc::flock(
            std::os::unix::io::AsRawFd::as_raw_fd(&holder),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    assert_eq!(rc, 0);
    // Under a 1 GiB address-space limit, a whole read of the 1 GiB file cannot succeed.
    let out = Command::new("prlimit")
        .arg("--as=1073741824")
        .arg("--")
        .arg(bin())
        .args(["run", "--only", "topology", "--wait-lock", "0s", "--output"])
        .arg(s._tmp.path().join("out"))
        .env("NUMASCOPE_LOCK_DIR", &s.sticky)
        .output()
        .unwrap();
    drop(holder);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("PID 4242"), "{}", stderr(&out));
    assert_eq!(std::fs::metadata(&lock).unwrap().len(), 1 << 30);
}

#[test]
fn the_atomic_writers_temporary_name_is_not_predictable_nor_followed() {
    let Some(s) = Scene::with_pid_namespace("report temporary name") else {
        return;
    };
    // Yesterday's name for PID 1, and today's would-be guesses, all planted.
    s.plant_symlink(".out.html.tmp-1");
    let out_html = s.sticky.join("out.html");
    let fixture = results_fixture();
    let out = as_pid_one(
        &["report", &fixture, "--html", out_html.to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    s.assert_victim_untouched();
    let m = std::fs::symlink_metadata(&out_html).unwrap();
    assert!(m.file_type().is_file(), "out.html is not a regular file");
    assert!(std::fs::read_to_string(&out_html)
        .unwrap()
        .contains("<html"));
}

#[test]
fn run_force_writes_no_file_through_a_planted_temporary_name() {
    let Some(s) = Scene::with_pid_namespace("run --force temporary names") else {
        return;
    };
    let dir = s.plant_dir("res");
    for name in ["results.json", "summary.txt", "report.html"] {
        s.plant_symlink(&format!("res/.{name}.tmp-1"));
    }
    let locks = tempfile::tempdir().unwrap();
    let out = as_pid_one(
        &[
            "run",
            "--only",
            "topology",
            "--force",
            "--output",
            dir.to_str().unwrap(),
        ],
        &[("NUMASCOPE_LOCK_DIR", locks.path())],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    s.assert_victim_untouched();
    assert!(std::fs::symlink_metadata(dir.join("results.json"))
        .unwrap()
        .is_file());
}

#[test]
fn report_html_never_replaces_a_device_node() {
    let Some(s) = Scene::new("report over a device") else {
        return;
    };
    // A private stand-in for /dev/null: the same character device 1:3.
    let null = s.sticky.join("null");
    let ok = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .unwrap()
        .success();
    assert!(ok, "mknod failed");
    let out = Command::new(bin())
        .args(["report", &results_fixture(), "--force", "--html"])
        .arg(&null)
        .output()
        .unwrap();
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::symlink_metadata(&null).unwrap();
    assert!(
        m.file_type().is_char_device(),
        "the device node was replaced"
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("character device"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_dir(&s.sticky).unwrap().count(),
        1,
        "left files"
    );
}

#[test]
fn report_html_never_replaces_a_symbolic_link() {
    let Some(s) = Scene::new("report over a link") else {
        return;
    };
    let link = s.plant_symlink("out.html");
    let out = Command::new(bin())
        .args(["report", &results_fixture(), "--force", "--html"])
        .arg(&link)
        .output()
        .unwrap();
    s.assert_victim_untouched();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
}

/// `app` with `TMPDIR` set, as PID 1 of its own PID namespace.
fn app(tmpdir: &Path, program: &[&str]) -> Output {
    let mut args = vec![
        "app",
        "--candidates",
        "default",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--",
    ];
    args.extend_from_slice(program);
    as_pid_one(&args, &[("TMPDIR", tmpdir)])
}

#[test]
fn app_never_reuses_a_planted_scratch_directory() {
    let Some(s) = Scene::with_pid_namespace("app scratch reuse") else {
        return;
    };
    let planted = s.plant_dir("numascope-app-1");
    for ext in ["stdout", "stderr"] {
        let p = planted.join(format!("default-round1.{ext}"));
        std::os::unix::fs::symlink(&s.victim, &p).unwrap();
        std::os::unix::fs::lchown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let out = app(
        &s.sticky,
        &["sh", "-c", "echo OWNED; echo OWNED >&2; exit 1"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    s.assert_victim_untouched();
    // The kept output is in a fresh directory of numascope's own.
    let fresh: Vec<PathBuf> = std::fs::read_dir(&s.sticky)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p != &planted)
        .collect();
    assert_eq!(fresh.len(), 1, "{fresh:?}");
}

#[test]
fn app_keeps_a_failed_runs_output_private() {
    let Some(s) = Scene::with_pid_namespace("app kept output") else {
        return;
    };
    let out = app(&s.sticky, &["sh", "-c", "echo secret-output; exit 1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let dirs: Vec<PathBuf> = std::fs::read_dir(&s.sticky)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let mode = std::fs::metadata(&dirs[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the kept directory is readable by others");
    let files: Vec<PathBuf> = std::fs::read_dir(&dirs[0])
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    for f in files {
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{} is readable by others", f.display());
    }
}

#[test]
fn app_never_creates_a_missing_tmpdirs_parents() {
    let Some(s) = Scene::with_pid_namespace("app missing TMPDIR") else {
        return;
    };
    let missing = s.sticky.join("no/such/dir");
    let out = app(&missing, &["true"]);
    assert_ne!(out.status.code(), Some(0), "ran with a missing TMPDIR");
    assert!(
        stderr(&out).starts_with("numascope: error: "),
        "{}",
        stderr(&out)
    );
    assert!(
        !s.sticky.join("no").exists(),
        "TMPDIR's parents were created"
    );
}

#[test]
fn report_refuses_html_and_hwloc_xml_naming_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("same.out");
    let out = common::numascope()
        .args(["report", &results_fixture(), "--html"])
        .arg(&f)
        .arg("--hwloc-xml")
        .arg(tmp.path().join(".").join("same.out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("name one file"), "{}", stderr(&out));
    assert!(!f.exists(), "an output was written before the refusal");
}

#[test]
fn fleet_refuses_csv_and_html_naming_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    for h in ["a", "b", "c"] {
        let d = tmp.path().join("fleet").join(h);
        std::fs::create_dir_all(&d).unwrap();
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(results_fixture()).unwrap()).unwrap();
        v["host"] = serde_json::Value::String(h.into());
        std::fs::write(d.join("results.json"), v.to_string()).unwrap();
    }
    let f = tmp.path().join("fleet.out");
    let out = common::numascope()
        .arg("fleet")
        .arg(tmp.path().join("fleet"))
        .arg("--csv")
        .arg(&f)
        .arg("--html")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("name one file"), "{}", stderr(&out));
    assert!(!f.exists(), "an output was written before the refusal");
}

#[test]
fn latency_csv_never_writes_through_a_planted_link() {
    let Some(s) = Scene::new("latency --csv link") else {
        return;
    };
    let dir = s.plant_dir("csv");
    s.plant_symlink("csv/latency_distribution.csv");
    let locks = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args([
            "latency",
            "--size",
            "64KiB",
            "--samples",
            "3",
            "--sample-ms",
            "0.2",
            "--distribution",
            "--groups",
            "200",
            "--csv",
        ])
        .arg(&dir)
        .env("NUMASCOPE_LOCK_DIR", locks.path())
        .output()
        .unwrap();
    s.assert_victim_untouched();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
}
