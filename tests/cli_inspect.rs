//! `numascope inspect` by name and by several PIDs, and `inspect --system` (the `numastat -m`
//! view). Processes are `sleep` run through a link named so no other process has
//! the name, so a name match is exact on any machine.

use std::path::Path;
use std::process::{Child, Command};

mod common;

use common::{fixture, numascope};
use serde_json::Value;

/// A `sleep` running under the name `name` (its comm); killed on drop.
struct Named(Child);

impl Named {
    fn start(dir: &Path, name: &str) -> Named {
        let exe = dir.join(name);
        if !exe.exists() {
            let sleep = ["/bin/sleep", "/usr/bin/sleep"]
                .into_iter()
                .find(|p| Path::new(p).exists())
                .expect("sleep is installed");
            // A link, not a copy: the kernel takes comm from the name executed, and a copy
            // could be busy (ETXTBSY) while a parallel test forks.
            std::os::unix::fs::symlink(sleep, &exe).unwrap();
        }
        let child = Command::new(&exe).arg("60").spawn().unwrap();
        // Wait until the kernel shows the new comm (after exec).
        let comm = format!("/proc/{}/comm", child.id());
        for _ in 0..200 {
            if std::fs::read_to_string(&comm).is_ok_and(|c| c.trim() == name) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Named(child)
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Named {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn output(args: &[&str]) -> (Option<i32>, String, String) {
    let out = numascope().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_name_finds_its_process_and_several_targets_give_an_array() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("nsc{}", std::process::id() % 100_000);
    let p = Named::start(dir.path(), &name);
    let (code, out, err) = output(&["inspect", &name, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pid"], p.pid());
    assert_eq!(v["name"], name.as_str());
    // A part of the name works too when it fits one process.
    let part = &name[..name.len() - 1];
    let (code, out, _) = output(&["inspect", part, "--json"]);
    if code == Some(0) {
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["pid"], p.pid());
    }
    // A PID and a name: an array, in the order given.
    let me = std::process::id().to_string();
    let (code, out, err) = output(&["inspect", &me, &name, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let pids: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(pids, vec![std::process::id() as u64, p.pid() as u64]);
    // Text: one block per process.
    let (code, out, err) = output(&["inspect", &me, &name]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.matches("\nResident memory per node").count(),
        2,
        "{out}"
    );
}

#[test]
fn a_name_that_fits_several_processes_is_refused_with_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("nsd{}", std::process::id() % 100_000);
    let a = Named::start(dir.path(), &name);
    let b = Named::start(dir.path(), &name);
    let (code, out, err) = output(&["inspect", &name]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(out, "");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("`{name}` fits 2 processes")), "{err}");
    assert!(err.contains(&format!("{} ({name})", a.pid())), "{err}");
    assert!(err.contains(&format!("{} ({name})", b.pid())), "{err}");
    assert!(err.contains("give the PID"), "{err}");
}

#[test]
fn system_memory_replays_a_snapshot_in_mib_per_node() {
    let root = fixture("guest-A");
    let (code, out, err) = output(&["--sysfs-root", &root, "inspect", "--system"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("Per-node system memory (MiB"), "{out}");
    let header = out.lines().nth(1).unwrap();
    for col in ["node 0", "node 1", "node 2", "total"] {
        assert!(header.contains(col), "{header}");
    }
    // The MemTotal row is the fixture's kB figures / 1024, two decimals, then their sum.
    let kb = |n: u32| -> u64 {
        let t = std::fs::read_to_string(format!("{root}/sys/devices/system/node/node{n}/meminfo"))
            .unwrap();
        let l = t.lines().find(|l| l.contains("MemTotal:")).unwrap();
        l.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    let want: Vec<String> = [kb(0), kb(1), kb(2), kb(0) + kb(1) + kb(2)]
        .iter()
        .map(|k| format!("{:.2}", *k as f64 / 1024.0))
        .collect();
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.trim_start().starts_with("MemTotal "))
        .unwrap()
        .split_whitespace()
        .skip(1)
        .collect();
    assert_eq!(row, want);
    // --system takes no process.
    let (code, _, err) = output(&["inspect", "--system", "1"]);
    assert_eq!(code, Some(2), "{err}");
}

/// On the live machine, MemTotal per node agrees with `numastat -m` where it is installed.
#[test]
fn system_memory_agrees_with_numastat_m() {
    let Ok(ns) = Command::new("numastat").arg("-m").output() else {
        eprintln!("skipped: numastat is not installed");
        return;
    };
    let ns = String::from_utf8_lossy(&ns.stdout).into_owned();
    let Some(theirs) = ns.lines().find(|l| l.starts_with("MemTotal")) else {
        eprintln!("skipped: numastat -m printed no MemTotal: {ns}");
        return;
    };
    let (code, out, err) = output(&["inspect", "--system"]);
    assert_eq!(code, Some(0), "{err}");
    let ours = out
        .lines()
        .find(|l| l.trim_start().starts_with("MemTotal "))
        .unwrap();
    let nums =
        |l: &str| -> Vec<String> { l.split_whitespace().skip(1).map(str::to_string).collect() };
    assert_eq!(
        nums(ours),
        nums(theirs),
        "ours: {ours}\nnumastat -m: {theirs}"
    );
}

/// `inspect --system --compact` is `numastat -m -c`: the same rows in whole MiB
/// (rounded), the same columns.
#[test]
fn compact_system_memory_is_in_whole_mib() {
    let root = fixture("guest-A");
    let (code, out, err) = output(&["--sysfs-root", &root, "inspect", "--system", "--compact"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("Per-node system memory (whole MiB"),
        "{out}"
    );
    let kb = |n: u32| -> u64 {
        let t = std::fs::read_to_string(format!("{root}/sys/devices/system/node/node{n}/meminfo"))
            .unwrap();
        let l = t.lines().find(|l| l.contains("MemTotal:")).unwrap();
        l.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    let want: Vec<String> = [kb(0), kb(1), kb(2), kb(0) + kb(1) + kb(2)]
        .iter()
        .map(|k| format!("{:.0}", *k as f64 / 1024.0))
        .collect();
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.trim_start().starts_with("MemTotal "))
        .unwrap()
        .split_whitespace()
        .skip(1)
        .collect();
    assert_eq!(row, want);
    assert!(!out.contains('.'), "{out}");
    // JSON is the same document with or without --compact.
    let json = |extra: &[&str]| {
        let mut a = vec!["--sysfs-root", &root, "inspect", "--system", "--json"];
        a.extend_from_slice(extra);
        output(&a).1
    };
    assert_eq!(json(&["--compact"]), json(&[]));
}

/// `inspect PID --compact`: this test process's resident memory per kind and node in whole
/// MiB with a total column and row, and nothing about threads or policies.
#[test]
fn compact_process_view_has_totals_only() {
    let pid = std::process::id().to_string();
    let (code, out, err) = output(&["inspect", &pid, "--compact"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(&format!("Process {pid} (")) && out.contains("whole MiB"),
        "{out}"
    );
    let header = out.lines().nth(1).unwrap();
    assert!(
        header.contains("node 0") && header.trim_end().ends_with("total"),
        "{header}"
    );
    let total = out.lines().last().unwrap();
    assert!(total.trim_start().starts_with("total"), "{out}");
    assert!(
        total
            .split_whitespace()
            .skip(1)
            .all(|v| v.parse::<u64>().is_ok()),
        "{total}"
    );
    assert!(
        !out.contains("Threads") && !out.contains("numa_hit"),
        "{out}"
    );
}

/// On the live machine, the compact MemTotal row agrees with `numastat -m -c` where it is
/// installed (both round to whole MiB; numastat's "MB" are MiB).
#[test]
fn compact_system_memory_agrees_with_numastat_m_c() {
    let Ok(ns) = Command::new("numastat").args(["-m", "-c"]).output() else {
        eprintln!("skipped: numastat is not installed");
        return;
    };
    let ns = String::from_utf8_lossy(&ns.stdout).into_owned();
    let Some(theirs) = ns.lines().find(|l| l.starts_with("MemTotal")) else {
        eprintln!("skipped: numastat -m -c printed no MemTotal: {ns}");
        return;
    };
    let (code, out, err) = output(&["inspect", "--system", "--compact"]);
    assert_eq!(code, Some(0), "{err}");
    let ours = out
        .lines()
        .find(|l| l.trim_start().starts_with("MemTotal "))
        .unwrap();
    let nums =
        |l: &str| -> Vec<String> { l.split_whitespace().skip(1).map(str::to_string).collect() };
    assert_eq!(
        nums(ours),
        nums(theirs),
        "ours: {ours}\nnumastat -m -c: {theirs}"
    );
}
