//! End-to-end checks of `numascope app -- CMD` with the suite's own test programs (cargo
//! examples, built before the integration tests): identical placements are merged and never
//! ranked against each other, the A/A comparison names no winner, the sampled numa_maps shows
//! the pages where the policy put them, a program that sets its own policy is reported as
//! overriding, and every bad input ends with one sentence and its documented exit status.
//! Mechanics only: no assertion depends on how fast anything ran.

mod common;
use common::DefaultStopSignals;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary under test with $TMPDIR in cargo's scratch directory for tests: runs that fail
/// keep their output directory there, not in the machine's /tmp.
fn numascope() -> assert_cmd::Command {
    let mut c = common::numascope();
    c.env("TMPDIR", env!("CARGO_TARGET_TMPDIR"));
    c
}

/// A test program of the suite's own (`examples/NAME.rs`), built as a plain binary next to
/// the binary under test. `cargo test --all-targets` compiles examples as test harnesses, so
/// the runnable program is built here with `cargo build --example NAME` (the same cargo and
/// target directory), once per test binary.
fn example(name: &str) -> String {
    static BUILT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_numascope"));
    let p = bin.parent().unwrap().join("examples").join(name);
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(format!("{name}.rs"));
    let modified = |q: &PathBuf| q.metadata().and_then(|m| m.modified()).ok();
    if !p.exists() || modified(&p) < modified(&src) {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", name])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build --example {name} failed");
    }
    assert!(
        p.exists(),
        "{} is missing after cargo build --example",
        p.display()
    );
    p.display().to_string()
}

/// The memory nodes of this machine.
fn memory_nodes() -> Vec<u64> {
    let t = std::fs::read_to_string("/sys/devices/system/node/has_memory").unwrap_or_default();
    let mut v = Vec::new();
    for part in t.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        v.extend(a.parse::<u64>().unwrap()..=b.parse::<u64>().unwrap());
    }
    v
}

/// Runs `numascope app --json ARGS` (ARGS split at whitespace); returns (exit code, JSON or
/// Null, stderr).
fn app(args: &str) -> (Option<i32>, Value, String) {
    let mut all = vec!["app", "--json"];
    all.extend(args.split_whitespace());
    let out = numascope().args(&all).output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn candidate<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no candidate {id} in {r}"))
}

#[test]
fn identical_placements_are_merged_and_never_ranked() {
    let stream = example("app_stream");
    let (code, r, err) = app(&format!(
        "--runs 1 --warmup 0 --sample-interval 5ms -- {stream} 8 2 300"
    ));
    assert_eq!(code, Some(0), "{err}");
    let cands = r["candidates"].as_array().unwrap();
    assert!(cands.len() >= 3, "{r}");
    let best = r["ranking"]["best"].as_str();
    for c in cands {
        if let Some(leader) = c["same_as"].as_str() {
            // A merged candidate shows its leader's figures and is never the named winner.
            assert_ne!(best, Some(c["id"].as_str().unwrap()));
            assert_eq!(c["wall_s"], candidate(&r, leader)["wall_s"]);
            assert!(c["runs"].as_array().unwrap().is_empty());
            assert!(c["same_reason"]
                .as_str()
                .unwrap()
                .starts_with("same placement here"));
        }
    }
    if memory_nodes().len() == 1 {
        // One memory node: every candidate places identically to the first.
        assert!(cands[1..].iter().all(|c| c["same_as"] == "default"), "{r}");
        assert_eq!(r["ranking"]["verdict"], "same-placement");
        assert!(r["ranking"]["text"]
            .as_str()
            .unwrap()
            .contains("indistinguishable here"));
    }
    assert_eq!(r["partial"], false);
}

#[test]
fn a_a_comes_out_without_a_winner() {
    let stream = example("app_stream");
    // Recognised as identical: merged, "same placement", measured once.
    let (code, r, err) = app(&format!(
        "--candidates default,default --runs 1 --warmup 0 -- {stream} 4 1"
    ));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["candidates"][1]["same_as"], "default");
    assert_eq!(r["ranking"]["verdict"], "same-placement");
    // Measured side by side anyway (--no-merge): two interleaved runs each give no interval,
    // so no winner is named whatever the times.
    let (code, r, err) = app(&format!(
        "--candidates default,default --no-merge --runs 2 --warmup 0 -- {stream} 4 1"
    ));
    assert_eq!(code, Some(0), "{err}");
    assert!(r["candidates"][1]["same_as"].is_null());
    assert_eq!(r["candidates"][1]["runs"].as_array().unwrap().len(), 2);
    let rounds: Vec<u64> = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["round"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(rounds, vec![0, 1, 0, 1]);
    assert_eq!(r["ranking"]["verdict"], "no-interval");
    assert!(r["ranking"]["best"].is_null());
}

