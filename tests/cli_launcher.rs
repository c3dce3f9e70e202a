//! numascope under a real launcher: Open MPI's `mpirun` (Debian's openmpi-bin, installed by
//! tests/install-deps.sh) starts three ranks of `numascope run` on this one machine, as a wrong
//! `--ntasks-per-node` would. Checked by mechanics, never by timing: while the test itself
//! holds the host's measuring lock, every rank started with `--wait-lock 0s` is refused in one
//! sentence naming the test's PID and leaves no directory; once the lock is free, the ranks
//! take it in turn, each rank's output lands where `--output DIR/{host}-{rank}` says with one
//! summary line on stdout, and `numascope fleet` reads the three runs. A second run into an
//! output directory another run holds is refused even with --force.

mod common;
use common::DefaultStopSignals;

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::process::Command;

use common::{numascope, refused_in_one_sentence};

/// Holds an exclusive flock on `path` (a lock file or a directory) until dropped.
struct Held {
    _file: File,
}

impl Held {
    fn on(path: &Path) -> Held {
        let f = if path.is_dir() {
            File::open(path).unwrap()
        } else {
            File::create(path).unwrap()
        };
        // SAFETY: flock on a descriptor we own and keep open for the life of `Held`.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_eq!(rc, 0, "the test could not take the lock {}", path.display());
        Held { _file: f }
    }
}

fn mpirun_present() -> bool {
    let ok = Command::new("mpirun")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: mpirun is not installed (tests/install-deps.sh installs openmpi-bin)");
    }
    ok
}

/// `mpirun -np 3 numascope run --quick --only c2c --output OUT/{host}-{rank} EXTRA...` with the
/// measuring lock in `lock_dir`.
fn mpirun(lock_dir: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let template = format!("{}/{{host}}-{{rank}}", out.display());
    Command::new("mpirun")
        .env("NUMASCOPE_LOCK_DIR", lock_dir)
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "3"])
        .args(["-x", "NUMASCOPE_LOCK_DIR"])
        .arg(env!("CARGO_BIN_EXE_numascope"))
        .args(["run", "--quick", "--only", "c2c", "--output", &template])
        .args(extra)
        .output()
        .unwrap()
}

