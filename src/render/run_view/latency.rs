//! The latency part of a run as tables and charts: the working-set sweep, the node x node
//! matrix and its heatmaps beside the firmware's view (HMAT, else SLIT).

use super::{ci_cells, estimate_cells, grid, Cell, Table};
use crate::render::svg::{ErrorBar, Heatmap, LineChart, Marker, Series, SeriesStyle, XScale};
use crate::results::RunResults;

/// Latency sweep points, one row per working set of each curve.
pub fn latency_sweep_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "latency_sweep",
        "Latency vs working set",
        &[
            ("mode", "mode"),
            ("page_size", "page size"),
            ("chains_count", "chains"),
            ("working_set_bytes", "working set (bytes)"),
        ],
    );
    t.extend_estimate("ns_per_load", "ns per load");
    t.extend([
        ("ns_per_load_min", "ns min"),
        ("ns_per_load_p90", "ns p90"),
        ("cycles_per_load_median", "cycles per load (median)"),
        ("cpu", "CPU"),
        ("memory_node", "memory node"),
        ("on_intended_node_fraction", "on intended node (fraction)"),
        ("huge_page_backed_fraction", "huge-page backed (fraction)"),
    ]);
    for c in r.latency.iter().flat_map(|l| &l.sweep) {
        for p in &c.points {
            let mut row = vec![
                Cell::Text(c.mode.label().into()),
                Cell::Text(c.page_size.label().into()),
                Cell::Int(c.chains as u64),
                Cell::Int(p.working_set_bytes),
            ];
            row.extend(estimate_cells(&p.ns_per_load, p.quality.as_ref()));
            row.extend([
                Cell::Num(p.ns_per_load.min),
                Cell::Num(p.ns_per_load.p90),
                Cell::opt(p.cycles_per_load.as_ref().map(|c| c.median)),
                Cell::Int(p.cpu as u64),
                Cell::int(p.memory_node.map(u64::from)),
                Cell::opt(p.placement_fraction),
                Cell::opt(p.huge_fraction),
            ]);
            t.rows.push(row);
        }
    }
    t
}

/// The latency-vs-working-set chart: one line per mode and page size, cache sizes marked.
pub fn latency_sweep_chart(r: &RunResults) -> Option<LineChart> {
    let l = r.latency.as_ref()?;
    if l.sweep.iter().all(|c| c.points.is_empty()) {
        return None;
    }
    let mut chart = LineChart::new(
        "Latency vs working set",
        "working set (bytes, log scale)",
        "ns per load (median, log scale)",
        XScale::Log2Bytes,
    );
    // Log y: the 1-17 ns cache plateaus and 200 ns DRAM on one readable axis.
    chart.y_log = true;
    for (i, c) in l.sweep.iter().enumerate() {
        for p in &c.points {
            let x = p.working_set_bytes as f64;
            if let (Some(low), Some(high)) = (
                p.ns_per_load.ci.map(|c| c.low),
                p.ns_per_load.ci.map(|c| c.high),
            ) {
                chart.errors.push(ErrorBar {
                    series: i,
                    x,
                    low,
                    high,
                });
            }
            if p.quality.as_ref().is_some_and(|q| q.disturbed) {
                chart.disturbed.push((i, x));
            }
        }
        let chains = if c.chains > 1 {
            format!(", {} chains", c.chains)
        } else {
            String::new()
        };
        chart.series.push(Series {
            name: format!(
                "{} walk, {} pages{chains}",
                c.mode.label(),
                c.page_size.label()
            ),
            points: c
                .points
                .iter()
                .map(|p| (p.working_set_bytes as f64, p.ns_per_load.median))
                .collect(),
            style: SeriesStyle::LinePoints,
        });
    }
    let cpu = l
        .sweep
        .iter()
        .flat_map(|c| c.points.first())
        .map(|p| p.cpu)
        .next();
    if let Some(cpu) = cpu {
        for (level, size) in r.topology.cache_sizes_for_cpu(cpu) {
            chart.markers.push(Marker {
                x: size as f64,
                label: format!("L{level} {}", crate::render::svg::bytes_short(size as f64)),
            });
        }
    }
    for k in first_curve_knees(r) {
        if let Some(b) = k.knee_bytes {
            chart.markers.push(Marker {
                x: b as f64,
                label: format!("{} knee", k.level),
            });
        }
    }
    Some(chart)
}

