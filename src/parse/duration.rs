//! Durations on the command line (`200ms`, `1.5s`, `10min`, `24h`). One rule for every flag: a
//! number with one unit, `ms`, `s`, `min` or `h`; a bare number means milliseconds (what `bandwidth --duration 300` has
//! always meant), and an error about a bare number says so. Each flag brings its own
//! [`DurationRange`], because a repetition of a bandwidth kernel and a point of the loaded
//! latency curve have different sensible lengths. Pure functions with property tests.

use std::time::Duration;

/// The values one flag accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationRange {
    /// The flag, for the error sentence (`--duration`).
    pub flag: &'static str,
    /// Shortest accepted duration.
    pub min: Duration,
    /// Longest accepted duration.
    pub max: Duration,
    /// The accepted range as the error sentence states it, with the fix
    /// (`give 20ms to 60s per point`).
    pub advice: &'static str,
}

/// `bandwidth --duration`: one repetition, above zero and at most an hour.
pub const BANDWIDTH_REPETITION: DurationRange = DurationRange {
    flag: "--duration",
    min: Duration::from_nanos(1),
    max: Duration::from_secs(3600),
    advice: "give more than 0 and at most an hour (100ms or more recommended); use more repetitions rather than longer ones",
};

/// `loaded-latency --duration`: one point of the curve, 20 ms to 60 s.
pub const LOADED_POINT: DurationRange = DurationRange {
    flag: "--duration",
    min: Duration::from_millis(20),
    max: Duration::from_secs(60),
    advice: "give 20ms to 60s per point",
};

/// `run --duration`: one timed repetition of every timed part, so within what each accepts
/// (the loaded-latency point's 20 ms to 60 s).
pub const RUN_REPETITION: DurationRange = DurationRange {
    flag: "--duration",
    min: Duration::from_millis(20),
    max: Duration::from_secs(60),
    advice: "give 20ms to 60s per repetition (it sets bandwidth, scaling, loaded latency and the scenarios)",
};

/// The number and its unit's scale in seconds; `bare` when no unit was written.
fn split_unit(t: &str) -> (&str, f64, bool) {
    for (unit, scale) in [("ms", 1e-3), ("min", 60.0), ("h", 3600.0), ("s", 1.0)] {
        if let Some(n) = t.strip_suffix(unit) {
            return (n, scale, false);
        }
    }
    (t, 1e-3, true)
}

/// Parses `text` by the rule above and checks it against `range`; an error is one sentence
/// naming the flag, the value and the fix.
pub fn parse_duration(text: &str, range: &DurationRange) -> Result<Duration, String> {
    let flag = range.flag;
    let t = text.trim();
    let (num, scale, bare) = split_unit(t);
    // One number, digits and at most a point: `0msms`, `1e9s`, `inf` or `nan` are not
    // durations (f64's parser alone would take the last three).
    let n = num.trim();
    let plain = !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '+')
        && n.chars().any(|c| c.is_ascii_digit());
    let v: f64 = n.parse().ok().filter(|_| plain).ok_or_else(|| {
        format!(
            "{flag} `{}` is not a duration; write e.g. 500ms or 2s",
            crate::parse::cpulist::excerpt(text)
        )
    })?;
    let text = crate::parse::cpulist::excerpt(text);
    let secs = v * scale;
    if !(secs.is_finite() && secs > 0.0) {
        return Err(format!("{flag} `{text}` is not positive; {}", range.advice));
    }
    let d = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    if d < range.min || d > range.max {
        return Err(if bare {
            format!(
                "{flag} `{text}` has no unit, so it means {v} ms, which is out of range; {}",
                range.advice
            )
        } else {
            format!("{flag} `{text}` is out of range; {}", range.advice)
        });
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn units_and_bare_milliseconds() {
        let p = |t| parse_duration(t, &LOADED_POINT);
        assert_eq!(p("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(p("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(p("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(p(" 300 ").unwrap(), Duration::from_millis(300));
        let b = |t| parse_duration(t, &BANDWIDTH_REPETITION);
        assert_eq!(b("200ms").unwrap(), Duration::from_millis(200));
        assert_eq!(b("300").unwrap(), Duration::from_millis(300));
        assert_eq!(b("3600s").unwrap(), Duration::from_secs(3600));
    }

    #[test]
    fn each_mistake_has_its_sentence() {
        let p = |t| parse_duration(t, &LOADED_POINT).unwrap_err();
        let e = p("5");
        assert!(e.contains("no unit") && e.contains("out of range"), "{e}");
        assert!(p("1ms").contains("out of range"));
        assert!(p("61s").contains("give 20ms to 60s per point"));
        assert!(p("xs").contains("not a duration"));
        let b = |t| parse_duration(t, &BANDWIDTH_REPETITION).unwrap_err();
        assert!(b("0").contains("not positive"));
        assert!(b("-1s").contains("not positive"));
        assert!(b("soon").contains("not a duration"));
        assert!(b("3601s").contains("at most an hour"));
        assert!(b("inf").contains("not a duration"));
        assert!(b("0msms").contains("not a duration"));
        assert!(b("1e3s").contains("not a duration"));
        assert!(b("2h").contains("at most an hour"));
        let ok = |t| parse_duration(t, &BANDWIDTH_REPETITION).unwrap();
        assert_eq!(ok("2min"), Duration::from_secs(120));
        assert_eq!(ok("1h"), Duration::from_secs(3600));
    }

    proptest! {
        #[test]
        fn milliseconds_and_seconds_agree(ms in 20u64..60_000) {
            let a = parse_duration(&format!("{ms}ms"), &LOADED_POINT).unwrap();
            let b = parse_duration(&format!("{}s", ms as f64 / 1000.0), &LOADED_POINT).unwrap();
            let c = parse_duration(&format!("{ms}"), &LOADED_POINT).unwrap();
            prop_assert_eq!(a, Duration::from_millis(ms));
            prop_assert!(a.abs_diff(b) < Duration::from_micros(1));
            prop_assert_eq!(a, c);
        }

        #[test]
        fn accepted_values_lie_in_the_range(s in "\\PC{0,12}") {
            for range in [LOADED_POINT, BANDWIDTH_REPETITION] {
                if let Ok(d) = parse_duration(&s, &range) {
                    prop_assert!(d >= range.min && d <= range.max);
                }
            }
        }
    }
}
