//! The whole-run contract: `results.json` as written by `numascope run` and read back by
//! `numascope report` and `compare`. One versioned serde type, [`RunResults`], holds every
//! part of a run, each in its engine's own result type, plus the plan, the scenario table,
//! the weighted-interleave advice and the findings. Every field is documented in
//! `docs/schema/results.md`. Loading a file checks its version and says in one sentence what
//! is wrong with a file that is not JSON, is truncated, or is from another version.

pub mod advice;
pub mod agreement;
pub mod app;
pub mod app_tiering;
pub mod bandwidth;
pub mod c2c;
mod cells;
pub mod clock;
pub mod compare;
pub mod environment;
pub mod environment_platform;
pub mod environment_tiering;
pub mod figures;
pub mod findings;
pub mod fleet;
pub mod format;
mod head;
pub mod inspect;
pub mod latency;
pub mod loaded;
pub mod peak;
pub mod penalty;
pub mod placement;
pub mod plan;
pub mod quality;
pub mod reference;
pub mod scenarios;
pub mod tables;
pub mod tiers;
pub mod time;
pub mod topology;
pub mod traffic;
pub mod verdict;

use serde::{Deserialize, Serialize};

use crate::results::{
    advice::Advice,
    findings::Finding,
    plan::{Part, Plan},
    scenarios::ScenarioTable,
    verdict::RunQuality,
};
use bandwidth::BandwidthReport;
use c2c::C2cResult;
use clock::ClockInfo;
use latency::LatencyReport;
use loaded::LoadedResult;
use topology::Topology;

/// Version of the results.json contract. Bump on any change a reader must know about.
/// Version 2 added intervals (`ci_low`/`ci_high`/`ci_level`) on every summary and rate, the
/// repetition quality of every figure, merged scenarios and verdicts, and the run's verdict.
/// Version 3 added the parts `peak`, `rightmark` and `stream-matrix` (a version 2 reader
/// refuses their names in the plan), the memory kind `nvm`, scenario precision and pages per
/// node, loaded-latency families and c2c patience; every new field is optional.
pub const RESULTS_SCHEMA_VERSION: u32 = 3;

/// The oldest results.json this build reads. Version 1 files load: every field added since
/// has a default, and the renderers show their figures with "no interval".
pub const OLDEST_READABLE_SCHEMA_VERSION: u32 = 1;

/// Everything one run measured and concluded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    /// Always [`RESULTS_SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// numascope version that wrote the file (`CARGO_PKG_VERSION`).
    pub tool_version: String,
    /// Start of the run, RFC 3339 UTC (`2026-11-21T22:04:05Z`).
    pub started_at: String,
    /// Host name (`/proc/sys/kernel/hostname`).
    pub host: String,
    /// Wall time of the run so far, seconds.
    pub duration_s: f64,
    /// True when the run was interrupted (Ctrl-C) or a part failed: some planned parts are
    /// missing or incomplete.
    pub partial: bool,
    /// Parts run and skipped, with the budget.
    pub plan: Plan,
    /// Parts that have finished, in order.
    pub completed: Vec<Part>,
    /// Parts that failed, with the error sentence.
    pub failed: Vec<PartError>,
    /// Wall time of each part that ran, in order (compare with `plan.parts[].estimate_s`).
    /// Absent in files written before it was added: read as empty.
    #[serde(default)]
    pub timings: Vec<PartTiming>,
    pub topology: Topology,
    /// Clock checks made before the first timed part.
    pub clock: Option<ClockInfo>,
    /// Latency sweep and node x node matrix (the latency engine's report).
    pub latency: Option<LatencyReport>,
    /// Bandwidth kernels on all CPUs and the node x node matrix (the bandwidth engine's
    /// report; `scaling` empty).
    pub bandwidth: Option<BandwidthReport>,
    /// Bandwidth versus thread count per node (the bandwidth engine's report holding only
    /// `scaling` and the results its points index).
    pub scaling: Option<BandwidthReport>,
    /// Peak injection bandwidth per read/write mix on the home node (and its package) and
    /// its L3 domains: the bandwidth engine's report holding only `peak`; absent when the
    /// part did not run and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<BandwidthReport>,
    /// Latency under bandwidth load: one curve, the chaser on the home node's first CPU and
    /// the load threads on the other usable CPUs, all memory on the home node (the
    /// loaded-latency engine's result).
    pub loaded_latency: Option<LoadedResult>,
    /// Core-to-core cache-line transfer latencies (the c2c engine's result).
    pub c2c: Option<C2cResult>,
    /// The Opteron closing-table scenarios for this machine.
    pub scenarios: Option<ScenarioTable>,
    /// Weighted-interleave weights proposed and checked.
    pub advisor: Option<Advice>,
    /// Findings in words, derived from the measurements.
    pub findings: Vec<Finding>,
    /// Things the reader must know about this run (placement below 100 %, parts cut short).
    pub warnings: Vec<String>,
    /// The run's verdict (quiet / noisy / unusable) with its evidence. Absent in files
    /// written before verdicts existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<RunQuality>,
    /// The RightMark table (CPU node x memory node, one thread, six columns); absent on one
    /// node (the part is skipped there) and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rightmark: Option<tables::RightmarkReport>,
    /// LIKWID's per-stream copy matrix (threads on the home node, source x destination);
    /// absent on one memory node, with `--quick`, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_matrix: Option<tables::StreamMatrixReport>,
    /// The loaded-latency curves of the load mixes after `loaded_latency`'s read curve
    /// (`read:write 3:1`, ...), measured interleaved with it by one team, point by point; each
    /// curve's first point is the same no-load point. Empty (absent) when only the read curve
    /// was measured, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_latency_mixes: Vec<LoadedResult>,
    /// The loaded-latency curve on each other kind of memory (CXL, HBM, ...) than the home
    /// node's, one memory node per kind; absent on machines with one kind of memory and in
    /// files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_latency_kinds: Vec<tiers::KindCurve>,
    /// The run-wide reference figures (local idle latency, local read bandwidth) measured in
    /// repetitions spread over the run, and the places that show them; absent when no part
    /// that shows them ran, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<reference::ReferenceFigures>,
}

