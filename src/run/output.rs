//! The output directory of a run: `numascope-<host>-<YYYYMMDD-HHMMSS>/` by default, or the
//! `--output` directory; an existing directory is refused unless `--force`. Every file is
//! written atomically (a temporary name in the same directory, then a rename), so a reader
//! or a crash never sees half a file; `results.json` is rewritten after every part, so a
//! later failure or Ctrl-C loses nothing already measured. At the end `numascope run` adds
//! `report.html` and the CSV tables (from `render::run_files`) and `summary.txt`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::results::time::UtcTime;
use crate::results::RunResults;
use crate::sysroot::SysRoot;

/// Writes a whole file atomically and exclusively (`sys::files::write_replacing`): a temporary
/// file of an unpredictable name in the same directory, created `O_EXCL|O_NOFOLLOW`, flushed
/// and synced, then renamed over `path`, and only over a regular file (a link, a directory or
/// a device at `path` is refused). The one such writer: the run's output directory,
/// `numascope report`, `fleet`, `app` and every `--csv`/`--html` of the standalone commands
/// use it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    crate::sys::files::write_replacing(path, bytes, crate::sys::files::SHARED_MODE)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `--csv DIR` of a standalone command: writes (file name, contents) pairs into `dir` (created
/// when missing), each through [`write_atomic`], so a reader never sees half a table.
pub fn write_csv_dir(dir: &Path, files: &[(String, String)]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "--csv {}: cannot create the directory; give a writable path",
            dir.display()
        )
    })?;
    for (name, text) in files {
        let path = dir.join(name);
        write_atomic(&path, text.as_bytes()).with_context(|| {
            format!(
                "--csv: cannot write {}; give a writable directory",
                path.display()
            )
        })?;
    }
    Ok(())
}

/// Errors of the output directory, each one sentence naming the directory.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("the output directory {0} already exists; choose another with --output DIR, or pass --force to write into it (files of the same name are replaced)")]
    Exists(String),
    #[error("{0} exists and is not a directory; choose another path with --output DIR")]
    NotADirectory(String),
    #[error("cannot create the output directory {path}: {source}; choose a writable place with --output DIR")]
    Create {
        path: String,
        source: std::io::Error,
    },
}

/// A host name usable in a file name: letters, digits, `-`, `.` and `_`; others become `_`.
pub fn safe_host(host: &str) -> String {
    let s: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "host".into()
    } else {
        s
    }
}

/// `numascope-<host>-<YYYYMMDD-HHMMSS>`.
pub fn default_dir_name(host: &str, compact_time: &str) -> String {
    format!("numascope-{}-{compact_time}", safe_host(host))
}

/// The host's name and the output directory: `--output`'s `template` with its `{host}`,
/// `{date}` and `{rank}` filled in, or numascope-HOST-DATE in the current directory.
pub fn place(
    root: &SysRoot,
    template: Option<&Path>,
    now: &UtcTime,
    rank: Option<(u64, &'static str)>,
) -> anyhow::Result<(String, PathBuf)> {
    let host = root
        .read_trimmed_opt("proc/sys/kernel/hostname")?
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into());
    let path = match template {
        Some(t) => crate::launcher::expand_output(
            t,
            &crate::launcher::TemplateValues {
                host: safe_host(&host),
                date: now.compact(),
                rank: rank.map(|r| r.0),
            },
        )?,
        None => PathBuf::from(default_dir_name(&host, &now.compact())),
    };
    Ok((host, path))
}

/// The run's output directory, created and checked.
#[derive(Debug, Clone)]
pub struct OutputDir {
    path: PathBuf,
}

impl OutputDir {
    /// Creates `path` (and its parents). An existing directory is refused without `force`.
    pub fn prepare(path: &Path, force: bool) -> Result<OutputDir, OutputError> {
        let shown = path.display().to_string();
        if path.exists() {
            if !path.is_dir() {
                return Err(OutputError::NotADirectory(shown));
            }
            if !force {
                return Err(OutputError::Exists(shown));
            }
        } else {
            std::fs::create_dir_all(path).map_err(|source| OutputError::Create {
                path: shown,
                source,
            })?;
        }
        Ok(OutputDir {
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `name` atomically: a temporary file in the directory, flushed and synced, then
    /// renamed over `name`.
    pub fn write(&self, name: &str, bytes: &[u8]) -> anyhow::Result<PathBuf> {
        let dest = self.path.join(name);
        write_atomic(&dest, bytes)?;
        Ok(dest)
    }

    /// Writes `results.json`.
    pub fn write_results(&self, r: &RunResults) -> anyhow::Result<PathBuf> {
        self.write("results.json", r.to_json().as_bytes())
    }

    /// Writes the results so far as `results.json`, marked partial: until the run completes,
    /// the file on disk says so, and a kill, an OOM or a full disk between two checkpoints
    /// leaves a file that does not pass for a finished run.
    pub fn write_partial(&self, r: &RunResults) -> anyhow::Result<()> {
        let mut so_far = r.clone();
        so_far.partial = true;
        self.write_results(&so_far).map(|_| ())
    }

    /// Writes the finished run: every file rendered first (results.json, report.html and one
    /// CSV per table from the report renderers, summary.txt), then each written in that
    /// order; gives the summary's bytes.
    pub fn write_finished(&self, results: &RunResults) -> anyhow::Result<Vec<u8>> {
        let mut files = vec![("results.json".to_string(), results.to_json().into_bytes())];
        files.extend(crate::render::run_files::run_files(results)?);
        let mut summary = Vec::new();
        crate::render::run_text::summary::render(&mut summary, results, Some(self.path()))?;
        // The summary quotes the machine's own strings (host, CPU model): escaped by the one
        // sanitizer in the file too, so `cat summary.txt` cannot drive a terminal.
        let summary = crate::sanitize::text_bytes(&summary).into_owned();
        files.push(("summary.txt".to_string(), summary.clone()));
        for (name, bytes) in &files {
            self.write(name, bytes)?;
        }
        Ok(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sample;

    #[test]
    fn names_and_refusal() {
        assert_eq!(
            default_dir_name("node 1/a", "20261121-220405"),
            "numascope-node_1_a-20261121-220405"
        );
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("out");
        let o = OutputDir::prepare(&d, false).unwrap();
        let p = o.write_results(&sample::results()).unwrap();
        assert!(crate::results_file::load(&p).is_ok());
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["results.json"]);
        let e = OutputDir::prepare(&d, false).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "the output directory {} already exists",
                d.display()
            )),
            "{e}"
        );
        assert!(e.contains("--force"));
        assert!(OutputDir::prepare(&d, true).is_ok());
        let e = OutputDir::prepare(&p, true).unwrap_err().to_string();
        assert!(e.contains("is not a directory"), "{e}");
    }
}
