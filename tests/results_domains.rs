//! `report` and `compare` of a results file with values outside their domain name the field
//! and refuse it; keys from a newer writer are noted once and the file is still read
//! (a negative `duration_s` and an unknown key were rendered without a word).

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn sample() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/opteron-2node.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn report(v: &Value) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("results.json");
    std::fs::write(&p, v.to_string()).unwrap();
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("report")
        .arg(&p)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_negative_duration_is_refused_naming_the_field() {
    let mut v = sample();
    v["duration_s"] = (-12.5).into();
    let (code, err) = report(&v);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("`duration_s`") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn unknown_keys_are_noted_once_and_the_file_is_read() {
    let mut v = sample();
    v["written_by_the_future"] = "yes".into();
    v["plan"]["another_new_field"] = 3.into();
    let (code, err) = report(&v);
    assert_eq!(code, Some(0), "{err}");
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("does not know"))
        .collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(
        notes[0].contains("written_by_the_future") && notes[0].contains("plan.another_new_field")
    );
}
