//! Bad `--sysfs-root` input: a root that does not exist or is not a snapshot, a snapshot
//! missing required files, malformed cpulists, distance rows and meminfo lines, and a file
//! that cannot be read. A bad root or a bad CPU/node structure must give exit status 2 and one
//! line naming the path, never a panic; a bad optional file (meminfo, distances, caches, THP)
//! must give the machine with that field unknown and a warning naming the file.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

const NODE0: &str = "sys/devices/system/node/node0";

/// A private copy of a small fixture to corrupt.
fn copy_fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology/edge-cgroup-restricted");
    let dst = tmp.path().join("snap");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(&src)
        .arg(&dst)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    (tmp, dst)
}

/// Runs `topo` on `root` and checks the failure shape; returns stderr.
fn fails(root: &Path, must_name: &str) -> String {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(root)
        .arg("topo")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.starts_with("numascope: error: "), "{err}");
    assert!(err.contains(must_name), "`{must_name}` not named in: {err}");
    err
}

#[test]
fn nonexistent_root() {
    let err = fails(Path::new("/nonexistent/snapshot"), "/nonexistent/snapshot");
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn root_that_is_not_a_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let err = fails(tmp.path(), &tmp.path().display().to_string());
    assert!(err.contains("not a snapshot"), "{err}");
}

#[test]
fn snapshot_missing_the_cpu_directory() {
    let (_t, d) = copy_fixture();
    std::fs::remove_dir_all(d.join("sys/devices/system/cpu")).unwrap();
    let err = fails(&d, "sys/devices/system/cpu/present");
    assert!(
        err.contains("missing") && err.contains("incomplete"),
        "{err}"
    );
}

#[test]
fn snapshot_missing_a_node_cpulist() {
    let (_t, d) = copy_fixture();
    std::fs::remove_file(d.join(NODE0).join("cpulist")).unwrap();
    // The hex cpumap of old kernels stands in for the list...
    Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(&d)
        .arg("topo")
        .assert()
        .success();
    // ...but without either the node's CPUs are unknown.
    std::fs::remove_file(d.join(NODE0).join("cpumap")).unwrap();
    fails(&d, "node0/cpulist is missing");
}

