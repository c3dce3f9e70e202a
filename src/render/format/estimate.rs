//! The one formatter of an [`Estimate`]: every view that prints a figure with its interval
//! goes through here, so a figure reads the same in the terminal, summary.txt, the HTML and
//! the comparison.
//!
//! - [`compact`]: `247 ns ±17 %` (half the interval's width against the median), for the
//!   one-screen summary where the figure matters more than its ends;
//! - [`bracketed`]: `247 [218, 300] n=9`, where the width matters (detail tables);
//! - [`cell`]: `247 [218, 300]`, a table cell whose row gives the count elsewhere;
//! - [`gain`]: `+12 % [+8, +16 %]`, a relative difference (a winner over its runner-up),
//!   its numbers as [`signed`] writes a fraction;
//! - without an interval: `247 ns (n=2)` in compact form (the count says why), and
//!   `247, no interval (n=2)` in the long forms.

use crate::stats::interval::min_samples;
use crate::stats::{Estimate, CONFIDENCE};

/// A measured number for people: 3 significant figures below 100, integers above.
pub fn num(v: f64) -> String {
    crate::render::svg::value_label(v)
}

/// Why a figure has no interval: "no interval" below six samples (too few for one), "no
/// interval recorded" from six on (a results file written before intervals existed).
pub fn no_interval(n: usize) -> &'static str {
    if n < min_samples(CONFIDENCE) {
        "no interval"
    } else {
        "no interval recorded"
    }
}

/// `247 ns ±17 %`; `247 ns (n=2)` without an interval (`247 ns` when the count is unknown,
/// 0). The ± is half the interval's width against the median, rounded to a whole percent
/// (`±<1 %` below half a percent), so an asymmetric interval reads as its typical width;
/// `unit` may be empty.
pub fn compact(e: &Estimate, unit: &str) -> String {
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    match e.relative_half_width() {
        Some(w) if w < 0.005 => format!("{}{unit} ±<1 %", num(e.median)),
        Some(w) => format!("{}{unit} ±{} %", num(e.median), (w * 100.0).round()),
        // A count of 0 is unknown (a figure derived without its samples): nothing to add.
        None if e.count == 0 => format!("{}{unit}", num(e.median)),
        None => format!("{}{unit} (n={})", num(e.median), e.count),
    }
}

/// `247 [218, 300] n=9`, or `247, no interval (n=2)`: [`cell`] with the count.
pub fn bracketed(e: &Estimate) -> String {
    match e.interval {
        Some(_) => format!("{} n={}", cell(e), e.count),
        None => format!("{} (n={})", cell(e), e.count),
    }
}

/// `247 [218, 300]`, or `247, no interval`: a cell whose row shows the count elsewhere.
pub fn cell(e: &Estimate) -> String {
    match ends(e) {
        Some(ends) => format!("{} {ends}", num(e.median)),
        None => format!("{}, {}", num(e.median), no_interval(e.count)),
    }
}

/// A fraction as a signed percentage: whole numbers from 10 % up, one decimal below
/// (`+12`, `-8.5`).
pub fn signed(f: f64) -> String {
    let p = f * 100.0;
    if p.abs() >= 9.95 {
        format!("{p:+.0}")
    } else {
        format!("{p:+.1}")
    }
}

/// A relative difference (a fraction: 0.12 = 12 % more) as a signed percentage with its
/// interval, `+12 % [+8, +16 %]`, or `+12 %` without one: a gain over a runner-up or a remote
/// penalty, where the sign is the point. Whole percents from 10 % on, one decimal below
/// (`+3.4 % [+1.2, +5.6 %]`), as [`signed`] writes them.
pub fn gain(e: &Estimate) -> String {
    match e.interval {
        Some(i) => format!(
            "{} % [{}, {} %]",
            signed(e.median),
            signed(i.low),
            signed(i.high)
        ),
        None => format!("{} %", signed(e.median)),
    }
}

/// A ratio B / A as the [`gain`] of B over A: 1.12 [1.08, 1.15] reads `+12 % [+8.0, +15 %]`.
pub fn ratio_gain(r: &crate::stats::RatioInterval) -> String {
    gain(&Estimate::new(r.ratio, r.ci, r.samples).shifted(-1.0))
}

/// The interval alone, `[218, 300]`; `None` without one.
pub fn ends(e: &Estimate) -> Option<String> {
    e.interval
        .map(|i| format!("[{}, {}]", num(i.low), num(i.high)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Interval;

    #[test]
    fn the_three_forms() {
        let e = Estimate::new(247.0, Some(Interval::new(218.0, 300.0)), 9);
        assert_eq!(compact(&e, "ns"), "247 ns ±17 %");
        assert_eq!(bracketed(&e), "247 [218, 300] n=9");
        assert_eq!(cell(&e), "247 [218, 300]");
        assert_eq!(ends(&e).as_deref(), Some("[218, 300]"));
    }

    #[test]
    fn without_an_interval_the_count_says_why() {
        let few = Estimate::new(45.6, None, 2);
        assert_eq!(compact(&few, "ns"), "45.6 ns (n=2)");
        assert_eq!(bracketed(&few), "45.6, no interval (n=2)");
        let old = Estimate::new(45.6, None, 15);
        assert_eq!(bracketed(&old), "45.6, no interval recorded (n=15)");
        assert_eq!(cell(&old), "45.6, no interval recorded");
        assert_eq!(ends(&old), None);
        assert_eq!(
            compact(&Estimate::new(5785.0, None, 0), "MB/s"),
            "5785 MB/s"
        );
    }

    #[test]
    fn a_gain_is_signed_with_its_interval() {
        let g = Estimate::new(0.49, Some(Interval::new(0.44, 0.53)), 9);
        assert_eq!(gain(&g), "+49 % [+44, +53 %]");
        assert_eq!(gain(&Estimate::new(-0.02, None, 3)), "-2.0 %");
        let small = Estimate::new(0.034, Some(Interval::new(0.012, 0.11)), 9);
        assert_eq!(gain(&small), "+3.4 % [+1.2, +11 %]");
    }

    #[test]
    fn a_tight_interval_reads_at_least_one_percent() {
        let e = Estimate::new(6286.0, Some(Interval::new(6285.0, 6287.0)), 9);
        assert_eq!(compact(&e, "MB/s"), "6286 MB/s ±<1 %");
        assert_eq!(compact(&e, ""), "6286 ±<1 %");
    }
}
