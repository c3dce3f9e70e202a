//! Deciding whether two configurations differ (docs/METHODOLOGY.md, "Interleaving and blocks",
//! "Deciding"). The preferred form is paired: A and B measured in alternating rounds (A B A B ...),
//! so whatever drifted on the host hit both alike, and the ratios b_i / a_i of each round are
//! summarised by their median with the order-statistic interval of [`super::interval`]. B is called
//! higher (or lower) than A only when that whole interval lies beyond 1 +- a practical margin;
//! otherwise the two are indistinguishable here, "within +-x %", x read from the interval. When
//! only two independent summaries exist (two saved runs), [`unpaired_ratio`] bounds the ratio of
//! their medians by the ends of both intervals, which is conservative. Nothing here measures or
//! prints.

use super::interval::{median_interval, median_ranks, NoInterval, CONFIDENCE};
use super::multiple::{normal_two_sided_p, sign_test_p};
use super::{median, Estimate, Summary};

/// The practical margin used across numascope: differences below 3 % are not worth a
/// recommendation even when they are real.
pub const PRACTICAL_MARGIN: f64 = 0.03;

/// The ratio B / A with its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatioInterval {
    /// Median of the paired ratios (paired) or ratio of medians (unpaired).
    pub ratio: f64,
    /// The interval and its coverage (exact for paired; a lower bound for unpaired); `None`
    /// when too few samples for one.
    pub ci: Option<super::Interval>,
    /// Pairs (paired) or the smaller sample count (unpaired).
    pub samples: usize,
    /// Two-sided p-value against "no difference" (sign test when paired, a normal
    /// approximation from the intervals when unpaired); `None` without an interval.
    pub p_value: Option<f64>,
}

/// What the interval says about B against A.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// The ratio's interval lies above 1 + margin: B is higher.
    Higher,
    /// The ratio's interval lies below 1 / (1 + margin): B is lower.
    Lower,
    /// The interval reaches into 1 +- margin; `within` is the largest distance of its ends
    /// from 1, as a fraction ("within +-x %").
    Indistinguishable { within: f64 },
    /// Too few samples for an interval: nothing can be decided.
    NoInterval { samples: usize },
}

impl Decision {
    /// True when a difference was declared.
    pub fn differs(self) -> bool {
        matches!(self, Decision::Higher | Decision::Lower)
    }

    /// "within +-4 %", "higher", "lower", "no interval (3 samples)".
    pub fn phrase(self) -> String {
        match self {
            Decision::Higher => "higher".into(),
            Decision::Lower => "lower".into(),
            Decision::Indistinguishable { within } => format!("within +-{}", percent(within)),
            Decision::NoInterval { samples } => format!(
                "no interval ({samples} sample{})",
                if samples == 1 { "" } else { "s" }
            ),
        }
    }
}

