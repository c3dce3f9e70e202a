//! The latency part of a run as tables and charts: the working-set sweep, the node x node
//! matrix and its heatmaps beside the firmware's view (HMAT, else SLIT).

use super::{grid, Cell, Table};
use crate::render::svg::{Heatmap, LineChart, Marker, Series, SeriesStyle, XScale};
use crate::results::RunResults;

/// Latency sweep points, one row per working set of each curve.
pub fn latency_sweep_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "latency_sweep",
        "Latency vs working set",
        &[
            "mode",
            "page size",
            "chains",
            "working set (bytes)",
            "ns per load (median)",
            "ns per load median 95 % interval low",
            "ns per load median 95 % interval high",
            "samples (n)",
            "ns min",
            "ns p90",
            "cycles per load (median)",
            "CPU",
            "memory node",
            "on intended node (fraction)",
            "huge-page backed (fraction)",
        ],
    );
    for c in r.latency.iter().flat_map(|l| &l.sweep) {
        for p in &c.points {
            t.rows.push(vec![
                Cell::Text(c.mode.label().into()),
                Cell::Text(c.page_size.label().into()),
                Cell::Int(c.chains as u64),
                Cell::Int(p.working_set_bytes),
                Cell::Num(p.ns_per_load.median),
                Cell::opt(p.ns_per_load.ci_low),
                Cell::opt(p.ns_per_load.ci_high),
                Cell::Int(p.ns_per_load.samples as u64),
                Cell::Num(p.ns_per_load.min),
                Cell::Num(p.ns_per_load.p90),
                Cell::opt(p.cycles_per_load.as_ref().map(|c| c.median)),
                Cell::Int(p.cpu as u64),
                p.memory_node.map_or(Cell::Missing, |n| Cell::Int(n as u64)),
                Cell::opt(p.placement_fraction),
                Cell::opt(p.huge_fraction),
            ]);
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
        "ns per load (median)",
        XScale::Log2Bytes,
    );
    chart.y_from_zero = true;
    for c in &l.sweep {
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
    Some(chart)
}

/// Initiator x memory node latency, with SLIT and HMAT beside each cell.
pub fn latency_matrix_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "latency_matrix",
        "Latency, CPU node x memory node",
        &[
            "CPU node",
            "memory node",
            "working set (bytes)",
            "ns per load (median)",
            "ns min",
            "ns max",
            "relative to local",
            "SLIT distance (firmware)",
            "HMAT read latency ns (firmware)",
            "on intended node (fraction)",
        ],
    );
    if let Some(m) = r.latency.as_ref().and_then(|l| l.matrix.as_ref()) {
        for c in &m.cells {
            t.rows.push(vec![
                Cell::Int(c.initiator_node as u64),
                Cell::Int(c.memory_node as u64),
                Cell::Int(m.working_set_bytes),
                Cell::Num(c.result.ns_per_load.median),
                Cell::Num(c.result.ns_per_load.min),
                Cell::Num(c.result.ns_per_load.max),
                Cell::opt(c.measured_ratio),
                c.slit_distance
                    .map_or(Cell::Missing, |d| Cell::Int(d as u64)),
                c.hmat_read_latency_ns.map_or(Cell::Missing, Cell::Int),
                Cell::opt(c.result.placement_fraction),
            ]);
        }
    }
    t
}

/// The measured latency heatmap and the firmware's view beside it (HMAT if declared, else
/// SLIT), restricted to the measured pairs.
pub fn latency_heatmaps(r: &RunResults) -> Option<(Heatmap, Option<Heatmap>)> {
    let m = r.latency.as_ref()?.matrix.as_ref()?;
    let cells: Vec<(u32, u32, f64)> = m
        .cells
        .iter()
        .map(|c| (c.initiator_node, c.memory_node, c.result.ns_per_load.median))
        .collect();
    let measured = grid("Measured latency (ns)", "ns", true, &cells)?;
    let hmat: Vec<(u32, u32, f64)> = m
        .cells
        .iter()
        .filter_map(|c| {
            c.hmat_read_latency_ns
                .map(|v| (c.initiator_node, c.memory_node, v as f64))
        })
        .collect();
    let declared = if !hmat.is_empty() {
        grid("HMAT read latency (ns, firmware)", "ns", true, &hmat)
    } else {
        slit_grid(r, &cells)
    };
    Some((measured, declared))
}

fn slit_grid(r: &RunResults, pairs: &[(u32, u32, f64)]) -> Option<Heatmap> {
    let slit: Vec<(u32, u32, f64)> = pairs
        .iter()
        .filter_map(|&(a, b, _)| r.topology.distance(a, b).map(|d| (a, b, d as f64)))
        .collect();
    grid("SLIT distance (firmware)", "", true, &slit)
}
