//! What a run set out to do: the parts it ran, the parts it skipped and why, and the budget it
//! planned against. Stored in `results.json` so a reader knows what is absent on purpose.
//! The planner that fills these types is `crate::run::plan`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One part of a run, in the order a run executes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Part {
    Topology,
    Latency,
    LatencyMatrix,
    Bandwidth,
    BandwidthMatrix,
    Scaling,
    LoadedLatency,
    C2c,
    Scenarios,
    Advisor,
    Rightmark,
    StreamMatrix,
    /// Peak injection bandwidth per read/write mix and the L3 domains (`bandwidth --peak`).
    Peak,
}

impl Part {
    /// Every part in execution order.
    pub const ALL: [Part; 13] = [
        Part::Topology,
        Part::Latency,
        Part::LatencyMatrix,
        Part::Bandwidth,
        Part::BandwidthMatrix,
        Part::Scaling,
        Part::LoadedLatency,
        Part::C2c,
        Part::Scenarios,
        Part::Advisor,
        Part::Rightmark,
        Part::StreamMatrix,
        Part::Peak,
    ];

    /// The name used by `--only`/`--skip` and in `results.json`.
    pub fn name(self) -> &'static str {
        match self {
            Part::Topology => "topology",
            Part::Latency => "latency",
            Part::LatencyMatrix => "latency-matrix",
            Part::Bandwidth => "bandwidth",
            Part::BandwidthMatrix => "bandwidth-matrix",
            Part::Scaling => "scaling",
            Part::LoadedLatency => "loaded-latency",
            Part::C2c => "c2c",
            Part::Scenarios => "scenarios",
            Part::Advisor => "advisor",
            Part::Rightmark => "rightmark",
            Part::StreamMatrix => "stream-matrix",
            Part::Peak => "peak",
        }
    }

    /// All names, comma separated, for error messages.
    pub fn known_names() -> String {
        Part::ALL.map(|p| p.name()).join(", ")
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Part {
    type Err = String;
    fn from_str(s: &str) -> Result<Part, String> {
        let t = s.trim();
        Part::ALL
            .into_iter()
            .find(|p| p.name() == t)
            .ok_or_else(|| format!("unknown part `{t}`; the parts are: {}", Part::known_names()))
    }
}

/// The time budget a run was planned against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Budget {
    /// `--quick`: about 15 s on a 2-CPU machine.
    Quick,
    /// The default: about 60 s on a 2-CPU machine.
    Default,
    /// `--thorough`: more samples, more sizes, every pair.
    Thorough,
}

impl Budget {
    pub fn name(self) -> &'static str {
        match self {
            Budget::Quick => "quick",
            Budget::Default => "default",
            Budget::Thorough => "thorough",
        }
    }

    /// The interval half-width every headline figure of a run with this budget aims for,
    /// fraction of the median (+-5 % in `--quick`, +-3 % by default, +-2 % in
    /// `--thorough`); interleaved rounds get extra rounds toward it while their part's budget
    /// lasts.
    pub fn target_half_width(self) -> f64 {
        match self {
            Budget::Quick => 0.05,
            Budget::Default => 0.03,
            Budget::Thorough => 0.02,
        }
    }
}

/// A part the run will execute, with its settings in words and its time estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedPart {
    pub part: Part,
    /// Estimated wall time, seconds.
    pub estimate_s: f64,
    /// What it measures with which settings, in one line (sizes, CPUs, pairs, kernels).
    pub detail: String,
    /// What the budget made it leave out (sampled pairs, fewer points), empty when nothing.
    pub reduced: Vec<String>,
}

/// A part the run does not execute, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkippedPart {
    pub part: Part,
    /// One sentence: `--skip`, not in `--only`, one NUMA node, ...
    pub reason: String,
}

/// The whole plan of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub budget: Budget,
    /// The budget's target wall time on a 2-CPU machine, seconds (none for `thorough`).
    pub target_s: Option<f64>,
    /// Sum of the planned parts' estimates, seconds.
    pub estimate_s: f64,
    pub parts: Vec<PlannedPart>,
    pub skipped: Vec<SkippedPart>,
    /// The run's reference measurement (local idle latency and local read bandwidth in
    /// repetitions spread over the run), included in `estimate_s`; absent when no planned
    /// part shows it, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<crate::results::reference::PlannedReference>,
}

impl Plan {
    /// The planned entry of a part, if it runs.
    pub fn planned(&self, part: Part) -> Option<&PlannedPart> {
        self.parts.iter().find(|p| p.part == part)
    }

    /// True when the part runs.
    pub fn runs(&self, part: Part) -> bool {
        self.planned(part).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_known() {
        for p in Part::ALL {
            assert_eq!(p.name().parse::<Part>().unwrap(), p);
            let j = serde_json::to_string(&p).unwrap();
            assert_eq!(j, format!("\"{}\"", p.name()));
        }
        let e = "latencies".parse::<Part>().unwrap_err();
        assert!(
            e.contains("`latencies`") && e.contains("bandwidth-matrix, scaling"),
            "{e}"
        );
    }
}