fn host() -> String {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let h = h.trim();
    h.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[test]
fn mpirun_ranks_are_refused_while_the_lock_is_held_then_take_it_in_turn() {
    if !mpirun_present() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let lock_dir = tmp.path().join("lock");
    std::fs::create_dir(&lock_dir).unwrap();
    let out = tmp.path().join("res");

    // The lock is held: every rank refuses at once, naming the holder, and writes nothing.
    {
        let held = Held::on(&lock_dir.join("numascope.lock"));
        std::fs::write(
            lock_dir.join("numascope.lock"),
            format!("{}\n", std::process::id()),
        )
        .unwrap();
        let o = mpirun(&lock_dir, &out, &["--wait-lock", "0s"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{err}");
        let refusals: Vec<&str> = err
            .lines()
            .filter(|l| l.starts_with("numascope: error: another numascope measurement"))
            .collect();
        // mpirun ends the job when the first rank exits non-zero: on a busy machine the
        // other ranks can be stopped before they print their own refusal, so at least one
        // refusal, and none of them measured (the output directory stays empty, below).
        assert!((1..=3).contains(&refusals.len()), "{err}");
        for r in refusals {
            assert!(r.contains(&format!("(PID {})", std::process::id())), "{r}");
        }
        assert!(
            std::fs::read_dir(&out).map_or(true, |d| d.count() == 0),
            "a refused rank left an output directory"
        );
        drop(held);
    }

    // The lock is free: the ranks take it one after another and all finish. On a busy machine
    // a rank's c2c part can fail its own quality rules (no round trip in time); that run ends
    // partial with exit status 1 as documented, which is not what this test is about: the
    // lock and the output template are.
    let o = mpirun(&lock_dir, &out, &[]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let h = host();
    for rank in 0..3 {
        let dir = out.join(format!("{h}-{rank}"));
        let r = numascope::results_file::load(&dir.join("results.json")).unwrap();
        // A partial run names the part that failed; one stopped midway would not.
        assert!(
            !r.partial || !r.failed.is_empty(),
            "rank {rank}: partial without a failed part"
        );
        assert!(
            stdout.lines().any(|l| l.starts_with("numascope: host=")
                && l.ends_with(&format!("output={}", dir.display()))),
            "no summary line for rank {rank}: {stdout}"
        );
    }
    assert_eq!(
        stdout.lines().count(),
        3,
        "one line per rank on stdout: {stdout}"
    );

    // fleet reads them: three runs are too few to judge, which it says (exit 4).
    let f = numascope()
        .arg("fleet")
        .arg(&out)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(f.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&f.stdout).unwrap();
    assert_eq!(v["hosts"].as_array().unwrap().len(), 3);
    assert!(v["groups"][0]["not_judged"].is_string());
}

#[test]
fn a_second_run_into_a_directory_in_use_is_refused_even_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("busy");
    std::fs::create_dir(&dir).unwrap();
    let _held = Held::on(&dir);
    refused_in_one_sentence(
        numascope()
            .env("NUMASCOPE_LOCK_DIR", tmp.path())
            .args(["run", "--quick", "--only", "c2c", "--force", "--output"])
            .arg(&dir),
        "another numascope run is writing into",
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn output_templates_are_checked_before_measuring() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = numascope();
    for v in [
        "SLURM_PROCID",
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "PMIX_RANK",
    ] {
        cmd.env_remove(v);
    }
    refused_in_one_sentence(
        cmd.env("NUMASCOPE_LOCK_DIR", tmp.path())
            .args(["run", "--quick", "--output"])
            .arg(tmp.path().join("r-{rank}")),
        "uses {rank}, but no launcher rank is set",
    );
    refused_in_one_sentence(
        numascope()
            .env("NUMASCOPE_LOCK_DIR", tmp.path())
            .args(["run", "--quick", "--output"])
            .arg(tmp.path().join("r-{hostname}")),
        "unknown placeholder {hostname}",
    );
}

/// True once process `pid` has `path` open (a waiting command keeps the lock file open).
fn has_open(pid: u32, path: &Path) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| {
            d.flatten()
                .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == path))
        })
        .unwrap_or(false)
}

/// A measuring command waits for the lock (holding the lock file open), and a stop signal
/// ends the wait with the signal's exit status, one sentence naming the holder, and nothing
/// measured.
#[test]
fn a_waiting_command_stops_on_sigterm_naming_the_holder() {
    if !common::two_cpus("c2c") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let lock = tmp.path().join("numascope.lock");
    let _held = Held::on(&lock);
    std::fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .env("NUMASCOPE_LOCK_DIR", tmp.path())
        .args(["c2c", "--samples", "1", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .default_stop_signals()
        .spawn()
        .unwrap();
    // Wait (bounded only to catch a hang) until it has the lock file open: it is waiting.
    let mut seen = false;
    for _ in 0..600 {
        if has_open(child.id(), &lock) {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(seen, "the command never opened the lock file");
    // SAFETY: kill with the pid of our own running child and a valid signal number.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    // With --json the stop is one JSON object on stderr (README, Exit status).
    let e: serde_json::Value = serde_json::from_str(err.trim()).expect("a JSON error object");
    let sentence = e["error"].as_str().unwrap_or("");
    assert!(
        sentence.starts_with("stopped by SIGTERM while waiting for the measuring lock")
            && sentence.contains(&format!("held by PID {}", std::process::id())),
        "{err}"
    );
    assert_eq!(e["exit_code"], 143, "{err}");
    assert_eq!(e["kind"], "interrupted", "{err}");
}
