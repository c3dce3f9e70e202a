//! What the entry points of the experiments share. Every experiment (`latency::run`,
//! `bandwidth::run`, `loaded::run`, `c2c::run`) has the shape
//! `run(topology, root, &Config, progress) -> anyhow::Result<Outcome<Report>>`: an `Err` means
//! it stopped, an [`Outcome`] carries the finished report and, when the configuration asked it
//! to keep going past a failing curve or cell, the first such failure. The subcommands turn
//! any failure into their error ([`Outcome::into_result`]); the full run keeps the report and
//! records the failure. Nothing else lives here, so every layer may import it.

/// Called with (steps done, steps in all) as an experiment advances.
pub type Progress<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// A finished report and the first failure the experiment kept going past.
#[derive(Debug)]
pub struct Outcome<R> {
    pub report: R,
    /// `Some` when a curve or cell failed and the configuration said to keep going.
    pub failed: Option<anyhow::Error>,
}

impl<R> Outcome<R> {
    /// A report without failures.
    pub fn done(report: R) -> Outcome<R> {
        Outcome {
            report,
            failed: None,
        }
    }

    /// The report, or the failure: a subcommand's answer is all or nothing.
    pub fn into_result(self) -> anyhow::Result<R> {
        match self.failed {
            Some(e) => Err(e),
            None => Ok(self.report),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_result_gives_the_failure_before_the_report() {
        assert_eq!(Outcome::done(3).into_result().unwrap(), 3);
        let o = Outcome {
            report: 3,
            failed: Some(anyhow::anyhow!("cell node 0 -> node 1 failed")),
        };
        assert_eq!(
            o.into_result().unwrap_err().to_string(),
            "cell node 0 -> node 1 failed"
        );
    }
}
