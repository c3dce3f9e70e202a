//! Plateaus and knees of the working-set curve (docs/METHODOLOGY.md, "Working-set sweep"), matched
//! with the cache sizes the kernel reports. Pure functions over (bytes, ns) points; nothing
//! measured here.
//!
//! Before plateaus are looked for, the latencies go through a running median of three, which
//! removes a lone disturbed point (one preempted sample set) but keeps steps where they are.
//! A *plateau* is then a maximal run of two or more consecutive points that covers at least
//! [`KneeParams::min_octaves`] of working set (each point standing for one grid step, the
//! sweep's median spacing: four points at the default 4 points per octave, two at `--quick`'s
//! one per octave) and whose largest latency is within the tolerance of their smallest (left
//! to right, greedy); points in no plateau are transitions. The tolerance is for neighbours
//! up to half an octave apart; on a sparser grid, whose neighbours may drift further on one
//! level, it grows in proportion ([`KneeParams::tolerance_for`]: 24 % at one point per
//! octave, where the development VM's L3 rises 19 % from 2 to 4 MiB before DRAM). Adjacent
//! plateaus whose latencies differ by less than `merge_ratio` are one level that drifts (DRAM
//! with a growing page-walk share) and are merged. A plateau's latency is the median of its
//! measured points; its *knee* is the largest working set on it whose latency is within half
//! the tolerance of that median: the capacity beyond which latency starts to rise. Where the
//! points carry 95 % intervals, a step between adjacent plateaus must also clear the noise
//! ([`merge_within_noise`]): levels whose typical intervals overlap are one level.
//!
//! Matching: cache level k owns the working sets from `slack` x the size of level k-1 up to
//! `slack` x its own sysfs size (`slack` absorbs one grid step and the extra capacity of a
//! non-inclusive cache). Each level takes the first plateau, in curve order and after the
//! previous level's, whose knee lies in its range: the first, because a level can show a
//! second, slower plateau where the TLB reach ends inside it (a VM whose guest huge pages sit
//! on small host pages does this at 256 KiB). A knee far below its sysfs size is a finding (a
//! cache partitioned by Intel CAT, shared with other tenants, or a VM that gets a slice of
//! it), not a mismatch. Memory is the plateau right after the last-level cache's, or, when
//! that level has no plateau, the first later plateau whose run reaches beyond the last-level
//! cache's sysfs size: with small pages DRAM latency keeps rising with the page-walk share, so
//! the first plateau past the caches is the figure least inflated by the TLB (the curve
//! itself shows the rest). Where the sweep reaches beyond `slack` x the last-level cache's
//! size, no cache holds those sets: a plateau above half the lowest latency there is memory's,
//! never a cache level's (a sparse sweep of a VM that gets a 3 MiB slice of a 36 MiB L3 has a
//! DRAM plateau at 4-16 MiB, inside the L3's range, and no L3 plateau at all).

use crate::results::latency::{LevelKnee, Plateau};
use serde::{Deserialize, Serialize};

/// Detection parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KneeParams {
    /// Largest max/min - 1 within one plateau (0.12 = 12 %).
    pub tolerance: f64,
    /// Least working set a plateau covers, octaves (each point counting one grid step; a
    /// tenth under one octave, for the grid's rounding to whole cache lines).
    pub min_octaves: f64,
    /// How far (as a factor) beyond a level's sysfs size its knee may lie.
    pub slack: f64,
    /// Adjacent plateaus closer than this latency ratio are merged.
    pub merge_ratio: f64,
}

impl Default for KneeParams {
    fn default() -> Self {
        KneeParams {
            tolerance: 0.12,
            min_octaves: 0.9,
            slack: 1.5,
            merge_ratio: 1.3,
        }
    }
}

/// The widest grid spacing `tolerance` is meant for, octaves.
const DENSE_STEP: f64 = 0.5;

