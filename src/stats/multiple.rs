//! p-values for single comparisons and their adjustment over a family of comparisons
//! (docs/METHODOLOGY.md, "Deciding"): comparing dozens of figures of two runs, some will look
//! different by chance, so each comparison's p-value is adjusted for the whole family (Holm keeps
//! the chance of any false difference at the level; Benjamini-Hochberg keeps the expected share of
//! false differences among those declared). Nothing here measures or prints.

use super::interval::binomial_half_cdf;

/// Two-sided sign test: `above` ratios above 1 and `below` under it (ties dropped).
pub fn sign_test_p(above: usize, below: usize) -> f64 {
    let n = above + below;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_half_cdf(n, above.min(below))).min(1.0)
}

/// Complementary error function (Abramowitz and Stegun 7.1.26 with the symmetric extension;
/// absolute error below 1.5e-7, plenty for p-values).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let r = poly * (-z * z).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Two-sided p-value of a standard normal statistic.
pub fn normal_two_sided_p(z: f64) -> f64 {
    if !z.is_finite() {
        return if z.is_nan() { 1.0 } else { 0.0 };
    }
    erfc(z.abs() / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// Holm's step-down adjustment: adjusted p-values in the input order; a comparison is
/// declared at level alpha when its adjusted p-value is <= alpha.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in idx.iter().enumerate() {
        let adj = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

/// Benjamini-Hochberg step-up adjustment: adjusted p-values (q-values) in the input order.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![1.0; m];
    let mut running: f64 = 1.0;
    for (rank, &i) in idx.iter().enumerate().rev() {
        // Never below the raw p-value (m p / m can round under p).
        let adj = (m as f64 * p[i] / (rank + 1) as f64).max(p[i]).min(1.0);
        running = running.min(adj);
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sim::Rng;
    use proptest::prelude::*;

    #[test]
    fn known_values() {
        // 9 of 9 above: 2 / 512.
        assert!((sign_test_p(9, 0) - 2.0 / 512.0).abs() < 1e-15);
        assert_eq!(sign_test_p(4, 4), 1.0);
        assert_eq!(sign_test_p(0, 0), 1.0);
        assert!((normal_two_sided_p(1.959964) - 0.05).abs() < 1e-6);
        assert!((normal_two_sided_p(0.0) - 1.0).abs() < 1e-6);
        assert_eq!(holm(&[0.01, 0.04, 0.03, 0.2]), vec![0.04, 0.09, 0.09, 0.2]);
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.2]);
        let want = [0.04, 0.04 * 4.0 / 3.0, 0.04 * 4.0 / 3.0, 0.2];
        for (a, b) in q.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
    }

    /// On a family of 20 true nulls, Holm declares anything in at most about 5 % of families;
    /// unadjusted, most families would show a "difference".
    #[test]
    fn holm_keeps_the_family_wise_rate_on_nulls() {
        let mut rng = Rng::new(7);
        let families = 2000;
        let (mut any_holm, mut any_raw) = (0, 0);
        for _ in 0..families {
            let p: Vec<f64> = (0..20).map(|_| rng.uniform()).collect();
            any_holm += holm(&p).iter().any(|&x| x <= 0.05) as usize;
            any_raw += p.iter().any(|&x| x <= 0.05) as usize;
            let q = benjamini_hochberg(&p);
            // All nulls: BH's false discovery rate equals its family-wise rate here.
            assert!(q.iter().zip(&p).all(|(q, p)| q >= p));
        }
        let rate = any_holm as f64 / families as f64;
        assert!(rate < 0.05 + 0.015, "Holm family-wise rate {rate}");
        assert!(any_raw as f64 / families as f64 > 0.5);
    }

    proptest! {
        #[test]
        fn adjusted_p_values_are_valid(p in proptest::collection::vec(0.0f64..=1.0, 0..30)) {
            let h = holm(&p);
            let q = benjamini_hochberg(&p);
            for i in 0..p.len() {
                prop_assert!(h[i] >= p[i] && h[i] <= 1.0);
                prop_assert!(q[i] >= p[i] && q[i] <= h[i] + 1e-12);
                for j in 0..p.len() {
                    if p[i] <= p[j] {
                        prop_assert!(h[i] <= h[j] && q[i] <= q[j] + 1e-12);
                    }
                }
            }
        }
    }
}
