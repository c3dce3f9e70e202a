//! What a loaded-latency curve says, as pure functions of its (bandwidth, latency) points:
//! the idle latency (the no-load point), the bandwidth at which latency has doubled
//! (interpolated between the two points that straddle twice the idle latency; `None` if the
//! curve never gets there), the peak bandwidth reached, and the trend: how much latency rose
//! from idle to the peak and Spearman's rank correlation of latency with bandwidth (+1: every
//! step up in bandwidth raised latency; about 0: latency does not follow the load, as when the
//! load threads are too few to load the memory system). Also a noise-tolerant monotonicity
//! check used by the self-checks.

use crate::results::loaded::{CurvePoint, CurveSummary};
/// Summarizes `loaded` points (any order) against the `idle` point.
pub fn summarize(idle: CurvePoint, loaded: &[CurvePoint]) -> CurveSummary {
    let mut all: Vec<CurvePoint> = std::iter::once(idle)
        .chain(loaded.iter().copied())
        .collect();
    all.sort_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s));
    let peak = all
        .iter()
        .copied()
        .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))
        .unwrap_or(idle);
    CurveSummary {
        idle_ns_per_load: idle.ns_per_load,
        doubled_at_mb_per_s: doubled_at(idle.ns_per_load, &all),
        peak_mb_per_s: peak.mb_per_s,
        ns_per_load_at_peak: peak.ns_per_load,
        rise_at_peak_fraction: (idle.ns_per_load > 0.0)
            .then(|| peak.ns_per_load / idle.ns_per_load - 1.0),
        rank_correlation: rank_correlation(&all),
    }
}

/// Fills the trend of a summary read from an older file (no `rise_at_peak_fraction`) from
/// its points, the first being the idle one; a summary that has it is left alone.
pub fn fill_trend(summary: &mut CurveSummary, points: &[CurvePoint]) {
    if summary.rise_at_peak_fraction.is_some() {
        return;
    }
    if let Some((idle, loaded)) = points.split_first() {
        let fresh = summarize(*idle, loaded);
        summary.rise_at_peak_fraction = fresh.rise_at_peak_fraction;
        summary.rank_correlation = fresh.rank_correlation;
    }
}