/// The programs below hold their pages for 3 s after touching them: the sampler spaces its
/// reads to at most 0.5 % of a CPU (a few hundred ms apart for a small program), so a sample
/// falls in the hold unless the machine starves the sampler for seconds.
#[test]
fn sampling_shows_the_pages_where_the_policy_put_them() {
    let stream = example("app_stream");
    let node = memory_nodes()[0];
    let bind = format!("bind:{node}");
    let (code, r, err) = app(&format!(
        "--candidates {bind} --runs 1 --warmup 0 --sample-interval 5ms -- {stream} 16 1 3000"
    ));
    assert_eq!(code, Some(0), "{err}");
    let c = candidate(&r, &bind);
    let o = &c["observed"];
    assert!(o["samples"].as_u64().unwrap() >= 1, "{o}");
    let nodes = o["nodes"].as_array().unwrap();
    assert!(nodes.iter().all(|n| n["node"] == node), "{o}");
    let bytes: u64 = nodes.iter().map(|n| n["bytes"].as_u64().unwrap()).sum();
    assert!(bytes >= 16 << 20, "the 16 MiB buffer is resident: {o}");
    assert_eq!(o["fraction_on_intended"], 1.0);
    assert!(o["overriding"].is_null(), "{o}");
    assert!(o["policies"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p[0] == format!("bind:{node}")));
    assert_eq!(c["runs"][0]["exit_code"], 0);
}

#[test]
fn a_program_that_sets_its_own_policy_is_overriding() {
    let selfbind = example("app_selfbind");
    let (code, r, err) = app(&format!(
        "--candidates default --runs 1 --warmup 0 --sample-interval 5ms -- {selfbind} 8 3000"
    ));
    assert_eq!(code, Some(0), "{err}");
    let why = candidate(&r, "default")["observed"]["overriding"]
        .as_str()
        .unwrap_or_else(|| panic!("not reported as overriding: {r}"))
        .to_string();
    assert!(why.contains("interleave:"), "{why}");
}

