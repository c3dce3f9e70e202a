//! The agreement rule on a recorded run (`run --quick` on the project's 2-vCPU guest with
//! the steady-state reference, while (a)'s latency thread still ran on both CPUs) and
//! on edits of it.

use super::*;
use crate::results::scenarios::ScenarioId;

fn recorded() -> RunResults {
    RunResults::from_json(
        include_str!("../../../tests/fixtures/agreement/quick-run.json"),
        "quick-run.json",
    )
    .expect("the recorded run parses")
}

fn latency_place<'a>(p: &'a [Place], starts: &str) -> &'a Place {
    p.iter()
        .find(|p| p.quantity == Quantity::LocalIdleLatency && p.place.starts_with(starts))
        .unwrap_or_else(|| panic!("no place {starts} in {p:?}"))
}

fn shifted(s: &mut Summary, by: f64) {
    s.median *= by;
    s.min *= by;
    s.max *= by;
    s.ci = s.ci.map(|c| Interval {
        low: c.low * by,
        high: c.high * by,
        ..c
    });
}

#[test]
fn the_recorded_run_shows_one_figure_or_agreeing_ones() {
    let r = recorded();
    let p = places(&r);
    // The filled places show the reference's own figure.
    assert_eq!(
        latency_place(&p, "random base curve").verdict,
        Verdict::SameFigure
    );
    assert_eq!(
        latency_place(&p, "latency matrix").verdict,
        Verdict::SameFigure
    );
    // The place that measured again under the same conditions agrees with it.
    assert_eq!(latency_place(&p, "loaded-latency").verdict, Verdict::Agree);
    // Recorded before (a)'s thread was pinned to the reference's CPU: its conditions differ,
    // and the verdict says how.
    assert_eq!(
        latency_place(&p, "scenario (a)").verdict,
        Verdict::OtherConditions("CPUs [0, 1] (the scheduler's choice)".into())
    );
    let bw: Vec<&Place> = p
        .iter()
        .filter(|p| p.quantity == Quantity::LocalReadBandwidth)
        .collect();
    assert!(!bw.is_empty());
    assert!(bw.iter().all(|p| p.verdict != Verdict::Disagree), "{bw:?}");
    assert!(warnings(&r).is_empty());
}

#[test]
fn disjoint_intervals_under_the_same_conditions_are_a_warning_naming_both() {
    let mut r = recorded();
    let reference = r
        .reference
        .as_ref()
        .unwrap()
        .latency
        .as_ref()
        .unwrap()
        .ns_per_load;
    let idle = &mut r.loaded_latency.as_mut().unwrap().points[0].ns_per_load;
    // Above the reference's interval by a fifth of its median.
    let by = (reference.ci.unwrap().high + reference.median * 0.2) / idle.ci.unwrap().low;
    shifted(idle, by);
    assert_eq!(
        latency_place(&places(&r), "loaded-latency").verdict,
        Verdict::Disagree
    );
    let w = warnings(&r);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("local idle latency") && w[0].contains("loaded-latency no-load point"));
    assert!(w[0].contains(&format!("{:.0} ns", reference.median)));
}

#[test]
fn a_figure_under_other_conditions_says_which_and_is_not_judged() {
    let mut r = recorded();
    let t = r.scenarios.as_mut().unwrap();
    t.latency_working_set_bytes = Some(128 << 20);
    let a = t
        .scenarios
        .iter_mut()
        .find(|s| s.id == ScenarioId::PinnedLocal)
        .unwrap();
    let lat = a.latency.as_mut().unwrap();
    lat.cpus = vec![0];
    shifted(&mut lat.ns_per_load, 0.6);
    let p = places(&r);
    assert_eq!(
        latency_place(&p, "scenario (a)").verdict,
        Verdict::OtherConditions("128 MiB working set".into())
    );
    assert!(warnings(&r).is_empty());
}

fn scenario_a(r: &mut RunResults) -> &mut crate::results::scenarios::ScenarioLatency {
    let t = r.scenarios.as_mut().unwrap();
    let a = t
        .scenarios
        .iter_mut()
        .find(|s| s.id == ScenarioId::PinnedLocal);
    a.unwrap().latency.as_mut().unwrap()
}

#[test]
fn scenario_a_on_the_references_cpu_is_the_same_quantity() {
    let mut r = recorded();
    scenario_a(&mut r).cpus = vec![0];
    assert_eq!(
        latency_place(&places(&r), "scenario (a)").verdict,
        Verdict::Agree
    );
    // Well below the reference's interval: a disagreement, warned.
    shifted(&mut scenario_a(&mut r).ns_per_load, 0.6);
    assert_eq!(
        latency_place(&places(&r), "scenario (a)").verdict,
        Verdict::Disagree
    );
    assert_eq!(warnings(&r).len(), 1);
}

