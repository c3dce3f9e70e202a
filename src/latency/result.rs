//! The latency engine's edge: the JSON contract lives in `crate::results::latency`; this file
//! builds it from the engine's own types (a chain spec, a measurement, the sample plan) and runs
//! the knee analysis once, so the figures stored in the report are never recomputed by readers.

use super::chase::ChainSpec;
use super::measure::Measurement;
use crate::results::clock::ClockInfo;
use crate::results::latency::{
    CurveKnees, CyclesPerLoad, LatencyResult, Mode, Placement, SamplePlan,
};
use crate::results::placement::PageSize;

impl LatencyResult {
    pub fn new(
        spec: &ChainSpec,
        working_set_bytes: u64,
        place: &Placement,
        m: &Measurement,
        plan: &SamplePlan,
        clock: &ClockInfo,
    ) -> LatencyResult {
        let s = &m.ns_per_load;
        let cycles_per_load = clock.core_hz_estimate.map(|hz| {
            let c = |ns: f64| ns * hz / 1e9;
            CyclesPerLoad {
                median: c(s.median),
                min: c(s.min),
                p90: c(s.p90),
                p99: c(s.p99),
                core_hz: hz,
                source: clock.core_hz_source.clone(),
            }
        });
        LatencyResult {
            mode: spec.mode,
            working_set_bytes,
            element_bytes: spec.element_bytes,
            group_bytes: (spec.mode == Mode::Page).then_some(spec.group_bytes),
            page_size: place.page_size,
            cpu: place.cpu,
            memory_node: place.memory_node,
            placement_fraction: place.placement_fraction,
            huge_fraction: place.huge_fraction,
            chains: spec.chains,
            ns_per_load: *s,
            cycles_per_load,
            loads_per_sample: m.loads_per_sample,
            warmup_samples: plan.warmup,
            quality: m.quality.clone(),
            precision: m.precision,
            blocks: m.blocks.clone(),
        }
    }
}

impl CurveKnees {
    /// Finds the plateaus of a sweep's results (median ns per size) and matches them with the
    /// cache sizes `caches` from sysfs, cycles from the results' own core clock.
    pub fn of_sweep(
        mode: Mode,
        page_size: PageSize,
        chains: usize,
        results: &[LatencyResult],
        caches: &[(u32, u64)],
    ) -> CurveKnees {
        let pts: Vec<(u64, f64)> = results
            .iter()
            .map(|r| (r.working_set_bytes, r.ns_per_load.median))
            .collect();
        let p = super::knees::KneeParams::default();
        let with_ci: Vec<super::knees::BandedPoint> = results
            .iter()
            .map(|r| {
                let s = &r.ns_per_load;
                (r.working_set_bytes, s.median, s.ci.map(|c| c.ends()))
            })
            .collect();
        let plateaus = super::knees::merge_within_noise(super::knees::plateaus(&pts, &p), &with_ci);
        let hz = results
            .first()
            .and_then(|r| r.cycles_per_load.as_ref())
            .map(|c| c.core_hz);
        let levels =
            super::knees::match_levels(&plateaus, &pts, caches, &p, |ns| hz.map(|h| ns * h / 1e9));
        CurveKnees {
            mode,
            page_size,
            chains,
            plateaus,
            levels,
        }
    }
}
