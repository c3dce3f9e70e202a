//! End-to-end checks of `numascope c2c` on this machine: a full matrix with a stated and
//! verified home node, and one-sentence refusals of bad input. No timing is asserted beyond
//! "a positive number": the machine is shared.

mod common;

use common::{json_of, numascope, refused_in_one_sentence, two_cpus};

#[test]
fn matrix_covers_every_ordered_pair_with_a_verified_home_node() {
    if !two_cpus("c2c") {
        return;
    }
    let v = json_of(&["c2c", "--cpus", "0,1", "--samples", "2", "--json"]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["cpus"], serde_json::json!([0, 1]));
    assert_eq!(v["line_node"], 0);
    assert_eq!(v["placement_fraction"], 1.0);
    assert_eq!(v["sampling"]["strategy"], "all-pairs");
    let m = v["matrix"].as_array().unwrap();
    assert_eq!(m.len(), 2);
    assert!(m[0][0].is_null() && m[1][1].is_null());
    assert!(m[0][1].as_f64().unwrap() > 0.0 && m[1][0].as_f64().unwrap() > 0.0);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert!(
        pairs[0]["ns_one_way"]["p99"].as_f64().unwrap()
            >= pairs[0]["ns_one_way"]["median"].as_f64().unwrap()
    );
    assert!(!v["groups"].as_array().unwrap().is_empty());
    assert!(v["traffic"]["perf"]["detail"].is_string());
    assert!(v["traffic"]["numastat_delta"].is_array());

    let text = numascope()
        .args(["c2c", "--cpus", "0-1", "--samples", "1"])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("line home node 0"), "{s}");
    assert!(s.contains("from CPU \\ to CPU"), "{s}");
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    for (args, needle) in [
        (vec!["c2c", "--cpus", "0"], "at least two CPUs"),
        (vec!["c2c", "--cpus", "0,4096"], "CPU 4096 does not exist"),
        (vec!["c2c", "--cpus", "x"], "--cpus"),
        (vec!["c2c", "--line-node", "63"], "63"),
        (vec!["c2c", "--samples", "0"], "--samples 0"),
    ] {
        refused_in_one_sentence(numascope().args(&args), needle);
    }
}
