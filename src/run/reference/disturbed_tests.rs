//! A disturbed reference marks every place it fills, in every view.

use super::fill::fill_latency;
use super::tests::{figures, place};
use super::*;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::quality::{RepSample, RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::results::reference::{
    FilledPlace, ReferenceBandwidth, ReferenceFigure, ReferenceFigures,
};
use crate::results::RunResults;
use crate::run::sample;
use crate::stats::Summary;

/// A run whose places were filled from a quiet reference: a 4 MiB sweep point of its own, the
/// remote latency cell, and the bandwidth, matrix and scaling results holding the
/// reference's placeholder; and the reference's figures.
fn run_filled_while_quiet() -> (RunResults, ReferenceFigures) {
    let mut r = sample::results();
    let mut rep = sample::latency_matrix(&[(0, 1, 150.0, None)]);
    let mut p4 = rep.matrix.as_ref().unwrap().cells[0].result.clone();
    p4.working_set_bytes = 4 << 20;
    p4.mode = Mode::Random;
    p4.memory_node = Some(0);
    p4.ns_per_load = Summary::of(&[40.0; 9]).unwrap();
    rep.sweep.push(crate::results::latency::SweepCurve {
        mode: Mode::Random,
        page_size: PageSize::Base,
        chains: 1,
        points: vec![p4],
    });
    r.latency = Some(rep);
    let mut f = figures(90.0, 9);
    let bw_samples: Vec<f64> = (0..9).map(|k| 6000.0 + 10.0 * k as f64).collect();
    f.bandwidth = Some(ReferenceBandwidth {
        kernel: "read".into(),
        cpus: vec![0],
        threads: 1,
        memory_node: 0,
        bytes_per_thread: 64 << 20,
        page_size: PageSize::Base,
        duration_ms: BANDWIDTH_REP_MS,
        placement_fraction: 1.0,
        mb_per_s: Summary::of(&bw_samples).unwrap(),
        per_thread_mb_per_s: vec![6040.0],
        elapsed_ns: vec![],
        quality: RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 2),
    });
    r.reference = Some(f.clone());
    (r, f)
}

/// The bandwidth, bandwidth-matrix and scaling results the parts push where they leave the
/// measurement to the reference: its placeholder as it stood then.
fn push_placeholders(topo: &crate::results::topology::Topology, r: &mut RunResults) {
    use crate::results::bandwidth::{Matrix, MatrixCell, Scaling, ScalingPoint, ScalingSeries};
    let early = Reference::placeholder(r).unwrap();
    assert!(!early.quality.as_ref().unwrap().disturbed);
    let mut bw = crate::bandwidth::experiment::empty_report(topo);
    bw.results.push(early.clone());
    bw.matrix.push(Matrix {
        kernel: "read".into(),
        initiators: vec![0],
        targets: vec![0],
        cells: vec![MatrixCell {
            initiator: 0,
            target: 0,
            threads: 1,
            mb_per_s: early.mb_per_s.median,
            dram_mb_per_s_estimate: early.dram_mb_per_s_estimate.median,
            placement_fraction: 1.0,
            hmat_read_mb_per_s: None,
            hmat_write_mb_per_s: None,
            result_index: 0,
        }],
    });
    r.bandwidth = Some(bw);
    let mut sc = crate::bandwidth::experiment::empty_report(topo);
    sc.results.push(early.clone());
    sc.scaling.push(Scaling {
        kernel: "read".into(),
        series: vec![ScalingSeries {
            mode: "packed".into(),
            node: Some(0),
            points: vec![ScalingPoint {
                threads: 1,
                cpus: vec![0],
                mb_per_s: early.mb_per_s.median,
                mb_per_s_max: early.mb_per_s.max,
                result_index: 0,
            }],
            knee_threads: None,
        }],
    });
    r.scaling = Some(sc);
}

/// The places the parts left to the reference: both latency places and the three bandwidth
/// results (index 0).
fn filled_places() -> Vec<FilledPlace> {
    let mut filled = vec![
        place(
            Part::Latency,
            ReferenceFigure::Latency,
            "random 4k curve, 16 MiB point",
        ),
        place(
            Part::LatencyMatrix,
            ReferenceFigure::Latency,
            "matrix cell 0 -> 0",
        ),
    ];
    for part in [Part::Bandwidth, Part::BandwidthMatrix, Part::Scaling] {
        let mut p = place(part, ReferenceFigure::Bandwidth, "read");
        p.result_index = Some(0);
        filled.push(p);
    }
    filled
}

/// A quality record of repetitions that stayed disturbed (a hog on CPU 0).
fn disturbed() -> RepetitionQuality {
    let mut bad = RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, 2);
    for _ in 0..9 {
        bad.record(&RepSample {
            cpu_share_fraction: Some(0.45),
            cpu: Some(0),
            ..RepSample::default()
        });
    }
    assert!(bad.disturbed);
    bad
}

