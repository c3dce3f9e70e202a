//! Every interval in the results files older numascopes wrote reads into the one interval type
//! (`stats::Interval`, flattened into the `ci_low`, `ci_high`, `ci_level` keys, or
//! `ratio_ci_*` beside a ratio) and is written back under the same keys with the same values:
//! the fixtures under tests/fixtures/results/ span schema versions 1 to 3.

use serde_json::Value;

use super::{check, parse};

const FIXTURES: &[&str] = &[
    "opteron-2node.json",
    "opteron-article.json",
    "this-machine-kvm-2cpu.json",
    "this-machine-peak.json",
    "this-machine-quick-v657.json",
];

fn read(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

fn is_interval_key(k: &str) -> bool {
    ["ci_low", "ci_high", "ci_level"]
        .iter()
        .any(|e| k.ends_with(e))
}

/// Each interval key of `written` (path, value), in document order.
fn interval_keys(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{path}/{k}");
                if is_interval_key(k) && !x.is_null() {
                    out.push((p, x.clone()));
                } else {
                    interval_keys(x, &p, out);
                }
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                interval_keys(x, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_interval_of_an_old_file_reads_and_writes_back_unchanged() {
    for name in FIXTURES {
        let text = read(name);
        let r = parse(&text, name).unwrap();
        let written: Value = serde_json::from_str(&text).unwrap();
        let again = serde_json::to_value(&r).unwrap();
        let mut keys = Vec::new();
        interval_keys(&written, "", &mut keys);
        for (path, value) in &keys {
            assert_eq!(again.pointer(path), Some(value), "{name}: {path}");
        }
        // Nothing of the intervals is left over as a key this numascope does not know.
        let notes = check::check(&text, &r, name).unwrap();
        assert!(
            notes.iter().all(|n| !n.contains("ci_")),
            "{name}: {notes:?}"
        );
        // What is written back reads as the same results.
        let back = parse(&serde_json::to_string(&r).unwrap(), name).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), again, "{name}");
    }
}

#[test]
fn an_interval_written_without_its_level_reads_at_95_percent() {
    // Schema 2: the peak's best thread counts and a domain's rate carry ci_low/ci_high only.
    let r = parse(&read("this-machine-peak.json"), "peak").unwrap();
    let peak = r.peak.as_ref().unwrap().peak.as_ref().unwrap();
    let best = peak.best[0].ci.expect("the fixture's best has an interval");
    assert_eq!(
        (best.low, best.high, best.level),
        (
            122.00282397195431,
            253.5862210597778,
            crate::stats::CONFIDENCE
        )
    );
    let rate = peak.domains[0].domains[0].in_all_mb_per_s.unwrap();
    assert_eq!(rate.estimate().interval, Some(best));
    // Written again, the level is said.
    let v = serde_json::to_value(&peak.best[0]).unwrap();
    assert_eq!(v["ci_level"], Value::from(crate::stats::CONFIDENCE));
}

#[test]
fn a_recommendations_paired_ratio_keeps_its_keys() {
    // Schema 1 (opteron-2node) and 3 (opteron-article) both write ratio_ci_*.
    for name in ["opteron-2node.json", "opteron-article.json"] {
        let r = parse(&read(name), name).unwrap();
        let recs = &r.scenarios.as_ref().unwrap().recommendations;
        let with: Vec<_> = recs.iter().filter_map(|x| x.ratio_ci).collect();
        assert!(!with.is_empty(), "{name}");
        let v = serde_json::to_value(&recs[0]).unwrap();
        let ci = recs[0].ratio_ci.unwrap();
        assert_eq!(
            [
                &v["ratio_ci_low"],
                &v["ratio_ci_high"],
                &v["ratio_ci_level"]
            ],
            [ci.low, ci.high, ci.level].map(Value::from).each_ref()
        );
        assert!(
            v.get("ci_low").is_none() && v.get("ratio_ci").is_none(),
            "{v}"
        );
    }
}

#[test]
fn a_sweep_point_without_an_interval_writes_no_interval_keys() {
    let j = r#"{"kernel":"read","working_set_bytes_per_thread":4096,"working_set_bytes":8192,
        "cache_level":1,"fits_in":"fits in L1d","mb_per_s":1000.0,"disturbed":false,
        "result_index":0}"#;
    let p: crate::results::bandwidth::SweepPoint = serde_json::from_str(j).unwrap();
    assert_eq!(p.ci, None);
    let v = serde_json::to_value(&p).unwrap();
    assert!(
        v.as_object().unwrap().keys().all(|k| !k.contains("ci_")),
        "{v}"
    );
    let with = j.replace(
        r#""disturbed""#,
        r#""ci_low":900.0,"ci_high":1100.0,"disturbed""#,
    );
    let p: crate::results::bandwidth::SweepPoint = serde_json::from_str(&with).unwrap();
    assert_eq!(p.ci.map(|c| c.ends()), Some((900.0, 1100.0)));
}
