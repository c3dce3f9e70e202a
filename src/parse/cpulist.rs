//! CPU and node list syntax: the kernel's cpulist format (`0-3,8,10-11`, as in
//! `/sys/devices/system/node/node0/cpulist`), numactl's user syntax (the same plus `all`), and
//! the kernel's hexadecimal cpumask format (`ff,ffffffff`, 32-bit groups, most significant
//! first). Lists are returned sorted and without duplicates.

pub use crate::results::format::{format_list, Compact};

use std::collections::BTreeSet;

/// Why a list did not parse; the message names the offending text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ListError(pub String);

/// Parses a kernel cpulist such as `0-3,8,10-11`. The empty string (and a lone newline) is the
/// empty list, as the kernel writes it for a node without CPUs.
pub fn parse_list(text: &str) -> Result<Vec<u32>, ListError> {
    let text = text.trim();
    let mut out = BTreeSet::new();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(ListError(format!(
                "`{text}` has an empty element; write ids separated by single commas, e.g. `0-3,8`"
            )));
        }
        // The kernel also accepts `a-b:stride/group`, which we do not need; refuse it clearly.
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (parse_id(a, text)?, parse_id(b, text)?),
            None => {
                let v = parse_id(part, text)?;
                (v, v)
            }
        };
        if lo > hi {
            return Err(ListError(format!(
                "`{part}` in `{text}` is a descending range; write it as `{hi}-{lo}`"
            )));
        }
        if hi - lo > 1 << 20 {
            return Err(ListError(format!(
                "`{part}` in `{text}` is an implausibly large range"
            )));
        }
        out.extend(lo..=hi);
    }
    Ok(out.into_iter().collect())
}

fn parse_id(s: &str, whole: &str) -> Result<u32, ListError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(ListError(format!(
            "`{whole}` has a range with a missing end; write ranges as `first-last`, e.g. `0-3`"
        )));
    }
    s.parse::<u32>().map_err(|_| {
        ListError(format!(
            "`{s}` in `{whole}` is not a CPU or node number; use numbers and ranges like `0-3,8`"
        ))
    })
}

/// Parses a user-given list in numactl's syntax: a cpulist, or `all` for every id of
/// `universe`. Unlike [`parse_list`] the result must not be empty.
pub fn parse_user_list(text: &str, universe: &[u32]) -> Result<Vec<u32>, ListError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("all") {
        return Ok(universe.to_vec());
    }
    let list = parse_list(t)?;
    if list.is_empty() {
        return Err(ListError(
            "the list is empty; give at least one id, e.g. `0` or `0-3`".into(),
        ));
    }
    Ok(list)
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
    let groups: Vec<&str> = text.split(',').collect();
    let n = groups.len();
    for (i, g) in groups.iter().enumerate() {
        let g = g.trim().trim_start_matches("0x");
        if g.is_empty() || g.len() > 8 {
            return Err(ListError(format!(
                "`{text}` is not a cpumask: each comma-separated group holds 1 to 8 hex digits"
            )));
        }
        let v = u32::from_str_radix(g, 16)
            .map_err(|_| ListError(format!("`{g}` in cpumask `{text}` is not hexadecimal")))?;
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

    proptest! {
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
