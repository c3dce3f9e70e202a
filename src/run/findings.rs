//! Findings in words: each a pure function over a finished [`RunResults`] that returns
//! sentences with the numbers in them ("remote memory costs +57% latency and -50% bandwidth
//! from node 0"). They explain the measurements and say where the figures must be read with
//! care (THP, virtual machine, placement, NUMA balancing, governor). Nothing here measures;
//! a finding is only made from figures present in the results.

use crate::results::quality::DEFAULT_MIN_CPU_SHARE;
use crate::results::verdict::{figure_checks, judge_figures};
use crate::results::{findings::Finding, verdict::RunQuality, RunResults};
use crate::stats::decide::unpaired_ratio;
use crate::stats::Summary;

/// HMAT and measurement disagree when they differ by more than this fraction.
pub const HMAT_TOLERANCE: f64 = 0.25;
/// Bandwidth is saturated at the first thread count reaching this fraction of the maximum.
pub const SATURATION_FRACTION: f64 = 0.9;
/// Placement below this fraction is reported.
const PLACEMENT_OK: f64 = 0.999;

/// Every finding of a run, machine facts first, then trust warnings.
pub fn derive(r: &RunResults) -> Vec<Finding> {
    let mut v = Vec::new();
    v.extend(single_node(r));
    v.extend(remote_penalties(r));
    v.extend(tier_findings(r));
    v.extend(saturation(r));
    v.extend(policy_winners(r));
    v.extend(hmat_disagreement(r));
    v.extend(super::cache_check::declared_vs_measured(r));
    v.extend(super::dram_reach::short_of_memory(r));
    v.extend(placement_below_full(r));
    v.extend(environment_notes(r));
    v
}

fn single_node(r: &RunResults) -> Vec<Finding> {
    if r.topology.memory_nodes().len() <= 1 {
        vec![Finding::info(
            "single-node",
            "this machine has one NUMA node: remote-memory effects cannot be measured here",
        )]
    } else {
        vec![]
    }
}

/// The remote-penalty findings ("remote memory costs +55 % latency [+48, +61 %] from node 0
/// (...; paired, 9 rounds)"), one per initiator and quantity, each decided by its ratio's
/// interval against the practical margin (see `run::penalty`).
pub fn remote_penalties(r: &RunResults) -> Vec<Finding> {
    crate::results::penalty::penalties(r)
        .iter()
        .map(|p| {
            Finding::info(
                p.quantity.finding_id(),
                crate::render::words::penalty::sentence(p),
            )
        })
        .collect()
}

/// The run's tier findings: one `tier-measured` (info) per pair, and a
/// `tier-declared-disagrees` warning where HMAT's ratio lies beyond the measured interval.
pub fn tier_findings(r: &RunResults) -> Vec<Finding> {
    use crate::render::words::tier::{disagreement, sentence};
    use crate::results::tiers::{tier_checks, Agreement};
    let mut out = Vec::new();
    for c in tier_checks(r) {
        out.push(Finding::info("tier-measured", sentence(&c)));
        if let Agreement::Disagree { declared_ratio } = c.agreement() {
            out.push(Finding::warning(
                "tier-declared-disagrees",
                disagreement(&c, declared_ratio),
            ));
        }
    }
    out
}

/// The smallest thread count whose bandwidth reaches [`SATURATION_FRACTION`] of the largest,
/// with that largest figure; `None` for fewer than two points or when only the last point
/// gets there (the curve is still rising).
pub fn saturation_point(points: &[(usize, f64)]) -> Option<(usize, f64)> {
    if points.len() < 2 {
        return None;
    }
    let mut p = points.to_vec();
    p.sort_by_key(|x| x.0);
    let max = p.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
    let last = p.last()?.0;
    let (t, _) = *p.iter().find(|x| x.1 >= SATURATION_FRACTION * max)?;
    (t < last).then_some((t, max))
}

