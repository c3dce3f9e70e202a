//! `numascope fleet` end to end on a fleet made from a real run of this kind of machine
//! (tests/fixtures/results/this-machine-kvm-2cpu.json): 22 hosts, each copy's figures moved by
//! a small per-host jitter (+-1.2 %), three hosts perturbed as a missing memory channel would
//! (read and copy bandwidth -45 %, latency +10 %), one with THP off, one whose run says it was
//! noisy and every one of whose figures has an interval of +-30 % (and is as bad as the
//! perturbed ones). The verdict must name exactly the three perturbed hosts, the THP host as an
//! environment difference, and not the noisy one (its figures cannot be judged: each is
//! counted as not judged for its interval), and exit 1; the same fleet without the perturbations exits 0. (A noisy verdict alone does not
//! set a host aside: each figure is judged on its own, tests/cli_fleet_cloud.rs.)

mod common;

use std::path::Path;

use common::{numascope, refused_in_one_sentence};
use serde_json::Value;

const HOSTS: usize = 22;
const MISSING_CHANNEL: [usize; 3] = [3, 11, 17];
const THP_OFF: usize = 7;
const NOISY: usize = 14;

fn name(i: usize) -> String {
    format!("node{i:02}")
}

/// Scales every float under the keys `keys` (anywhere below `v`) by `f`.
fn scale_under(v: &mut Value, keys: &[&str], f: f64) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if keys.contains(&k.as_str()) {
                    scale_all(x, f);
                } else {
                    scale_under(x, keys, f);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scale_under(x, keys, f)),
        _ => {}
    }
}

/// Gives every summary below `v` a 95 % interval of +-30 % of its median: too wide to judge.
fn widen_intervals(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(med) = m.get("median").and_then(|x| x.as_f64()) {
                m.insert("ci_low".into(), serde_json::json!(med * 0.7));
                m.insert("ci_high".into(), serde_json::json!(med * 1.3));
                m.insert("ci_level".into(), serde_json::json!(0.95));
            } else {
                m.values_mut().for_each(widen_intervals);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(widen_intervals),
        _ => {}
    }
}

fn scale_all(v: &mut Value, f: f64) {
    match v {
        // Integers are counts and ids (`cpu`, `samples`): only measured values are floats.
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

const RATES: [&str; 3] = ["mb_per_s", "dram_mb_per_s_estimate", "per_thread_mb_per_s"];

/// A missing memory channel: every read or copy bandwidth figure -45 %.
fn missing_channel_bandwidth(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let kernel = m.get("kernel").and_then(|k| k.as_str()).unwrap_or("");
            if kernel == "read" || kernel == "copy" {
                for (k, x) in m.iter_mut() {
                    if RATES.contains(&k.as_str()) {
                        scale_all(x, 0.55);
                    } else {
                        scale_under(x, &RATES, 0.55);
                    }
                }
            } else {
                m.values_mut().for_each(missing_channel_bandwidth);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(missing_channel_bandwidth),
        _ => {}
    }
}

/// Writes the fleet under `dir`, one `NAME/results.json` per host.
fn write_fleet(dir: &Path, perturbed: bool) {
    let base: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-kvm-2cpu.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for i in 0..HOSTS {
        let mut r = base.clone();
        r["host"] = Value::String(name(i));
        // Host-to-host spread of a healthy fleet: -1.2 % to +1.2 %.
        let jitter = 1.0 + 0.006 * ((i * 7 % 5) as f64 - 2.0);
        scale_under(
            &mut r,
            &[
                "mb_per_s",
                "dram_mb_per_s_estimate",
                "ns_per_load",
                "ns_one_way",
            ],
            jitter,
        );
        if perturbed {
            if MISSING_CHANNEL.contains(&i) || i == NOISY {
                missing_channel_bandwidth(&mut r);
                scale_under(&mut r["latency"], &["ns_per_load"], 1.10);
            }
            if i == THP_OFF {
                r["topology"]["environment"]["thp_enabled"] = Value::String("never".into());
            }
            if i == NOISY {
                r["quality"] = serde_json::json!({"verdict": "noisy", "sentence": "noisy: test"});
                widen_intervals(&mut r);
            }
        }
        let d = dir.join(name(i));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("results.json"), r.to_string()).unwrap();
    }
}

fn standing(v: &Value, host: &str) -> String {
    v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == host)
        .unwrap_or_else(|| panic!("{host} missing"))["standing"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn fleet_names_exactly_the_perturbed_hosts_and_reports_environment_and_noise() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fleet");
    write_fleet(&dir, true);
    let csv = tmp.path().join("fleet.csv");
    let html = tmp.path().join("fleet.html");
    let out = numascope()
        .arg("fleet")
        .arg(&dir)
        .arg("--csv")
        .arg(&csv)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The table, for the closing note of the issue.
    eprintln!("{text}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Verdict: 3 host(s) stand out: "), "{text}");

    let out = numascope()
        .arg("fleet")
        .arg(&dir)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut outliers: Vec<String> = v["outlier_hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect();
    outliers.sort();
    let expected: Vec<String> = MISSING_CHANNEL.iter().map(|&i| name(i)).collect();
    assert_eq!(outliers, expected);
    assert_eq!(standing(&v, &name(THP_OFF)), "different-environment");
    let noisy = &v["hosts"][NOISY];
    assert_ne!(standing(&v, &name(NOISY)), "outlier", "{noisy}");
    assert_eq!(
        noisy["not_judged"][0]["reason"],
        "interval wider than +-10 %"
    );
    assert!(
        noisy["not_judged"][0]["figures"].as_u64().unwrap() >= 15,
        "{noisy}"
    );
    for i in (0..HOSTS).filter(|i| !MISSING_CHANNEL.contains(i) && ![THP_OFF].contains(i)) {
        assert_eq!(standing(&v, &name(i)), "alike", "{}", name(i));
    }
    let thp = v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == name(THP_OFF).as_str())
        .unwrap();
    assert!(
        thp["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("THP never vs madvise"),
        "{thp}"
    );
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    assert_eq!(v["groups"][0]["judged_hosts"], HOSTS - 1);
    // The bandwidth of a perturbed host stands out as worse, in the JSON and in the CSV.
    let read = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"].as_str().unwrap().starts_with("bandwidth/read/"))
        .expect("a read bandwidth metric");
    assert!(
        read["outliers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["worse"] == true
                && expected.contains(&o["host"].as_str().unwrap().to_string()))
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.starts_with("group,host,standing,verdict,metric,"),
        "{csv}"
    );
    assert!(csv
        .lines()
        .any(|l| l.contains(",node03,outlier,") && l.ends_with(",true")));
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg"));
    assert!(html.contains("td class=\"n out\"") && html.contains("node11"));
}

#[test]
fn a_clean_fleet_exits_0_and_an_empty_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    write_fleet(tmp.path(), false);
    let out = numascope().arg("fleet").arg(tmp.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Verdict: no host stands out (exit status 0)."),
        "{text}"
    );
    let empty = tempfile::tempdir().unwrap();
    refused_in_one_sentence(
        numascope().arg("fleet").arg(empty.path()),
        "no results.json under",
    );
    // An output file that is one of the inputs is refused even with --force.
    let input = tmp.path().join("node00/results.json");
    refused_in_one_sentence(
        numascope()
            .arg("fleet")
            .arg(tmp.path())
            .arg("--html")
            .arg(&input)
            .arg("--force"),
        "never overwrites its input",
    );
}
