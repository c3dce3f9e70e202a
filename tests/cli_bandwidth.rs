//! End-to-end checks of `numascope bandwidth`: a short real run on this machine (placement
//! verified, no timing asserted), the matrix and scaling shapes, and one-sentence refusals of
//! bad input (some against replayed multi-node snapshots, which are validated before anything
//! would be pinned).

mod common;

use common::{fixture, json_of as json, numascope};
use predicates::prelude::*;

const QUICK: [&str; 6] = [
    "--size",
    "16MiB",
    "--duration",
    "20ms",
    "--repetitions",
    "2",
];

#[test]
fn list_kernels_shows_the_byte_accounting() {
    numascope()
        .args(["bandwidth", "--list-kernels"])
        .assert()
        .success()
        .stdout(predicate::str::contains("triad"))
        .stdout(predicate::str::contains("copy-nt"))
        .stdout(predicate::str::contains("1 MB = 10^6 B"));
}

#[test]
fn a_run_reports_the_json_contract() {
    let mut args = vec!["bandwidth", "--kernel", "triad,write-nt", "--json"];
    args.extend(QUICK);
    let v = json(&args);
    assert_eq!(v["schema_version"], 1);
    let r = &v["results"][0];
    assert_eq!(r["kernel"], "triad");
    assert_eq!(r["threads"], 1);
    assert_eq!(r["bytes_per_element"]["read"], 16);
    assert_eq!(r["bytes_per_element"]["written"], 8);
    assert_eq!(r["placement_fraction"], 1.0);
    assert!(r["mb_per_s"]["median"].as_f64().unwrap() > 0.0);
    assert!(r["mb_per_s"]["max"].as_f64().unwrap() >= r["mb_per_s"]["median"].as_f64().unwrap());
    assert_eq!(r["mb_per_s"]["per_thread"].as_array().unwrap().len(), 1);
    assert!(r["dram_mb_per_s_estimate"]["median"].as_f64().unwrap() > 0.0);
    assert!(r["isa"].is_string());
    assert_eq!(r["memory_nodes"][0], 0);
    assert_eq!(v["results"][1]["non_temporal"], true);
}

#[test]
fn matrix_and_scaling_run_with_verified_placement() {
    let mut args = vec!["bandwidth", "--matrix", "--kernel", "copy", "--json"];
    args.extend(QUICK);
    let v = json(&args);
    let m = &v["matrix"][0];
    assert_eq!(m["kernel"], "copy");
    assert_eq!(m["cells"][0]["initiator"], 0);
    assert_eq!(m["cells"][0]["target"], 0);
    assert_eq!(m["cells"][0]["placement_fraction"], 1.0);

    let mut args = vec!["bandwidth", "--scaling", "--kernel", "read", "--json"];
    args.extend(QUICK);
    let v = json(&args);
    let s = &v["scaling"][0]["series"][0];
    assert_eq!(s["mode"], "packed");
    assert_eq!(s["points"][0]["threads"], 1);
    for r in v["results"].as_array().unwrap() {
        assert_eq!(r["placement_fraction"], 1.0);
    }
}

#[test]
fn text_output_states_the_unit() {
    let mut args = vec!["bandwidth", "--kernel", "copy"];
    args.extend(QUICK);
    numascope()
        .args(&args)
        .assert()
        .success()
        .stdout(predicate::str::contains("MB/s median (1 MB = 10^6 B)"));
}

fn refuses(args: &[&str], needle: &str) {
    numascope()
        .args(args)
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("numascope: error: "))
        .stderr(predicate::str::contains(needle))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    refuses(&["bandwidth", "--kernel", "tirad"], "the kernels are: read");
    refuses(
        &["bandwidth", "--isa", "sse9"],
        "use scalar, avx2 or avx512",
    );
    refuses(&["bandwidth", "--threads", "0"], "--threads 0");
    refuses(&["bandwidth", "--threads", "4096"], "use at most");
    refuses(&["bandwidth", "--cpus", "4095"], "CPU 4095 does not exist");
    refuses(&["bandwidth", "--duration", "0"], "not positive");
    refuses(&["bandwidth", "--duration", "soon"], "not a duration");
    refuses(&["bandwidth", "--size", "900TiB"], "smaller --size");
    refuses(&["bandwidth", "--mem-nodes", "63"], "does not exist");
    refuses(
        &["bandwidth", "--kernel", "triad", "--mem-nodes", "0,0"],
        "one per stream",
    );
    refuses(&["bandwidth", "--placement", "far"], "not a placement");
}

#[test]
fn a_node_without_memory_is_refused_as_a_target() {
    refuses(
        &[
            "--sysfs-root",
            &fixture("edge-memoryless-node"),
            "bandwidth",
            "--mem-nodes",
            "1",
        ],
        "node 1 has no memory",
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn a_missing_isa_is_refused_when_forced() {
    // Only checkable where the CPU lacks one; elsewhere the forced ISA simply runs.
    for isa in ["avx2", "avx512"] {
        let has = match isa {
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            _ => std::arch::is_x86_feature_detected!("avx512f"),
        };
        if !has {
            refuses(&["bandwidth", "--isa", isa], "drop --isa");
        }
    }
}
