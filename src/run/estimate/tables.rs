//! Estimates and detail lines of the table parts, RightMark and the stream matrix, from the
//! configs the plan decided into the settings (`plan::tables`).

use crate::results::topology::Topology;
use crate::tables::rightmark::cell_round_s;

use super::super::settings::Settings;

/// The estimate and detail line of the RightMark part, and what a big machine leaves out.
pub(super) fn rightmark(s: &Settings, topo: &Topology, reduced: &mut Vec<String>) -> (f64, String) {
    let Some(c) = &s.rightmark else {
        return (0.0, "no config: the plan did not decide its cells".into());
    };
    let all = topo.initiator_nodes().len() * topo.memory_nodes().len();
    if c.cells.len() < all {
        reduced.push(format!(
            "the home row, one memory node per SLIT distance ({} of {} CPU node x memory node cells); `numascope rightmark` measures every cell",
            c.cells.len(),
            all
        ));
    }
    let per = cell_round_s(
        &c.metrics,
        c.block_bytes,
        c.bandwidth_repetition,
        &c.latency,
    );
    (
        c.cells.len() as f64 * c.rounds as f64 * per,
        format!(
            "{} CPU node x memory node cells, one thread on a 16 MiB block: read, write, read-prefetch, write-nt, page-local and random chase; {} interleaved rounds of {} ms",
            c.cells.len(),
            c.rounds,
            c.bandwidth_repetition.as_millis()
        ),
    )
}

/// The estimate and detail line of the stream-matrix part.
pub(super) fn stream_matrix(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
) -> (f64, String) {
    let Some(c) = &s.stream_matrix else {
        return (0.0, "no node with usable CPUs".into());
    };
    let all = topo.memory_nodes().len();
    if c.sources.len() < all {
        reduced.push(format!(
            "{} of {} memory nodes (the home node, its nearest and its farthest); `numascope bandwidth --stream-matrix` measures every pair",
            c.sources.len(),
            all
        ));
    }
    let cells = c.sources.len() * c.destinations.len();
    let bytes = match c.settings.size {
        crate::bandwidth::WorkingSet::PerStream(b) => 2 * b,
        _ => 0,
    };
    let per = 2.0 * c.settings.duration.as_secs_f64() + 0.02 + bytes as f64 / 2.0e9;
    let (node, cpus) = &c.cpu_nodes[0];
    (
        (cells * c.rounds) as f64 * per,
        format!(
            "copy with the read stream on each of nodes {} and the written stream on each, {} thread(s) on node {node}; {} interleaved rounds of {} ms",
            crate::results::format::format_list(&c.sources),
            cpus.len(),
            c.rounds,
            c.settings.duration.as_millis()
        ),
    )
}