#[test]
fn the_chasing_program_runs_and_output_files_are_written() {
    let chase = example("app_chase");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, r, err) = app(&format!(
        "--candidates default --runs 1 --warmup 1 --output {} -- {chase} 4 1",
        out.display()
    ));
    assert_eq!(code, Some(0), "{err}");
    let runs = candidate(&r, "default")["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["warmup"], true);
    let stdout = std::fs::read_to_string(runs[1]["stdout_file"].as_str().unwrap()).unwrap();
    assert!(stdout.starts_with("chased 1000000 loads"), "{stdout}");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(saved, r);
    let csv = std::fs::read_to_string(out.join("app.csv")).unwrap();
    assert!(
        csv.starts_with("candidate,policy,cpus,same_as,round,warmup,wall_s,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 3);
    let html = std::fs::read_to_string(out.join("app.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && !html.contains("<script"));
}

/// Without --output the program's output goes to $TMPDIR/numascope-app-PID: removed when every
/// run succeeded (the report then names no file), kept and named when a run failed.
#[test]
fn the_scratch_output_directory_is_removed_unless_a_run_failed() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = numascope()
            .env("TMPDIR", tmp.path())
            .args(["app", "--json", "--candidates", "default", "--warmup", "0"])
            .args(args)
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code(), json)
    };
    let (code, r) = run(&["--runs", "1", "--", "true"]);
    assert_eq!(code, Some(0));
    assert_eq!(r["candidates"][0]["runs"][0]["stdout_file"], Value::Null);
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    let (code, r) = run(&["--runs", "1", "--", "false"]);
    assert_eq!(code, Some(1));
    let kept = r["candidates"][0]["runs"][0]["stderr_file"]
        .as_str()
        .unwrap();
    assert!(std::path::Path::new(kept).starts_with(tmp.path()), "{kept}");
    assert!(std::path::Path::new(kept).exists(), "{kept}");
}

#[test]
fn bad_input_gets_one_sentence_and_its_exit_status() {
    let stream = example("app_stream");
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        (vec![], 2, "no command given"),
        (
            vec!["--".into(), "/nonexistent/numascope-test-prog".into()],
            2,
            "not found",
        ),
        (
            vec![
                "--candidates".into(),
                "bind:999".into(),
                "--".into(),
                stream.clone(),
            ],
            2,
            "node 999",
        ),
        (
            // Weights measured here weigh memory nodes against each other: refused by this
            // one-node machine (or, on more nodes, by a kernel without weighted interleave
            // or a user who may not set the system-wide weights): the environment, 3.
            vec![
                "--candidates".into(),
                "weighted:measured".into(),
                "--".into(),
                stream.clone(),
            ],
            3,
            "`weighted:measured` is not possible here",
        ),
        (
            vec![
                "--candidates".into(),
                "fastest".into(),
                "--".into(),
                stream.clone(),
            ],
            2,
            "not a candidate",
        ),
        (
            vec!["--runs".into(), "0".into(), "--".into(), stream.clone()],
            2,
            "--runs 0",
        ),
        (
            vec![
                "--time-limit".into(),
                "soon".into(),
                "--".into(),
                stream.clone(),
            ],
            2,
            "--time-limit",
        ),
    ];
    for (args, status, words) in cases {
        let mut a = vec!["app".to_string()];
        a.extend(args.iter().cloned());
        let out = numascope().args(&a).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{a:?}: {err}");
        assert!(
            err.starts_with("numascope: error: ") && err.contains(words),
            "{a:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{a:?}: {err}");
    }
    // A snapshot root cannot run programs: this environment refuses (3).
    let out = numascope()
        .args([
            "--sysfs-root",
            &common::fixture("guest-A"),
            "app",
            "--",
            &stream,
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_failing_or_overlong_program_stops_the_comparison_with_status_1() {
    let (code, r, err) = app("--runs 2 --warmup 0 -- false");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("exited with status 1"), "{err}");
    assert_eq!(r["partial"], true);
    assert_eq!(r["candidates"][0]["runs"].as_array().unwrap().len(), 1);
    let (code, r, err) = app("--candidates default --runs 2 --warmup 0 --ignore-failure -- false");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["candidates"][0]["runs"].as_array().unwrap().len(), 2);
    let (code, r, err) = app("--time-limit 100ms --runs 1 -- sleep 30");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--time-limit"), "{err}");
    assert_eq!(r["candidates"][0]["runs"][0]["stopped"], true);
    assert_eq!(r["partial"], true);
}

#[test]
fn sigterm_stops_the_program_and_keeps_what_was_measured() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .env("TMPDIR", env!("CARGO_TARGET_TMPDIR"))
        .args([
            "app",
            "--json",
            "--candidates",
            "default",
            "--runs",
            "3",
            "--",
            "sleep",
            "30",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .default_stop_signals()
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill with the pid of our own running child and a valid signal number.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(20),
            "app did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143));
    let r: Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    assert_eq!(r["partial"], true);
    assert!(r["stopped"].as_str().unwrap().contains("SIGTERM"), "{r}");
}

/// `--tiering` changes system-wide settings, so it needs root; on a machine where no
/// kernel-managed candidate can run (one memory node, one tier) it is refused in one sentence
/// naming each candidate's reason. Both refusals exit 3. A multi-node root machine runs them
/// (checked in the guests, tests/vm), so there this test has nothing to refuse and stops.
#[test]
fn tiering_is_refused_in_one_sentence_without_root_or_a_second_tier() {
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2))
        == Some("0");
    let nodes = std::fs::read_to_string("/sys/devices/system/node/has_memory").unwrap_or_default();
    let one_node = !nodes.contains(',') && !nodes.contains('-');
    if root && !one_node {
        eprintln!("skipped: root on a multi-node machine runs the kernel-managed candidates");
        return;
    }
    let out = numascope()
        .args([
            "app",
            "--tiering",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    if root {
        assert!(
            err.contains("--tiering has no kernel-managed candidate"),
            "{err}"
        );
        assert!(
            err.contains("kernel:numa-balancing: NUMA balancing needs more than one memory node"),
            "{err}"
        );
    } else {
        assert!(err.contains("needs root"), "{err}");
    }
}
