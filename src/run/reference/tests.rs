use super::fill::fill_latency;
use super::*;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::reference::{FilledPlace, ReferenceFigure, ReferenceFigures};
use crate::results::RunResults;
use crate::run::plan::{make_plan, PlanRequest};
use crate::run::sample;

pub(super) fn figures(median: f64, n: usize) -> ReferenceFigures {
    let samples: Vec<f64> = (0..n).map(|k| median - 2.0 + (k % 5) as f64).collect();
    let mut f = ReferenceFigures::empty();
    f.latency = Some(crate::testutil::reference_latency(16 << 20, &samples));
    f
}

pub(super) fn place(part: Part, figure: ReferenceFigure, place: &str) -> FilledPlace {
    FilledPlace {
        part,
        figure,
        place: place.into(),
        source: "reference".into(),
        result_index: None,
    }
}

#[test]
fn slots_reach_six_repetitions_whatever_the_part_count() {
    assert_eq!(slots(&[Part::Topology, Part::Latency]), 2);
    assert_eq!(slots(&[Part::Latency]), 2);
    assert_eq!(per_slot(2), 3);
    assert_eq!(per_slot(3), 2);
    assert_eq!(per_slot(6), 1);
    assert_eq!(per_slot(12), 1);
    for n in 1..20 {
        assert!(per_slot(n) * n >= MIN_REPETITIONS, "{n}");
    }
}

/// The matrix's home cell becomes the reference figure, and the remote cell's ratio is
/// taken against it; a place the parts did not leave to the reference is not touched.
#[test]
fn the_matrix_home_cell_shows_the_reference_and_ratios_follow_it() {
    let topo = sample::opteron_topology();
    let mut r = sample::results();
    r.latency = Some(sample::latency_matrix(&[
        (0, 0, 100.0, None),
        (0, 1, 150.0, None),
    ]));
    let mut f = figures(90.0, 9);
    r.reference = Some(f.clone());
    fill_latency(&topo, &mut r);
    let m = r.latency.as_ref().unwrap().matrix.as_ref().unwrap();
    assert_eq!(
        m.cells[0].result.ns_per_load.median, 100.0,
        "not a filled place"
    );
    f.filled
        .push(place(Part::LatencyMatrix, ReferenceFigure::Latency, "cell"));
    r.reference = Some(f.clone());
    fill_latency(&topo, &mut r);
    let m = r.latency.as_ref().unwrap().matrix.as_ref().unwrap();
    assert_eq!(m.cells.len(), 2);
    let home = &m.cells[0];
    assert_eq!((home.initiator_node, home.memory_node), (0, 0));
    assert_eq!(home.result.ns_per_load, f.latency.unwrap().ns_per_load);
    assert_eq!(home.result.ns_per_load.samples, 9);
    let remote = &m.cells[1];
    assert_eq!(remote.measured_ratio, Some(150.0 / 90.0));
}

/// The random 4k curve gets the reference point at its size, in size order, and its
/// knees are found again; other curves keep their points.
#[test]
fn the_sweep_point_at_the_reference_size_is_the_reference() {
    let topo = sample::opteron_topology();
    let mut r = sample::results();
    let mut rep = sample::latency_matrix(&[]);
    rep.matrix = None;
    let point = |bytes: u64, ns: f64| {
        let mut p = sample::latency_matrix(&[(0, 0, ns, None)])
            .matrix
            .unwrap()
            .cells[0]
            .result
            .clone();
        p.working_set_bytes = bytes;
        p.mode = Mode::Random;
        p.group_bytes = None;
        p
    };
    for page in [PageSize::Base, PageSize::Thp] {
        rep.sweep.push(crate::results::latency::SweepCurve {
            mode: Mode::Random,
            page_size: page,
            chains: 1,
            points: vec![point(4 << 20, 40.0), point(32 << 20, 120.0)],
        });
    }
    r.latency = Some(rep);
    let mut f = figures(200.0, 7);
    f.filled
        .push(place(Part::Latency, ReferenceFigure::Latency, "point"));
    let want = f.latency.as_ref().unwrap().ns_per_load;
    r.reference = Some(f);
    fill_latency(&topo, &mut r);
    fill_latency(&topo, &mut r);
    let l = r.latency.as_ref().unwrap();
    let sizes: Vec<u64> = l.sweep[0]
        .points
        .iter()
        .map(|p| p.working_set_bytes)
        .collect();
    assert_eq!(
        sizes,
        vec![4 << 20, 16 << 20, 32 << 20],
        "filled once, in order"
    );
    assert_eq!(l.sweep[0].points[1].ns_per_load, want);
    assert_eq!(l.sweep[0].points[1].ns_per_load.samples, 7);
    assert_eq!(
        l.sweep[1].points.len(),
        2,
        "the THP curve is not the reference's"
    );
    assert_eq!(l.knees.len(), 1);
}

