//! A distribution-free confidence interval for any quantile (p1, p90, p99.9, ...) from order
//! statistics, the same family as the median's interval in [`super::interval`]
//! (docs/METHODOLOGY.md, "Summaries and intervals"). Of n independent samples of a continuous
//! quantity, the count B below the true p-quantile is Binomial(n, p); so the j-th and k-th smallest
//! samples (j < k) bracket that quantile with probability P(j <= B < k), whatever the distribution.
//! The pair chosen is the narrowest in ranks: starting from the binomial's mode, the more probable
//! neighbour is added until the mass reaches the level, so the ranks sit around n x p (not
//! symmetric when p is far from 1/2). The exact coverage is reported with the interval. When even
//! the smallest and largest samples fall short (p99.9 needs about 3000 samples at 95 %), the
//! answer says so instead of inventing an interval. Nothing here measures or prints.

use super::interval::NoInterval;

/// An interval for one quantile, with the ranks it was read from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantileInterval {
    /// The quantile, 0 < p < 1 (0.99 for p99).
    pub p: f64,
    pub low: f64,
    pub high: f64,
    /// Exact coverage for continuous data, 0..=1 (at least the level asked).
    pub level: f64,
    /// 1-based ranks of `low` and `high` in the sorted samples.
    pub low_rank: usize,
    pub high_rank: usize,
    pub samples: usize,
}

/// True when `x` lies strictly between 0 and 1 (a quantile or a level); false for NaN.
fn inside_unit(x: f64) -> bool {
    x > 0.0 && x < 1.0
}

/// ln P(B = k) for B ~ Binomial(n, p), k = 0..=n, by the ratio of successive terms in log
/// space (no underflow at n = 10^5 or p near 0 or 1).
fn log_pmf(n: usize, p: f64) -> Vec<f64> {
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let mut v = Vec::with_capacity(n + 1);
    let mut l = n as f64 * lq;
    v.push(l);
    for k in 1..=n {
        l += ((n - k + 1) as f64 / k as f64).ln() + lp - lq;
        v.push(l);
    }
    v
}

/// The 1-based ranks (j, k) and exact coverage of the narrowest pair [x(j), x(k)] of n
/// samples that covers the p-quantile with at least `level`; `None` when even [x(1), x(n)]
/// falls short, or p or the level is not strictly between 0 and 1.
pub fn quantile_ranks(n: usize, p: f64, level: f64) -> Option<(usize, usize, f64)> {
    if n < 2 || !inside_unit(p) || !inside_unit(level) {
        return None;
    }
    let lp = log_pmf(n, p);
    // Scale by the largest term so the masses near the mode are near 1, then normalise.
    let top = lp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pmf: Vec<f64> = lp.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = pmf.iter().sum();
    // B may range over 1..=n-1 only: [x(j), x(k)] covers when j <= B <= k - 1, 1 <= j < k <= n.
    let mode = (((n + 1) as f64 * p).floor() as usize).clamp(1, n - 1);
    let (mut a, mut b) = (mode, mode);
    let mut mass = pmf[mode];
    while mass / total < level - 1e-12 {
        let left = (a > 1).then(|| pmf[a - 1]);
        let right = (b + 1 < n).then(|| pmf[b + 1]);
        match (left, right) {
            (Some(l), Some(r)) if l >= r => {
                a -= 1;
                mass += l;
            }
            (_, Some(r)) => {
                b += 1;
                mass += r;
            }
            (Some(l), None) => {
                a -= 1;
                mass += l;
            }
            (None, None) => return None,
        }
    }
    Some((a, b + 1, (mass / total).min(1.0)))
}

/// Fewest samples for which some pair covers the p-quantile at `level` (at 95 %: 6 for the
/// median, about 300 for p99 and 3000 for p99.9); `None` above a million or for a bad p.
pub fn quantile_min_samples(p: f64, level: f64) -> Option<usize> {
    // Coverage of [x(1), x(n)] is 1 - p^n - (1-p)^n: solve for the smaller tail.
    if !inside_unit(p) || !inside_unit(level) {
        return None;
    }
    let tail = p.max(1.0 - p);
    let guess = ((1.0 - level).ln() / tail.ln()).floor().max(2.0) as usize;
    (guess.saturating_sub(2).max(2)..=1_000_000)
        .find(|&n| 1.0 - p.powi(n as i32) - (1.0 - p).powi(n as i32) >= level - 1e-12)
}

