//! The node x node latency matrix as a table (every cell beside the firmware's SLIT and HMAT,
//! its ratio to local with the paired interval), the line on its ratios and the heat maps:
//! the same figures for the terminal (`latency --matrix`, `report --full`), the CSV files and
//! the HTML.

use super::{ci_cells, estimate_cells, grid, Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::latency::{LatencyReport, MatrixCell};
use crate::results::RunResults;

/// Initiator x memory node latency, with SLIT and HMAT beside each cell.
pub fn latency_matrix_table(l: Option<&LatencyReport>) -> Table {
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
        ("relative_to_local_ratio", "x local"),
        ("slit_distance", "SLIT"),
        ("hmat_read_latency_ns", "HMAT read ns"),
        ("on_intended_node_fraction", "on node (fraction)"),
        ("relative_to_local_ci_low_ratio", "x local, 95 % low"),
        ("relative_to_local_ci_high_ratio", "x local, 95 % high"),
        ("relative_to_local_ci_level_fraction", "x local, coverage"),
        ("relative_to_local_pairs_count", "rounds paired"),
        ("differs_from_local", "differs from local beyond noise"),
        ("cpu", "CPU"),
        ("ns_per_load_p99", "ns p99"),
        ("slit_relative_to_local_ratio", "SLIT/local"),
        ("measured_over_slit_ratio", "measured/SLIT"),
        ("measured_over_hmat_ratio", "measured/HMAT"),
    ]);
    if let Some(m) = l.and_then(|l| l.matrix.as_ref()) {
        t.rows
            .extend(m.cells.iter().map(|c| matrix_row(m.working_set_bytes, c)));
    }
    t
}

/// One row of [`latency_matrix_table`].
fn matrix_row(working_set: u64, c: &MatrixCell) -> Vec<Cell> {
    let s = &c.result.ns_per_load;
    let mut row = vec![
        Cell::Int(c.initiator_node as u64),
        Cell::Int(c.memory_node as u64),
        Cell::Int(working_set),
    ];
    row.extend(estimate_cells(s, c.result.quality.as_ref()));
    row.extend([
        Cell::Num(s.min),
        Cell::Num(s.max),
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
        Cell::Int(c.result.cpu as u64),
        Cell::Num(s.p99),
        Cell::opt(c.slit_ratio),
        Cell::opt(c.measured_over_slit),
        Cell::opt(c.measured_over_hmat),
    ]);
    row
}

/// [`latency_matrix_table`] for people: the median as `45.6 [44.1, 47.0] n=15`, the ratio to
/// local with its paired interval (`x1.55 [1.53, 1.60]`, `tables_view::ratio_text`; a row's
/// reference cell `1`).
pub fn matrix_for_people(t: Table, l: Option<&LatencyReport>) -> Table {
    let mut t = t.with_interval_text("ns_per_load", "ns");
    let x = t.col("relative_to_local_ratio");
    let cells = l.and_then(|l| l.matrix.as_ref()).map(|m| &m.cells);
    for (row, c) in t.rows.iter_mut().zip(cells.into_iter().flatten()) {
        if let Some(p) = &c.measured_ratio_interval {
            row[x] = match is_reference(p) {
                true => Cell::Num(1.0),
                false => Cell::Text(crate::render::tables_view::ratio_text(p)),
            };
        }
    }
    t
}

/// The columns of [`matrix_for_people`] the terminal shows.
pub const MATRIX_KEYS: &[&str] = &[
    "cpu_node",
    "cpu",
    "memory_node",
    "ns_per_load_median",
    "ns_per_load_min",
    "ns_per_load_p99",
    "on_intended_node_fraction",
    "relative_to_local_ratio",
    "slit_distance",
    "slit_relative_to_local_ratio",
    "measured_over_slit_ratio",
    "hmat_read_latency_ns",
    "measured_over_hmat_ratio",
];

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
            if is_reference(p) {
                return None;
            }
            let verdict = match (c.differs_from_reference(), p.ci) {
                (Some(true), _) if p.ratio > 1.0 => " slower than local".to_string(),
                (Some(true), _) => " faster than local".to_string(),
                (Some(false), Some(i)) => format!(
                    " indistinguishable from local here (within \u{b1}{})",
                    crate::stats::decide::percent((1.0 - i.low).abs().max((i.high - 1.0).abs()))
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

/// Whether a cell's ratio is its row's reference itself (a row without local memory takes
/// another cell as its reference): every pair is 1.
fn is_reference(p: &crate::results::tables::RatioToLocal) -> bool {
    p.ratio == 1.0 && p.ci.is_some_and(|c| c.low == 1.0 && c.high == 1.0)
}

/// The measured latency heatmap and the firmware's view beside it (HMAT if declared, else
/// SLIT), restricted to the measured pairs.
pub fn latency_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let m = r.latency.as_ref()?.matrix.as_ref()?;
    let each = |f: &dyn Fn(&MatrixCell) -> Option<f64>| -> Vec<_> {
        let cells = m.cells.iter();
        cells
            .filter_map(|c| Some((c.initiator_node, c.memory_node, Some(f(c)?))))
            .collect()
    };
    let median = |c: &MatrixCell| Some(c.result.ns_per_load.median);
    let measured = grid("Measured latency (ns)", "ns", true, each(&median))?;
    let hmat = each(&|c| c.hmat_read_latency_ns.map(|v| v as f64));
    let declared = match hmat.is_empty() {
        false => grid("HMAT read latency (ns, firmware)", "ns", true, hmat),
        true => {
            let slit = |c: &MatrixCell| {
                let d = r.topology.distance(c.initiator_node, c.memory_node);
                d.map(f64::from)
            };
            grid("SLIT distance (firmware)", "", true, each(&slit))
        }
    };
    Some((measured, declared))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let t = latency_matrix_table(Some(&l));
        let [k, p] = ["differs_from_local", "relative_to_local_pairs_count"].map(|k| t.col(k));
        assert_eq!(t.rows[0][k], Cell::Missing, "a local cell is not judged");
        assert_eq!(t.rows[2][k], Cell::Bool(false));
        assert_eq!(t.rows[1][k], Cell::Missing, "no interval: not judged");
        assert_eq!(t.rows[2][p], Cell::Int(9));
    }
}
