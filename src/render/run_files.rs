//! The rendered files of a run's output directory, for the writer that owns the directory
//! (`numascope run`): `report.html` and one CSV per measured table, as (file name, bytes).
//! Writing them (atomically, refusing to overwrite) is the caller's job.

use super::{csv, html};
use crate::results::RunResults;

/// `report.html` then the CSV files, flat names relative to the run directory.
pub fn run_files(r: &RunResults) -> Result<Vec<(String, Vec<u8>)>, ::csv::Error> {
    let mut files = vec![("report.html".to_string(), html::render(r).into_bytes())];
    for (name, text) in csv::run_csv(r)? {
        files.push((name, text.into_bytes()));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_and_every_table() {
        let f = run_files(&crate::render::fixture::opteron_example()).unwrap();
        assert_eq!(f[0].0, "report.html");
        assert!(f[0].1.starts_with(b"<!DOCTYPE html>"));
        assert_eq!(f.len(), 11);
        assert!(f
            .iter()
            .skip(1)
            .all(|(n, _)| n.ends_with(".csv") && !n.contains('/')));
    }
}
