//! End-to-end checks of `numascope placement` and `numascope inspect` on this machine (node 0
//! exists everywhere), and of their refusals of bad input.

mod common;
use common::DefaultStopSignals;

use common::{json_of as json, numascope};
use predicates::prelude::*;

#[test]
fn bind_to_node_0_puts_every_page_there() {
    let v = json(&[
        "placement",
        "--policy",
        "bind",
        "--nodes",
        "0",
        "--size",
        "8MiB",
        "--json",
    ]);
    assert_eq!(v["report"]["pages"], 2048);
    assert_eq!(v["report"]["histogram"][0]["node"], 0);
    assert_eq!(v["report"]["histogram"][0]["pages"], 2048);
    assert_eq!(v["report"]["fraction_on_intended"], 1.0);
    assert_eq!(v["matches"], true);
}

#[test]
fn pinned_first_touch_runs_on_the_cpu_asked() {
    let v = json(&["placement", "--cpu", "0", "--size", "1MiB", "--json"]);
    assert_eq!(v["cpu"], 0);
    assert_eq!(v["ran_on_cpu"], 0);
    assert_eq!(v["policy"], "first-touch");
}

#[test]
fn text_output_shows_histogram_and_numactl_line() {
    numascope()
        .args([
            "placement",
            "--policy",
            "interleave",
            "--nodes",
            "all",
            "--size",
            "4MiB",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("MATCHES"))
        .stdout(predicate::str::contains("numactl --interleave=0"));
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["placement", "--policy", "nope"], "`nope` is not a policy"),
        (&["placement", "--policy", "bind"], "--mem-nodes"),
        (&["placement", "--policy", "bind", "--nodes", ""], "empty"),
        (
            &["placement", "--policy", "bind", "--nodes", "0-"],
            "missing end",
        ),
        (
            &["placement", "--policy", "bind", "--nodes", "99"],
            "node 99 does not exist",
        ),
        (
            &["placement", "--policy", "weighted", "--weights", "0:0"],
            "sum to zero",
        ),
        (
            &["placement", "--policy", "weighted", "--weights", "0:x"],
            "not a whole-number weight",
        ),
        (&["placement", "--size", "12XB"], "`12XB` is not a size"),
        (&["placement", "--size", "0"], "0 bytes"),
        (
            &[
                "placement",
                "--policy",
                "bind",
                "--nodes",
                "0",
                "--size",
                "64TiB",
            ],
            "available on node(s) 0",
        ),
        (&["placement", "--cpu", "4096"], "CPU 4096 does not exist"),
        (
            &["placement", "--page-size", "8k"],
            "`8k` is not a page size",
        ),
        (&["inspect", "4194303"], "no process 4194303"),
    ];
    for (args, needle) in cases {
        let out = numascope().args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("numascope: error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn placement_is_refused_on_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sys/devices/system/node/node0")).unwrap();
    numascope()
        .args(["--sysfs-root", dir.path().to_str().unwrap(), "placement"])
        .assert()
        // The environment refuses (exit status 3).
        .code(3)
        .stderr(predicate::str::contains("snapshot"));
}

#[test]
fn inspect_sees_a_bound_buffer_on_node_0() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_numascope"))
        .args([
            "placement",
            "--policy",
            "bind",
            "--nodes",
            "0",
            "--size",
            "16MiB",
            "--hold",
            "20",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .default_stop_signals()
        .spawn()
        .unwrap();
    // Wait for the JSON (printed after the buffer is faulted in).
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.ends_with(b"}\n") {
        let n = std::io::Read::read(&mut stdout, &mut chunk).unwrap();
        assert!(n > 0, "placement exited early");
        buf.extend_from_slice(&chunk[..n]);
    }
    let v = json(&["inspect", &child.id().to_string(), "--json"]);
    child.kill().unwrap();
    let _ = child.wait();
    let node0 = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == 0)
        .unwrap();
    assert!(node0["bytes"].as_u64().unwrap() >= 16 << 20, "{node0}");
    assert!(v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p[0] == "bind:0"));
    assert!(!v["threads"].as_array().unwrap().is_empty());
}
