//! Every warning of a run in one list, each prefixed with the part that raised it, for the
//! places a user looks (the summary, the end-of-run brief, the HTML banner).

use crate::results::RunResults;

/// The topology's warnings, each measured part's, then the run's own; a line said twice is
/// kept once.
pub fn gathered(r: &RunResults) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut add = |what: &str, ws: &[String]| {
        for w in ws {
            let line = format!("{what}: {w}");
            if !v.contains(&line) {
                v.push(line);
            }
        }
    };
    add("topology", &r.topology.warnings);
    if let Some(l) = &r.latency {
        add("latency", &l.warnings);
    }
    if let Some(b) = &r.bandwidth {
        add("bandwidth", &b.warnings);
    }
    if let Some(b) = &r.scaling {
        add("scaling", &b.warnings);
    }
    if let Some(l) = &r.loaded_latency {
        add("loaded latency", &l.warnings);
    }
    for m in &r.loaded_latency_mixes {
        add(&format!("loaded latency {}", m.kernel_label), &m.warnings);
    }
    if let Some(c) = &r.c2c {
        add("core to core", &c.warnings);
    }
    add("run", &r.warnings);
    v
}
