//! The loaded-latency lines of the figure list: the run's curve (its idle point, or the
//! reference's figure when that point was pooled into it) and one curve per other kind of
//! memory.

use super::{figure, Conditions, LoadedLine, RunFigures};
use crate::results::loaded::{LoadedPoint, LoadedResult};
use crate::results::RunResults;
use crate::stats::Estimate;

pub(super) fn loaded(r: &RunResults, f: &mut RunFigures) {
    if let Some(l) = &r.loaded_latency {
        // A no-load point pooled into the reference is the reference's figure (one quantity
        // under one set of conditions, one figure): the line points to it.
        let place = crate::results::agreement::places::loaded_place(&l.kernel_label);
        let pooled = r.reference.as_ref().is_some_and(|rf| {
            rf.is_pooled(crate::results::reference::ReferenceFigure::Latency, &place)
        });
        let idle = f.local_latency.filter(|_| pooled);
        f.loaded = loaded_line(l, "loaded", idle, f);
    }
    // One curve per other kind of memory, after the run's own.
    for k in &r.loaded_latency_kinds {
        let key = format!("loaded.{}.{}", k.kind.word().to_lowercase(), k.node);
        if let Some(line) = loaded_line(&k.curve, &key, None, f) {
            f.loaded_kinds
                .push((format!("{} node {}", k.kind.word(), k.node), line));
        }
    }
}

/// A curve's idle point and its point at the highest load, as figures keyed `{key}.idle` and
/// `{key}.peak`; the idle point is `idle` instead when it is already a figure (the reference
/// its blocks were pooled into).
fn loaded_line(
    l: &LoadedResult,
    key: &str,
    idle: Option<usize>,
    f: &mut RunFigures,
) -> Option<LoadedLine> {
    let idle_i = idle;
    let first = l.points.first()?;
    let peak = l
        .points
        .iter()
        .max_by(|a, b| a.total_mb_per_s.total_cmp(&b.total_mb_per_s))?;
    let cond = |load: Option<String>| Conditions {
        method: Some("random".into()),
        working_set_bytes: Some(l.chaser_size_bytes),
        page_size: Some(l.page_size.to_string()),
        threads: Some(1),
        cpus: vec![l.chaser_cpu],
        memory_nodes: vec![l.mem_node],
        load,
        ..Default::default()
    };
    let idle_i = match idle_i {
        Some(i) => i,
        None => {
            let mut g = figure(
                format!("{key}.idle"),
                "idle latency",
                "ns",
                &first.ns_per_load,
                cond(None),
            );
            g.quality.disturbed = disturbed(first);
            f.add(g)
        }
    };
    let load = format!("{} load thread(s), {}", l.load_cpus.len(), l.kernel_label);
    let mut g = figure(
        format!("{key}.peak"),
        "latency at the highest load",
        "ns",
        &peak.ns_per_load,
        cond(Some(load)),
    );
    g.quality.disturbed = disturbed(peak);
    let peak_i = f.add(g);
    let bw = peak
        .total_mb_per_s_summary
        .map(|s| s.estimate())
        .unwrap_or(Estimate::new(peak.total_mb_per_s, None, 0));
    Some(LoadedLine {
        idle: idle_i,
        at_peak: peak_i,
        peak_mb_per_s: bw,
    })
}

/// Whether a point kept a disturbed block (its chaser got less than 90 % of its CPU, or
/// steal, after the retakes ran out): its quality record says so, or, in a file whose points
/// carry blocks but no quality record, one of its blocks does.
fn disturbed(p: &LoadedPoint) -> bool {
    match &p.quality {
        Some(q) => q.disturbed,
        None => p.blocks.iter().any(|b| b.disturbed),
    }
}

#[cfg(test)]
mod tests {
    use super::super::of_run;
    use crate::results::RunResults;

    /// A loaded curve whose idle or peak point kept a disturbed block gives a disturbed
    /// figure, as the latency, bandwidth and core-to-core figures are (the summary printed the
    /// loaded line unmarked while the run's warnings said its blocks were disturbed); a file
    /// whose points carry blocks but no quality record is read from its blocks.
    #[test]
    fn a_disturbed_loaded_point_marks_its_figure() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-quick-v657.json"
        );
        let mut r = RunResults::from_json(&std::fs::read_to_string(path).unwrap(), "x").unwrap();
        let marks = |r: &RunResults| {
            let f = of_run(r);
            let l = f.loaded.as_ref().expect("a loaded line");
            (
                f.get(l.idle).quality.disturbed,
                f.get(l.at_peak).quality.disturbed,
            )
        };
        assert_eq!(marks(&r), (false, false));
        let l = r.loaded_latency.as_mut().expect("a loaded curve");
        let peak = l
            .points
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_mb_per_s.total_cmp(&b.1.total_mb_per_s))
            .unwrap()
            .0;
        assert_ne!(peak, 0, "the no-load point is not the peak");
        l.points[peak].quality.as_mut().unwrap().disturbed = true;
        assert_eq!(marks(&r), (false, true));
        let l = r.loaded_latency.as_mut().unwrap();
        l.points[0].quality = None;
        l.points[0].blocks[2].disturbed = true;
        assert_eq!(marks(&r), (true, true));
    }
}
