//! End-to-end checks of the run's reference figures (one quantity one figure): a
//! short run measures local idle latency and local read bandwidth in repetitions spread over
//! the whole run, and the places under the same conditions (the sweep's point at that size,
//! the matrices' home cells) show exactly that figure, marked as the reference's, in
//! results.json, the summary and the HTML headline. Mechanics only, no timing.

use std::process::Command;

use numascope::results::plan::Part;
use numascope::results::reference::ReferenceFigure;

fn run(lock: &std::path::Path, out: &std::path::Path, args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_numascope"))
        .env("NUMASCOPE_LOCK_DIR", lock)
        .args(["run", "--quick"])
        .args(args)
        .arg("--output")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_reference_is_measured_across_the_run_and_shown_where_conditions_match() {
    let lock = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    // 8 MiB keeps the debug-build chase short; the sweep ends there, so its last point is
    // the reference's size.
    let stdout = run(
        lock.path(),
        &out,
        &[
            "--only",
            "latency,latency-matrix,bandwidth-matrix",
            "--size",
            "8MiB",
            "--sweep",
            "4KiB..8MiB",
        ],
    );
    let r = numascope::results_file::load(&out.join("results.json")).unwrap();
    assert!(!r.partial, "{:?}", r.failed);
    let f = r.reference.as_ref().expect("a reference was measured");
    let l = f.latency.as_ref().expect("its latency");
    let b = f.bandwidth.as_ref().expect("its bandwidth");
    assert!(l.ns_per_load.samples >= 6, "{:?}", l.ns_per_load);
    assert!(b.mb_per_s.samples >= 6, "{:?}", b.mb_per_s);
    assert!(
        l.ns_per_load.ci.map(|c| c.low).is_some(),
        "n >= 6 has an interval"
    );
    assert_eq!(l.working_set_bytes, 8 << 20);
    // Every kept repetition is one block (the median of its samples_per_repetition timed
    // samples), and every block of a place pooled into the figure counts too (none here:
    // neither loaded latency nor the scenarios ran).
    let pooled: usize = f
        .pooled
        .iter()
        .filter(|p| p.figure == ReferenceFigure::Latency)
        .map(|p| p.blocks)
        .sum();
    assert_eq!(pooled, 0, "{:?}", f.pooled);
    assert_eq!(
        l.quality.repetitions_kept as usize + pooled,
        l.ns_per_load.samples,
        "{:?}",
        l.quality
    );
    // Spread across the run: a slot before every part after the topology and one after the
    // last, in order,
    // the last after every part ran.
    let reps = &f.repetitions;
    for p in [Part::Latency, Part::LatencyMatrix, Part::BandwidthMatrix] {
        assert!(reps.iter().any(|x| x.before == Some(p)), "none before {p}");
    }
    let last = reps.last().unwrap();
    assert_eq!(last.before, None, "the last slot is after the last part");
    let first = reps.iter().map(|x| x.at_s).fold(f64::INFINITY, f64::min);
    let parts: f64 = r.timings.iter().map(|t| t.seconds).sum();
    assert!(
        first + parts <= last.at_s + 1e-6,
        "the parts ran between the first and the last repetition: {first} + {parts} > {}",
        last.at_s
    );
    // The sweep's point at the reference size and the matrix's home cell are the reference.
    assert!(f.fills(Part::Latency, ReferenceFigure::Latency));
    assert!(f.fills(Part::LatencyMatrix, ReferenceFigure::Latency));
    assert!(f.fills(Part::BandwidthMatrix, ReferenceFigure::Bandwidth));
    assert!(f.filled.iter().all(|p| p.source == "reference"));
    let lat = r.latency.as_ref().unwrap();
    let curve = lat
        .sweep
        .iter()
        .find(|c| c.page_size.label() == "4k")
        .expect("the 4k curve");
    let point = curve.points.last().unwrap();
    assert_eq!(point.working_set_bytes, 8 << 20);
    assert_eq!(point.ns_per_load, l.ns_per_load);
    let m = lat.matrix.as_ref().unwrap();
    let home = m
        .cells
        .iter()
        .find(|c| c.initiator_node == l.memory_node && c.memory_node == l.memory_node)
        .expect("the home cell");
    assert_eq!(home.result.ns_per_load, l.ns_per_load);
    let bw = r.bandwidth.as_ref().unwrap();
    let cell = bw.matrix[0]
        .cells
        .iter()
        .find(|c| c.initiator == b.memory_node && c.target == b.memory_node)
        .expect("the bandwidth home cell");
    assert_eq!(cell.mb_per_s, b.mb_per_s.median);
    assert_eq!(
        bw.results[cell.result_index].mb_per_s.samples,
        b.mb_per_s.samples
    );
    // The one-screen summary shows the reference once (the filled places are the same
    // figure); the HTML says whose figure the filled places show.
    let local = numascope::render::format::estimate::num(l.ns_per_load.median);
    let shown = stdout.split_whitespace().filter(|w| *w == local).count();
    assert!(shown <= 1, "{local} shown {shown} times: {stdout}");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert_eq!(summary, stdout);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Local bandwidth"));
    assert!(
        html.contains("the run&#39;s local idle latency")
            || html.contains("the run's local idle latency")
    );
}

/// Parts that show neither figure measure no reference; one that shows only latency measures
/// only that side, and still runs as before.
#[test]
fn only_the_sides_a_part_shows_are_measured() {
    let lock = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    run(lock.path(), &out, &["--only", "topology"]);
    let r = numascope::results_file::load(&out.join("results.json")).unwrap();
    assert!(r.reference.is_none());
    assert!(r.plan.reference.is_none());
    // `--only latency` still runs: the reference's latency side (at the plan's DRAM size)
    // and no bandwidth side; a sweep that does not reach that size keeps all its points.
    let out = dir.path().join("l");
    run(
        lock.path(),
        &out,
        &["--only", "latency", "--sweep", "4KiB..1MiB"],
    );
    let r = numascope::results_file::load(&out.join("results.json")).unwrap();
    assert!(r.completed.contains(&Part::Latency), "{:?}", r.failed);
    let f = r.reference.as_ref().unwrap();
    assert!(f.bandwidth.is_none());
    assert!(f.latency.as_ref().unwrap().ns_per_load.samples >= 6);
    assert!(!f.fills(Part::Latency, ReferenceFigure::Latency));
    let points = &r.latency.as_ref().unwrap().sweep[0].points;
    assert_eq!(points.last().unwrap().working_set_bytes, 1 << 20);
}
