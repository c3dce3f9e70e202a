//! How the contract's ids and sizes are written for people: id lists in the kernel's cpulist
//! form (`0-3,8`) and byte counts in binary units (`35.8 MiB`). Every report and error message
//! writes them the same way, so the one formatter sits here, beside the types it prints; the
//! parsers of the same forms are `crate::parse`.

use std::fmt;

/// A sorted id list that prints in cpulist form (`0-3,8`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compact<'a>(pub &'a [u32]);

impl fmt::Display for Compact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ids = self.0.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut i = 0;
        let mut first = true;
        while i < ids.len() {
            let mut j = i;
            while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
                j += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if j == i {
                write!(f, "{}", ids[i])?;
            } else {
                write!(f, "{}-{}", ids[i], ids[j])?;
            }
            i = j + 1;
        }
        Ok(())
    }
}

/// Formats ids in cpulist form; the empty list prints as the empty string.
pub fn format_list(ids: &[u32]) -> String {
    Compact(ids).to_string()
}

/// Formats a byte count with the largest binary unit that keeps it readable: `32 KiB`,
/// `1.5 MiB`, `35.8 MiB`, `16 GiB`. Exact multiples print without decimals.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    let mut v = bytes as f64;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{} {}", v as u64, UNITS[unit])
    } else if v < 10.0 {
        format!("{:.2} {}", v, UNITS[unit])
    } else {
        format!("{:.1} {}", v, UNITS[unit])
    }
}
