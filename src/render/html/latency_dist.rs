//! The per-load latency distribution in the HTML report's latency section: its histogram
//! (log-spaced bins on a log axis, the percentiles and the chase marked) and its one row of
//! percentiles, timer cost and chase figures. Only results that hold a distribution (a
//! default or thorough `run`) show it; others show nothing here, the plan says why.

use std::fmt::Write as _;

use super::esc;
use super::page::Page;
use crate::render::run_view as view;
use crate::render::svg;
use crate::results::RunResults;

/// Columns of the distribution's table, in order.
const KEYS: &[&str] = &[
    "groups_count",
    "ns_per_load_p1",
    "ns_per_load_p10",
    "ns_per_load_p50",
    "ns_per_load_p90",
    "ns_per_load_p99",
    "ns_per_load_p99_9",
    "ns_per_load_max",
    "ns_per_load_mean",
    "timer_overhead_ns_median",
    "clamped_groups_count",
    "interleaved_chase_ns_per_load_median",
    "chase_ns_per_load_median",
];

/// The histogram and the table, under their own heading; nothing without a distribution.
pub(super) fn latency_distribution(p: &mut Page, r: &RunResults) {
    let l = r.latency.as_ref();
    let Some(h) = view::latency_dist::latency_histogram_chart(l) else {
        return;
    };
    let _ = write!(
        p.html,
        "<h3>{}</h3>",
        esc(&view::latency_dist::latency_histogram_heading(l))
    );
    let drawn = vec![svg::histogram(&h), svg::histogram(&h.narrow())];
    p.figure(
        false,
        drawn,
        &view::latency_dist::latency_histogram_caption(l),
    );
    let mut t = view::latency_dist::latency_distribution_table(l);
    // Each percentile with its interval in one cell, as every other table shows its figures.
    if let (Some(d), Some(row)) = (l.and_then(|l| l.distribution.as_ref()), t.rows.first()) {
        let mut row = row.clone();
        for (name, v, ci) in d.ns_per_load.named() {
            if ci.is_some() {
                let c = t.col(&format!("ns_per_load_{}", name.replace('.', "_")));
                row[c] = view::Cell::Text(view::latency_dist::fmt_percentile(v, ci));
                t.columns[c].push_str(" [95 % interval]");
            }
        }
        t.rows[0] = row;
    }
    p.table(&t, KEYS);
}

#[cfg(test)]
mod tests {
    use crate::render::run_view::latency_dist::tests_support::distribution;

    /// A run whose latency report holds a distribution shows its histogram (the
    /// chart's svg and its legend) and its table in the latency section; one without shows
    /// neither.
    #[test]
    fn the_latency_section_has_the_histogram_when_measured() {
        let mut r = crate::render::fixture::opteron_example();
        let without = super::super::render(&r);
        assert!(!without.contains("Per-load latency distribution"));
        r.latency.as_mut().unwrap().distribution = Some(distribution());
        let html = super::super::render(&r);
        let at = html
            .find("<h3>Per-load latency distribution (random walk, 4k pages, 1 thread pinned to CPU 0, 256 MiB)</h3>")
            .unwrap();
        let section = &html[at..];
        let fig = &section[..section.find("</figure>").unwrap()];
        // The wide and the phone layout, each an svg with the legend's entries.
        assert_eq!(fig.matches("<svg").count(), 2);
        // The median's legend gives its interval, drawn as a band in both layouts.
        assert_eq!(fig.matches("median 101 [100, 102] ns").count(), 2);
        // The table shows each percentile with its interval where it has one.
        assert!(section.contains("101 [100, 102]"));
        assert!(section.contains("ns p50 [95 % interval]"));
        assert!(fig.contains("chase between the batches 104 ns"));
        assert!(section.contains("chase ns per load between the batches (median)"));
        // In the latency section, before the matrix's.
        assert!(at < html.find("id=\"latency-matrix\"").unwrap());
    }
}