/// The parts filled their places while the reference was still
/// quiet, then its later repetitions stayed disturbed. Every place it fills carries the
/// reference's quality record, so every view marks it: the JSON record, the verdict's
/// counts, `compare`'s metrics, summary.txt's lines and the terminal's intervals; the
/// places it does not fill keep their own record.
#[test]
fn a_disturbed_reference_marks_every_place_it_fills() {
    let topo = sample::opteron_topology();
    let (mut r, mut f) = run_filled_while_quiet();
    push_placeholders(&topo, &mut r);
    f.filled = filled_places();
    let bad = disturbed();
    f.latency.as_mut().unwrap().quality = bad.clone();
    f.bandwidth.as_mut().unwrap().quality = bad.clone();
    r.reference = Some(f.clone());
    fill_latency(&topo, &mut r);
    Reference::detached(f.bandwidth.as_ref().unwrap()).fill_bandwidth(&topo, &mut r);
    // JSON: each place holds the reference's record, and keeps it through a file.
    let json = serde_json::to_string(&r).unwrap();
    let r: RunResults = serde_json::from_str(&json).unwrap();
    each_filled_place_holds(&r, &bad);
    the_verdict_and_compare_mark_the_filled_places(&r);
    the_text_marks_the_filled_places(&r);
}

/// Each filled place holds the reference's quality record; the others keep their own.
fn each_filled_place_holds(r: &RunResults, bad: &RepetitionQuality) {
    let l = r.latency.as_ref().unwrap();
    let point = l.sweep[0].points.last().unwrap();
    assert_eq!(point.working_set_bytes, 16 << 20);
    assert_eq!(point.quality.as_ref(), Some(bad), "sweep point");
    let cells = &l.matrix.as_ref().unwrap().cells;
    let home = cells.iter().find(|c| c.memory_node == 0).unwrap();
    assert_eq!(home.result.quality.as_ref(), Some(bad), "latency home cell");
    let remote = cells.iter().find(|c| c.memory_node == 1).unwrap();
    assert!(remote.result.quality.is_none(), "not a filled place");
    assert_eq!(
        l.sweep[0].points[0].quality, None,
        "the 4 MiB point is its own"
    );
    for (what, b) in [("bandwidth", &r.bandwidth), ("scaling", &r.scaling)] {
        let res = &b.as_ref().unwrap().results[0];
        assert_eq!(res.quality.as_ref(), Some(bad), "{what}");
    }
}

/// The verdict counts every filled place as disturbed, and compare marks their metrics.
fn the_verdict_and_compare_mark_the_filled_places(r: &RunResults) {
    // The verdict counts every filled place as disturbed, and nothing else.
    let checks = crate::results::verdict::figure_checks(r);
    let marked: Vec<String> = checks
        .iter()
        .filter(|c| c.disturbed)
        .map(|c| crate::render::words::figure::name(&c.figure))
        .collect();
    assert_eq!(marked.len(), 4, "{marked:?}");
    assert!(
        marked
            .iter()
            .filter(|n| n.starts_with("latency 16 MiB"))
            .count()
            == 2
            && marked.iter().any(|n| n.starts_with("bandwidth read"))
            && marked.iter().any(|n| n.starts_with("scaling read")),
        "{marked:?}"
    );
    // compare marks the metrics the filled places feed.
    let m = crate::compare::metrics(r, "a");
    for key in [
        "latency-matrix/0->0",
        "latency-sweep/random/4k/1",
        "bandwidth-matrix/read/0->0",
    ] {
        let x = m.metrics.iter().find(|x| x.key == key);
        assert!(x.is_some_and(|x| x.disturbed), "{key}: {x:?}");
    }
    assert!(
        !m.metrics
            .iter()
            .find(|x| x.key == "latency-matrix/0->1")
            .unwrap()
            .disturbed
    );
}

/// summary.txt and the terminal mark every line that shows the reference.
fn the_text_marks_the_filled_places(r: &RunResults) {
    // summary.txt: the reference figures it shows are marked DISTURBED.
    let f = crate::results::figures::of_run(r);
    for i in [f.local_latency, f.local_bandwidth] {
        let g = f.get(i.expect("a reference figure"));
        assert!(g.quality.disturbed, "{g:?}");
    }
    let mut out = Vec::new();
    crate::render::run_text::summary::render(&mut out, r, None).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("DISTURBED"), "{text}");
    // The terminal: the filled cells' intervals are marked.
    let mut out = Vec::new();
    crate::render::run_text::render(r, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    // Latency's node x node table: the home cell's row (CPU node 0, CPU, memory node 0) with
    // its interval, marked. The bandwidth matrix's cells print their intervals in the
    // `bandwidth` section's per-run table (the grid above it shows the medians).
    let matrix = text
        .split("\nNode x node latency")
        .nth(1)
        .unwrap_or_default();
    let home: Vec<&str> = matrix
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() > 3 && t[0] == "0" && t[2] == "0"
        })
        .collect();
    assert_eq!(home.len(), 1, "{text}");
    assert!(home[0].contains("(disturbed)"), "{}", home[0]);
    // The bandwidth and scaling figures the reference filled are marked in their tables.
    let bw = text.split("\nBandwidth (MB/s").nth(1).unwrap_or_default();
    assert!(bw.contains("(disturbed)"), "{text}");
    let sc = text
        .split("\nBandwidth scaling with threads")
        .nth(1)
        .unwrap_or_default();
    assert!(sc.contains("(disturbed)"), "{text}");
}
