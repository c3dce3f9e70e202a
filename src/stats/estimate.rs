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

    /// True when the interval reaches `value` give or take the relative `margin` (its low end
    /// at most `value * (1 + margin)`, its high end at least `value / (1 + margin)`): a figure
    /// whose interval reaches the fleet's median is not an outlier, whatever the spread says.
    pub fn reaches(&self, value: f64, margin: f64) -> bool {
        self.low <= value * (1.0 + margin) && self.high >= value / (1.0 + margin)
    }

    /// True when the two intervals share a point.
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.low <= other.high && other.low <= self.high
    }
}

/// The same interval under the keys `ratio_ci_low`, `ratio_ci_high`, `ratio_ci_level`, for a
/// ratio that sits beside another figure's interval in one object (a recommendation's paired
/// ratio, a comparison cell's ratio to the first run). Use as
/// `#[serde(flatten, with = "crate::stats::estimate::ratio_keys")]` on an `Option<Interval>`:
/// nothing is written without an interval, and a pair without a level reads at [`CONFIDENCE`].
pub mod ratio_keys {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Interval;

    #[derive(Serialize, Deserialize)]
    struct Keys {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratio_ci_low: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratio_ci_high: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratio_ci_level: Option<f64>,
    }

    pub fn serialize<S: Serializer>(ci: &Option<Interval>, s: S) -> Result<S::Ok, S::Error> {
        Keys {
            ratio_ci_low: ci.map(|c| c.low),
            ratio_ci_high: ci.map(|c| c.high),
            ratio_ci_level: ci.map(|c| c.level),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Interval>, D::Error> {
        let k = Keys::deserialize(d)?;
        Ok(Interval::from_ends(
            k.ratio_ci_low,
            k.ratio_ci_high,
            k.ratio_ci_level,
        ))
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

    /// The same estimate with `d` added to every number (a ratio as a gain: `shifted(-1.0)`
    /// turns 1.49 [1.44, 1.53] into 0.49 [0.44, 0.53]).
    pub fn shifted(&self, d: f64) -> Estimate {
        Estimate {
            median: self.median + d,
            interval: self.interval.map(|i| Interval {
                low: i.low + d,
                high: i.high + d,
                level: i.level,
            }),
            count: self.count,
        }
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

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Ratio {
        ratio: f64,
        #[serde(flatten, with = "ratio_keys")]
        ratio_ci: Option<Interval>,
        #[serde(flatten)]
        ci: Option<Interval>,
    }

    #[test]
    fn a_ratio_interval_keeps_its_prefixed_keys_beside_another_interval() {
        let r = Ratio {
            ratio: 1.1,
            ratio_ci: Some(Interval::new(1.05, 1.2)),
            ci: Some(Interval::new(90.0, 110.0)),
        };
        let j = serde_json::to_string(&r).unwrap();
        assert_eq!(
            j,
            r#"{"ratio":1.1,"ratio_ci_low":1.05,"ratio_ci_high":1.2,"ratio_ci_level":0.95,"ci_low":90.0,"ci_high":110.0,"ci_level":0.95}"#
        );
        assert_eq!(serde_json::from_str::<Ratio>(&j).unwrap(), r);
        let bare: Ratio = serde_json::from_str(r#"{"ratio":1.1}"#).unwrap();
        assert_eq!((bare.ratio_ci, bare.ci), (None, None));
        assert_eq!(serde_json::to_string(&bare).unwrap(), r#"{"ratio":1.1}"#);
        let old: Ratio =
            serde_json::from_str(r#"{"ratio":1.1,"ratio_ci_low":1.0,"ratio_ci_high":1.3}"#)
                .unwrap();
        assert_eq!(old.ratio_ci, Some(Interval::new(1.0, 1.3)));
        assert_eq!(old.ci, None);
    }

    #[test]
    fn an_interval_reaches_a_value_within_the_margin() {
        let i = Interval::new(100.0, 110.0);
        assert!(i.reaches(105.0, 0.0) && i.reaches(112.0, 0.03));
        assert!(!i.reaches(120.0, 0.03) && !i.reaches(90.0, 0.03));
    }

    #[test]
    fn relative_width_and_scaling() {
        let e = Estimate::new(100.0, Some(Interval::new(90.0, 110.0)), 9);
        assert!((e.relative_half_width().unwrap() - 0.1).abs() < 1e-12);
        let g = Estimate::new(1.49, Some(Interval::new(1.44, 1.53)), 9).shifted(-1.0);
        assert!((g.median - 0.49).abs() < 1e-12 && (g.interval.unwrap().low - 0.44).abs() < 1e-12);
        let s = e.scaled(0.001);
        assert!((s.interval.unwrap().high - 0.11).abs() < 1e-12);
        assert_eq!(
            Estimate::new(0.0, Some(Interval::new(0.0, 1.0)), 9).relative_half_width(),
            None
        );
    }
}
