//! Estimate and detail line of the core-to-core part.

use super::super::settings::Settings;

/// The estimate and detail line of the C2c part.
pub(super) fn c2c(s: &Settings, reduced: &mut Vec<String>) -> (f64, String) {
    let c = &s.c2c;
    if c.cpus.len() < c.all_cpus {
        reduced.push(format!(
            "{} of {} CPUs paired ({} ordered pairs; CPUs taken round-robin over the nodes, one per core first)",
            c.cpus.len(),
            c.all_cpus,
            c.pairs()
        ));
    }
    (
        c.pairs() as f64 * ((c.repetitions + 1) as f64 * c.repetition_ms as f64 / 1000.0 + 0.005),
        format!(
            "{} ordered CPU pairs over CPUs {}, {} x {} ms each",
            c.pairs(),
            crate::results::format::format_list(&c.cpus),
            c.repetitions,
            c.repetition_ms
        ),
    )
}
