//! Estimates and detail lines of the bandwidth parts: kernels, matrix and scaling.

use crate::results::topology::Topology;

use super::super::settings::Settings;
use super::latency::matrix_reduced;
use super::{labels, mib, timed_s, FAULT_BYTES_PER_S};

/// The estimate and detail line of the Bandwidth part; with `covered`, the read kernel is the
/// run's reference bandwidth and is not measured.
pub(super) fn bandwidth(s: &Settings, threads: usize, covered: bool) -> (f64, String) {
    let b = &s.bandwidth;
    let run = timed_s(&b.timed);
    let fault = (b.bytes_per_thread * 3) as f64 / FAULT_BYTES_PER_S;
    let kernels = b.kernels.len() - usize::from(covered && !b.kernels.is_empty());
    (
        kernels as f64 * run + if kernels > 0 { fault } else { 0.0 },
        format!(
            "kernels {} on {} threads, {} per thread, {} x {} ms",
            labels(b.kernels.iter().map(|k| k.descriptor().name), ", "),
            threads,
            mib(b.bytes_per_thread),
            b.timed.repetitions,
            b.timed.duration_ms
        ),
    )
}

/// The estimate and detail line of the BandwidthMatrix part; with `covered`, the home cell
/// is the run's reference bandwidth and is not measured.
pub(super) fn bandwidth_matrix(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
    covered: bool,
) -> (f64, String) {
    let m = &s.bandwidth_matrix;
    reduced.extend(matrix_reduced(m, topo));
    let per = timed_s(&s.bandwidth.timed) + m.size_bytes as f64 / FAULT_BYTES_PER_S;
    (
        (m.cells.len() - usize::from(covered && !m.cells.is_empty())) as f64 * per,
        format!(
            "{} initiator x memory cells, read kernel, all CPUs of the initiator",
            m.cells.len()
        ),
    )
}

/// The estimate and detail line of the Scaling part; with `covered`, the home node's full
/// point is the run's reference bandwidth and is not measured.
pub(super) fn scaling(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
    covered: bool,
) -> (f64, String) {
    let sc = &s.scaling;
    let nodes = topo.initiator_nodes().len();
    if sc.nodes.len() < nodes {
        reduced.push(format!(
            "thread scaling on {} of {} initiator nodes (the home node and an even spread of the others)",
            sc.nodes.len(),
            nodes
        ));
    }
    let mut all = 0;
    let mut t = 1;
    let max = sc.thread_counts.last().copied().unwrap_or(1);
    while t < max {
        all += 1;
        t *= 2;
    }
    all += 1;
    if sc.thread_counts.len() < all {
        reduced.push(format!(
            "{} of {} thread counts measured",
            sc.thread_counts.len(),
            all
        ));
    }
    let n = (sc.thread_counts.len() * sc.nodes.len()) as f64 - f64::from(u8::from(covered));
    (
        n * (timed_s(&sc.timed) + 0.05),
        format!(
            "read bandwidth with {} threads on each of {} node(s)",
            sc.thread_counts
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join("/"),
            sc.nodes.len()
        ),
    )
}
