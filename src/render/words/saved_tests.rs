//! The results files earlier versions saved (tests/fixtures/results/) hold sentences these
//! functions now word from the data: wording them again gives the words the files stored.

use crate::render::fixture::saved;
use crate::results::quality::DEFAULT_MIN_CPU_SHARE;
use crate::results::verdict::{figure_checks, judge_figures};

/// The files with a verdict word the sentence they stored from its fields, and judging
/// their figures again records the same verdict, its figures named alike.
#[test]
fn saved_files_word_the_verdict_they_stored() {
    for name in ["this-machine-peak.json", "this-machine-quick-v657.json"] {
        let r = saved(name);
        let stored = r.quality.clone().unwrap();
        assert_eq!(super::verdict::sentence(&stored), stored.sentence, "{name}");
        let again =
            super::verdict::recorded(&judge_figures(&figure_checks(&r), DEFAULT_MIN_CPU_SHARE));
        assert_eq!(again, stored, "{name}");
    }
}

/// The disturbance warnings the files stored (every peak run of one, a scenario row of
/// another) are worded again the same, and so are the core-to-core groups' labels.
#[test]
fn saved_files_word_their_warnings_and_labels_alike() {
    let r = saved("this-machine-peak.json");
    let peak = r.peak.as_ref().unwrap();
    let again: Vec<String> = peak
        .peak
        .iter()
        .flat_map(|p| &p.runs)
        .filter_map(super::disturbed::peak)
        .collect();
    assert_eq!(again.len(), 14);
    assert_eq!(again, peak.warnings);
    let r = saved("this-machine-quick-v657.json");
    let rows = &r.scenarios.as_ref().unwrap().scenarios;
    let again: Vec<String> = rows
        .iter()
        .filter_map(super::disturbed::scenario_row)
        .collect();
    assert_eq!(again.len(), 1);
    assert_eq!(again, r.warnings);
    for name in [
        "opteron-2node.json",
        "this-machine-kvm-2cpu.json",
        "this-machine-quick-v657.json",
    ] {
        for g in &saved(name).c2c.unwrap().groups {
            assert_eq!(super::labels::relation(&g.relation), g.label, "{name}");
        }
    }
}
