//! The loaded-latency lines of the figure list: the run's curve (its idle point, or the
//! reference's figure when that point was pooled into it) and one curve per other kind of
//! memory.

use super::{figure, Conditions, LoadedLine, RunFigures};
use crate::results::loaded::LoadedResult;
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
        None => f.add(figure(
            format!("{key}.idle"),
            "idle latency",
            "ns",
            &first.ns_per_load,
            cond(None),
        )),
    };
    let load = format!("{} load thread(s), {}", l.load_cpus.len(), l.kernel_label);
    let peak_i = f.add(figure(
        format!("{key}.peak"),
        "latency at the highest load",
        "ns",
        &peak.ns_per_load,
        cond(Some(load)),
    ));
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
