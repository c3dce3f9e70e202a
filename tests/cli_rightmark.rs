//! The RightMark table (`numascope rightmark`) and LIKWID's per-stream matrix
//! (`numascope bandwidth --stream-matrix`) end to end. On this machine's nodes they measure for
//! real with tiny settings and the tests check the mechanics only (every cell and column
//! present, one value per round, placement on the intended node, no ratio claimed where there
//! is no remote cell), never a figure. Planning on two nodes is checked against replayed
//! fixtures, where measuring is refused.

mod common;

#[path = "csv_tidy/check.rs"]
mod check;

use common::{fixture, json_of, numascope, refused_in_one_sentence, refused_in_one_sentence_with};

/// The machine's memory nodes, from `topo --json`.
fn memory_nodes() -> usize {
    let t = json_of(&["topo", "--json"]);
    t["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["has_memory"].as_bool() == Some(true))
        .count()
}

#[test]
fn rightmark_measures_every_cell_and_column_in_rounds() {
    let v = json_of(&[
        "rightmark",
        "--cpu-nodes",
        "0",
        "--rounds",
        "2",
        "--size",
        "1MiB",
        "--duration",
        "5ms",
        "--samples",
        "1",
        "--sample-ms",
        "0.2",
        "--json",
    ]);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), memory_nodes());
    let metrics: Vec<&str> = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        metrics,
        [
            "read",
            "write",
            "read-prefetch",
            "write-nt",
            "pseudo-random",
            "random"
        ]
    );
    for c in cells {
        assert_eq!(c["cpu_node"], 0);
        let local = c["cpu_node"] == c["memory_node"];
        assert_eq!(c["local"].as_bool(), Some(local));
        let figs = c["figures"].as_array().unwrap();
        assert_eq!(figs.len(), 6);
        for f in figs {
            if f.get("error").is_some() {
                // A kernel this CPU lacks (write-nt off x86) is a failed column, said so.
                assert!(f["error"].as_str().unwrap().contains("not measured"), "{f}");
                continue;
            }
            assert_eq!(f["rounds"].as_array().unwrap().len(), 2, "{f}");
            assert_eq!(f["summary"]["samples"], 2);
            assert_eq!(f["placement_fraction"].as_f64(), Some(1.0), "{f}");
            // Two rounds are too few for an interval, and a local cell has no ratio.
            assert!(f["summary"].get("ci_low").is_none());
            if local {
                assert!(f.get("ratio_to_local").is_none());
            } else {
                assert_eq!(f["ratio_to_local"]["pairs"], 2);
            }
        }
    }
    assert_eq!(v["block_bytes"], 1 << 20);
    assert_eq!(v["rounds"], 2);
}

