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

#[cfg(test)]
mod tests {

    use crate::results::verdict::*;

    fn fig(name: &str, half: Option<f64>, share: Option<f64>, disturbed: bool) -> FigureCheck {
        FigureCheck {
            name: name.into(),
            half_width: half,
            cpu_share: share,
            steal: None,
            disturbed,
        }
    }

    #[test]
    fn verdict_rule() {
        let quiet = judge_figures(
            &[
                fig("a", Some(0.02), Some(0.99), false),
                fig("b", Some(0.04), Some(0.98), false),
            ],
            0.9,
        );
        assert_eq!(quiet.verdict, Verdict::Quiet);
        assert!(quiet
            .sentence
            .starts_with("quiet: every checked repetition"));
        assert!(
            quiet.sentence.contains("lowest CPU share 98 % (b)"),
            "{}",
            quiet.sentence
        );
        let noisy = judge_figures(
            &[
                fig("a", Some(0.02), Some(0.99), false),
                fig("b", Some(0.25), None, false),
                fig("c", None, None, false),
            ],
            0.9,
        );
        assert_eq!(noisy.verdict, Verdict::Noisy);
        assert_eq!((noisy.figures_wide, noisy.figures_disturbed), (1, 0));
        assert!(
            noisy.sentence.contains("widest interval \u{b1}25.0 % (b)"),
            "{}",
            noisy.sentence
        );
        let bad = judge_figures(
            &[
                fig("a", None, Some(0.47), false),
                fig("b", None, None, true),
                fig("c", Some(0.01), Some(0.99), false),
            ],
            0.9,
        );
        assert_eq!(bad.verdict, Verdict::Unusable);
        assert!(bad.sentence.contains("rerun on an idle machine"));
        assert_eq!(judge_figures(&[], 0.9).verdict, Verdict::Quiet);
    }
}
