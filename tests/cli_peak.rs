//! `numascope bandwidth --peak` on its own, in every output format (text, JSON,
//! `--csv DIR`, `--html OUT.html`), and the same two files for the other standalone bandwidth
//! variants (`--stride` here; the node tables are in cli_rightmark.rs). They measure for real
//! with tiny settings and check the mechanics only: the files exist, parse, have the
//! documented columns (docs/csv.md) and one row per scope, mix and thread count; the page has
//! the run report's charts. Never a figure.

use std::path::Path;

mod common;

#[path = "csv_tidy/check.rs"]
mod check;

use common::{json_of, numascope, refused_in_one_sentence};

/// The tiny peak every test here runs: node 0, two mixes, one 10 ms repetition each.
const PEAK: &[&str] = &[
    "bandwidth",
    "--peak",
    "--cpu-nodes",
    "0",
    "--mix",
    "read,1:1",
    "--size",
    "8MiB",
    "--duration",
    "10ms",
    "--repetitions",
    "1",
    "--warmup",
    "0",
];

/// Checks every file of `dir` against docs/csv.md; returns (name, data rows) sorted by name.
fn checked_csvs(dir: &Path) -> Vec<(String, usize)> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/csv.md")).unwrap();
    let documented = check::documented(&doc);
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        assert!(!name.starts_with('.'), "a temporary file was left: {name}");
        let text = std::fs::read_to_string(e.path()).unwrap();
        let cols = documented
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not documented in docs/csv.md"));
        let problems = check::check_file(&name, &text, cols);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        files.push((name, text.lines().count() - 1));
    }
    files.sort();
    files
}

#[test]
fn peak_json_has_every_mix_of_every_scope() {
    let mut args = PEAK.to_vec();
    args.push("--json");
    let v = json_of(&args);
    let p = &v["peak"];
    let mixes: Vec<&str> = p["mixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(mixes, ["read", "1:1"]);
    let scopes = p["scopes"].as_array().unwrap();
    assert!(!scopes.is_empty());
    for s in scopes {
        // One row of run indices per mix, one index per thread count.
        let counts = s["thread_counts"].as_array().unwrap().len();
        let runs = s["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{s}");
        assert!(runs.iter().all(|r| r.as_array().unwrap().len() == counts));
    }
    assert!(!p["runs"].as_array().unwrap().is_empty());
}

#[test]
fn peak_text_csv_and_html_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("csv");
    let html = dir.path().join("peak.html");
    let out = with_outputs(numascope().args(PEAK), &csv, &html, "--peak");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Peak injection bandwidth"), "{text}");
    let files = checked_csvs(&csv);
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["peak.csv", "peak_domains.csv"]);
    // Both mixes, each at one thread count at least; every mix row names its mix.
    let peak = std::fs::read_to_string(csv.join("peak.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(peak.as_bytes());
    let mix_col = rdr
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "mix")
        .unwrap();
    let mixes: Vec<String> = rdr
        .records()
        .map(|r| r.unwrap()[mix_col].to_string())
        .collect();
    assert!(mixes.iter().any(|m| m == "read") && mixes.iter().any(|m| m == "1:1"));
    assert!(files[1].1 >= 1, "one row per L3 domain of node 0");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    let start = page
        .find("<section id=\"peak\">")
        .expect("the peak section");
    let sec = &page[start..];
    assert!(sec.contains("Peak injection per mix, node 0"), "{sec}");
    assert!(
        sec.matches("<svg ").count() >= 2,
        "the bars, wide and for a phone"
    );
    assert!(sec.contains("L3 domain (CPUs)"));
    assert!(!page.contains("Not measured"));
}