/// How long one part took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartTiming {
    pub part: Part,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// A part that failed, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartError {
    pub part: Part,
    pub error: String,
}

/// Why a results file cannot be used; each is one sentence naming the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read results file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a numascope results file: it is not JSON ({detail}); give the results.json that `numascope run` wrote")]
    NotJson { path: String, detail: String },
    #[error("{path} is truncated (the JSON ends early at line {line}, column {column}); the run that wrote it may have been killed: run it again or use an intact copy")]
    Truncated {
        path: String,
        line: usize,
        column: usize,
    },
    #[error("{path} has results schema version {found}, but this numascope (version {tool}) reads versions {oldest} to {expected}; use a numascope that matches the file")]
    Version {
        path: String,
        found: String,
        oldest: u32,
        expected: u32,
        tool: &'static str,
    },
    #[error("{path} is JSON but not a numascope results file ({detail}); give the results.json that `numascope run` wrote")]
    Shape { path: String, detail: String },
}

impl RunResults {
    /// A run that has just begun on `topology` under `plan`: this version of numascope,
    /// nothing measured yet, nothing failed.
    pub fn begin(started_at: String, host: String, plan: Plan, topology: Topology) -> RunResults {
        RunResults {
            schema_version: RESULTS_SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            started_at,
            host,
            duration_s: 0.0,
            partial: false,
            plan,
            completed: vec![],
            failed: vec![],
            timings: vec![],
            topology,
            clock: None,
            latency: None,
            bandwidth: None,
            scaling: None,
            peak: None,
            loaded_latency: None,
            c2c: None,
            scenarios: None,
            advisor: None,
            findings: vec![],
            warnings: vec![],
            quality: None,
            rightmark: None,
            stream_matrix: None,
            loaded_latency_mixes: vec![],
            loaded_latency_kinds: vec![],
            reference: None,
        }
    }

    /// Parses and checks results JSON; `name` names the source in errors. Pure: reading the
    /// file (size cap, refused file types) and filling figures that older files lack are
    /// `crate::results_file::load`'s job, a layer above.
    /// Two passes over the text and no JSON tree in between: the first reads only the
    /// version (and checks the syntax), the second builds the results, so a file of 250 MB
    /// costs about its own size again, not several times it.
    pub fn from_json(text: &str, name: &str) -> Result<RunResults, LoadError> {
        let head: head::Head = serde_json::from_str(text).map_err(|e| {
            if e.is_data() {
                // Valid JSON that is not an object (an array, a string, a number).
                LoadError::Shape {
                    path: name.into(),
                    detail: "it has no `schema_version` field".into(),
                }
            } else if e.is_eof() {
                LoadError::Truncated {
                    path: name.into(),
                    line: e.line(),
                    column: e.column(),
                }
            } else {
                LoadError::NotJson {
                    path: name.into(),
                    detail: e.to_string(),
                }
            }
        })?;
        let version = head.schema_version;
        match &version {
            Some(head::Version::Number(v))
                if (OLDEST_READABLE_SCHEMA_VERSION as u64..=RESULTS_SCHEMA_VERSION as u64)
                    .contains(v) => {}
            _ => {
                if version.is_none() && head.tool_version.is_none() {
                    return Err(LoadError::Shape {
                        path: name.into(),
                        detail: "it has no `schema_version` field".into(),
                    });
                }
                return Err(LoadError::Version {
                    path: name.into(),
                    found: version.map_or_else(|| "(none)".into(), |v| v.to_string()),
                    oldest: OLDEST_READABLE_SCHEMA_VERSION,
                    expected: RESULTS_SCHEMA_VERSION,
                    tool: env!("CARGO_PKG_VERSION"),
                });
            }
        }
        let r: RunResults = serde_json::from_str(text).map_err(|e| LoadError::Shape {
            path: name.into(),
            detail: e.to_string(),
        })?;
        Ok(r)
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("results serialize");
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::run::sample;

    #[test]
    fn round_trips() {
        let r = sample::results();
        let back = RunResults::from_json(&r.to_json(), "r.json").unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn bad_files_give_one_sentence_naming_the_file() {
        let e = RunResults::from_json("hello", "x.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("x.json is not a numascope results file: it is not JSON"),
            "{e}"
        );
        let full = sample::results().to_json();
        let e = RunResults::from_json(&full[..full.len() / 2], "cut.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cut.json is truncated"), "{e}");
        for old in [1, 2] {
            let v = full.replacen(
                "\"schema_version\": 3,",
                &format!("\"schema_version\": {old},"),
                1,
            );
            assert_ne!(v, full);
            assert!(
                RunResults::from_json(&v, "old.json").is_ok(),
                "version {old} files still load"
            );
        }
        let v4 = full.replacen("\"schema_version\": 3,", "\"schema_version\": 4,", 1);
        let e = RunResults::from_json(&v4, "new.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("new.json has results schema version 4")
                && e.contains("reads versions 1 to 3"),
            "{e}"
        );
        let e = RunResults::from_json("{\"a\": 1}", "o.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("o.json is JSON but not a numascope results file"),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}
