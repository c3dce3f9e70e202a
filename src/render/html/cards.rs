//! The headline cards under the page header: the figures the one-screen summary leads with,
//! from the same list ([`crate::results::figures`]) and the same formatter, so the page and
//! the terminal show the same numbers: local latency and bandwidth, loaded latency, the
//! closest core-to-core group (the machine's nodes are in the header). Each card is the figure, its
//! interval and the conditions that define it.

use super::page::{card, Page};
use crate::render::estimate::{ends, no_interval, num};
use crate::render::summary::conditions;
use crate::results::figures::{self, Figure};
use crate::results::RunResults;

/// Writes the row of cards.
pub(super) fn write(p: &mut Page, r: &RunResults) {
    let f = figures::of_run(r);
    p.push("<div class=\"cards\">");
    match f.local_latency {
        Some(i) => figure_card(p, "Local latency", f.get(i), ""),
        None => card(
            p,
            "Local latency",
            "\u{2013}",
            "",
            "not measured in this run",
        ),
    }
    if let Some(i) = f.local_bandwidth {
        figure_card(p, "Local bandwidth", f.get(i), "MB = 10^6 B");
    }
    if let Some(l) = &f.loaded {
        let peak = f.get(l.at_peak);
        let at = format!(
            "idle {} ns; at {} MB/s",
            num(f.get(l.idle).estimate.median),
            num(l.peak_mb_per_s.median)
        );
        figure_card(p, "Latency at the highest load", peak, &at);
    }
    if let Some((label, i)) = f.c2c.first() {
        figure_card(p, &format!("Core to core, {label}"), f.get(*i), "one way");
    }
    p.push("</div>\n");
}

/// A figure's card: the median (marked when disturbed), its unit, then its interval, `note`
/// and its conditions.
fn figure_card(p: &mut Page, title: &str, g: &Figure, note: &str) {
    let e = &g.estimate;
    let mut value = num(e.median);
    if g.quality.disturbed {
        value = format!("\u{26a0} {value}");
    }
    let interval = match ends(e) {
        Some(ends) => format!("95 % interval {ends}, n={}", e.count),
        None => format!("{} (n={})", no_interval(e.count), e.count),
    };
    let mut detail = vec![interval];
    if g.quality.disturbed {
        detail.push("disturbed: the retakes ran out".into());
    }
    detail.extend((!note.is_empty()).then(|| note.to_string()));
    // Whose figure it is: the run's reference, shown again wherever the conditions match.
    detail.extend(crate::render::summary::source(g).map(str::to_string));
    detail.push(conditions(&g.conditions));
    card(p, title, &value, g.unit, &detail.join("; "));
}
