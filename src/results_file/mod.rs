//! Reading a saved `results.json` for `report` and `compare`: the file is read through the
//! fenced reader (a FIFO or a device is refused, and so is a file over [`MAX_RESULTS_BYTES`],
//! before anything is read), parsed by the pure `RunResults::from_json`, and completed with the
//! figures that files written by older versions lack (the loaded-latency trend). It sits above
//! `results/` so the contract itself reads no files and computes nothing.

pub mod check;

use std::path::Path;

use crate::results::{LoadError, RunResults};

/// The largest results file `report` and `compare` read, bytes. A full run writes well
/// under 10 MB.
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// Reads and checks a results file; every error is one sentence naming the file.
pub fn load(path: &Path) -> Result<RunResults, LoadError> {
    load_noted(path).map(|(r, _)| r)
}

/// [`load`], with the notes for the reader (keys this numascope does not know): values
/// outside their domain are refused by `results_check` after parsing.
pub fn load_noted(path: &Path) -> Result<(RunResults, Vec<String>), LoadError> {
    let p = path.display().to_string();
    let text = crate::sys::safe_read::read_capped(path, MAX_RESULTS_BYTES, false)
        .and_then(|b| {
            String::from_utf8(b).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                )
            })
        })
        .map_err(|source| LoadError::Io {
            path: p.clone(),
            source,
        })?;
    let r = parse(&text, &p)?;
    let notes = crate::results_file::check::check(&text, &r, &p)?;
    Ok((r, notes))
}

/// Parses results JSON (`name` names the source in errors) and fills the loaded-latency
/// trend of a file written before the trend was stored.
pub fn parse(text: &str, name: &str) -> Result<RunResults, LoadError> {
    let mut r = RunResults::from_json(text, name)?;
    if let Some(l) = r.loaded_latency.as_mut() {
        l.fill_trend();
    }
    Ok(r)
}

#[cfg(test)]
mod old_files;
