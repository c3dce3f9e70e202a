//! The result of `numascope placement`: a request, where the pages really went, and the
//! judgement. A plain serde type so text and JSON are rendered from the same data.

use super::Policy;
use crate::results::placement::PlacementReport;
use crate::results::placement::{PlacementCheck, PLACEMENT_SCHEMA_VERSION};

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
