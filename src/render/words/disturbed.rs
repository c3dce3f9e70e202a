//! The warning sentence of a figure whose repetitions stayed disturbed after the retakes ran
//! out: which figure, then its quality record's [`reason`]. The experiments and the run put
//! these in results files' `warnings`; `None` when the figure was not disturbed.

use crate::results::advice::PolicyCheck;
use crate::results::bandwidth::BandwidthResult;
use crate::results::peak::PeakRun;
use crate::results::quality::RepetitionQuality;
use crate::results::scenarios::ScenarioResult;

/// One sentence saying what disturbed the repetitions, for a warning; `None` when no
/// taken repetition was disturbed. E.g. "CPU 1 ran 48 % of the time in 3 of 9
/// repetitions: another program shared it; the figure is kept but marked disturbed".
pub fn reason(q: &RepetitionQuality) -> Option<String> {
    let mut parts = Vec::new();
    if q.repetitions_short_of_cpu > 0 {
        let who = match q.lowest_taken_cpu {
            Some(cpu) => format!("CPU {cpu}"),
            None => "a measuring thread".to_string(),
        };
        let pct = q.lowest_taken_cpu_share_fraction.unwrap_or(0.0) * 100.0;
        parts.push(format!(
            "{who} ran {pct:.0} % of the time in {} of {} repetitions: another program shared it",
            q.repetitions_short_of_cpu, q.repetitions_taken
        ));
    }
    if q.repetitions_stolen > 0 {
        let pct = q.highest_taken_steal_fraction.unwrap_or(0.0) * 100.0;
        parts.push(format!(
            "the hypervisor took up to {pct:.0} % of the CPUs' time (steal) in {} of {} repetitions: another guest shared the host",
            q.repetitions_stolen, q.repetitions_taken
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let outcome = if q.disturbed {
        format!(
            "{} of the {} kept repetitions are disturbed, so the figure is marked disturbed; rerun on an idle machine",
            q.repetitions_kept_disturbed, q.repetitions_kept
        )
    } else {
        format!(
            "those {} repetitions were discarded and taken again",
            q.repetitions_discarded
        )
    };
    Some(format!("{}; {outcome}", parts.join("; ")))
}

/// `what: reason` when `q` stayed disturbed.
fn warning(what: String, q: Option<&RepetitionQuality>) -> Option<String> {
    Some(format!("{what}: {}", reason(q.filter(|q| q.disturbed)?)?))
}

/// A bandwidth result's warning.
pub fn bandwidth(r: &BandwidthResult) -> Option<String> {
    let what = format!("bandwidth of {}", super::labels::bandwidth(r));
    warning(what, r.quality.as_ref())
}

/// A peak-injection run's warning.
pub fn peak(r: &PeakRun) -> Option<String> {
    let what = format!("bandwidth of {}", super::labels::peak_run(r));
    warning(what, Some(&r.quality))
}

/// An advisor check's warning, when its rounds stayed disturbed.
pub fn advisor_check(c: &PolicyCheck) -> Option<String> {
    warning(format!("advisor check {}", c.policy), c.quality.as_ref())
}

/// A scenario row's warning, when it was measured (not copied from an identical row) and its
/// rounds or its latency blocks stayed disturbed (the bandwidth's reason first).
pub fn scenario_row(s: &ScenarioResult) -> Option<String> {
    if s.same_as.is_some() {
        return None;
    }
    let bandwidth = s.quality.as_ref().filter(|q| q.disturbed).and_then(reason);
    let blocks = s.latency.as_ref().and_then(|l| l.quality.as_ref());
    let why: Vec<String> = [bandwidth, warning("its latency blocks".into(), blocks)]
        .into_iter()
        .flatten()
        .collect();
    (!why.is_empty()).then(|| {
        format!(
            "policy scenario ({}) {}: {}",
            s.letter,
            s.label,
            why.join("; ")
        )
    })
}
