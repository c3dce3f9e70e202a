//! Terminal rendering of loaded latency: the placement of each role, the points of the curve
//! (total bandwidth, the chaser's median and p99, per-thread rates), the curve's headline
//! figures, a small ASCII sketch of latency against bandwidth, and the NUMA counters. A
//! family of load mixes prints one headline row per mix (idle latency and the latency at the
//! maximum bandwidth with their intervals, the doubling point where more than one point
//! supports it), every mix's points with the shared idle point once, and one sketch of every
//! curve. The matrix form prints one row per initiator x target cell and mix, the cells not
//! measured, and the warnings under one verdict. The tables are run_view's
//! ([`loaded_summary_for_people`], [`loaded_points_for_people`]), the ones the HTML pages and
//! the CSV files hold.

use std::io::{self, Write};

use super::inspect::traffic as traffic_text;
use super::run_view::loaded::bandwidth_note;
use super::run_view::loaded_family::shares_idle;
use super::run_view::loaded_family::{curve_warnings, loaded_points_for_people, matrix_notes};
use super::run_view::loaded_family::{loaded_summary_for_people, POINT_KEYS};

use crate::results::format::{format_bytes, format_list};
use crate::results::loaded::{CurvePoint, LoadedMatrix, LoadedReport, LoadedResult};

pub fn render(r: &LoadedReport, out: &mut dyn Write) -> io::Result<()> {
    match r {
        LoadedReport::Curve(c) => render_curves(&[c], None, out),
        LoadedReport::Matrix(m) => render_matrix(m, out),
        LoadedReport::Family(f) => {
            render_curves(&f.curves.iter().collect::<Vec<_>>(), Some(&f.order), out)
        }
    }
}

/// Symbols of the curves in a sketch of several, in order.
const SYMBOLS: &[char] = &['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

/// The columns of a headline table (one row per curve, as the HTML and
/// `loaded_summary.csv` hold them) after the curve's own: idle latency, doubling, maximum
/// bandwidth and the latency there with their intervals, the disturbed points.
const HEADLINE_KEYS: &[&str] = &[
    "idle_ns_per_load_median",
    "doubled_at_mb_per_s",
    "max_mb_per_s",
    "ns_per_load_at_max_median",
    "points_count",
    "disturbed_points_count",
];

/// What the headline figures are: MB, the idle point shared by every curve (`shared`), how
/// a point is summarized, when the doubling is stated.
fn headline_note(curves: &[&LoadedResult], shared: bool, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "MB = 10^6 B. {}{} The doubling is stated only with more than one point at or beyond it.",
        match shared {
            true => "The idle point is measured once and heads every curve. ",
            false => "",
        },
        bandwidth_note(curves)
    )
}

/// The counters of the first curve, then the curves' warnings, each once, under the verdict
/// of their figure checks: every point of a placement's first curve, the loaded points of its
/// further mixes (the idle point they share is one figure, counted once). Nothing after the
/// counters when there are neither checks nor warnings.
fn counters_and_verdict(curves: &[&LoadedResult], out: &mut dyn Write) -> io::Result<()> {
    if let Some(r) = curves.first() {
        traffic_text::render(&r.traffic, out)?;
    }
    let checks: Vec<_> = curves
        .iter()
        .zip(shares_idle(curves))
        .flat_map(|(r, shared)| {
            let checks = crate::results::verdict::loaded_checks(r);
            checks.into_iter().skip(usize::from(shared))
        })
        .collect();
    let warnings = curve_warnings(curves);
    if checks.is_empty() && warnings.is_empty() {
        return Ok(());
    }
    let q = crate::render::words::verdict::of_checks(&checks);
    crate::render::words::verdict::write_text(out, Some(&q), &warnings, "")
}

/// One headline row per initiator x target cell and mix, what was not measured, the counters
/// and the cells' warnings under one verdict.
fn render_matrix(m: &LoadedMatrix, out: &mut dyn Write) -> io::Result<()> {
    let from = match &m.load_nodes {
        None => "the initiator's other CPUs".to_string(),
        Some(n) => format!("the CPUs of node(s) {} but the chaser's", format_list(n)),
    };
    let onto = match m.load_mem_node {
        None => "the target".to_string(),
        Some(n) => format!("node {n}"),
    };
    writeln!(
        out,
        "Loaded latency, every initiator node x target node (chaser on the initiator's first CPU, chased buffer on the target; load from {from} onto {onto})"
    )?;
    let curves: Vec<&LoadedResult> = m.cells.iter().flat_map(|c| c.curves()).collect();
    let first = [
        "cpu_node",
        "memory_node",
        "mix",
        "load_cpus",
        "load_memory_node",
    ];
    write!(
        out,
        "{}",
        loaded_summary_for_people(&curves).text(&[&first, HEADLINE_KEYS].concat())
    )?;
    for n in matrix_notes(m) {
        writeln!(out, "{n}")?;
    }
    headline_note(&curves, false, out)?;
    counters_and_verdict(&curves, out)
}

