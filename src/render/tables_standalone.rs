//! What `bandwidth`, `rightmark` and `bandwidth --stream-matrix` write with `--csv DIR` when
//! they run on their own: the same tidy files `numascope run` writes for the same part
//! (docs/csv.md), so a script reads one layout whichever command measured it. A bandwidth
//! report is put where a run keeps it (`bandwidth`, `scaling` or `peak` of a
//! [`RunResults`] holding nothing else), and the run's own tables render it: nothing here
//! re-derives a column. Writing the files (atomically) is the caller's job.

use super::run_view::Table;
use crate::results::bandwidth::BandwidthReport;
use crate::results::plan::{Budget, Plan};
use crate::results::tables::{RightmarkReport, StreamMatrixReport};
use crate::results::RunResults;
use crate::topology::Topology;

/// A run holding only `report`, in the field a run keeps that kind of bandwidth report in:
/// `peak` for `--peak`, `scaling` for `--scaling`, `bandwidth` for everything else (kernels,
/// `--stride`, `--sweep` or a `--size` list, `--matrix`). Its plan is empty, so nothing else
/// is claimed to have been measured or skipped.
pub fn bandwidth_run(report: &BandwidthReport, topo: &Topology) -> RunResults {
    let plan = Plan {
        budget: Budget::Default,
        target_s: None,
        estimate_s: 0.0,
        parts: vec![],
        skipped: vec![],
    };
    let mut r = RunResults::begin(String::new(), String::new(), plan, topo.clone());
    let slot = if report.peak.is_some() {
        &mut r.peak
    } else if !report.scaling.is_empty() {
        &mut r.scaling
    } else {
        &mut r.bandwidth
    };
    *slot = Some(report.clone());
    r
}

/// The CSV files of a standalone bandwidth report, (file name, contents): the run's tables
/// that have rows (`bandwidth.csv`, `bandwidth_matrix.csv`, `bandwidth_sweep.csv`,
/// `scaling.csv`, `peak.csv`, `peak_domains.csv`, as the variant measured).
pub fn bandwidth_csv(
    report: &BandwidthReport,
    topo: &Topology,
) -> Result<Vec<(String, String)>, csv::Error> {
    super::csv::run_csv(&bandwidth_run(report, topo))
}

/// `rightmark.csv` of `numascope rightmark --csv DIR`.
pub fn rightmark_csv(report: &RightmarkReport) -> Result<Vec<(String, String)>, csv::Error> {
    one(super::tables_view::rightmark_table(Some(report)))
}

/// `stream_matrix.csv` of `numascope bandwidth --stream-matrix --csv DIR`.
pub fn stream_matrix_csv(report: &StreamMatrixReport) -> Result<Vec<(String, String)>, csv::Error> {
    one(super::tables_view::stream_matrix_table(Some(report)))
}

fn one(t: Table) -> Result<Vec<(String, String)>, csv::Error> {
    Ok(vec![(
        format!("{}.csv", t.name),
        super::csv::table_csv(&t)?,
    )])
}
