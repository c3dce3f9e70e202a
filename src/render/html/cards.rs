//! The headline cards under the page header: idle memory latency (the run's reference figure
//! when it has one), the run's local read bandwidth, peak bandwidth, NUMA nodes and the remote
//! latency penalty.

use super::page::card;
use super::page::Page;
use crate::render::run_view::{self as view};
use crate::results::penalty::{penalties, signed, Quantity};
use crate::results::RunResults;
use crate::stats::decide::{percent, Decision};

/// Writes the row of cards.
pub(super) fn write(p: &mut Page, r: &RunResults) {
    p.push("<div class=\"cards\">");
    let f = crate::results::figures::of_run(r);
    for (what, i) in [
        ("Local latency", f.local_latency),
        ("Local bandwidth", f.local_bandwidth),
    ] {
        match i.map(|i| f.get(i)) {
            Some(g) => card(
                p,
                what,
                &marked(g.estimate.median, g.quality.disturbed),
                g.unit,
                &format!(
                    "{}{}; {}",
                    crate::render::summary::source(g).map_or(String::new(), |s| format!("{s}; ")),
                    crate::render::estimate::ends(&g.estimate).unwrap_or_else(|| format!(
                        "{} (n={})",
                        crate::render::estimate::no_interval(g.estimate.count),
                        g.estimate.count
                    )),
                    crate::render::summary::conditions(&g.conditions)
                ),
            ),
            None => card(p, what, "\u{2013}", "", "not measured in this run"),
        }
    }
    let t = &r.topology;
    card(
        p,
        "NUMA nodes",
        &t.nodes.len().to_string(),
        "",
        &format!(
            "{} with CPUs, {} with memory, {} CPUs usable",
            t.initiator_nodes().len(),
            t.memory_nodes().len(),
            t.usable_cpus().len()
        ),
    );
    if let Some((value, unit, w)) = remote_penalty(r) {
        card(p, "Remote latency penalty", &value, unit, &w);
    }
    p.push("</div>\n");
}

/// A headline value, with a warning sign when the figure is disturbed (its label says why).
fn marked(v: f64, disturbed: bool) -> String {
    if disturbed {
        format!("\u{26a0} {}", view::fmt_num(v))
    } else {
        view::fmt_num(v)
    }
}

/// The worst remote latency penalty as the run's findings decided it (results/penalty.rs):
/// the percentage with its interval when it clears the practical margin, "within +-x %" when
/// remote and local are indistinguishable here, the bare percentage labelled "no interval"
/// when too few samples. The value, its unit and the line under it.
fn remote_penalty(r: &RunResults) -> Option<(String, &'static str, String)> {
    let worst = penalties(r)
        .into_iter()
        .filter(|p| p.quantity == Quantity::Latency)
        .max_by(|a, b| a.ratio.ratio.total_cmp(&b.ratio.ratio))?;
    let pair = format!(
        "worst remote pair {} \u{2192} {}: {} ns vs {} ns local",
        worst.initiator,
        worst.memory_node,
        view::fmt_num(worst.remote),
        view::fmt_num(worst.local)
    );
    let how = worst.method.phrase();
    let (value, detail) = match worst.decision() {
        Decision::Higher | Decision::Lower => {
            let (lo, hi) = (
                worst.ratio.low.unwrap_or(worst.ratio.ratio),
                worst.ratio.high.unwrap_or(worst.ratio.ratio),
            );
            (
                signed(worst.ratio.ratio - 1.0),
                format!(
                    "[{}, {} %]; {pair}; {how}",
                    signed(lo - 1.0),
                    signed(hi - 1.0)
                ),
            )
        }
        Decision::Indistinguishable { within } => (
            format!("\u{b1}{}", percent(within).trim_end_matches(" %")),
            format!("remote and local indistinguishable here; {pair}; {how}"),
        ),
        Decision::NoInterval { samples } => (
            signed(worst.ratio.ratio - 1.0),
            format!("no interval (n={samples}): the median ratio, not decided; {pair}"),
        ),
    };
    let value = marked_text(value, worst.disturbed);
    Some((value, "%", detail))
}

/// A headline text with a warning sign when the figure is disturbed.
fn marked_text(v: String, disturbed: bool) -> String {
    if disturbed {
        format!("\u{26a0} {v}")
    } else {
        v
    }
}
