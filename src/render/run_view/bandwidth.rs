//! The bandwidth part of a run as tables and heatmaps: every kernel result and the node x
//! node matrix beside HMAT.

use super::{estimate_cells, grid, nodes_text, Cell, Table};
use crate::render::svg::Heatmap;
use crate::results::bandwidth::{BandwidthReport, Matrix, MatrixCell};
use crate::results::quality::RepetitionQuality;
use crate::results::topology::Topology;
use crate::stats::Summary;

/// Bandwidth kernel results as the bandwidth engine recorded them (matrix cells included), in
/// the order of the report's results.
pub fn bandwidth_table(b: Option<&BandwidthReport>) -> Table {
    let mut t = Table::new(
        "bandwidth",
        "Bandwidth kernels",
        &[
            ("kernel", "kernel"),
            ("isa", "ISA"),
            ("threads_count", "threads"),
            ("cpus", "CPUs"),
            ("cpu_nodes", "CPU nodes"),
            ("memory_nodes", "memory nodes"),
            ("placement", "placement"),
            ("working_set_bytes", "working set (bytes)"),
            ("page_size", "page size"),
        ],
    );
    t.extend_estimate("mb_per_s", "MB/s (MB = 10^6 B)");
    t.extend([
        ("mb_per_s_min", "MB/s min"),
        ("mb_per_s_max", "MB/s max"),
        ("dram_mb_per_s_estimate_median", "DRAM MB/s (estimate)"),
        ("on_intended_node_fraction", "on intended node (fraction)"),
        ("huge_page_backed_fraction", "huge-page backed (fraction)"),
        ("stride_bytes", "stride (bytes)"),
    ]);
    for b in b.iter().flat_map(|b| &b.results) {
        let mut row = vec![
            Cell::Text(b.kernel.clone()),
            Cell::Text(format!("{:?}", b.isa).to_lowercase()),
            Cell::Int(b.threads as u64),
            Cell::Text(crate::results::format::format_list(&b.cpus)),
            Cell::Text(nodes_text(&b.cpu_nodes)),
            Cell::Text(nodes_text(&b.memory_nodes)),
            Cell::Text(b.placement.clone()),
            Cell::Int(b.working_set_bytes),
            Cell::Text(b.page_size.label().into()),
        ];
        row.extend(estimate_cells(&b.mb_per_s.summary(), b.quality.as_ref()));
        row.extend([
            Cell::Num(b.mb_per_s.min),
            Cell::Num(b.mb_per_s.max),
            Cell::Num(b.dram_mb_per_s_estimate.median),
            Cell::Num(b.placement_fraction),
            Cell::Num(b.huge_fraction),
            b.stride_elements
                .map_or(Cell::Missing, |e| Cell::Int(e * 8)),
        ]);
        t.rows.push(row);
    }
    t
}

/// One cell of the first bandwidth matrix: the nodes, the cell's figure (with the interval
/// and quality of the run it comes from) and HMAT's declared read MB/s.
pub struct BwMatrixCell<'a> {
    pub initiator: u32,
    pub target: u32,
    pub mb_per_s: Summary,
    pub quality: Option<&'a RepetitionQuality>,
    pub hmat_read_mb_per_s: Option<f64>,
}

/// The cells of the first bandwidth matrix.
pub fn bw_matrix(b: Option<&BandwidthReport>) -> Vec<BwMatrixCell<'_>> {
    let Some(b) = b else {
        return Vec::new();
    };
    let Some(m) = b.matrix.first() else {
        return Vec::new();
    };
    m.cells
        .iter()
        .map(|c| {
            let (mb_per_s, quality) = result_figure(b, c.result_index, c.mb_per_s);
            BwMatrixCell {
                initiator: c.initiator,
                target: c.target,
                mb_per_s,
                quality,
                hmat_read_mb_per_s: c.hmat_read_mb_per_s.map(|v| v as f64),
            }
        })
        .collect()
}

