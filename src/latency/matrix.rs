//! The node x node latency matrix (METHODOLOGY points 4 and 14): for each initiator node (one
//! usable CPU of it) and each memory node (memory-only nodes included, CPU-only nodes never
//! targets), the random-chase DRAM latency at a size well beyond the last-level cache, shown
//! beside the firmware's SLIT distance and HMAT read latency, with the measured/declared
//! ratios. Measurement goes through [`super::engine`]; the ratios are pure arithmetic here.

use crate::clock::ClockInfo;
use crate::placement::PageSize;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::chase::ChainSpec;
use super::engine::{run_job, JobError, Target};
use super::measure::{Aim, SamplePlan};
use super::result::{LatencyResult, Matrix, MatrixCell};
use crate::results::quality::PrecisionGoal;

/// The default matrix working set: max(8 x LLC, 256 MiB), capped by half of the smallest free
/// memory among the target nodes, rounded down to the page granularity.
pub fn default_size(topo: &Topology, targets: &[u32], page: PageSize) -> u64 {
    let want = (8 * topo.llc_total_bytes()).max(256 << 20);
    let free = targets
        .iter()
        .filter_map(|&n| topo.node(n))
        .map(|n| topo.available_on(n))
        .min()
        .unwrap_or(0);
    let g = page.bytes();
    (want.min(free / 2) / g * g).max(g)
}

/// The CPU measuring for each initiator node: the one given for that node in `cpus`, else
/// its first usable CPU.
pub fn initiators(topo: &Topology, cpus: &[u32]) -> Vec<(u32, u32)> {
    topo.initiator_nodes()
        .into_iter()
        .filter_map(|n| {
            let usable = topo.usable_cpus_of(n);
            let cpu = cpus
                .iter()
                .copied()
                .find(|c| usable.contains(c))
                .or_else(|| usable.first().copied())?;
            Some((n, cpu))
        })
        .collect()
}

/// Measures the given (initiator node, measuring CPU, memory node) cells in order, each toward
/// `goal` when there is one (every cell is a headline figure); `progress(done, total)` after
/// each cell. Ctrl-C stops at the next cell.
#[allow(clippy::too_many_arguments)]
pub fn run_cells(
    topo: &Topology,
    root: &SysRoot,
    placed: &[(u32, u32, u32)],
    size: u64,
    page: PageSize,
    spec: &ChainSpec,
    plan: &SamplePlan,
    clock: &ClockInfo,
    goal: Option<&PrecisionGoal>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Matrix, Vec<String>), JobError> {
    let mut measured: Vec<(u32, u32, LatencyResult)> = Vec::new();
    let mut warnings = Vec::new();
    for (k, &(node, cpu, t)) in placed.iter().enumerate() {
        if interrupted() {
            break;
        }
        let target = Target {
            cpu,
            memory_node: Some(t),
            page,
        };
        let mine = goal.map(|g| g.for_figure(placed.len() - k));
        let aim = mine.as_ref().map(|goal| Aim { goal, from: 0 });
        let out = run_job(
            topo,
            root,
            target,
            &[size],
            spec,
            plan,
            clock,
            aim,
            false,
            &|_, _| {},
        )?;
        warnings.extend(out.warnings);
        measured.extend(out.results.into_iter().map(|r| (node, t, r)));
        progress(k + 1, placed.len());
    }
    Ok((
        Matrix {
            working_set_bytes: size,
            mode: spec.mode,
            page_size: page,
            cells: cells(topo, measured),
        },
        warnings,
    ))
}

/// Adds the firmware figures and ratios to measured (initiator, memory node, result) cells.
/// The reference of an initiator's row is its local node when that node has memory, else the
/// row's fastest cell.
pub fn cells(topo: &Topology, measured: Vec<(u32, u32, LatencyResult)>) -> Vec<MatrixCell> {
    let reference = |init: u32| -> Option<(u32, f64)> {
        let row = measured.iter().filter(|m| m.0 == init);
        let local = measured
            .iter()
            .find(|m| m.0 == init && m.1 == init)
            .map(|m| (m.1, m.2.ns_per_load.median));
        local.or_else(|| {
            row.map(|m| (m.1, m.2.ns_per_load.median))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        })
    };
    measured
        .iter()
        .map(|(init, mem, r)| {
            let median = r.ns_per_load.median;
            let rf = reference(*init);
            let measured_ratio = rf.map(|(_, ns)| median / ns);
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
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::chase::Mode;
    use crate::latency::measure::Measurement;
    use crate::latency::result::Placement;
    use crate::stats::Summary;
    use crate::topology::HmatTarget;

    fn result(ns: f64) -> LatencyResult {
        let m = Measurement {
            samples_ns: vec![ns],
            ns_per_load: Summary::of(&[ns]).unwrap(),
            loads_per_sample: 16,
            quality: None,
            precision: None,
            blocks: None,
        };
        let spec = ChainSpec {
            mode: Mode::Random,
            chains: 1,
            element_bytes: 64,
            group_bytes: 4096,
            seed: 1,
        };
        let place = Placement {
            page_size: PageSize::Base,
            cpu: 0,
            memory_node: Some(0),
            placement_fraction: Some(1.0),
            huge_fraction: Some(0.0),
        };
        let clock = ClockInfo {
            resolution_ns: 20.0,
            read_cost_ns: 20.0,
            tsc_hz: None,
            tsc_source: String::new(),
            core_hz_estimate: None,
            core_hz_source: String::new(),
        };
        LatencyResult::new(&spec, 1 << 28, &place, &m, &SamplePlan::default(), &clock)
    }

    #[test]
    fn ratios_against_local_and_firmware() {
        // Two CPU nodes (0, 1) and a memory-only node 2; SLIT 10/21/30.
        let mut topo = crate::testutil::this_machine_one_node();
        let mut n1 = topo.nodes[0].clone();
        n1.id = 1;
        let mut n2 = topo.nodes[0].clone();
        n2.id = 2;
        n2.cpus.clear();
        n2.has_cpu = false;
        topo.nodes.push(n1);
        topo.nodes.push(n2);
        topo.distances = vec![vec![10, 21, 30], vec![21, 10, 30], vec![30, 30, 10]];
        topo.hmat.push(HmatTarget {
            node: 2,
            access_class: 0,
            initiators: vec![0, 1],
            read_latency_ns: Some(250),
            write_latency_ns: None,
            read_bandwidth_mb_s: None,
            write_bandwidth_mb_s: None,
        });
        let cells = cells(
            &topo,
            vec![
                (0, 0, result(100.0)),
                (0, 1, result(160.0)),
                (0, 2, result(300.0)),
            ],
        );
        assert_eq!(cells[0].measured_ratio, Some(1.0));
        assert_eq!(cells[1].measured_ratio, Some(1.6));
        assert_eq!(cells[1].slit_ratio, Some(2.1));
        assert!((cells[1].measured_over_slit.unwrap() - 1.6 / 2.1).abs() < 1e-12);
        assert_eq!(cells[2].hmat_read_latency_ns, Some(250));
        assert_eq!(cells[2].measured_over_hmat, Some(1.2));
        assert_eq!(cells[0].hmat_read_latency_ns, None);
    }

    #[test]
    fn row_without_local_memory_uses_its_fastest_cell() {
        let topo = crate::testutil::this_machine_one_node();
        let c = cells(&topo, vec![(5, 0, result(80.0)), (5, 1, result(120.0))]);
        assert_eq!(c[0].measured_ratio, Some(1.0));
        assert_eq!(c[1].measured_ratio, Some(1.5));
    }
}
