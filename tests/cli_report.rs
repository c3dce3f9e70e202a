//! End-to-end checks of `numascope report` and `numascope compare` on the fixed results file
//! `tests/fixtures/results/opteron-2node.json` (the Opteron article's machine): text, JSON,
//! HTML, CSV and hwloc XML outputs, the comparison of two saved runs and a fleet, and the
//! refusals of bad input (not JSON, truncated, unknown version, output that exists).

use std::path::{Path, PathBuf};

mod common;

use common::numascope;
use predicates::prelude::*;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/opteron-2node.json")
}

fn stdout(args: &[&str]) -> String {
    let out = numascope().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fixture_str() -> String {
    fixture().display().to_string()
}

#[test]
fn text_report_snapshot() {
    let text = stdout(&["report", &fixture_str()]);
    assert_eq!(text, stdout(&["report", &fixture_str(), "--text"]));
    insta::assert_snapshot!(text);
    // Every table, sweep point and decision: the former default text, unchanged.
    let full = stdout(&["report", &fixture_str(), "--full"]);
    assert_eq!(full, stdout(&["report", &fixture_str(), "--detail"]));
    insta::assert_snapshot!("text_report_full", full);
}

#[test]
fn json_round_trips_byte_for_byte() {
    let json = stdout(&["report", &fixture_str(), "--json"]);
    assert_eq!(json, std::fs::read_to_string(fixture()).unwrap());
}

#[test]
fn html_csv_and_hwloc_files() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let csv = dir.path().join("csv");
    let xml = dir.path().join("topo.xml");
    let out = numascope()
        .args(["report", &fixture_str(), "--html"])
        .arg(&html)
        .arg("--csv")
        .arg(&csv)
        .arg("--hwloc-xml")
        .arg(&xml)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "files only: nothing on stdout unless --text"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    insta::assert_snapshot!("report_html", page);
    assert_eq!(std::fs::read_dir(&csv).unwrap().count(), 10);
    let m = std::fs::read_to_string(csv.join("latency_matrix.csv")).unwrap();
    assert!(m.starts_with("cpu_node,memory_node,working_set_bytes,ns_per_load_median,"));
    assert!(std::fs::read_to_string(&xml)
        .unwrap()
        .contains("<memattr name=\"Latency\" flags=\"6\">"));
    // No temporary files left behind.
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains(".tmp-")));
}

#[test]
fn existing_outputs_need_force_and_nothing_is_half_written() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    std::fs::write(&html, "keep me").unwrap();
    let csv = dir.path().join("csv");
    numascope()
        .args(["report", &fixture_str(), "--csv"])
        .arg(&csv)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "report.html already exists; add --force",
        ));
    assert_eq!(std::fs::read_to_string(&html).unwrap(), "keep me");
    assert!(
        !csv.exists(),
        "the CSV directory must not be written when another output is refused"
    );
    numascope()
        .args(["report", &fixture_str(), "--force", "--html"])
        .arg(&html)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn bad_results_files_are_one_sentence_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(fixture()).unwrap();
    let cases = [
        (
            "notjson.json",
            "this is not json".to_string(),
            "is not a numascope results file: it is not JSON",
        ),
        (
            "cut.json",
            full[..full.len() / 3].to_string(),
            "is truncated",
        ),
        (
            "v9.json",
            full.replacen("\"schema_version\": 1,", "\"schema_version\": 9,", 1),
            "has results schema version 9",
        ),
    ];
    for (name, text, msg) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let out = numascope().arg("report").arg(&p).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("numascope: error: ") && err.contains(msg),
            "{name}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    }
    numascope()
        .args(["report", "/nonexistent/results.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot read results file /nonexistent/results.json",
        ));
}

/// Gives the latency matrix cells nine repetitions and their min..max as the 95 % interval
/// (the article gives ranges, not intervals; `compare` judges only figures with one).
fn with_latency_intervals(v: &mut serde_json::Value) {
    for c in v["latency"]["matrix"]["cells"].as_array_mut().unwrap() {
        let s = &mut c["result"]["ns_per_load"];
        s["samples"] = 9.into();
        s["ci_low"] = s["min"].clone();
        s["ci_high"] = s["max"].clone();
        s["ci_level"] = 0.961.into();
    }
}

/// The article's run with intervals on its latency matrix.
fn reference(dir: &Path) -> PathBuf {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    with_latency_intervals(&mut v);
    let p = dir.join("opteron.json");
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    p
}

