//! The RightMark section of the HTML report: one heatmap per column of the table (CPU node x
//! memory node, cells coloured by the median), two side by side, then the table itself in the
//! article's layout with every figure's interval and every remote figure's ratio to its row's
//! local one; and the per-stream matrix's section, one heatmap per kernel and CPU node. The
//! bodies are shared with the pages `rightmark --html` and `bandwidth --stream-matrix --html`
//! write on their own (`super::standalone`).

use std::fmt::Write as _;

use super::esc;
use super::page::Page;
use crate::render::svg;
use crate::render::tables_view::{
    rightmark_heatmaps, rightmark_layout, rightmark_notes, stream_heatmap, stream_layout,
    stream_notes,
};
use crate::results::tables::{RightmarkReport, StreamMatrixReport};
use crate::results::RunResults;

pub(super) fn rightmark(p: &mut Page, r: &RunResults) {
    if let Some(rm) = &r.rightmark {
        rightmark_body(p, rm);
    }
}

/// The RightMark heatmaps, the sentence on how they were measured and the table: the run
/// report's section and the page `numascope rightmark --html` writes.
pub(super) fn rightmark_body(p: &mut Page, rm: &RightmarkReport) {
    let maps = rightmark_heatmaps(rm);
    for pair in maps.chunks(2) {
        p.push("<div class=\"pair\">");
        for h in pair {
            p.heatmap_figure(svg::heatmap(h), "");
        }
        p.push("</div>");
    }
    lead(p, &rightmark_notes(rm));
    let t = rightmark_layout(rm);
    let cols: Vec<usize> = (0..t.columns.len()).collect();
    p.table(&t, &cols, &|_| false);
}

/// Each sentence as a lead paragraph.
fn lead(p: &mut Page, notes: &[String]) {
    for n in notes {
        let _ = write!(p.html, "<p class=\"lead\">{}</p>", esc(n));
    }
}

pub(super) fn stream_matrix(p: &mut Page, r: &RunResults) {
    if let Some(sm) = &r.stream_matrix {
        stream_matrix_body(p, sm);
    }
}

/// One heatmap, sentence and table per kernel and CPU node: the run report's section and the
/// page `numascope bandwidth --stream-matrix --html` writes.
pub(super) fn stream_matrix_body(p: &mut Page, sm: &StreamMatrixReport) {
    for m in &sm.matrices {
        p.heatmap_figure(svg::heatmap(&stream_heatmap(m)), "");
        lead(p, &stream_notes(sm, m));
        let t = stream_layout(m);
        let cols: Vec<usize> = (0..t.columns.len()).collect();
        p.table(&t, &cols, &|_| false);
    }
}

#[cfg(test)]
mod tests {
    use crate::render::tables_view::fixture::rightmark_example;

    #[test]
    fn six_heatmaps_and_the_ratios_in_the_table() {
        let mut r = crate::render::fixture::opteron_example();
        r.rightmark = Some(rightmark_example());
        let html = crate::render::html::render(&r);
        let start = html.find("id=\"rightmark\"").expect("the section");
        let sec = &html[start..];
        let sec = &sec[..sec.find("</section>").unwrap()];
        assert_eq!(sec.matches("<svg").count(), 6, "{sec}");
        assert!(sec.contains("average read, MB/s"));
        assert!(sec.contains("x0.655"), "{sec}");
        assert!(sec.contains("n=9"));
        r.stream_matrix = Some(crate::render::tables_view::fixture::stream_example());
        let html = crate::render::html::render(&r);
        let start = html
            .find("id=\"stream-matrix\"")
            .expect("the stream section");
        let sec = &html[start..];
        let sec = &sec[..sec.find("</section>").unwrap()];
        assert_eq!(sec.matches("<svg").count(), 1, "{sec}");
        assert!(
            sec.contains("copy on CPU node 0, MB/s") && sec.contains("x0.655"),
            "{sec}"
        );
        r.stream_matrix = None;
        r.rightmark = None;
        r.plan.skipped.push(crate::results::plan::SkippedPart {
            part: crate::results::plan::Part::Rightmark,
            reason: "one NUMA node: its one cell would repeat".into(),
        });
        let html = crate::render::html::render(&r);
        assert!(!html.contains("id=\"rightmark\""));
        assert!(html.contains("RightMark table (one NUMA node: its one cell would repeat)"));
    }
}
