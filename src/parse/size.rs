//! Sizes as users type them and the kernel prints them. Binary units are the default for
//! memory sizes, as in numactl and the kernel: `4k` = `4KiB` = 4096 bytes, `1G` = 2^30.
//! Decimal units are accepted only when spelled out (`KB`, `MB`, `GB`, `TB` = powers of 10),
//! because a user who writes "GB" in a memory tool usually means it. Bandwidth is always
//! reported in MB/s = 10^6 B/s; see [`crate::results::format::format_bytes`] for memory sizes.

/// Why a size did not parse; the message names the text and the accepted forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a size: {why}; write e.g. `4096`, `64KiB`, `256MiB`, `1G`")]
pub struct SizeError {
    pub text: String,
    pub why: &'static str,
}

/// Parses `123`, `4k`, `4K`, `4KiB`, `4KB` (decimal), `1.5GiB`, ... into bytes.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    // A long value is quoted cut, with its length (a 20 KB argument is not echoed whole).
    let err = |why| SizeError {
        text: crate::parse::cpulist::excerpt(text),
        why,
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(err("it does not start with a number"));
    }
    let mult: u64 = match unit.trim() {
        "" | "B" | "b" => 1,
        "k" | "K" | "KiB" | "kiB" | "Ki" => 1 << 10,
        "m" | "M" | "MiB" | "Mi" => 1 << 20,
        "g" | "G" | "GiB" | "Gi" => 1 << 30,
        "t" | "T" | "TiB" | "Ti" => 1 << 40,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => return Err(err("the unit is unknown")),
    };
    let value: f64 = num.parse().map_err(|_| err("the number is malformed"))?;
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(err("it is too large"));
    }
    if bytes.fract() != 0.0 {
        return Err(err("it is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// Parses the kernel's `1234 kB` (meminfo) form, where kB means KiB.
pub fn parse_meminfo_kb(text: &str) -> Option<u64> {
    let t = text.trim();
    let n = t.strip_suffix("kB").unwrap_or(t).trim();
    n.parse::<u64>().ok().and_then(|v| v.checked_mul(1024))
}

/// Parses sysfs cache sizes such as `32K`, `1024K`, `36608K`, `2M`.
pub fn parse_sysfs_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix('K') {
        (n, 1024)
    } else if let Some(n) = t.strip_suffix('M') {
        (n, 1 << 20)
    } else if let Some(n) = t.strip_suffix('G') {
        (n, 1 << 30)
    } else {
        (t, 1)
    };
    num.parse::<u64>().ok().and_then(|v| v.checked_mul(mult))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::format::*;
    use proptest::prelude::*;

    #[test]
    fn units() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("256MiB").unwrap(), 256 << 20);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        let e = parse_size("12XB").unwrap_err();
        assert!(e.to_string().contains("`12XB`"));
        assert!(parse_size("").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("1.3").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn formats() {
        assert_eq!(format_bytes(32768), "32 KiB");
        assert_eq!(format_bytes(36608 * 1024), "35.8 MiB");
        assert_eq!(format_bytes(1 << 30), "1 GiB");
        assert_eq!(parse_meminfo_kb("  1024 kB").unwrap(), 1 << 20);
        assert_eq!(parse_sysfs_size("36608K\n").unwrap(), 36608 * 1024);
    }

    proptest! {
        #[test]
        fn binary_suffixes_scale(n in 0u64..1_000_000) {
            prop_assert_eq!(parse_size(&format!("{n}KiB")).unwrap(), n * 1024);
            prop_assert_eq!(parse_size(&format!("{n}M")).unwrap(), n << 20);
        }

        #[test]
        fn never_panics(s in "\\PC{0,16}") { let _ = parse_size(&s); }
    }
}
