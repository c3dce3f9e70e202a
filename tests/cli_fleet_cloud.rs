//! As a cloud admin meets it: twelve copies of ONE recorded `run --quick` of this
//! VM (tests/fixtures/results/this-machine-quick-v657.json, whose own verdict is not quiet:
//! some of its figures are disturbed or have intervals wider than +-10 %), eleven within +-2 %
//! and one with every bandwidth figure (and its interval) at x0.55, as a host missing memory
//! channels. `fleet` must judge each figure on its own and name exactly the halved host (exit
//! 1); a baseline saved from the eleven good hosts must name it too, from `fleet --baseline`
//! and `compare --baseline`. And `compare` of two runs of this machine whose kernel build
//! strings differ, with nothing comparable between them, must say so first and exit 4.

mod common;

use std::path::Path;

use common::{numascope, refused_in_one_sentence};
use serde_json::Value;

const HOSTS: usize = 12;
const HALVED: usize = 7;

fn name(i: usize) -> String {
    format!("cloud{i:02}")
}

/// Scales every float below `v` by `f` (integers are counts and ids, not measured values).
fn scale_all(v: &mut Value, f: f64) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64() {
                *v = serde_json::json!(x * f);
            }
        }
        Value::Object(m) => m.values_mut().for_each(|x| scale_all(x, f)),
        Value::Array(a) => a.iter_mut().for_each(|x| scale_all(x, f)),
        _ => {}
    }
}

/// Scales every bandwidth figure (any field named `..mb_per_s..`, with its range and interval)
/// by `bw` and every latency figure (`ns_...`) by `lat`.
fn scale_figures(v: &mut Value, bw: f64, lat: f64) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k.contains("mb_per_s") {
                    scale_all(x, bw);
                } else if k.starts_with("ns_") {
                    scale_all(x, lat);
                } else {
                    scale_figures(x, bw, lat);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scale_figures(x, bw, lat)),
        _ => {}
    }
}

