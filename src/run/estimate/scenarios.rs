//! Estimates and detail lines of the policy scenarios and the weighted-interleave advisor.

use crate::results::topology::Topology;

use super::super::settings::Settings;
use super::{mib, timed_s, CHAIN_S_PER_ELEMENT, FAULT_BYTES_PER_S};

/// The estimate and detail line of the Scenarios part, as `run::scenarios` measures it: the
/// time the seven rows would take one after the other (`schedule::rounds::budget_s`) is spent on
/// interleaved rounds of the distinct configurations (at least six, see
/// `schedule::rounds::plan_rounds`), then (a) and (b) (or (a) alone when (b) places as (a) here)
/// each build one single-thread latency chase over a buffer of the whole size (fault-in, chain
/// construction and a full walk) and measure it in blocks interleaved with the other's
/// (`scenarios::latency`: each block a few warm-up and kept samples). Retakes of disturbed
/// repetitions add time only on a busy machine.
pub(super) fn scenarios(s: &Settings, topo: &Topology) -> (f64, String) {
    let sc = &s.scenarios;
    let layout = s.scenario_layout.as_ref().and_then(|l| l.as_ref().ok());
    let shape = super::super::scenarios::shape(topo, layout);
    let distinct = shape.distinct;
    let rounds = crate::schedule::rounds::budget_s(distinct, &sc.timed, sc.total_bytes);
    let l = &s.latency;
    let chase_bytes = sc.latency_bytes;
    let bp = super::super::scenarios::latency::block_plan(&crate::results::latency::SamplePlan {
        samples: l.samples,
        warmup: l.warmup,
        min_sample_ns: l.min_sample_ns,
    });
    let chase = chase_bytes as f64 / FAULT_BYTES_PER_S
        + (chase_bytes / 64) as f64 * CHAIN_S_PER_ELEMENT
        + ((bp.rounds * (bp.per_block + bp.warmup)) as f64 + 3.0) * bp.sample_ns as f64 / 1e9;
    let rows = shape.latency_rows;
    let which = match rows.len() {
        2 => format!(
            "single-thread latency of (a) and (b) over {} each, in {} interleaved blocks",
            mib(chase_bytes),
            bp.rounds
        ),
        1 => format!(
            "single-thread latency of (a) over {} in {} blocks ((b) places as (a) here)",
            mib(chase_bytes),
            bp.rounds
        ),
        _ => "no single-thread latency".to_string(),
    };
    (
        rounds + rows.len() as f64 * chase,
        format!(
            "7 policy scenarios (a)-(g), read kernel, {} over all threads; identical placements measured once: {distinct} distinct configuration(s) here, in interleaved rounds (at least {}) within the time of {} x {} ms each; {which}",
            mib(sc.total_bytes),
            crate::schedule::MIN_SAMPLES_FOR_INTERVAL,
            sc.timed.repetitions,
            sc.timed.duration_ms,
        ),
    )
}

/// The estimate and detail line of the Advisor part.
pub(super) fn advisor(s: &Settings, topo: &Topology, mem_nodes: &[u32]) -> (f64, String) {
    if mem_nodes.len() < 2 {
        (
            0.0,
            "one memory node: nothing to weigh (reported without measuring)".to_string(),
        )
    } else {
        let sc = &s.scenarios;
        let checks = (mem_nodes.len() + 2) as f64;
        let _ = topo;
        (
            checks * (timed_s(&sc.timed) + sc.total_bytes as f64 / FAULT_BYTES_PER_S),
            format!(
                "weights for {} memory nodes, checked against bind and interleave",
                mem_nodes.len()
            ),
        )
    }
}
