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
use crate::render::tables_view::{figure_text, ratio_text, rightmark_heatmaps, stream_heatmap};
use crate::results::tables::{RightmarkReport, StreamMatrix, StreamMatrixReport};
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
    let t = layout(rm);
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
        let t = stream_layout(m);
        let cols: Vec<usize> = (0..t.columns.len()).collect();
        p.table(&t, &cols, &|_| false);
    }
}

/// Source rows x destination columns, each cell `median [interval] n=6 · x0.80 [..]`.
fn stream_layout(m: &StreamMatrix) -> Table {
    let mut columns = vec!["source \\ destination".to_string()];
    columns.extend(m.destination_nodes.iter().map(|d| format!("node {d}")));
    let rows = m
        .source_nodes
        .iter()
        .map(|&s| {
            let mut row = vec![Cell::Text(format!("node {s}"))];
            for &d in &m.destination_nodes {
                let c = m
                    .cells
                    .iter()
                    .find(|c| c.source_node == s && c.destination_node == d);
                row.push(Cell::Text(match c {
                    Some(c) => match &c.mb_per_s.ratio_to_local {
                        Some(x) => {
                            format!("{} \u{00b7} {}", figure_text(&c.mb_per_s), ratio_text(x))
                        }
                        None => figure_text(&c.mb_per_s),
                    },
                    None => "-".into(),
                }));
            }
            row
        })
        .collect();
    Table {
        name: "stream_matrix_layout",
        title: "Per-stream placement".into(),
        keys: columns.clone(),
        columns,
        rows,
    }
}

/// The article's layout: one row per column of the table, one column per cell, each cell
/// `median [interval] n=9`, remote cells followed by `x0.65 [0.64, 0.66]`.
fn layout(r: &RightmarkReport) -> Table {
    let mut columns = vec!["figure".to_string(), "unit".to_string()];
    for c in &r.cells {
        columns.push(format!(
            "CPU node {} \u{2192} memory node {}{}",
            c.cpu_node,
            c.memory_node,
            if c.local { " (local)" } else { "" }
        ));
    }
    let rows = r
        .metrics
        .iter()
        .map(|&m| {
            let mut row = vec![Cell::Text(m.label().into()), Cell::Text(m.unit().into())];
            for c in &r.cells {
                row.push(Cell::Text(match c.figure(m) {
                    Some(f) => match &f.ratio_to_local {
                        Some(x) => format!("{} \u{00b7} {}", figure_text(f), ratio_text(x)),
                        None => figure_text(f),
                    },
                    None => "-".into(),
                }));
            }
            row
        })
        .collect();
    Table {
        name: "rightmark_layout",
        title: "RightMark table".into(),
        keys: columns.clone(),
        columns,
        rows,
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