/// The knees of the curve the chart leads with (the first random walk, else the first).
fn first_curve_knees(r: &RunResults) -> Vec<&crate::results::latency::LevelKnee> {
    let Some(l) = &r.latency else {
        return Vec::new();
    };
    let k = l
        .knees
        .iter()
        .find(|k| k.mode == crate::results::latency::Mode::Random)
        .or(l.knees.first());
    k.map(|k| {
        k.levels
            .iter()
            .filter(|l| l.sysfs_bytes.is_some())
            .collect()
    })
    .unwrap_or_default()
}

/// One sentence on the knees of the sweep: where each cache level's plateau ends, and which
/// levels show none ("no knee found"), so an absent marker is never silent.
pub fn latency_knee_note(r: &RunResults) -> String {
    let knees = first_curve_knees(r);
    if knees.is_empty() {
        return "No knee found: the curve was not analysed for cache levels (no cache sizes \
                from sysfs, or too few points)."
            .into();
    }
    let found: Vec<String> = knees
        .iter()
        .filter_map(|k| {
            Some(format!(
                "{} at {}",
                k.level,
                crate::render::svg::bytes_short(k.knee_bytes? as f64)
            ))
        })
        .collect();
    let missing: Vec<&str> = knees
        .iter()
        .filter(|k| k.knee_bytes.is_none())
        .map(|k| k.level.as_str())
        .collect();
    let mut s = String::from("Knees (where latency leaves a cache level's plateau): ");
    if found.is_empty() {
        s.push_str("none found");
    } else {
        s.push_str(&found.join(", "));
    }
    if !missing.is_empty() {
        s.push_str(&format!(
            "; no knee found for {} (no flat stretch of the curve ends in that level's range)",
            missing.join(", ")
        ));
    }
    s.push('.');
    s
}

/// Initiator x memory node latency, with SLIT and HMAT beside each cell.
pub fn latency_matrix_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "latency_matrix",
        "Latency, CPU node x memory node",
        &[
            ("cpu_node", "CPU node"),
            ("memory_node", "memory node"),
            ("working_set_bytes", "working set (bytes)"),
        ],
    );
    t.extend_estimate("ns_per_load", "ns per load");
    t.extend([
        ("ns_per_load_min", "ns min"),
        ("ns_per_load_max", "ns max"),
        ("relative_to_local_ratio", "relative to local"),
        ("slit_distance", "SLIT distance (firmware)"),
        ("hmat_read_latency_ns", "HMAT read latency ns (firmware)"),
        ("on_intended_node_fraction", "on intended node (fraction)"),
        (
            "relative_to_local_ci_low_ratio",
            "relative to local, 95 % low",
        ),
        (
            "relative_to_local_ci_high_ratio",
            "relative to local, 95 % high",
        ),
        (
            "relative_to_local_ci_level_fraction",
            "relative to local, coverage",
        ),
        ("relative_to_local_pairs_count", "rounds paired"),
        ("differs_from_local", "differs from local beyond noise"),
    ]);
    if let Some(m) = r.latency.as_ref().and_then(|l| l.matrix.as_ref()) {
        for c in &m.cells {
            let mut row = vec![
                Cell::Int(c.initiator_node as u64),
                Cell::Int(c.memory_node as u64),
                Cell::Int(m.working_set_bytes),
            ];
            row.extend(estimate_cells(
                &c.result.ns_per_load,
                c.result.quality.as_ref(),
            ));
            row.extend([
                Cell::Num(c.result.ns_per_load.min),
                Cell::Num(c.result.ns_per_load.max),
                Cell::opt(c.measured_ratio),
                Cell::int(c.slit_distance.map(u64::from)),
                Cell::int(c.hmat_read_latency_ns),
                Cell::opt(c.result.placement_fraction),
            ]);
            let p = c.measured_ratio_interval.as_ref();
            row.extend(ci_cells(p.and_then(|p| p.ci)));
            row.extend([
                Cell::int(p.map(|p| p.pairs as u64)),
                match c.differs_from_reference() {
                    Some(d) if c.initiator_node != c.memory_node => Cell::Bool(d),
                    _ => Cell::Missing,
                },
            ]);
            t.rows.push(row);
        }
    }
    t
}

