//! CPU and node list syntax: the kernel's cpulist format (`0-3,8,10-11`, as in
//! `/sys/devices/system/node/node0/cpulist`), numactl's user syntax (the same plus `all`, `!`
//! for "all but" and `+` for ids relative to the allowed set, as numactl(8) defines them), and
//! the kernel's hexadecimal cpumask format (`ff,ffffffff`, 32-bit groups, most significant
//! first). Lists are returned sorted and without duplicates. Messages quote at most a short
//! excerpt of the text, so a huge file or argument never becomes a huge error line.

use crate::results::format::format_list;
use std::collections::BTreeSet;

/// Why a list did not parse; the message names the offending text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ListError(pub String);

/// The longest piece of user or file text a message quotes.
const EXCERPT_CHARS: usize = 40;

/// `text` as a message may quote it: whole when short, else its start and its length.
pub fn excerpt(text: &str) -> String {
    if text.chars().count() <= EXCERPT_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(EXCERPT_CHARS).collect();
    format!("{head}... ({} bytes)", text.len())
}

/// Parses a kernel cpulist such as `0-3,8,10-11`. The empty string (and a lone newline) is the
/// empty list, as the kernel writes it for a node without CPUs.
pub fn parse_list(text: &str) -> Result<Vec<u32>, ListError> {
    parse_bounded(text, None)
}

/// [`parse_list`] with an upper bound: an id above `max` is "too large (max N)" followed by
/// the bound's explanation, in which `{id}` stands for the id.
fn parse_bounded(text: &str, max: Option<(u32, &str)>) -> Result<Vec<u32>, ListError> {
    let text = text.trim();
    let mut out = BTreeSet::new();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let shown = excerpt(text);
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(ListError(format!(
                "`{shown}` has an empty element; write ids separated by single commas, e.g. `0-3,8`"
            )));
        }
        // The kernel also accepts `a-b:stride/group`, which we do not need; refuse it clearly.
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (parse_id(a, &shown, max)?, parse_id(b, &shown, max)?),
            None => {
                let v = parse_id(part, &shown, max)?;
                (v, v)
            }
        };
        if lo > hi {
            return Err(ListError(format!(
                "`{}` in `{shown}` is a descending range; write it as `{hi}-{lo}`",
                excerpt(part)
            )));
        }
        if hi - lo > 1 << 20 {
            return Err(ListError(format!(
                "`{}` in `{shown}` is an implausibly large range",
                excerpt(part)
            )));
        }
        out.extend(lo..=hi);
    }
    Ok(out.into_iter().collect())
}

fn parse_id(s: &str, whole: &str, max: Option<(u32, &str)>) -> Result<u32, ListError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(ListError(format!(
            "`{whole}` has a range with a missing end; write ranges as `first-last`, e.g. `0-3`"
        )));
    }
    // `what` may name the offending id as `{id}`.
    let too_large = |limit: u32, what: &str| {
        let id = excerpt(s);
        let place = if id == whole {
            String::new()
        } else {
            format!(" in `{whole}`")
        };
        ListError(format!(
            "`{id}`{place} is too large (max {limit}){}",
            what.replace("{id}", &id)
        ))
    };
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ListError(format!(
            "`{}` in `{whole}` is not a CPU or node number; use numbers and ranges like `0-3,8`",
            excerpt(s)
        )));
    }
    let v = s.parse::<u32>().map_err(|_| match max {
        Some((m, what)) => too_large(m, what),
        None => too_large(u32::MAX, ""),
    })?;
    match max {
        Some((m, what)) if v > m => Err(too_large(m, what)),
        _ => Ok(v),
    }
}

/// The ids a user's list is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct IdSpace<'a> {
    /// What the ids name, for messages: `CPU` or `node`.
    pub kind: &'a str,
    /// The largest id this machine has: anything above is "too large (max N)".
    pub max: u32,
    /// The ids this process may use, ascending: `all`, `!` and `+` are relative to them, as
    /// numactl makes them relative to the cpuset.
    pub allowed: &'a [u32],
}

