//! The end-to-end A/A check (docs/METHODOLOGY.md, "Testing the test"): two short runs of the same
//! configuration on this machine, then `numascope compare A B` must say "no difference beyond
//! noise" and exit 0, or, when too few figures could be judged, say so first and exit 4 (issue
//! 33). It cannot flake on a busy machine for an honest reason, not a loose one: a figure
//! marked disturbed or with an interval wider than +-10 % is shown and not judged (whatever
//! the run's verdict), and every judged difference must clear both runs' intervals and the
//! metric's between-run floor. It can still fail: two quiet runs whose figures differ beyond
//! all of that exit 1, and that is a finding about numascope's floors or intervals. The test
//! also checks the mechanics: every cell is judged or says why not, and quiet runs are judged.

use std::path::Path;
use std::process::Command;

/// One quick run of the cheapest parts with intervals (the latency and bandwidth matrices)
/// into `out`; returns its results.json parsed.
fn quick_run(lock: &Path, out: &Path) -> serde_json::Value {
    let st = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .env("NUMASCOPE_LOCK_DIR", lock)
        .args([
            "run",
            "--quick",
            "--only",
            "latency-matrix,bandwidth-matrix",
            "-q",
        ])
        .arg("--output")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

fn verdict(r: &serde_json::Value) -> String {
    r["quality"]["verdict"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

#[test]
fn two_runs_of_one_configuration_compare_as_no_difference() {
    // A lock of its own so the measuring lock of other tests does not serialise with this one.
    let lock = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a"), dir.path().join("b"));
    let (ra, rb) = (quick_run(lock.path(), &pa), quick_run(lock.path(), &pb));
    let (fa, fb) = (pa.join("results.json"), pb.join("results.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .args(["compare", "--json"])
        .arg(&fa)
        .arg(&fb)
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&out.stdout).into_owned();
    // 0: no difference; 4: too few figures narrow and undisturbed enough to tell,
    // which a busy machine gives and which is never "a difference".
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(4),
        "A/A compare found a difference (runs {} and {}): {json}",
        verdict(&ra),
        verdict(&rb)
    );
    let c: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(c["differs"], false);
    assert_eq!(
        code == Some(4),
        c["too_little_compared"].is_string(),
        "{json}"
    );
    let rows = c["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "no metric compared: {json}");
    let (va, vb) = (verdict(&ra), verdict(&rb));
    for row in rows {
        let Some(cell) = row["cells"][1].as_object() else {
            continue;
        };
        assert_eq!(cell["significant"], false, "{row}");
        match cell["not_judged"].as_str() {
            // Judged (whatever the runs' verdicts): Holm's adjusted p-value is there, and the
            // margin is at least 3 %.
            None => {
                assert!(cell["p_adjusted"].is_number(), "{row}");
                assert!(row["margin"].as_f64().unwrap() >= 0.03, "{row}");
            }
            Some(why) => assert!(
                why == "no interval"
                    || why.starts_with("disturbed in ")
                    || why.starts_with("interval wider than +-10 % in ")
                    || why.starts_with("not comparable: "),
                "unexpected reason {why:?}"
            ),
        }
    }
    if va == "quiet" && vb == "quiet" {
        // Two quiet runs: their undisturbed figures with intervals were judged (and agreed).
        assert!(c["judged"].as_u64().unwrap() >= 1, "{json}");
    } else {
        eprintln!(
            "A/A: runs were {va} and {vb} on this machine; {} figure(s) judged",
            c["judged"]
        );
    }
    // The text form says the same and names the rule.
    let out = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .arg("compare")
        .arg(&fa)
        .arg(&fb)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), code, "{text}");
    if code == Some(0) {
        assert!(
            text.contains("Verdict: no difference beyond noise (exit status 0)."),
            "{text}"
        );
    } else {
        assert!(text.starts_with("Not comparable: "), "{text}");
        assert!(text.contains("(exit status 4)."), "{text}");
    }
    assert!(text.contains("between-run floor"), "{text}");
}
