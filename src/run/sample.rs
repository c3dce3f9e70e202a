//! Test data for unit tests: a results file made from the Opteron article's figures (dual
//! Opteron 250, symmetric 2+2, no node interleave; "Maximum Real Memory Read Bandwidth" 6286
//! MB/s local and 3116 MB/s remote, pseudo-random latency 45.6 / 70.9 ns; node interleave 4211
//! MB/s per CPU and 57.5 ns) on the replayed `opteron250-2s` topology, both read from
//! tests/fixtures/, and builders of small reports for render tests.

use crate::results::bandwidth::BandwidthReport;
use crate::results::clock::ClockInfo;
use crate::results::latency::LatencyReport;
use crate::results::scenarios::ScenarioResult;
use crate::results::topology::Topology;
use crate::results::{advice::Advice, RunResults};
use crate::stats::Summary;

/// The topology of the article's machine (fixture `opteron250-2s`).
pub fn opteron_topology() -> Topology {
    serde_json::from_str(include_str!(
        "../../tests/fixtures/topology/opteron250-2s.expected.json"
    ))
    .expect("fixture parses")
}

/// The article's policy scenarios (a)-(g), as [`results`] holds them.
pub fn opteron_scenarios() -> Vec<ScenarioResult> {
    results()
        .scenarios
        .expect("the fixture has scenarios")
        .scenarios
}

/// A whole results file from the article's figures (`tests/fixtures/results/
/// opteron-article.json`: the seven scenario rows with nine equal rounds each, so the
/// paired ranking decides as on a measured run, and its recommendations).
pub fn results() -> RunResults {
    serde_json::from_str(include_str!(
        "../../tests/fixtures/results/opteron-article.json"
    ))
    .expect("fixture parses")
}

/// A latency report holding only a node x node matrix: `(initiator, memory, ns, hmat ns)`.
pub fn latency_matrix(cells: &[(u32, u32, f64, Option<u64>)]) -> LatencyReport {
    use crate::results::latency::Mode;
    use crate::results::latency::SamplePlan;
    use crate::results::latency::{LatencyResult, Matrix, MatrixCell};
    let cell = |&(i, m, ns, h): &(u32, u32, f64, Option<u64>)| MatrixCell {
        initiator_node: i,
        memory_node: m,
        result: LatencyResult {
            quality: None,
            precision: None,
            blocks: None,
            mode: Mode::Page,
            working_set_bytes: 16 << 20,
            element_bytes: 64,
            group_bytes: Some(4096),
            page_size: crate::results::placement::PageSize::Base,
            cpu: i,
            memory_node: Some(m),
            placement_fraction: Some(1.0),
            huge_fraction: Some(0.0),
            chains: 1,
            ns_per_load: Summary::of(&[ns]).unwrap(),
            cycles_per_load: None,
            loads_per_sample: 1_000_000,
            warmup_samples: 2,
        },
        slit_distance: None,
        hmat_read_latency_ns: h,
        measured_ratio: None,
        slit_ratio: None,
        measured_over_slit: None,
        measured_over_hmat: h.map(|h| ns / h as f64),
        measured_ratio_interval: None,
        reference_in_rounds_ns: None,
    };
    LatencyReport {
        schema_version: 1,
        clock: ClockInfo {
            resolution_ns: 20.0,
            read_cost_ns: 20.0,
            tsc_hz: None,
            tsc_source: "test".into(),
            core_hz_estimate: None,
            core_hz_source: "test".into(),
        },
        plan: SamplePlan::default(),
        results: vec![],
        sweep: vec![],
        knees: vec![],
        matrix: Some(Matrix {
            working_set_bytes: 16 << 20,
            mode: Mode::Page,
            page_size: crate::results::placement::PageSize::Base,
            cells: cells.iter().map(cell).collect(),
        }),
        warnings: vec![],
        distribution: None,
        mlp: vec![],
    }
}

/// Advice holding the measured bind bandwidths of one initiator.
pub fn advice(init: u32, measured: &[(u32, f64)]) -> Advice {
    Advice {
        initiator_node: init,
        measured_mb_per_s: measured.to_vec(),
        weights: crate::placement::measured_weights::derive_weights(measured),
        checks: vec![],
        apply: vec![],
        summary: String::new(),
    }
}

/// A scaling report with one packed curve on `node`.
pub fn scaling(node: u32, points: &[(usize, f64)]) -> BandwidthReport {
    use crate::results::bandwidth::{Scaling, ScalingPoint, ScalingSeries};
    BandwidthReport {
        schema_version: 1,
        results: vec![],
        matrix: vec![],
        sweep: None,
        peak: None,
        scaling: vec![Scaling {
            kernel: "read".into(),
            series: vec![ScalingSeries {
                mode: "packed".into(),
                node: Some(node),
                points: points
                    .iter()
                    .map(|&(t, mb)| ScalingPoint {
                        threads: t,
                        cpus: (0..t as u32).collect(),
                        mb_per_s: mb,
                        mb_per_s_max: mb,
                        result_index: 0,
                    })
                    .collect(),
                knee_threads: None,
            }],
        }],
        numa_balancing: None,
        environment: opteron_topology().environment,
        warnings: vec![],
    }
}
