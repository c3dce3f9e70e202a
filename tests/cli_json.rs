//! `--json` on every subcommand and mode: what each prints on stdout parses as JSON,
//! and with `--json` every error (clap's own too) is one JSON object on stderr with `error`,
//! `exit_code` and `kind`, the exit status matching `exit_code`. Machine-reading commands
//! replay a topology fixture; measuring ones run with the smallest budget.

mod common;

use common::{fixture, numascope, two_cpus};
use serde_json::Value;

/// Runs `numascope ARGS`, which must succeed; stdout parsed as JSON.
fn ok_json(args: &[&str]) -> Value {
    let out = numascope().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e})"))
}

/// Runs `numascope ARGS`, which must fail with `code`; stderr must be one JSON object of
/// kind `kind` whose `error` contains `needle`, and stdout empty.
fn err_json(args: &[&str], code: i32, kind: &str, needle: &str) {
    let out = numascope().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    let v: Value = serde_json::from_str(&err)
        .unwrap_or_else(|e| panic!("{args:?}: stderr is not JSON ({e}): {err}"));
    assert_eq!(v["exit_code"], code, "{args:?}");
    assert_eq!(v["kind"], kind, "{args:?}");
    let text = v["error"].as_str().unwrap();
    assert!(text.contains(needle), "{args:?}: `{needle}` not in {text}");
}

#[test]
fn commands_reading_a_snapshot_print_json() {
    let root = fixture("guest-A");
    let v = ok_json(&["--sysfs-root", &root, "topo", "--json"]);
    assert_eq!(v["nodes"].as_array().unwrap().len(), 3);
    let v = ok_json(&["--sysfs-root", &root, "inspect", "--system", "--json"]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["nodes"], serde_json::json!([0, 1, 2]));
    assert!(v["fields"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["name"] == "MemTotal"));
    let v = ok_json(&[
        "--sysfs-root",
        &root,
        "run",
        "--dry-run",
        "--quick",
        "--json",
    ]);
    assert!(!v["parts"].as_array().unwrap().is_empty(), "{v}");
    let v = ok_json(&[
        "--sysfs-root",
        &root,
        "bandwidth",
        "--list-kernels",
        "--json",
    ]);
    assert!(v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k["name"] == "triad"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snap");
    let v = ok_json(&[
        "--sysfs-root",
        &root,
        "capture",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(v["files"].as_u64().unwrap() > 0);
    assert_eq!(v["archive"], false);
    assert!(out.join("sys/devices/system").is_dir());
}

#[test]
fn saved_runs_print_json() {
    let results = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/this-machine-kvm-2cpu.json"
    );
    let v = ok_json(&["report", results, "--json"]);
    assert!(v["schema_version"].is_number());
    // A run with intervals against itself: figures compared, no difference (exit 0).
    let quick = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/this-machine-quick-v657.json"
    );
    let v = ok_json(&["compare", quick, quick, "--json"]);
    assert_eq!(v["differs"], false);
}

#[test]
fn inspect_prints_one_object_or_an_array() {
    let me = std::process::id().to_string();
    let v = ok_json(&["inspect", &me, "--json"]);
    assert_eq!(v["pid"], std::process::id());
    let v = ok_json(&["inspect", &me, &me, "--json"]);
    // Several targets give an array; a process named twice is inspected once.
    assert_eq!(v.as_array().map(Vec::len), Some(1), "{v}");
    let v = ok_json(&["inspect", "--system", "--json"]);
    assert!(v["fields"].is_array());
}

#[test]
fn measuring_commands_print_json() {
    let v = ok_json(&["latency", "--size", "64KiB", "--samples", "3", "--json"]);
    assert!(v["results"].is_array());
    let v = ok_json(&[
        "bandwidth",
        "--kernel",
        "read",
        "--size",
        "16MiB",
        "--duration",
        "20ms",
        "--repetitions",
        "2",
        "--json",
    ]);
    assert!(v["results"].is_array());
    let v = ok_json(&["placement", "--size", "1MiB", "--json"]);
    assert!(v.is_object());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let v = ok_json(&[
        "run",
        "--quick",
        "--only",
        "topology",
        "--output",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["partial"], false);
    if two_cpus("c2c and loaded-latency JSON") {
        let v = ok_json(&["c2c", "--samples", "1", "--json"]);
        assert!(v.is_object());
        let v = ok_json(&[
            "loaded-latency",
            "--size",
            "16MiB",
            "--points",
            "2",
            "--duration",
            "20ms",
            "--json",
        ]);
        assert!(v.is_object());
    }
}

#[test]
fn errors_are_a_json_object_on_stderr() {
    // clap's own refusals.
    err_json(
        &["topo", "--json", "--no-such-flag"],
        2,
        "usage",
        "--no-such-flag",
    );
    // completions and man print a script and roff, so they take no --json; the refusal of
    // the flag is JSON all the same.
    err_json(&["completions", "bash", "--json"], 2, "usage", "--json");
    err_json(&["completions", "tcsh", "--json"], 2, "usage", "'--json'");
    err_json(&["--json", "completions", "tcsh"], 2, "usage", "tcsh");
    err_json(
        &["inspect", "--json"],
        2,
        "usage",
        "the following required arguments were not provided: <PID|NAME>...",
    );
    // Our usage refusals.
    err_json(
        &[
            "--sysfs-root",
            &fixture("guest-A"),
            "report",
            "x.json",
            "--json",
        ],
        2,
        "usage",
        "does nothing for `report`",
    );
    // Input errors.
    err_json(
        &["inspect", "4294967295", "--json"],
        2,
        "input",
        "no process 4294967295",
    );
    err_json(
        &["report", "/nonexistent/results.json", "--json"],
        2,
        "input",
        "results.json",
    );
    err_json(
        &["latency", "--size", "0", "--json"],
        2,
        "input",
        "working set of 0 bytes",
    );
    // The environment refusing.
    err_json(
        &["--sysfs-root", &fixture("guest-A"), "latency", "--json"],
        3,
        "environment",
        "not this machine",
    );
}
