//! End-to-end tests of `numascope latency`: bad input gives one sentence and exit 2 before
//! anything is measured, and small real runs produce the JSON contract. Timings are never
//! asserted (the machine running the tests may be busy); only shapes and placement are.

use assert_cmd::Command;
use predicates::prelude::*;

fn latency(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("numascope")
        .unwrap()
        .arg("latency")
        .args(args)
        .assert()
}

fn refused(args: &[&str], says: &str) {
    latency(args)
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(says))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn size_below_one_line_is_refused() {
    refused(&["--size", "32"], "smaller than one element");
}

#[test]
fn size_above_free_memory_is_refused() {
    refused(&["--size", "100TiB"], "free");
}

#[test]
fn hugetlb_size_must_be_a_multiple_of_the_page() {
    refused(
        &["--size", "3MiB", "--page-size", "2m"],
        "not a multiple of the 2m huge page size",
    );
}

#[test]
fn the_default_size_is_whole_huge_pages() {
    // No --size: the default must be a multiple of 1 GiB for 1g pages. Where none are
    // reserved the refusal names the reservation, never the size the user did not give.
    let out = latency(&["--page-size", "1g", "--samples", "3", "--json"])
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("not a multiple"), "{err}");
    if !out.status.success() {
        assert!(err.contains("1g huge pages"), "{err}");
    }
}

#[test]
fn unknown_cpu_is_refused() {
    refused(
        &["--size", "64KiB", "--cpu", "4097"],
        "CPU 4097 does not exist",
    );
}

#[test]
fn matrix_takes_one_cpu_per_node() {
    refused(&["--matrix", "--cpu", "4097"], "CPU 4097 does not exist");
}

#[test]
fn unknown_memory_node_is_refused() {
    refused(
        &["--size", "64KiB", "--mem-node", "63"],
        // The flag is --mem-nodes now (--mem-node stays as an alias); 63 is above every node.
        "--mem-nodes: `63` is too large",
    );
}

#[test]
fn unknown_mode_is_refused() {
    refused(&["--mode", "zigzag"], "not a chase mode");
}

#[test]
fn unsupported_chain_count_is_refused() {
    refused(
        &["--size", "64KiB", "--chains", "3"],
        "--chains 3 is not supported",
    );
}

#[test]
fn backwards_sweep_is_refused() {
    refused(&["--sweep", "1GiB..4KiB"], "ends before it starts");
}

#[test]
fn snapshot_roots_are_not_measured() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sys/devices/system")).unwrap();
    Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(dir.path())
        .args(["latency", "--size", "64KiB"])
        .assert()
        // The environment refuses (exit status 3), not the input.
        .code(3)
        .stderr(predicate::str::contains("snapshot"));
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = latency(args).success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("valid JSON")
}

#[test]
fn one_size_gives_the_json_contract() {
    let v = json(&[
        "--size",
        "64KiB",
        "--mode",
        "page",
        "--chains",
        "1,4",
        "--samples",
        "3",
        "--sample-ms",
        "0.2",
        "--json",
    ]);
    assert_eq!(v["schema_version"], 1);
    assert!(v["clock"]["resolution_ns"].as_f64().unwrap() > 0.0);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (r, chains) in results.iter().zip([1, 4]) {
        assert_eq!(r["mode"], "page");
        assert_eq!(r["working_set_bytes"], 65536);
        assert_eq!(r["page_size"], "4k");
        assert_eq!(r["chains"], chains);
        assert_eq!(r["placement_fraction"], 1.0);
        assert!(r["cpu"].is_u64() && r["memory_node"].is_u64());
        for k in ["median", "min", "p90", "p99"] {
            assert!(r["ns_per_load"][k].as_f64().unwrap() > 0.0, "{k}");
        }
        // A size asked by name is measured in blocks: six passes of three
        // samples, plus extra blocks toward +-3 % (at most six); n counts blocks.
        let n = r["ns_per_load"]["samples"].as_u64().unwrap();
        assert!((6..=12).contains(&n), "{n}");
        assert_eq!(r["blocks"]["blocks"].as_u64(), Some(n));
        assert_eq!(r["blocks"]["samples_per_block"], 3);
        assert_eq!(
            r["blocks"]["block_medians_ns"].as_array().unwrap().len() as u64,
            n
        );
    }
}

#[test]
fn a_small_sweep_reports_curve_and_knees() {
    let v = json(&[
        "--sweep",
        "4KiB..64KiB",
        "--samples",
        "3",
        "--sample-ms",
        "0.2",
        "--json",
    ]);
    let curve = &v["sweep"][0];
    let pts = curve["points"].as_array().unwrap();
    assert_eq!(pts.len(), 17);
    assert_eq!(pts[0]["working_set_bytes"], 4096);
    assert_eq!(pts[16]["working_set_bytes"], 65536);
    assert!(v["knees"][0]["levels"].is_array());
}