/// One curve, or several mixes from one placement (`order` saying how they were measured):
/// the placement once, one headline row per curve, every point (the shared idle point
/// once), each curve's trend, one sketch of every curve, the counters and the verdict.
pub fn render_curves(
    curves: &[&LoadedResult],
    order: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some(r) = curves.first() else {
        return writeln!(out, "Loaded latency: no curve was measured");
    };
    let several = curves.len() > 1;
    // Several mixes: each row names its curve, and the load line no kernel.
    let (what, first): (_, &[&str]) = match several {
        true => (
            format!("Loaded latency, {} load mixes", curves.len()),
            &["curve"],
        ),
        false => ("Loaded latency".to_string(), &[]),
    };
    writeln!(out, "{}", chaser_line(&what, r))?;
    let kernel = (!several).then_some(r.kernel_label.as_str());
    writeln!(out, "{}", load_line(r, kernel))?;
    writeln!(out, "{}", delay_line(r))?;
    if let Some(o) = order {
        writeln!(out, "order: {o}")?;
    }
    writeln!(out)?;
    let headline = loaded_summary_for_people(curves).text(&[first, HEADLINE_KEYS].concat());
    write!(out, "{headline}")?;
    headline_note(curves, several, out)?;
    writeln!(out)?;
    // Every point, the idle point once per placement.
    let points = loaded_points_for_people(curves).text(&[first, POINT_KEYS].concat());
    write!(out, "{points}")?;
    writeln!(out, "{}", r.counting)?;
    for c in curves {
        let full = format!("full speed {:.1} ns per line", c.full_speed_ns_per_line);
        writeln!(
            out,
            "mix {} ({full}): {}",
            c.kernel_label,
            trend_sentence(c)
        )?;
    }
    writeln!(out)?;
    let series: Vec<(char, Vec<CurvePoint>)> = curves
        .iter()
        .zip(SYMBOLS.iter().cycle())
        .map(|(c, &s)| (if several { s } else { '*' }, c.curve_points()))
        .collect();
    sketch_series(&series, out)?;
    if several {
        let legend: Vec<String> = series
            .iter()
            .zip(curves)
            .map(|((s, _), c)| format!("{s} = {}", c.kernel_label))
            .collect();
        writeln!(out, "{}", legend.join(", "))?;
    }
    counters_and_verdict(curves, out)
}

/// `delay spin: 0.500 ns per iteration (calibrated on CPU 1, r^2 0.9990)`.
fn delay_line(r: &LoadedResult) -> String {
    let d = &r.delay_calibration;
    format!(
        "delay spin: {:.3} ns per iteration (calibrated on CPU {}, r^2 {:.4})",
        d.ns_per_iteration,
        d.cpu.map_or("?".into(), |c| c.to_string()),
        d.r_squared
    )
}

/// How the points were cut into blocks, after "ms per point": `, in 6 blocks of 17 ms
/// spread over the sweep`; empty for a file written before blocks.
fn blocks_clause(r: &LoadedResult) -> String {
    match (r.blocks_per_point, r.block_ms) {
        (Some(n), Some(ms)) => format!(", in {n} blocks of {ms:.0} ms spread over the sweep"),
        _ => String::new(),
    }
}

/// The trend in words: the rise at the peak and the rank correlation, and what a flat curve
/// means (too little load for this memory system).
pub fn trend_sentence(r: &LoadedResult) -> String {
    let c = &r.curve;
    let rho = c
        .rank_correlation
        .map_or("not defined".into(), |x| format!("{x:+.2}"));
    let Some(rise) = c.rise_at_peak_fraction else {
        return format!("trend: rank correlation of latency with bandwidth {rho}");
    };
    let mut s = format!(
        "trend: latency {:+.0}% from idle to the peak; rank correlation of latency with bandwidth {rho}",
        100.0 * rise
    );
    if rise < 0.10 && c.doubled_at_mb_per_s.is_none() {
        s.push_str(&format!(
            " (flat: {} load thread(s) reaching {:.0} MB/s do not load this memory system enough to delay the chaser; add load threads with --load-cpus where the machine has CPUs for them)",
            r.load_cpus.len(),
            c.peak_mb_per_s
        ));
    }
    s
}

/// `{what}: chaser on CPU 0 (node 0), random chase over 64 MiB of 4k pages on node 0 (100% of
/// pages verified there)`.
pub(crate) fn chaser_line(what: &str, r: &LoadedResult) -> String {
    format!(
        "{what}: chaser on CPU {} (node {}), random chase over {} of {} pages on node {} ({:.0}% of pages verified there)",
        r.chaser_cpu,
        r.chaser_node.map_or("?".into(), |n| n.to_string()),
        format_bytes(r.chaser_size_bytes),
        r.page_size.label(),
        r.mem_node,
        100.0 * r.chaser_placement.fraction_on_intended
    )
}