/// On this one-node machine every covered place is covered in the default plan, and the
/// plan's total holds the reference's estimate; `--only topology` and `--only c2c` plan
/// no reference, `--only latency` only its latency side.
#[test]
fn coverage_and_plan_on_this_machine() {
    let topo = crate::testutil::this_machine_one_node();
    let p = make_plan(&topo, &PlanRequest::default(), &Part::ALL);
    let c = coverage(&topo, &p.settings);
    assert!(c.latency_cell && c.bandwidth_cell && c.bandwidth_read && c.sweep_point);
    let x = p.plan.reference.as_ref().expect("planned");
    let sum: f64 = p.plan.parts.iter().map(|q| q.estimate_s).sum();
    assert!((p.plan.estimate_s - (sum + x.estimate_s)).abs() < 1e-9);
    assert!(x.detail.contains("local idle latency") && x.detail.contains("read kernel"));
    for (only, sides) in [
        (vec![Part::Topology], (false, false)),
        (vec![Part::C2c], (false, false)),
        (vec![Part::Latency], (true, false)),
        (vec![Part::Scaling], (false, true)),
    ] {
        let req = PlanRequest {
            only: Some(only.clone()),
            ..Default::default()
        };
        let q = make_plan(&topo, &req, &Part::ALL);
        assert_eq!(wanted(&q.plan), sides, "{only:?}");
        assert_eq!(q.plan.reference.is_some(), sides.0 || sides.1);
    }
}

fn recorded() -> RunResults {
    RunResults::from_json(
        include_str!("../../../tests/fixtures/agreement/quick-run.json"),
        "quick-run.json",
    )
    .expect("the recorded run parses")
}

/// Pooling: the figure is the median over the reference's own blocks (one per kept
/// repetition) and one block per poolable place (the median of its blocks, taken back to back
/// in its part), and the places are recorded with their block counts; every call starts again
/// from the reference's own blocks, so a second store pools once.
#[test]
fn the_figure_pools_the_blocks_of_the_places_under_its_conditions() {
    let mut r = recorded();
    let f = r.reference.clone().unwrap();
    let mut me = Reference::detached(f.bandwidth.as_ref().unwrap());
    let own: Vec<f64> = (0..10).map(|k| 200.0 + k as f64).collect();
    me.repetitions = own
        .iter()
        .map(|&ns| crate::results::reference::ReferenceRepetition {
            before: None,
            at_s: 0.0,
            ns_per_load: Some(ns),
            latency_kept: true,
            mb_per_s: None,
            bandwidth_kept: false,
            probe_ns: None,
            probe_disturbed: false,
            cpu_disturbed: false,
        })
        .collect();
    me.bw_totals = vec![20_000.0; 10];
    let loaded: Vec<f64> = r.loaded_latency.as_ref().unwrap().points[0]
        .blocks
        .iter()
        .map(|b| b.ns_per_load_median)
        .collect();
    assert_eq!(loaded.len(), 6);
    for _ in 0..2 {
        me.pool(&mut r);
    }
    let g = r.reference.as_ref().unwrap();
    let l = &g.latency.as_ref().unwrap().ns_per_load;
    let mut all = own.clone();
    all.push(crate::stats::median(&loaded));
    assert_eq!(l.samples, 11, "ten own blocks and the place's one, once");
    assert_eq!(l.median, crate::stats::median(&all));
    let b = &g.bandwidth.as_ref().unwrap().mb_per_s;
    assert_eq!(b.samples, 10 + 1, "(d)'s six rounds joined as one block");
    let counts: Vec<usize> = g.pooled.iter().map(|p| p.blocks).collect();
    assert_eq!(counts, [6, 6], "each place's own block count is recorded");
    let names: Vec<&str> = g.pooled.iter().map(|p| p.place.as_str()).collect();
    assert_eq!(
        names,
        [
            "loaded-latency no-load point (read)",
            "scenario (d)'s bandwidth"
        ]
    );
    // The agreement rule then calls them one figure: no disagreement is possible for them
    // (the filled places are written again by `store` after pooling; not here).
    let v = crate::results::agreement::places(&r);
    let pooled = v
        .iter()
        .filter(|p| p.verdict == crate::results::agreement::Verdict::Pooled)
        .count();
    assert_eq!(pooled, 2, "{v:?}");
    let w = crate::results::agreement::warnings(&r);
    assert!(
        w.iter()
            .all(|w| !w.contains("no-load point") && !w.contains("scenario (d)")),
        "{w:?}"
    );
}

/// A repetition with a latency block `ns` and an idle probe `probe` (before and after alike).
fn probed(
    ns: f64,
    probe: Option<f64>,
    kept: bool,
) -> crate::results::reference::ReferenceRepetition {
    crate::results::reference::ReferenceRepetition {
        before: None,
        at_s: 0.0,
        ns_per_load: Some(ns),
        latency_kept: kept,
        mb_per_s: None,
        bandwidth_kept: false,
        probe_ns: probe.map(|p| [p, p]),
        probe_disturbed: false,
        cpu_disturbed: false,
    }
}

