//! Hostile input, terminal and CSV injection: values from a snapshot (CPU model,
//! kernel release, cpulist), a results file (host name), and arguments carry control
//! sequences (a window title, clear-screen, raw BEL) or spreadsheet formulas. Each case
//! asserts that what reaches stdout, stderr or a CSV cell shows them escaped (`\x1b`) or
//! neutralised (`'=`), that a huge value is cut with its length said, and that a closed
//! or full stderr never turns into a panic (exit 101) instead of the documented status.
//! Everything lives in a temporary directory that is removed at the end.

mod common;

use std::path::{Path, PathBuf};

use common::numascope;
use serde_json::Value;

/// A window-title sequence, clear-screen, and a raw BEL: what an attacker would plant.
const HOSTILE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31m";

/// No byte of a control sequence may reach the terminal raw: no ESC, BEL or C1 CSI.
fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for bad in ['\u{1b}', '\u{7}', '\u{9b}'] {
        assert!(!text.contains(bad), "{what} holds a raw {:?}:\n{text}", bad);
    }
}

/// A private copy of a small topology fixture.
fn snapshot(tmp: &Path) -> PathBuf {
    let snap = tmp.join("snap");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(common::fixture("edge-cgroup-restricted"))
        .arg(&snap)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    snap
}

fn hostile_cpu_model(snap: &Path) {
    let p = snap.join("proc/cpuinfo");
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("Synthetic cgroup CPU", &format!("Evil{HOSTILE}CPU"));
    std::fs::write(&p, text).unwrap();
}

fn hostile_osrelease(snap: &Path) {
    std::fs::write(
        snap.join("proc/sys/kernel/osrelease"),
        format!("5.15{HOSTILE}\n"),
    )
    .unwrap();
}

/// A results file whose host name is `host`.
fn results_with_host(dir: &Path, name: &str, host: &str) -> PathBuf {
    let mut r: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-kvm-2cpu.json"
        ))
        .unwrap(),
    )
    .unwrap();
    r["host"] = Value::String(host.into());
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("results.json");
    std::fs::write(&p, r.to_string()).unwrap();
    p
}

#[test]
fn topo_text_shows_a_hostile_cpu_model_and_kernel_release_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let snap = snapshot(tmp.path());
    hostile_cpu_model(&snap);
    hostile_osrelease(&snap);
    let out = numascope()
        .arg("--sysfs-root")
        .arg(&snap)
        .arg("topo")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("topo stdout", &out.stdout);
    assert_clean("topo stderr", &out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Evil\\x1b]0;owned\\x07"), "{text}");
}

#[test]
fn topo_graph_shows_hostile_snapshot_values_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let snap = snapshot(tmp.path());
    hostile_cpu_model(&snap);
    hostile_osrelease(&snap);
    std::fs::write(
        snap.join("sys/devices/system/node/node0/cpulist"),
        format!("0-1{HOSTILE}\n"),
    )
    .unwrap();
    let out = numascope()
        .arg("--sysfs-root")
        .arg(&snap)
        .args(["topo", "--graph"])
        .output()
        .unwrap();
    assert_clean("topo --graph stdout", &out.stdout);
    assert_clean("topo --graph stderr", &out.stderr);
}

#[test]
fn a_hostile_thp_mode_reaches_no_terminal_raw() {
    let tmp = tempfile::tempdir().unwrap();
    let snap = snapshot(tmp.path());
    let thp = snap.join("sys/kernel/mm/transparent_hugepage/enabled");
    std::fs::write(&thp, format!("always [madvise{HOSTILE}] never\n")).unwrap();
    for args in [&["topo"][..], &["run", "--dry-run"][..]] {
        let out = numascope()
            .arg("--sysfs-root")
            .arg(&snap)
            .args(args)
            .output()
            .unwrap();
        assert_clean(&format!("{args:?} stdout"), &out.stdout);
        assert_clean(&format!("{args:?} stderr"), &out.stderr);
    }
}

#[test]
fn a_hostile_cpulist_in_an_error_line_is_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let snap = snapshot(tmp.path());
    std::fs::write(
        snap.join("sys/devices/system/node/node0/cpulist"),
        format!("0-1{HOSTILE}\n"),
    )
    .unwrap();
    for args in [&["topo"][..], &["run", "--dry-run"][..]] {
        let out = numascope()
            .arg("--sysfs-root")
            .arg(&snap)
            .args(args)
            .output()
            .unwrap();
        assert_clean(&format!("{args:?} stdout"), &out.stdout);
        assert_clean(&format!("{args:?} stderr"), &out.stderr);
    }
}

