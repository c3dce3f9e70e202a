//! Estimates and detail lines of the latency parts: the working-set sweep and the matrix.

use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;

use super::super::settings::{MatrixSettings, Settings};
use super::{labels, mib, CHAIN_S_PER_ELEMENT, DRAM_LOAD_S, FAULT_BYTES_PER_S};

/// The grid of sizes from `from` to `to`, `per_octave` per doubling (the count only).
fn grid_points(from: u64, to: u64, per_octave: u32) -> usize {
    if to <= from {
        return 1;
    }
    ((to as f64 / from as f64).log2() * per_octave as f64).floor() as usize + 1
}

/// The estimate and detail line of the Latency part; with `covered`, the random 4k curve's
/// largest point is the run's reference latency and that curve ends one point earlier.
pub(super) fn latency(s: &Settings, reduced: &mut Vec<String>, covered: bool) -> (f64, String) {
    let l = &s.latency;
    let points = grid_points(l.from_bytes, l.to_bytes, l.points_per_octave);
    let curves = l.modes.len() * l.pages.len();
    let per_point = (l.samples + l.warmup + 3) as f64 * l.min_sample_ns as f64 / 1e9;
    // Chain construction over the geometric series of sizes is about twice the largest.
    let curve = |to: u64, points: usize| {
        points as f64 * per_point
            + 2.0 * (to / 64) as f64 * CHAIN_S_PER_ELEMENT
            + to as f64 / FAULT_BYTES_PER_S
    };
    let full = curve(l.to_bytes, points);
    let est = if covered && points > 1 {
        let before =
            (l.to_bytes as f64 / 2f64.powf(1.0 / l.points_per_octave.max(1) as f64)) as u64;
        (curves - 1) as f64 * full + curve(before, points - 1)
    } else {
        curves as f64 * full
    } + distribution(l, per_point);
    if l.to_bytes < s.latency_matrix.size_bytes {
        reduced.push(format!(
            "the sweep ends at {} (4x the last-level cache) instead of {}; the DRAM figure comes from the latency matrix at {}",
            mib(l.to_bytes),
            mib(s.latency_matrix.size_bytes),
            mib(s.latency_matrix.size_bytes)
        ));
    }
    let mut detail = format!(
        "sweep {} to {} ({} per octave, {} points), modes {}, pages {}, {} samples",
        mib(l.from_bytes),
        mib(l.to_bytes),
        l.points_per_octave,
        points,
        labels(l.modes.iter().map(Mode::label), "/"),
        labels(l.pages.iter().map(PageSize::label), "/"),
        l.samples
    );
    match l.distribution_groups {
        Some(g) => detail.push_str(&format!(
            "; per-load distribution at {} ({} walk, {} pages): {g} timed groups of 16 loads",
            mib(l.to_bytes),
            l.modes.first().map_or("random", Mode::label),
            l.pages.first().map_or("4k", PageSize::label),
        )),
        None => reduced.push(format!(
            "the per-load latency distribution is not measured (about {:.0} s more at {} on a 2-CPU machine: a buffer and chain of its own, the chase and {} timed groups); run without --quick, or `numascope latency --distribution`",
            distribution(
                &super::super::settings::LatencySettings {
                    distribution_groups: Some(crate::latency::distribution::DEFAULT_GROUPS),
                    ..l.clone()
                },
                per_point
            ),
            mib(l.to_bytes),
            crate::latency::distribution::DEFAULT_GROUPS
        )),
    }
    (est, detail)
}

/// Seconds the per-load distribution adds (0 when not measured): its own buffer at the
/// sweep's largest size (fault-in, chain construction and first walk), one point's chase
/// samples (which leave the chain warm for the distribution), then each group of 16 loads
/// walked twice (timed, and again as the interleaved chase).
fn distribution(l: &super::super::settings::LatencySettings, per_point: f64) -> f64 {
    let Some(groups) = l.distribution_groups else {
        return 0.0;
    };
    let elements = (l.to_bytes / 64) as f64;
    l.to_bytes as f64 / FAULT_BYTES_PER_S
        + elements * (CHAIN_S_PER_ELEMENT + DRAM_LOAD_S)
        + per_point
        + groups as f64 * 32.0 * DRAM_LOAD_S
}

