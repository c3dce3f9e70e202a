//! Plateaus and knees of the working-set curve (METHODOLOGY point 4), matched with the cache
//! sizes the kernel reports. Pure functions over (bytes, ns) points; nothing measured here.
//!
//! A *plateau* is a maximal run of at least [`KneeParams::min_points`] consecutive points
//! whose largest latency is within `tolerance` of their smallest (left to right, greedy);
//! points in no plateau are transitions. Its latency is the median of its points. Its *knee*
//! is the largest working set still on it: the capacity beyond which latency starts to rise.
//! Each cache level is matched with the plateau whose knee is nearest in log size to the
//! level's sysfs size, within a factor of `match_factor`, in increasing level order (a level
//! never takes a plateau at or before the previous level's). The last plateau, when no level
//! took it and it reaches beyond `match_factor` x the last-level cache, is reported as memory.

use serde::{Deserialize, Serialize};

/// Detection parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KneeParams {
    /// Largest max/min - 1 within one plateau (0.12 = 12 %).
    pub tolerance: f64,
    /// Fewest points that make a plateau.
    pub min_points: usize,
    /// How far (as a factor) a knee may be from the sysfs size it is matched with.
    pub match_factor: f64,
}

impl Default for KneeParams {
    fn default() -> Self {
        KneeParams {
            tolerance: 0.12,
            min_points: 2,
            match_factor: 2.0,
        }
    }
}

/// One flat stretch of the curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plateau {
    /// Smallest working set on the plateau, bytes.
    pub from_bytes: u64,
    /// Largest working set on the plateau (the knee), bytes.
    pub to_bytes: u64,
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
    let mut out = Vec::new();
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
            let vals: Vec<f64> = points[i..j].iter().map(|x| x.1).collect();
            out.push(Plateau {
                from_bytes: points[i].0,
                to_bytes: points[j - 1].0,
                ns_per_load: crate::stats::median(&vals),
                points: j - i,
            });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Matches plateaus with cache levels `(level, sysfs bytes)` (ascending level).
/// `cycles` converts ns to core cycles when the core clock is known.
pub fn match_levels(
    found: &[Plateau],
    caches: &[(u32, u64)],
    p: &KneeParams,
    cycles: impl Fn(f64) -> Option<f64>,
) -> Vec<LevelKnee> {
    let mut out = Vec::new();
    let mut next_free = 0usize;
    for &(level, size) in caches {
        let best = found
            .iter()
            .enumerate()
            .skip(next_free)
            .map(|(k, pl)| (k, (pl.to_bytes as f64 / size as f64).log2().abs()))
            .filter(|&(_, d)| d <= p.match_factor.log2() + 1e-9)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let pl = best.map(|(k, _)| {
            next_free = k + 1;
            &found[k]
        });
        out.push(LevelKnee {
            level: format!("L{level}"),
            sysfs_bytes: Some(size),
            knee_bytes: pl.map(|x| x.to_bytes),
            plateau_ns: pl.map(|x| x.ns_per_load),
            plateau_cycles: pl.and_then(|x| cycles(x.ns_per_load)),
        });
    }
    let llc = caches.last().map(|c| c.1).unwrap_or(0);
    if let Some(last) = found.last() {
        if last.to_bytes as f64 > llc as f64 * p.match_factor && found.len() > next_free {
            out.push(LevelKnee {
                level: "memory".into(),
                sysfs_bytes: None,
                knee_bytes: None,
                plateau_ns: Some(last.ns_per_load),
                plateau_cycles: cycles(last.ns_per_load),
            });
        }
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