/// "x1.55 [1.50, 1.60]" for a paired ratio with its interval, "x1.55, no interval (3 pairs)"
/// without one, "x1.55" for a quotient of medians (cells measured one after the other).
pub fn matrix_ratio_text(c: &crate::results::latency::MatrixCell) -> Option<String> {
    Some(match &c.measured_ratio_interval {
        Some(p) => crate::render::tables_view::ratio_text(p),
        None => format!("x{}", super::fmt_num(c.measured_ratio?)),
    })
}

/// The line under the matrix on its ratios: each cell other than its row's
/// reference with its paired ratio and interval, and whether it differs from the reference
/// beyond noise (only when the interval excludes 1: "slower" or "faster than local"; else
/// "indistinguishable here (within +-x %)"; "no interval" below six rounds), a disturbed cell
/// marked. `None` when no cell was measured in rounds (cells measured one after the other
/// carry bare quotients, shown in the table alone) or no cell has a reference to compare with.
pub fn matrix_ratio_line(m: &crate::results::latency::Matrix) -> Option<String> {
    let rounds = m
        .cells
        .iter()
        .filter_map(|c| c.measured_ratio_interval.as_ref().map(|p| p.pairs))
        .max()?;
    let items: Vec<String> = m
        .cells
        .iter()
        .filter(|c| c.memory_node != c.initiator_node)
        .filter_map(|c| {
            let p = c.measured_ratio_interval.as_ref()?;
            // The row's reference itself (a row without local memory): every pair is 1.
            if p.ratio == 1.0
                && p.ci.map(|c| c.low) == Some(1.0)
                && p.ci.map(|c| c.high) == Some(1.0)
            {
                return None;
            }
            let verdict = match (
                c.differs_from_reference(),
                p.ci.map(|c| c.low),
                p.ci.map(|c| c.high),
            ) {
                (Some(true), _, _) if p.ratio > 1.0 => " slower than local".to_string(),
                (Some(true), _, _) => " faster than local".to_string(),
                (Some(false), Some(l), Some(h)) => format!(
                    " indistinguishable from local here (within \u{b1}{})",
                    crate::stats::decide::percent((1.0 - l).abs().max((h - 1.0).abs()))
                ),
                // The ratio's text already says it has no interval: no call either way.
                _ => String::new(),
            };
            let mark = if c.result.quality.as_ref().is_some_and(|q| q.disturbed) {
                " (DISTURBED)"
            } else {
                ""
            };
            Some(format!(
                "{}->{} {}{verdict}{mark}",
                c.initiator_node,
                c.memory_node,
                crate::render::tables_view::ratio_text(p)
            ))
        })
        .collect();
    // Where the local cell shows another figure than the rounds measured (run's reference
    // latency), the ratios are against the rounds' figure: name it.
    let mut against: Vec<(u32, f64)> = m
        .cells
        .iter()
        .filter_map(|c| c.reference_in_rounds_ns.map(|ns| (c.initiator_node, ns)))
        .collect();
    against.dedup_by_key(|a| a.0);
    let note = if against.is_empty() {
        String::new()
    } else {
        format!(
            " (ratios against local as measured in the rounds: {}; the local cell shows the run's reference latency)",
            against
                .iter()
                .map(|(n, ns)| format!("{n}->{n} {ns:.0} ns"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    // A matrix of local cells only (one node) has nothing to compare.
    (!items.is_empty()).then(|| {
        format!(
            "Relative to local (CPU node->memory node), paired over {rounds} interleaved rounds with 95 % intervals; a cell differs from local only when its interval excludes 1: {}{note}",
            items.join("; ")
        )
    })
}

/// The measured latency heatmap and the firmware's view beside it (HMAT if declared, else
/// SLIT), restricted to the measured pairs.
pub fn latency_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let m = r.latency.as_ref()?.matrix.as_ref()?;
    let cells: Vec<(u32, u32, Option<f64>)> = m
        .cells
        .iter()
        .map(|c| {
            (
                c.initiator_node,
                c.memory_node,
                Some(c.result.ns_per_load.median),
            )
        })
        .collect();
    let measured = grid("Measured latency (ns)", "ns", true, &cells)?;
    let hmat: Vec<(u32, u32, Option<f64>)> = m
        .cells
        .iter()
        .filter_map(|c| {
            c.hmat_read_latency_ns
                .map(|v| (c.initiator_node, c.memory_node, Some(v as f64)))
        })
        .collect();
    let declared = if !hmat.is_empty() {
        grid("HMAT read latency (ns, firmware)", "ns", true, &hmat)
    } else {
        slit_grid(r, &cells)
    };
    Some((measured, declared))
}

fn slit_grid(r: &RunResults, pairs: &[(u32, u32, Option<f64>)]) -> Option<Heatmap> {
    let slit: Vec<(u32, u32, Option<f64>)> = pairs
        .iter()
        .filter_map(|&(a, b, _)| r.topology.distance(a, b).map(|d| (a, b, Some(d as f64))))
        .collect();
    grid("SLIT distance (firmware)", "", true, &slit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;
    use crate::render::svg::line::ERROR_BAR_OPACITY;

    /// The run's latency chart has a log y axis (decade ticks 1, 10, 100,
    /// so the 1-5 ns cache plateaus show beside DRAM), an error bar per point with an
    /// interval, a hollow disturbed point, and every knee marked or said to be missing.
    #[test]
    fn sweep_chart_has_log_axis_intervals_and_knees() {
        let mut r = opteron_example();
        let l = r.latency.as_mut().unwrap();
        let mut with_ci = 0;
        for p in l.sweep.iter_mut().flat_map(|c| c.points.iter_mut()) {
            let m = p.ns_per_load.median;
            p.ns_per_load.ci = Some(crate::stats::Interval::new(m * 0.97, m * 1.04));
            with_ci += 1;
        }
        let p = &mut l.sweep[0].points[3];
        let q = crate::results::quality::RepetitionQuality {
            disturbed: true,
            ..Default::default()
        };
        p.quality = Some(q);
        let c = latency_sweep_chart(&r).unwrap();
        assert!(c.y_log);
        assert_eq!(c.errors.len(), with_ci);
        assert_eq!(c.disturbed.len(), 1);
        let svg = crate::render::svg::line_chart(&c).unwrap();
        for t in ["1", "10", "100"] {
            assert!(
                svg.contains(&format!(">\n{t}\n</text>")),
                "no decade tick {t}"
            );
        }
        assert_eq!(
            svg.matches(&format!("opacity=\"{ERROR_BAR_OPACITY}\""))
                .count(),
            3 * with_ci
        );
        assert!(svg.contains("hollow: disturbed"));
        assert!(latency_knee_note(&r).starts_with("No knee found"));
        crate::render::fixture::set_knees(
            &mut r,
            &[("L1", 65536, Some(32768)), ("L2", 1048576, None)],
        );
        let note = latency_knee_note(&r);
        assert!(note.contains("L1 at 32K"), "{note}");
        assert!(note.contains("no knee found for L2"), "{note}");
        let c = latency_sweep_chart(&r).unwrap();
        assert!(c.markers.iter().any(|m| m.label == "L1 knee"));
    }

    /// The matrix's ratio line gives each remote cell's paired ratio with its
    /// interval and calls it different from local only when the interval excludes 1; a
    /// disturbed cell keeps its mark; cells measured one after the other give no line.
    #[test]
    fn matrix_ratio_line_calls_a_difference_only_beyond_noise() {
        use crate::results::quality::RepetitionQuality;
        use crate::results::tables::RatioToLocal;
        let mut l = crate::run::sample::latency_matrix(&[
            (0, 0, 45.0, None),
            (0, 1, 70.0, None),
            (1, 0, 46.0, None),
            (1, 1, 45.0, None),
        ]);
        let m = l.matrix.as_mut().unwrap();
        assert_eq!(matrix_ratio_line(m), None);
        m.cells[0].measured_ratio_interval = Some(ratio(1.0, 1.0, 1.0));
        m.cells[1].measured_ratio_interval = Some(ratio(1.55, 1.53, 1.6));
        m.cells[2].measured_ratio_interval = Some(ratio(1.02, 0.99, 1.04));
        m.cells[3].measured_ratio_interval = Some(ratio(1.0, 1.0, 1.0));
        let local_only = crate::results::latency::Matrix {
            cells: vec![m.cells[0].clone()],
            ..m.clone()
        };
        assert_eq!(matrix_ratio_line(&local_only), None, "nothing to compare");
        m.cells[2].result.quality = Some(RepetitionQuality {
            disturbed: true,
            ..RepetitionQuality::default()
        });
        let line = matrix_ratio_line(m).unwrap();
        assert!(line.contains("paired over 9 interleaved rounds"), "{line}");
        assert!(
            line.contains("0->1 x1.55 [1.53, 1.60] slower than local;"),
            "{line}"
        );
        assert!(
            line.ends_with(
                "1->0 x1.02 [0.990, 1.04] indistinguishable from local here (within \u{b1}4 %) (DISTURBED)"
            ),
            "{line}"
        );
        assert!(!line.contains("0->0") && !line.contains("1->1"), "{line}");
        // Row 0's local cell shows the run's reference: the line names the rounds' figure.
        m.cells[1].reference_in_rounds_ns = Some(44.4);
        let line = matrix_ratio_line(m).unwrap();
        assert!(
            line.ends_with(
                " (ratios against local as measured in the rounds: 0->0 44 ns; the local cell shows the run's reference latency)"
            ),
            "{line}"
        );
        m.cells[1].reference_in_rounds_ns = None;
        // Below six rounds: no call either way.
        m.cells[1].measured_ratio_interval = Some(RatioToLocal {
            ci: None,
            pairs: 4,
            ..ratio(1.55, 0.0, 0.0)
        });
        let line = matrix_ratio_line(m).unwrap();
        assert!(
            line.contains("0->1 x1.55, no interval (4 pairs); 1->0"),
            "{line}"
        );
        // The table's CSV columns follow.
        assert_ratio_columns(l);
    }

    /// A ratio to local over 9 pairs with a 96.1 % interval from `lo` to `hi`.
    fn ratio(r: f64, lo: f64, hi: f64) -> crate::results::tables::RatioToLocal {
        crate::results::tables::RatioToLocal {
            ratio: r,
            ci: Some(crate::stats::Interval {
                low: lo,
                high: hi,
                level: 0.961,
            }),
            pairs: 9,
        }
    }

    /// The latency table's columns for the matrix test's cells: a local cell and a cell
    /// without an interval are not judged; the 1->0 cell is not different, over 9 pairs.
    fn assert_ratio_columns(l: crate::results::latency::LatencyReport) {
        let mut r = crate::run::sample::results();
        r.latency = Some(l);
        let t = latency_matrix_table(&r);
        let k = t
            .keys
            .iter()
            .position(|k| k == "differs_from_local")
            .unwrap();
        let p = t
            .keys
            .iter()
            .position(|k| k == "relative_to_local_pairs_count")
            .unwrap();
        assert_eq!(t.rows[0][k], Cell::Missing, "a local cell is not judged");
        assert_eq!(t.rows[2][k], Cell::Bool(false));
        assert_eq!(t.rows[1][k], Cell::Missing, "no interval: not judged");
        assert_eq!(t.rows[2][p], Cell::Int(9));
    }
}
