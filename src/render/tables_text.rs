//! Terminal text of the RightMark table and the per-stream matrix: laid out as the articles
//! print them (the RightMark columns as rows and each CPU node -> memory node as a column;
//! LIKWID's source nodes as rows and destination nodes as columns), every figure with its
//! median, 95 % interval and count, every remote figure with its ratio to the row's local one.

use std::io::{self, Write};

use super::width::indent;

use super::tables_view::{rightmark_layout, stream_layout, LayoutStyle};
use crate::results::format::format_bytes;
use crate::results::tables::{RightmarkReport, StreamMatrixReport};

/// Renders `numascope rightmark`.
pub fn render_rightmark(r: &RightmarkReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "RightMark table: one thread per CPU node, its {} block bound to the memory node, {} pages, {} interleaved rounds",
        format_bytes(r.block_bytes),
        r.page_size,
        r.rounds
    )?;
    writeln!(
        out,
        "  median [95 % interval] n over the rounds; MB/s = 10^6 B/s; latency in ns per load; xR = this / the CPU node's local cell (median of paired rounds)"
    )?;
    let style = LayoutStyle {
        first: "column",
        arrow: "->",
        sep: "  ",
    };
    let (headers, rows) = rightmark_layout(r, &style);
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    write!(out, "{}", indent(&super::width::fit_columns(&h, &rows)))?;
    let cpus: Vec<String> = {
        let mut v: Vec<(u32, u32)> = r.cells.iter().map(|c| (c.cpu_node, c.cpu)).collect();
        v.dedup();
        v.iter()
            .map(|(n, c)| format!("node {n} on CPU {c}"))
            .collect()
    };
    writeln!(
        out,
        "  threads: {}; bandwidth: one warm-up and one {} ms repetition per round (read, write, read-prefetch, write-nt kernels); latency: {} samples of at least {} ms per round (page-local chase = pseudo-random, whole-block chase = random)",
        cpus.join(", "),
        r.bandwidth_repetition_ms,
        r.latency_samples_per_round,
        super::svg::trim_num(r.latency_min_sample_ns as f64 / 1e6, 2)
    )?;
    if r.cells.iter().all(|c| c.local) {
        writeln!(
            out,
            "  one memory node: there is no remote cell, so no local/remote ratio is claimed"
        )?;
    }
    warnings(&r.warnings, out)
}

/// Renders `numascope bandwidth --stream-matrix`.
pub fn render_stream_matrix(r: &StreamMatrixReport, out: &mut dyn Write) -> io::Result<()> {
    for m in &r.matrices {
        writeln!(
            out,
            "Per-stream placement: {}{} on CPU node {} ({} threads, CPUs {}), {} per stream per thread, {} pages, {} interleaved rounds of {} ms",
            m.kernel,
            if m.non_temporal { " (non-temporal stores)" } else { "" },
            m.cpu_node,
            m.cpus.len(),
            crate::results::format::format_list(&m.cpus),
            format_bytes(m.array_bytes_per_thread),
            r.page_size,
            r.rounds,
            r.repetition_ms
        )?;
        writeln!(
            out,
            "  rows: the source (read) stream's node; columns: the destination (written) stream's node; MB/s = 10^6 B/s of application bytes, median [95 % interval] n; xR = this / both streams on node {}",
            m.cpu_node
        )?;
        let (headers, rows) = stream_layout(m, "  ");
        let h: Vec<&str> = headers.iter().map(String::as_str).collect();
        write!(out, "{}", indent(&super::width::fit_columns(&h, &rows)))?;
        if m.cells.len() == 1 {
            writeln!(
                out,
                "  one memory node: there is no remote placement, so no ratio is claimed"
            )?;
        }
        writeln!(out)?;
    }
    warnings(&r.warnings, out)
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
        assert!(t.contains("CPU node 0 -> memory node 1"), "{t}");
        assert!(t.contains("average read"), "{t}");
        assert!(t.contains("n=9"), "{t}");
        assert!(t.contains("x0.5"), "{t}");
        assert!(!t.contains("no local/remote ratio"), "{t}");
    }
}
