//! The RightMark section of the HTML report: one heatmap per column of the table (CPU node x
//! memory node, cells coloured by the median), two side by side, then the table itself in the
//! article's layout with every figure's interval and every remote figure's ratio to its row's
//! local one; and the per-stream matrix's section, one heatmap per kernel and CPU node. The
//! bodies are shared with the pages `rightmark --html` and `bandwidth --stream-matrix --html`
//! write on their own (`super::standalone`).

use super::page::Page;
use crate::render::svg;
use crate::render::tables_view::{
    rightmark_heatmaps, rightmark_layout, rightmark_notes, stream_heatmap, stream_layout,
    stream_notes,
};
use crate::results::tables::{RightmarkReport, StreamMatrixReport};
use crate::results::RunResults;

pub(super) fn rightmark(p: &mut Page, r: &RunResults) -> bool {
    r.rightmark
        .as_ref()
        .map(|rm| rightmark_body(p, rm))
        .is_some()
}

/// The RightMark heatmaps, the sentence on how they were measured and the table: the run
/// report's section and the page `numascope rightmark --html` writes.
pub(super) fn rightmark_body(p: &mut Page, rm: &RightmarkReport) {
    let maps = rightmark_heatmaps(rm);
    for pair in maps.chunks(2) {
        p.heatmap_pair(&pair.iter().collect::<Vec<_>>());
    }
    rightmark_notes(rm).iter().for_each(|n| p.para("lead", n));
    p.table(&rightmark_layout(rm), &[]);
}

pub(super) fn stream_matrix(p: &mut Page, r: &RunResults) -> bool {
    r.stream_matrix
        .as_ref()
        .map(|sm| stream_matrix_body(p, sm))
        .is_some()
}

/// One heatmap, sentence and table per kernel and CPU node: the run report's section and the
/// page `numascope bandwidth --stream-matrix --html` writes.
pub(super) fn stream_matrix_body(p: &mut Page, sm: &StreamMatrixReport) {
    for m in &sm.matrices {
        p.figure(true, vec![svg::heatmap(&stream_heatmap(m))], "");
        stream_notes(sm, m).iter().for_each(|n| p.para("lead", n));
        p.table(&stream_layout(m), &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{render, tests::section_of};
    use crate::render::tables_view::fixture::{rightmark_example, stream_example};

    /// The run report holds the node tables' sections when the run has them (their bodies'
    /// heat maps and ratios: standalone's node_table_pages_have_their_heat_maps) and names
    /// them with the reason when it does not.
    #[test]
    fn six_heatmaps_and_the_ratios_in_the_table() {
        let mut r = crate::render::fixture::opteron_example();
        r.rightmark = Some(rightmark_example());
        r.stream_matrix = Some(stream_example());
        let html = render(&r);
        let sec = section_of(&html, "rightmark");
        assert_eq!(sec.matches("<svg").count(), 6, "{sec}");
        assert!(sec.contains("n=9"));
        let sec = section_of(&html, "stream-matrix");
        assert_eq!(sec.matches("<svg").count(), 1, "{sec}");
        assert!(sec.contains("copy on CPU node 0, MB/s"), "{sec}");
        r.stream_matrix = None;
        r.rightmark = None;
        r.plan.skipped.push(crate::results::plan::SkippedPart {
            part: crate::results::plan::Part::Rightmark,
            reason: "one NUMA node: its one cell would repeat".into(),
        });
        let html = render(&r);
        assert!(!html.contains("id=\"rightmark\""));
        assert!(html.contains("RightMark table (one NUMA node: its one cell would repeat)"));
    }
}