#[test]
fn rightmark_text_and_csv_on_one_node_claim_no_ratio() {
    if memory_nodes() != 1 {
        eprintln!("skipped: this checks the one-node table");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = numascope()
        .args([
            "rightmark",
            "--rounds",
            "1",
            "--size",
            "1MiB",
            "--duration",
            "5ms",
            "--samples",
            "1",
            "--sample-ms",
            "0.2",
            "--csv",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("CPU node 0 \u{2192} memory node 0 (local)"),
        "{text}"
    );
    assert!(text.contains("no local/remote ratio is claimed"), "{text}");
    assert!(!text.contains(" x0.") && !text.contains(" x1."), "{text}");
    let csv = std::fs::read_to_string(dir.path().join("rightmark.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("cpu_node,memory_node,cpu,local,"));
    assert_eq!(lines.count(), 6);
}

#[test]
fn stream_matrix_places_source_and_destination() {
    let v = json_of(&[
        "bandwidth",
        "--stream-matrix",
        "--kernel",
        "copy,triad",
        "--threads",
        "1",
        "--size",
        "2MiB",
        "--duration",
        "5ms",
        "--rounds",
        "2",
        "--json",
    ]);
    let n = memory_nodes();
    let ms = v["matrices"].as_array().unwrap();
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[0]["kernel"], "copy");
    assert_eq!(ms[1]["kernel"], "triad");
    for m in ms {
        assert_eq!(m["cpus"].as_array().unwrap().len(), 1);
        let cells = m["cells"].as_array().unwrap();
        assert_eq!(cells.len(), n * n);
        for c in cells {
            let f = &c["mb_per_s"];
            assert_eq!(f["rounds"].as_array().unwrap().len(), 2, "{c}");
            assert_eq!(f["placement_fraction"].as_f64(), Some(1.0), "{c}");
            let local = c["source_node"] == m["cpu_node"] && c["destination_node"] == m["cpu_node"];
            assert_eq!(f.get("ratio_to_local").is_none(), local, "{c}");
        }
    }
}

#[test]
fn snapshots_are_refused_after_the_flags_are_checked() {
    // Two nodes replayed: the flags resolve (so planning works there), then measuring is
    // refused as on every snapshot.
    refused_in_one_sentence_with(
        numascope()
            .arg("--sysfs-root")
            .arg(fixture("opteron250-2s"))
            .args(["rightmark", "--cpu-nodes", "0,1", "--mem-nodes", "0,1"]),
        "snapshot",
        3,
    );
    refused_in_one_sentence(
        numascope()
            .arg("--sysfs-root")
            .arg(fixture("opteron250-2s"))
            .args(["rightmark", "--mem-nodes", "7"]),
        "--mem-nodes",
    );
    refused_in_one_sentence(numascope().args(["rightmark", "--rounds", "0"]), "--rounds");
    refused_in_one_sentence(numascope().args(["rightmark", "--size", "1KiB"]), "--size");
    refused_in_one_sentence_with(
        numascope()
            .arg("--sysfs-root")
            .arg(fixture("opteron250-2s"))
            .args(["bandwidth", "--stream-matrix", "--cpu-nodes", "1"]),
        "snapshot",
        3,
    );
}

/// The node tables on their own in every format: `--csv DIR` writes the run's file
/// (documented columns, one row per cell and column) and `--html OUT.html` a page with the
/// run report's heat maps, in the same invocation as the text.
#[test]
fn node_tables_write_their_csv_and_page() {
    let dir = tempfile::tempdir().unwrap();
    let doc = check::documented(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/csv.md")).unwrap(),
    );
    let run = |args: &[&str], csv: &str, html: &str| {
        let out = numascope()
            .args(args)
            .arg("--csv")
            .arg(dir.path().join(csv))
            .arg("--html")
            .arg(dir.path().join(html))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "the text still goes to stdout");
        let files: Vec<String> = std::fs::read_dir(dir.path().join(csv))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        (
            files,
            std::fs::read_to_string(dir.path().join(html)).unwrap(),
        )
    };
    let n = memory_nodes();
    let (files, page) = run(
        &[
            "rightmark",
            "--cpu-nodes",
            "0",
            "--rounds",
            "1",
            "--size",
            "1MiB",
            "--duration",
            "5ms",
            "--samples",
            "1",
            "--sample-ms",
            "0.2",
        ],
        "rm",
        "rm.html",
    );
    assert_eq!(files, ["rightmark.csv"]);
    let text = std::fs::read_to_string(dir.path().join("rm/rightmark.csv")).unwrap();
    let problems = check::check_file("rightmark.csv", &text, &doc["rightmark.csv"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(text.lines().count(), 1 + 6 * n);
    let sec = &page[page
        .find("<section id=\"rightmark\">")
        .expect("the section")..];
    assert_eq!(sec.matches("<figure class=\"heatmap\">").count(), 6);

    let (files, page) = run(
        &[
            "bandwidth",
            "--stream-matrix",
            "--threads",
            "1",
            "--size",
            "2MiB",
            "--duration",
            "5ms",
            "--rounds",
            "1",
        ],
        "sm",
        "sm.html",
    );
    assert_eq!(files, ["stream_matrix.csv"]);
    let text = std::fs::read_to_string(dir.path().join("sm/stream_matrix.csv")).unwrap();
    let problems = check::check_file("stream_matrix.csv", &text, &doc["stream_matrix.csv"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(text.lines().count(), 1 + n * n);
    let sec = &page[page
        .find("<section id=\"stream-matrix\">")
        .expect("the section")..];
    assert_eq!(sec.matches("<figure class=\"heatmap\">").count(), 1);
    assert!(sec.contains("copy on CPU node 0"));
}
