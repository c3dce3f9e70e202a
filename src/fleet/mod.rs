//! Judging a fleet: many hosts' saved runs, one verdict on which hosts stand out. Hosts are
//! grouped by hardware (CPU model, memory nodes, memory per node, kernel) because figures only
//! compare within one kind of machine; inside a group, a host whose environment differs from
//! most (THP mode, numa_balancing) and a host whose own run was noisy or unusable are shown and
//! not judged, and the rest are judged metric by metric with `crate::compare`'s fleet rule
//! (median and MAD, robust z > 3 and > 5 %, and outside the host's own 95 % interval), on the
//! figures `crate::compare::metrics` pulls out of each run. So a slow host is named, a
//! differently configured host is reported as different, and a noisy run is reported as noisy:
//! none of those is called slow. The contract is `crate::results::fleet`; docs/fleet.md.

pub mod files;

use std::path::PathBuf;

use crate::compare::{compare, median_mad, metrics, RunMetrics, MAD_SCALE};
use crate::compare::{MIN_RELATIVE_DIFFERENCE, OUTLIER_Z};
use crate::results::compare::MIN_FLEET;
use crate::results::fleet::*;
use crate::results::verdict::Verdict;
use crate::results::RunResults;

/// Bytes in a GiB, for memory per node.
const GIB: f64 = (1u64 << 30) as f64;

/// The hardware a run was measured on.
pub fn hardware(r: &RunResults) -> Hardware {
    let env = &r.topology.environment;
    let mem: Vec<u64> = r
        .topology
        .nodes
        .iter()
        .filter(|n| n.has_memory)
        .map(|n| (n.memory_total_bytes as f64 / GIB).round() as u64)
        .collect();
    Hardware {
        cpu_model: env.cpu_model.clone(),
        memory_nodes: mem.len(),
        memory_per_node_gib: mem,
        kernel: env.kernel_release.clone(),
    }
}

/// How hardware `a` differs from `b`, in words (`2 memory nodes vs 1 (an NPS/SNC mode?)`).
fn hardware_differences(a: &Hardware, b: &Hardware) -> Vec<String> {
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    let mut v = Vec::new();
    if a.cpu_model != b.cpu_model {
        v.push(format!(
            "CPU model {} vs {}",
            opt(&a.cpu_model),
            opt(&b.cpu_model)
        ));
    }
    if a.memory_nodes != b.memory_nodes {
        v.push(format!(
            "{} memory nodes vs {} (another NPS/SNC mode or a node without memory?)",
            a.memory_nodes, b.memory_nodes
        ));
    } else if a.memory_per_node_gib != b.memory_per_node_gib {
        v.push(format!(
            "memory per node {:?} GiB vs {:?} GiB (a missing DIMM?)",
            a.memory_per_node_gib, b.memory_per_node_gib
        ));
    }
    if a.kernel != b.kernel {
        v.push(format!("kernel {} vs {}", opt(&a.kernel), opt(&b.kernel)));
    }
    v
}

/// The most common value (ties: the first seen).
fn most_common<T: PartialEq + Clone>(items: &[T]) -> Option<T> {
    let mut best: Option<(&T, usize)> = None;
    for x in items {
        let n = items.iter().filter(|y| *y == x).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((x, n));
        }
    }
    best.map(|(x, _)| x.clone())
}