/// A second run made from the article's node-interleave table: every CPU sees 57.5 ns and
/// 4211 MB/s, so local pairs get worse and remote pairs better. Same host, so the two
/// compare (another host would be marked not comparable).
fn interleaved(dir: &Path) -> PathBuf {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    for c in v["latency"]["matrix"]["cells"].as_array_mut().unwrap() {
        let s = &mut c["result"]["ns_per_load"];
        s["median"] = 57.5.into();
        s["min"] = 57.5.into();
        s["max"] = 60.5.into();
    }
    with_latency_intervals(&mut v);
    let cells = v["bandwidth"]["matrix"][0]["cells"]
        .as_array()
        .unwrap()
        .clone();
    for (i, c) in cells.iter().enumerate() {
        v["bandwidth"]["matrix"][0]["cells"][i]["mb_per_s"] = 4211.0.into();
        let r = c["result_index"].as_u64().unwrap() as usize;
        let s = &mut v["bandwidth"]["results"][r]["mb_per_s"];
        s["median"] = 4211.0.into();
        s["min"] = 4208.0.into();
        s["max"] = 4214.0.into();
    }
    let p = dir.join("interleave.json");
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    p
}

/// `compare` exits 1 when the runs differ; its stdout is the comparison.
fn compare_differing(args: &[&str]) -> String {
    let out = numascope().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn compare_two_saved_runs() {
    let dir = tempfile::tempdir().unwrap();
    let a = reference(dir.path()).display().to_string();
    let b = interleaved(dir.path()).display().to_string();
    let text = compare_differing(&["compare", &a, &b]);
    // The temporary directory's name varies; the snapshot shows it as DIR.
    let text = text.replace(&dir.path().display().to_string(), "DIR");
    insta::assert_snapshot!("compare_interleave", text);
    let v: serde_json::Value =
        serde_json::from_str(&compare_differing(&["compare", &a, &b, "--json"])).unwrap();
    // The four latency cells have intervals and differ; the bandwidth figures of this file
    // have none, so they are shown and not judged.
    assert_eq!(v["significant_per_run"], serde_json::json!([0, 4]));
    assert_eq!(v["differs"], true);
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "latency-matrix/0->1")
        .unwrap();
    assert_eq!(row["cells"][1]["better_than_first"], true);
}

#[test]
fn compare_fleet_names_the_outlier() {
    let dir = tempfile::tempdir().unwrap();
    let full: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    let mut paths = Vec::new();
    for (i, scale) in [1.0, 1.01, 0.99, 1.6, 1.005].iter().enumerate() {
        let mut v = full.clone();
        v["host"] = format!("node{i:02}").into();
        for c in v["latency"]["matrix"]["cells"].as_array_mut().unwrap() {
            let s = &mut c["result"]["ns_per_load"];
            for k in ["median", "min", "max"] {
                s[k] = (s[k].as_f64().unwrap() * scale).into();
            }
        }
        let p = dir.path().join(format!("r{i}.json"));
        std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
        paths.push(p.display().to_string());
    }
    let mut args = vec!["compare"];
    args.extend(paths.iter().map(String::as_str));
    // Five hosts: no figure compares run to run (another host), which is said first and
    // exits 4; the fleet rule still names the outlier.
    let out = numascope().args(&args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.starts_with("Not comparable: "), "{text}");
    assert!(text.contains("Outlier: node03 (4 of"), "{text}");
    assert_eq!(text.matches("Outlier:").count(), 1, "{text}");
}

#[test]
fn compare_needs_two_files() {
    numascope()
        .args(["compare", &fixture_str()])
        .assert()
        .code(2);
}

/// This machine's own `run --quick` (1 node, 2 vCPUs, KVM; release build, 2026-11-21),
/// re-rendered: a real run with every part present (loaded latency included).
#[test]
fn real_run_of_this_machine_renders() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results/this-machine-kvm-2cpu.json");
    let p = p.display().to_string();
    let text = stdout(&["report", &p, "--full"]);
    insta::assert_snapshot!("this_machine_text", text);
    assert!(text.contains("Loaded latency"), "{text}");
    assert!(stdout(&["report", &p]).contains("Loaded latency"));
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    numascope()
        .args(["report", &p, "--html"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains("its measurement engine is not part of this build"));
    assert_eq!(
        page.matches("<svg ").count(),
        9,
        "sweep, scaling, loaded latency, c2c, scenario bars; the three line charts and the bar \
         chart twice (wide and phone layouts); the one-node latency, SLIT and bandwidth \
         matrices are plain figures, not heat maps"
    );
    // The one cell is the local latency card's figure: named in its section, not repeated.
    assert!(!page.contains("Measured latency (ns), CPU node 0 \u{2192} memory node 0</dt>"));
    assert!(page.contains(
        "the one measured cell (CPU node 0 \u{2192} memory node 0) is the local latency card above"
    ));
    assert_eq!(page.matches("<div class=\"chart-narrow\">").count(), 4);
    // A single-node run has nothing to export for remote pairs, but its own cell still exports.
    let xml = dir.path().join("t.xml");
    numascope()
        .args(["report", &p, "--hwloc-xml"])
        .arg(&xml)
        .assert()
        .success();
}

