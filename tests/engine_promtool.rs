//! Prometheus: `report --openmetrics FILE` writes a run's headline figures, their
//! 95 % intervals and a host label in the text format node_exporter's textfile collector
//! reads; Prometheus's own checker (`promtool check metrics`, Debian's prometheus package,
//! installed by tests/install-deps.sh) must accept it. Run on the recorded runs of this machine.

mod common;
mod engine;

use std::io::Write;
use std::process::{Command, Stdio};

use common::numascope;

fn promtool_accepts(text: &str) -> (bool, String) {
    let promtool = engine::find("promtool", "prometheus").unwrap();
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && said.trim().is_empty(), said)
}

#[test]
fn promtool_accepts_the_openmetrics_export_of_recorded_runs() {
    if engine::find("promtool", "prometheus").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "this-machine-quick-v657.json",
        "this-machine-kvm-2cpu.json",
        "opteron-2node.json",
    ] {
        let input = format!(
            "{}/tests/fixtures/results/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let file = tmp.path().join(format!("{name}.prom"));
        numascope()
            .args(["report", &input, "--openmetrics"])
            .arg(&file)
            .assert()
            .success();
        let text = std::fs::read_to_string(&file).unwrap();
        let (ok, said) = promtool_accepts(&text);
        assert!(ok, "promtool check metrics on {name}: {said}\n{text}");
        assert!(text.ends_with("# EOF\n"));
        // Every figure carries the host label and a median; the intervals come as bounds.
        assert!(
            text.contains("numascope_bandwidth_bytes_per_second{host=\""),
            "{text}"
        );
        assert!(text.contains(",bound=\"median\"} "), "{text}");
        if name.contains("v657") {
            assert!(text.contains(",bound=\"ci_low\"} ") && text.contains(",bound=\"ci_high\"} "));
            assert!(text.contains("kernel=\"6.18.44-fc-v657\""));
        }
    }
    // The checker is not a rubber stamp: a counter without _total is refused.
    let (ok, _) = promtool_accepts("# HELP x_bytes a\n# TYPE x_bytes counter\nx_bytes 1\n");
    assert!(!ok, "promtool accepted a counter without _total");
}
