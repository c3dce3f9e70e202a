//! `run`'s latency part measures the per-load latency distribution at the sweep's
//! largest point (default and thorough budgets) and every output carries it: results.json
//! (`latency.distribution`, histogram counts summing to the groups), report --full (its section),
//! latency_distribution.csv (with the interleaved chase column) and report.html (the
//! histogram's svg). `--quick` leaves it out and its plan says so. Mechanics only, never
//! timing.

use std::process::Command;

use assert_cmd::prelude::*;

fn bin() -> Command {
    Command::cargo_bin("numascope").unwrap()
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn a_default_run_measures_and_shows_the_distribution() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    bin()
        .args([
            "run",
            "--only",
            "latency",
            "--mode",
            "random",
            "--page-size",
            "4k",
            "--sweep",
            "4KiB..1MiB",
            "--sample-ms",
            "0.2",
            "--output",
        ])
        .arg(&out)
        .assert()
        .success();
    let r = numascope::results_file::load(&out.join("results.json")).unwrap();
    let l = r.latency.as_ref().expect("the latency part ran");
    let d = l.distribution.as_ref().expect("a default run has one");
    let last = l.sweep[0].points.last().unwrap();
    // At the sweep's largest point, under its conditions.
    assert_eq!(d.working_set_bytes, 1 << 20);
    assert_eq!(d.working_set_bytes, last.working_set_bytes);
    assert_eq!(
        (d.cpu, d.mode, d.page_size),
        (last.cpu, last.mode, last.page_size)
    );
    assert_eq!(d.groups, numascope::latency::distribution::DEFAULT_GROUPS);
    let counted: u64 = d.histogram.iter().map(|b| b.count).sum();
    assert_eq!(counted, d.groups as u64, "the bins hold every group");
    assert!(d.interleaved_chase_ns_per_load_median.is_some());

    // The distribution's section is in report --full (the one-screen summary keeps the
    // headline figures only).
    let full = assert_cmd::Command::cargo_bin("numascope")
        .unwrap()
        .args(["report", "--full"])
        .arg(out.join("results.json"))
        .output()
        .unwrap();
    let summary = String::from_utf8(full.stdout).unwrap();
    let line = summary
        .lines()
        .find(|l| l.starts_with("Per-load latency distribution ("))
        .unwrap_or_else(|| panic!("no distribution section: {summary}"));
    assert!(
        line.contains("(random walk, 4k pages, 1 thread pinned to CPU")
            && line.contains(&format!(
                ", 1 MiB): {} groups of 16 dependent loads",
                d.groups
            )),
        "{line}"
    );
    assert!(summary.contains("  chase between the timed batches (same window): "));

    let csv_text = std::fs::read_to_string(out.join("latency_distribution.csv")).unwrap();
    let mut csv = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = csv.headers().unwrap().clone();
    let col = headers
        .iter()
        .position(|h| h == "interleaved_chase_ns_per_load_median")
        .expect("the interleaved chase column");
    // Added at the end, followed only by each percentile's interval: low, high
    // and coverage for p1, p10, p50, p90, p99 and p99.9.
    assert_eq!(col, headers.len() - 1 - 3 * 6, "added at the end");
    assert_eq!(
        headers.get(headers.len() - 1),
        Some("ns_per_load_p99_9_ci_level_fraction")
    );
    let row = csv.records().next().unwrap().unwrap();
    assert!(row[col].parse::<f64>().unwrap() > 0.0);
    let hist = std::fs::read_to_string(out.join("latency_histogram.csv")).unwrap();
    assert_eq!(hist.lines().count(), d.histogram.len() + 1);

    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let at = html
        .find("<h3>Per-load latency distribution (random walk, 4k pages, 1 thread pinned to CPU")
        .expect("the histogram's heading");
    let section = &html[at..html[at..].find("</section>").unwrap() + at];
    assert_eq!(section.matches("<svg").count(), 2, "wide and phone layouts");
    assert!(section.contains("groups per bin"));
}

#[test]
fn quick_plans_leave_it_out_and_say_so() {
    let plan = |budget: &[&str]| -> serde_json::Value {
        let out = bin()
            .args(["run", "--dry-run", "--json"])
            .args(budget)
            .output()
            .unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let parts = v["parts"].as_array().unwrap().clone();
        parts
            .into_iter()
            .find(|p| p["part"] == "latency")
            .expect("the latency part is planned")
    };
    let quick = plan(&["--quick"]);
    assert!(!quick["detail"]
        .as_str()
        .unwrap()
        .contains("per-load distribution"));
    assert!(quick["reduced"].as_array().unwrap().iter().any(|r| r
        .as_str()
        .unwrap()
        .contains("per-load latency distribution is not measured")));
    let default = plan(&[]);
    assert!(default["detail"]
        .as_str()
        .unwrap()
        .contains("per-load distribution at"));
}