/// Judges the fleet of `runs` (each with the path it was read from).
pub fn judge(runs: &[(PathBuf, RunResults)]) -> FleetReport {
    let names = crate::compare::run_names(
        &runs
            .iter()
            .map(|(p, r)| (p.as_path(), r.host.as_str()))
            .collect::<Vec<_>>(),
    );
    let hw: Vec<Hardware> = runs.iter().map(|(_, r)| hardware(r)).collect();
    // Groups, largest first (ties: first seen).
    let mut kinds: Vec<Hardware> = Vec::new();
    for h in &hw {
        if !kinds.contains(h) {
            kinds.push(h.clone());
        }
    }
    let size = |k: &Hardware| hw.iter().filter(|h| *h == k).count();
    kinds.sort_by_key(|k| std::cmp::Reverse(size(k)));
    let group_of: Vec<usize> = hw
        .iter()
        .map(|h| kinds.iter().position(|k| k == h).unwrap_or(0))
        .collect();
    let mut hosts: Vec<FleetHost> = runs
        .iter()
        .enumerate()
        .map(|(i, (p, r))| FleetHost {
            name: names[i].clone(),
            path: p.display().to_string(),
            group: group_of[i],
            verdict: r.quality.as_ref().map(|q| q.verdict.label().to_string()),
            partial: r.partial,
            thp: r.topology.environment.thp_enabled.clone(),
            numa_balancing: r.topology.environment.numa_balancing,
            standing: Standing::Alike,
            reasons: Vec::new(),
            outlying_metrics: 0,
            judged_metrics: 0,
        })
        .collect();
    let mut groups = Vec::new();
    let mut all_metrics = Vec::new();
    for (g, kind) in kinds.iter().enumerate() {
        let members: Vec<usize> = (0..runs.len()).filter(|&i| group_of[i] == g).collect();
        let thps: Vec<Option<String>> = members.iter().map(|&i| hosts[i].thp.clone()).collect();
        let nbs: Vec<Option<u32>> = members.iter().map(|&i| hosts[i].numa_balancing).collect();
        let thp = most_common(&thps).flatten();
        let nb = most_common(&nbs).flatten();
        let differs = hardware_differences(kind, &kinds[0]);
        let mut judged = Vec::new();
        for &i in &members {
            let h = &mut hosts[i];
            let mut env = Vec::new();
            if h.thp.is_some() && h.thp != thp {
                env.push(format!(
                    "THP {} vs {} on the rest of its group",
                    h.thp.as_deref().unwrap_or("unknown"),
                    thp.as_deref().unwrap_or("unknown")
                ));
            }
            if h.numa_balancing.is_some() && h.numa_balancing != nb {
                env.push(format!(
                    "numa_balancing {} vs {} on the rest of its group",
                    h.numa_balancing.map_or("unknown".into(), |v| v.to_string()),
                    nb.map_or("unknown".into(), |v| v.to_string())
                ));
            }
            let noisy = runs[i]
                .1
                .quality
                .as_ref()
                .is_some_and(|q| q.verdict != Verdict::Quiet);
            if !env.is_empty() {
                h.standing = Standing::DifferentEnvironment;
                h.reasons = env;
            } else if noisy {
                h.standing = Standing::Noisy;
                h.reasons = vec![format!(
                    "its run is {}: rerun it on an idle host before judging it",
                    h.verdict.as_deref().unwrap_or("noisy")
                )];
            } else {
                if !differs.is_empty() {
                    h.standing = Standing::DifferentHardware;
                    h.reasons = differs.clone();
                }
                judged.push(i);
            }
        }
        let judged_runs: Vec<RunMetrics> = judged
            .iter()
            .map(|&i| metrics(&runs[i].1, &hosts[i].name))
            .collect();
        let comparison = (judged.len() >= MIN_FLEET).then(|| compare(&judged_runs));
        // Every metric any member has, in the order the members list them.
        let member_runs: Vec<RunMetrics> = members
            .iter()
            .map(|&i| {
                judged
                    .iter()
                    .position(|&j| j == i)
                    .map(|k| judged_runs[k].clone())
                    .unwrap_or_else(|| metrics(&runs[i].1, &hosts[i].name))
            })
            .collect();
        let mut keys: Vec<&crate::compare::Metric> = Vec::new();
        for m in member_runs.iter().flat_map(|r| &r.metrics) {
            if !keys.iter().any(|k| k.key == m.key) {
                keys.push(m);
            }
        }
        for k in keys {
            let values: Vec<(String, f64)> = member_runs
                .iter()
                .filter_map(|r| {
                    let m = r.metrics.iter().find(|m| m.key == k.key)?;
                    Some((r.name.clone(), m.value))
                })
                .collect();
            let judged_vals: Vec<f64> = judged_runs
                .iter()
                .filter_map(|r| r.metrics.iter().find(|m| m.key == k.key))
                .map(|m| m.value)
                .filter(|v| v.is_finite())
                .collect();
            let base: Vec<f64> = if judged_vals.is_empty() {
                values
                    .iter()
                    .map(|v| v.1)
                    .filter(|v| v.is_finite())
                    .collect()
            } else {
                judged_vals.clone()
            };
            if base.is_empty() {
                continue;
            }
            let (median, mad) = median_mad(&base);
            let outliers: Vec<FleetOutlier> = comparison
                .iter()
                .flat_map(|c| &c.outliers)
                .filter(|o| o.key == k.key)
                .map(|o| FleetOutlier {
                    host: o.run.clone(),
                    value: o.value,
                    ratio_to_median: o.ratio_to_median,
                    robust_z: o.robust_z,
                    worse: o.worse,
                })
                .collect();
            all_metrics.push(FleetMetric {
                group: g,
                key: k.key.clone(),
                label: k.label.clone(),
                unit: k.unit.clone(),
                better: k.better,
                hosts: judged_vals.len(),
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
            });
        }
        if let Some(c) = &comparison {
            for (k, &i) in judged.iter().enumerate() {
                let h = &mut hosts[i];
                h.judged_metrics = judged_runs[k].metrics.len();
                if let Some(o) = c.outlier_hosts.iter().find(|o| o.run == h.name) {
                    h.standing = Standing::Outlier;
                    h.outlying_metrics = o.outlying_metrics;
                    h.reasons = c
                        .outliers
                        .iter()
                        .filter(|x| x.run == h.name)
                        .map(|x| {
                            format!(
                                "{}: x{:.2} of the group median ({})",
                                x.label,
                                x.ratio_to_median,
                                if x.worse { "worse" } else { "better" }
                            )
                        })
                        .collect();
                }
            }
        }
        groups.push(HardwareGroup {
            hardware: kind.clone(),
            hosts: members.iter().map(|&i| hosts[i].name.clone()).collect(),
            judged_hosts: judged.len(),
            thp,
            numa_balancing: nb,
            differs_from_largest: differs,
            not_judged: (judged.len() < MIN_FLEET).then(|| {
                format!(
                    "{} judged host(s): at least {MIN_FLEET} are needed for a robust spread",
                    judged.len()
                )
            }),
        });
    }
    let mut outlier_hosts: Vec<&FleetHost> = hosts
        .iter()
        .filter(|h| h.standing == Standing::Outlier)
        .collect();
    outlier_hosts.sort_by(|a, b| {
        b.outlying_metrics
            .cmp(&a.outlying_metrics)
            .then(a.name.cmp(&b.name))
    });
    FleetReport {
        schema_version: FLEET_SCHEMA_VERSION,
        outlier_hosts: outlier_hosts.iter().map(|h| h.name.clone()).collect(),
        hosts,
        groups,
        metrics: all_metrics,
        outlier_z: OUTLIER_Z,
        min_relative_difference: MIN_RELATIVE_DIFFERENCE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fleet of `n` copies of the sample run, host `h<i>`, with each figure scaled by a
    /// small per-host jitter; `edit` changes host i further.
    fn fleet(n: usize, edit: impl Fn(usize, &mut RunResults)) -> Vec<(PathBuf, RunResults)> {
        (0..n)
            .map(|i| {
                let mut r = crate::run::sample::results();
                r.host = format!("h{i}");
                edit(i, &mut r);
                (PathBuf::from(format!("f/h{i}/results.json")), r)
            })
            .collect()
    }

    /// Scales every scenario's bandwidth (median, range and interval) by `f`: the sample
    /// run's figures are its policy scenarios.
    fn scale_bandwidth(r: &mut RunResults, f: f64) {
        let rows = r.scenarios.iter_mut().flat_map(|t| t.scenarios.iter_mut());
        for s in rows.filter_map(|row| row.mb_per_s.as_mut()) {
            s.median *= f;
            s.min *= f;
            s.max *= f;
            s.ci = s.ci.map(|c| crate::stats::Interval {
                low: c.low * f,
                high: c.high * f,
                level: c.level,
            });
        }
    }

    #[test]
    fn the_slow_host_is_named_the_odd_environment_and_the_noisy_run_are_not() {
        let runs = fleet(8, |i, r| {
            // A little spread so the MAD is not zero.
            scale_bandwidth(r, 1.0 + 0.004 * (i % 3) as f64);
            match i {
                2 => scale_bandwidth(r, 0.6),
                5 => {
                    r.topology.environment.thp_enabled = Some("never".into());
                    scale_bandwidth(r, 0.6);
                }
                6 => {
                    let mut q = r.quality.clone().unwrap_or_default();
                    q.verdict = Verdict::Noisy;
                    r.quality = Some(q);
                    scale_bandwidth(r, 0.6);
                }
                _ => {}
            }
        });
        let f = judge(&runs);
        assert_eq!(f.outlier_hosts, vec!["h2".to_string()]);
        assert_eq!(f.hosts[5].standing, Standing::DifferentEnvironment);
        assert!(
            f.hosts[5].reasons[0].starts_with("THP never vs"),
            "{:?}",
            f.hosts[5]
        );
        assert_eq!(f.hosts[6].standing, Standing::Noisy);
        assert_eq!(f.groups.len(), 1);
        assert_eq!(f.groups[0].judged_hosts, 6);
        let m = f
            .metrics
            .iter()
            .find(|m| m.key.starts_with("scenario/"))
            .unwrap();
        assert_eq!(m.values.len(), 8);
        assert_eq!(m.hosts, 6);
        assert!(m.outliers.iter().all(|o| o.host == "h2" && o.worse));
        assert!(f.has_outliers());
    }

    #[test]
    fn other_hardware_is_its_own_group_and_too_small_to_judge() {
        let runs = fleet(6, |i, r| {
            if i == 4 {
                r.topology.environment.kernel_release = Some("9.9-other".into());
                scale_bandwidth(r, 0.5);
            }
        });
        let f = judge(&runs);
        assert!(!f.has_outliers());
        assert_eq!(f.groups.len(), 2);
        assert_eq!(f.groups[0].hosts.len(), 5);
        assert!(f.groups[1].differs_from_largest[0].starts_with("kernel 9.9-other vs"));
        assert!(f.groups[1].not_judged.is_some());
        assert_eq!(f.hosts[4].standing, Standing::DifferentHardware);
    }
}
