//! The node x node figures of a run as plain triples, read straight from the stored matrices
//! (no arithmetic): what the findings, the brief summary and the hwloc export all start from,
//! so they read the same cells.

use super::RunResults;

impl RunResults {
    /// `(initiator, memory node, median ns)` of the latency matrix.
    pub fn latency_cells(&self) -> Vec<(u32, u32, f64)> {
        self.latency
            .as_ref()
            .and_then(|l| l.matrix.as_ref())
            .map(|m| {
                m.cells
                    .iter()
                    .map(|c| (c.initiator_node, c.memory_node, c.result.ns_per_load.median))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `(initiator, memory node, MB/s)`: the bandwidth matrix (its `read` kernel when measured,
    /// else its first kernel), else the advisor's bind measurements from one initiator.
    pub fn bandwidth_cells(&self) -> Vec<(u32, u32, f64)> {
        if let Some(m) = self.bandwidth.as_ref().and_then(|b| {
            b.matrix
                .iter()
                .find(|m| m.kernel == "read")
                .or_else(|| b.matrix.first())
        }) {
            return m
                .cells
                .iter()
                .map(|c| (c.initiator, c.target, c.mb_per_s))
                .collect();
        }
        self.advisor
            .as_ref()
            .map(|a| {
                a.measured_mb_per_s
                    .iter()
                    .map(|(n, b)| (a.initiator_node, *n, *b))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `(initiator, memory node, median MB/s)` of the first kernel's bandwidth matrix: the
    /// matrix the report's table and heatmap show.
    pub fn bandwidth_matrix_cells(&self) -> Vec<(u32, u32, f64)> {
        self.bandwidth
            .as_ref()
            .and_then(|b| b.matrix.first())
            .map(|m| {
                m.cells
                    .iter()
                    .map(|c| (c.initiator, c.target, c.mb_per_s))
                    .collect()
            })
            .unwrap_or_default()
    }
}