#[test]
fn the_matrix_covers_every_initiator_and_memory_node() {
    let v = json(&[
        "--matrix",
        "--size",
        "4MiB",
        "--samples",
        "3",
        "--sample-ms",
        "0.2",
        "--json",
    ]);
    let m = &v["matrix"];
    assert_eq!(m["working_set_bytes"], 4 << 20);
    let cells = m["cells"].as_array().unwrap();
    assert!(!cells.is_empty());
    for c in cells {
        assert_eq!(c["result"]["placement_fraction"], 1.0, "{c}");
        assert_eq!(c["result"]["memory_node"], c["memory_node"]);
        if c["initiator_node"] == c["memory_node"] {
            assert_eq!(c["measured_ratio"], 1.0);
        }
        // Measured in interleaved rounds: n = rounds (at least six), one block each, and the
        // ratio to local paired over them.
        let n = c["result"]["ns_per_load"]["samples"].as_u64().unwrap();
        assert!(n >= 6, "{c}");
        assert_eq!(c["result"]["blocks"]["blocks"].as_u64(), Some(n), "{c}");
        assert_eq!(
            c["result"]["blocks"]["block_medians_ns"]
                .as_array()
                .map(|a| a.len() as u64),
            Some(n)
        );
        assert_eq!(
            c["measured_ratio_interval"]["pairs"].as_u64(),
            Some(n),
            "{c}"
        );
        assert_eq!(c["measured_ratio_interval"]["ratio"], c["measured_ratio"]);
    }
}

/// `--distribution` on a tiny chain: the distribution's shape (counts sum to the groups,
/// percentiles in order, overhead recorded), the chase beside it, and the MLP factors of
/// `--chains 1,2`. No figure is checked against another: only mechanics.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn distribution_and_mlp_give_their_json_shape() {
    let v = json(&[
        "--size",
        "64KiB",
        "--chains",
        "1,2",
        "--samples",
        "3",
        "--sample-ms",
        "0.2",
        "--distribution",
        "--groups",
        "3000",
        "--json",
    ]);
    let d = &v["distribution"];
    assert_eq!(d["working_set_bytes"], 65536);
    assert_eq!(d["loads_per_group"], 16);
    let groups = d["groups"].as_u64().unwrap();
    assert_eq!(groups, 3000);
    let total: u64 = d["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, groups);
    let p = &d["ns_per_load"];
    let ps: Vec<f64> = ["min", "p1", "p10", "p50", "p90", "p99", "p99_9", "max"]
        .iter()
        .map(|k| p[k].as_f64().unwrap())
        .collect();
    assert!(ps.windows(2).all(|w| w[0] <= w[1]), "{ps:?}");
    assert!(ps[0] >= 0.0);
    assert_eq!(d["timer_overhead"]["reads"], 20000);
    assert!(d["timer_overhead"]["median_ns"].as_f64().unwrap() >= 0.0);
    assert!(d["chase_ns_per_load_median"].as_f64().is_some());
    assert!(d["counter_hz"].as_f64().unwrap() > 0.0);
    let mlp = v["mlp"].as_array().unwrap();
    assert_eq!(mlp.len(), 1);
    assert_eq!(mlp[0]["chains"], 2);
    assert!(mlp[0]["factor"].as_f64().unwrap() > 0.0);
    // Each chain count's figure is over its six or more blocks, so the factor has an
    // interval (with 3 samples back to back it had none).
    let (lo, f, hi) = (
        mlp[0]["ci_low"].as_f64().unwrap(),
        mlp[0]["factor"].as_f64().unwrap(),
        mlp[0]["ci_high"].as_f64().unwrap(),
    );
    assert!(lo <= f && f <= hi, "{lo} {f} {hi}");
}

/// The text's size table is the CSV's and HTML's table for people: each chain count's row
/// with its median, interval and n, and the MLP factor with its interval under its own head.
#[test]
fn size_text_shows_each_row_with_its_interval_and_count() {
    let out = latency(&[
        "--size",
        "64KiB",
        "--chains",
        "1,2",
        "--samples",
        "6",
        "--sample-ms",
        "0.2",
    ])
    .success()
    .get_output()
    .stdout
    .clone();
    let text = String::from_utf8(out).unwrap();
    let table: Vec<&str> = text
        .split("\nLatency (ns per load")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(table[0].contains("ns median [95 % interval] n"), "{text}");
    let rows = &table[1..];
    assert_eq!(rows.len(), 2, "one row per chain count: {text}");
    for (row, chains) in rows.iter().zip(["1", "2"]) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[..3], ["random", "4k", chains], "{row}");
        assert!(row.contains("64 KiB") && row.contains("n="), "{row}");
    }
    assert!(text.contains("MLP factor [interval]"), "{text}");
}

#[test]
fn distribution_text_shows_the_histogram() {
    if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        return;
    }
    latency(&[
        "--size",
        "64KiB",
        "--samples",
        "3",
        "--sample-ms",
        "0.2",
        "--distribution",
        "--groups",
        "2000",
    ])
    .success()
    .stdout(predicate::str::contains("Per-load latency distribution"))
    .stdout(predicate::str::contains("timer cost"))
    .stdout(predicate::str::contains(" ns |"));
}

#[test]
fn one_chain_count_gives_no_mlp() {
    let v = json(&[
        "--size",
        "64KiB",
        "--samples",
        "3",
        "--sample-ms",
        "0.2",
        "--json",
    ]);
    assert!(
        v.get("mlp").is_none(),
        "absent, as in files before it existed"
    );
    assert!(v.get("distribution").is_none());
}

#[test]
fn distribution_flags_are_checked() {
    refused(
        &["--distribution", "--groups", "0"],
        "--groups 0 is out of range",
    );
    refused(
        &["--distribution", "--sweep", "4KiB..64KiB"],
        "cannot be used with",
    );
    refused(&["--distribution", "--matrix"], "cannot be used with");
    refused(&["--groups", "100"], "--distribution");
}
