//! What the reference covers and what it adds to a run's plan: the parts that show each side,
//! the repetition slots, the time estimate, the places it fills, and whether a part may take
//! its figure instead of measuring.

use crate::bandwidth::descriptor::KernelId;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::results::{
    plan::{Part, Plan},
    RunResults,
};

use super::super::settings::Settings;
use super::{
    conditions, BANDWIDTH_REP_MS, LATENCY_REP_NS, LATENCY_SAMPLE_NS, MIN_REPETITIONS,
    SAMPLES_PER_REP, SHOWN_BY_BANDWIDTH, SHOWN_BY_LATENCY,
};

/// Which sides the plan needs: (latency, bandwidth), each when a part that shows it runs.
pub fn wanted(plan: &Plan) -> (bool, bool) {
    let any = |list: &[Part]| plan.parts.iter().any(|p| list.contains(&p.part));
    (any(SHOWN_BY_LATENCY), any(SHOWN_BY_BANDWIDTH))
}

/// Whether a repetition slot comes before `part`: before every part but the topology, which
/// is first and takes a fraction of a second (a slot there would sit next to the one before
/// the second part).
pub fn slot_before(part: Part) -> bool {
    part != Part::Topology
}

/// Repetition slots of a run of `parts`: one before each part (see [`slot_before`]) and one
/// after the last.
pub fn slots(parts: &[Part]) -> usize {
    parts.iter().filter(|p| slot_before(**p)).count() + 1
}

/// Repetitions per slot for `slots` slots: enough that the run keeps at least
/// [`MIN_REPETITIONS`].
pub fn per_slot(slots: usize) -> usize {
    MIN_REPETITIONS.div_ceil(slots.max(1)).max(1)
}

/// Seconds the reference adds to a run of `parts` parts with the sides `(latency,
/// bandwidth)` in `slots` slots: placing and linking the chased buffer once, placing the
/// read buffers, and every slot's repetitions (retakes of disturbed ones add time only on a
/// busy machine, as for the parts).
pub fn estimate_s(s: &Settings, threads: usize, slots: usize, sides: (bool, bool)) -> f64 {
    let reps = (per_slot(slots) * slots) as f64;
    let mut t: f64 = 0.0;
    if sides.0 {
        let lat = s.latency_matrix.size_bytes as f64;
        // Fault-in at 2 GB/s and linking at 400 ns a line (the plan's cost model), then
        // each repetition and its round trip to the chasing thread.
        t += lat / 2.0e9 + (lat / 64.0) * 400e-9 + reps * (LATENCY_REP_NS / 1e9 + 0.005);
    }
    if sides.1 {
        let bytes = (s.bandwidth.bytes_per_thread * threads as u64) as f64;
        t += bytes / 2.0e9 + reps * (BANDWIDTH_REP_MS as f64 / 1e3 + 0.01);
    }
    t
}

/// Which places of the run the reference covers under the plan's settings (pure: the plan's
/// estimates leave those measurements out, and the part runners skip them when the reference
/// is measuring).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The random 4k curve's point at the reference size.
    pub sweep_point: bool,
    /// The latency matrix's home cell.
    pub latency_cell: bool,
    /// The bandwidth part's read kernel (every usable CPU is the home node's).
    pub bandwidth_read: bool,
    /// The bandwidth matrix's home cell.
    pub bandwidth_cell: bool,
    /// Scaling's full point on the home node.
    pub scaling_point: bool,
}

/// The places the reference covers on `topo` under `s` (see [`Coverage`]).
pub fn coverage(topo: &Topology, s: &Settings) -> Coverage {
    let Some(c) = conditions(topo, s) else {
        return Coverage::default();
    };
    let l = &s.latency;
    let sizes = crate::latency::sweep::sizes(
        l.from_bytes,
        l.to_bytes,
        l.points_per_octave,
        topo.line_bytes(),
    );
    let home = (c.node, c.node);
    let all = topo.usable_cpus();
    Coverage {
        sweep_point: sizes.contains(&c.latency_bytes)
            && l.modes.contains(&Mode::Random)
            && l.pages.contains(&PageSize::Base),
        latency_cell: s.latency_matrix.cells.contains(&home),
        bandwidth_read: c.cpus == all && s.bandwidth.kernels.contains(&KernelId::Read),
        bandwidth_cell: s.bandwidth_matrix.cells.contains(&home),
        scaling_point: s.scaling.nodes.contains(&c.node)
            && s.scaling.thread_counts.contains(&c.cpus.len()),
    }
}

/// The plan's entry for the reference: `None` when no planned part shows it.
pub fn planned(
    topo: &Topology,
    s: &Settings,
    plan: &Plan,
) -> Option<crate::results::reference::PlannedReference> {
    let sides = wanted(plan);
    if !(sides.0 || sides.1) {
        return None;
    }
    let c = conditions(topo, s)?;
    let parts: Vec<Part> = plan.parts.iter().map(|p| p.part).collect();
    let slots = slots(&parts);
    let reps = per_slot(slots) * slots;
    let mut what = Vec::new();
    if sides.0 {
        what.push(format!(
            "local idle latency (random walk, 4k pages, {} bound to node {}, CPU {})",
            crate::results::format::format_bytes(c.latency_bytes),
            c.node,
            c.cpu
        ));
    }
    if sides.1 {
        what.push(format!(
            "local read bandwidth (read kernel on CPUs {} of node {}, {} per thread, 4k pages)",
            crate::results::format::format_list(&c.cpus),
            c.node,
            crate::results::format::format_bytes(c.bytes_per_thread)
        ));
    }
    Some(crate::results::reference::PlannedReference {
        estimate_s: estimate_s(s, c.cpus.len(), slots, sides),
        detail: format!(
            "{}: {reps} repetitions spread across the run ({} before each part after the topology, {} after the last; each latency repetition walks back to steady state for {} ms untimed, then times {SAMPLES_PER_REP} samples of {} ms, their median one block); the figure is the median of the blocks, the loaded curves' no-load points and the scenario rows under the same conditions joining as one block each (the median of their own); the places under the same conditions show it instead of a figure of their own",
            what.join(" and "),
            per_slot(slots),
            per_slot(slots),
            crate::latency::steady::STEADY_WARMUP_NS / 1_000_000,
            LATENCY_SAMPLE_NS / 1e6
        ),
    })
}

/// Whether the latency part runners may take the reference's latency instead of measuring:
/// the reference latency is being measured in this run and its conditions are `cpu`, local
/// memory, `bytes` (random walk and 4k pages are the caller's to check).
pub fn latency_ready(r: &RunResults, topo: &Topology, s: &Settings, cpu: u32, bytes: u64) -> bool {
    r.reference.as_ref().is_some_and(|f| f.latency_live)
        && conditions(topo, s).is_some_and(|c| c.cpu == cpu && c.latency_bytes == bytes)
}

/// Whether the bandwidth part runners may take the reference's read bandwidth: it is being
/// measured in this run, read by `cpus` with `bytes_per_thread` each.
pub fn bandwidth_ready(
    r: &RunResults,
    topo: &Topology,
    s: &Settings,
    cpus: &[u32],
    bytes_per_thread: u64,
) -> bool {
    r.reference.as_ref().is_some_and(|f| f.bandwidth_live)
        && conditions(topo, s)
            .is_some_and(|c| c.cpus == cpus && c.bytes_per_thread == bytes_per_thread)
}
