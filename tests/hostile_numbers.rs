//! Hostile input, round two: numbers and lists, and snapshot values outside their
//! physical domain. Every number that sizes work has a documented bound, is parsed strictly
//! and never panics; a list names each value once; a sweep holds at least one working set;
//! a snapshot's impossible value is refused field by field with a warning, never shown as a
//! fact, and `run --dry-run` warns as `topo` does. Each case asserts the outcome: exit 2 with
//! one sentence naming the flag, or the warning and the value left unknown. Nothing here
//! depends on timing; the timeout only turns a hang (or a measurement that should have been
//! refused) into a failure.

mod common;
use common::{fixture, numascope, refused_in_one_sentence};

use std::time::Duration;

/// Far more than any refusal takes: only a command that measures instead reaches it.
const HANG: Duration = Duration::from_secs(120);

/// `numascope ARGS` with a measuring lock of its own (a refused command never takes it; one
/// that measures must not wait for, or block, another test's) and the hang bound.
fn cmd(args: &[&str], lock: &tempfile::TempDir) -> assert_cmd::Command {
    let mut c = numascope();
    c.env("NUMASCOPE_LOCK_DIR", lock.path())
        .args(args)
        .timeout(HANG);
    c
}

fn refused(args: &[&str], needle: &str) {
    let lock = tempfile::tempdir().unwrap();
    refused_in_one_sentence(&mut cmd(args, &lock), needle);
}

// ---- Numbers: counts with an upper bound, no u64 panics --------------------------------

#[test]
fn placement_size_near_u64_max_is_refused_not_a_panic() {
    refused(&["placement", "--size", "18446744073709550000"], "--size");
}

#[test]
fn placement_hold_of_u64_max_is_refused_before_placing() {
    refused(
        &[
            "placement",
            "--size",
            "4KiB",
            "--hold",
            "18446744073709551615",
        ],
        "--hold 18446744073709551615 is out of range",
    );
}

#[test]
fn latency_samples_of_u64_max_is_refused() {
    refused(
        &[
            "latency",
            "--size",
            "4KiB",
            "--samples",
            "18446744073709551615",
        ],
        "--samples 18446744073709551615 is out of range",
    );
}

#[test]
fn latency_warmup_above_its_bound_is_refused() {
    refused(
        &["latency", "--size", "4KiB", "--warmup", "1000000"],
        "--warmup 1000000 is out of range",
    );
}

#[test]
fn bandwidth_repetitions_above_its_bound_is_refused() {
    refused(
        &[
            "bandwidth",
            "--size",
            "64KiB",
            "--repetitions",
            "18446744073709551615",
        ],
        "--repetitions 18446744073709551615 is out of range",
    );
}

#[test]
fn bandwidth_warmup_above_its_bound_is_refused() {
    refused(
        &["bandwidth", "--size", "64KiB", "--warmup", "1000000"],
        "--warmup 1000000 is out of range",
    );
}

#[test]
fn rightmark_samples_above_its_bound_is_refused() {
    refused(
        &["rightmark", "--samples", "18446744073709551615"],
        "--samples 18446744073709551615 is out of range",
    );
}

#[test]
fn bounds_are_documented_in_the_help() {
    for (sub, needle) in [
        ("latency", "1 to 10000"),
        ("bandwidth", "1 to 1000"),
        ("rightmark", "1 to 1000"),
        ("placement", "604800"),
    ] {
        let out = numascope().args([sub, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains(needle), "{sub} --help lacks `{needle}`");
    }
}

// ---- Durations: parsed strictly, help and check agree ----------------------------------

#[test]
fn wait_lock_with_a_doubled_unit_is_refused() {
    refused(
        &["--wait-lock", "0msms", "latency", "--size", "4KiB"],
        "--wait-lock `0msms` is not a duration",
    );
}

#[test]
fn duration_in_scientific_notation_is_refused() {
    refused(
        &["bandwidth", "--size", "64KiB", "--duration", "1e2ms"],
        "--duration `1e2ms` is not a duration",
    );
}

#[test]
fn watch_accepts_the_24h_its_help_promises() {
    // The interval is accepted; the command then stops at the process that does not exist.
    let lock = tempfile::tempdir().unwrap();
    let out = cmd(&["inspect", "--watch", "24h", "4194305"], &lock)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("--watch"), "24h refused: {err}");
    assert!(err.contains("4194305"), "{err}");
    refused(
        &["inspect", "--watch", "25h", "4194305"],
        "give 100ms to 24h",
    );
}