/// Runs `topo --json` on `root`, which must succeed with a warning naming `must_name` on
/// stderr and in the JSON (an optional file missing or malformed is an unknown field
/// and a warning, never a refusal of the machine); returns the JSON.
fn warns(root: &Path, must_name: &str) -> serde_json::Value {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(root)
        .args(["topo", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "refused: {err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("numascope: warning: /") && l.contains(must_name)),
        "`{must_name}` not named in: {err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = v["warnings"].as_array().unwrap();
    assert!(
        w.iter().any(|w| w.as_str().unwrap().contains(must_name)),
        "{w:?}"
    );
    v
}

#[test]
fn snapshot_missing_a_node_meminfo() {
    // Was a refusal; now the node's memory is unknown (0) and the file is named.
    let (_t, d) = copy_fixture();
    std::fs::remove_file(d.join(NODE0).join("meminfo")).unwrap();
    let v = warns(&d, "node0/meminfo is missing");
    assert_eq!(v["nodes"][0]["memory_total_bytes"], 0);
    assert_eq!(v["nodes"][0]["cpus"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(v["nodes"][1]["memory_total_bytes"], 8u64 << 30);
}

#[test]
fn malformed_cpulist() {
    let (_t, d) = copy_fixture();
    std::fs::write(d.join(NODE0).join("cpulist"), "0-x\n").unwrap();
    let err = fails(&d, "node0/cpulist is malformed");
    assert!(err.contains("0-x"), "{err}");
}

#[test]
fn malformed_distance_rows() {
    let (_t, d) = copy_fixture();
    // Were refusals; now the distances are unknown (empty) and the file is named.
    std::fs::write(d.join(NODE0).join("distance"), "10 twenty\n").unwrap();
    let v = warns(&d, "node0/distance is malformed");
    assert_eq!(v["distances"], serde_json::json!([]));
    std::fs::write(d.join(NODE0).join("distance"), "10 20 30\n").unwrap();
    let v = warns(&d, "node0/distance is malformed");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(
        w.contains("3 distances but there are 2") && w.contains("distances are unknown"),
        "{w}"
    );
    assert_eq!(v["distances"], serde_json::json!([]));
}

#[test]
fn malformed_meminfo_line() {
    let (_t, d) = copy_fixture();
    std::fs::write(
        d.join(NODE0).join("meminfo"),
        "Node 0 MemTotal:       8388608 kB\nNode 0 MemFree 7549747 kB\n",
    )
    .unwrap();
    // Was a refusal; now the node's memory is unknown and the file and line named.
    let v = warns(&d, "node0/meminfo is malformed");
    assert!(v["warnings"][0].as_str().unwrap().contains("line 2"));
    assert_eq!(v["nodes"][0]["memory_total_bytes"], 0);
    assert_eq!(v["nodes"][0]["cpus"], serde_json::json!([0, 1, 2, 3]));
}

#[test]
fn malformed_cache_size_and_thp_choice() {
    let (_t, d) = copy_fixture();
    std::fs::write(
        d.join("sys/devices/system/cpu/cpu0/cache/index0/size"),
        "big\n",
    )
    .unwrap();
    // Were refusals; now that one cache instance, or the THP mode, is unknown and the file
    // named.
    let v = warns(&d, "cpu0/cache/index0/size is malformed");
    let l1_of_cpu0 = v["caches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["level"] == 1 && c["cpus"] == serde_json::json!([0]))
        .count();
    assert_eq!(l1_of_cpu0, 1, "the L1 instruction cache is still there");
    assert!(v["caches"].as_array().unwrap().len() > 10);
    let (_t, d) = copy_fixture();
    std::fs::write(
        d.join("sys/kernel/mm/transparent_hugepage/enabled"),
        "always madvise never\n",
    )
    .unwrap();
    let v = warns(&d, "transparent_hugepage/enabled is malformed");
    assert_eq!(v["environment"]["thp_enabled"], serde_json::Value::Null);
    assert_eq!(v["environment"]["thp_defrag"], "madvise");
}

#[test]
fn unreadable_file() {
    // A directory where a file belongs cannot be read, even by root (chmod would not stop it).
    // A node's CPU list is the structure: unreadable, the machine cannot be read.
    let (_t, d) = copy_fixture();
    let f = d.join(NODE0).join("cpulist");
    std::fs::remove_file(&f).unwrap();
    std::fs::create_dir(&f).unwrap();
    let err = fails(&d, "node0/cpulist");
    assert!(err.contains("cannot read"), "{err}");
    // An optional file unreadable is an unknown field and a warning.
    let (_t, d) = copy_fixture();
    let f = d.join(NODE0).join("distance");
    std::fs::remove_file(&f).unwrap();
    std::fs::create_dir(&f).unwrap();
    let v = warns(&d, "node0/distance cannot be read");
    assert_eq!(v["distances"], serde_json::json!([]));
}

#[test]
fn optional_data_absent_is_not_an_error() {
    let (_t, d) = copy_fixture();
    for p in [
        "sys/kernel/mm/transparent_hugepage",
        "proc/self",
        "proc/cpuinfo",
    ] {
        let p = d.join(p);
        if p.is_dir() {
            std::fs::remove_dir_all(p).unwrap();
        } else {
            std::fs::remove_file(p).unwrap();
        }
    }
    for n in ["node0", "node1"] {
        std::fs::remove_dir_all(d.join("sys/devices/system/node").join(n).join("hugepages"))
            .unwrap();
    }
    Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(&d)
        .args(["topo", "--json"])
        .assert()
        .success();
}

#[test]
fn archive_that_is_not_a_tar_gz() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("snap.tar.gz");
    std::fs::write(&f, "this is not gzip").unwrap();
    let err = fails(&f, "snap.tar.gz");
    assert!(err.contains("not a readable .tar.gz snapshot"), "{err}");
}

#[test]
fn capture_into_a_missing_directory() {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .args(["capture", "/nonexistent/dir/snap"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/nonexistent/dir") && err.contains("does not exist"),
        "{err}"
    );
    assert!(!Path::new("/nonexistent/dir/snap").exists());
}

/// Runs `topo --json` on a damaged fixture: it must succeed, print each warning on stderr as
/// `numascope: warning: FILE ...`, and carry the same warnings in the JSON.
fn degraded(name: &str, file: &str) -> serde_json::Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name);
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(&root)
        .args(["topo", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{name}: {err}");
    assert!(
        err.lines().all(|l| l.starts_with("numascope: warning: /")),
        "{name}: {err}"
    );
    assert!(err.contains(file), "{name}: `{file}` not named in {err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), err.lines().count(), "{name}");
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().contains(file)),
        "{name}"
    );
    v
}

// An optional file missing or malformed is an unknown field and a warning naming
// the file, never a refusal of the whole machine (cases from hwloc's recorded snapshots).
#[test]
fn optional_files_missing_or_malformed_degrade_field_by_field() {
    let v = degraded("degrade-empty-cpu-online", "cpu/cpu0/online");
    assert_eq!(v["cpus"][0]["online"], true);
    assert_eq!(v["nodes"][0]["cpus"], serde_json::json!([0, 1]));
    let v = degraded("degrade-no-proc-meminfo", "/proc/meminfo is missing");
    assert_eq!(v["nodes"][0]["memory_total_bytes"], 0);
    assert_eq!(v["nodes"][0]["cpus"], serde_json::json!([0, 1]));
    let v = degraded(
        "degrade-node-meminfo-no-memfree",
        "node0/meminfo has no MemFree",
    );
    assert_eq!(v["nodes"][0]["memory_total_bytes"], 8u64 << 30);
    assert_eq!(v["nodes"][0]["memory_free_bytes"], 0);
}

// Values that contradict each other are named, not shown as facts.
#[test]
fn corrupt_snapshots_are_named_not_shown_as_facts() {
    let v = degraded(
        "corrupt-cpulist-beyond-present",
        "node0/cpulist lists CPUs 2-63",
    );
    assert_eq!(v["nodes"][0]["cpus"], serde_json::json!([0, 1]));
    let v = degraded("corrupt-memfree-above-total", "MemFree");
    assert_eq!(v["nodes"][0]["memory_free_bytes"], 0);
    assert_eq!(v["nodes"][0]["memory_available_bytes"], 0);
    let v = degraded("corrupt-empty-online", "cpu/online is empty");
    let online = v["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["online"] == true)
        .count();
    assert_eq!(online, 2, "not `0 of 2 CPUs online`");
    assert_eq!(v["nodes"].as_array().unwrap().len(), 1);
}

// A CPU's package id and the kernel's node masks are optional facts too.
#[test]
fn malformed_cpu_topology_and_node_masks_degrade() {
    let (_t, d) = copy_fixture();
    let cpu1 = d.join("sys/devices/system/cpu/cpu1/topology");
    std::fs::write(cpu1.join("physical_package_id"), "zero\n").unwrap();
    let v = warns(&d, "cpu1/topology/physical_package_id is malformed");
    assert_eq!(v["cpus"][1]["package"], serde_json::Value::Null);
    assert_eq!(v["cpus"][0]["package"], 0);
    let (_t, d) = copy_fixture();
    std::fs::write(d.join("sys/devices/system/node/has_cpu"), "0-\n").unwrap();
    let v = warns(&d, "node/has_cpu is malformed");
    assert_eq!(v["nodes"][0]["has_cpu"], true, "from the node's cpulist");
}
