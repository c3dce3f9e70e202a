//! The result of `numascope placement`: a request, where the pages really went, and the
//! judgement. A plain serde type so text and JSON are rendered from the same data.

use serde::{Deserialize, Serialize};

use super::{PlacementReport, Policy};

/// Version of the `placement --json` contract.
pub const PLACEMENT_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementCheck {
    pub schema_version: u32,
    /// Policy name: first-touch, bind, preferred, preferred-many, interleave, weighted.
    pub policy: String,
    /// Nodes named by the policy (empty for first touch).
    pub nodes: Vec<u32>,
    /// Weights per node for weighted interleave, as (node, weight) pairs.
    pub weights: Option<Vec<(u32, u8)>>,
    /// CPU the faulting thread was pinned to, if one was requested.
    pub cpu: Option<u32>,
    /// CPU the faulting thread actually ran on (getcpu after the fault-in).
    pub ran_on_cpu: u32,
    pub report: PlacementReport,
    /// Expected share per node where the policy fixes it: (node, fraction 0..=1).
    pub expected_shares: Option<Vec<(u32, f64)>>,
    /// True when the histogram meets the policy (see PlacementReport::judge).
    pub matches: bool,
    /// One sentence saying what was found.
    pub verdict: String,
    /// The numactl options that apply the same policy to a whole program.
    pub numactl: String,
}

impl PlacementCheck {
    /// Judges `report` against `policy`.
    pub fn new(
        policy: &Policy,
        cpu: Option<u32>,
        ran_on_cpu: u32,
        report: PlacementReport,
    ) -> Self {
        let (matches, verdict) = report.judge(policy);
        PlacementCheck {
            schema_version: PLACEMENT_SCHEMA_VERSION,
            policy: policy.name().to_string(),
            nodes: policy.nodes(),
            weights: match policy {
                Policy::WeightedInterleave(w) => Some(w.clone()),
                _ => None,
            },
            cpu,
            ran_on_cpu,
            expected_shares: policy.expected_shares(),
            matches,
            verdict,
            numactl: format!("numactl {} <program>", policy.numactl_args()),
            report,
        }
    }
}
