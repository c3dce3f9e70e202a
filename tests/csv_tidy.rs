//! Every CSV a run writes loads with typed columns. Renders the saved results files
//! of tests/fixtures/results/ with `numascope report --csv` and holds each file to the column
//! lists of docs/csv.md (names, order, snake_case with units, one type per column).

use std::path::Path;

mod common;

#[path = "csv_tidy/check.rs"]
mod check;

use common::numascope;

fn doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/csv.md")).unwrap()
}

/// Renders `fixture`'s CSVs and checks them; returns the file names written.
fn render_and_check(fixture: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("csv");
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results")
        .join(fixture);
    let run = numascope()
        .arg("report")
        .arg(&path)
        .arg("--csv")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let documented = check::documented(&doc());
    let mut names = Vec::new();
    let mut problems = Vec::new();
    for e in std::fs::read_dir(&out).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        let text = std::fs::read_to_string(e.path()).unwrap();
        match documented.get(&name) {
            Some(cols) => problems.extend(check::check_file(&name, &text, cols)),
            None => problems.push(format!("{name} is not documented in docs/csv.md")),
        }
        names.push(name);
    }
    assert!(problems.is_empty(), "{fixture}:\n{}", problems.join("\n"));
    names.sort();
    names
}

#[test]
fn opteron_fixture_csvs_are_tidy() {
    let names = render_and_check("opteron-2node.json");
    assert_eq!(names.len(), 10, "{names:?}");
}

#[test]
fn this_machine_fixture_csvs_are_tidy() {
    let names = render_and_check("this-machine-kvm-2cpu.json");
    assert!(
        names.contains(&"loaded_latency.csv".to_string()),
        "{names:?}"
    );
}

#[test]
fn every_documented_file_has_columns() {
    let d = check::documented(&doc());
    assert_eq!(d.len(), 21, "{:?}", d.keys());
    assert!(d.values().all(|c| !c.is_empty()));
}

#[test]
fn the_checker_catches_untidy_files() {
    let d = check::documented(&doc());
    let cols = &d["loaded_latency.csv"];
    // Prose in a numeric column is caught.
    let mut header: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
    let bad_row: Vec<&str> = cols
        .iter()
        .map(|c| match c.0.as_str() {
            "delay_ns" => "idle (load threads asleep)",
            _ => "",
        })
        .collect();
    let text = format!("{}\n{}\n", header.join(","), bad_row.join(","));
    assert_eq!(check::check_file("x.csv", &text, cols).len(), 1);
    // A prose header is caught.
    header[3] = "delay (ns)";
    let text = format!("{}\n", header.join(","));
    assert_eq!(check::check_file("x.csv", &text, cols).len(), 1);
    assert!(!check::snake_case("MB/s (median)"));
    assert!(!check::names_unit("load_asked"));
    assert!(check::names_unit("mb_per_s_ci_low") && check::names_unit("memory_node"));
}

/// `latency --csv DIR` writes the sizes, distribution, histogram and MLP tables, each holding to
/// docs/csv.md; the histogram's counts sum to the distribution's groups. Mechanics only.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn latency_distribution_and_mlp_csvs_are_tidy() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("csv");
    let run = numascope()
        .args([
            "latency",
            "--size",
            "64KiB",
            "--chains",
            "1,2",
            "--samples",
            "3",
            "--sample-ms",
            "0.2",
            "--distribution",
            "--groups",
            "2000",
            "--csv",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let documented = check::documented(&doc());
    let mut problems = Vec::new();
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    for name in [
        "latency_sizes.csv",
        "latency_distribution.csv",
        "latency_histogram.csv",
        "latency_mlp.csv",
    ] {
        problems.extend(check::check_file(name, &read(name), &documented[name]));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let hist_text = read("latency_histogram.csv");
    let mut hist = csv::Reader::from_reader(hist_text.as_bytes());
    let total: u64 = hist
        .records()
        .map(|r| r.unwrap()[5].parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 2000);
    // The chase walked between the batches is the last column, and filled.
    let dist_text = read("latency_distribution.csv");
    let mut dist = csv::Reader::from_reader(dist_text.as_bytes());
    // Followed only by the percentiles' intervals, three columns each.
    let last = dist.headers().unwrap().len() - 1 - 3 * 6;
    assert_eq!(
        &dist.headers().unwrap()[last],
        "interleaved_chase_ns_per_load_median"
    );
    assert_eq!(&dist.headers().unwrap()[last + 1], "ns_per_load_p1_ci_low");
    let row = dist.records().next().unwrap().unwrap();
    assert!(row[last].parse::<f64>().unwrap() > 0.0, "{dist_text}");
    let mlp = read("latency_mlp.csv");
    assert_eq!(mlp.lines().count(), 2, "header and the 2-chain row: {mlp}");
}

/// A run with the peak part (this machine, `run --only peak`) writes peak.csv and
/// peak_domains.csv, and both hold to docs/csv.md.
#[test]
fn peak_fixture_csvs_are_tidy() {
    let names = render_and_check("this-machine-peak.json");
    assert!(names.iter().any(|n| n == "peak.csv"), "{names:?}");
    assert!(names.iter().any(|n| n == "peak_domains.csv"), "{names:?}");
}
