//! Test data: a results file made from the Opteron article's figures (dual Opteron 250,
//! symmetric 2+2, no node interleave; "Maximum Real Memory Read Bandwidth" 6286 MB/s local and
//! 3116 MB/s remote, pseudo-random latency 45.6 / 70.9 ns; node interleave 4211 MB/s per CPU
//! and 57.5 ns), on the replayed `opteron250-2s` topology fixture.

use crate::results::bandwidth::BandwidthReport;
use crate::results::clock::ClockInfo;
use crate::results::latency::LatencyReport;
use crate::results::plan::{Budget, Plan};
use crate::results::scenarios::{ScenarioId, ScenarioResult, ScenarioTable};
use crate::results::topology::Topology;
use crate::results::{Advice, Part, RunResults};
use crate::stats::Summary;

/// The topology of the article's machine (fixture `opteron250-2s`).
pub fn opteron_topology() -> Topology {
    serde_json::from_str(include_str!(
        "../../tests/fixtures/topology/opteron250-2s.expected.json"
    ))
    .expect("fixture parses")
}

/// Nine interleaved rounds of the article's figure (the article gives one number; the rounds
/// let the paired ranking decide as it does on a measured run).
fn rounds(mb: f64) -> Vec<f64> {
    vec![mb; 9]
}

fn fixed(mb: f64) -> Option<Summary> {
    Summary::of(&rounds(mb))
}

fn row(
    id: ScenarioId,
    threads: usize,
    cpus: &[u32],
    mb: Option<f64>,
    lat: Option<f64>,
    numactl: &str,
) -> ScenarioResult {
    let mut r =
        crate::run::scenarios::row(id, cpus, !cpus.is_empty(), String::new(), numactl.into());
    r.threads = threads;
    r.mb_per_s = mb.and_then(fixed);
    r.latency_ns = lat;
    // Nine interleaved blocks of the article's figure, as a measured run holds them.
    r.latency = lat.and_then(|ns| {
        use crate::run::scenarios::latency::{row_latency, BlockPlan, RowBlocks};
        let blocks = RowBlocks {
            blocks: vec![vec![ns; 3]; 9],
            ..RowBlocks::default()
        };
        let plan = BlockPlan {
            rounds: 9,
            per_block: 3,
            warmup: 2,
            sample_ns: 1_000_000,
        };
        row_latency(&blocks, &plan, true)
    });
    r.placement_fraction = mb.map(|_| 1.0);
    if mb.is_none() {
        r.unavailable = Some("Linux 2.6.32 has no weighted interleave (needs 6.9)".into());
    }
    r.rounds_mb_per_s = mb.map(rounds).unwrap_or_default();
    r
}

/// Scenario rows from the article's figures. (b) and (f) use the node-interleave figures,
/// which the article says a single unpinned thread also gets; (c) and (e) are two local
/// streams at 6286 MB/s each; (d) is limited by the one memory controller holding the data.
pub fn opteron_scenarios() -> Vec<ScenarioResult> {
    use ScenarioId::*;
    let mut rows = vec![
        row(
            PinnedLocal,
            1,
            &[0],
            Some(6286.0),
            Some(45.6),
            "numactl --cpunodebind=0 --membind=0 APP",
        ),
        row(
            UnpinnedOneNode,
            1,
            &[],
            Some(4211.0),
            Some(57.5),
            "numactl --membind=0 APP",
        ),
        row(
            CopyPerNode,
            2,
            &[0, 1],
            Some(12572.0),
            None,
            "for N in 0 1; do numactl --cpunodebind=$N --membind=$N APP & done; wait",
        ),
        row(
            AllOneNode,
            2,
            &[0, 1],
            Some(6286.0),
            None,
            "numactl --membind=0 APP",
        ),
        row(
            AllLocal,
            2,
            &[0, 1],
            Some(12572.0),
            None,
            "numactl --localalloc APP  # APP pins its threads",
        ),
        row(
            AllInterleave,
            2,
            &[0, 1],
            Some(8422.0),
            None,
            "numactl --interleave=all APP",
        ),
        row(
            AllWeightedInterleave,
            2,
            &[0, 1],
            None,
            None,
            "numactl --weighted-interleave=0,1 APP",
        ),
    ];
    if let (Some(a), Some(b)) = (&rows[0].latency, &rows[1].latency) {
        rows[1].latency_ratio_to_a = crate::run::scenarios::latency::ratio_to_a(a, b);
    }
    rows
}

/// A whole results file from the article's figures.
pub fn results() -> RunResults {
    let scenarios = opteron_scenarios();
    let recommendations = crate::run::ranking::recommend(&scenarios);
    let plan = Plan {
        budget: Budget::Default,
        target_s: Some(60.0),
        estimate_s: 40.0,
        parts: vec![],
        skipped: vec![],
        reference: None,
    };
    let mut r = RunResults::begin(
        "2005-08-09T12:00:00Z".into(),
        "opteron250".into(),
        plan,
        opteron_topology(),
    );
    r.tool_version = "0.1.0".into();
    r.duration_s = 42.0;
    r.completed = vec![Part::Topology, Part::Scenarios];
    r.scenarios = Some(ScenarioTable {
        kernel: "read-prefetch".into(),
        buffer_bytes_per_thread: 16 << 20,
        duration_ms: 200,
        repetitions: 5,
        interleaved_rounds: false,
        home_node: 0,
        scenarios,
        recommendations,
        weights: vec![],
        auto_weights: vec![],
        latency_working_set_bytes: None,
    });
    r
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
        weights: crate::run::weights::derive_weights(measured),
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
