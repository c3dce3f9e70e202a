//! Checks a parsed results file beyond its shape: values outside their domain are refused
//! with the field named, and keys this numascope does not know (a newer writer's) are noted
//! once. Run after parsing (`results_file`), on the JSON tree of the file as written and the
//! tree of what was understood, so it needs nothing from each result type.
//!
//! The domains, by field name (the contract's units are in its names, docs/schema): a
//! duration (`_s`, `_ms`, `_us`, `_ns`), a size (`_bytes`), a bandwidth (`_mb_s`, `_gb_s`,
//! `_mib_s`, `_gib_s`), a count (`samples`, `count`, `_count`, `threads`, `repetitions`,
//! `rounds`) is finite and not negative; an interval (`ci_low`/`ci_high`, `low_X`/`high_X`,
//! `X_low`/`X_high`) has its low end at most its high end. No numascope ever wrote a value
//! outside these (durations come from the monotonic clock, intervals from order statistics),
//! so each is refused rather than warned about.

use serde_json::{Map, Value};

use crate::results::{LoadError, RunResults};

const NON_NEGATIVE_SUFFIXES: &[&str] = &[
    "_s", "_ms", "_us", "_ns", "_bytes", "_mb_s", "_gb_s", "_mib_s", "_gib_s", "_count",
];
const NON_NEGATIVE_NAMES: &[&str] = &["samples", "count", "threads", "repetitions", "rounds"];

/// The most unknown keys a note lists; the rest are counted.
const MAX_LISTED: usize = 8;

/// Checks `r`, parsed from `text`: `Err` names the first value outside its domain; `Ok`
/// holds the notes for the reader (at most one: the unknown keys).
pub fn check(text: &str, r: &RunResults, name: &str) -> Result<Vec<String>, LoadError> {
    let shape = |detail: String| LoadError::Shape {
        path: name.into(),
        detail,
    };
    let written: Value = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
    let understood = serde_json::to_value(r).map_err(|e| shape(e.to_string()))?;
    domains(&understood, "").map_err(shape)?;
    let mut unknown = Vec::new();
    unknown_keys(&written, &understood, "", &mut unknown);
    unknown.sort();
    unknown.dedup();
    if unknown.is_empty() {
        return Ok(vec![]);
    }
    let more = unknown.len().saturating_sub(MAX_LISTED);
    let mut listed = unknown[..unknown.len().min(MAX_LISTED)].join(", ");
    if more > 0 {
        listed.push_str(&format!(" and {more} more"));
    }
    Ok(vec![format!(
        "{name} has fields this numascope (version {}) does not know, perhaps from a newer one: {listed}; they are ignored",
        env!("CARGO_PKG_VERSION")
    )])
}

fn non_negative(key: &str) -> bool {
    NON_NEGATIVE_NAMES.contains(&key) || NON_NEGATIVE_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// The high end paired with `key` when `key` is an interval's low end. A count is never an
/// interval's end: core to core's `low_blocks`/`high_blocks` count the blocks near its low and
/// its high mode, and either may be the larger.
fn high_of(key: &str) -> Option<String> {
    if key.ends_with("_blocks") {
        return None;
    }
    if let Some(rest) = key.strip_suffix("_low") {
        return Some(format!("{rest}_high"));
    }
    key.strip_prefix("low_").map(|rest| format!("high_{rest}"))
}

fn domains(v: &Value, at: &str) -> Result<(), String> {
    match v {
        Value::Object(m) => object_domains(m, at),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| domains(x, &format!("{at}[{i}]"))),
        _ => Ok(()),
    }
}

fn object_domains(m: &Map<String, Value>, at: &str) -> Result<(), String> {
    for (k, x) in m {
        let here = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        if let Some(f) = x.as_f64() {
            if !f.is_finite() {
                return Err(format!("the field `{here}` is {x}, not a finite number"));
            }
            if f < 0.0 && non_negative(k) {
                return Err(format!(
                    "the field `{here}` is {x}, but a duration, size, bandwidth or count cannot be negative"
                ));
            }
        }
        if let (Some(lo), Some(h)) = (x.as_f64(), high_of(k)) {
            if let Some(hi) = m.get(&h).and_then(Value::as_f64) {
                if lo > hi {
                    return Err(format!(
                        "the interval `{here}` .. `{h}` runs from {lo} down to {hi}: its low end exceeds its high end"
                    ));
                }
            }
        }
        domains(x, &here)?;
    }
    Ok(())
}

/// True for a value a writer leaves out when it is empty (so an absent key is no news).
fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// Keys of `written` that `understood` lacks (array indices shown as `[]`, so a key repeated
/// in every element is named once).
fn unknown_keys(written: &Value, understood: &Value, at: &str, out: &mut Vec<String>) {
    match (written, understood) {
        (Value::Object(w), Value::Object(u)) => {
            for (k, x) in w {
                let here = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                match u.get(k) {
                    Some(y) => unknown_keys(x, y, &here, out),
                    None if !empty(x) => out.push(here),
                    None => {}
                }
            }
        }
        (Value::Array(w), Value::Array(u)) => {
            for (x, y) in w.iter().zip(u) {
                unknown_keys(x, y, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sample;

    fn edited(f: impl FnOnce(&mut Value)) -> (String, RunResults) {
        let mut v = serde_json::to_value(sample::results()).unwrap();
        f(&mut v);
        let text = v.to_string();
        let r = RunResults::from_json(&text, "r.json").unwrap();
        (text, r)
    }

    #[test]
    fn a_sound_file_passes_without_notes() {
        let (text, r) = edited(|_| {});
        assert!(check(&text, &r, "r.json").unwrap().is_empty());
    }

    #[test]
    fn a_negative_duration_is_refused_naming_the_field() {
        let (text, r) = edited(|v| v["duration_s"] = (-3.0).into());
        let e = check(&text, &r, "r.json").unwrap_err().to_string();
        assert!(e.contains("`duration_s`") && e.contains("-3"), "{e}");
    }

    #[test]
    fn an_inverted_interval_is_refused() {
        let mut m = Map::new();
        m.insert("ci_low".into(), 2.0.into());
        m.insert("ci_high".into(), 1.0.into());
        let e = object_domains(&m, "x").unwrap_err();
        assert!(e.contains("`x.ci_low`") && e.contains("ci_high"), "{e}");
        m.insert("ci_high".into(), 3.0.into());
        assert!(object_domains(&m, "x").is_ok());
        // Counts named low/high are not interval ends (c2c's blocks near each mode).
        m.insert("low_blocks".into(), 4.into());
        m.insert("high_blocks".into(), 2.into());
        assert!(object_domains(&m, "x").is_ok());
        m.insert("delta_ns".into(), (-1.0).into());
        assert!(object_domains(&m, "x").unwrap_err().contains("x.delta_ns"));
    }

    #[test]
    fn unknown_keys_are_noted_once() {
        let (text, r) = edited(|v| {
            v["from_the_future"] = 1.into();
            v["plan"]["also_new"] = "x".into();
        });
        let notes = check(&text, &r, "r.json").unwrap();
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("from_the_future") && notes[0].contains("plan.also_new"),
            "{notes:?}"
        );
    }
}