/// What a matrix left out, by class of cell: local pairs, then each SLIT distance of the
/// remote pairs ("3 of 64 node pairs measured (local 1 of 8, distance 12: 1 of 24, distance
/// 32: 1 of 32); ..."). `None` when every pair is measured.
pub(super) fn matrix_reduced(m: &MatrixSettings, topo: &Topology) -> Option<String> {
    if m.cells.len() >= m.all_cells {
        return None;
    }
    // (class, measured, all); class None is local, Some(None) a remote pair without SLIT.
    let mut classes: Vec<(Option<Option<u32>>, usize, usize)> = Vec::new();
    for i in topo.initiator_nodes() {
        for t in topo.memory_nodes() {
            let class = (i != t).then(|| topo.distance(i, t));
            let measured = usize::from(m.cells.contains(&(i, t)));
            match classes.iter_mut().find(|c| c.0 == class) {
                Some(c) => {
                    c.1 += measured;
                    c.2 += 1;
                }
                None => classes.push((class, measured, 1)),
            }
        }
    }
    classes.sort_by_key(|c| c.0);
    let parts: Vec<String> = classes
        .iter()
        .map(|(class, got, all)| match class {
            None => format!("local {got} of {all}"),
            Some(Some(d)) => format!("distance {d}: {got} of {all}"),
            Some(None) => format!("no SLIT distance: {got} of {all}"),
        })
        .collect();
    Some(format!(
        "{} of {} node pairs measured ({}); every other pair is shown as not measured, none is inferred from a measured one",
        m.cells.len(),
        m.all_cells,
        parts.join(", ")
    ))
}

/// The estimate and detail line of the LatencyMatrix part, as `latency::matrix::run_cells`
/// measures it: one buffer and chain per memory node (fault-in and construction), then the
/// cells in interleaved rounds whose sampling time adds up to 12 samples per cell. With
/// `covered`, the home cell is the run's reference latency: it is measured only when its row
/// has other cells (their ratios to it are paired over the rounds).
pub(super) fn latency_matrix(
    s: &Settings,
    topo: &Topology,
    reduced: &mut Vec<String>,
    covered: bool,
) -> (f64, String) {
    let m = &s.latency_matrix;
    reduced.extend(matrix_reduced(m, topo));
    let home = s.home_node;
    let home_row_has_others = home.is_some_and(|h| m.cells.iter().any(|&(i, t)| i == h && t != h));
    let measured: Vec<(u32, u32)> = m
        .cells
        .iter()
        .copied()
        .filter(|&(i, t)| !(covered && i == t && Some(i) == home && !home_row_has_others))
        .collect();
    let mut mem_nodes: Vec<u32> = measured.iter().map(|&(_, t)| t).collect();
    mem_nodes.sort_unstable();
    mem_nodes.dedup();
    let chain =
        m.size_bytes as f64 / FAULT_BYTES_PER_S + (m.size_bytes / 64) as f64 * CHAIN_S_PER_ELEMENT;
    let sampling = 12.0 * s.latency.min_sample_ns as f64 / 1e9;
    (
        mem_nodes.len() as f64 * chain + measured.len() as f64 * sampling,
        format!(
            "{} initiator x memory cells at {} (random walk), in interleaved rounds over one chain per memory node",
            m.cells.len(),
            mib(m.size_bytes)
        ),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn grid_points_count_both_ends() {
        assert_eq!(super::grid_points(4096, 8192, 4), 5);
        assert_eq!(super::grid_points(8192, 4096, 4), 1);
    }
}
