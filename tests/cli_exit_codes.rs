//! The exit statuses README.md and `numascope --help` document (issues 15, 17, 19), one test
//! per case: 0 done; 1 `compare` found a difference (the partial run's 1 is the unit test
//! `cli::tests::a_run_partial_without_a_signal_is_status_1`, because no part of a run fails on
//! demand); 2 usage or input error; 3 the environment refused; 129/130/143 stopped by
//! SIGHUP/SIGINT/SIGTERM.

use std::io::BufRead as _;
use std::path::Path;

mod common;
use common::DefaultStopSignals;

use common::{fixture, numascope};
use serde_json::Value;

fn status(args: &[&str]) -> (i32, String, String) {
    let out = numascope().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts exit `code` and a one-line `numascope: error: ` on stderr containing `needle`.
fn refused(args: &[&str], code: i32, needle: &str) {
    let (got, out, err) = status(args);
    assert_eq!(got, code, "{args:?}: {err}");
    assert_eq!(out, "", "{args:?}");
    assert!(err.starts_with("numascope: error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
}

#[test]
fn status_0_when_done_and_for_help_which_lists_the_statuses() {
    let (code, out, _) = status(&["--sysfs-root", &fixture("guest-A"), "topo"]);
    assert_eq!(code, 0);
    assert!(out.contains("NUMA nodes"), "{out}");
    let (code, help, _) = status(&["--help"]);
    assert_eq!(code, 0);
    for needle in [
        "Exit status:",
        "\n  1 ",
        "\n  2 ",
        "\n  3 ",
        "\n  4 ",
        "129/130/143",
    ] {
        assert!(help.contains(needle), "`{needle}` not in --help: {help}");
    }
}

#[test]
fn status_1_when_compare_finds_a_difference_and_nothing_more_is_said() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results/this-machine-kvm-2cpu.json");
    let base: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    // Every figure with nine repetitions and a +-1 % interval; the second run at half speed.
    fn with_intervals(v: &mut Value, scale: f64) {
        let is_summary = ["median", "min", "max", "p90", "p99", "samples"]
            .iter()
            .all(|k| v.get(k).is_some_and(Value::is_number));
        if is_summary {
            for key in ["median", "min", "max", "p90", "p99"] {
                let x = v[key].as_f64().unwrap() * scale;
                v[key] = x.into();
            }
            let m = v["median"].as_f64().unwrap();
            v["samples"] = 9.into();
            v["ci_low"] = (m * 0.99).into();
            v["ci_high"] = (m * 1.01).into();
            v["ci_level"] = 0.961.into();
            return;
        }
        match v {
            Value::Object(m) => m.values_mut().for_each(|x| with_intervals(x, scale)),
            Value::Array(a) => a.iter_mut().for_each(|x| with_intervals(x, scale)),
            _ => {}
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut a, mut b) = (base.clone(), base);
    with_intervals(&mut a, 1.0);
    with_intervals(&mut b, 0.5);
    let pa = dir.path().join("a.json");
    let pb = dir.path().join("b.json");
    std::fs::write(&pa, a.to_string()).unwrap();
    std::fs::write(&pb, b.to_string()).unwrap();
    let (pa, pb) = (pa.to_str().unwrap(), pb.to_str().unwrap());
    let (code, out, err) = status(&["compare", pa, pb]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err, "", "a difference is the answer, not an error");
    let (code, out, err) = status(&["compare", pa, pb, "--json"]);
    assert_eq!(code, 1);
    assert_eq!(err, "");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["differs"],
        true
    );
    // The same run twice: no difference, 0.
    let (code, _, err) = status(&["compare", pa, pa]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn status_2_for_usage_errors() {
    let (code, _, err) = status(&["topo", "--no-such-flag"]);
    assert_eq!(code, 2);
    assert!(err.contains("--no-such-flag"), "{err}");
    refused(&["--quick", "topo"], 2, "belong to the full analysis");
    refused(
        &["--sysfs-root", &fixture("guest-A"), "report", "x.json"],
        2,
        "does nothing for `report`",
    );
    refused(
        &[
            "compare",
            "a.json",
            "b.json",
            "--sysfs-root",
            &fixture("guest-A"),
        ],
        2,
        "does nothing for `compare`",
    );
}

#[test]
fn status_2_for_input_errors() {
    refused(&["report", "/nonexistent/results.json"], 2, "results.json");
    refused(&["inspect", "4294967295"], 2, "no process 4294967295");
    refused(
        &["inspect", "no-process-has-this-name-xyz"],
        2,
        "no process is named",
    );
    refused(&["inspect", "--system", "--watch", "5"], 2, "--watch");
    refused(&["man", "warp"], 2, "no such subcommand");
}

#[test]
fn status_3_when_the_environment_refuses() {
    // Binding or pinning asked of a snapshot.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let root = fixture("guest-A");
    for cmd in [
        vec!["latency"],
        vec!["bandwidth"],
        vec!["placement"],
        vec!["c2c"],
        vec!["run", "--output", out.to_str().unwrap()],
    ] {
        let mut args = vec!["--sysfs-root", root.as_str()];
        args.extend(cmd);
        refused(&args, 3, "not this machine");
    }
    assert!(!out.exists());
    // Permission denied, where this machine denies reading another process's numa_maps.
    if std::fs::read("/proc/1/numa_maps").is_err() {
        refused(&["inspect", "1"], 3, "permission denied");
    } else {
        eprintln!("skipped: /proc/1/numa_maps is readable here");
    }
}

/// `inspect --watch` runs until a stop signal, then exits 128 + the signal.
#[test]
fn statuses_129_130_143_when_stopped_by_a_signal() {
    for (sig, code) in [
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
        (libc::SIGTERM, 143),
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_numascope"))
            .args(["--sysfs-root", &fixture("guest-A")])
            .args(["inspect", "--system", "--watch", "100ms", "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .default_stop_signals()
            .spawn()
            .unwrap();
        // Wait for the first look, so the handlers are installed.
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let v: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(v["nodes"], serde_json::json!([0, 1, 2]));
        // SAFETY: kill with our own child's pid and a valid signal number.
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        // Read its output to the end before waiting: a child blocked writing into a full pipe
        // (a slow test thread on a busy machine) only sees the stop once the pipe drains.
        // Every line printed before the stop is a whole JSON document.
        for l in lines {
            serde_json::from_str::<Value>(&l.unwrap()).unwrap();
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "signal {sig}");
        // With --json, the stop is said as a JSON object too.
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        let e: Value = serde_json::from_str(err.trim_end()).unwrap();
        assert_eq!(e["exit_code"], code);
        assert_eq!(e["kind"], "interrupted");
    }
}

/// clap's own refusals (an unknown flag, a bad value, a missing argument, an unknown
/// subcommand) in the one-line form of every other error, exit 2, on every subcommand, with
/// clap's "a similar argument exists" tip kept in the line.
#[test]
fn clap_refusals_are_one_line_with_the_tip() {
    let (code, out, err) = status(&["run", "--quik"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.starts_with("numascope: error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("'--quik'") && err.contains("'--quick'"),
        "{err}"
    );
    refused(&["--quik"], 2, "'--quick'");
    refused(&["rnu"], 2, "'run'");
    refused(&["--color", "sometimes", "topo"], 2, "sometimes");
    refused(&["latency", "--mode", "zigzag"], 2, "zigzag");
    refused(&["report"], 2, "required");
    refused(&["completions", "tcsh"], 2, "tcsh");
    // Every subcommand: an unknown flag is one line naming it and where the flags are.
    let help = status(&["--help"]).1;
    let subs: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .collect();
    assert!(subs.len() >= 13, "{subs:?}");
    for sub in subs {
        refused(
            &[sub, "--no-such-flag"],
            2,
            &format!("`numascope {sub} --help`"),
        );
    }
    // With --json, the same sentence as one JSON object.
    let (code, _, err) = status(&["run", "--json", "--quik"]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(err.trim()).unwrap();
    assert!(v["error"].as_str().unwrap().contains("'--quick'"), "{err}");
}