#[test]
fn blocks_the_idle_probe_judges_disturbed_leave_the_figure_when_enough_quiet_ones_remain() {
    // Eight kept blocks, two of them with a probe 50 % above the quiet 100 ns (and slow
    // blocks), one discarded repetition (never judged) and one kept block without a probe.
    let mut reps: Vec<_> = (0..6)
        .map(|k| probed(250.0 + k as f64, Some(100.0), true))
        .collect();
    reps.push(probed(400.0, Some(150.0), true));
    reps.push(probed(410.0, Some(150.0), true));
    reps.push(probed(900.0, Some(300.0), false));
    reps.push(probed(252.0, None, true));
    let v = super::pool::latency_verdict(&reps);
    let p = v.probe.unwrap();
    assert_eq!(
        (p.blocks_disturbed, p.blocks_probed, p.left_out),
        (2, 8, true)
    );
    assert_eq!(p.quiet_ns, 100.0);
    assert_eq!(v.blocks.len(), 7, "six quiet, one unprobed");
    assert!(v.blocks.iter().all(|b| *b < 300.0), "{:?}", v.blocks);
    let marked: Vec<bool> = v.repetitions.iter().map(|r| r.probe_disturbed).collect();
    assert_eq!(
        marked,
        [false, false, false, false, false, false, true, true, false, false]
    );

    // With only four quiet blocks the disturbed ones stay in, and are counted.
    let v = super::pool::latency_verdict(&reps[4..]);
    let p = v.probe.unwrap();
    assert_eq!((p.blocks_disturbed, p.left_out), (2, false));
    assert_eq!(v.blocks.len(), 5);
}

#[test]
fn a_reference_with_disturbed_blocks_it_could_not_leave_out_is_marked_disturbed() {
    let f = recorded().reference.unwrap();
    let mut me = Reference::detached(f.bandwidth.as_ref().unwrap());
    let mut reps: Vec<_> = (0..4)
        .map(|k| probed(250.0 + k as f64, Some(100.0), true))
        .collect();
    reps.extend((0..4).map(|k| probed(400.0 + k as f64, Some(160.0), true)));
    me.repetitions = reps.clone();
    let got = me.figures(None).latency.unwrap();
    assert!(
        got.quality.disturbed,
        "four quiet blocks are too few to leave four out"
    );
    assert_eq!(got.ns_per_load.samples, 8);
    // Two more quiet blocks: the disturbed ones leave, and the figure is not marked.
    reps.extend((0..2).map(|k| probed(260.0 + k as f64, Some(101.0), true)));
    me.repetitions = reps;
    let got = me.figures(None).latency.unwrap();
    assert!(!got.quality.disturbed);
    assert_eq!(got.ns_per_load.samples, 6);
    assert!(got.ns_per_load.max < 300.0);
}

#[test]
fn blocks_kept_short_of_cpu_leave_the_figure_with_the_probes_when_enough_quiet_ones_remain() {
    let f = recorded().reference.unwrap();
    let mut me = Reference::detached(f.bandwidth.as_ref().unwrap());
    // Seven quiet blocks and two kept short of CPU once the allowance was spent.
    let mut reps: Vec<_> = (0..7)
        .map(|k| probed(250.0 + k as f64, Some(100.0), true))
        .collect();
    for ns in [850.0, 900.0] {
        let mut r = probed(ns, Some(100.0), true);
        r.cpu_disturbed = true;
        reps.push(r);
    }
    me.repetitions = reps;
    me.lat_quality.repetitions_taken = 13;
    me.lat_quality.repetitions_discarded = 4;
    me.lat_quality.repetitions_kept = 9;
    me.lat_quality.repetitions_kept_disturbed = 2;
    me.lat_quality.disturbed = true;
    let got = me.figures(None).latency.unwrap();
    assert_eq!(got.ns_per_load.samples, 7);
    assert!(got.ns_per_load.max < 300.0);
    let q = &got.quality;
    assert!(!q.disturbed, "no disturbed block is left in the figure");
    assert_eq!(
        (
            q.repetitions_kept,
            q.repetitions_discarded,
            q.repetitions_kept_disturbed
        ),
        (7, 6, 0)
    );
    assert!(got.probe.unwrap().left_out);
    // One quiet block fewer than six after leaving them out: they stay, and the mark too.
    me.repetitions.drain(0..2);
    let got = me.figures(None).latency.unwrap();
    assert_eq!(got.ns_per_load.samples, 7);
    assert!(got.quality.disturbed);
    assert_eq!(got.quality.repetitions_kept_disturbed, 2);
}
