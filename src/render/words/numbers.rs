//! Numbers as the sentences say them.

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