/// Parses a user-given list in numactl's syntax against `space`: a cpulist (`0-3,8`), `all`
/// (every allowed id), `!LIST` (every allowed id but these), `+LIST` (the allowed ids at
/// these positions: `+0-1` is the first two this process may use), or `!+LIST`. The result is
/// never empty.
pub fn parse_numactl(text: &str, space: &IdSpace) -> Result<Vec<u32>, ListError> {
    let t = text.trim();
    let shown = excerpt(t);
    let kind = space.kind;
    let (invert, rest) = match t.strip_prefix('!') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let ids = if rest.eq_ignore_ascii_case("all") {
        space.allowed.to_vec()
    } else if let Some(rel) = rest.strip_prefix('+') {
        let n = space.allowed.len();
        if n == 0 {
            return Err(ListError(format!(
                "`{shown}` counts from the {kind}s this process may use, and it may use none"
            )));
        }
        let what = format!(
            ": this process may use {n} {kind}(s), so `+` counts 0 to {}",
            n - 1
        );
        let idx = parse_bounded(rel, Some((n as u32 - 1, &what)))?;
        if idx.is_empty() {
            return Err(empty_list(&shown));
        }
        idx.iter().map(|&i| space.allowed[i as usize]).collect()
    } else {
        let what = format!(": {kind} {{id}} does not exist on this machine");
        let ids = parse_bounded(rest, Some((space.max, &what)))?;
        if ids.is_empty() {
            return Err(empty_list(&shown));
        }
        ids
    };
    let ids = if invert {
        let out: Vec<u32> = space
            .allowed
            .iter()
            .copied()
            .filter(|i| !ids.contains(i))
            .collect();
        if out.is_empty() {
            return Err(ListError(format!(
                "`{shown}` leaves no {kind}: this process may use only {}; exclude fewer",
                format_list(space.allowed)
            )));
        }
        out
    } else {
        ids
    };
    Ok(ids)
}

fn empty_list(shown: &str) -> ListError {
    ListError(format!(
        "`{shown}` is an empty list; give at least one id, e.g. `0` or `0-3`"
    ))
}

/// Parses a user-given list in numactl's syntax where `universe` is both the allowed set and
/// the bound (see [`parse_numactl`] for the syntax). Unlike [`parse_list`] the result must not
/// be empty.
pub fn parse_user_list(text: &str, universe: &[u32]) -> Result<Vec<u32>, ListError> {
    if text.trim().is_empty() {
        return Err(ListError(
            "the list is empty; give at least one id, e.g. `0` or `0-3`".into(),
        ));
    }
    parse_numactl(
        text,
        &IdSpace {
            kind: "id",
            // Callers check existence themselves with their own sentence.
            max: u32::MAX,
            allowed: universe,
        },
    )
}