impl KneeParams {
    /// The tolerance on a grid whose points lie `step` octaves apart: `tolerance` as given
    /// up to half an octave, beyond it in proportion to the spacing.
    pub fn tolerance_for(&self, step: f64) -> f64 {
        self.tolerance * (step / DENSE_STEP).max(1.0)
    }
}

/// The median distance between neighbouring sweep sizes, octaves (0 with fewer than two).
pub fn grid_step(points: &[(u64, f64)]) -> f64 {
    let steps: Vec<f64> = points
        .windows(2)
        .map(|w| (w[1].0 as f64 / w[0].0.max(1) as f64).log2())
        .collect();
    if steps.is_empty() {
        0.0
    } else {
        crate::stats::median(&steps)
    }
}

/// The running median of three (the ends kept): a lone outlier goes, a step stays.
pub fn median3(v: &[f64]) -> Vec<f64> {
    (0..v.len())
        .map(|i| {
            if i == 0 || i + 1 == v.len() {
                v[i]
            } else {
                let mut w = [v[i - 1], v[i], v[i + 1]];
                w.sort_by(f64::total_cmp);
                w[1]
            }
        })
        .collect()
}

/// Finds the plateaus of a curve given as (bytes, ns) sorted by bytes.
pub fn plateaus(points: &[(u64, f64)], p: &KneeParams) -> Vec<Plateau> {
    let smooth = median3(&points.iter().map(|x| x.1).collect::<Vec<_>>());
    let step = grid_step(points);
    let tolerance = p.tolerance_for(step);
    // The working set points i..j cover, each standing for one grid step.
    let covers = |i: usize, j: usize| {
        j - i >= 2 && (points[j - 1].0 as f64 / points[i].0 as f64).log2() + step >= p.min_octaves
    };
    // Runs as index ranges; each merged plateau is a list of runs.
    let mut runs: Vec<Vec<(usize, usize)>> = Vec::new();
    let med = |rs: &[(usize, usize)]| -> f64 {
        let vals: Vec<f64> = rs
            .iter()
            .flat_map(|&(a, b)| points[a..b].iter().map(|x| x.1))
            .collect();
        crate::stats::median(&vals)
    };
    let mut i = 0;
    while i < points.len() {
        let (mut lo, mut hi) = (smooth[i], smooth[i]);
        let mut j = i + 1;
        while j < points.len() {
            let v = smooth[j];
            let (nlo, nhi) = (lo.min(v), hi.max(v));
            if nhi > nlo * (1.0 + tolerance) {
                break;
            }
            lo = nlo;
            hi = nhi;
            j += 1;
        }
        if covers(i, j) {
            let merge = runs.last().is_some_and(|prev| {
                let (a, b) = (med(prev), med(&[(i, j)]));
                a.max(b) < a.min(b) * p.merge_ratio
            });
            match runs.last_mut() {
                Some(prev) if merge => prev.push((i, j)),
                _ => runs.push(vec![(i, j)]),
            }
            i = j;
        } else {
            i += 1;
        }
    }
    runs.iter()
        .map(|rs| {
            let m = med(rs);
            // The knee: the largest point still within half the tolerance of the median, so
            // a first rising point admitted by the tolerance does not stretch the capacity.
            let last = rs[rs.len() - 1];
            let knee = (last.0..last.1)
                .rev()
                .find(|&k| smooth[k] <= m * (1.0 + tolerance / 2.0))
                .unwrap_or(last.1 - 1);
            Plateau {
                from_bytes: points[rs[0].0].0,
                to_bytes: points[knee].0,
                end_bytes: points[last.1 - 1].0,
                ns_per_load: m,
                points: rs.iter().map(|&(a, b)| b - a).sum(),
            }
        })
        .collect()
}

/// A curve point with its interval: (bytes, median ns, 95 % interval when it has one).
pub type BandedPoint = (u64, f64, Option<(f64, f64)>);

