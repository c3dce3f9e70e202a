//! The weighted-interleave advisor: for the threads of one initiator node, measure the read
//! bandwidth they get from each memory node, propose weights proportional to those figures
//! (reduced to small integers, [`super::weights`]), then check the proposal by measurement
//! against plain interleave and against binding to the best node, and say how to apply it.
//! On a machine with one memory node there is nothing to weigh, and the advice says so without
//! measuring. Nothing here prints.

use crate::parse::cpulist::format_list;
use crate::placement::{Policy, WeightGuard};
use crate::results::advice::{Advice, PolicyCheck};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::measure::team_read;
use super::plan::ScenarioSettings;
use super::scenarios::{home_node, weighted_unavailable};
use super::weights::{apply_lines, derive_weights, nodes_text, weights_text};

/// Builds the advice; `progress(done, total)` after each measurement.
pub fn run_advisor(
    topo: &Topology,
    root: &SysRoot,
    s: &ScenarioSettings,
    is_root: bool,
    progress: &dyn Fn(usize, usize),
) -> anyhow::Result<Advice> {
    let mem = topo.memory_nodes();
    let init = home_node(topo).ok_or_else(|| {
        anyhow::anyhow!(
            "no memory node is allowed to this process; check the cpuset (Mems_allowed_list)"
        )
    })?;
    if mem.len() < 2 {
        return Ok(Advice {
            initiator_node: init,
            measured_mb_per_s: vec![],
            weights: vec![],
            checks: vec![],
            apply: vec![],
            summary: format!(
                "this machine has one memory node ({}): there is nothing to weigh; weighted interleave spreads pages over several nodes in proportion to their bandwidth",
                format_list(&mem)
            ),
        });
    }
    let cpus = topo.usable_cpus_of(init);
    let cpus = if cpus.is_empty() {
        topo.usable_cpus()
    } else {
        cpus
    };
    let bytes = (s.total_bytes / cpus.len().max(1) as u64).max(16 << 20);
    let total = mem.len() + 2;
    let mut done = 0;
    let mut measured = Vec::new();
    for &m in &mem {
        if interrupted() {
            break;
        }
        let pols = vec![Policy::Bind(vec![m]); cpus.len()];
        let t = team_read(topo, root, &cpus, &pols, bytes, &s.timed)?;
        measured.push((m, t.total_mb_per_s.median));
        done += 1;
        progress(done, total);
    }
    let weights = derive_weights(&measured);
    let (best_node, best_bw) =
        measured
            .iter()
            .copied()
            .fold((init, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let mut checks = vec![PolicyCheck {
        policy: format!("bind to node {best_node}"),
        numactl: format!("numactl --cpunodebind={init} --membind={best_node} APP"),
        mb_per_s: Some(best_bw),
        unavailable: None,
    }];
    let inter = if interrupted() {
        None
    } else {
        let pols = vec![Policy::Interleave(mem.clone()); cpus.len()];
        Some(
            team_read(topo, root, &cpus, &pols, bytes, &s.timed)?
                .total_mb_per_s
                .median,
        )
    };
    done += 1;
    progress(done, total);
    checks.push(PolicyCheck {
        policy: format!("interleave {}", format_list(&mem)),
        numactl: format!(
            "numactl --cpunodebind={init} --interleave={} APP",
            format_list(&mem)
        ),
        mb_per_s: inter,
        unavailable: inter.is_none().then(|| "interrupted (Ctrl-C)".into()),
    });
    let why_not = weighted_unavailable(topo, is_root).or_else(|| {
        (weights.len() < 2).then(|| "fewer than two nodes gave a bandwidth figure".to_string())
    });
    let weighted = match &why_not {
        Some(_) => None,
        None if interrupted() => None,
        None => {
            let guard = WeightGuard::set(root, &weights)?;
            let pols = vec![Policy::WeightedInterleave(weights.clone()); cpus.len()];
            let r = team_read(topo, root, &cpus, &pols, bytes, &s.timed)?;
            drop(guard);
            Some(r.total_mb_per_s.median)
        }
    };
    done += 1;
    progress(done, total);
    checks.push(PolicyCheck {
        policy: format!("weighted interleave {}", weights_text(&weights)),
        numactl: format!(
            "numactl --cpunodebind={init} --weighted-interleave={} APP",
            nodes_text(&weights)
        ),
        mb_per_s: weighted,
        unavailable: why_not
            .clone()
            .or_else(|| weighted.is_none().then(|| "interrupted (Ctrl-C)".into())),
    });
    let summary = summarize(
        init,
        &weights,
        best_node,
        best_bw,
        inter,
        weighted,
        why_not.as_deref(),
    );
    Ok(Advice {
        initiator_node: init,
        measured_mb_per_s: measured,
        apply: if weights.len() >= 2 {
            apply_lines(&weights)
        } else {
            vec![]
        },
        weights,
        checks,
        summary,
    })
}

/// The conclusion in one sentence (pure).
pub fn summarize(
    init: u32,
    weights: &[(u32, u8)],
    best_node: u32,
    best_bw: f64,
    inter: Option<f64>,
    weighted: Option<f64>,
    why_not: Option<&str>,
) -> String {
    let pct = |a: f64, b: f64| (a / b - 1.0) * 100.0;
    match (weighted, inter) {
        (Some(w), Some(i)) => {
            let verdict = if w >= best_bw.max(i) * 1.02 {
                "use it"
            } else if best_bw >= w.max(i) {
                "binding to the best node is at least as good here"
            } else {
                "plain interleave is at least as good here"
            };
            format!(
                "weighted interleave {} gives node {init}'s threads {w:.0} MB/s: {:+.0}% against plain interleave ({i:.0} MB/s) and {:+.0}% against binding to node {best_node} ({best_bw:.0} MB/s); {verdict}",
                weights_text(weights),
                pct(w, i),
                pct(w, best_bw)
            )
        }
        _ => format!(
            "proposed weights {} for node {init}'s threads (proportional to the measured bandwidth per node); not verified: {}",
            if weights.is_empty() { "(none)".to_string() } else { weights_text(weights) },
            why_not.unwrap_or("interrupted (Ctrl-C)")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_sentences() {
        let s = summarize(
            0,
            &[(0, 4), (2, 1)],
            0,
            200_000.0,
            Some(125_000.0),
            Some(240_000.0),
            None,
        );
        assert_eq!(s, "weighted interleave 0:4,2:1 gives node 0's threads 240000 MB/s: +92% against plain interleave (125000 MB/s) and +20% against binding to node 0 (200000 MB/s); use it");
        let s = summarize(
            0,
            &[(0, 2), (1, 1)],
            0,
            6286.0,
            Some(4211.0),
            Some(5000.0),
            None,
        );
        assert!(
            s.ends_with("binding to the best node is at least as good here"),
            "{s}"
        );
        let s = summarize(
            0,
            &[(0, 2), (1, 1)],
            0,
            6286.0,
            None,
            None,
            Some("setting the weights needs root"),
        );
        assert!(
            s.contains("0:2,1:1") && s.ends_with("not verified: setting the weights needs root"),
            "{s}"
        );
    }
}
