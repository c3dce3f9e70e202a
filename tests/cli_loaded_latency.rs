//! End-to-end checks of `numascope loaded-latency`: a short curve on this machine has the
//! promised shape and verified placement (no timing is asserted: the machine is shared), and
//! bad input (on this machine and on replayed fixtures) is refused with one sentence, exit 2.

mod common;

#[path = "csv_tidy/check.rs"]
mod check;

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
        // The bandwidth per chaser sample window, one slice per kept sample.
        let n = p["ns_per_load"]["samples"].as_u64().unwrap();
        for key in [
            "total_mb_per_s_summary",
            "load_mb_per_s_summary",
            "dram_mb_per_s_estimate_summary",
        ] {
            assert_eq!(p[key]["samples"].as_u64(), Some(n), "{key}: {p}");
            assert!(p[key]["median"].as_f64().unwrap() >= 0.0);
        }
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
        (vec!["--mix", "1:0,2:1,1:0"], "names read twice"),
        (vec!["--mix", "1:0,,2:1"], "empty item"),
        (vec!["--mix", "1:0,5:2"], "--mix `5:2`"),
        (vec!["--mix", "all", "--kernel", "read"], "drop --kernel"),
        (
            vec!["--load-nodes", "0", "--load-cpus", "1"],
            "drop --load-cpus 1 or --load-nodes",
        ),
        (vec!["--matrix", "--load-nodes", "9"], "--load-nodes"),
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
        // A memory-only node cannot load; it can hold the load buffers.
        (
            "guest-A",
            vec!["--matrix", "--load-nodes", "1-2"],
            "node 2 has no usable CPU",
        ),
        (
            "guest-A",
            vec!["--matrix", "--load-nodes", "all", "--load-mem-nodes", "2"],
            "not this machine",
        ),
        (
            "guest-A",
            vec!["--load-nodes", "1", "--mix", "all"],
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

/// `--mix` with a list: one curve per mix from one team, in the order given, all with the
/// same chaser, placement and idle point (measured once); mechanics only.
#[test]
fn a_mix_list_gives_one_curve_per_mix_sharing_the_idle_point() {
    let Some(v) = curve_json(&[
        "--cpus",
        "0",
        "--load-cpus",
        "1",
        "--size",
        "8MiB",
        "--points",
        "2",
        "--duration",
        "30ms",
        "--mix",
        "2:1,1:0",
    ]) else {
        return;
    };
    assert_eq!(v["mode"], "family");
    assert!(
        v["order"].as_str().unwrap().contains("interleav")
            || v["order"].as_str().unwrap().contains("every mix")
    );
    let curves = v["curves"].as_array().unwrap();
    let labels: Vec<&str> = curves
        .iter()
        .map(|c| c["kernel_label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["read:write 2:1", "read"]);
    for c in curves {
        assert_eq!(c["chaser_cpu"], 0);
        assert_eq!(c["load_cpus"], serde_json::json!([1]));
        let points = c["points"].as_array().unwrap();
        assert_eq!(points.len(), 3, "idle + 2 loads: {c}");
        assert!(points[0]["target_fraction"].is_null());
        assert_eq!(
            points[0], curves[0]["points"][0],
            "one idle point heads both"
        );
        assert_eq!(points[2]["target_fraction"], 1.0);
    }
    // The 2:1 curve's load threads wrote; the read curve's did not.
    let written = |c: &serde_json::Value| {
        c["points"][2]["threads"][1]["lines_written"]
            .as_u64()
            .unwrap()
    };
    assert!(written(&curves[0]) > 0);
    assert_eq!(written(&curves[1]), 0);
}

/// The matrix with every mix, the load from every node onto a given node: on a one-node
/// machine the single cell, its load set the one other CPU, and the text says so.
#[test]
fn the_matrix_takes_mixes_load_nodes_and_a_load_memory_node() {
    if !two_cpus("loaded latency") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (csv_dir, html) = (dir.path().join("csv"), dir.path().join("m.html"));
    let json_path = dir.path().join("m.json");
    let args = [
        "loaded-latency",
        "--matrix",
        "--mix",
        "1:0,1:1",
        "--load-nodes",
        "all",
        "--load-mem-nodes",
        "0",
        "--size",
        "8MiB",
        "--points",
        "1",
        "--duration",
        "30ms",
    ];
    let out = numascope()
        .args(args)
        .arg("--json")
        .arg("--csv")
        .arg(&csv_dir)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&json_path, &out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "matrix");
    assert_eq!(v["load_mem_node"], 0);
    let nodes = v["load_nodes"].as_array().unwrap();
    assert!(!nodes.is_empty());
    for c in v["cells"].as_array().unwrap() {
        if !c["result"].is_object() {
            assert!(c["note"].is_string(), "{c}");
            continue;
        }
        let all: Vec<&serde_json::Value> = std::iter::once(&c["result"])
            .chain(c["further_mixes"].as_array().unwrap())
            .collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0]["kernel_label"], "read");
        assert_eq!(all[1]["kernel_label"], "read:write 1:1");
        for r in all {
            assert_eq!(r["mem_node"], c["target"]);
            assert_eq!(r["load_mem_node"], 0);
            let chaser = r["chaser_cpu"].as_u64().unwrap();
            assert!(!r["load_cpus"].as_array().unwrap().contains(&chaser.into()));
        }
    }
    // CSV: both files, held to docs/csv.md; HTML: the family chart.
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/csv.md"),
    )
    .unwrap();
    let documented = check::documented(&doc);
    for name in ["loaded_curves.csv", "loaded_summary.csv"] {
        let text = std::fs::read_to_string(csv_dir.join(name)).unwrap();
        let problems = check::check_file(name, &text, &documented[name]);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("one curve per load mix"), "no family chart");
    assert!(page.contains("id=\"matrix\""));
    // Text on a one-node machine names the single cell.
    let one_node = v["initiators"].as_array().unwrap().len() == 1
        && v["targets"].as_array().unwrap().len() == 1;
    if one_node {
        let text = numascope().args(args).output().unwrap();
        let t = String::from_utf8_lossy(&text.stdout);
        assert!(
            t.contains("so the matrix is the single cell 0 -> 0"),
            "{}: stdout {t}; stderr {}",
            text.status,
            String::from_utf8_lossy(&text.stderr)
        );
    }
    // An existing --html file is not overwritten.
    refused_in_one_sentence(
        numascope().args(args).arg("--html").arg(&html),
        "already exists",
    );
}