/// Bandwidth-versus-threads curves `(node, [(threads, MB/s)])` confined to one node, from
/// the scaling report's first kernel.
pub fn scaling_curves(r: &RunResults) -> Vec<(u32, Vec<(usize, f64)>)> {
    let Some(s) = r.scaling.as_ref().and_then(|s| s.scaling.first()) else {
        return vec![];
    };
    s.series
        .iter()
        .filter_map(|c| {
            let node = c.node?;
            Some((
                node,
                c.points.iter().map(|p| (p.threads, p.mb_per_s)).collect(),
            ))
        })
        .collect()
}

/// The summary of the scaling point of `node`'s curve with `threads` threads (its result's
/// rates), else a point figure without an interval.
fn scaling_summary(r: &RunResults, node: u32, threads: usize, mb: f64) -> Summary {
    let Some(b) = r.scaling.as_ref() else {
        return Summary::point(mb, 1);
    };
    b.scaling
        .first()
        .and_then(|s| s.series.iter().find(|c| c.node == Some(node)))
        .and_then(|c| c.points.iter().find(|p| p.threads == threads))
        .and_then(|p| b.results.get(p.result_index))
        .map_or(Summary::point(mb, 1), |x| x.mb_per_s.summary())
}

/// "bandwidth saturates at 6 threads on node 1: 6 of 12 threads reach 96 % [93, 99 %] of its
/// 37500 MB/s": the point is found on the medians ([`saturation_point`]); the share it
/// reaches carries the interval of the two figures' ratio (unpaired: the points were measured
/// one after the other), or says there is none.
fn saturation(r: &RunResults) -> Vec<Finding> {
    scaling_curves(r)
        .into_iter()
        .filter_map(|(node, pts)| {
            let all = pts.iter().map(|p| p.0).max()?;
            let (t, max) = saturation_point(&pts)?;
            let at_t = pts.iter().find(|p| p.0 == t)?.1;
            let top = pts.iter().find(|p| p.1 == max)?.0;
            let a = scaling_summary(r, node, top, max);
            let b = scaling_summary(r, node, t, at_t);
            let ratio = unpaired_ratio(&a, &b)?;
            let share = match ratio.ci.map(|c| c.ends()) {
                Some((lo, hi)) => format!(
                    "{:.0} % [{:.0}, {:.0} %] (unpaired medians, n={} and {})",
                    ratio.ratio * 100.0,
                    lo * 100.0,
                    hi * 100.0,
                    b.samples,
                    a.samples
                ),
                _ => format!(
                    "{:.0} % (no interval, n={})",
                    ratio.ratio * 100.0,
                    ratio.samples
                ),
            };
            let (threads, verb) = if t == 1 {
                ("thread", "saturates")
            } else {
                ("threads", "saturate")
            };
            // Saturation is stated only when the share's whole interval reaches the fraction:
            // an interval reaching below it leaves the question to the noise.
            let text = if ratio.ci.is_some_and(|c| c.low < SATURATION_FRACTION) {
                format!(
                    "bandwidth on node {node}: {t} of {all} threads reach {share} of its {max:.0} MB/s; whether {t} {threads} already {verb} it is within noise here (the interval reaches below {:.0} %)",
                    SATURATION_FRACTION * 100.0
                )
            } else {
                format!(
                    "bandwidth saturates at {t} {threads} on node {node}: {t} of {all} threads reach {share} of its {max:.0} MB/s"
                )
            };
            Some(Finding::info("bandwidth-saturation", text))
        })
        .collect()
}

fn policy_winners(r: &RunResults) -> Vec<Finding> {
    let Some(t) = &r.scenarios else { return vec![] };
    if r.topology.memory_nodes().len() <= 1 {
        return vec![];
    }
    t.recommendations
        .iter()
        .map(|rec| {
            // No numactl line when no winner is named (nothing to choose between).
            let text = if rec.numactl.is_empty() {
                rec.text.clone()
            } else {
                format!("{} ({})", rec.text, rec.numactl)
            };
            Finding::info("policy-winner", text)
        })
        .collect()
}