#[test]
fn an_escape_in_an_argument_is_not_echoed_raw() {
    // A value the subcommand refuses, and a flag clap does not know.
    for args in [
        vec![
            "latency".to_string(),
            "--size".into(),
            format!("1{HOSTILE}"),
        ],
        vec!["topo".to_string(), format!("--bogus{HOSTILE}")],
        vec!["report".to_string(), format!("/nonexistent/{HOSTILE}.json")],
    ] {
        let out = numascope().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_clean(&format!("{args:?} stderr"), &out.stderr);
        assert_clean(&format!("{args:?} stdout"), &out.stdout);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("\\x1b"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn report_and_compare_show_a_hostile_host_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let a = results_with_host(tmp.path(), "a", &format!("evil{HOSTILE}"));
    let b = results_with_host(tmp.path(), "b", "plain");
    let out = numascope().arg("report").arg(&a).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("report stdout", &out.stdout);
    assert!(String::from_utf8_lossy(&out.stdout).contains("evil\\x1b"));
    let out = numascope().arg("compare").arg(&a).arg(&b).output().unwrap();
    // 0 or 1 when figures compare, 4 when too few could be compared (a file without
    // intervals): any of them, so long as nothing raw reaches the terminal.
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 4)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("compare stdout", &out.stdout);
    assert_clean("compare stderr", &out.stderr);
}

#[test]
fn a_huge_host_name_is_cut_with_its_length() {
    let tmp = tempfile::tempdir().unwrap();
    let host = "h".repeat(20_000);
    let a = results_with_host(tmp.path(), "a", &host);
    let out = numascope().arg("report").arg(&a).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains(&host),
        "the whole 20,000-byte host name was printed"
    );
    assert!(text.contains("(20000 bytes in all)"), "{text}");
}

#[test]
fn fleet_neutralises_formula_hosts_in_csv_and_escapes_them_on_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let fleet = tmp.path().join("fleet");
    let formula = "=HYPERLINK(\"http://evil.example/\",\"click\")";
    results_with_host(&fleet, "h1", formula);
    results_with_host(&fleet, "h2", &format!("@SUM{HOSTILE}"));
    results_with_host(&fleet, "h3", "plain-3");
    results_with_host(&fleet, "h4", "-1+cmd|' /C calc'!A0");
    let csv = tmp.path().join("fleet.csv");
    let out = numascope()
        .arg("fleet")
        .arg(&fleet)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("fleet stdout", &out.stdout);
    assert_clean("fleet stderr", &out.stderr);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let headers = rows.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (host, value) = (col("host"), col("value"));
    let mut hosts = std::collections::BTreeSet::new();
    for r in rows.records() {
        let r = r.unwrap();
        let h = r[host].to_string();
        assert!(
            !h.starts_with(['=', '+', '-', '@']),
            "a host cell a spreadsheet runs as a formula: {h}"
        );
        assert_clean("fleet.csv", h.as_bytes());
        // Numeric columns stay numbers.
        assert!(r[value].parse::<f64>().is_ok(), "value `{}`", &r[value]);
        hosts.insert(h);
    }
    assert!(hosts.contains(&format!("'{formula}")), "{hosts:?}");
    assert!(hosts.contains("'-1+cmd|' /C calc'!A0"), "{hosts:?}");
    assert!(hosts.contains("plain-3"), "{hosts:?}");
}

#[test]
fn an_unwritable_stderr_never_panics() {
    // A full stderr: the error cannot be shown, the status still says what happened.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("numascope");
    let out = std::process::Command::new(&bin)
        .args(["report", "/nonexistent/results.json"])
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "exit status with a full stderr");
    // A pipe whose reader has gone: EPIPE on every write to stderr.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(&bin)
        .args(["report", "/nonexistent/results.json"])
        .stderr(writer)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit status with a closed stderr"
    );
}

#[test]
fn an_xmls_hostile_cpu_model_is_escaped() {
    // XML 1.0 allows C1 controls and bidi overrides in attribute values (not C0 ones).
    let tmp = tempfile::tempdir().unwrap();
    let xml = tmp.path().join("t.xml");
    let out = numascope()
        .arg("report")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/this-machine-kvm-2cpu.json"
        ))
        .arg("--hwloc-xml")
        .arg(&xml)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&xml).unwrap();
    let start = text.find("name=\"CPUModel\" value=\"").unwrap() + 23;
    let end = start + text[start..].find('"').unwrap();
    let hostile = format!("{}Evil\u{9b}31m\u{202e}CPU{}", &text[..start], &text[end..]);
    std::fs::write(&xml, hostile).unwrap();
    let out = numascope()
        .arg("--sysfs-root")
        .arg(&xml)
        .arg("topo")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("topo stdout", &out.stdout);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(!shown.contains('\u{202e}'), "a raw bidi override:\n{shown}");
    assert!(shown.contains("Evil\\u{9b}31m\\u{202e}CPU"), "{shown}");
}
