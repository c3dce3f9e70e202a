//! Judging a fleet: many hosts' saved runs, one verdict on which hosts stand out. Hosts are
//! grouped by hardware (CPU model, memory nodes, memory per node, kernel version) because
//! figures only compare within one kind of machine; inside a group, a host whose environment
//! differs from most (THP mode, numa_balancing) is shown and not judged, and the rest are
//! judged figure by figure (`figures.rs`): a figure counts when it was not disturbed
//! and its own interval is narrow enough, whatever its run's verdict, and stands out when it
//! lies beyond the group's robust spread, the practical margin and its own interval. So a slow
//! host is named on the figures that can show it, a differently configured host is reported as
//! different, and a host none of whose figures can be judged is reported as noisy: none of
//! those is called slow. `baseline.rs` saves a fleet's expected figures and checks hosts
//! against them. The contract is `crate::results::fleet`; docs/fleet.md.

pub mod baseline;
mod figures;
pub mod files;

use std::path::PathBuf;

use crate::compare::metrics;
use crate::compare::{MIN_RELATIVE_DIFFERENCE, OUTLIER_Z};
use crate::results::compare::RunMetrics;
use crate::results::compare::{kernel_version, MIN_FLEET};
use crate::results::fleet::*;
use crate::results::verdict::WIDE_INTERVAL;
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
        kernel: env
            .kernel_release
            .as_deref()
            .map(|k| kernel_version(k).to_string()),
    }
}

/// How hardware `a` differs from `b`, in words (`2 memory nodes vs 1 (an NPS/SNC mode?)`).
pub(crate) fn hardware_differences(a: &Hardware, b: &Hardware) -> Vec<String> {
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
pub(crate) fn most_common<T: PartialEq + Clone>(items: &[T]) -> Option<T> {
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
        .map(|(i, (p, r))| new_host(names[i].clone(), p, group_of[i], r))
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
            let env = environment_differences(h, &thp, nb);
            if !env.is_empty() {
                h.standing = Standing::DifferentEnvironment;
                h.reasons = env;
            } else {
                if !differs.is_empty() {
                    h.standing = Standing::DifferentHardware;
                    h.reasons = differs.clone();
                }
                judged.push(i);
            }
        }
        let member_runs: Vec<(usize, RunMetrics)> = members
            .iter()
            .map(|&i| (i, metrics(&runs[i].1, &hosts[i].name)))
            .collect();
        all_metrics.extend(figures::judge_group(g, &member_runs, &judged, &mut hosts));
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
            kernel_releases: kernel_releases(members.iter().map(|&i| &hosts[i])),
        });
    }
    finish(hosts, groups, all_metrics, None)
}

/// The distinct kernel releases of `hosts` when more than one (builds of one version).
pub(crate) fn kernel_releases<'a>(hosts: impl Iterator<Item = &'a FleetHost>) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for k in hosts.filter_map(|h| h.kernel_release.clone()) {
        if !v.contains(&k) {
            v.push(k);
        }
    }
    if v.len() > 1 {
        v
    } else {
        Vec::new()
    }
}

/// How a host's environment differs from its group's (`THP never vs madvise ...`).
pub(crate) fn environment_differences(
    h: &FleetHost,
    thp: &Option<String>,
    nb: Option<u32>,
) -> Vec<String> {
    let mut env = Vec::new();
    if h.thp.is_some() && h.thp != *thp {
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
    env
}

/// A host as the report first shows it: alike, nothing judged yet.
pub(crate) fn new_host(
    name: String,
    path: &std::path::Path,
    group: usize,
    r: &RunResults,
) -> FleetHost {
    FleetHost {
        name,
        path: path.display().to_string(),
        group,
        verdict: r.quality.as_ref().map(|q| q.verdict.label().to_string()),
        partial: r.partial,
        thp: r.topology.environment.thp_enabled.clone(),
        numa_balancing: r.topology.environment.numa_balancing,
        kernel_release: r.topology.environment.kernel_release.clone(),
        standing: Standing::Alike,
        reasons: Vec::new(),
        outlying_metrics: 0,
        judged_metrics: 0,
        not_judged: Vec::new(),
    }
}

/// The report from judged hosts: outlier hosts listed, most outlying figures first.
pub(crate) fn finish(
    hosts: Vec<FleetHost>,
    groups: Vec<HardwareGroup>,
    metrics: Vec<FleetMetric>,
    baseline: Option<String>,
) -> FleetReport {
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
        metrics,
        outlier_z: OUTLIER_Z,
        min_relative_difference: MIN_RELATIVE_DIFFERENCE,
        max_interval_half_width: WIDE_INTERVAL,
        baseline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::verdict::Verdict;

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

    /// A run whose verdict is noisy is judged on its figures all the same (h6 is
    /// named); one whose figures are all too wide is not (h7 is noisy).
    #[test]
    fn the_slow_hosts_are_named_the_odd_environment_and_the_too_wide_run_are_not() {
        let runs = fleet(8, |i, r| {
            // A little spread so the MAD is not zero.
            scale_bandwidth(r, 1.0 + 0.004 * (i % 3) as f64);
            if i == 7 {
                widen(r);
            }
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
        assert_eq!(f.outlier_hosts, vec!["h2".to_string(), "h6".to_string()]);
        assert_eq!(f.hosts[7].standing, Standing::Noisy, "{:?}", f.hosts[7]);
        assert_eq!(f.hosts[5].standing, Standing::DifferentEnvironment);
        assert!(
            f.hosts[5].reasons[0].starts_with("THP never vs"),
            "{:?}",
            f.hosts[5]
        );
        assert_eq!(f.hosts[6].standing, Standing::Outlier);
        assert_eq!(f.groups.len(), 1);
        assert_eq!(f.groups[0].judged_hosts, 7);
        let m = f
            .metrics
            .iter()
            .find(|m| m.key.starts_with("scenario/"))
            .unwrap();
        assert_eq!(m.values.len(), 8);
        assert_eq!(m.hosts, 6);
        assert!(m
            .outliers
            .iter()
            .all(|o| ["h2", "h6"].contains(&o.host.as_str()) && o.worse));
        assert!(f.has_outliers());
    }

    /// Every interval of the run at +-30 % of its median: too wide to judge.
    fn widen(r: &mut RunResults) {
        fn walk(v: &mut serde_json::Value) {
            match v {
                serde_json::Value::Object(m) => {
                    if let Some(med) = m.get("median").and_then(|x| x.as_f64()) {
                        m.insert("ci_low".into(), serde_json::json!(med * 0.7));
                        m.insert("ci_high".into(), serde_json::json!(med * 1.3));
                        m.insert("ci_level".into(), serde_json::json!(0.95));
                    } else {
                        m.values_mut().for_each(walk);
                    }
                }
                serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
                _ => {}
            }
        }
        let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        walk(&mut v);
        *r = RunResults::from_json(&v.to_string(), "widened").unwrap();
    }

    #[test]
    fn other_hardware_is_its_own_group_and_too_small_to_judge() {
        let runs = fleet(6, |i, r| {
            if i == 4 {
                r.topology.environment.kernel_release = Some("9.9.1-other".into());
                scale_bandwidth(r, 0.5);
            }
        });
        let f = judge(&runs);
        assert!(!f.has_outliers());
        assert_eq!(f.groups.len(), 2);
        assert_eq!(f.groups[0].hosts.len(), 5);
        assert!(f.groups[1].differs_from_largest[0].starts_with("kernel 9.9.1 vs"));
        assert!(f.groups[1].not_judged.is_some());
        assert_eq!(f.hosts[4].standing, Standing::DifferentHardware);
    }
}