/// The path of `tests/fixtures/results/NAME`.
fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/results/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn recorded() -> Value {
    let text = std::fs::read_to_string(fixture("this-machine-quick-v657.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Writes host `i` of the fleet under `dir/NAME/results.json`.
fn write_host(dir: &Path, base: &Value, i: usize) {
    let mut r = base.clone();
    r["host"] = Value::String(name(i));
    // -2 % .. +2 %, a different step per host.
    let jitter = 1.0 + 0.02 * ((i * 5 % 9) as f64 - 4.0) / 4.0;
    if i == HALVED {
        scale_figures(&mut r, 0.55 * jitter, jitter);
    } else {
        scale_figures(&mut r, jitter, jitter);
    }
    let d = dir.join(name(i));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("results.json"), r.to_string()).unwrap();
}

fn run_json(args: &[&std::ffi::OsStr]) -> (Option<i32>, Value) {
    let out = numascope().args(args).arg("--json").output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

fn names(v: &Value) -> Vec<String> {
    let a = v["outlier_hosts"].as_array().unwrap();
    a.iter().map(|h| h.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_fixture_is_a_noisy_run_of_this_vm_with_some_narrow_bandwidth_figures() {
    let r = recorded();
    assert_eq!(r["topology"]["environment"]["hypervisor"], true);
    assert_ne!(
        r["quality"]["verdict"], "quiet",
        "the point is a run that is not quiet"
    );
    assert!(r["topology"]["environment"]["kernel_release"]
        .as_str()
        .unwrap()
        .ends_with("-v657"));
}

#[test]
fn twelve_hosts_one_halved_the_halved_host_and_only_it_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let base = recorded();
    for i in 0..HOSTS {
        write_host(tmp.path(), &base, i);
    }
    let out = numascope().arg("fleet").arg(tmp.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "Verdict: 1 host(s) stand out: {} (exit status 1).",
            name(HALVED)
        )),
        "{text}"
    );
    let (code, v) = run_json(&["fleet".as_ref(), tmp.path().as_os_str()]);
    assert_eq!(code, Some(1));
    assert_eq!(names(&v), vec![name(HALVED)]);
    // Per host: how many figures were judged, and why the others were not.
    for h in v["hosts"].as_array().unwrap() {
        let judged = h["judged_metrics"].as_u64().unwrap();
        assert!(judged > 0, "{h}");
        let not: Vec<&Value> = h["not_judged"].as_array().unwrap().iter().collect();
        assert!(
            !not.is_empty(),
            "the run is not quiet, so some figure is set aside: {h}"
        );
        assert!(not.iter().all(|n| n["figures"].as_u64().unwrap() > 0));
        let want = if h["name"] == name(HALVED).as_str() {
            "outlier"
        } else {
            "alike"
        };
        assert_eq!(h["standing"], want, "{h}");
    }
    // Only bandwidth figures stand out, all worse.
    for m in v["metrics"].as_array().unwrap() {
        for o in m["outliers"].as_array().unwrap() {
            assert_eq!(m["unit"], "MB/s", "{m}");
            assert_eq!(o["worse"], true);
        }
    }
    assert!(text.contains("judged"), "{text}");
}

#[test]
fn a_baseline_from_eleven_good_hosts_names_the_halved_one() {
    let tmp = tempfile::tempdir().unwrap();
    let base = recorded();
    let good = tmp.path().join("good");
    let new = tmp.path().join("new");
    for i in (0..HOSTS).filter(|&i| i != HALVED) {
        write_host(&good, &base, i);
    }
    write_host(&new, &base, HALVED);
    write_host(&new, &base, 3);
    let file = tmp.path().join("baseline.json");
    let out = numascope()
        .arg("fleet")
        .arg(&good)
        .arg("--save-baseline")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(b["format"], "numascope-fleet-baseline");
    assert_eq!(b["schema_version"], 1);
    let figures = b["groups"][0]["figures"].as_array().unwrap();
    assert!(!figures.is_empty());
    for f in figures {
        let (lo, e, hi) = (
            f["low"].as_f64().unwrap(),
            f["expected"].as_f64().unwrap(),
            f["high"].as_f64().unwrap(),
        );
        assert!(lo < e && e < hi && (hi - e) >= 0.05 * e * 0.999, "{f}");
    }
    // The new hosts against it: the halved one is named with the figure and the envelope.
    let (code, v) = run_json(&[
        "fleet".as_ref(),
        "--baseline".as_ref(),
        file.as_os_str(),
        new.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(names(&v), vec![name(HALVED)]);
    let halved = v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == name(HALVED).as_str())
        .unwrap();
    assert!(
        halved["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r.as_str().unwrap().contains("outside the baseline's")),
        "{halved}"
    );
    // compare --baseline: the same check for single runs.
    let one = |i: usize| new.join(name(i)).join("results.json");
    let out = numascope()
        .arg("compare")
        .arg("--baseline")
        .arg(&file)
        .arg(one(HALVED))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("outside the baseline's"), "{text}");
    let out = numascope()
        .arg("compare")
        .arg("--baseline")
        .arg(&file)
        .arg(one(3))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A host of hardware the baseline lacks is reported as such, not judged.
    let mut other = base.clone();
    other["host"] = Value::String("bigmem".into());
    other["topology"]["nodes"][0]["memory_total_bytes"] = serde_json::json!(512u64 << 30);
    let o = tmp.path().join("other/results.json");
    std::fs::create_dir_all(o.parent().unwrap()).unwrap();
    std::fs::write(&o, other.to_string()).unwrap();
    let (code, v) = run_json(&[
        "fleet".as_ref(),
        "--baseline".as_ref(),
        file.as_os_str(),
        o.as_os_str(),
    ]);
    assert_eq!(code, Some(4), "{v}");
    assert_eq!(v["hosts"][0]["standing"], "no-baseline");
    assert!(
        v["hosts"][0]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("memory per node"),
        "{v}"
    );
    // A file that is not a baseline: one sentence, exit 2.
    refused_in_one_sentence(
        numascope().arg("fleet").arg("--baseline").arg(&o).arg(&new),
        "is not a numascope fleet baseline",
    );
}

#[test]
fn compare_across_kernel_builds_with_nothing_comparable_says_so_first_and_exits_4() {
    let old = fixture("this-machine-kvm-2cpu.json");
    let new = fixture("this-machine-quick-v657.json");
    let out = numascope()
        .arg("compare")
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}");
    assert_eq!(out.status.code(), Some(4), "{text}");
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("Not comparable: only 0 of "), "{first}");
    assert!(first.contains("no interval"), "{first}");
    // The build string is stated, not a reason.
    assert!(
        text.contains(
            "kernel build 6.18.44-fc-v657 vs 6.18.44-fc-v595 (the same version 6.18.44; stated"
        ),
        "{text}"
    );
    assert!(!text.contains("differs in conditions: kernel"), "{text}");
    assert!(text.contains("(exit status 4)"), "{text}");
    assert!(!text.contains("no difference beyond noise"), "{text}");
    let (code, v) = run_json(&["compare".as_ref(), old.as_ref(), new.as_ref()]);
    assert_eq!(code, Some(4));
    assert!(v["too_little_compared"].as_str().is_some());
    assert_eq!(v["differs"], false);
}
