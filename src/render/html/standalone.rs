//! The pages the measuring commands write with `--html OUT.html` when they run on their own:
//! `bandwidth` (kernels, `--stride`, `--sweep`, `--matrix`, `--scaling`, `--peak`),
//! `bandwidth --stream-matrix` and `rightmark`. Each page is the run report's layout (the same
//! stylesheet, self-contained, no scripts) holding only what the command measured, drawn by
//! the run report's own section bodies: a peak page shows the per-mix bars with their
//! intervals and the L3-domain table exactly as `report.html` does, the node tables their
//! heat maps. A bandwidth report is first put where a run keeps it
//! ([`crate::render::tables_standalone::bandwidth_run`]), so no chart is drawn twice in code.

use super::page::Page;
use super::{parts, tables, Section};
use crate::render::run_view as view;
use crate::render::svg;
use crate::render::tables_standalone::bandwidth_run;
use crate::results::bandwidth::BandwidthReport;
use crate::results::environment::Environment;
use crate::results::tables::{RightmarkReport, StreamMatrixReport};
use crate::results::topology::Topology;
use crate::results::RunResults;

/// The page of `numascope bandwidth --html`: one section per table the variant filled.
pub fn render_bandwidth(report: &BandwidthReport, topo: &Topology) -> String {
    let r = bandwidth_run(report, topo);
    let what = if report.peak.is_some() {
        "peak injection per read/write mix"
    } else if !report.scaling.is_empty() {
        "scaling with threads"
    } else if !report.matrix.is_empty() {
        "CPU node x memory node"
    } else if report.sweep.is_some() {
        "against working-set size"
    } else {
        "kernels"
    };
    let sweep = Section {
        id: "bandwidth-sweep",
        toc: "",
        title: "Bandwidth vs working set",
        lead: "Each size is labelled with the cache it fits in.",
        body: sweep_section,
        part: None,
    };
    let kernels = Section {
        body: kernels_section,
        ..*super::section("bandwidth")
    };
    let peak = Section {
        id: "peak",
        title: "Peak injection bandwidth",
        lead: "Every node and package with 1, half and all of its usable CPUs, each thread's memory bound to its own node, for each read/write mix; then each node's L3 domains alone and all at once.",
        body: parts::peak,
        ..kernels
    };
    // No headline cards on this page: a one-cell matrix shows its cell.
    let matrix = Section {
        body: |p, r| parts::node_bandwidth(p, r, false),
        ..*super::section("bandwidth-matrix")
    };
    let scaling = super::section("scaling");
    let sections = [&sweep, &kernels, &matrix, scaling, &peak];
    let facts = facts(what, &report.environment);
    page("Bandwidth", &facts, &report.warnings, |p| {
        super::write_sections(p, &r, sections);
    })
}

/// The section of `bandwidth --sweep`: the chart and the sizes' table.
fn sweep_section(p: &mut Page, r: &RunResults) -> bool {
    let Some(c) = view::bandwidth_sweep::bandwidth_sweep_chart(r) else {
        return false;
    };
    super::sweep::bandwidth_chart(p, &c);
    // The sizes are this variant's rows, so its table replaces the kernels table (whose
    // rows would repeat each kernel once per size without naming the size).
    let t = view::bandwidth_sweep::bandwidth_sweep_table(r.bandwidth.as_ref())
        .with_interval_text("mb_per_s", "MB/s");
    let keys = [
        "kernel",
        "threads_count",
        "working_set_per_thread_bytes",
        "fits_in",
        "mb_per_s_median",
    ];
    p.table(&t, &keys);
    true
}

/// The run report's kernels section, after the kernels as bars when the page has no other
/// chart of them; nothing for a sweep (its own section has the sizes).
fn kernels_section(p: &mut Page, r: &RunResults) -> bool {
    let Some(b) = r.bandwidth.as_ref() else {
        return false;
    };
    if b.sweep.is_some() || b.results.is_empty() {
        return false;
    }
    if let Some((c, marks)) = kernels_chart(b) {
        p.bar_chart(
            &c,
            &marks,
            "Median MB/s (MB = 10^6 bytes, application bytes: with a stride, the bytes of the elements processed) of each kernel run, whiskers the 95 % interval, hollow bars disturbed; the accent bar is the highest.",
        );
    }
    parts::bandwidth_kernels(p, r)
}

