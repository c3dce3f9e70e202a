//! A remote-memory penalty (`results::penalty::RemotePenalty`: the decided ratio of a remote
//! figure to its local one) in words: the `remote-latency-penalty` and
//! `remote-bandwidth-penalty` findings' sentences, and how the ratio was taken. The decision
//! is the contract's; this file only says it.

use crate::render::format::estimate::signed;
use crate::results::penalty::{Method, RemotePenalty};
use crate::stats::decide::{percent, Decision};

/// "paired, 9 rounds" or "unpaired medians, n=9 and 9".
pub fn method(m: Method) -> String {
    match m {
        Method::Paired { rounds } => format!("paired, {rounds} rounds"),
        Method::Unpaired { local_n, remote_n } => {
            format!("unpaired medians, n={local_n} and {remote_n}")
        }
    }
}

/// A figure with the digits it deserves: one decimal below 10, whole numbers above.
fn value(v: f64) -> String {
    if v.abs() < 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// The finding's sentence: a penalty with its interval when the ratio's interval clears the
/// practical margin, "indistinguishable here" when it lies within it, no penalty without an
/// interval.
pub fn sentence(p: &RemotePenalty) -> String {
    let q = p.quantity;
    let i = p.initiator;
    let figures = format!(
        "node {}: {} vs {} {} local",
        p.memory_node,
        value(p.remote),
        value(p.local),
        q.unit()
    );
    let mark = if p.disturbed {
        "; disturbed: a measuring thread did not have its CPU to itself"
    } else {
        ""
    };
    let how = method(p.method);
    match p.decision() {
        Decision::Higher | Decision::Lower => {
            let (lo, hi) = (
                p.ratio.ci.map_or(p.ratio.ratio, |c| c.low),
                p.ratio.ci.map_or(p.ratio.ratio, |c| c.high),
            );
            let change = format!(
                "{} % {} [{}, {} %]",
                signed(p.ratio.ratio - 1.0),
                q.name(),
                signed(lo - 1.0),
                signed(hi - 1.0)
            );
            if q.is_cost(p.ratio.ratio) {
                format!("remote memory costs {change} from node {i} ({figures}; {how}{mark})")
            } else {
                format!("remote memory beats local from node {i}: {change} ({figures}; {how}{mark})")
            }
        }
        Decision::Indistinguishable { within } => format!(
            "from node {i}, remote and local memory are indistinguishable here in {} (within +-{}; {figures}; {how}{mark})",
            q.name(),
            percent(within)
        ),
        Decision::NoInterval { samples } => format!(
            "remote memory {} from node {i} has no interval (n={samples}), so no penalty is stated ({figures}{mark})",
            q.name()
        ),
    }
}
