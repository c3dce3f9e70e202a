//! One figure's estimate: the median, its confidence interval (or none) and the count it
//! was read from. Every result type holds its interval as one [`Interval`] (flattened into
//! the `ci_low`, `ci_high`, `ci_level` keys, so results files keep their shape), and every
//! view formats an [`Estimate`] through render's one formatter.

use serde::{Deserialize, Serialize};

use super::interval::{MedianInterval, CONFIDENCE};

/// A confidence interval for a figure: low and high ends and the coverage, 0..=1.
/// Serialized as `ci_low`, `ci_high`, `ci_level`; a file written before levels were recorded
/// reads as the level every figure is computed at ([`CONFIDENCE`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    #[serde(rename = "ci_low")]
    pub low: f64,
    #[serde(rename = "ci_high")]
    pub high: f64,
    #[serde(rename = "ci_level", default = "default_level")]
    pub level: f64,
}

fn default_level() -> f64 {
    CONFIDENCE
}

impl Interval {
    /// An interval at the house level ([`CONFIDENCE`]).
    pub const fn new(low: f64, high: f64) -> Interval {
        Interval {
            low,
            high,
            level: CONFIDENCE,
        }
    }

    /// From loose optional ends (an engine's pair); `None` unless both are there.
    pub fn from_ends(low: Option<f64>, high: Option<f64>, level: Option<f64>) -> Option<Interval> {
        Some(Interval {
            low: low?,
            high: high?,
            level: level.unwrap_or(CONFIDENCE),
        })
    }

    /// The ends as a pair.
    pub const fn ends(&self) -> (f64, f64) {
        (self.low, self.high)
    }

    /// Half the width relative to `centre` (0.03 = +-3 %); `None` for a zero centre.
    pub fn relative_half_width(&self, centre: f64) -> Option<f64> {
        (centre != 0.0).then(|| (self.high - self.low) / 2.0 / centre.abs())
    }

    /// True when the two intervals share a point.
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.low <= other.high && other.low <= self.high
    }
}

impl From<MedianInterval> for Interval {
    fn from(m: MedianInterval) -> Interval {
        Interval {
            low: m.low,
            high: m.high,
            level: m.level,
        }
    }
}

/// A figure as every view shows it: the median, its interval when there is one, and the
/// number of samples (repetitions, blocks, rounds) behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub median: f64,
    pub interval: Option<Interval>,
    pub count: usize,
}

impl Estimate {
    pub const fn new(median: f64, interval: Option<Interval>, count: usize) -> Estimate {
        Estimate {
            median,
            interval,
            count,
        }
    }

    /// The interval's coverage, when there is an interval.
    pub fn level(&self) -> Option<f64> {
        self.interval.map(|i| i.level)
    }

    /// Half-width of the interval relative to the median, when there is one.
    pub fn relative_half_width(&self) -> Option<f64> {
        self.interval?.relative_half_width(self.median)
    }

    /// The same estimate with every number multiplied by `k` (a unit change).
    pub fn scaled(&self, k: f64) -> Estimate {
        Estimate {
            median: self.median * k,
            interval: self.interval.map(|i| Interval {
                low: i.low * k,
                high: i.high * k,
                level: i.level,
            }),
            count: self.count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Holder {
        median: f64,
        #[serde(flatten)]
        ci: Option<Interval>,
        samples: usize,
    }

    #[test]
    fn flattened_interval_keeps_the_old_keys() {
        let h = Holder {
            median: 2.0,
            ci: Some(Interval {
                low: 1.0,
                high: 3.0,
                level: 0.961,
            }),
            samples: 9,
        };
        let j = serde_json::to_string(&h).unwrap();
        assert_eq!(
            j,
            r#"{"median":2.0,"ci_low":1.0,"ci_high":3.0,"ci_level":0.961,"samples":9}"#
        );
        assert_eq!(serde_json::from_str::<Holder>(&j).unwrap(), h);
    }

    #[test]
    fn absent_interval_reads_as_none_and_writes_nothing() {
        let h: Holder = serde_json::from_str(r#"{"median":2.0,"samples":3}"#).unwrap();
        assert_eq!(h.ci, None);
        assert_eq!(
            serde_json::to_string(&h).unwrap(),
            r#"{"median":2.0,"samples":3}"#
        );
    }

    #[test]
    fn a_pair_without_level_reads_at_the_house_level() {
        let h: Holder =
            serde_json::from_str(r#"{"median":2.0,"ci_low":1.0,"ci_high":3.0,"samples":9}"#)
                .unwrap();
        assert_eq!(h.ci.unwrap().level, CONFIDENCE);
    }

    #[test]
    fn relative_width_and_scaling() {
        let e = Estimate::new(100.0, Some(Interval::new(90.0, 110.0)), 9);
        assert!((e.relative_half_width().unwrap() - 0.1).abs() < 1e-12);
        let s = e.scaled(0.001);
        assert!((s.interval.unwrap().high - 0.11).abs() < 1e-12);
        assert_eq!(
            Estimate::new(0.0, Some(Interval::new(0.0, 1.0)), 9).relative_half_width(),
            None
        );
    }
}
