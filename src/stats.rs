//! Pure statistics over raw samples: the median is the headline figure everywhere, always
//! reported with min, max, p90, p99 and the sample count (METHODOLOGY point 19). Nothing here
//! measures or prints.

use serde::{Deserialize, Serialize};

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
}

impl Summary {
    /// Summarizes samples; `None` when there are none or any is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        Some(Summary {
            median: median_sorted(&s),
            min: s[0],
            max: s[s.len() - 1],
            p90: percentile_sorted(&s, 90.0),
            p99: percentile_sorted(&s, 99.0),
            samples: s.len(),
        })
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
    }
}