/// The figure of a point drawn from result `i` (a matrix cell, a scaling point) at median
/// `mb_per_s`: the result's interval and quality, or the bare point without the result.
pub(crate) fn result_figure(
    b: &BandwidthReport,
    i: usize,
    mb_per_s: f64,
) -> (Summary, Option<&RepetitionQuality>) {
    let run = b.results.get(i);
    let mut s = run.map_or(Summary::point(mb_per_s, 1), |x| x.mb_per_s.summary());
    s.median = mb_per_s;
    (s, run.and_then(|x| x.quality.as_ref()))
}

/// Initiator x memory node bandwidth.
pub fn bandwidth_matrix_table(b: Option<&BandwidthReport>) -> Table {
    let kernel = b.and_then(|b| b.matrix.first()).map(|m| m.kernel.clone());
    let mut t = Table::new(
        "bandwidth_matrix",
        &match kernel {
            Some(k) => format!("Bandwidth, CPU node x memory node ({k} kernel)"),
            None => "Bandwidth, CPU node x memory node".into(),
        },
        &[("cpu_node", "CPU node"), ("memory_node", "memory node")],
    );
    t.extend_estimate("mb_per_s", "MB/s (MB = 10^6 B)");
    t.extend([
        ("mb_per_s_min", "MB/s min"),
        ("mb_per_s_max", "MB/s max"),
        ("hmat_read_mb_per_s", "HMAT read bandwidth MB/s (firmware)"),
    ]);
    for c in bw_matrix(b) {
        let mut row = vec![Cell::Int(c.initiator as u64), Cell::Int(c.target as u64)];
        row.extend(estimate_cells(&c.mb_per_s, c.quality));
        row.extend([
            Cell::Num(c.mb_per_s.min),
            Cell::Num(c.mb_per_s.max),
            Cell::opt(c.hmat_read_mb_per_s),
        ]);
        t.rows.push(row);
    }
    t
}

/// A matrix as grids (CPU node x memory node, MB/s): the measured medians under
/// `measured_title`, then HMAT's declared read and write figures; each `None` without a value.
pub fn matrix_grids(m: &Matrix, measured_title: &str) -> [Option<Heatmap>; 3] {
    let of = |title: &str, f: &dyn Fn(&MatrixCell) -> Option<f64>| {
        let cells = m.cells.iter();
        grid(
            title,
            "MB/s",
            false,
            cells.filter_map(|c| Some((c.initiator, c.target, Some(f(c)?)))),
        )
    };
    let read = |c: &MatrixCell| c.hmat_read_mb_per_s.map(|v| v as f64);
    let write = |c: &MatrixCell| c.hmat_write_mb_per_s.map(|v| v as f64);
    [
        of(measured_title, &|c| Some(c.mb_per_s)),
        of(HMAT_READ, &read),
        of("HMAT write bandwidth (MB/s, firmware)", &write),
    ]
}

const HMAT_READ: &str = "HMAT read bandwidth (MB/s, firmware)";

/// The first matrix's measured bandwidth heatmap and HMAT's read figures (from the cells,
/// else the topology when given) beside it.
pub fn bandwidth_heatmaps(
    b: Option<&BandwidthReport>,
    topology: Option<&Topology>,
) -> Option<(Heatmap, Option<Heatmap>)> {
    let m = b?.matrix.first()?;
    let [measured, read, _] = matrix_grids(m, "Measured bandwidth (MB/s)");
    let read = read.or_else(|| {
        let hmat = |c: &MatrixCell| {
            topology?
                .hmat_for(c.initiator, c.target)?
                .read_bandwidth_mb_s
        };
        let cells =
            (m.cells.iter()).filter_map(|c| Some((c.initiator, c.target, Some(hmat(c)? as f64))));
        grid(HMAT_READ, "MB/s", false, cells)
    });
    Some((measured?, read))
}
