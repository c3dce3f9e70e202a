//! End-to-end checks of the stop signal inside the long measuring loops: SIGTERM sent while
//! `latency --sweep` and `loaded-latency` are measuring ends them with exit status 143 and the
//! figures measured so far as valid JSON on stdout, every figure backed by at least one kept
//! sample. The only time bound is a generous one that catches a hang, not slowness.

mod common;
use common::DefaultStopSignals;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a stopped command may take to exit before the test calls it hung.
const HANG: Duration = Duration::from_secs(20);

/// Starts `numascope ARGS`, sends SIGTERM after about a second of measuring, and returns its
/// exit code and stdout.
fn stopped(args: &[&str]) -> (Option<i32>, String) {
    // A lock of its own: the parallel tests of this file must not wait for each other's
    // measuring lock, or the signal would reach a process that has not started measuring.
    let lock_dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .env("NUMASCOPE_LOCK_DIR", lock_dir.path())
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
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        child.try_wait().unwrap().is_none(),
        "{args:?} finished within a second; the test needs a longer measurement"
    );
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
            panic!("{args:?} did not exit within {HANG:?} of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap())
}

fn json(args: &[&str], out: &str) -> serde_json::Value {
    serde_json::from_str(out)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {out}"))
}

/// A figure cut short keeps its real sample count; none is an empty or zero figure.
fn assert_measured(summary: &serde_json::Value, what: &str) {
    let n = summary["samples"].as_u64().unwrap_or(0);
    let median = summary["median"].as_f64().unwrap_or(0.0);
    assert!(n >= 1 && median > 0.0, "{what}: {summary}");
}

#[test]
fn sigterm_stops_a_latency_sweep_with_partial_json_and_143() {
    let args = ["latency", "--sweep", "--json"];
    let (code, out) = stopped(&args);
    assert_eq!(code, Some(143), "{out}");
    let v = json(&args, &out);
    let curves = v["sweep"].as_array().expect("a sweep array");
    for c in curves {
        for p in c["points"].as_array().expect("points") {
            assert_measured(&p["ns_per_load"], "sweep point");
        }
    }
}

#[test]
fn sigterm_stops_loaded_latency_with_partial_json_and_143() {
    if !common::two_cpus("loaded latency") {
        return;
    }
    let args = ["loaded-latency", "--size", "16MiB", "--json"];
    let (code, out) = stopped(&args);
    assert_eq!(code, Some(143), "{out}");
    let v = json(&args, &out);
    let points = v["points"].as_array().expect("a points array");
    assert!(!points.is_empty(), "the no-load point is kept: {v}");
    assert!(
        points.len() < 12,
        "the curve stopped early: {} points",
        points.len()
    );
    let idle = v["curve"]["idle_ns_per_load"].as_f64().unwrap_or(0.0);
    assert!(idle > 0.0, "{v}");
}
