//! Judging one hardware group of a fleet figure by figure. A host's figure is judged
//! when `crate::compare::figure_unjudged` finds nothing against it (not disturbed, an interval
//! no wider than +-10 % of its median, not core to core between virtual CPUs, not the
//! distribution's tail), whatever its run's verdict, and at least four hosts of the group have
//! it judged. It stands out when it is beyond 3 robust z (1.4826 MAD of the judged values), more
//! than 5 % from their median, and its own 95 % interval lies beyond the median +- the practical
//! margin. Each host keeps how many figures were judged and, per reason, how many were not.

use crate::compare::{figure_unjudged, median_mad, MAD_SCALE};
use crate::compare::{MIN_RELATIVE_DIFFERENCE, OUTLIER_Z};
use crate::results::compare::{Better, MIN_FLEET};
use crate::results::compare::{Metric, RunMetrics};
use crate::results::fleet::*;
use crate::stats::PRACTICAL_MARGIN;

/// Why a figure judged by too few hosts is not judged.
pub(crate) fn too_few_hosts() -> String {
    format!("fewer than {MIN_FLEET} hosts of its group could judge it")
}

/// Counts one not-judged figure of `h` under `reason`.
pub(crate) fn count_not_judged(h: &mut FleetHost, reason: String) {
    match h.not_judged.iter_mut().find(|n| n.reason == reason) {
        Some(n) => n.figures += 1,
        None => h.not_judged.push(NotJudged { reason, figures: 1 }),
    }
}

/// True when a deviation of `v` from `reference` is in the bad direction.
pub(crate) fn worse(better: Better, v: f64, reference: f64) -> bool {
    match better {
        Better::Lower => v > reference,
        Better::Higher => v < reference,
    }
}

/// The outlier record of `m` when it stands out from `med` and `mad`, else `None`.
fn stands_out(host: &str, m: &Metric, med: f64, mad: f64) -> Option<FleetOutlier> {
    if med == 0.0 || !m.value.is_finite() {
        return None;
    }
    let rel = (m.value / med - 1.0).abs();
    let z = (mad > 0.0).then(|| (m.value - med).abs() / (MAD_SCALE * mad));
    // Its own interval reaching the median (+- the margin) clears it, whatever the MAD says.
    let interval_agrees = m.ci.is_some_and(|ci| ci.reaches(med, PRACTICAL_MARGIN));
    let outlying = rel > MIN_RELATIVE_DIFFERENCE
        && !matches!(z, Some(z) if z <= OUTLIER_Z)
        && !interval_agrees;
    outlying.then(|| FleetOutlier {
        host: host.to_string(),
        value: m.value,
        ratio_to_median: m.value / med,
        robust_z: z,
        worse: worse(m.better, m.value, med),
    })
}

/// Every metric any member has, in the order the members list them.
pub(crate) fn keys(runs: &[(usize, RunMetrics)]) -> Vec<&Metric> {
    let mut keys: Vec<&Metric> = Vec::new();
    for m in runs.iter().flat_map(|r| &r.1.metrics) {
        if !keys.iter().any(|k| k.key == m.key) {
            keys.push(m);
        }
    }
    keys
}

/// Judges the group `g`: `runs` holds every member (host index, metrics), `judged` the host
/// indexes not set aside for their environment. Fills each judged host's counts, outlying
/// figures and standing; returns the group's metrics.
pub(crate) fn judge_group(
    g: usize,
    runs: &[(usize, RunMetrics)],
    judged: &[usize],
    hosts: &mut [FleetHost],
) -> Vec<FleetMetric> {
    let mut out = Vec::new();
    for k in keys(runs) {
        let mut values = Vec::new();
        let mut eligible: Vec<(usize, &Metric)> = Vec::new();
        for (i, r) in runs {
            let Some(m) = r.metrics.iter().find(|m| m.key == k.key) else {
                continue;
            };
            values.push((hosts[*i].name.clone(), m.value));
            if !judged.contains(i) {
                continue;
            }
            match figure_unjudged(m, r.virtual_machine, false) {
                Some(why) => count_not_judged(&mut hosts[*i], why),
                None => eligible.push((*i, m)),
            }
        }
        let base: Vec<f64> = if eligible.is_empty() {
            values
                .iter()
                .map(|v| v.1)
                .filter(|v| v.is_finite())
                .collect()
        } else {
            eligible
                .iter()
                .map(|e| e.1.value)
                .filter(|v| v.is_finite())
                .collect()
        };
        if base.is_empty() {
            continue;
        }
        let (median, mad) = median_mad(&base);
        let enough = eligible.len() >= MIN_FLEET;
        let outliers = outliers(&k.label, &eligible, (median, mad), enough, hosts);
        out.push(FleetMetric {
            group: g,
            key: k.key.clone(),
            label: k.label.clone(),
            unit: k.unit.clone(),
            better: k.better,
            hosts: if enough { eligible.len() } else { 0 },
            median,
            mad,
            spread_fraction: if median != 0.0 {
                MAD_SCALE * mad / median.abs()
            } else {
                0.0
            },
            min: base.iter().copied().fold(f64::INFINITY, f64::min),
            max: base.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            values,
            outliers,
            envelope: None,
        });
    }
    for &i in judged {
        settle(&mut hosts[i], judged.len() >= MIN_FLEET);
    }
    out
}

/// The hosts whose figure stands out from the group's median and MAD, each with its reason;
/// without `enough` hosts none is judged.
fn outliers(
    label: &str,
    eligible: &[(usize, &Metric)],
    (median, mad): (f64, f64),
    enough: bool,
    hosts: &mut [FleetHost],
) -> Vec<FleetOutlier> {
    let mut outliers = Vec::new();
    for &(i, m) in eligible {
        if !enough {
            count_not_judged(&mut hosts[i], too_few_hosts());
            continue;
        }
        hosts[i].judged_metrics += 1;
        if let Some(o) = stands_out(&hosts[i].name, m, median, mad) {
            hosts[i].outlying_metrics += 1;
            hosts[i].reasons.push(format!(
                "{}: x{:.2} of the group median ({})",
                label,
                o.ratio_to_median,
                if o.worse { "worse" } else { "better" }
            ));
            outliers.push(o);
        }
    }
    outliers
}

/// A judged host's standing from its counts: outlier with any outlying figure (its reasons are
/// those figures), noisy when its group could judge but none of its own figures could be.
pub(crate) fn settle(h: &mut FleetHost, group_judges: bool) {
    h.not_judged.sort_by_key(|n| std::cmp::Reverse(n.figures));
    if h.outlying_metrics > 0 {
        // Only the outlying figures: the hardware difference is the group's own line.
        h.reasons.retain(|r| {
            r.contains(" of the group median (") || r.contains(" outside the baseline")
        });
        h.standing = Standing::Outlier;
    } else if group_judges && h.judged_metrics == 0 {
        let why: Vec<String> = h
            .not_judged
            .iter()
            .map(|n| format!("{} {}", n.figures, n.reason))
            .collect();
        h.standing = Standing::Noisy;
        h.reasons = vec![format!(
            "none of its figures could be judged ({}): rerun it on an idle host",
            why.join(", ")
        )];
    }
}
