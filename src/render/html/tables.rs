//! The RightMark section of the HTML report: one heatmap per column of the table (CPU node x
//! memory node, cells coloured by the median), two side by side, then the table itself in the
//! article's layout with every figure's interval and every remote figure's ratio to its row's
//! local one; and the per-stream matrix's section, one heatmap per kernel and CPU node. The
//! bodies are shared with the pages `rightmark --html` and `bandwidth --stream-matrix --html`
//! write on their own (`super::standalone`).

use std::fmt::Write as _;

use super::esc;
use super::page::Page;
use crate::render::run_view::{Cell, Table};
use crate::render::svg;
use crate::render::tables_view::{
    rightmark_heatmaps, rightmark_layout, stream_heatmap, stream_layout, LayoutStyle,
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
    let _ = write!(
        p.html,
        "<p class=\"lead\">{}</p>",
        esc(&format!(
            "Medians over {} interleaved rounds; one thread on each CPU node's first CPU, a {} block on the memory node, {} pages. MB = 10^6 bytes; latency in ns per load (pseudo-random: the page-local chase; random: the whole block). Ratios to the local cell are in the table.",
            rm.rounds,
            crate::results::format::format_bytes(rm.block_bytes),
            rm.page_size
        ))
    );
    let style = LayoutStyle {
        first: "figure",
        arrow: "\u{2192}",
        sep: " \u{00b7} ",
    };
    let t = text_table(
        "rightmark_layout",
        "RightMark table",
        rightmark_layout(rm, &style),
    );
    let cols: Vec<usize> = (0..t.columns.len()).collect();
    p.table(&t, &cols, &|_| false);
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
        let _ = write!(
            p.html,
            "<p class=\"lead\">{}</p>",
            esc(&format!(
                "{} on CPU node {} with {} threads (CPUs {}); rows: the node of the read stream, columns: the node of the written stream; MB/s of application bytes (MB = 10^6 bytes), medians over {} interleaved rounds of {} ms; the ratio is to both streams on node {}.",
                m.kernel,
                m.cpu_node,
                m.cpus.len(),
                crate::results::format::format_list(&m.cpus),
                sm.rounds,
                sm.repetition_ms,
                m.cpu_node
            ))
        );
        let layout = stream_layout(m, " \u{00b7} ");
        let t = text_table("stream_matrix_layout", "Per-stream placement", layout);
        let cols: Vec<usize> = (0..t.columns.len()).collect();
        p.table(&t, &cols, &|_| false);
    }
}

/// A layout's headers and rows as a table of text for [`Page::table`].
fn text_table(
    name: &'static str,
    title: &str,
    (columns, rows): (Vec<String>, Vec<Vec<String>>),
) -> Table {
    Table {
        name,
        title: title.into(),
        keys: columns.clone(),
        columns,
        rows: rows
            .into_iter()
            .map(|r| r.into_iter().map(Cell::Text).collect())
            .collect(),
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
