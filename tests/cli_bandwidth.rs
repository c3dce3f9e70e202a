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
        .stdout(predicate::str::contains("MB/s median [95 % interval] n"))
        .stdout(predicate::str::contains("1 MB = 10^6 B"));
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

/// A list of sizes measures every kernel at each size, each labelled with the cache
/// it fits in (whatever this machine declares), and a cache-resident run never shows a DRAM
/// figure in the text.
#[test]
fn a_size_list_measures_every_kernel_at_each_size() {
    let args = [
        "bandwidth",
        "--size",
        "4MiB,16KiB",
        "--kernel",
        "read,copy",
        "--duration",
        "20ms",
        "--repetitions",
        "2",
        "--json",
    ];
    let v = json(&args);
    let sw = &v["sweep"];
    assert_eq!(sw["mode"], "sizes");
    assert_eq!(sw["threads"], 1);
    let points = sw["points"].as_array().unwrap();
    let got: Vec<(String, u64)> = points
        .iter()
        .map(|p| {
            (
                p["kernel"].as_str().unwrap().to_string(),
                p["working_set_bytes_per_thread"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("read", 16384),
        ("copy", 16384),
        ("read", 4 << 20),
        ("copy", 4 << 20),
    ];
    assert_eq!(got, want.map(|(k, s)| (k.to_string(), s as u64)).to_vec());
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for p in points {
        let r = &results[p["result_index"].as_u64().unwrap() as usize];
        assert_eq!(r["kernel"], p["kernel"]);
        assert_eq!(r["mb_per_s"]["median"], p["mb_per_s"]);
        let fits = p["fits_in"].as_str().unwrap();
        match r["cache_level"].as_str() {
            Some(level) => assert_eq!(fits, format!("fits in {level}")),
            None => assert_eq!(fits, "DRAM"),
        }
        assert_eq!(p["cache_level"].is_null(), fits == "DRAM");
    }
}

#[test]
fn a_sweep_takes_two_points_per_octave_and_the_text_names_the_level() {
    let args = [
        "bandwidth",
        "--sweep",
        "16KiB..64KiB",
        "--kernel",
        "read",
        "--duration",
        "10ms",
        "--repetitions",
        "1",
        "--warmup",
        "0",
        "--json",
    ];
    let v = json(&args);
    assert_eq!(v["sweep"]["mode"], "sweep");
    let sizes: Vec<u64> = v["sweep"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["working_set_bytes_per_thread"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [16384, 22528, 32768, 46080, 65536]);
    let text = numascope().args(&args[..args.len() - 1]).output().unwrap();
    assert!(text.status.success());
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("working set per thread"), "{out}");
    assert!(out.contains("1 thread(s) on CPU"), "{out}");
    assert!(out.contains("read MB/s"), "{out}");
    assert!(
        out.contains("MB/s median [95 % interval] n over 1 repetitions"),
        "{out}"
    );
    assert!(out.contains("16 KiB"), "{out}");
}

#[test]
fn size_lists_and_sweeps_are_refused_where_they_do_nothing() {
    let sysfs = fixture("edge-sparse-hmat");
    let with = |rest: &[&'static str]| -> Vec<String> {
        ["--sysfs-root", sysfs.as_str(), "bandwidth"]
            .iter()
            .chain(rest)
            .map(|s| s.to_string())
            .collect()
    };
    let refuses = |a: &[String], needle: &str| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        refuses(&a, needle)
    };
    refuses(
        &with(&["--sweep", "1MiB..16KiB"]),
        "ends before it starts; give FROM below TO",
    );
    refuses(&with(&["--sweep", "16KiB"]), "is not a range");
    refuses(
        &with(&["--size", "16KiB,1MiB", "--matrix"]),
        "--matrix measures one working set, so a list of sizes does nothing there",
    );
    refuses(
        &with(&["--size", "16KiB,1MiB", "--scaling"]),
        "--scaling measures one working set",
    );
    refuses(&with(&["--size", "16KiB,0"]), "--size 0 holds no data");
    refuses(&with(&["--size", "16KiB,,1MiB"]), "--size");
    refuses(&with(&["--sweep", "..900TiB"]), "smaller --size");
    refuses(
        &with(&["--list-kernels", "--sweep", "16KiB..1MiB"]),
        "--sweep does nothing there",
    );
}

#[test]
fn sweep_conflicts_are_refused_by_the_parser() {
    for args in [
        ["bandwidth", "--sweep", "--size", "1MiB"],
        ["bandwidth", "--sweep", "--matrix", "--json"],
        ["bandwidth", "--sweep", "--scaling", "--json"],
    ] {
        numascope()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("cannot be used with"))
            .stdout(predicate::str::is_empty());
    }
}