/// Parses a kernel hexadecimal cpumask (`00000000,0000000f`): comma-separated 32-bit groups,
/// most significant first. Bit `n` set means id `n` is in the set.
pub fn parse_mask(text: &str) -> Result<Vec<u32>, ListError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ListError(
            "an empty cpumask; expected hex digits like `ff` or `0,0000000f`".into(),
        ));
    }
    let mut out = Vec::new();
    let shown = excerpt(text);
    let groups: Vec<&str> = text.split(',').collect();
    let n = groups.len();
    for (i, g) in groups.iter().enumerate() {
        let g = g.trim().trim_start_matches("0x");
        if g.is_empty() || g.len() > 8 {
            return Err(ListError(format!(
                "`{shown}` is not a cpumask: each comma-separated group holds 1 to 8 hex digits"
            )));
        }
        let v = u32::from_str_radix(g, 16).map_err(|_| {
            ListError(format!(
                "`{}` in cpumask `{shown}` is not hexadecimal",
                excerpt(g)
            ))
        })?;
        let base = ((n - 1 - i) * 32) as u32;
        for bit in 0..32 {
            if v & (1 << bit) != 0 {
                out.push(base + bit);
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    #[test]
    fn parses_kernel_forms() {
        assert_eq!(
            parse_list("0-3,8,10-11\n").unwrap(),
            vec![0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(parse_list("").unwrap(), Vec::<u32>::new());
        assert_eq!(parse_list("5").unwrap(), vec![5]);
    }

    #[test]
    fn refuses_broken_lists_with_the_text() {
        for bad in ["0-", "-3", "a", "1,,2", "3-1", "0-3,", "1.5"] {
            let e = parse_list(bad).unwrap_err();
            assert!(e.0.contains('`'), "{bad}: {e}");
        }
        assert!(parse_user_list("", &[0]).is_err());
        assert_eq!(parse_user_list("all", &[0, 2, 5]).unwrap(), vec![0, 2, 5]);
    }

    #[test]
    fn parses_masks() {
        assert_eq!(parse_mask("0000000f").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_mask("00000001,00000000").unwrap(), vec![32]);
        assert_eq!(parse_mask("3").unwrap(), vec![0, 1]);
        assert!(parse_mask("xyz").is_err());
        assert!(parse_mask("").is_err());
    }

    const SPACE: IdSpace = IdSpace {
        kind: "CPU",
        max: 7,
        allowed: &[1, 2, 3, 5, 6],
    };

    #[test]
    fn numactl_forms() {
        let p = |t: &str| parse_numactl(t, &SPACE);
        assert_eq!(p("all").unwrap(), vec![1, 2, 3, 5, 6]);
        assert_eq!(p("!2-3").unwrap(), vec![1, 5, 6]);
        assert_eq!(p("+0-1").unwrap(), vec![1, 2]);
        assert_eq!(p("!+0").unwrap(), vec![2, 3, 5, 6]);
        assert_eq!(p("0,7").unwrap(), vec![0, 7]);
        let e = p("8").unwrap_err().0;
        assert_eq!(
            e,
            "`8` is too large (max 7): CPU 8 does not exist on this machine"
        );
        assert!(p("+5").unwrap_err().0.contains("too large (max 4)"));
        assert!(p("!all").unwrap_err().0.contains("leaves no CPU"));
        assert!(p("").is_err() && p("!").is_err() && p("+").is_err());
        let e = p("18446744073709551616").unwrap_err().0;
        assert!(e.contains("too large (max 7)"), "{e}");
    }

    #[test]
    fn long_text_is_quoted_short() {
        let long = "1,".repeat(1 << 20) + "x";
        let e = parse_list(&long).unwrap_err().0;
        assert!(e.len() < 200, "{} bytes", e.len());
        assert!(e.contains("(2097153 bytes)"), "{e}");
        assert!(parse_mask(&"f".repeat(1 << 20)).unwrap_err().0.len() < 200);
    }

    proptest! {
        #[test]
        fn numactl_never_panics_and_stays_in_range(s in "[-!+,0-9a-z ]{0,16}") {
            if let Ok(ids) = parse_numactl(&s, &SPACE) {
                prop_assert!(!ids.is_empty());
                prop_assert!(ids.iter().all(|&i| i <= SPACE.max));
                prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
            }
        }

        #[test]
        fn numactl_round_trips_and_inverts(ids in proptest::collection::btree_set(0u32..8, 1..8)) {
            let ids: Vec<u32> = ids.into_iter().collect();
            let text = format_list(&ids);
            prop_assert_eq!(parse_numactl(&text, &SPACE).unwrap(), ids.clone());
            let rest: Vec<u32> = SPACE.allowed.iter().copied().filter(|i| !ids.contains(i)).collect();
            match parse_numactl(&format!("!{text}"), &SPACE) {
                Ok(got) => prop_assert_eq!(got, rest),
                Err(e) => prop_assert!(rest.is_empty() && e.0.contains("leaves no CPU")),
            }
        }

        #[test]
        fn above_the_maximum_is_too_large(v in 8u64..u64::MAX) {
            let e = parse_numactl(&v.to_string(), &SPACE).unwrap_err().0;
            prop_assert!(e.contains("too large (max 7)"), "{}", e);
        }

        #[test]
        fn any_string_never_panics(s in "\\PC{0,24}") {
            let _ = parse_numactl(&s, &SPACE);
            let _ = parse_user_list(&s, &[0, 1]);
            let _ = excerpt(&s);
        }

        #[test]
        fn list_round_trips(ids in proptest::collection::btree_set(0u32..4096, 0..64)) {
            let ids: Vec<u32> = ids.into_iter().collect();
            let text = format_list(&ids);
            prop_assert_eq!(parse_list(&text).unwrap(), ids);
        }

        #[test]
        fn mask_matches_list(ids in proptest::collection::btree_set(0u32..256, 0..64)) {
            let ids: Vec<u32> = ids.into_iter().collect();
            let mut groups = [0u32; 8];
            for &i in &ids { groups[(i / 32) as usize] |= 1 << (i % 32); }
            let text: Vec<String> = groups.iter().rev().map(|g| format!("{g:08x}")).collect();
            prop_assert_eq!(parse_mask(&text.join(",")).unwrap(), ids);
        }

        #[test]
        fn never_panics(s in "\\PC{0,20}") {
            let _ = parse_list(&s);
            let _ = parse_mask(&s);
        }
    }
}