/// The kernel runs of a plain `bandwidth` (or `--stride`) invocation as bars with their
/// intervals, since a table of a few medians is read faster as lengths. The run report shows
/// the same runs as a table only, beside its other charts; the matrix, sweep, scaling and
/// peak variants have their own charts, so they get none here.
fn kernels_chart(b: &BandwidthReport) -> Option<(svg::BarChart, Vec<svg::BarMark>)> {
    if !b.matrix.is_empty() || !b.scaling.is_empty() || b.peak.is_some() {
        return None;
    }
    let bars = b.results.iter().map(|x| {
        let stride = x
            .stride_elements
            .map_or(String::new(), |e| format!(", stride {} B", e * 8));
        let label = format!("{}{stride}, {} thread(s)", x.kernel, x.threads);
        let disturbed = x.quality.as_ref().is_some_and(|q| q.disturbed);
        (
            label,
            x.mb_per_s.median,
            svg::BarMark::of(&x.mb_per_s.summary(), disturbed),
        )
    });
    Some(svg::BarChart::of(
        "Bandwidth per kernel".into(),
        "MB/s",
        bars.collect(),
    ))
}

/// The page of `numascope rightmark --html`: the run report's RightMark section.
pub fn render_rightmark(r: &RightmarkReport) -> String {
    let what = format!(
        "{} CPU node x memory node cell(s), {} rounds",
        r.cells.len(),
        r.rounds
    );
    let facts = facts(&what, &r.environment);
    page("RightMark table", &facts, &r.warnings, |p| {
        p.section_open(
            "rightmark",
            super::section("rightmark").title,
            "The 2005 Opteron article's table measured here: one thread on the row's node, a block on the column's node; average and maximum (software prefetch, non-temporal stores) read and write bandwidth, pseudo-random and random latency.",
        );
        tables::rightmark_body(p, r);
        p.section_close();
    })
}

/// The page of `numascope bandwidth --stream-matrix --html`: the run report's per-stream
/// section, one heat map per kernel and CPU node.
pub fn render_stream_matrix(r: &StreamMatrixReport) -> String {
    let what = format!("{} matrix(es), {} rounds", r.matrices.len(), r.rounds);
    let facts = facts(&what, &r.environment);
    page("Per-stream placement", &facts, &r.warnings, |p| {
        p.section_open(
            "stream-matrix",
            "Bandwidth, source node \u{00d7} destination node",
            "LIKWID's per-stream placement: the CPU node's threads read from arrays on the row's node and write into an array on the column's node.",
        );
        tables::stream_matrix_body(p, r);
        p.section_close();
    })
}

/// A page of its own: the header (`title` and `facts`: what was measured, the machine), the
/// warnings in a banner when there are any, what `body` writes and the footer.
pub(super) fn page(
    title: &str,
    facts: &[String],
    warnings: &[String],
    body: impl FnOnce(&mut Page),
) -> String {
    let lower = format!("numascope {}", title.to_lowercase());
    let mut p = Page::open(&lower, "", title, facts);
    p.push("</header>\n");
    if !warnings.is_empty() {
        p.banner("<div class=\"banner verdict\">", warnings, usize::MAX);
    }
    body(&mut p);
    p.close(&format!(
        "numascope {} \u{00b7} MB = 10^6 bytes, KiB/MiB = 2^10/2^20 bytes",
        env!("CARGO_PKG_VERSION")
    ))
}

