//! Terminal text of the RightMark table and the per-stream matrix: the sentences and the
//! layouts the HTML report shows too (`tables_view`), laid out as the articles print them
//! (the RightMark columns as rows and each CPU node -> memory node as a column; LIKWID's
//! source nodes as rows and destination nodes as columns), every figure with its median, 95 %
//! interval and count, every remote figure with its ratio to the row's local one.

use std::io::{self, Write};

use super::run_view::Table;
use super::tables_view::{rightmark_layout, rightmark_notes, stream_layout, stream_notes};
use crate::results::tables::{RightmarkReport, StreamMatrixReport};

/// Renders `numascope rightmark`.
pub fn render_rightmark(r: &RightmarkReport, out: &mut dyn Write) -> io::Result<()> {
    notes_and_table(out, &rightmark_notes(r), &rightmark_layout(r))?;
    warnings(&r.warnings, out)
}

/// Renders `numascope bandwidth --stream-matrix`.
pub fn render_stream_matrix(r: &StreamMatrixReport, out: &mut dyn Write) -> io::Result<()> {
    for m in &r.matrices {
        notes_and_table(out, &stream_notes(r, m), &stream_layout(m))?;
        writeln!(out)?;
    }
    warnings(&r.warnings, out)
}

fn notes_and_table(out: &mut dyn Write, notes: &[String], t: &Table) -> io::Result<()> {
    for n in notes {
        writeln!(out, "{n}")?;
    }
    super::view_text::layout(out, t)
}

/// One `warning: ...` line each, as every measuring command ends.
fn warnings(w: &[String], out: &mut dyn Write) -> io::Result<()> {
    for s in w {
        writeln!(out, "warning: {s}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tables_view::fixture::rightmark_example;

    #[test]
    fn the_table_shows_intervals_and_ratios() {
        let r = rightmark_example();
        let t = crate::render::fixture::written(|o| render_rightmark(&r, o));
        assert!(t.contains("CPU node 0 \u{2192} memory node 1"), "{t}");
        assert!(t.contains("average read"), "{t}");
        assert!(t.contains("n=9"), "{t}");
        assert!(t.contains("x0.5"), "{t}");
        assert!(!t.contains("no local/remote ratio"), "{t}");
    }
}
