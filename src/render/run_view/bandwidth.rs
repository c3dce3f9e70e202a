//! The bandwidth part of a run as tables and heatmaps: every kernel result and the node x
//! node matrix beside HMAT.

use super::{grid, nodes_text, Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::RunResults;
use crate::stats::Summary;

/// Bandwidth kernel results as the bandwidth engine recorded them (matrix cells included).
pub fn bandwidth_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "bandwidth",
        "Bandwidth kernels",
        &[
            "kernel",
            "ISA",
            "threads",
            "CPU nodes",
            "memory nodes",
            "placement",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "DRAM MB/s (estimate)",
            "on intended node (fraction)",
            "MB/s median 95 % interval low",
            "MB/s median 95 % interval high",
            "repetitions (n)",
        ],
    );
    for b in r.bandwidth.iter().flat_map(|b| &b.results) {
        t.rows.push(vec![
            Cell::Text(b.kernel.clone()),
            Cell::Text(format!("{:?}", b.isa).to_lowercase()),
            Cell::Int(b.threads as u64),
            Cell::Text(nodes_text(&b.cpu_nodes)),
            Cell::Text(nodes_text(&b.memory_nodes)),
            Cell::Text(b.placement.clone()),
            Cell::Num(b.mb_per_s.median),
            Cell::Num(b.mb_per_s.min),
            Cell::Num(b.mb_per_s.max),
            Cell::Num(b.dram_mb_per_s_estimate.median),
            Cell::Num(b.placement_fraction),
            Cell::opt(b.mb_per_s.ci_low),
            Cell::opt(b.mb_per_s.ci_high),
            Cell::Int(b.mb_per_s.samples as u64),
        ]);
    }
    t
}

/// (initiator, target, median, min, max, HMAT read MB/s) of the first bandwidth matrix.
pub fn bw_matrix_cells(r: &RunResults) -> Vec<(u32, u32, Summary, Option<f64>)> {
    let Some(b) = &r.bandwidth else {
        return Vec::new();
    };
    let Some(m) = b.matrix.first() else {
        return Vec::new();
    };
    m.cells
        .iter()
        .map(|c| {
            let (min, max, n) = b
                .results
                .get(c.result_index)
                .map_or((c.mb_per_s, c.mb_per_s, 1), |x| {
                    (x.mb_per_s.min, x.mb_per_s.max, x.mb_per_s.samples)
                });
            (
                c.initiator,
                c.target,
                Summary {
                    median: c.mb_per_s,
                    min,
                    max,
                    p90: max,
                    p99: max,
                    samples: n,
                    ci_low: None,
                    ci_high: None,
                    ci_level: None,
                },
                c.hmat_read_mb_per_s.map(|v| v as f64),
            )
        })
        .collect()
}

/// Initiator x memory node bandwidth.
pub fn bandwidth_matrix_table(r: &RunResults) -> Table {
    let kernel = r
        .bandwidth
        .as_ref()
        .and_then(|b| b.matrix.first())
        .map(|m| m.kernel.clone());
    let mut t = Table::new(
        "bandwidth_matrix",
        &match kernel {
            Some(k) => format!("Bandwidth, CPU node x memory node ({k} kernel)"),
            None => "Bandwidth, CPU node x memory node".into(),
        },
        &[
            "CPU node",
            "memory node",
            "MB/s (median, MB = 10^6 B)",
            "MB/s min",
            "MB/s max",
            "HMAT read bandwidth MB/s (firmware)",
        ],
    );
    for (a, b, s, h) in bw_matrix_cells(r) {
        t.rows.push(vec![
            Cell::Int(a as u64),
            Cell::Int(b as u64),
            Cell::Num(s.median),
            Cell::Num(s.min),
            Cell::Num(s.max),
            Cell::opt(h),
        ]);
    }
    t
}

/// Measured bandwidth heatmap and HMAT (from the cells, else the topology) beside it.
pub fn bandwidth_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let cells = bw_matrix_cells(r);
    let measured: Vec<(u32, u32, f64)> = cells.iter().map(|c| (c.0, c.1, c.2.median)).collect();
    let m = grid("Measured bandwidth (MB/s)", "MB/s", false, &measured)?;
    let mut hmat: Vec<(u32, u32, f64)> = cells
        .iter()
        .filter_map(|c| Some((c.0, c.1, c.3?)))
        .collect();
    if hmat.is_empty() {
        hmat = cells
            .iter()
            .filter_map(|c| {
                let h = r.topology.hmat_for(c.0, c.1)?;
                Some((c.0, c.1, h.read_bandwidth_mb_s? as f64))
            })
            .collect();
    }
    Some((
        m,
        grid("HMAT read bandwidth (MB/s, firmware)", "MB/s", false, &hmat),
    ))
}