// ---- Lists and sweeps ------------------------------------------------------------------

#[test]
fn a_size_list_of_thousands_is_refused_with_its_bound() {
    // 5,000 (one argument may hold 128 KiB); the bound is 64.
    let list: Vec<String> = (1..=5_000).map(|i| format!("{i}k")).collect();
    refused(
        &["latency", "--size", &list.join(",")],
        "--size names more than 64 different values (5000 given)",
    );
}

#[test]
fn a_size_named_many_times_is_measured_once() {
    let list = vec!["4KiB"; 40].join(",");
    let lock = tempfile::tempdir().unwrap();
    let out = cmd(
        &[
            "latency",
            "--size",
            &list,
            "--samples",
            "1",
            "--warmup",
            "0",
            "--json",
        ],
        &lock,
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"].as_array().map(Vec::len), Some(1), "{v}");
}

#[test]
fn an_empty_latency_sweep_is_refused_naming_sweep() {
    refused(
        &["latency", "--sweep", "0..0"],
        "--sweep 0 B..0 B holds no working set",
    );
}

#[test]
fn a_bandwidth_sweep_below_an_array_names_sweep_not_size() {
    let lock = tempfile::tempdir().unwrap();
    let out = cmd(&["bandwidth", "--sweep", "1..2"], &lock)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("numascope: error: --sweep "), "{err}");
    assert!(!err.contains("--size"), "{err}");
}

#[test]
fn a_20kb_value_is_quoted_cut_with_its_length() {
    let long = "x".repeat(20_000);
    let lock = tempfile::tempdir().unwrap();
    let out = cmd(&["latency", "--size", &long], &lock).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.len() < 400, "{} bytes of error", err.len());
    assert!(err.contains("(20000 bytes)"), "{err}");
}

// ---- Snapshot values outside their physical domain -------------------------------------