/// Every part's warnings and the run's verdict reach the text report and the top of
/// the HTML page (a results file whose latency and c2c parts carry warnings).
#[test]
fn part_warnings_and_the_verdict_are_shown_in_text_and_html() {
    let mut r = numascope::results_file::load(&fixture()).unwrap();
    r.latency
        .as_mut()
        .unwrap()
        .warnings
        .push("latency figure disturbed: CPU 1 ran only 47% of its time".into());
    r.c2c
        .as_mut()
        .unwrap()
        .warnings
        .push("pair CPU 0 -> CPU 1 ran only 49% of its time".into());
    r.quality = Some(numascope::run::findings::quality(&r));
    let sentence = r.quality.as_ref().unwrap().sentence.clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("results.json");
    std::fs::write(&file, r.to_json()).unwrap();
    let f = file.display().to_string();
    let short = stdout(&["report", &f]);
    assert!(
        short.contains("warning: latency: latency figure disturbed"),
        "{short}"
    );
    assert!(
        short.contains("warning: core to core: pair CPU 0 -> CPU 1"),
        "{short}"
    );
    let text = stdout(&["report", &f, "--full"]);
    assert!(text.contains(&format!("verdict: {sentence}")), "{text}");
    assert!(text.contains("warning: latency: latency figure disturbed: CPU 1 ran only 47%"));
    assert!(text.contains("warning: core to core: pair CPU 0 -> CPU 1 ran only 49%"));
    let html = dir.path().join("report.html");
    numascope()
        .args(["report", &f, "--html"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    let banner = page.find("id=\"verdict\"").unwrap();
    let first_section = page.find("<section").unwrap();
    assert!(banner < first_section);
    let top = &page[banner..first_section];
    assert!(top.contains("latency: latency figure disturbed: CPU 1 ran only 47% of its time"));
    assert!(top.contains("core to core: pair CPU 0 -&gt; CPU 1 ran only 49% of its time"));
}

/// On a one-node machine the weighted-interleave advice shows no table (it had a
/// header and nothing to weigh) in the text report or the HTML page, and says why in one line.
#[test]
fn one_node_machine_has_no_weighted_interleave_table() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results/this-machine-kvm-2cpu.json");
    let p = p.display().to_string();
    let text = stdout(&["report", &p, "--full"]);
    let line =
        "one memory node: weighted interleave has nothing to spread pages over on this machine";
    assert_eq!(text.matches(line).count(), 1, "{text}");
    assert!(!text.contains("To apply:"));
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    numascope()
        .args(["report", &p, "--html"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    // Nothing measured: out of the navigation and the body, named once at the end.
    assert!(!page.contains("<section id=\"advisor\">"));
    assert!(!page.contains("href=\"#advisor\""));
    assert_eq!(
        page.matches("Weighted interleave (one memory node: weighted interleave has nothing to spread pages over)").count(),
        1
    );
}

/// `report DIR` reads the results.json of the directory a run wrote and named; a directory
/// without one is refused in one sentence naming it.
#[test]
fn report_takes_the_run_directory() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("numascope-host-20260101-000000");
    std::fs::create_dir(&run_dir).unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/this-machine-kvm-2cpu.json"
    );
    let by_file = common::numascope()
        .args(["report", fixture])
        .output()
        .unwrap();
    assert!(by_file.status.success());
    std::fs::copy(fixture, run_dir.join("results.json")).unwrap();
    let by_dir = common::numascope()
        .arg("report")
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(
        by_dir.status.success(),
        "{}",
        String::from_utf8_lossy(&by_dir.stderr)
    );
    assert_eq!(by_dir.stdout, by_file.stdout);
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    common::refused_in_one_sentence(
        common::numascope().arg("report").arg(&empty),
        "is a directory without a results.json",
    );
}
