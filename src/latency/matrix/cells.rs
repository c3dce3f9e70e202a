//! The matrix's cells with their ratios: to the row's local (or fastest) cell, paired over the
//! rounds where both were measured in them, and to the firmware's SLIT distance and HMAT
//! latency.

use crate::results::tables::RatioToLocal;
use crate::results::topology::Topology;

use crate::results::latency::{LatencyResult, Matrix, MatrixCell};

/// The paired ratio of `this` to `reference` from their round medians (the shorter prefix of
/// both: round i pairs with round i); `None` unless both were measured in rounds.
pub fn paired(reference: &LatencyResult, this: &LatencyResult) -> Option<RatioToLocal> {
    RatioToLocal::paired(
        &reference.blocks.as_ref()?.block_medians_ns,
        &this.blocks.as_ref()?.block_medians_ns,
    )
}

/// Puts `res` in the place of cell `init -> mem` (adding it when absent, keeping the cells in
/// node order) and works the ratios out again, keeping the paired ratio a cell had from the
/// rounds when the new figure has no rounds to pair with: `run` shows its reference latency in
/// the home cell (one quantity, one figure) while the rounds, which measured that cell side by
/// side with the others, still give the row's ratios.
pub fn with_result(topo: &Topology, m: &mut Matrix, init: u32, mem: u32, res: LatencyResult) {
    let old = std::mem::take(&mut m.cells);
    let mut measured: Vec<(u32, u32, LatencyResult)> = old
        .iter()
        .filter(|c| !(c.initiator_node == init && c.memory_node == mem))
        .map(|c| (c.initiator_node, c.memory_node, c.result.clone()))
        .collect();
    measured.push((init, mem, res));
    measured.sort_by_key(|c| (c.0, c.1));
    // What the replaced cell measured in the rounds: the kept ratios of its row are against it.
    let replaced_ns = old
        .iter()
        .find(|c| c.initiator_node == init && c.memory_node == mem)
        .filter(|c| c.result.blocks.is_some())
        .map(|c| c.result.ns_per_load.median);
    let mut cells = cells(topo, measured);
    for c in cells
        .iter_mut()
        .filter(|c| c.measured_ratio_interval.is_none())
    {
        let kept = old
            .iter()
            .find(|o| o.initiator_node == c.initiator_node && o.memory_node == c.memory_node)
            .and_then(|o| o.measured_ratio_interval);
        if let Some(p) = kept {
            c.measured_ratio = Some(p.ratio);
            c.measured_over_slit = c.slit_ratio.filter(|s| *s > 0.0).map(|s| p.ratio / s);
            c.measured_ratio_interval = Some(p);
            if c.initiator_node == init && c.memory_node != mem {
                c.reference_in_rounds_ns = replaced_ns;
            }
        }
    }
    m.cells = cells;
}

/// Adds the firmware figures and ratios to measured (initiator, memory node, result) cells.
/// The reference of an initiator's row is its local node when that node has memory, else the
/// row's fastest cell. The ratio to it is paired over the rounds ([`paired`]) when both were
/// measured in rounds, else the quotient of the medians (no interval).
pub fn cells(topo: &Topology, measured: Vec<(u32, u32, LatencyResult)>) -> Vec<MatrixCell> {
    let reference = |init: u32| -> Option<(u32, &LatencyResult)> {
        let row = measured.iter().filter(|m| m.0 == init);
        let local = measured
            .iter()
            .find(|m| m.0 == init && m.1 == init)
            .map(|m| (m.1, &m.2));
        local.or_else(|| {
            row.map(|m| (m.1, &m.2))
                .min_by(|a, b| a.1.ns_per_load.median.total_cmp(&b.1.ns_per_load.median))
        })
    };
    measured
        .iter()
        .map(|(init, mem, r)| {
            let median = r.ns_per_load.median;
            let rf = reference(*init);
            // Paired when both were measured in the same rounds; else the quotient of medians.
            let interval = rf.and_then(|(_, x)| paired(x, r));
            let measured_ratio = match &interval {
                Some(p) => Some(p.ratio),
                None => rf.map(|(_, x)| median / x.ns_per_load.median),
            };
            let rf = rf.map(|(n, x)| (n, x.ns_per_load.median));
            let slit = topo.distance(*init, *mem);
            // Normalize SLIT to the same reference node as the measured ratio.
            let slit_ratio = match (slit, rf.and_then(|(n, _)| topo.distance(*init, n))) {
                (Some(d), Some(dr)) if dr > 0 => Some(d as f64 / dr as f64),
                (Some(d), _) => Some(d as f64 / 10.0),
                _ => None,
            };
            let hmat = topo.hmat_for(*init, *mem).and_then(|h| h.read_latency_ns);
            MatrixCell {
                initiator_node: *init,
                memory_node: *mem,
                result: r.clone(),
                slit_distance: slit,
                hmat_read_latency_ns: hmat,
                measured_ratio,
                slit_ratio,
                measured_over_slit: match (measured_ratio, slit_ratio) {
                    (Some(m), Some(s)) if s > 0.0 => Some(m / s),
                    _ => None,
                },
                measured_over_hmat: hmat.filter(|&h| h > 0).map(|h| median / h as f64),
                measured_ratio_interval: interval,
                reference_in_rounds_ns: None,
            }
        })
        .collect()
}