/// `topo --json` of a fixture, and its stderr.
fn topo(name: &str) -> (serde_json::Value, String) {
    let out = numascope()
        .args(["--sysfs-root", &fixture(name), "topo", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

fn warned(v: &serde_json::Value, needles: &[&str]) -> bool {
    v["warnings"].as_array().unwrap().iter().any(|w| {
        let w = w.as_str().unwrap();
        needles.iter().all(|n| w.contains(n))
    })
}

#[test]
fn memtotal_overflowing_bytes_is_refused_not_wrapped() {
    let (v, _) = topo("corrupt-out-of-domain");
    let n0 = &v["nodes"][0];
    assert_eq!(n0["memory_total_bytes"], 0, "{n0}");
    assert!(
        warned(&v, &["node0/meminfo", "MemTotal", "which no machine has"]),
        "{v}"
    );
}

#[test]
fn an_overflowing_cache_size_is_left_out() {
    let (v, _) = topo("corrupt-out-of-domain");
    let big = v["caches"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["size_bytes"].as_u64().unwrap_or(0) > 1 << 34 || c["size_bytes"] == 0);
    assert!(!big, "{}", v["caches"]);
    assert!(
        warned(&v, &["cpu0/cache/index2/size", "no CPU cache has"]),
        "{v}"
    );
}

#[test]
fn a_level_0_cache_is_left_out() {
    let (v, _) = topo("corrupt-out-of-domain");
    let l0 = v["caches"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["level"] == 0);
    assert!(!l0, "{}", v["caches"]);
    assert!(warned(&v, &["cpu1/cache/index2/level", "level 0"]), "{v}");
}

#[test]
fn a_slit_distance_of_0_is_refused() {
    let (v, _) = topo("corrupt-out-of-domain");
    assert_eq!(v["distances"], serde_json::json!([]), "{v}");
    assert!(warned(&v, &["node0/distance", "distance 0"]), "{v}");
}

#[test]
fn a_slit_distance_of_u32_max_is_refused() {
    let (v, _) = topo("corrupt-out-of-domain-max");
    assert_eq!(v["distances"], serde_json::json!([]), "{v}");
    assert!(
        warned(&v, &["node1/distance", "distance 4294967295"]),
        "{v}"
    );
}

#[test]
fn hmat_latencies_of_0_and_u64_max_are_left_unknown() {
    let (v, _) = topo("corrupt-out-of-domain");
    let h = &v["hmat"][0];
    assert!(h["read_latency_ns"].is_null(), "{h}");
    assert!(h["write_latency_ns"].is_null(), "{h}");
    assert_eq!(
        h["read_bandwidth_mb_s"], 6400,
        "the sound figure stays: {h}"
    );
    assert!(warned(&v, &["read_latency", "gives 0"]), "{v}");
    assert!(
        warned(&v, &["write_latency", "18446744073709551615"]),
        "{v}"
    );
}

#[test]
fn a_thp_page_of_0_bytes_is_left_unknown() {
    let (v, _) = topo("corrupt-out-of-domain");
    assert!(
        v["environment"]["thp_page_size_bytes"].is_null(),
        "{}",
        v["environment"]
    );
    assert!(warned(&v, &["hpage_pmd_size", "gives 0"]), "{v}");
}

#[test]
fn numa_balancing_7_is_left_unknown() {
    let (v, _) = topo("corrupt-out-of-domain");
    assert!(
        v["environment"]["numa_balancing"].is_null(),
        "{}",
        v["environment"]
    );
    assert!(warned(&v, &["numa_balancing", "gives 7"]), "{v}");
}

#[test]
fn node_4294967295_is_left_out() {
    let (v, _) = topo("corrupt-out-of-domain-max");
    let ids: Vec<u64> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, vec![0, 1], "{v}");
    assert!(warned(&v, &["node 4294967295", "left out"]), "{v}");
}

#[test]
fn dry_run_shows_the_warnings_topo_prints() {
    for name in ["corrupt-out-of-domain", "corrupt-out-of-domain-max"] {
        let (_, topo_err) = topo(name);
        let out = numascope()
            .args(["--sysfs-root", &fixture(name), "run", "--dry-run"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let warnings: Vec<&str> = topo_err.lines().filter(|l| l.contains("warning")).collect();
        assert!(!warnings.is_empty(), "{topo_err}");
        for w in warnings {
            assert!(err.contains(w), "--dry-run lacks `{w}`:\n{err}");
        }
    }
}

/// The plan's estimate (`run --dry-run --json`) for a fixture, seconds.
fn plan_estimate_s(name: &str) -> f64 {
    let out = numascope()
        .args(["--sysfs-root", &fixture(name), "run", "--dry-run", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["estimate_s"].as_f64().unwrap()
}

#[test]
fn an_impossible_cache_does_not_grow_the_plan() {
    // The corrupt fixture is opteron250-2s with an L2 of 2^64 bytes (and other bad values):
    // left out, it cannot stretch the sweep or the run's sizes.
    let clean = plan_estimate_s("opteron250-2s");
    let corrupt = plan_estimate_s("corrupt-out-of-domain");
    assert!(
        corrupt <= clean * 1.1,
        "plan of {corrupt:.0} s with the corrupt cache, {clean:.0} s without"
    );
}
