//! The peak measurement's cache-domain table: each domain alone and its share within the
//! whole node's run, and the one sentence that says what they show. Pure.

use super::peak::SATURATES_FRACTION;
use super::peak_plan::PeakPlan;
use crate::results::peak::{DomainNode, DomainRow, PeakRun, RateInterval};
use crate::stats::Summary;

/// Each node's cache-domain rows: each domain alone and its share within the whole node's
/// run, and what they show.
pub(super) fn domains_of(
    p: &PeakPlan,
    runs: &[PeakRun],
    raw: &[Vec<Vec<f64>>],
    at: &dyn Fn(usize) -> Option<usize>,
) -> Vec<DomainNode> {
    p.domains
        .iter()
        .map(|d| {
            let all = d.all.and_then(at);
            let all_rate = all.map(|i| &runs[i].mb_per_s);
            let rows: Vec<DomainRow> = d
                .domains
                .iter()
                .map(|x| {
                    let alone = x.alone.and_then(at);
                    let in_all = all.and_then(|i| domain_share(&runs[i].cpus, &raw[i], &x.cpus));
                    let frac = |v: f64| all_rate.filter(|r| r.median > 0.0).map(|r| v / r.median);
                    DomainRow {
                        first_cpu: x.first_cpu,
                        cpus: x.cpus.clone(),
                        l3_bytes: x.l3_bytes,
                        alone_run: alone,
                        in_all_mb_per_s: in_all,
                        share_fraction: in_all.and_then(|s| frac(s.median)),
                        alone_fraction_of_all: alone.and_then(|i| frac(runs[i].mb_per_s.median)),
                    }
                })
                .collect();
            let finding = domain_finding(d.node, &rows, all.map(|i| &runs[i]), runs);
            DomainNode {
                node: d.node,
                domains: rows,
                all_run: all,
                finding,
            }
        })
        .collect()
}

/// The summed rate of `domain`'s CPUs in each repetition of a run on `cpus`. Pure.
pub(super) fn domain_share(
    cpus: &[u32],
    per_rep: &[Vec<f64>],
    domain: &[u32],
) -> Option<RateInterval> {
    let idx: Vec<usize> = cpus
        .iter()
        .enumerate()
        .filter(|(_, c)| domain.contains(c))
        .map(|(i, _)| i)
        .collect();
    if idx.is_empty() {
        return None;
    }
    let sums: Vec<f64> = per_rep
        .iter()
        .map(|rep| idx.iter().filter_map(|&i| rep.get(i)).sum())
        .collect();
    let s = Summary::of(&sums)?;
    Some(RateInterval {
        median: s.median,
        ci: s.ci,
        samples: s.samples,
    })
}

/// What the domain table says, in one sentence. Pure.
pub(super) fn domain_finding(
    node: u32,
    rows: &[DomainRow],
    all: Option<&PeakRun>,
    runs: &[PeakRun],
) -> String {
    let list = |c: &[u32]| crate::results::format::format_list(c);
    if rows.len() == 1 {
        return format!(
            "node {node} has one L3 domain (CPUs {}): its bandwidth alone is the node's (the all-CPU read figure), so there is nothing to compare",
            list(&rows[0].cpus)
        );
    }
    let Some(all) = all else {
        return format!(
            "node {node}: the all-domain run failed, so the domains cannot be compared"
        );
    };
    let best = rows
        .iter()
        .filter_map(|r| Some((r, runs[r.alone_run?].mb_per_s.clone())))
        .max_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let Some((row, alone)) = best else {
        return format!(
            "node {node}: no domain-alone run finished, so the domains cannot be compared"
        );
    };
    let frac = if all.mb_per_s.median > 0.0 {
        alone.median / all.mb_per_s.median
    } else {
        0.0
    };
    let separated = matches!((alone.ci.map(|c| c.high), all.mb_per_s.ci.map(|c| c.low)), (Some(h), Some(l)) if h < l);
    let pct = format!("{:.0} %", frac * 100.0);
    if frac < SATURATES_FRACTION {
        format!(
            "node {node}: the best L3 domain alone (CPUs {}) draws {pct} of what its {} domains draw together ({:.0} of {:.0} MB/s){}: one domain cannot saturate this node's memory",
            list(&row.cpus),
            rows.len(),
            alone.median,
            all.mb_per_s.median,
            if separated { "" } else { "; the intervals overlap, so this is not established here" }
        )
    } else {
        format!(
            "node {node}: one L3 domain alone (CPUs {}) draws {pct} of what its {} domains draw together ({:.0} of {:.0} MB/s): one domain nearly saturates this node",
            list(&row.cpus),
            rows.len(),
            alone.median,
            all.mb_per_s.median
        )
    }
}