/// `load: 1 thread(s) on CPUs 1, kernel read, 64 MiB private per thread on node 0 (100%
/// verified); 200 ms per point`; a family's mixes name their kernels elsewhere (`None`).
fn load_line(r: &LoadedResult, kernel: Option<&str>) -> String {
    format!(
        "load: {} thread(s) on CPUs {}, {}{} private per thread on node {} ({:.0}% verified); {} ms per point{}",
        r.load_cpus.len(),
        format_list(&r.load_cpus),
        kernel.map_or(String::new(), |k| format!("kernel {k}, ")),
        format_bytes(r.load_size_bytes_per_thread),
        r.load_mem_node,
        100.0 * r.load_placement_fraction,
        r.duration_ms_per_point,
        blocks_clause(r)
    )
}

/// Latency (rows, ns) against bandwidth (columns, MB/s) for the curves on common axes, each
/// point drawn with its curve's symbol (a later curve's symbol covers an earlier one's in
/// the same character cell).
fn sketch_series(series: &[(char, Vec<CurvePoint>)], out: &mut dyn Write) -> io::Result<()> {
    const W: usize = 50;
    const H: usize = 10;
    let points = || series.iter().flat_map(|s| s.1.iter());
    let max_x = points().map(|p| p.mb_per_s).fold(0.0, f64::max);
    let min_y = points()
        .map(|p| p.ns_per_load)
        .fold(f64::INFINITY, f64::min);
    let max_y = points().map(|p| p.ns_per_load).fold(0.0, f64::max);
    if points().next().is_none() || max_x <= 0.0 || !min_y.is_finite() {
        return Ok(());
    }
    let span_y = (max_y - min_y).max(1e-9);
    let mut grid = vec![vec![' '; W]; H];
    for (symbol, pts) in series {
        for p in pts {
            let x = ((p.mb_per_s / max_x) * (W - 1) as f64).round() as usize;
            let y = (((p.ns_per_load - min_y) / span_y) * (H - 1) as f64).round() as usize;
            grid[H - 1 - y.min(H - 1)][x.min(W - 1)] = *symbol;
        }
    }
    for (i, row) in grid.iter().enumerate() {
        let label = if i == 0 {
            format!("{max_y:>7.0} ns")
        } else if i == H - 1 {
            format!("{min_y:>7.0} ns")
        } else {
            " ".repeat(10)
        };
        writeln!(out, "{label} |{}", row.iter().collect::<String>())?;
    }
    writeln!(out, "{} +{}", " ".repeat(10), "-".repeat(W))?;
    writeln!(
        out,
        "{}  0{:>w$}",
        " ".repeat(10),
        format!("{max_x:.0} MB/s total"),
        w = W - 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::loaded::{LoadedFamily, LoadedMatrix};

    #[test]
    fn the_sketch_puts_low_bandwidth_low_latency_bottom_left() {
        let pts = [
            CurvePoint {
                mb_per_s: 0.0,
                ns_per_load: 100.0,
            },
            CurvePoint {
                mb_per_s: 1000.0,
                ns_per_load: 300.0,
            },
        ];
        let text = crate::render::fixture::written(|o| sketch_series(&[('*', pts.to_vec())], o));
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("    300 ns |") && lines[0].ends_with('*'),
            "{text}"
        );
        assert!(lines[9].starts_with("    100 ns |*"), "{text}");
        assert!(lines[11].contains("1000 MB/s total"));
        let mut empty = Vec::new();
        sketch_series(&[('*', vec![])], &mut empty).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn a_family_prints_one_headline_row_and_one_table_per_mix() {
        use crate::results::loaded::{LoadedMatrixCell, LOADED_SCHEMA_VERSION};
        let read = crate::render::fixture::opteron_example()
            .loaded_latency
            .unwrap();
        let mut mix = read.clone();
        mix.kernel_label = "read:write 2:1".into();
        let f = LoadedFamily {
            schema_version: LOADED_SCHEMA_VERSION,
            order: "interleaved".into(),
            curves: vec![read.clone(), mix.clone()],
        };
        let text = crate::render::fixture::written(|o| render(&LoadedReport::Family(f), o));
        assert!(text.starts_with("Loaded latency, 2 load mixes"), "{text}");
        assert_eq!(text.matches("\nmix read").count(), 2, "{text}");
        assert!(text.contains("a = read, b = read:write 2:1"), "{text}");
        assert!(text.contains("order: interleaved"));
        // A one-node matrix says it is a single cell.
        let m = LoadedMatrix {
            schema_version: LOADED_SCHEMA_VERSION,
            initiators: vec![0],
            targets: vec![0],
            cells: vec![LoadedMatrixCell {
                initiator: 0,
                target: 0,
                result: Some(read),
                note: None,
                further_mixes: vec![mix],
            }],
            load_nodes: None,
            load_mem_node: None,
        };
        let text = crate::render::fixture::written(|o| render(&LoadedReport::Matrix(m), o));
        assert!(text.contains("load from the initiator's other CPUs onto the target"));
        assert!(
            text.contains("so the matrix is the single cell 0 -> 0"),
            "{text}"
        );
        assert!(text.contains("read:write 2:1"));
    }
}
