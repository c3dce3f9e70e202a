//! End-to-end checks of `numascope run`: a short real run writes a loadable results.json and a
//! summary; bad input (unknown part, existing output directory) is one sentence and exit 2;
//! `--dry-run` measures nothing; Ctrl-C writes what was measured, marked partial.

mod common;
use common::DefaultStopSignals;

use std::process::Command;
use std::time::Duration;

use assert_cmd::prelude::*;
use numascope::results::plan::Part;
use predicates::prelude::*;

fn bin() -> Command {
    Command::cargo_bin("numascope").unwrap()
}

/// A short run (the parts that are quick in a debug build): files exist and parse.
#[test]
fn quick_run_writes_results_and_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run1");
    bin()
        .args([
            "run",
            "--quick",
            "--only",
            "c2c,scenarios,advisor",
            "--output",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("What to run"))
        .stdout(predicate::str::contains("run in "));
    let r = numascope::results_file::load(&out.join("results.json")).unwrap();
    assert!(!r.partial, "{:?}", r.failed);
    for p in [Part::Topology, Part::C2c, Part::Scenarios, Part::Advisor] {
        assert!(r.completed.contains(&p), "{p} missing: {:?}", r.completed);
    }
    let t = r.scenarios.unwrap();
    assert_eq!(t.scenarios.len(), 8);
    // (h), the kernel's auto weights, on this machine's one memory node: skipped, with why.
    let h = &t.scenarios[7];
    assert_eq!(h.letter, "h");
    if r.topology.memory_nodes().len() < 2 {
        assert!(
            h.unavailable
                .as_deref()
                .is_some_and(|u| u.contains("one memory node")),
            "{h:?}"
        );
    }
    assert!(t.scenarios[0].bandwidth().unwrap() > 0.0);
    // The run's verdict is stored and reaches summary.txt and the top of report.html.
    let q = r.quality.as_ref().expect("a run records its verdict");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    // The one-screen summary gives the verdict's first clause; report --full the rest.
    let verdict = numascope::render::run_text::summary::verdict_clause(&q.sentence);
    assert!(
        summary.contains(&format!("verdict: {verdict}")),
        "{summary}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    let banner = html.find("id=\"verdict\"").expect("a verdict banner");
    assert!(
        banner < html.find("<section").unwrap(),
        "banner before the first section"
    );
    assert!(html.contains(&format!("<strong>Verdict:</strong> {}", q.verdict.label())));
    assert!(std::fs::read_dir(&out).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".csv")));
    // The same directory again is refused.
    bin()
        .args(["run", "--quick", "--only", "topology", "--output"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("already exists").and(predicate::str::contains("--force")),
        );
}

#[test]
fn unknown_parts_and_dry_run() {
    bin()
        .args(["run", "--skip", "latency,warp"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "numascope: error: --skip: unknown part `warp`; the parts are: topology, latency,",
        ));
    bin()
        .args(["run", "--dry-run", "--quick"])
        .assert()
        .success()
        .stdout(predicate::str::contains("numascope run plan (quick budget"))
        .stdout(predicate::str::contains("scenarios"));
}

/// Ctrl-C (SIGINT) or SIGTERM stops the run; what was measured is in results.json, marked
/// partial, the summary and report are written, and the exit status is 128 + the signal.
#[test]
fn a_stop_signal_writes_a_partial_run_and_exits_128_plus_the_signal() {
    for (sig, name, status_code) in [
        (libc::SIGINT, "Ctrl-C", 130),
        (libc::SIGTERM, "SIGTERM", 143),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("int");
        let mut child = bin()
            // A lock of its own: this test's checkpoint must not wait for another test's run.
            .env("NUMASCOPE_LOCK_DIR", tmp.path())
            .args(["run", "--quick", "--only", "c2c,scenarios", "--output"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .default_stop_signals()
            .spawn()
            .unwrap();
        // Wait until the first checkpoint is written (topology done), then interrupt.
        let json = out.join("results.json");
        for _ in 0..600 {
            if json.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(json.exists(), "no checkpoint was written");
        // SAFETY: kill with a valid pid of our own child and a valid signal number.
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(status_code), "{name}: {status:?}");
        let r = numascope::results_file::load(&json).unwrap();
        assert!(r.partial, "{name}");
        assert!(r.completed.contains(&Part::Topology));
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("interrupted") && w.contains(name)),
            "{name}: {:?}",
            r.warnings
        );
        assert!(out.join("summary.txt").exists() && out.join("report.html").exists());
    }
}

/// Bare `numascope` takes the run flags; before a subcommand they are refused in one sentence,
/// while the global --sysfs-root still works there.
#[test]
fn run_flags_before_a_subcommand_are_refused_but_sysfs_root_is_not() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_numascope"))
        .args(["--quick", "topo"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.starts_with("numascope: error: ") && err.contains("--quick"),
        "{err}"
    );
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/topology/opteron250-2s"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_numascope"))
        .args(["--sysfs-root", fixture, "topo", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
