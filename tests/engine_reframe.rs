//! ReFrame: the regression test shipped in contrib/reframe/numascope_check.py runs
//! through ReFrame (from PyPI, installed by tests/install-deps.sh into target/test-tools/venv)
//! with its built-in generic system: local scheduler, local launcher. It runs `numascope run`
//! on the cheap node-table parts, exports the figures with `report --openmetrics`, and
//! extracts the local read bandwidth and idle latency as performance variables. Checked by
//! mechanics: with references the figures meet (bounds wide enough for any machine) ReFrame
//! passes and prints both variables; with a bandwidth reference no machine meets it fails the
//! performance stage. Everything ReFrame writes (stage, output, report, log) stays in the
//! test's temporary directory.

mod engine;

use std::path::Path;
use std::process::Command;

fn reframe(dir: &Path, refs: &[(&str, &str)]) -> (bool, String) {
    let reframe = engine::find("reframe", "reframe-hpc").unwrap();
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/reframe/numascope_check.py");
    let mut cmd = Command::new(reframe);
    cmd.current_dir(dir)
        // ReFrame's home-directory database and Python's temporary log file: both in `dir`.
        .env("HOME", dir)
        .env("TMPDIR", dir)
        .env("NUMASCOPE_LOCK_DIR", dir)
        .arg("-c")
        .arg(&check)
        .arg("-r")
        .arg("--prefix")
        .arg(dir.join("prefix"))
        .arg("--report-file")
        .arg(dir.join("report.json"))
        .arg("-S")
        .arg(format!("numascope={}", engine::numascope_bin().display()));
    for (k, v) in refs {
        cmd.arg("-S").arg(format!("{k}={v}"));
    }
    let o = cmd.output().unwrap();
    (
        o.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn the_shipped_reframe_check_extracts_figures_and_checks_references() {
    if engine::find("reframe", "reframe-hpc").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // References every machine meets: 1 MB/s at most 99 % lower, 1 ns at most 10^6 x higher.
    let (ok, said) = reframe(
        tmp.path(),
        &[
            ("ref_bandwidth_mb_s", "1"),
            ("bandwidth_tolerance", "-0.99"),
            ("ref_latency_ns", "1"),
            ("latency_tolerance", "1000000"),
        ],
    );
    assert!(ok, "{said}");
    assert!(said.contains("PASSED"), "{said}");
    assert!(
        said.contains("P: local_read_bandwidth: ") && said.contains(" MB/s (r:1.0"),
        "{said}"
    );
    assert!(
        said.contains("P: local_idle_latency: ") && said.contains(" ns (r:1.0"),
        "{said}"
    );
    // A bandwidth reference of 10^9 MB/s (1 PB/s), at most 10 % lower: the check fails.
    let (ok, said) = reframe(
        tmp.path(),
        &[
            ("ref_bandwidth_mb_s", "1e9"),
            ("bandwidth_tolerance", "-0.1"),
        ],
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains("FAILED") && said.contains("performance"),
        "{said}"
    );
}