/// "measured latency disagrees with HMAT by 40% for node 5 (from node 0: 140 ns measured, 95 %
/// interval [130, 150] n=9; 100 ns firmware-declared)", for every matrix cell off by more than
/// [`HMAT_TOLERANCE`]. With an interval, the whole interval must lie beyond the tolerance (noise
/// is no disagreement); without one the finding says so.
pub fn hmat_disagreement(r: &RunResults) -> Vec<Finding> {
    let Some(m) = r.latency.as_ref().and_then(|l| l.matrix.as_ref()) else {
        return vec![];
    };
    m.cells
        .iter()
        .filter_map(|c| {
            let h = c.hmat_read_latency_ns? as f64;
            if h <= 0.0 {
                return None;
            }
            let s = &c.result.ns_per_load;
            let v = s.median;
            let off = v / h - 1.0;
            if off.abs() <= HMAT_TOLERANCE {
                return None;
            }
            let spread = match s.ci.map(|c| c.ends()) {
                Some((lo, hi)) => {
                    let clear = if off > 0.0 {
                        lo / h - 1.0 > HMAT_TOLERANCE
                    } else {
                        hi / h - 1.0 < -HMAT_TOLERANCE
                    };
                    if !clear {
                        return None;
                    }
                    format!("95 % interval [{lo:.0}, {hi:.0}] n={}", s.samples)
                }
                None => format!("no interval (n={})", s.samples),
            };
            Some(Finding::warning(
                "hmat-disagreement",
                format!(
                    "measured latency disagrees with HMAT by {:.0}% for node {} (from node {}: {v:.0} ns measured, {spread}; {h:.0} ns firmware-declared)",
                    off.abs() * 100.0,
                    c.memory_node,
                    c.initiator_node
                ),
            ))
        })
        .collect()
}

fn placement_below_full(r: &RunResults) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    if let Some(l) = &r.latency {
        let mut worst: Option<f64> = None;
        let all = l.all_results();
        for res in all {
            if let Some(f) = res.placement_fraction.filter(|f| *f < PLACEMENT_OK) {
                worst = Some(worst.map_or(f, |w: f64| w.min(f)));
            }
        }
        if let Some(w) = worst {
            bad.push(format!("latency (as low as {:.1}%)", w * 100.0));
        }
    }
    if let Some(t) = &r.scenarios {
        for s in &t.scenarios {
            if let Some(f) = s.placement_fraction.filter(|f| *f < PLACEMENT_OK) {
                bad.push(format!("scenario ({}) {:.1}%", s.letter, f * 100.0));
            }
        }
    }
    if !bad.is_empty() {
        out.push(Finding::warning(
            "placement-below-100",
            format!(
                "not every page landed where it was meant to: {}; those figures mix nodes (free memory on the target node, or a cpuset, may be the cause)",
                bad.join(", ")
            ),
        ));
    }
    out
}

