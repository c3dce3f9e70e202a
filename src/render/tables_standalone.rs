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
use crate::results::topology::Topology;
use crate::results::RunResults;

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
        reference: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::csv::csv_check as check;
    use crate::render::fixture::peak_bandwidth_report;
    use crate::run::sample;

    fn names(files: &[(String, String)]) -> Vec<&str> {
        files.iter().map(|f| f.0.as_str()).collect()
    }

    /// Each standalone variant writes the files `run` writes for its part, holding
    /// to docs/csv.md, and no file for what it did not measure.
    #[test]
    fn each_variant_writes_the_run_files_of_its_part() {
        let topo = sample::opteron_topology();
        let doc = check::documented(include_str!("../../docs/csv.md"));
        let peak = bandwidth_csv(&peak_bandwidth_report(), &topo).unwrap();
        assert_eq!(names(&peak), ["peak.csv", "peak_domains.csv"]);
        let scaling =
            bandwidth_csv(&sample::scaling(0, &[(1, 5000.0), (2, 9000.0)]), &topo).unwrap();
        assert_eq!(names(&scaling), ["scaling.csv"]);
        let opteron = crate::render::fixture::opteron_example();
        let kernels = bandwidth_csv(opteron.bandwidth.as_ref().unwrap(), &topo).unwrap();
        assert!(
            names(&kernels).contains(&"bandwidth.csv"),
            "{:?}",
            names(&kernels)
        );
        assert!(!names(&kernels).iter().any(|n| n.starts_with("peak")));
        let rm = rightmark_csv(&crate::render::tables_view::fixture::rightmark_example()).unwrap();
        assert_eq!(names(&rm), ["rightmark.csv"]);
        let sm = stream_matrix_csv(&crate::render::tables_view::fixture::stream_example()).unwrap();
        assert_eq!(names(&sm), ["stream_matrix.csv"]);
        for (name, text) in peak
            .iter()
            .chain(&scaling)
            .chain(&kernels)
            .chain(&rm)
            .chain(&sm)
        {
            let problems = check::check_file(name, text, &doc[name.as_str()]);
            assert!(problems.is_empty(), "{}", problems.join("\n"));
        }
        // One row per scope, mix and thread count: the sample has two mixes at 1 and 2 threads.
        assert_eq!(peak[0].1.lines().count(), 1 + 4);
    }

    /// The report lands in the one field a run keeps it in, and nothing else is claimed.
    #[test]
    fn the_run_holds_only_the_report() {
        let topo = sample::opteron_topology();
        let r = bandwidth_run(&peak_bandwidth_report(), &topo);
        assert!(r.peak.is_some() && r.bandwidth.is_none() && r.scaling.is_none());
        assert!(r.plan.parts.is_empty() && r.plan.skipped.is_empty());
        assert!(r.latency.is_none() && r.rightmark.is_none());
        let r = bandwidth_run(&sample::scaling(0, &[(1, 1.0)]), &topo);
        assert!(r.scaling.is_some() && r.peak.is_none() && r.bandwidth.is_none());
    }
}
