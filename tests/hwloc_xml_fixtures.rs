//! hwloc XML read straight into the model, on small files written for numascope
//! (tests/fixtures/hwloc-xml), one per way hwloc's own files were once misread: distances
//! listed in another node order, subtypes, memory-side caches, offline and disallowed CPUs,
//! no Package level, and deep nesting; plus what reading must never do (write to TMPDIR,
//! take a large XML for a directory, name anything but the file given).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hwloc-xml")
        .join(name)
}

/// `topo --json` of `file`, with TMPDIR an empty directory that must stay empty.
fn topo(file: &Path) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .env("TMPDIR", tmp.path())
        .args(["topo", "--json", "--sysfs-root"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "wrote to TMPDIR"
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn kind(t: &Value, node: u64) -> (String, String, Value) {
    let m = t["node_memory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["node"] == node)
        .unwrap();
    (
        m["kind"].as_str().unwrap().into(),
        m["known"].as_str().unwrap().into(),
        m["tier"].clone(),
    )
}

#[test]
fn distances_follow_node_ids_whatever_the_file_order() {
    let t = topo(&fixture("distances-node-order.xml"));
    let d: Vec<Vec<u64>> = serde_json::from_value(t["distances"].clone()).unwrap();
    assert_eq!(
        d,
        vec![
            vec![10, 12, 33, 32],
            vec![12, 10, 31, 30],
            vec![33, 31, 10, 14],
            vec![32, 30, 14, 10]
        ]
    );
    // gp indexing (`indexes` are gp_index values, listed 9 3 = nodes 1 0).
    let t = topo(&fixture("no-package.xml"));
    assert_eq!(t["distances"], serde_json::json!([[10, 21], [21, 10]]));
}

#[test]
fn subtypes_tiers_and_memory_attributes_are_declared() {
    let t = topo(&fixture("subtypes.xml"));
    let k = |n| kind(&t, n);
    assert_eq!(k(0), ("dram".into(), "declared".into(), 1.into()));
    assert_eq!(k(1), ("hbm".into(), "declared".into(), 0.into()));
    assert_eq!(k(2), ("cxl".into(), "declared".into(), 2.into()));
    assert_eq!(k(3).0, "gpu");
    assert_eq!(k(4).0, "nvm");
    let hbm = t["hmat"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["node"] == 1)
        .unwrap();
    assert_eq!(hbm["read_bandwidth_mb_s"], 80000);
    assert_eq!(hbm["read_latency_ns"], 120);
    assert_eq!(hbm["initiators"], serde_json::json!([0]));
    // The CPUs are on the DRAM node; the others are CPU-less.
    assert_eq!(t["nodes"][0]["cpus"], serde_json::json!([0, 1]));
    assert_eq!(t["nodes"][1]["has_cpu"], false);
    assert_eq!(t["environment"]["kernel_release"], "6.8.0-test");
    assert_eq!(t["environment"]["cpu_model"], "Example CPU 9000");
    // Facts an XML does not hold stay absent.
    assert!(t["environment"]["thp_enabled"].is_null());
    assert!(t["environment"]["numa_balancing"].is_null());
}

#[test]
fn memory_side_caches_and_format_3_tiers_are_read() {
    let t = topo(&fixture("memory-side-cache.xml"));
    let c = t["memory_side_caches"].as_array().unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(c[0]["node"], 0);
    assert_eq!(c[0]["size_bytes"], 17179869184u64);
    assert_eq!(c[0]["line_bytes"], 64);
    assert_eq!(kind(&t, 1), ("dram".into(), "declared".into(), 0.into()));
    assert_eq!(t["environment"]["kernel_release"], "6.10.0-test");
}

#[test]
fn offline_and_disallowed_cpus_are_listed() {
    let t = topo(&fixture("offline-disallowed-cpus.xml"));
    let cpus = t["cpus"].as_array().unwrap();
    assert_eq!(cpus.len(), 8, "every present CPU");
    let c = |id: usize| &cpus[id];
    assert_eq!(
        (c(2)["online"].clone(), c(2)["node"].clone()),
        (false.into(), 0.into())
    );
    assert!(c(2)["package"].is_null());
    assert_eq!(c(7)["online"], false);
    assert_eq!(
        (c(1)["online"].clone(), c(1)["allowed"].clone()),
        (true.into(), false.into())
    );
    assert_eq!(t["allowed_cpus"], serde_json::json!([0, 4, 5, 6]));
    assert_eq!(t["allowed_nodes"], serde_json::json!([0]));
    assert_eq!(t["nodes"][1]["cpus"], serde_json::json!([4, 5, 6, 7]));
}

#[test]
fn no_package_level_means_no_package() {
    let t = topo(&fixture("no-package.xml"));
    for c in t["cpus"].as_array().unwrap() {
        assert!(c["package"].is_null(), "{c}");
    }
    assert!(t["nodes_per_package"].is_null());
    assert_eq!(t["cpus"][1]["siblings"], serde_json::json!([0, 1]));
}

#[test]
fn nesting_50000_deep_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("deep.xml");
    let mut s = String::from("<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object type=\"Machine\" cpuset=\"0x1\" complete_cpuset=\"0x1\">");
    s.push_str("<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x1\" local_memory=\"4096\"/>");
    for _ in 0..50_000 {
        s.push_str("<object type=\"Group\" cpuset=\"0x1\">");
    }
    s.push_str("<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\"/>");
    s.push_str(&"</object>".repeat(50_000));
    s.push_str("</object></topology>\n");
    std::fs::write(&p, s).unwrap();
    let t = topo(&p);
    assert_eq!(t["cpus"].as_array().unwrap().len(), 1);
}

#[test]
fn a_large_xml_is_too_large_not_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("big.xml");
    let f = std::fs::File::create(&p).unwrap();
    use std::io::Write as _;
    let mut w = std::io::BufWriter::new(f);
    w.write_all(b"<?xml version=\"1.0\"?>\n<topology>").unwrap();
    w.get_ref().set_len(65 << 20).unwrap();
    drop(w);
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .args(["topo", "--sysfs-root"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("at most 64 MiB") && !e.contains("not a directory"),
        "{e}"
    );
    assert!(e.contains("big.xml"), "{e}");
}

#[test]
fn errors_and_the_source_name_the_file_given() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("broken.xml");
    std::fs::write(
        &p,
        "<?xml version=\"1.0\"?>\n<topology><object type=\"PU\"></topology>",
    )
    .unwrap();
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .args(["topo", "--sysfs-root"])
        .arg(&p)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("broken.xml") && e.lines().count() == 1, "{e}");
    let t = topo(&fixture("no-package.xml"));
    assert!(t["source"].as_str().unwrap().ends_with("no-package.xml"));
    assert_eq!(t["live"], false);
}

#[test]
fn binding_is_refused_on_an_xml() {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .args(["latency", "--size", "1M", "--sysfs-root"])
        .arg(fixture("no-package.xml"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{e}");
    assert!(e.contains("no-package.xml"), "{e}");
}