/// What a page of its own measured, then the machine, for its header.
fn facts(what: &str, env: &Environment) -> Vec<String> {
    std::iter::once(what.to_string())
        .chain(super::machine_facts(env))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::peak_bandwidth_report;
    use crate::render::tables_view::fixture::{rightmark_example, stream_example};
    use crate::run::sample;

    use super::super::tests::section_of as section;

    /// `bandwidth --peak --html` draws the run report's per-mix bars (wide and for
    /// a phone) with their whiskers and the L3-domain table, and nothing it did not measure.
    #[test]
    fn the_peak_page_has_the_run_reports_bars_and_domain_table() {
        let html = render_bandwidth(&peak_bandwidth_report(), &sample::opteron_topology());
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
        let s = section(&html, "peak");
        assert_eq!(s.matches("<svg ").count(), 2, "{s}");
        assert!(s.contains("Peak injection per mix, node 0"));
        assert!(s.contains("whiskers the 95 % interval"));
        assert!(s.contains("L3 domain (CPUs)"), "{s}");
        assert!(s.contains("one L3 domain"));
        for absent in [
            "id=\"bandwidth\"",
            "id=\"scaling\"",
            "Not measured",
            "<script",
        ] {
            assert!(!html.contains(absent), "{absent}");
        }
    }

    /// The other variants: the kernels table and the matrix's heat maps (the Opteron run),
    /// the scaling curve.
    #[test]
    fn kernel_matrix_and_scaling_pages_reuse_the_run_sections() {
        let topo = sample::opteron_topology();
        let opteron = crate::render::fixture::opteron_example();
        let html = render_bandwidth(opteron.bandwidth.as_ref().unwrap(), &topo);
        assert!(section(&html, "bandwidth").contains("<table"));
        // The Opteron run has a matrix: its heat maps, not a bar per cell.
        assert!(!opteron.bandwidth.as_ref().unwrap().matrix.is_empty());
        assert!(section(&html, "bandwidth-matrix").contains("<figure class=\"heatmap\">"));
        assert!(!html.contains("Bandwidth per kernel"));
        let mut kernels = opteron.bandwidth.clone().unwrap();
        kernels.matrix.clear();
        kernels.results.truncate(2);
        kernels.results[1].stride_elements = Some(8);
        let html = render_bandwidth(&kernels, &topo);
        let s = section(&html, "bandwidth");
        assert_eq!(
            s.matches("<svg ").count(),
            2,
            "the bars, wide and for a phone"
        );
        assert!(
            s.contains("Bandwidth per kernel") && s.contains("stride 64 B"),
            "{s}"
        );
        let html = render_bandwidth(&sample::scaling(0, &[(1, 5000.0), (2, 9000.0)]), &topo);
        assert_eq!(section(&html, "scaling").matches("<svg ").count(), 2);
        assert!(!html.contains("id=\"peak\""));
    }

    /// A one-cell matrix: the run report names the local bandwidth card it repeats, the page
    /// of `bandwidth --matrix --html` (no cards) shows the cell.
    #[test]
    fn a_one_cell_matrix_is_shown_where_no_card_holds_it() {
        let mut r = crate::render::fixture::opteron_example();
        let m = &mut r.bandwidth.as_mut().unwrap().matrix[0];
        m.cells.retain(|c| c.initiator == 0 && c.target == 0);
        (m.initiators, m.targets) = (vec![0], vec![0]);
        let cell = "Measured bandwidth (MB/s), CPU node 0 \u{2192} memory node 0</dt><dd>";
        let run = super::super::render(&r);
        let s = section(&run, "bandwidth-matrix");
        assert!(
            !s.contains(cell) && s.contains("is the local bandwidth card above"),
            "{s}"
        );
        let html = render_bandwidth(r.bandwidth.as_ref().unwrap(), &sample::opteron_topology());
        let s = section(&html, "bandwidth-matrix");
        assert!(s.contains(cell) && !s.contains("card above"), "{s}");
    }

    /// The node tables' pages: six heat maps and the article's layout; one heat map per
    /// per-stream matrix; warnings escaped.
    #[test]
    fn node_table_pages_have_their_heat_maps() {
        let mut rm = rightmark_example();
        rm.warnings = vec!["<b>disturbed</b> & retaken".into()];
        let html = render_rightmark(&rm);
        let s = section(&html, "rightmark");
        assert_eq!(s.matches("<figure class=\"heatmap\">").count(), 6);
        assert!(s.contains("average read, MB/s") && s.contains("x0.655"));
        assert!(html.contains("&lt;b&gt;disturbed&lt;/b&gt; &amp; retaken"));
        assert!(!html.contains("<b>disturbed"));
        let sm = stream_example();
        let html = render_stream_matrix(&sm);
        let s = section(&html, "stream-matrix");
        assert_eq!(
            s.matches("<figure class=\"heatmap\">").count(),
            sm.matrices.len()
        );
        assert!(s.contains("source \\ destination") && s.contains("x0.655"));
    }
}
