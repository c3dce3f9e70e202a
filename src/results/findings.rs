//! A finding is one sentence for the reader, derived from the measurements with the numbers
//! in it ("remote memory costs +57% latency from node 1"). The type is the contract; the
//! derivations live in `crate::run::findings`.

use serde::{Deserialize, Serialize};

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A property of the machine worth knowing (penalties, saturation).
    Info,
    /// Something that limits how far the figures can be trusted or compared.
    Warning,
}

/// The id of the finding that the run's latency walk fell short of 8x the last-level cache
/// (`crate::run::dram_reach`), which the summary repeats under the latency it qualifies.
pub const SHORT_OF_MEMORY: &str = "latency-short-of-memory";

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier of the kind of finding (`remote-latency-penalty`, `thp-always`, ...), for
    /// tools that filter findings; the list is in docs/schema/results.md.
    pub id: String,
    pub severity: Severity,
    /// The sentence, numbers included.
    pub text: String,
}

impl Finding {
    pub fn info(id: &str, text: impl Into<String>) -> Finding {
        Finding {
            id: id.into(),
            severity: Severity::Info,
            text: text.into(),
        }
    }

    pub fn warning(id: &str, text: impl Into<String>) -> Finding {
        Finding {
            id: id.into(),
            severity: Severity::Warning,
            text: text.into(),
        }
    }
}
