//! Terminal rendering of loaded latency: the placement of each role, the points of the curve
//! (total bandwidth, the chaser's median and p99, per-thread rates), the curve's headline
//! figures, a small ASCII sketch of latency against bandwidth, and the NUMA counters. The
//! matrix form prints one line per initiator x target cell.

use std::io::{self, Write};

use comfy_table::{presets::NOTHING, CellAlignment, Table};

use super::traffic_text;
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::loaded::CurvePoint;
use crate::results::loaded::{LoadedMatrix, LoadedReport, LoadedResult};

pub fn render(r: &LoadedReport, out: &mut dyn Write) -> io::Result<()> {
    match r {
        LoadedReport::Curve(c) => render_curve(c, out),
        LoadedReport::Matrix(m) => render_matrix(m, out),
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

fn fmt_opt_mb(v: Option<f64>) -> String {
    match v {
        Some(x) => format!("{x:.0} MB/s"),
        None => "not reached".into(),
    }
}

pub fn render_curve(r: &LoadedResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Loaded latency: chaser on CPU {} (node {}), random chase over {} of {} pages on node {} ({:.0}% of pages verified there)",
        r.chaser_cpu,
        r.chaser_node.map_or("?".into(), |n| n.to_string()),
        format_bytes(r.chaser_size_bytes),
        r.page_size.label(),
        r.mem_node,
        100.0 * r.chaser_placement.fraction_on_intended
    )?;
    writeln!(
        out,
        "load: {} thread(s) on CPUs {}, kernel {}, {} private per thread on node {} ({:.0}% verified); {} ms per point",
        r.load_cpus.len(),
        format_list(&r.load_cpus),
        r.kernel_label,
        format_bytes(r.load_size_bytes_per_thread),
        r.load_mem_node,
        100.0 * r.load_placement_fraction,
        r.duration_ms_per_point
    )?;
    writeln!(
        out,
        "delay spin: {:.3} ns per iteration (calibrated on CPU {}, r^2 {:.4})",
        r.delay_calibration.ns_per_iteration,
        r.delay_calibration
            .cpu
            .map_or("?".into(), |c| c.to_string()),
        r.delay_calibration.r_squared
    )?;
    writeln!(out)?;
    writeln!(out, "{}", super::width::fit(&points_table(r)))?;
    writeln!(out, "{}", r.counting)?;
    writeln!(out)?;
    writeln!(
        out,
        "idle latency {:.1} ns; latency doubled at {}; peak {:.0} MB/s (latency there {:.1} ns)",
        r.curve.idle_ns_per_load,
        fmt_opt_mb(r.curve.doubled_at_mb_per_s),
        r.curve.peak_mb_per_s,
        r.curve.ns_per_load_at_peak
    )?;
    writeln!(out, "{}", trend_sentence(r))?;
    writeln!(out)?;
    sketch(&r.curve_points(), out)?;
    traffic_text::render(&r.traffic, out)?;
    let q = super::verdict::of_checks(&crate::results::findings::loaded_checks(r));
    super::verdict::write_text(out, Some(&q), &r.warnings, "")
}

/// One row per point of the curve: load asked, delay, bandwidths, latency, per-thread rates.
fn points_table(r: &LoadedResult) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    t.set_header(vec![
        "load asked",
        "delay ns",
        "total MB/s",
        "load MB/s",
        "chaser MB/s",
        "median ns [95 % interval]",
        "p99 ns",
        "samples",
        "per load thread MB/s",
    ]);
    for p in &r.points {
        let per: Vec<String> = p
            .threads
            .iter()
            .filter(|t| t.role == "load")
            .map(|t| format!("{:.0}", t.mb_per_s))
            .collect();
        t.add_row(vec![
            p.target_fraction
                .map_or("none".into(), |f| format!("{:.0}%", 100.0 * f)),
            match p.delay_ns {
                None => "no load".into(),
                Some(d) => format!("{d:.0}"),
            },
            format!("{:.0}", p.total_mb_per_s),
            format!("{:.0}", p.load_mb_per_s),
            format!("{:.0}", p.chaser_mb_per_s),
            super::run_view::fmt_ci(&p.ns_per_load, p.quality.as_ref()),
            format!("{:.1}", p.ns_per_load.p99),
            p.ns_per_load.samples.to_string(),
            per.join(" "),
        ]);
    }
    for c in t.column_iter_mut().take(8) {
        c.set_cell_alignment(CellAlignment::Right);
    }
    t
}

/// Latency (rows, ns) against bandwidth (columns, MB/s), one `*` per point.
fn sketch(points: &[CurvePoint], out: &mut dyn Write) -> io::Result<()> {
    const W: usize = 50;
    const H: usize = 10;
    let max_x = points.iter().map(|p| p.mb_per_s).fold(0.0, f64::max);
    let min_y = points
        .iter()
        .map(|p| p.ns_per_load)
        .fold(f64::INFINITY, f64::min);
    let max_y = points.iter().map(|p| p.ns_per_load).fold(0.0, f64::max);
    if points.is_empty() || max_x <= 0.0 || !min_y.is_finite() {
        return Ok(());
    }
    let span_y = (max_y - min_y).max(1e-9);
    let mut grid = vec![vec![' '; W]; H];
    for p in points {
        let x = ((p.mb_per_s / max_x) * (W - 1) as f64).round() as usize;
        let y = (((p.ns_per_load - min_y) / span_y) * (H - 1) as f64).round() as usize;
        grid[H - 1 - y.min(H - 1)][x.min(W - 1)] = '*';
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

fn render_matrix(m: &LoadedMatrix, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Loaded latency, every initiator node x target node (chaser and load threads on the initiator, all buffers on the target)"
    )?;
    let mut t = Table::new();
    t.load_preset(NOTHING);
    t.set_header(vec![
        "initiator",
        "target",
        "idle ns",
        "latency doubled at",
        "peak MB/s",
        "ns at peak",
        "verified",
    ]);
    for c in &m.cells {
        match &c.result {
            Some(r) => t.add_row(vec![
                c.initiator.to_string(),
                c.target.to_string(),
                format!("{:.1}", r.curve.idle_ns_per_load),
                fmt_opt_mb(r.curve.doubled_at_mb_per_s),
                format!("{:.0}", r.curve.peak_mb_per_s),
                format!("{:.1}", r.curve.ns_per_load_at_peak),
                format!(
                    "{:.0}%",
                    100.0
                        * r.chaser_placement
                            .fraction_on_intended
                            .min(r.load_placement_fraction)
                ),
            ]),
            None => t.add_row(vec![
                c.initiator.to_string(),
                c.target.to_string(),
                "-".into(),
                c.note.clone().unwrap_or_default(),
                "-".into(),
                "-".into(),
                "-".into(),
            ]),
        };
    }
    writeln!(out, "{}", super::width::fit(&t))?;
    writeln!(out, "MB = 10^6 B")?;
    if let Some(r) = m.cells.iter().find_map(|c| c.result.as_ref()) {
        traffic_text::render(&r.traffic, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut out = Vec::new();
        sketch(&pts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("    300 ns |") && lines[0].ends_with('*'),
            "{text}"
        );
        assert!(lines[9].starts_with("    100 ns |*"), "{text}");
        assert!(lines[11].contains("1000 MB/s total"));
        assert_eq!(fmt_opt_mb(None), "not reached");
        assert_eq!(fmt_opt_mb(Some(1234.4)), "1234 MB/s");
        let mut empty = Vec::new();
        sketch(&[], &mut empty).unwrap();
        assert!(empty.is_empty());
    }
}
