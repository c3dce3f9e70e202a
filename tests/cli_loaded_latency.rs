//! End-to-end checks of `numascope loaded-latency`: a short curve on this machine has the
//! promised shape and verified placement (no timing is asserted: the machine is shared), and
//! bad input (on this machine and on replayed fixtures) is refused with one sentence, exit 2.

mod common;

use common::{
    fixture, json_of, numascope, refused_in_one_sentence, refused_in_one_sentence_with, two_cpus,
};

/// Runs `loaded-latency ARGS --json` on this machine, which must succeed; `None` (test
/// skipped) where there are fewer than two CPUs.
fn curve_json(args: &[&str]) -> Option<serde_json::Value> {
    if !two_cpus("loaded latency") {
        return None;
    }
    let all: Vec<&str> = ["loaded-latency"]
        .into_iter()
        .chain(args.iter().copied())
        .chain(["--json"])
        .collect();
    Some(json_of(&all))
}

#[test]
fn a_short_curve_has_every_point_and_verified_placement() {
    let Some(v) = curve_json(&[
        "--chaser-cpu",
        "0",
        "--load-cpus",
        "1",
        "--size",
        "16MiB",
        "--points",
        "3",
        "--duration",
        "60ms",
    ]) else {
        return;
    };
    assert_eq!(v["mode"], "curve");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["chaser_cpu"], 0);
    assert_eq!(v["load_cpus"], serde_json::json!([1]));
    assert_eq!(v["kernel_label"], "read");
    assert_eq!(v["chaser_placement"]["fraction_on_intended"], 1.0);
    assert_eq!(v["load_placement_fraction"], 1.0);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 4, "no-load point + 3 loads");
    assert!(points[0]["delay_ns"].is_null());
    assert_eq!(points[3]["delay_ns"], 0.0);
    // Shares of the full rate 1/3, 2/3, 1, paced from the warm-up's line time.
    let shares: Vec<Option<f64>> = points
        .iter()
        .map(|p| p["target_fraction"].as_f64())
        .collect();
    assert_eq!(shares, [None, Some(1.0 / 3.0), Some(2.0 / 3.0), Some(1.0)]);
    assert!(v["full_speed_ns_per_line"].as_f64().unwrap() > 0.0);
    assert_eq!(v["page_size"], "4k");
    assert!(v["curve"]["rise_at_peak_fraction"].is_number());
    for p in points {
        assert!(p["ns_per_load"]["median"].as_f64().unwrap() > 0.0);
        let total = p["total_mb_per_s"].as_f64().unwrap();
        let parts = p["load_mb_per_s"].as_f64().unwrap() + p["chaser_mb_per_s"].as_f64().unwrap();
        assert!((total - parts).abs() < 1e-6 * total.max(1.0));
        assert_eq!(p["threads"].as_array().unwrap().len(), 2);
    }
    // The idle point's load thread did nothing; the undelayed one moved data.
    assert_eq!(points[0]["load_mb_per_s"], 0.0);
    assert!(points[3]["load_mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["curve"]["peak_mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["traffic"]["perf"]["detail"].is_string());
}

#[test]
fn a_write_mix_moves_read_and_written_lines() {
    let Some(v) = curve_json(&[
        "--load-cpus",
        "1",
        "--chaser-cpu",
        "0",
        "--size",
        "8MiB",
        "--points",
        "1",
        "--duration",
        "40ms",
        "--mix",
        "1:1",
        "--page-size",
        "thp",
    ]) else {
        return;
    };
    assert_eq!(v["page_size"], "thp");
    assert_eq!(v["kernel_label"], "read:write 1:1");
    let t = &v["points"][1]["threads"][1];
    let (r, w) = (
        t["lines_read"].as_u64().unwrap(),
        t["lines_written"].as_u64().unwrap(),
    );
    assert!(r > 0 && w > 0 && r.abs_diff(w) <= 64, "{r} {w}");
}

#[test]
fn the_matrix_has_one_cell_per_initiator_and_target() {
    let Some(v) = curve_json(&[
        "--matrix",
        "--size",
        "8MiB",
        "--points",
        "1",
        "--duration",
        "40ms",
    ]) else {
        return;
    };
    assert_eq!(v["mode"], "matrix");
    let (i, t) = (
        v["initiators"].as_array().unwrap().len(),
        v["targets"].as_array().unwrap().len(),
    );
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), i * t);
    for c in cells {
        // Measured, or a stated reason (a node with a single CPU has no room for load).
        assert!(c["result"].is_object() || c["note"].is_string(), "{c}");
        if c["result"].is_object() {
            assert_eq!(c["result"]["mem_node"], c["target"]);
            assert_eq!(c["result"]["load_mem_node"], c["target"]);
        }
    }
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    let live: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--chaser-cpu", "0", "--load-cpus", "0,1"],
            "includes the chaser CPU 0",
        ),
        (vec!["--chaser-cpu", "0", "--load-cpus", ""], "--load-cpus"),
        (
            vec!["--chaser-cpu", "0", "--load-cpus", "4096"],
            "CPU 4096 does not exist",
        ),
        (vec!["--mix", "5:2"], "2:1, 3:1 or 1:1"),
        (vec!["--kernel", "triad"], "read, write or write-nt"),
        (vec!["--mix", "2:1", "--kernel", "write"], "drop --kernel"),
        (vec!["--mem-node", "9"], "node 9 does not exist"),
        (vec!["--duration", "5"], "no unit"),
        (vec!["--points", "0"], "--points 0"),
        (vec!["--matrix", "--chaser-cpu", "0"], "drop --cpus"),
        (vec!["--initiator-node", "9"], "node 9 does not exist"),
        (
            vec!["--size", "3MiB", "--page-size", "2m"],
            "not a multiple of the 2m huge page size",
        ),
    ];
    for (args, needle) in live {
        refused_in_one_sentence(numascope().arg("loaded-latency").args(&args), needle);
    }
    let replayed: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            "edge-sparse-hmat",
            vec!["--initiator-node", "5"],
            "memory-only node",
        ),
        (
            "edge-memoryless-node",
            vec!["--mem-node", "1"],
            "has no memory",
        ),
        (
            "edge-cgroup-restricted",
            vec!["--chaser-cpu", "0", "--load-cpus", "2"],
            "allowed CPUs",
        ),
        (
            "edge-cgroup-restricted",
            vec!["--chaser-cpu", "4", "--load-cpus", "5"],
            "not this machine",
        ),
    ];
    for (fx, args, needle) in replayed {
        // Valid flags on a snapshot: the environment refuses to pin (exit status 3).
        let code = if needle == "not this machine" { 3 } else { 2 };
        refused_in_one_sentence_with(
            numascope()
                .arg("--sysfs-root")
                .arg(fixture(fx))
                .arg("loaded-latency")
                .args(&args),
            needle,
            code,
        );
    }
}
