//! CSV export: one file per table of a run (`latency_sweep.csv`, `latency_matrix.csv`,
//! `bandwidth.csv`, `bandwidth_matrix.csv`, `scaling.csv`, `loaded_latency.csv`, `c2c.csv`,
//! `c2c_groups.csv`, `scenarios.csv`, `recommendations.csv`) in tidy form, so pandas or R
//! load it without cleaning: snake_case headers with the unit in the name
//! (`ns_per_load_median`, `mb_per_s_ci_low`), one type per column (numbers at full precision,
//! empty when missing, `true`/`false` flags, text only in text columns), one row per
//! observation. docs/csv.md documents every column; tests/csv_tidy.rs holds the files to it.
//! Tables with no rows (parts not measured) get no file.

use super::run_view::{all_tables, Table};
use crate::results::RunResults;

/// One table as CSV text.
pub fn table_csv(t: &Table) -> Result<String, csv::Error> {
    let rows = t.rows.iter().map(|r| r.iter().map(|c| c.raw()).collect());
    records(std::iter::once(t.keys.clone()).chain(rows))
}

/// Records (the header first) as CSV text, cells quoted where they need it: the one writer
/// of every CSV numascope prints (a run's tables, `fleet`'s, `app`'s).
pub fn records(rows: impl IntoIterator<Item = Vec<String>>) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.write_record(row)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 cells is UTF-8"))
}

/// The CSV files of a run: (file name, contents), tables with rows only.
pub fn run_csv(r: &RunResults) -> Result<Vec<(String, String)>, csv::Error> {
    let mut tables = all_tables(r);
    tables.push(super::tables_view::rightmark_table(r.rightmark.as_ref()));
    tables.push(super::tables_view::stream_matrix_table(
        r.stream_matrix.as_ref(),
    ));
    tables
        .iter()
        .filter(|t| !t.rows.is_empty())
        .map(|t| Ok((format!("{}.csv", t.name), table_csv(t)?)))
        .collect()
}

/// The checker of tests/csv_tidy.rs, so the library's test reads the same contract.
#[cfg(test)]
#[path = "../../tests/csv_tidy/check.rs"]
pub(crate) mod csv_check;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;

    #[test]
    fn one_file_per_measured_table_with_unit_headers() {
        let files = run_csv(&opteron_example()).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "latency_sweep.csv",
                "latency_matrix.csv",
                "bandwidth.csv",
                "bandwidth_matrix.csv",
                "scaling.csv",
                "loaded_latency.csv",
                "c2c.csv",
                "c2c_groups.csv",
                "scenarios.csv",
                "recommendations.csv"
            ]
        );
        let (_, m) = &files[1];
        // The header is docs/csv.md's (sample_run_csvs_follow_the_documented_columns); the
        // first row holds the fixture's local cell at full precision, empty where missing.
        let mut lines = m.lines().skip(1);
        assert_eq!(
            lines.next().unwrap(),
            "0,0,16777216,45.6,,,,15,,,45.6,48.3,1,10,,1,,,,,,0,48.3,1,1,"
        );
        // Cells with commas are quoted.
        let (_, s) = &files[8];
        assert!(
            s.contains("\"numactl --cpunodebind=0 --membind=0 APP\"")
                || s.contains(",numactl --cpunodebind=0 --membind=0 APP,")
        );
        let mut rdr = csv::Reader::from_reader(s.as_bytes());
        assert_eq!(rdr.records().count(), 7);
    }

    use super::csv_check as check;

    /// The sample run's CSVs (and the Opteron fixture's) hold to docs/csv.md.
    #[test]
    fn sample_run_csvs_follow_the_documented_columns() {
        let doc = check::documented(include_str!("../../docs/csv.md"));
        for r in [crate::run::sample::results(), opteron_example()] {
            let files = run_csv(&r).unwrap();
            assert!(!files.is_empty());
            for (name, text) in &files {
                let cols = doc
                    .get(name)
                    .unwrap_or_else(|| panic!("{name} is not documented in docs/csv.md"));
                let problems = check::check_file(name, text, cols);
                assert!(problems.is_empty(), "{}", problems.join("\n"));
            }
        }
    }

    #[test]
    fn absent_parts_have_no_file() {
        let mut r = opteron_example();
        r.c2c = None;
        r.bandwidth = None;
        let names: Vec<String> = run_csv(&r).unwrap().into_iter().map(|f| f.0).collect();
        assert!(!names
            .iter()
            .any(|n| n.starts_with("c2c") || n.starts_with("bandwidth")));
    }
}