/// A fraction as a percentage with a sensible number of digits: "0.4 %", "4 %".
pub fn percent(f: f64) -> String {
    let p = f * 100.0;
    if p < 1.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

impl RatioInterval {
    /// The decision with practical margin `margin` (a fraction, e.g. 0.03).
    pub fn decide(&self, margin: f64) -> Decision {
        match self.ci.map(|c| c.ends()) {
            Some((lo, hi)) => {
                let up = 1.0 + margin.max(0.0);
                if lo > up {
                    Decision::Higher
                } else if hi < 1.0 / up {
                    Decision::Lower
                } else {
                    Decision::Indistinguishable {
                        within: (hi - 1.0).max(1.0 - lo).max(0.0),
                    }
                }
            }
            None => Decision::NoInterval {
                samples: self.samples,
            },
        }
    }
}

/// The paired ratio of rounds: `b[i] / a[i]` for each round i (the shorter length counts;
/// pairs with a non-positive or non-finite member are dropped). `None` when no pair is left.
pub fn paired_ratio(a: &[f64], b: &[f64], level: f64) -> Option<RatioInterval> {
    let ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
        .map(|(x, y)| y / x)
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let iv = median_interval(&ratios, level).ok();
    let above = ratios.iter().filter(|r| **r > 1.0).count();
    let below = ratios.iter().filter(|r| **r < 1.0).count();
    Some(RatioInterval {
        ratio: median(&ratios),
        ci: iv.map(super::Interval::from),
        samples: ratios.len(),
        p_value: iv.map(|_| sign_test_p(above, below)),
    })
}

/// The ratio of two independent summaries' medians, B / A, with the conservative interval
/// [B.low / A.high, B.high / A.low] (both intervals hold with probability at least the product
/// of their levels, and then so does this one). Without an interval on either side the ratio
/// stands alone (`low`/`high` `None`). The p-value treats each interval as +-1.96 standard
/// errors of the log median (a normal approximation), for multiple-comparison control.
pub fn unpaired_ratio(a: &Summary, b: &Summary) -> Option<RatioInterval> {
    unpaired_estimates(&a.estimate(), &b.estimate())
}

/// [`unpaired_ratio`] of two estimates (all it reads of a summary: the median, the interval
/// and the count), for figures kept without their other statistics (`compare`'s metrics).
pub fn unpaired_estimates(a: &Estimate, b: &Estimate) -> Option<RatioInterval> {
    if !(a.median > 0.0 && b.median > 0.0 && a.median.is_finite() && b.median.is_finite()) {
        return None;
    }
    let ratio = b.median / a.median;
    let samples = a.count.min(b.count);
    let alone = RatioInterval {
        ratio,
        ci: None,
        samples,
        p_value: None,
    };
    let (Some((al, ah, alv)), Some((bl, bh, blv))) = (
        a.interval.map(|c| (c.low, c.high, c.level)),
        b.interval.map(|c| (c.low, c.high, c.level)),
    ) else {
        return Some(alone);
    };
    if !(al > 0.0 && bl > 0.0) {
        return Some(alone);
    }
    // Half-width in log space over 1.96 is a standard error of the log median.
    let se = |lo: f64, hi: f64| ((hi / lo).ln() / 2.0 / 1.959964).max(1e-12);
    let z = ratio.ln() / (se(al, ah).powi(2) + se(bl, bh).powi(2)).sqrt();
    Some(RatioInterval {
        ratio,
        ci: Some(super::Interval {
            low: bl / ah,
            high: bh / al,
            level: alv * blv,
        }),
        samples,
        p_value: Some(normal_two_sided_p(z)),
    })
}

/// Why a paired comparison has no interval, in words, for `n` pairs.
pub fn no_interval_reason(n: usize, level: f64) -> Option<String> {
    median_ranks(n, level).is_none().then(|| {
        NoInterval::TooFew {
            samples: n,
            needed: super::interval::min_samples(level),
        }
        .to_string()
    })
}

/// Which of the measured options are not beaten by any other (a paired ratio beyond the
/// margin; higher is better, the rounds paired by index), and the widest "within" of the undecided pairs among them.
pub fn unbeaten(rounds: &[&[f64]], margin: f64) -> (Vec<usize>, Option<f64>, bool) {
    let n = rounds.len();
    let decide = |i: usize, j: usize| {
        paired_ratio(rounds[i], rounds[j], CONFIDENCE)
            .map_or(Decision::NoInterval { samples: 0 }, |r| r.decide(margin))
    };
    let top: Vec<usize> = (0..n)
        .filter(|&i| (0..n).all(|j| j == i || decide(i, j) != Decision::Higher))
        .collect();
    let mut within: Option<f64> = None;
    let mut no_interval = false;
    for (a, &i) in top.iter().enumerate() {
        for &j in &top[a + 1..] {
            match decide(i, j) {
                Decision::Indistinguishable { within: w } => {
                    within = Some(within.map_or(w, |x: f64| x.max(w)))
                }
                Decision::NoInterval { .. } => no_interval = true,
                _ => {}
            }
        }
    }
    (top, within, no_interval)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::CONFIDENCE;
    use crate::stats::sim::Rng;

    #[test]
    fn clear_difference_and_noise() {
        let a = [100.0, 101.0, 99.0, 100.5, 100.2, 99.8, 100.1, 99.9, 100.3];
        let b: Vec<f64> = a.iter().map(|x| x * 1.5).collect();
        let r = paired_ratio(&a, &b, CONFIDENCE).unwrap();
        assert!((r.ratio - 1.5).abs() < 1e-12);
        assert_eq!(r.decide(PRACTICAL_MARGIN), Decision::Higher);
        assert_eq!(
            paired_ratio(&b, &a, CONFIDENCE)
                .unwrap()
                .decide(PRACTICAL_MARGIN),
            Decision::Lower
        );
        // +-2 % alternating: indistinguishable within about 2 %.
        let c: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(i, x)| x * if i % 2 == 0 { 1.02 } else { 0.98 })
            .collect();
        match paired_ratio(&a, &c, CONFIDENCE)
            .unwrap()
            .decide(PRACTICAL_MARGIN)
        {
            Decision::Indistinguishable { within } => {
                assert!((within - 0.02).abs() < 1e-9, "{within}")
            }
            d => panic!("{d:?}"),
        }
        // A real 2 % difference is below the practical margin.
        let d: Vec<f64> = a.iter().map(|x| x * 1.02).collect();
        assert!(!paired_ratio(&a, &d, CONFIDENCE)
            .unwrap()
            .decide(PRACTICAL_MARGIN)
            .differs());
        // Too few rounds: no decision.
        assert_eq!(
            paired_ratio(&a[..4], &b[..4], CONFIDENCE)
                .unwrap()
                .decide(0.03),
            Decision::NoInterval { samples: 4 }
        );
        assert!(paired_ratio(&[0.0], &[1.0], CONFIDENCE).is_none());
        assert_eq!(
            Decision::Indistinguishable { within: 0.043 }.phrase(),
            "within +-4 %"
        );
    }

    #[test]
    fn unpaired_uses_both_intervals() {
        let s = |v: &[f64]| Summary::of(v).unwrap();
        let a = s(&[100.0, 101.0, 99.0, 100.5, 100.2, 99.8, 100.1, 99.9, 100.3]);
        let b = s(&[50.0, 50.5, 49.5, 50.2, 50.1, 49.9, 50.0, 50.3, 49.8]);
        let r = unpaired_ratio(&a, &b).unwrap();
        assert_eq!(r.decide(PRACTICAL_MARGIN), Decision::Lower);
        assert!(r.p_value.unwrap() < 1e-6);
        let ci = r.ci.unwrap();
        assert!(ci.low <= r.ratio && r.ratio <= ci.high);
        let same = unpaired_ratio(&a, &a).unwrap();
        assert!(!same.decide(PRACTICAL_MARGIN).differs());
        assert!((same.p_value.unwrap() - 1.0).abs() < 1e-9);
        // Older summaries without an interval: a ratio, no decision.
        let mut old = a;
        old.ci = None;
        let r = unpaired_ratio(&old, &b).unwrap();
        assert!(matches!(
            r.decide(PRACTICAL_MARGIN),
            Decision::NoInterval { .. }
        ));
    }

    /// Two samples of one distribution, measured in alternation: the rule declares a
    /// difference at most at about its stated rate (less, thanks to the margin).
    #[test]
    fn aa_pairs_rarely_differ() {
        let mut rng = Rng::new(42);
        let trials = 3000;
        let (mut with_margin, mut without) = (0, 0);
        for _ in 0..trials {
            // 9 rounds, 4 % noise per sample, a drift shared by both in each round.
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..9 {
                let drift = 1.0 + 0.1 * rng.normal();
                a.push(1000.0 * drift * (1.0 + 0.04 * rng.normal()));
                b.push(1000.0 * drift * (1.0 + 0.04 * rng.normal()));
            }
            let r = paired_ratio(&a, &b, CONFIDENCE).unwrap();
            with_margin += r.decide(PRACTICAL_MARGIN).differs() as usize;
            without += r.decide(0.0).differs() as usize;
        }
        let (wm, wo) = (
            with_margin as f64 / trials as f64,
            without as f64 / trials as f64,
        );
        // Exact error rate without a margin is 1 - 0.961 = 3.9 %.
        assert!(wo < 0.039 + 0.012, "no margin: {wo}");
        assert!(wm <= wo && wm < 0.03, "margin: {wm}");
    }
}
