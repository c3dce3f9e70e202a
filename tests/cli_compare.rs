//! `numascope compare` as a test a script can use: two results files of the same
//! configuration (this machine's own quick run, its figures given 95 % intervals and nudged
//! within them) compare as "no difference" with exit status 0; the same run with its scenario
//! bandwidths halved exits 1 and names them; a missing file exits 2. Figures without an
//! interval are shown and not judged, so an older results file never "differs".

use std::path::{Path, PathBuf};

mod common;

use common::numascope;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/this-machine-kvm-2cpu.json")
}

fn load() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap()
}

/// True for an object shaped like a `Summary` (median, min, max, p90, p99, samples).
fn is_summary(v: &Value) -> bool {
    ["median", "min", "max", "p90", "p99", "samples"]
        .iter()
        .all(|k| v.get(k).is_some_and(Value::is_number))
}

/// Applies `f` to every summary in the file.
fn each_summary(v: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    if is_summary(v) {
        f(v);
        return;
    }
    match v {
        Value::Object(m) => m.values_mut().for_each(|x| each_summary(x, f)),
        Value::Array(a) => a.iter_mut().for_each(|x| each_summary(x, f)),
        _ => {}
    }
}

/// Gives every summary nine repetitions and an interval of +-`half` around its median,
/// scaled by `scale`.
fn with_intervals(v: &mut Value, half: f64, scale: &dyn Fn(usize) -> f64) {
    let mut k = 0;
    each_summary(v, &mut |s| {
        let f = scale(k);
        k += 1;
        let m = s["median"].as_f64().unwrap() * f;
        for key in ["median", "min", "max", "p90", "p99"] {
            let x = s[key].as_f64().unwrap() * f;
            s[key] = x.into();
        }
        s["samples"] = 9.into();
        s["ci_low"] = (m * (1.0 - half)).into();
        s["ci_high"] = (m * (1.0 + half)).into();
        s["ci_level"] = 0.961.into();
    });
}

fn write(dir: &Path, name: &str, v: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p.display().to_string()
}

fn compare(a: &str, b: &str) -> (i32, String) {
    let out = numascope().args(["compare", a, b]).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A/A: the same configuration twice, each figure nudged by up to 1 % (inside its +-3 %
/// interval): no difference, exit 0.
#[test]
fn same_configuration_twice_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = load();
    with_intervals(&mut a, 0.03, &|_| 1.0);
    let mut b = load();
    with_intervals(&mut b, 0.03, &|k| 1.0 + 0.01 * ((k % 3) as f64 - 1.0));
    let (pa, pb) = (
        write(dir.path(), "a.json", &a),
        write(dir.path(), "b.json", &b),
    );
    let (code, text) = compare(&pa, &pb);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("Verdict: no difference beyond noise (exit status 0)."),
        "{text}"
    );
    assert!(text.contains("0 difference(s) beyond noise"), "{text}");
}

/// A real difference: the scenario bandwidths halved. Exit 1, and the rows say which.
#[test]
fn halved_bandwidth_exits_1_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = load();
    with_intervals(&mut a, 0.03, &|_| 1.0);
    let mut b = a.clone();
    for row in b["scenarios"]["scenarios"].as_array_mut().unwrap() {
        if row["mb_per_s"].is_object() {
            with_intervals(&mut row["mb_per_s"], 0.03, &|_| 0.5);
        }
    }
    let (pa, pb) = (
        write(dir.path(), "a.json", &a),
        write(dir.path(), "b.json", &b),
    );
    let (code, text) = compare(&pa, &pb);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("Verdict: the runs differ beyond noise (exit status 1)."),
        "{text}"
    );
    let worse: Vec<&str> = text.lines().filter(|l| l.contains("*worse")).collect();
    assert!(
        !worse.is_empty() && worse.iter().all(|l| l.contains("scenario")),
        "{text}"
    );
    // The JSON says the same.
    let out = numascope()
        .args(["compare", &pa, &pb, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["differs"], true);
}

/// An older results file (no intervals) compared with itself halved: shown, not judged, and
/// said first, exit 4: nothing compared is not "no difference".
#[test]
fn files_without_intervals_are_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let a = load();
    let mut b = load();
    each_summary(&mut b, &mut |s| {
        for key in ["median", "min", "max", "p90", "p99"] {
            let x = s[key].as_f64().unwrap() * 0.5;
            s[key] = x.into();
        }
    });
    let (pa, pb) = (
        write(dir.path(), "a.json", &a),
        write(dir.path(), "b.json", &b),
    );
    let (code, text) = compare(&pa, &pb);
    assert_eq!(code, 4, "{text}");
    assert!(text.starts_with("Not comparable: only 0 of "), "{text}");
    assert!(text.contains("? a figure without an interval"), "{text}");
    assert!(!text.contains("no difference beyond noise"), "{text}");
}

#[test]
fn errors_exit_2_and_help_documents_the_exit_status() {
    numascope()
        .args(["compare", "/nonexistent/a.json", "/nonexistent/b.json"])
        .assert()
        .code(2);
    let out = numascope().args(["compare", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("Exit status: 0 when no figure differs beyond noise, 1 when at least one does, 2 on error"),
        "{help}"
    );
}

/// Gives a bandwidth `Rates` object nine repetitions and an interval of +-`half` around its
/// median, scaled by `f` (rates have no p90, so [`with_intervals`] leaves them alone).
fn rates_with_interval(r: &mut Value, half: f64, f: f64) {
    let m = r["median"].as_f64().unwrap() * f;
    for key in ["median", "min", "max"] {
        let x = r[key].as_f64().unwrap() * f;
        r[key] = x.into();
    }
    r["samples"] = 9.into();
    r["ci_low"] = (m * (1.0 - half)).into();
    r["ci_high"] = (m * (1.0 + half)).into();
    r["ci_level"] = 0.961.into();
}

/// The scaling curve's points are compared too. The same run with its
/// two-thread point at 40 % exits 1 and names that point only; unchanged, it exits 0.
#[test]
fn one_scaling_point_beyond_both_intervals_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = load();
    with_intervals(&mut a, 0.03, &|_| 1.0);
    for r in a["scaling"]["results"].as_array_mut().unwrap() {
        rates_with_interval(&mut r["mb_per_s"], 0.03, 1.0);
    }
    let mut b = a.clone();
    let (pa, pb) = (
        write(dir.path(), "a.json", &a),
        write(dir.path(), "b.json", &b),
    );
    let (code, text) = compare(&pa, &pb);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("scaling, read, node 0, packed, 2 threads"),
        "{text}"
    );
    rates_with_interval(&mut b["scaling"]["results"][1]["mb_per_s"], 0.03, 0.4);
    // The curve's point holds the median the report shows; it moves with its run.
    let point = &mut b["scaling"]["scaling"][0]["series"][0]["points"][1]["mb_per_s"];
    *point = (point.as_f64().unwrap() * 0.4).into();
    let pb = write(dir.path(), "b.json", &b);
    let (code, text) = compare(&pa, &pb);
    assert_eq!(code, 1, "{text}");
    let worse: Vec<&str> = text.lines().filter(|l| l.contains("*worse")).collect();
    assert_eq!(worse.len(), 1, "{text}");
    assert!(
        worse[0].contains("scaling, read, node 0, packed, 2 threads"),
        "{text}"
    );
    let out = numascope()
        .args(["compare", &pa, &pb, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sig: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["cells"][1]["significant"] == true)
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(sig, vec!["scaling/read/packed/0/2t"]);
}