#[test]
fn stride_writes_bandwidth_csv_and_page() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("csv");
    let html = dir.path().join("stride.html");
    let mut cmd = numascope();
    cmd.args([
        "bandwidth",
        "--stride",
        "8",
        "--kernel",
        "copy",
        "--size",
        "4MiB",
        "--duration",
        "10ms",
        "--repetitions",
        "1",
        "--warmup",
        "0",
    ]);
    with_outputs(&mut cmd, &csv, &html, "--stride");
    let files = checked_csvs(&csv);
    assert_eq!(files, [("bandwidth.csv".to_string(), 1)]);
    let text = std::fs::read_to_string(csv.join("bandwidth.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let row = rdr.records().next().unwrap().unwrap();
    let get = |k: &str| row[h.iter().position(|x| x == k).unwrap()].to_string();
    assert_eq!(get("kernel"), "copy");
    assert_eq!(get("stride_bytes"), "64");
    let page = std::fs::read_to_string(&html).unwrap();
    let start = page
        .find("<section id=\"bandwidth\">")
        .expect("the kernels section");
    assert!(page[start..].contains("stride (bytes)"));
}

/// An existing page is never overwritten, a page with no directory to go to is refused, and
/// both refusals come before anything runs.
#[test]
fn an_existing_page_is_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("old.html");
    std::fs::write(&html, "keep me").unwrap();
    let path = html.to_str().unwrap();
    for args in [
        &["bandwidth", "--peak", "--html", path][..],
        &["bandwidth", "--stride", "8", "--html", path],
        &["bandwidth", "--stream-matrix", "--html", path],
        &["rightmark", "--html", path],
    ] {
        refused_in_one_sentence(numascope().args(args), "--html");
    }
    assert_eq!(std::fs::read_to_string(&html).unwrap(), "keep me");
    let nowhere = dir.path().join("missing/page.html");
    refused_in_one_sentence(
        numascope()
            .args(["bandwidth", "--peak", "--html"])
            .arg(&nowhere),
        "does not exist",
    );
}

/// The other variants write the run's files for their part and a page with its chart: the
/// sweep's curve and table, the matrix's heat map, the scaling curve.
#[test]
fn sweep_matrix_and_scaling_write_their_files_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let quick = ["--duration", "10ms", "--repetitions", "1", "--warmup", "0"];
    for (variant, files, section) in [
        (
            &["--sweep", "16KiB..32KiB", "--kernel", "read"][..],
            &["bandwidth.csv", "bandwidth_sweep.csv"][..],
            "bandwidth-sweep",
        ),
        (
            &["--matrix", "--size", "8MiB"],
            &["bandwidth.csv", "bandwidth_matrix.csv"],
            "bandwidth-matrix",
        ),
        (
            &["--scaling", "--size", "8MiB"],
            &["scaling.csv"],
            "scaling",
        ),
    ] {
        let csv = dir.path().join(section);
        let html = dir.path().join(format!("{section}.html"));
        with_outputs(
            numascope().arg("bandwidth").args(variant).args(quick),
            &csv,
            &html,
            &format!("{variant:?}"),
        );
        let got = checked_csvs(&csv);
        let names: Vec<&str> = got.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, files, "{variant:?}");
        assert!(got.iter().all(|f| f.1 >= 1), "{got:?}");
        let page = std::fs::read_to_string(&html).unwrap();
        let start = page
            .find(&format!("<section id=\"{section}\">"))
            .unwrap_or_else(|| panic!("{variant:?}: no section {section}"));
        let body = &page[start..];
        let body = &body[..body.find("</section>").unwrap()];
        // A one-cell matrix (one node) is a plain figure, not a heat map.
        let one_cell = body.contains("CPU node 0 \u{2192} memory node 0</dt>");
        assert!(body.contains("<svg ") || one_cell, "{variant:?}");
    }
}

/// Runs `cmd` with `--csv csv --html html` and checks it succeeded (`what` names the run in
/// the failure message); returns its output.
fn with_outputs(
    cmd: &mut assert_cmd::Command,
    csv: &Path,
    html: &Path,
    what: &str,
) -> std::process::Output {
    let out = cmd
        .arg("--csv")
        .arg(csv)
        .arg("--html")
        .arg(html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