/// Merges adjacent plateaus whose step lies within the noise (a knee is a decision
/// like any other): `points` are (bytes, median ns, 95 % interval) of the curve. Plateau B
/// above plateau A is a level of its own only when the typical low end of B's points'
/// intervals (their median) lies above the typical high end of A's; otherwise the two are one
/// level whose step this run cannot tell from its drift. Plateaus with points lacking an
/// interval (older files, too few samples) are left as they are.
pub fn merge_within_noise(found: Vec<Plateau>, points: &[BandedPoint]) -> Vec<Plateau> {
    let on = |pl: &Plateau| -> Vec<&BandedPoint> {
        points
            .iter()
            .filter(|x| x.0 >= pl.from_bytes && x.0 <= pl.end_bytes)
            .collect()
    };
    let band = |pl: &Plateau, high: bool| -> Option<f64> {
        let ends: Option<Vec<f64>> = on(pl)
            .iter()
            .map(|x| x.2.map(|(lo, hi)| if high { hi } else { lo }))
            .collect();
        ends.filter(|e| !e.is_empty())
            .map(|e| crate::stats::median(&e))
    };
    let mut out: Vec<Plateau> = Vec::with_capacity(found.len());
    for b in found {
        let merge = out.last().is_some_and(|a| {
            let (lower, upper) = if a.ns_per_load <= b.ns_per_load {
                (a, &b)
            } else {
                (&b, a)
            };
            matches!((band(lower, true), band(upper, false)), (Some(hi), Some(lo)) if lo <= hi)
        });
        match out.last_mut() {
            Some(a) if merge => {
                let vals: Vec<f64> = on(a).iter().chain(on(&b).iter()).map(|x| x.1).collect();
                a.ns_per_load = crate::stats::median(&vals);
                a.to_bytes = b.to_bytes;
                a.end_bytes = b.end_bytes;
                a.points += b.points;
            }
            _ => out.push(b),
        }
    }
    out
}

/// The lowest latency (running median of three) of the curve's points beyond `slack` x the
/// last-level cache's size, where no cache holds the set; `None` when the sweep stops before.
fn memory_floor(points: &[(u64, f64)], caches: &[(u32, u64)], p: &KneeParams) -> Option<f64> {
    let llc = p.slack * caches.last()?.1 as f64;
    let smooth = median3(&points.iter().map(|x| x.1).collect::<Vec<_>>());
    points
        .iter()
        .zip(smooth)
        .filter(|(x, _)| x.0 as f64 > llc)
        .map(|(_, ns)| ns)
        .min_by(f64::total_cmp)
}