fn environment_notes(r: &RunResults) -> Vec<Finding> {
    let env = &r.topology.environment;
    let mut out = Vec::new();
    if env.thp_enabled.as_deref() == Some("always") {
        out.push(Finding::info(
            "thp-always",
            "THP is set to always: 4 KiB results use MADV_NOHUGEPAGE so they are not silently backed by huge pages",
        ));
    }
    if env.hypervisor {
        let what = env
            .hypervisor_type
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        out.push(Finding::warning(
            "virtual-machine",
            format!("this is a virtual machine{what}: NUMA nodes and CPUs may not match the host's, and other guests share its memory bandwidth"),
        ));
    }
    let remote_measured = r
        .latency_cells()
        .iter()
        .chain(r.bandwidth_cells().iter())
        .any(|(i, m, _)| i != m)
        || r.scenarios.is_some() && r.topology.memory_nodes().len() > 1;
    if let Some(b) = env.numa_balancing.filter(|b| *b != 0) {
        if remote_measured {
            out.push(Finding::warning(
                "numa-balancing",
                format!("automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing = {b}) during remote-memory measurements: the kernel may migrate pages toward the threads; numascope binds its buffers, but turn it off (echo 0 > /proc/sys/kernel/numa_balancing) for the cleanest figures"),
            ));
        }
    }
    // Promotion, demotion and DAMON schemes on physical memory; NUMA balancing's
    // mode 1 has its own finding above.
    let movers: Vec<String> =
        crate::results::environment_tiering::page_movers(env.numa_balancing, &env.tiering)
            .iter()
            .filter(|m| **m != crate::results::environment_tiering::PageMover::NumaBalancing)
            .map(crate::render::topo::tiering::mover_sentence)
            .collect();
    if !movers.is_empty() {
        out.push(Finding::warning(
            "tiering-page-movers",
            format!("the kernel can move or reclaim a measurement's pages while it runs: {}; every buffer's placement is checked after its measurement, and a figure whose pages moved says so", movers.join("; ")),
        ));
    }
    if env.smt_active == Some(true) {
        out.push(Finding::info(
            "smt",
            "SMT is on: sibling CPUs share one core's caches and load ports, so two threads on siblings get less bandwidth than two on separate cores",
        ));
    }
    if let Some(g) = env
        .cpufreq_governor
        .as_deref()
        .filter(|g| *g != "performance")
    {
        out.push(Finding::warning(
            "governor",
            format!("the CPU frequency governor is `{g}`, not `performance`: the core clock may change during the run and latencies in ns vary with it"),
        ));
    }
    out
}

