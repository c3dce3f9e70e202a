//! Fleet baselines: `fleet --save-baseline FILE` records, per hardware group and
//! figure, the value a host is expected to show and an envelope around it (the larger of the
//! group's robust spread x 3, 5 % and the median of the hosts' own interval half-widths);
//! `fleet --baseline FILE` and `compare --baseline FILE` check hosts against it. A host whose
//! judged figure lies outside the envelope with its whole interval is named with the figure,
//! its value and the envelope; a host whose hardware the baseline lacks is reported as such.
//! The format is `crate::results::fleet::Baseline`, documented in docs/schema/baseline.md.

use std::path::PathBuf;

use super::figures::{count_not_judged, keys, settle, worse};
use super::{environment_differences, finish, hardware, hardware_differences, judge};
use super::{kernel_releases, new_host};
use crate::compare::{figure_unjudged, median_mad, metrics, MAD_SCALE};
use crate::compare::{MIN_RELATIVE_DIFFERENCE, OUTLIER_Z};
use crate::results::compare::RunMetrics;
use crate::results::fleet::*;
use crate::results::RunResults;
use crate::stats::median;

/// The baseline of a fleet: every figure that the fleet judged on at least four hosts of a
/// group, from those hosts' values with the outliers left out.
pub fn save(runs: &[(PathBuf, RunResults)]) -> Baseline {
    let f = judge(runs);
    let mut groups = Vec::new();
    for (g, group) in f.groups.iter().enumerate() {
        let members: Vec<(usize, RunMetrics)> = (0..runs.len())
            .filter(|&i| f.hosts[i].group == g)
            .filter(|&i| f.hosts[i].standing != Standing::DifferentEnvironment)
            .map(|i| (i, metrics(&runs[i].1, &f.hosts[i].name)))
            .collect();
        let mut figures = Vec::new();
        for fm in f.metrics.iter().filter(|m| m.group == g && m.hosts > 0) {
            let out: Vec<&str> = fm.outliers.iter().map(|o| o.host.as_str()).collect();
            let judged: Vec<_> = members
                .iter()
                .filter(|(i, _)| !out.contains(&f.hosts[*i].name.as_str()))
                .filter_map(|(_, r)| {
                    let m = r.metrics.iter().find(|m| m.key == fm.key)?;
                    figure_unjudged(m, r.virtual_machine, false)
                        .is_none()
                        .then_some(m)
                })
                .collect();
            if judged.len() < crate::results::compare::MIN_FLEET {
                continue;
            }
            let vals: Vec<f64> = judged.iter().map(|m| m.value).collect();
            let (expected, mad) = median_mad(&vals);
            let halves: Vec<f64> = judged
                .iter()
                .filter_map(|m| m.ci.map(|c| (c.high - c.low) / 2.0))
                .collect();
            let half = (OUTLIER_Z * MAD_SCALE * mad)
                .max(MIN_RELATIVE_DIFFERENCE * expected.abs())
                .max(if halves.is_empty() {
                    0.0
                } else {
                    median(&halves)
                });
            figures.push(BaselineFigure {
                key: fm.key.clone(),
                label: fm.label.clone(),
                unit: fm.unit.clone(),
                better: fm.better,
                expected,
                low: expected - half,
                high: expected + half,
                hosts: judged.len(),
            });
        }
        groups.push(BaselineGroup {
            hardware: group.hardware.clone(),
            thp: group.thp.clone(),
            numa_balancing: group.numa_balancing,
            hosts: members.len(),
            figures,
        });
    }
    Baseline {
        format: BASELINE_FORMAT.into(),
        schema_version: BASELINE_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        hosts: f.hosts.iter().map(|h| h.name.clone()).collect(),
        groups,
    }
}