/// The order-statistic interval for the `p`-quantile (0 < p < 1) of `samples` at `level`.
pub fn quantile_interval(
    samples: &[f64],
    p: f64,
    level: f64,
) -> Result<QuantileInterval, NoInterval> {
    if !inside_unit(level) || !inside_unit(p) {
        return Err(NoInterval::BadLevel);
    }
    if samples.iter().any(|v| !v.is_finite()) {
        return Err(NoInterval::NotFinite);
    }
    let n = samples.len();
    let (j, k, cover) = quantile_ranks(n, p, level).ok_or(NoInterval::TooFew {
        samples: n,
        needed: quantile_min_samples(p, level).unwrap_or(usize::MAX),
    })?;
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    Ok(QuantileInterval {
        p,
        low: s[j - 1],
        high: s[k - 1],
        level: cover,
        low_rank: j,
        high_rank: k,
        samples: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::median_ranks;
    use crate::stats::sim::{coverage, Rng, Sampler};
    use crate::stats::CONFIDENCE;
    use proptest::prelude::*;

    #[test]
    fn known_ranks_and_the_median_agree_with_the_median_interval() {
        // The median: the same coverage as the symmetric median interval, or narrower.
        for n in [6usize, 9, 20, 101, 1000] {
            let (j, k, c) = quantile_ranks(n, 0.5, CONFIDENCE).unwrap();
            let (r, cm) = median_ranks(n, CONFIDENCE).unwrap();
            assert!(c >= CONFIDENCE && cm >= CONFIDENCE);
            assert!(k - j <= n + 1 - 2 * r, "n {n}: {j}..{k} wider than {r}..");
        }
        // n = 6, median: only the extremes reach 95 % (1 - 2/64).
        assert_eq!(
            quantile_ranks(6, 0.5, CONFIDENCE).map(|x| (x.0, x.1)),
            Some((1, 6))
        );
        assert_eq!(quantile_ranks(5, 0.5, CONFIDENCE), None);
        // p99.9 needs about 3000 samples; p99 about 300.
        assert_eq!(quantile_min_samples(0.5, CONFIDENCE), Some(6));
        let n999 = quantile_min_samples(0.999, CONFIDENCE).unwrap();
        assert!((2990..=3000).contains(&n999), "{n999}");
        assert!(quantile_ranks(n999, 0.999, CONFIDENCE).is_some());
        assert!(quantile_ranks(n999 - 1, 0.999, CONFIDENCE).is_none());
        // 50 000 groups, p99: ranks around 49 500, a few tens either side.
        let (j, k, c) = quantile_ranks(50_000, 0.99, CONFIDENCE).unwrap();
        assert!(j < 49_500 && 49_500 < k && k - j < 100, "{j}..{k}");
        assert!((0.95..0.96).contains(&c), "{c}");
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        let i = quantile_interval(&v, 0.9, CONFIDENCE).unwrap();
        assert!(i.low < 900.0 && 900.0 < i.high && i.samples == 1000);
        assert!(matches!(
            quantile_interval(&v[..10], 0.999, CONFIDENCE),
            Err(NoInterval::TooFew { samples: 10, .. })
        ));
        assert_eq!(
            quantile_interval(&v, 1.0, CONFIDENCE),
            Err(NoInterval::BadLevel)
        );
        assert_eq!(
            quantile_interval(&[1.0, f64::NAN], 0.5, CONFIDENCE),
            Err(NoInterval::NotFinite)
        );
    }

    /// Coverage on simulated samples: the interval holds the true quantile at about the
    /// exact rate it reports, for normal and skewed (lognormal, exponential) data, at low,
    /// middle and tail quantiles.
    #[test]
    fn coverage_is_nominal_on_simulated_distributions() {
        let mut rng = Rng::new(0x0de5_7a11);
        let trials = 2000;
        // Standard normal quantiles.
        let z = |p: f64| match p {
            0.1 => -1.281_551_565_545,
            0.5 => 0.0,
            0.9 => 1.281_551_565_545,
            0.99 => 2.326_347_874_041,
            _ => unreachable!(),
        };
        for (n, p) in [(30usize, 0.1), (40, 0.5), (60, 0.9), (400, 0.99)] {
            let (_, _, exact) = quantile_ranks(n, p, CONFIDENCE).unwrap();
            let cases: [(&str, Sampler, f64); 3] = [
                ("normal", |r| 100.0 + 5.0 * r.normal(), 100.0 + 5.0 * z(p)),
                (
                    "lognormal",
                    |r| (0.5 * r.normal()).exp(),
                    (0.5 * z(p)).exp(),
                ),
                ("exponential", |r| -r.uniform().ln(), -(1.0 - p).ln()),
            ];
            for (name, draw, truth) in cases {
                let rate = coverage(&mut rng, trials, n, draw, truth, |v| {
                    let i = quantile_interval(v, p, CONFIDENCE).unwrap();
                    (i.low, i.high)
                });
                // 2000 trials: a binomial standard error of ~0.5 %; allow 4 of them.
                assert!(
                    (rate - exact).abs() < 0.02,
                    "{name}, n = {n}, p = {p}: coverage {rate} against {exact}"
                );
            }
        }
    }

    proptest! {
        /// The interval always holds the nearest-rank percentile of the samples themselves
        /// and its coverage is at least the level.
        #[test]
        fn interval_brackets_the_sample_percentile(
            v in proptest::collection::vec(-1e6f64..1e6, 2..300),
            p in 0.01f64..0.99,
        ) {
            if let Ok(i) = quantile_interval(&v, p, CONFIDENCE) {
                let mut s = v.clone();
                s.sort_by(f64::total_cmp);
                let q = crate::stats::percentile_sorted(&s, p * 100.0);
                prop_assert!(i.low <= q && q <= i.high, "{:?} vs {}", i, q);
                prop_assert!(i.level >= CONFIDENCE - 1e-9 && i.level <= 1.0);
                prop_assert!(i.low_rank < i.high_rank && i.high_rank <= v.len());
            } else {
                prop_assert!(quantile_ranks(v.len(), p, CONFIDENCE).is_none());
            }
        }
    }
}