/// The run's verdict (quiet / noisy / unusable) with its evidence, from every headline figure
/// (the figures are listed by `results::verdict::figure_checks`, the rule is
/// `results::verdict::judge_figures`, so a standalone command judges its one report alike),
/// its figures named and its sentence worded by `render::words::verdict::recorded`.
pub fn quality(r: &RunResults) -> RunQuality {
    crate::render::words::verdict::recorded(&judge_figures(
        &figure_checks(r),
        DEFAULT_MIN_CPU_SHARE,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sample;

    fn ids(v: &[Finding]) -> Vec<&str> {
        v.iter().map(|f| f.id.as_str()).collect()
    }

    /// The Opteron article: 45.6 ns local, 70.9 ns remote; 6286 vs 3116 MB/s. The article
    /// gives one figure per cell, so there is no interval: the medians are said, and no
    /// penalty is stated as settled. The same figures measured with intervals are
    /// `run::penalty`'s tests.
    #[test]
    fn remote_penalties_from_the_opteron_figures() {
        let mut r = sample::results();
        r.latency = Some(sample::latency_matrix(&[
            (0, 0, 45.6, None),
            (0, 1, 70.9, None),
            (1, 1, 45.6, None),
            (1, 0, 70.9, None),
        ]));
        r.advisor = Some(sample::advice(0, &[(0, 6286.0), (1, 3116.0)]));
        let f = remote_penalties(&r);
        let texts: Vec<&str> = f.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "remote memory latency from node 0 has no interval (n=1), so no penalty is stated (node 1: 71 vs 46 ns local)",
                "remote memory bandwidth from node 0 has no interval (n=1), so no penalty is stated (node 1: 3116 vs 6286 MB/s local)",
                "remote memory latency from node 1 has no interval (n=1), so no penalty is stated (node 0: 71 vs 46 ns local)",
            ]
        );
        let ids: Vec<&str> = f.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "remote-latency-penalty",
                "remote-bandwidth-penalty",
                "remote-latency-penalty"
            ]
        );
    }

    #[test]
    fn hmat_disagreement_over_a_quarter() {
        let mut r = sample::results();
        r.latency = Some(sample::latency_matrix(&[
            (0, 0, 110.0, Some(100)),
            (0, 5, 140.0, Some(100)),
        ]));
        let f = hmat_disagreement(&r);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].text,
            "measured latency disagrees with HMAT by 40% for node 5 (from node 0: 140 ns measured, no interval (n=1); 100 ns firmware-declared)"
        );
        // With an interval: a cell whose interval reaches into the tolerance is no
        // disagreement; one wholly beyond it is, with its interval.
        let spread = |v: f64, w: f64| -> Summary {
            Summary::of(
                &(0..9)
                    .map(|k| v * (1.0 + w * (k as f64 - 4.0) / 4.0))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        let set = |r: &mut RunResults, s: Summary| {
            r.latency.as_mut().unwrap().matrix.as_mut().unwrap().cells[1]
                .result
                .ns_per_load = s;
        };
        set(&mut r, spread(140.0, 0.2));
        assert!(hmat_disagreement(&r).is_empty(), "interval down to 112 ns");
        set(&mut r, spread(140.0, 0.05));
        let f = hmat_disagreement(&r);
        assert!(
            f[0].text.contains("140 ns measured, 95 % interval ["),
            "{}",
            f[0].text
        );
    }

    #[test]
    fn saturation_is_the_first_count_near_the_top() {
        let pts = [
            (1, 10_000.0),
            (2, 19_000.0),
            (4, 30_000.0),
            (6, 36_000.0),
            (8, 37_000.0),
            (12, 37_500.0),
        ];
        assert_eq!(saturation_point(&pts), Some((6, 37_500.0)));
        // Still rising at the last point: no saturation claimed.
        assert_eq!(saturation_point(&[(1, 10.0), (2, 20.0)]), None);
        assert_eq!(saturation_point(&[(1, 10.0)]), None);
        let mut r = sample::results();
        r.scaling = Some(sample::scaling(
            1,
            &[(1, 10000.0), (6, 36000.0), (12, 37500.0)],
        ));
        let f = saturation(&r);
        // The sample has one figure per point: no interval.
        assert_eq!(f[0].text, "bandwidth saturates at 6 threads on node 1: 6 of 12 threads reach 96 % (no interval, n=1) of its 37500 MB/s");
    }

    /// Scaling points with intervals: the share the saturation point reaches carries the
    /// interval of its ratio to the top point.
    #[test]
    fn saturation_share_carries_its_interval() {
        let mut r = crate::render::fixture::opteron_example();
        let rates = |v: f64| {
            let xs: Vec<f64> = (0..9).map(|k| v * (1.0 + 0.002 * k as f64)).collect();
            crate::results::bandwidth::Rates::from_summary(&Summary::of(&xs).unwrap(), vec![])
        };
        let b = r.scaling.as_mut().unwrap();
        b.results[0].mb_per_s = rates(6286.0);
        b.results[2].mb_per_s = rates(6330.0);
        let f = saturation(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].text,
            "bandwidth saturates at 1 thread on node 0: 1 of 2 threads reach 99 % [98, 100 %] (unpaired medians, n=9 and 9) of its 6330 MB/s"
        );
    }

    /// A share whose interval reaches below the saturation fraction does not say
    /// "saturates" (seen on this VM: 90 % [84, 101 %] was stated as saturation at 1 thread).
    #[test]
    fn saturation_within_noise_is_not_stated() {
        let mut r = crate::render::fixture::opteron_example();
        let rates = |v: f64, spread: f64| {
            let xs: Vec<f64> = (0..9)
                .map(|k| v * (1.0 + spread * (k as f64 - 4.0)))
                .collect();
            crate::results::bandwidth::Rates::from_summary(&Summary::of(&xs).unwrap(), vec![])
        };
        let b = r.scaling.as_mut().unwrap();
        b.results[0].mb_per_s = rates(5800.0, 0.03);
        b.results[2].mb_per_s = rates(6330.0, 0.03);
        let f = saturation(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].text
                .starts_with("bandwidth on node 0: 1 of 2 threads reach 92 % ["),
            "{}",
            f[0].text
        );
        assert!(f[0].text.ends_with("whether 1 thread already saturates it is within noise here (the interval reaches below 90 %)"), "{}", f[0].text);
    }

    #[test]
    fn environment_and_machine_notes() {
        let mut r = sample::results();
        // The fixture: 2 nodes, numa_balancing = 1, THP madvise, not a VM, no governor.
        let f = derive(&r);
        assert!(!ids(&f).contains(&"single-node"));
        assert!(ids(&f).contains(&"numa-balancing"), "{f:?}");
        assert!(ids(&f).contains(&"policy-winner"));
        assert!(!ids(&f).contains(&"thp-always"));
        let env = &mut r.topology.environment;
        env.thp_enabled = Some("always".into());
        env.hypervisor = true;
        env.hypervisor_type = Some("kvm".into());
        env.numa_balancing = Some(0);
        env.smt_active = Some(true);
        env.cpufreq_governor = Some("powersave".into());
        let f = derive(&r);
        let want = ["thp-always", "virtual-machine", "smt", "governor"];
        for w in want {
            assert!(ids(&f).contains(&w), "{w}: {f:?}");
        }
        assert!(!ids(&f).contains(&"numa-balancing"));
        let vm = f.iter().find(|x| x.id == "virtual-machine").unwrap();
        assert!(vm
            .text
            .starts_with("this is a virtual machine (kvm): NUMA nodes"));
        // One node: the single-node sentence, and no policy winners claimed from it.
        r.topology.nodes.truncate(1);
        r.topology.allowed_nodes = vec![0];
        let f = derive(&r);
        assert_eq!(
            f[0].text,
            "this machine has one NUMA node: remote-memory effects cannot be measured here"
        );
        assert!(!ids(&f).contains(&"policy-winner"));
    }

    #[test]
    fn placement_below_full_is_reported() {
        let mut r = sample::results();
        if let Some(t) = r.scenarios.as_mut() {
            t.scenarios[3].placement_fraction = Some(0.93);
        }
        let f = placement_below_full(&r);
        assert_eq!(f.len(), 1);
        assert!(f[0].text.contains("scenario (d) 93.0%"), "{}", f[0].text);
    }

    /// A quiet fixture stays quiet; c2c pairs short of CPU and a latency part marked
    /// disturbed make the run noisy, then unusable when they are most figures, with the lowest
    /// share named.
    #[test]
    fn verdict_from_the_figures() {
        use crate::results::quality::RepetitionQuality;
        use crate::results::verdict::Verdict;
        let mut r = crate::render::fixture::opteron_example();
        let q = quality(&r);
        assert!(q.figures > 10, "{}", q.figures);
        assert_eq!(q.figures_disturbed, 0);
        let c2c = r.c2c.as_mut().unwrap();
        c2c.pairs[0].cpu_share = Some(0.47);
        let q = quality(&r);
        assert_eq!(q.verdict, Verdict::Noisy);
        assert_eq!(q.figures_disturbed, 1);
        assert!(
            q.sentence.contains("lowest CPU share 47 % (core to core"),
            "{}",
            q.sentence
        );
        let lq = RepetitionQuality {
            disturbed: true,
            ..RepetitionQuality::default()
        };
        for c in &mut r.latency.as_mut().unwrap().sweep {
            for p in &mut c.points {
                p.quality = Some(lq.clone());
            }
        }
        for b in &mut r.bandwidth.as_mut().unwrap().results {
            b.quality = Some(lq.clone());
        }
        let q = quality(&r);
        assert_eq!(q.verdict, Verdict::Unusable, "{}", q.sentence);
        assert!(q.sentence.contains("rerun on an idle machine"));
    }
}
