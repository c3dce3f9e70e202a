//! Plateaus and knees of the working-set curve (METHODOLOGY point 4), matched with the cache
//! sizes the kernel reports. Pure functions over (bytes, ns) points; nothing measured here.
//!
//! A *plateau* is a maximal run of at least [`KneeParams::min_points`] consecutive points
//! (one octave at the sweep's 4 points per octave) whose largest latency is within `tolerance`
//! of their smallest (left to right, greedy); points in no plateau are transitions. Adjacent
//! plateaus whose latencies differ by less than `merge_ratio` are one level that drifts (DRAM
//! with a growing page-walk share) and are merged. A plateau's latency is the median of its
//! points; its *knee* is the largest working set on it whose latency is within half the
//! tolerance of that median: the capacity beyond which latency starts to rise.
//!
//! Matching: the last plateau is memory when its run reaches beyond the last-level cache's
//! sysfs size. When the remaining plateaus are exactly as many as the cache levels, they are the
//! levels in order, however far a knee lies from its sysfs size: a knee far below it is a
//! finding (a cache partitioned by Intel CAT, shared with other tenants, or inclusive of a
//! smaller level), not a mismatch. Otherwise each level takes, in increasing order, the
//! unused plateau whose knee is nearest in log size within a factor of `match_factor`, or
//! none.

use serde::{Deserialize, Serialize};

/// Detection parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KneeParams {
    /// Largest max/min - 1 within one plateau (0.12 = 12 %).
    pub tolerance: f64,
    /// Fewest points that make a plateau.
    pub min_points: usize,
    /// How far (as a factor) a knee may be from the sysfs size it is matched with when the
    /// plateau count does not equal the level count.
    pub match_factor: f64,
    /// Adjacent plateaus closer than this latency ratio are merged.
    pub merge_ratio: f64,
}

impl Default for KneeParams {
    fn default() -> Self {
        KneeParams {
            tolerance: 0.12,
            min_points: 4,
            match_factor: 2.0,
            merge_ratio: 1.3,
        }
    }
}

/// One flat stretch of the curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plateau {
    /// Smallest working set on the plateau, bytes.
    pub from_bytes: u64,
    /// The knee: the largest working set on the plateau within half the tolerance of its
    /// median, bytes.
    pub to_bytes: u64,
    /// Largest working set in the run (at or beyond the knee), bytes.
    pub end_bytes: u64,
    /// Median latency of the plateau's points, ns per load.
    pub ns_per_load: f64,
    /// Points on the plateau.
    pub points: usize,
}

/// One level of the hierarchy as the curve shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelKnee {
    /// `L1`, `L2`, `L3`, ... or `memory`.
    pub level: String,
    /// Cache size from sysfs, bytes (`None` for memory).
    pub sysfs_bytes: Option<u64>,
    /// The matched plateau's knee, bytes; `None` when no plateau lies near the sysfs size.
    pub knee_bytes: Option<u64>,
    /// The matched plateau's latency, ns per load.
    pub plateau_ns: Option<f64>,
    /// The same in core cycles (core clock estimate; see the clock section).
    pub plateau_cycles: Option<f64>,
}

/// Finds the plateaus of a curve given as (bytes, ns) sorted by bytes.
pub fn plateaus(points: &[(u64, f64)], p: &KneeParams) -> Vec<Plateau> {
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
        let (mut lo, mut hi) = (points[i].1, points[i].1);
        let mut j = i + 1;
        while j < points.len() {
            let v = points[j].1;
            let (nlo, nhi) = (lo.min(v), hi.max(v));
            if nhi > nlo * (1.0 + p.tolerance) {
                break;
            }
            lo = nlo;
            hi = nhi;
            j += 1;
        }
        if j - i >= p.min_points.max(1) {
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
                .find(|&k| points[k].1 <= m * (1.0 + p.tolerance / 2.0))
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

/// Matches plateaus with cache levels `(level, sysfs bytes)` (ascending level); see the
/// module documentation for the rule. `cycles` converts ns to core cycles when the core
/// clock is known.
pub fn match_levels(
    found: &[Plateau],
    caches: &[(u32, u64)],
    p: &KneeParams,
    cycles: impl Fn(f64) -> Option<f64>,
) -> Vec<LevelKnee> {
    let llc = caches.last().map(|c| c.1).unwrap_or(0);
    let memory = found.last().filter(|l| l.end_bytes > llc);
    let cache_plateaus = &found[..found.len() - usize::from(memory.is_some())];
    let chosen: Vec<Option<&Plateau>> = if cache_plateaus.len() == caches.len() {
        cache_plateaus.iter().map(Some).collect()
    } else {
        let mut next_free = 0usize;
        caches
            .iter()
            .map(|&(_, size)| {
                let best = cache_plateaus
                    .iter()
                    .enumerate()
                    .skip(next_free)
                    .map(|(k, pl)| (k, (pl.to_bytes as f64 / size as f64).log2().abs()))
                    .filter(|&(_, d)| d <= p.match_factor.log2() + 1e-9)
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                best.map(|(k, _)| {
                    next_free = k + 1;
                    &cache_plateaus[k]
                })
            })
            .collect()
    };
    let mut out: Vec<LevelKnee> = caches
        .iter()
        .zip(chosen)
        .map(|(&(level, size), pl)| LevelKnee {
            level: format!("L{level}"),
            sysfs_bytes: Some(size),
            knee_bytes: pl.map(|x| x.to_bytes),
            plateau_ns: pl.map(|x| x.ns_per_load),
            plateau_cycles: pl.and_then(|x| cycles(x.ns_per_load)),
        })
        .collect();
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
        check(&match_levels(&found, &CACHES, &p, |ns| Some(ns * 3.0)));
    }

    #[test]
    fn smooth_transitions_still_give_knees_at_the_cache_sizes() {
        let pts = curve(smooth, 0.02);
        let p = KneeParams::default();
        let found = plateaus(&pts, &p);
        check(&match_levels(&found, &CACHES, &p, |ns| Some(ns * 3.0)));
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
        let lv = match_levels(&found, &CACHES, &p, |_| None);
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
        let lv = match_levels(&found, &CACHES, &p, |_| None);
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
}