/// Ranks 1..=n of `v`, ties sharing the average of the ranks they span.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rho of latency against bandwidth: the Pearson correlation of the ranks.
pub fn rank_correlation(points: &[CurvePoint]) -> Option<f64> {
    if points.len() < 3 {
        return None;
    }
    let x = ranks(&points.iter().map(|p| p.mb_per_s).collect::<Vec<_>>());
    let y = ranks(&points.iter().map(|p| p.ns_per_load).collect::<Vec<_>>());
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(&y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The bandwidth where latency first reaches `2 * idle_ns`, walking points in ascending
/// bandwidth; interpolated linearly between the last point below and the first at or above.
pub fn doubled_at(idle_ns: f64, sorted: &[CurvePoint]) -> Option<f64> {
    let target = 2.0 * idle_ns;
    let first = sorted.iter().position(|p| p.ns_per_load >= target)?;
    if first == 0 {
        return Some(sorted[0].mb_per_s);
    }
    let (a, b) = (sorted[first - 1], sorted[first]);
    let f = (target - a.ns_per_load) / (b.ns_per_load - a.ns_per_load);
    Some(a.mb_per_s + f * (b.mb_per_s - a.mb_per_s))
}

/// Adjacent pairs (in ascending bandwidth) where latency falls by more than `tolerance` of
/// the lower point's latency: 0 for a curve that rises monotonically within noise.
pub fn monotonic_violations(points: &[CurvePoint], tolerance: f64) -> usize {
    let mut s = points.to_vec();
    s.sort_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s));
    s.windows(2)
        .filter(|w| w[1].ns_per_load < w[0].ns_per_load * (1.0 - tolerance))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::loaded::*;

    fn p(mb_per_s: f64, ns_per_load: f64) -> CurvePoint {
        CurvePoint {
            mb_per_s,
            ns_per_load,
        }
    }

    #[test]
    fn doubling_is_interpolated_between_straddling_points() {
        let idle = p(50.0, 100.0);
        let loaded = [
            p(8000.0, 180.0),
            p(1000.0, 105.0),
            p(10000.0, 260.0),
            p(4000.0, 130.0),
        ];
        let s = summarize(idle, &loaded);
        assert_eq!(s.idle_ns_per_load, 100.0);
        // 200 ns lies a quarter of the way from (8000, 180) to (10000, 260).
        assert!((s.doubled_at_mb_per_s.unwrap() - 8500.0).abs() < 1e-9);
        assert_eq!(s.peak_mb_per_s, 10000.0);
        assert_eq!(s.ns_per_load_at_peak, 260.0);
    }

    #[test]
    fn never_doubling_gives_none_and_peak_can_be_below_the_end() {
        let s = summarize(p(10.0, 80.0), &[p(3000.0, 90.0), p(2500.0, 150.0)]);
        assert_eq!(s.doubled_at_mb_per_s, None);
        assert_eq!(s.peak_mb_per_s, 3000.0);
        // Exactly double counts as doubled, at that point's bandwidth.
        assert_eq!(
            doubled_at(80.0, &[p(10.0, 80.0), p(20.0, 160.0)]),
            Some(20.0)
        );
        // Only the idle point.
        let s = summarize(p(10.0, 80.0), &[]);
        assert_eq!((s.peak_mb_per_s, s.doubled_at_mb_per_s), (10.0, None));
    }

    #[test]
    fn rank_correlation_follows_the_order_not_the_values() {
        let rising = [p(1.0, 100.0), p(2.0, 101.0), p(3.0, 150.0), p(4.0, 400.0)];
        assert!((rank_correlation(&rising).unwrap() - 1.0).abs() < 1e-12);
        let falling = [p(1.0, 4.0), p(2.0, 3.0), p(3.0, 2.0), p(4.0, 1.0)];
        assert!((rank_correlation(&falling).unwrap() + 1.0).abs() < 1e-12);
        // Ranks (1,2,3,4) vs (2,1,4,3): d^2 sums to 4, rho = 1 - 6*4/(4*15) = 0.6.
        let mixed = [p(1.0, 20.0), p(2.0, 10.0), p(3.0, 40.0), p(4.0, 30.0)];
        assert!((rank_correlation(&mixed).unwrap() - 0.6).abs() < 1e-12);
        // Ties share a rank; a flat latency has no correlation to speak of.
        assert_eq!(
            rank_correlation(&[p(1.0, 5.0), p(2.0, 5.0), p(3.0, 5.0)]),
            None
        );
        assert_eq!(rank_correlation(&[p(1.0, 5.0), p(2.0, 6.0)]), None);
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
        let s = summarize(p(10.0, 100.0), &[p(20.0, 110.0), p(30.0, 130.0)]);
        assert!((s.rise_at_peak_fraction.unwrap() - 0.3).abs() < 1e-12);
        assert!((s.rank_correlation.unwrap() - 1.0).abs() < 1e-12);
        // An older summary without the trend gets it from its points; a newer one is kept.
        let pts = [p(10.0, 100.0), p(20.0, 110.0), p(30.0, 130.0)];
        let mut old = CurveSummary {
            rise_at_peak_fraction: None,
            rank_correlation: None,
            ..s
        };
        fill_trend(&mut old, &pts);
        assert_eq!(old, s);
        let mut kept = CurveSummary {
            rise_at_peak_fraction: Some(9.0),
            ..s
        };
        fill_trend(&mut kept, &pts);
        assert_eq!(kept.rise_at_peak_fraction, Some(9.0));
    }

    #[test]
    fn monotonicity_tolerates_noise_but_not_drops() {
        let rising = [p(1.0, 100.0), p(2.0, 99.0), p(3.0, 120.0), p(4.0, 200.0)];
        assert_eq!(monotonic_violations(&rising, 0.05), 0);
        let dropping = [p(1.0, 100.0), p(2.0, 150.0), p(3.0, 120.0)];
        assert_eq!(monotonic_violations(&dropping, 0.05), 1);
    }
}
