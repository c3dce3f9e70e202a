//! Pure statistics over raw samples: the median is the headline figure everywhere, always
//! reported with min, max, p90, p99, the sample count and, from six samples on, a
//! distribution-free 95 % interval for the median (docs/METHODOLOGY.md, "Summaries and intervals").
//! Comparisons between figures are decided here too: paired ratios of interleaved rounds and
//! unpaired ratios of two summaries, each against a practical margin ([`decide`]), and p-value
//! adjustment over many comparisons ([`multiple`]). Any other quantile (a distribution's p99) gets
//! the same kind of order-statistic interval from [`quantile`]. Nothing here measures or prints,
//! and nothing here depends on the rest of numascope.

use serde::{Deserialize, Serialize};

pub mod decide;
pub mod estimate;
pub mod interval;
pub mod multiple;
pub mod quantile;
#[cfg(test)]
pub(crate) mod sim;

pub use decide::{
    paired_ratio, unpaired_estimates, unpaired_ratio, Decision, RatioInterval, PRACTICAL_MARGIN,
};
pub use estimate::{Estimate, Interval};
pub use interval::{median_interval, MedianInterval, NoInterval, CONFIDENCE};
pub use quantile::{quantile_interval, QuantileInterval};

/// A summary of samples of one quantity; the unit is given by the field that holds it
/// (e.g. `ns_per_load`, `mb_per_s`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Headline figure: the median of the samples.
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// 90th percentile (nearest-rank on the sorted samples).
    pub p90: f64,
    /// 99th percentile (nearest-rank on the sorted samples).
    pub p99: f64,
    /// Number of samples kept (warm-up excluded).
    pub samples: usize,
    /// The distribution-free interval for the median (order statistics; keys `ci_low`,
    /// `ci_high`, `ci_level`, the exact coverage, at least 0.95: n = 9 gives 0.961); `None`
    /// with fewer than 6 samples, and in results files written before intervals existed.
    #[serde(flatten)]
    pub ci: Option<Interval>,
}

impl Summary {
    /// Summarizes samples; `None` when there are none or any is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let ci = median_interval(&s, CONFIDENCE).ok();
        Some(Summary {
            median: median_sorted(&s),
            min: s[0],
            max: s[s.len() - 1],
            p90: percentile_sorted(&s, 90.0),
            p99: percentile_sorted(&s, 99.0),
            samples: s.len(),
            ci: ci.map(Interval::from),
        })
    }

    /// A summary of one figure known without its samples (a fixture, a placeholder for a
    /// failed run): every statistic is `value`, no interval.
    pub const fn point(value: f64, samples: usize) -> Summary {
        Summary {
            median: value,
            min: value,
            max: value,
            p90: value,
            p99: value,
            samples,
            ci: None,
        }
    }

    /// The median with its interval and sample count.
    pub const fn estimate(&self) -> Estimate {
        Estimate::new(self.median, self.ci, self.samples)
    }

    /// Half-width of the interval relative to the median (0.03 = +-3 %), when there is one.
    pub fn relative_half_width(&self) -> Option<f64> {
        self.ci?.relative_half_width(self.median)
    }

    /// Relative spread (max - min) / median, a quick noise figure.
    pub fn spread(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.max - self.min) / self.median
        }
    }
}

/// Median of sorted samples (mean of the two middle ones for an even count).
pub fn median_sorted(s: &[f64]) -> f64 {
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Median of unsorted samples.
pub fn median(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    median_sorted(&s)
}

/// Nearest-rank percentile of sorted samples, `p` in 0..=100.
pub fn percentile_sorted(s: &[f64], p: f64) -> f64 {
    if s.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let v: Vec<f64> = (1..=100).map(|x| x as f64).collect();
        let s = Summary::of(&v).unwrap();
        assert_eq!(s.median, 50.5);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 100.0);
        assert_eq!(s.p90, 90.0);
        assert_eq!(s.p99, 99.0);
        assert_eq!(s.samples, 100);
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
        assert_eq!(Summary::of(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        // 100 samples at 95 %: ranks 40 and 61.
        assert_eq!(s.ci.map(|c| c.ends()), Some((40.0, 61.0)));
        assert!(s.ci.unwrap().level >= 0.95);
        assert_eq!(Summary::of(&[1.0, 2.0, 3.0]).unwrap().ci, None);
    }

    /// Results files written before intervals existed still load; summaries without an
    /// interval serialize exactly as before.
    #[test]
    fn old_json_loads_and_no_interval_serializes_as_before() {
        let old = r#"{"median":2.0,"min":1.0,"max":3.0,"p90":3.0,"p99":3.0,"samples":3}"#;
        let s: Summary = serde_json::from_str(old).unwrap();
        assert_eq!(s.ci, None);
        assert_eq!(serde_json::to_string(&s).unwrap(), old);
        let v: Vec<f64> = (1..=9).map(f64::from).collect();
        let j = serde_json::to_string(&Summary::of(&v).unwrap()).unwrap();
        assert!(j.contains(r#""ci_low":2.0,"ci_high":8.0"#), "{j}");
        let back: Summary = serde_json::from_str(&j).unwrap();
        assert_eq!(back, Summary::of(&v).unwrap());
    }
}