/// Matches plateaus of the curve `points` (bytes, ns) with cache levels `(level, sysfs
/// bytes)` (ascending level); see the module documentation for the rule. `cycles` converts
/// ns to core cycles when the core clock is known.
pub fn match_levels(
    found: &[Plateau],
    points: &[(u64, f64)],
    caches: &[(u32, u64)],
    p: &KneeParams,
    cycles: impl Fn(f64) -> Option<f64>,
) -> Vec<LevelKnee> {
    let mut next = 0usize;
    let mut lower = 0.0f64;
    let mut out = Vec::with_capacity(caches.len() + 1);
    let floor = memory_floor(points, caches, p).unwrap_or(f64::INFINITY);
    for &(level, size) in caches {
        let upper = p.slack * size as f64;
        let hit = (next..found.len()).find(|&k| {
            let knee = found[k].to_bytes as f64;
            knee > lower && knee <= upper && found[k].ns_per_load <= floor / 2.0
        });
        if let Some(k) = hit {
            next = k + 1;
        }
        lower = upper;
        let pl = hit.map(|k| &found[k]);
        out.push(LevelKnee {
            level: format!("L{level}"),
            sysfs_bytes: Some(size),
            knee_bytes: pl.map(|x| x.to_bytes),
            plateau_ns: pl.map(|x| x.ns_per_load),
            plateau_cycles: pl.and_then(|x| cycles(x.ns_per_load)),
        });
    }
    let llc = caches.last().map_or(0, |c| c.1);
    let llc_matched = out.last().is_some_and(|l| l.knee_bytes.is_some());
    let memory = if llc_matched {
        found.get(next)
    } else {
        found[next..].iter().find(|x| x.end_bytes > llc)
    };
    if let Some(m) = memory {
        out.push(LevelKnee {
            level: "memory".into(),
            sysfs_bytes: None,
            knee_bytes: None,
            plateau_ns: Some(m.ns_per_load),
            plateau_cycles: cycles(m.ns_per_load),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::latency::*;

    /// Two plateaus whose points' intervals overlap are one level; apart, two; no
    /// intervals, left as found.
    #[test]
    fn plateaus_within_noise_are_one_level() {
        let curve = |lo_ci: f64| -> Vec<BandedPoint> {
            (0..8u64)
                .map(|k| {
                    let ns = if k < 4 { 10.0 } else { 13.0 };
                    (
                        4096 << k,
                        ns,
                        Some((ns * (1.0 - lo_ci), ns * (1.0 + lo_ci))),
                    )
                })
                .collect()
        };
        let found = |pts: &[BandedPoint]| {
            let p = KneeParams {
                merge_ratio: 1.1,
                ..KneeParams::default()
            };
            plateaus(&pts.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(), &p)
        };
        let tight = curve(0.02);
        assert_eq!(found(&tight).len(), 2);
        assert_eq!(merge_within_noise(found(&tight), &tight).len(), 2);
        let wide = curve(0.2);
        let merged = merge_within_noise(found(&wide), &wide);
        assert_eq!(merged.len(), 1, "{merged:?}");
        assert_eq!((merged[0].points, merged[0].end_bytes), (8, 4096 << 7));
        let bare: Vec<_> = wide.iter().map(|x| (x.0, x.1, None)).collect();
        assert_eq!(merge_within_noise(found(&bare), &bare).len(), 2);
    }

    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;

    fn grid() -> Vec<u64> {
        (0..=4 * 17)
            .map(|k| ((4096.0 * 2f64.powf(k as f64 / 4.0)) as u64) / 64 * 64)
            .collect()
    }

    /// Deterministic +-`amp` relative noise.
    fn noise(i: usize, amp: f64) -> f64 {
        let x = ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f64 / (1u64 << 24) as f64;
        1.0 + amp * (2.0 * x - 1.0)
    }

    const CACHES: [(u32, u64); 3] = [(1, 32 * KIB), (2, MIB), (3, 32 * MIB)];
    const LAT: [f64; 4] = [1.5, 4.5, 20.0, 90.0];

    /// LRU-like caches with a cyclic chain: everything misses once the set exceeds capacity.
    fn sharp(s: u64) -> f64 {
        let lvl = CACHES.iter().position(|&(_, c)| s <= c).unwrap_or(3);
        LAT[lvl]
    }

    /// Random replacement: a fraction 1 - C/s of loads misses each level.
    fn smooth(s: u64) -> f64 {
        let mut v = LAT[0];
        for (k, &(_, c)) in CACHES.iter().enumerate() {
            let miss = (1.0 - c as f64 / s as f64).max(0.0);
            v += (LAT[k + 1] - LAT[k]) * miss;
        }
        v
    }

    fn curve(f: fn(u64) -> f64, amp: f64) -> Vec<(u64, f64)> {
        grid()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s, f(s) * noise(i, amp)))
            .collect()
    }

    fn check(levels: &[LevelKnee]) {
        assert_eq!(levels.len(), 4, "{levels:#?}");
        for (k, l) in levels[..3].iter().enumerate() {
            let knee = l.knee_bytes.unwrap_or_else(|| panic!("{levels:#?}"));
            let size = CACHES[k].1 as f64;
            // The knee is the last grid point at or below the capacity.
            assert!(
                knee as f64 <= size && knee as f64 > size / 2f64.powf(0.3),
                "{} knee {knee} vs {size}",
                l.level
            );
            let ns = l.plateau_ns.unwrap();
            assert!((ns / LAT[k] - 1.0).abs() < 0.12, "{} at {ns}", l.level);
            assert_eq!(l.plateau_cycles, Some(ns * 3.0));
        }
        assert_eq!(levels[3].level, "memory");
        assert!((levels[3].plateau_ns.unwrap() / LAT[3] - 1.0).abs() < 0.1);
    }

    #[test]
    fn sharp_steps_are_found_at_the_cache_sizes() {
        let pts = curve(sharp, 0.03);
        let p = KneeParams::default();
        let found = plateaus(&pts, &p);
        assert_eq!(found.len(), 4, "{found:#?}");
        check(&match_levels(&found, &pts, &CACHES, &p, |ns| {
            Some(ns * 3.0)
        }));
    }

    #[test]
    fn smooth_transitions_still_give_knees_at_the_cache_sizes() {
        let pts = curve(smooth, 0.02);
        let p = KneeParams::default();
        let found = plateaus(&pts, &p);
        check(&match_levels(&found, &pts, &CACHES, &p, |ns| {
            Some(ns * 3.0)
        }));
    }

    #[test]
    fn a_level_with_no_plateau_nearby_is_reported_empty() {
        // Only L1 and memory: the curve jumps straight from 1.5 to 90 ns past 32 KiB.
        let pts: Vec<(u64, f64)> = grid()
            .into_iter()
            .map(|s| (s, if s <= 32 * KIB { 1.5 } else { 90.0 }))
            .collect();
        let p = KneeParams::default();
        let found = plateaus(&pts, &p);
        assert_eq!(found.len(), 2);
        let lv = match_levels(&found, &pts, &CACHES, &p, |_| None);
        assert_eq!(lv[0].knee_bytes, Some(32 * KIB));
        assert_eq!(lv[1].knee_bytes, None);
        assert_eq!(lv[2].knee_bytes, None);
        assert_eq!(lv[3].level, "memory");
        assert_eq!(lv[3].plateau_cycles, None);
    }

    /// A partitioned last-level cache: the L3 plateau ends at 3.4 MiB although sysfs says
    /// 32 MiB, and DRAM drifts upward with the page-walk share (this machine's shape).
    #[test]
    fn a_partitioned_llc_keeps_its_plateau_and_dram_drift_is_one_level() {
        let f = |s: u64| -> f64 {
            if s <= 32 * KIB {
                1.3
            } else if s <= 256 * KIB {
                4.55
            } else if s <= 1 << 20 {
                // gradual rise, no plateau
                4.55 * (s as f64 / (256 * KIB) as f64).powf(0.6)
            } else if s <= 3400 * KIB {
                24.0
            } else {
                100.0 * (1.0 + 0.03 * (s as f64 / (4 * MIB) as f64).log2())
            }
        };
        let pts = curve(f, 0.01);
        let p = KneeParams::default();
        let found = plateaus(&pts, &p);
        assert_eq!(found.len(), 4, "{found:#?}");
        let lv = match_levels(&found, &pts, &CACHES, &p, |_| None);
        assert_eq!(lv[0].knee_bytes, Some(32 * KIB));
        assert_eq!(lv[1].knee_bytes, Some(256 * KIB));
        assert!((lv[1].plateau_ns.unwrap() - 4.55).abs() < 0.1);
        let k3 = lv[2].knee_bytes.unwrap();
        assert!(k3 > 2 * MIB && k3 <= 3400 * KIB, "{k3}");
        assert!((lv[2].plateau_ns.unwrap() - 24.0).abs() < 0.5);
        assert_eq!(lv[3].level, "memory");
        let m = lv[3].plateau_ns.unwrap();
        assert!(m > 100.0 && m < 125.0, "{m}");
    }

    #[test]
    fn a_rising_curve_has_no_plateau() {
        let pts: Vec<(u64, f64)> = grid()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s, 1.2f64.powi(i as i32)))
            .collect();
        assert!(plateaus(&pts, &KneeParams::default()).is_empty());
    }

    /// This machine's sysfs caches (Cascade Lake: 32 KiB L1d, 1 MiB L2, 35.75 MiB L3).
    const VM_CACHES: [(u32, u64); 3] = [(1, 32 * KIB), (2, MIB), (3, 37_486_592)];

    /// Two sweeps measured on this project's development VM (2 vCPUs of a Cascade Lake host,
    /// `latency --sweep 4KiB..512MiB --cpu 1`): the L2 shows a second, slower stretch past
    /// 256 KiB (the guest's huge pages sit on 4 KiB host pages, so the L1 TLB reach ends
    /// there), the VM gets only ~3 MiB of the L3, and with 4k pages DRAM keeps rising with the
    /// page-walk share. Older rules took the slow L2 stretch for L2 and a DRAM stretch for L3.
    /// The measured points (bytes, ns) of one sweep, from a data file beside this module.
    fn sweep(tsv: &str) -> Vec<(u64, f64)> {
        tsv.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (b, ns) = l.split_once('\t').expect("bytes<TAB>ns");
                (b.parse().unwrap(), ns.parse().unwrap())
            })
            .collect()
    }
    const VM_THP: &str = include_str!("testdata/vm_sweep_thp.tsv");
    const VM_4K: &str = include_str!("testdata/vm_sweep_4k.tsv");

    fn vm_levels(curve: &[(u64, f64)]) -> Vec<LevelKnee> {
        let p = KneeParams::default();
        match_levels(&plateaus(curve, &p), curve, &VM_CACHES, &p, |_| None)
    }

    #[test]
    fn measured_vm_curves_give_each_level_its_first_plateau() {
        // A third 4k sweep whose first DRAM stretch ends at 32 MiB, below the L3's sysfs size.
        let (thp, four_k) = (sweep(VM_THP), sweep(VM_4K));
        let mut early = four_k.clone();
        for p in early.iter_mut().filter(|p| p.0 > 32 * MIB) {
            p.1 *= 1.0 + (p.0 as f64 / (32 * MIB) as f64).log2();
        }
        for (name, curve, l3_ns, mem_ns) in [
            ("thp", &thp, 23.0..24.0, 100.0..112.0),
            ("4k", &four_k, 25.0..26.5, 107.0..125.0),
            (
                "4k, DRAM stretch ending early",
                &early,
                25.0..26.5,
                107.0..125.0,
            ),
        ] {
            let lv = vm_levels(curve);
            let names: Vec<&str> = lv.iter().map(|l| l.level.as_str()).collect();
            assert_eq!(names, ["L1", "L2", "L3", "memory"], "{name}: {lv:#?}");
            assert_eq!(lv[0].knee_bytes, Some(32 * KIB), "{name}");
            assert!((lv[0].plateau_ns.unwrap() - 1.3).abs() < 0.05, "{name}");
            assert_eq!(lv[1].knee_bytes, Some(256 * KIB), "{name}");
            assert!((lv[1].plateau_ns.unwrap() - 4.55).abs() < 0.05, "{name}");
            let k3 = lv[2].knee_bytes.unwrap();
            assert!((2 * MIB..=4 * MIB).contains(&k3), "{name}: L3 knee {k3}");
            assert!(
                l3_ns.contains(&lv[2].plateau_ns.unwrap()),
                "{name}: {lv:#?}"
            );
            assert!(
                mem_ns.contains(&lv[3].plateau_ns.unwrap()),
                "{name}: {lv:#?}"
            );
        }
    }

    #[test]
    fn a_lone_outlier_does_not_split_a_plateau() {
        assert_eq!(median3(&[1.0, 9.0, 1.0, 1.0]), vec![1.0, 1.0, 1.0, 1.0]);
        assert_eq!(median3(&[1.0, 1.0, 5.0, 5.0]), vec![1.0, 1.0, 5.0, 5.0]);
        assert_eq!(median3(&[3.0]), vec![3.0]);
        // A preempted point two grid steps before the end of the L2 plateau neither cuts the
        // plateau short (its knee would move to 724 KiB) nor makes a plateau of its own.
        let mut pts = curve(sharp, 0.0);
        let i = pts.iter().rposition(|x| x.0 <= MIB).unwrap() - 2;
        pts[i].1 *= 3.0;
        let p = KneeParams::default();
        check(&match_levels(
            &plateaus(&pts, &p),
            &pts,
            &CACHES,
            &p,
            |ns| Some(ns * 3.0),
        ));
    }

    #[test]
    fn a_non_inclusive_llc_may_hold_a_little_more_than_its_size() {
        // The L3 plateau runs to 1.25 x its sysfs size (L2 + L3 of a victim cache).
        let f = |s: u64| {
            sharp(if s <= 40 * MIB && s > MIB {
                32 * MIB
            } else {
                s
            })
        };
        let pts = curve(f, 0.01);
        let p = KneeParams::default();
        let lv = match_levels(&plateaus(&pts, &p), &pts, &CACHES, &p, |_| None);
        let k3 = lv[2].knee_bytes.unwrap();
        assert!(k3 > 32 * MIB && k3 <= 40 * MIB, "{k3}");
        assert_eq!(lv[3].level, "memory");
        assert!((lv[3].plateau_ns.unwrap() / 90.0 - 1.0).abs() < 0.05);
    }

    /// Every fourth point of a recorded 4-per-octave sweep: the same curve at `--quick`'s
    /// one point per octave.
    fn one_per_octave(curve: &[(u64, f64)]) -> Vec<(u64, f64)> {
        curve.iter().step_by(4).copied().collect()
    }

    /// A plateau is a stretch of working set, not a count of points: three dense points (half
    /// an octave) are none, two points an octave apart are one.
    #[test]
    fn a_plateau_covers_an_octave_whatever_the_density() {
        let p = KneeParams::default();
        // `n` points at 1.5 ns on the dense grid, then a steady rise of 30 % a step.
        let dense = |n: usize| -> Vec<(u64, f64)> {
            grid()
                .into_iter()
                .take(12)
                .enumerate()
                .map(|(k, s)| {
                    (
                        s,
                        if k < n {
                            1.5
                        } else {
                            20.0 * 1.3f64.powi(k as i32)
                        },
                    )
                })
                .collect()
        };
        assert!(
            plateaus(&dense(3), &p).is_empty(),
            "{:?}",
            plateaus(&dense(3), &p)
        );
        assert_eq!(plateaus(&dense(4), &p).len(), 1);
        let sparse: Vec<(u64, f64)> = (0..8)
            .map(|k| (4096u64 << k, if k < 2 { 1.5 } else { 4.0 * 3f64.powi(k) }))
            .collect();
        let found = plateaus(&sparse, &p);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!((found[0].from_bytes, found[0].to_bytes), (4096, 8192));
        // One point alone covers an octave but is no run: a transition, not a plateau.
        assert!(plateaus(&sparse[1..], &p).is_empty());
    }

    /// The recorded VM sweeps at one point per octave find the knees the dense sweeps find
    /// (and a reader sees as steps): L1 at 32 KiB, L2 at 256 KiB, L3 at 4 MiB, then memory,
    /// each plateau within 15 % of the dense sweep's.
    #[test]
    fn sparse_sweeps_find_the_knees_of_dense_ones() {
        for (name, dense) in [("thp", sweep(VM_THP)), ("4k", sweep(VM_4K))] {
            let sparse = one_per_octave(&dense);
            assert_eq!(grid_step(&sparse), 1.0);
            let (d, s) = (vm_levels(&dense), vm_levels(&sparse));
            let names: Vec<&str> = s.iter().map(|l| l.level.as_str()).collect();
            assert_eq!(names, ["L1", "L2", "L3", "memory"], "{name}: {s:#?}");
            assert_eq!(s[0].knee_bytes, Some(32 * KIB), "{name}");
            assert_eq!(s[1].knee_bytes, Some(256 * KIB), "{name}");
            assert_eq!(s[2].knee_bytes, Some(4 * MIB), "{name}");
            for (a, b) in d.iter().zip(&s) {
                let (a, b) = (a.plateau_ns.unwrap(), b.plateau_ns.unwrap());
                assert!((b / a - 1.0).abs() < 0.15, "{name}: dense {a} sparse {b}");
            }
        }
    }

    /// A curve's (bytes, median ns) points.
    type Curve = Vec<(u64, f64)>;

    /// The sweep of a `run --quick` results fixture: (bytes, median ns) and the sysfs caches.
    fn fixture_sweep(file: &str) -> (Curve, Vec<(u32, u64)>) {
        let path = format!(
            "{}/tests/fixtures/results/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let l = &v["latency"];
        let pts = l["sweep"][0]["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let b = p["working_set_bytes"].as_u64().unwrap();
                (b, p["ns_per_load"]["median"].as_f64().unwrap())
            })
            .collect();
        let caches = l["knees"][0]["levels"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| {
                let level = k["level"].as_str()?.strip_prefix('L')?.parse().ok()?;
                Some((level, k["sysfs_bytes"].as_u64()?))
            })
            .collect();
        (pts, caches)
    }

    /// Two recorded `run --quick` sweeps (one point per octave), whose files say "no knee"
    /// for every level. This machine's: the L1 and L2 plateaus, and the L3 knee at 2 MiB
    /// before the step to 69 ns at 4 MiB. The 2-vCPU guest's: its L3 slice shows as one point
    /// (25.5 ns at 2 MiB, no plateau), and the DRAM plateau at 4-16 MiB, inside the L3's
    /// range, is not taken for the L3: it lies above half the latency beyond 1.5 x the L3.
    #[test]
    fn quick_sweeps_of_recorded_runs_find_their_knees() {
        let p = KneeParams::default();
        let levels = |file: &str| {
            let (pts, caches) = fixture_sweep(file);
            assert_eq!(grid_step(&pts), 1.0, "{file}");
            match_levels(&plateaus(&pts, &p), &pts, &caches, &p, |_| None)
        };
        let lv = levels("this-machine-quick-v657.json");
        assert!(lv[0].knee_bytes.is_some_and(|k| k <= 16 * KIB), "{lv:#?}");
        assert!((1.3..1.6).contains(&lv[0].plateau_ns.unwrap()), "{lv:#?}");
        assert!(lv[1]
            .knee_bytes
            .is_some_and(|k| (64 * KIB..=128 * KIB).contains(&k)));
        assert!((3.8..4.7).contains(&lv[1].plateau_ns.unwrap()), "{lv:#?}");
        assert_eq!(lv[2].knee_bytes, Some(2 * MIB), "{lv:#?}");
        assert!((15.0..19.0).contains(&lv[2].plateau_ns.unwrap()), "{lv:#?}");
        assert_eq!(lv[3].level, "memory");
        let kvm = levels("this-machine-kvm-2cpu.json");
        assert_eq!(kvm[0].knee_bytes, Some(16 * KIB), "{kvm:#?}");
        assert!(kvm[1].knee_bytes.is_some(), "{kvm:#?}");
        assert_eq!(kvm[2].knee_bytes, None, "{kvm:#?}");
        assert!(kvm[1].plateau_ns.unwrap() < 7.0, "{kvm:#?}");
    }
}
