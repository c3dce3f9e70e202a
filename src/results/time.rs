//! RFC 3339 timestamps from `SystemTime`, in UTC, without a date crate: a run records when it
//! started (`2026-11-21T22:04:05Z`) and names its output directory after it
//! (`20261121-220405`). The civil-date conversion is Howard Hinnant's `civil_from_days`.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC calendar time, to the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl UtcTime {
    /// The calendar time of `t` (times before 1970 clamp to the epoch).
    pub fn of(t: SystemTime) -> UtcTime {
        let secs = t
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        UtcTime::from_unix(secs)
    }

    /// The calendar time of a Unix timestamp in seconds.
    pub fn from_unix(secs: u64) -> UtcTime {
        let days = (secs / 86_400) as i64;
        let rem = secs % 86_400;
        let (year, month, day) = civil_from_days(days);
        UtcTime {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            minute: (rem / 60 % 60) as u32,
            second: (rem % 60) as u32,
        }
    }

    /// `2026-11-21T22:04:05Z`.
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `20261121-220405`, for file names.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(UtcTime::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        // date -u -d @951782400 -> 2000-02-29 00:00:00 (a leap day of a century leap year)
        assert_eq!(
            UtcTime::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        // date -u -d @1795300245 -> 2026-11-21T22:30:45Z
        let t = UtcTime::from_unix(1_795_300_245);
        assert_eq!(t.rfc3339(), "2026-11-21T22:30:45Z");
        assert_eq!(t.compact(), "20261121-223045");
        // 2100 is not a leap year: 2100-02-28 + 1 day = 2100-03-01 (date -u -d @4107542400)
        assert_eq!(
            UtcTime::from_unix(4_107_542_400).rfc3339(),
            "2100-03-01T00:00:00Z"
        );
    }
}
