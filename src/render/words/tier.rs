//! A memory tier measured as a tier (`results::tiers::TierCheck`: the measured ratio of a
//! slower node to the initiator's local memory beside what HMAT declares) in words: the
//! `tier-measured` and `tier-declared-disagrees` findings' sentences and the Memory tiers
//! section's lines.

use crate::results::penalty::Quantity;
use crate::results::tiers::TierCheck;
use crate::stats::decide::{percent, PRACTICAL_MARGIN};

/// One sentence: the measured ratio with its interval, and what is declared.
pub fn sentence(c: &TierCheck) -> String {
    let m = &c.measured;
    let q = match m.quantity {
        Quantity::Latency => "idle latency",
        Quantity::Bandwidth => "read bandwidth",
    };
    let unit = m.quantity.unit();
    let interval = match m.ratio.ci.map(|c| c.ends()) {
        Some((l, h)) => format!(" [{l:.2}, {h:.2}]"),
        _ => " (no interval)".into(),
    };
    let tier = c
        .tier
        .map(|t| format!(", kernel tier {t}"))
        .unwrap_or_default();
    let declared = match c.declared_ratio() {
        Some(d) => format!(
            "HMAT declares x{d:.2} ({} vs {} {unit})",
            c.declared.unwrap_or(0),
            c.declared_local.unwrap_or(0)
        ),
        None => "HMAT declares nothing for this pair".into(),
    };
    format!(
        "{} node {}{tier} from node {}: {q} x{:.2}{interval} of local ({:.1} vs {:.1} {unit}, {}); {declared}",
        c.kind.word(),
        m.memory_node,
        m.initiator,
        m.ratio.ratio,
        m.remote,
        m.local,
        super::penalty::method(m.method)
    )
}

/// The warning when HMAT's ratio `declared_ratio` lies beyond the measured interval.
pub fn disagreement(c: &TierCheck, declared_ratio: f64) -> String {
    format!(
        "the firmware's HMAT figures do not match this machine beyond noise: {} node {} from node {} declares x{declared_ratio:.2} of local {}, measured x{:.2} [{:.2}, {:.2}] (margin +-{}); trust the measured figure, and the kernel's tiers and `auto` interleave weights derived from HMAT less",
        c.kind.word(),
        c.measured.memory_node,
        c.measured.initiator,
        match c.measured.quantity {
            Quantity::Latency => "latency",
            Quantity::Bandwidth => "read bandwidth",
        },
        c.measured.ratio.ratio,
        c.measured.ratio.ci.map_or(0.0, |c| c.low),
        c.measured.ratio.ci.map_or(0.0, |c| c.high),
        percent(PRACTICAL_MARGIN)
    )
}