#[test]
fn without_an_interval_nothing_is_claimed() {
    let mut r = recorded();
    let idle = &mut r.loaded_latency.as_mut().unwrap().points[0].ns_per_load;
    idle.ci = None;
    shifted(idle, 3.0);
    assert_eq!(
        latency_place(&places(&r), "loaded-latency").verdict,
        Verdict::NoInterval
    );
    assert!(warnings(&r).is_empty());
}

#[test]
fn a_run_without_a_reference_has_no_places() {
    let mut r = recorded();
    r.reference = None;
    assert!(places(&r).is_empty() && warnings(&r).is_empty());
}

#[test]
fn intervals_overlap_when_they_share_a_point() {
    let f = |l, h| Figure {
        median: (l + h) / 2.0,
        ci: Some(Interval::new(l, h)),
        samples: 9,
    };
    assert_eq!(f(1.0, 2.0).overlaps(&f(2.0, 3.0)), Some(true));
    assert_eq!(f(1.0, 2.0).overlaps(&f(2.5, 3.0)), Some(false));
    assert_eq!(f(2.5, 3.0).overlaps(&f(1.0, 2.0)), Some(false));
    let none = Figure {
        ci: None,
        ..f(1.0, 2.0)
    };
    assert_eq!(none.overlaps(&f(1.0, 2.0)), None);
}

/// The places that measure a reference quantity by design, under the reference's conditions
/// and with blocks, are the ones the reference pools: the loaded no-load point (its six
/// blocks) and, once on the reference's CPU, scenario (a) (nine) and (d)'s bandwidth rounds;
/// the filled sweep point and matrix cell never are.
#[test]
fn the_poolable_places_are_those_under_the_same_conditions_with_blocks() {
    let mut r = recorded();
    let names = |r: &RunResults| -> Vec<(ReferenceFigure, String, usize)> {
        poolable(r)
            .into_iter()
            .map(|p| (p.figure, p.place, p.blocks.len()))
            .collect()
    };
    let before = names(&r);
    assert!(
        before.contains(&(
            ReferenceFigure::Latency,
            "loaded-latency no-load point (read)".into(),
            6
        )),
        "{before:?}"
    );
    assert!(
        !before.iter().any(|p| p.1.starts_with("scenario (a)")),
        "(a) ran on the scheduler's CPUs there: other conditions, {before:?}"
    );
    assert!(before.contains(&(
        ReferenceFigure::Bandwidth,
        "scenario (d)'s bandwidth".into(),
        6
    )));
    assert!(!before
        .iter()
        .any(|p| p.1.contains("curve") || p.1.contains("matrix")));
    // Further load mixes share the curve's one no-load point: it is counted once.
    let mut mix = r.loaded_latency.clone().unwrap();
    mix.kernel_label = "read:write 1:1".into();
    r.loaded_latency_mixes = vec![mix.clone(), mix];
    let with_mixes = names(&r);
    assert_eq!(
        with_mixes
            .iter()
            .filter(|p| p.1.starts_with("loaded-latency"))
            .count(),
        1,
        "{with_mixes:?}"
    );
    scenario_a(&mut r).cpus = vec![0];
    assert!(names(&r).contains(&(ReferenceFigure::Latency, "scenario (a)'s latency".into(), 9)));
    // Under other conditions (another working set) it is not pooled.
    r.scenarios.as_mut().unwrap().latency_working_set_bytes = Some(128 << 20);
    assert!(!names(&r).iter().any(|p| p.1.starts_with("scenario (a)")));
}

/// A place pooled into the reference is one estimate with it: its verdict says so and, however
/// far its own figure lies from the pooled one, it is never a disagreement.
#[test]
fn a_pooled_place_is_part_of_the_figure_and_never_a_disagreement() {
    let mut r = recorded();
    let f = r.reference.as_mut().unwrap();
    f.pooled.push(crate::results::reference::PooledPlace {
        figure: ReferenceFigure::Latency,
        place: "loaded-latency no-load point (read)".into(),
        blocks: 6,
    });
    shifted(
        &mut r.loaded_latency.as_mut().unwrap().points[0].ns_per_load,
        3.0,
    );
    assert_eq!(
        latency_place(&places(&r), "loaded-latency").verdict,
        Verdict::Pooled
    );
    assert!(warnings(&r).is_empty());
    // Without the record (a file written before pooling) the same figure is judged.
    r.reference.as_mut().unwrap().pooled.clear();
    assert_eq!(
        latency_place(&places(&r), "loaded-latency").verdict,
        Verdict::Disagree
    );
}
