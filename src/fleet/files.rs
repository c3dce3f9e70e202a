//! Finding the runs of a fleet: every `results.json` under the directories given to `numascope
//! fleet` (a file given directly counts too), walked without following symbolic links (a
//! link loop cannot make the walk endless) and to a bounded depth, in a stable order.

use std::path::{Path, PathBuf};

/// The name of a run's results file in its output directory.
pub const RESULTS_FILE: &str = "results.json";
/// Directories deeper than this below a given one are not searched.
pub const MAX_DEPTH: usize = 8;

/// Every results file under `paths`, sorted; one sentence naming a path that cannot be read.
pub fn find_results(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| {
            anyhow::anyhow!(
                "cannot read {}: {e}; give directories that hold numascope run output (results.json)",
                p.display()
            )
        })?;
        // A FIFO or a device given directly goes to the reader, which refuses it by type.
        if !meta.is_dir() {
            out.push(p.clone());
        } else {
            walk(p, 0, &mut out)?;
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot list {}: {e}; check the path and its permissions",
            dir.display()
        )
    })?;
    for e in entries.flatten() {
        let path = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() && depth < MAX_DEPTH {
            walk(&path, depth + 1, out)?;
        } else if !t.is_dir() && !t.is_symlink() && e.file_name() == RESULTS_FILE {
            // A FIFO, device or socket named results.json is kept, so the reader refuses it
            // by type with its sentence (docs/fleet.md) rather than the walk skipping it.
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_results_files_recursively_and_skips_links() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a/deep");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::write(a.join(RESULTS_FILE), "{}").unwrap();
        std::fs::write(tmp.path().join("b.json"), "{}").unwrap();
        std::os::unix::fs::symlink(tmp.path(), tmp.path().join("a/loop")).unwrap();
        let found = find_results(&[tmp.path().to_path_buf(), tmp.path().join("b.json")]).unwrap();
        assert_eq!(found, vec![a.join(RESULTS_FILE), tmp.path().join("b.json")]);
        let e = find_results(&[tmp.path().join("nope")])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cannot read ") && e.contains("nope"), "{e}");
    }
}
