//! The headline cards under the page header: the figures the one-screen summary leads with,
//! from the same list ([`crate::results::figures`]) and the same formatter, so the page and
//! the terminal show the same numbers: local latency and bandwidth, loaded latency, the
//! closest core-to-core group (the machine's nodes are in the header). Each card is the figure, its
//! interval and the conditions that define it.

use std::fmt::Write as _;

use super::page::Page;
use super::{esc, prose};
use crate::render::format::estimate::{ends, no_interval, num};
use crate::render::run_text::summary::conditions;
use crate::results::figures::{self, Figure};
use crate::results::RunResults;

/// Writes the row of cards. As the terminal summary: a figure the run did not measure has
/// no card, and a run with none of these figures (a file of scenarios only) has no row.
pub(super) fn write(p: &mut Page, r: &RunResults) {
    let f = figures::of_run(r);
    let mut cards = Vec::new();
    if let Some(i) = f.local_latency {
        cards.push(("Local latency".to_string(), f.get(i), String::new()));
    }
    if let Some(i) = f.local_bandwidth {
        cards.push(("Local bandwidth".into(), f.get(i), "MB = 10^6 B".into()));
    }
    if let Some(l) = &f.loaded {
        // The idle point pooled into the reference is the local latency card's figure.
        let idle = if f.local_latency == Some(l.idle) {
            "idle: the local latency".to_string()
        } else {
            format!("idle {} ns", num(f.get(l.idle).estimate.median))
        };
        let at = format!("{idle}; at {} MB/s", num(l.peak_mb_per_s.median));
        cards.push(("Latency at the highest load".into(), f.get(l.at_peak), at));
    }
    if let Some((label, i)) = f.c2c.first() {
        let title = format!("Core to core, {label}");
        cards.push((title, f.get(*i), "one way".into()));
    }
    if !cards.is_empty() {
        p.push("<div class=\"cards\">");
        for (title, g, note) in cards {
            figure_card(p, &title, g, &note);
        }
        p.push("</div>\n");
    }
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
    detail.extend(crate::render::run_text::summary::source(g).map(str::to_string));
    detail.push(conditions(&g.conditions));
    let _ = write!(
        p.html,
        "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}<small>{}</small></div><div class=\"d\">{}</div></div>",
        esc(title),
        esc(&value),
        esc(g.unit),
        prose(&detail.join("; "))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loaded curve whose idle point is pooled into the local latency says so on its card
    /// instead of printing the local latency card's number a second time.
    #[test]
    fn a_pooled_idle_point_is_named_not_repeated() {
        use crate::results::agreement::places::loaded_place;
        use crate::results::reference::{PooledPlace, ReferenceFigure};
        let mut r = crate::render::fixture::saved("this-machine-quick-v657.json");
        let cards = |r: &RunResults| {
            let mut p = Page::open("t", "", "t", &[]);
            write(&mut p, r);
            p.close("")
        };
        assert!(cards(&r).contains("idle ") && !cards(&r).contains("idle: the local latency"));
        let label = r.loaded_latency.as_ref().unwrap().kernel_label.clone();
        r.reference.as_mut().unwrap().pooled.push(PooledPlace {
            figure: ReferenceFigure::Latency,
            place: loaded_place(&label),
            blocks: 3,
        });
        assert!(cards(&r).contains("idle: the local latency; at "));
    }

    /// A file holding only the scenario rows (the Opteron article's) gets no row of cards, as
    /// its terminal summary prints no latency line: no card reads "not measured".
    #[test]
    fn a_run_without_headline_figures_has_no_cards() {
        let r = crate::render::fixture::saved("opteron-article.json");
        let mut p = Page::open("t", "", "t", &[]);
        write(&mut p, &r);
        let html = p.close("");
        assert!(!html.contains("class=\"cards\""), "{html}");
        assert!(!html.contains("not measured"), "{html}");
    }
}