/// Reads a baseline from its JSON text; one sentence naming what is wrong.
pub fn parse(text: &str, path: &std::path::Path) -> anyhow::Result<Baseline> {
    let fix = "give a file written by `numascope fleet --save-baseline`";
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| anyhow::anyhow!("{} is not JSON ({e}); {fix}", path.display()))?;
    if v.get("format").and_then(|f| f.as_str()) != Some(BASELINE_FORMAT) {
        anyhow::bail!(
            "{} is not a numascope fleet baseline; {fix}",
            path.display()
        );
    }
    let version = v.get("schema_version").and_then(|s| s.as_u64());
    if version != Some(BASELINE_SCHEMA_VERSION as u64) {
        anyhow::bail!(
            "{} is a baseline of schema version {}, this numascope reads version {BASELINE_SCHEMA_VERSION}; save the baseline again with this version",
            path.display(),
            version.map_or("unknown".into(), |v| v.to_string())
        );
    }
    serde_json::from_value(v)
        .map_err(|e| anyhow::anyhow!("{} is not a valid baseline ({e}); {fix}", path.display()))
}

/// Checks `runs` against `b` (read from `path`): each host in the baseline group of its
/// hardware, figure by figure.
pub fn check(runs: &[(PathBuf, RunResults)], b: &Baseline, path: &str) -> FleetReport {
    let names = crate::compare::run_names(
        &runs
            .iter()
            .map(|(p, r)| (p.as_path(), r.host.as_str()))
            .collect::<Vec<_>>(),
    );
    // Groups: the baseline's, then each hardware it lacks.
    let mut kinds: Vec<Hardware> = b.groups.iter().map(|g| g.hardware.clone()).collect();
    let mut hosts = Vec::new();
    for (i, (p, r)) in runs.iter().enumerate() {
        let hw = hardware(r);
        let g = match kinds.iter().position(|k| *k == hw) {
            Some(g) => g,
            None => {
                kinds.push(hw);
                kinds.len() - 1
            }
        };
        hosts.push(new_host(names[i].clone(), p, g, r));
    }
    let mut groups = Vec::new();
    let mut all = Vec::new();
    for (g, kind) in kinds.iter().enumerate() {
        let members: Vec<usize> = (0..runs.len()).filter(|&i| hosts[i].group == g).collect();
        let Some(bg) = b.groups.get(g) else {
            no_baseline(b, kind, &members, &mut hosts);
            groups.push(group(
                kind,
                &members,
                &hosts,
                None,
                "the baseline has no group for this hardware".into(),
            ));
            continue;
        };
        let mut checked = Vec::new();
        for &i in &members {
            let env = environment_differences(&hosts[i], &bg.thp, bg.numa_balancing);
            if env.is_empty() {
                checked.push(i);
            } else {
                hosts[i].standing = Standing::DifferentEnvironment;
                hosts[i].reasons = env
                    .iter()
                    .map(|e| e.replace("the rest of its group", "the baseline"))
                    .collect();
            }
        }
        let runs_m: Vec<(usize, RunMetrics)> = checked
            .iter()
            .map(|&i| (i, metrics(&runs[i].1, &hosts[i].name)))
            .collect();
        all.extend(check_group(g, bg, &runs_m, &mut hosts));
        for &i in &checked {
            settle(&mut hosts[i], true);
        }
        let why = (checked.is_empty()).then(|| "no host of this group was checked".to_string());
        groups.push(group(
            kind,
            &members,
            &hosts,
            Some(bg),
            why.unwrap_or_default(),
        ));
    }
    finish(hosts, groups, all, Some(path.to_string()))
}

/// Marks the hosts of hardware the baseline lacks, saying how it differs.
fn no_baseline(b: &Baseline, kind: &Hardware, members: &[usize], hosts: &mut [FleetHost]) {
    let differs = b
        .groups
        .first()
        .map_or(Vec::new(), |f| hardware_differences(kind, &f.hardware));
    for &i in members {
        hosts[i].standing = Standing::NoBaseline;
        hosts[i].reasons = vec![format!(
            "the baseline has no group for its hardware ({})",
            if differs.is_empty() {
                "no groups".into()
            } else {
                differs.join("; ")
            }
        )];
    }
}

