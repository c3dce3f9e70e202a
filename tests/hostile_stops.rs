//! Hostile input, round two: stops, results files, silent flags and the process
//! group of `app`. A stopped standalone command's `--json` says it is partial and why; a large
//! results file is parsed without holding several copies of it; `fleet` refuses a FIFO named
//! results.json; a flag that would do nothing where it is given is refused in one sentence;
//! `app` leaves no process of the program's group behind, even one that ignores SIGTERM.
//! Nothing here asserts a duration: a stop is sent once the command holds its measuring lock
//! (so it is measuring), and the generous bounds below only turn a hang into a failure.

mod common;
use common::{fixture, numascope, refused_in_one_sentence, DefaultStopSignals};

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Only a hang reaches this.
const HANG: Duration = Duration::from_secs(120);

// ---- Stops: the JSON of a stopped command says it is partial ----------------------------

/// Starts `numascope ARGS`, waits until it holds its measuring lock (then it measures), lets
/// it measure a moment, sends SIGTERM and returns the exit code and stdout.
fn stopped(args: &[&str]) -> (Option<i32>, String) {
    let lock = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .env("NUMASCOPE_LOCK_DIR", lock.path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .default_stop_signals()
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    let lock_file = lock.path().join("numascope.lock");
    let pid = child.id().to_string();
    let start = Instant::now();
    let holds =
        || std::fs::read_to_string(&lock_file).is_ok_and(|s| s.trim() == pid) || holds_flock(&pid);
    while !holds() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "{args:?} ended before it took the measuring lock"
        );
        assert!(start.elapsed() < HANG, "{args:?} never took the lock");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Not a timing assertion: a moment of measuring so the document has figures.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill with the pid of our own running child and a valid signal number.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not exit after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap())
}

/// True when process `pid` holds a flock(2) lock (/proc/locks), whatever its lock file holds.
fn holds_flock(pid: &str) -> bool {
    std::fs::read_to_string("/proc/locks").is_ok_and(|t| {
        t.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 4 && f[1] == "FLOCK" && f[4] == pid
        })
    })
}

fn assert_stopped_document(args: &[&str]) {
    let (code, out) = stopped(args);
    assert_eq!(code, Some(143), "{args:?}: {out}");
    let v: serde_json::Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {out}"));
    assert_eq!(v["partial"], true, "{args:?}: {out}");
    assert_eq!(v["stopped_by"], "SIGTERM", "{args:?}: {out}");
}

#[test]
fn a_stopped_latency_says_partial() {
    assert_stopped_document(&["latency", "--size", "16MiB", "--samples", "10000", "--json"]);
}

#[test]
fn a_stopped_bandwidth_says_partial() {
    assert_stopped_document(&[
        "bandwidth",
        "--size",
        "16MiB",
        "--kernel",
        "read",
        "--repetitions",
        "1000",
        "--duration",
        "100ms",
        "--json",
    ]);
}

#[test]
fn a_stopped_c2c_says_partial() {
    if !common::two_cpus("core-to-core latency") {
        return;
    }
    assert_stopped_document(&["c2c", "--samples", "1000", "--json"]);
}

#[test]
fn a_stopped_rightmark_says_partial() {
    assert_stopped_document(&["rightmark", "--rounds", "1000", "--size", "4MiB", "--json"]);
}

#[test]
fn a_stopped_loaded_latency_says_partial() {
    if !common::two_cpus("loaded latency") {
        return;
    }
    assert_stopped_document(&[
        "loaded-latency",
        "--size",
        "16MiB",
        "--points",
        "64",
        "--duration",
        "1s",
        "--json",
    ]);
}

#[test]
fn the_stopped_fields_are_documented() {
    for doc in ["latency", "bandwidth", "c2c", "rightmark", "loaded-latency"] {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/schema/{doc}.md"));
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("`\"stopped_by\"`") && text.contains("`\"partial\": true`"),
            "{} does not document a stopped command",
            p.display()
        );
    }
}

// ---- Results files ---------------------------------------------------------------------

/// Runs `numascope ARGS` to its end and returns its exit code, stderr and peak resident
/// memory (KiB, from wait4's rusage of that one child).
// The child is reaped by wait4 (std's wait gives no rusage).
#[allow(clippy::zombie_processes)]
fn with_peak_rss(args: &[&std::ffi::OsStr]) -> (i32, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).unwrap();
        s
    });
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for the kernel to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `ru` are valid out pointers.
    let ret = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    assert_eq!(ret, child.id() as i32);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, reader.join().unwrap(), ru.ru_maxrss as u64)
}