/// The report's group record of a checked group.
fn group(
    kind: &Hardware,
    members: &[usize],
    hosts: &[FleetHost],
    bg: Option<&BaselineGroup>,
    not_judged: String,
) -> HardwareGroup {
    HardwareGroup {
        hardware: kind.clone(),
        hosts: members.iter().map(|&i| hosts[i].name.clone()).collect(),
        judged_hosts: members
            .iter()
            .filter(|&&i| hosts[i].judged_metrics > 0)
            .count(),
        thp: bg.and_then(|b| b.thp.clone()),
        numa_balancing: bg.and_then(|b| b.numa_balancing),
        differs_from_largest: Vec::new(),
        not_judged: (!not_judged.is_empty()).then_some(not_judged),
        kernel_releases: kernel_releases(members.iter().map(|&i| &hosts[i])),
    }
}

/// Checks one group's hosts figure by figure against the baseline group `bg`.
fn check_group(
    g: usize,
    bg: &BaselineGroup,
    runs: &[(usize, RunMetrics)],
    hosts: &mut [FleetHost],
) -> Vec<FleetMetric> {
    let mut out = Vec::new();
    for k in keys(runs) {
        let Some(bf) = bg.figures.iter().find(|f| f.key == k.key) else {
            for (i, r) in runs {
                if let Some(m) = r.metrics.iter().find(|m| m.key == k.key) {
                    let why = figure_unjudged(m, r.virtual_machine, false);
                    count_not_judged(
                        &mut hosts[*i],
                        why.unwrap_or_else(|| "not in the baseline".into()),
                    );
                }
            }
            continue;
        };
        let mut values = Vec::new();
        let mut outliers = Vec::new();
        let mut checked = 0;
        for (i, r) in runs {
            let Some(m) = r.metrics.iter().find(|m| m.key == k.key) else {
                continue;
            };
            values.push((hosts[*i].name.clone(), m.value));
            if let Some(why) = figure_unjudged(m, r.virtual_machine, false) {
                count_not_judged(&mut hosts[*i], why);
                continue;
            }
            checked += 1;
            hosts[*i].judged_metrics += 1;
            if let Some(o) = outside(bf, m, &mut hosts[*i]) {
                outliers.push(o);
            }
        }
        let vals: Vec<f64> = values
            .iter()
            .map(|v| v.1)
            .filter(|v| v.is_finite())
            .collect();
        out.push(FleetMetric {
            group: g,
            key: bf.key.clone(),
            label: bf.label.clone(),
            unit: bf.unit.clone(),
            better: bf.better,
            hosts: checked,
            median: bf.expected,
            mad: 0.0,
            spread_fraction: if bf.expected != 0.0 {
                (bf.high - bf.expected) / bf.expected.abs()
            } else {
                0.0
            },
            min: vals.iter().copied().fold(f64::INFINITY, f64::min),
            max: vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            values,
            outliers,
            envelope: Some((bf.low, bf.high)),
        });
    }
    out
}

/// The host's figure against the baseline's envelope: when its whole interval lies outside,
/// the reason is added to the host and the outlier given.
fn outside(
    bf: &BaselineFigure,
    m: &crate::results::compare::Metric,
    host: &mut FleetHost,
) -> Option<FleetOutlier> {
    let (lo, hi) = m.ci.map_or((m.value, m.value), |c| c.ends());
    if !(hi < bf.low || lo > bf.high) {
        return None;
    }
    let w = worse(bf.better, m.value, bf.expected);
    host.outlying_metrics += 1;
    host.reasons.push(format!(
        "{}: {} {} [{}, {}] outside the baseline's {}..{} {} ({})",
        bf.label,
        sig(m.value),
        bf.unit,
        sig(lo),
        sig(hi),
        sig(bf.low),
        sig(bf.high),
        bf.unit,
        if w { "worse" } else { "better" }
    ));
    Some(FleetOutlier {
        host: host.name.clone(),
        value: m.value,
        ratio_to_median: if bf.expected != 0.0 {
            m.value / bf.expected
        } else {
            f64::NAN
        },
        robust_z: None,
        worse: w,
    })
}

/// A figure with four significant digits (`1234`, `12.35`), for the reasons.
fn sig(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let digits = (3 - v.abs().max(1e-12).log10().floor() as i32).clamp(0, 6) as usize;
    format!("{v:.digits$}")
}