#[test]
fn a_large_results_file_is_refused_without_several_copies_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("results.json");
    // 48 MB: a version this build reads, then millions of small numbers (a JSON tree of them
    // is many times the text) and no field a run has.
    let mut text = String::with_capacity(48 << 20);
    text.push_str("{\"schema_version\": 1, \"tool_version\": \"0\", \"pad\": [0");
    while text.len() < 48 << 20 {
        text.push_str(",0");
    }
    text.push_str("]}\n");
    std::fs::write(&path, &text).unwrap();
    drop(text);
    let (code, err, peak_kib) = with_peak_rss(&["report".as_ref(), path.as_os_str()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("numascope: error: "), "{err}");
    // The text once, and what the process needs anyway; a JSON tree would be ~15x the text.
    assert!(
        peak_kib < 3 * (48 << 10),
        "peak resident memory {peak_kib} KiB for a 48 MiB file"
    );
}

#[test]
fn fleet_refuses_a_fifo_named_results_json() {
    let tmp = tempfile::tempdir().unwrap();
    let host = tmp.path().join("host-a");
    std::fs::create_dir(&host).unwrap();
    let fifo = host.join("results.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path and mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let out = numascope()
        .arg("fleet")
        .arg(tmp.path())
        .timeout(HANG)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("host-a/results.json"), "{err}");
    assert!(err.to_lowercase().contains("fifo"), "{err}");
}

// ---- Silent flags ----------------------------------------------------------------------

#[test]
fn run_skip_of_a_part_only_leaves_out_is_refused() {
    refused_in_one_sentence(
        numascope().args([
            "--sysfs-root",
            &fixture("opteron250-2s"),
            "run",
            "--dry-run",
            "--only",
            "latency",
            "--skip",
            "c2c",
        ]),
        "--skip c2c does nothing with --only",
    );
}

#[test]
fn run_dry_run_summary_line_json_is_refused() {
    // With --json the refusal is one JSON object on stderr.
    let out = numascope()
        .args([
            "--sysfs-root",
            &fixture("opteron250-2s"),
            "run",
            "--dry-run",
            "--summary-line",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "the plan was printed");
    let e: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("--summary-line does nothing there"), "{msg}");
    refused_in_one_sentence(
        numascope().args([
            "--sysfs-root",
            &fixture("opteron250-2s"),
            "run",
            "--dry-run",
            "--summary-line",
        ]),
        "--dry-run prints the plan and measures nothing, so --summary-line",
    );
}

#[test]
fn latency_csv_without_a_table_to_write_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("csv");
    let lock = tempfile::tempdir().unwrap();
    refused_in_one_sentence(
        numascope()
            .env("NUMASCOPE_LOCK_DIR", lock.path())
            .args(["latency", "--size", "4KiB", "--csv"])
            .arg(&dir)
            .timeout(HANG),
        "--csv writes the --distribution and MLP tables",
    );
    assert!(
        !dir.exists(),
        "the refused command created {}",
        dir.display()
    );
}

#[test]
fn app_force_without_output_is_refused() {
    refused_in_one_sentence(
        numascope()
            .args(["app", "--force", "--", "true"])
            .timeout(HANG),
        "--force lets --output write",
    );
}

#[test]
fn app_interleave_over_a_missing_node_exits_2_like_bind() {
    let out = numascope()
        .args(["app", "--candidates", "interleave:99", "--", "true"])
        .timeout(HANG)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("node 99"), "{err}");
}

// ---- app ends the program's whole process group ----------------------------------------

/// True while process `pid` exists and is not a zombie.
fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Runs `app` on `script` (its PID file path replaces `PIDFILE`) and returns the exit code and
/// the PID the script wrote.
fn app_leaving(script: &str, extra: &[&str]) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let pidfile = tmp.path().join("pid");
    let script = script.replace("PIDFILE", pidfile.to_str().unwrap());
    let out = numascope()
        .env("TMPDIR", tmp.path())
        .args([
            "app",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--candidates",
            "default",
        ])
        .args(extra)
        .arg("--output")
        .arg(tmp.path().join("out"))
        .args(["--", "sh", "-c", &script])
        .timeout(HANG)
        .output()
        .unwrap();
    let pid = std::fs::read_to_string(&pidfile).unwrap_or_else(|_| {
        panic!(
            "the script wrote no PID: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let pid = pid.trim().to_string();
    let still = alive(&pid);
    if still {
        // Clean up before failing, so the suite leaves no process behind either way.
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    assert!(
        !still,
        "process {pid} of the program's group outlived numascope app"
    );
    (out.status.code(), pid)
}

#[test]
fn app_ends_a_background_child_the_program_left() {
    let (code, _) = app_leaving("sleep 1000 & echo $! > PIDFILE; exit 0", &[]);
    assert_eq!(code, Some(0));
}

#[test]
fn app_ends_a_sigterm_ignoring_grandchild_after_the_time_limit() {
    let script = "sh -c 'trap \"\" TERM; echo $$ > PIDFILE; while :; do sleep 1; done' & \
                  while [ ! -s PIDFILE ]; do sleep 0.1; done; wait";
    let (code, _) = app_leaving(script, &["--time-limit", "2s"]);
    assert_eq!(code, Some(1), "a run stopped by --time-limit exits 1");
}
