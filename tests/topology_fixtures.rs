//! Replays every snapshot under tests/fixtures/topology/ with `--sysfs-root` and compares
//! `topo --json` with the fixture's `<name>.expected.json`. Set NUMASCOPE_BLESS=1 to rewrite
//! the expected files after an intended change (then review the diff). Also checks that the
//! text and graph forms render every fixture, and that `capture` round-trips.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/topology")
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert!(v.len() >= 10, "expected the fixture set, found {v:?}");
    v
}

fn topo_json(root: &Path) -> Value {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(root)
        .args(["topo", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        root.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The JSON without the snapshot path and, with `drop_live_figures`, without the figures that
/// change between two reads of a live machine.
fn normalized(mut v: Value, drop_live_figures: bool) -> Value {
    v["source"] = Value::String("<snapshot>".into());
    if drop_live_figures {
        v["live"] = Value::Bool(false);
        // The hypervisor's CPUID leaf is asked of the running machine only; a snapshot has
        // its files, not its processor.
        if let Some(p) = v["environment"]["platform"].as_object_mut() {
            if p.get("hypervisor_source") == Some(&Value::from("CPUID leaf 0x40000000")) {
                p.remove("hypervisor_source");
                p.remove("hypervisor_vendor");
            }
            if p.is_empty() {
                v["environment"].as_object_mut().unwrap().remove("platform");
            }
        }
        // DAMON adjusts a paddr context's regions to the memory it sees (seen here growing
        // from 4.25 to 16 GiB as the VM's memory grew): live figures too.
        if let Some(ks) = v["environment"]["tiering"]["kdamonds"].as_array_mut() {
            for c in ks
                .iter_mut()
                .flat_map(|k| k["contexts"].as_array_mut())
                .flatten()
            {
                for t in c["targets"].as_array_mut().into_iter().flatten() {
                    t["regions"] = Value::Array(vec![]);
                }
            }
        }
        if let Some(nodes) = v["nodes"].as_array_mut() {
            for n in nodes {
                n["memory_free_bytes"] = Value::from(0);
                n["memory_available_bytes"] = Value::from(0);
                // A virtual machine's balloon or memory hotplug changes MemTotal between two
                // reads of the live machine (seen here: 9 to 15 GiB in minutes); the replay of
                // a fixed snapshot is compared exactly in every_fixture_replays_to_its_expected_json.
                n["memory_total_bytes"] = Value::from(0);
                if let Some(h) = n["hugepages"].as_array_mut() {
                    for p in h {
                        p["free"] = Value::from(0);
                    }
                }
            }
        }
    }
    v
}

#[test]
fn every_fixture_replays_to_its_expected_json() {
    let bless = std::env::var_os("NUMASCOPE_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for dir in fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let got = normalized(topo_json(&dir), false);
        assert_eq!(
            got["live"],
            Value::Bool(false),
            "{name}: a snapshot is never live"
        );
        let expected_path = fixtures_dir().join(format!("{name}.expected.json"));
        if bless {
            let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
            std::fs::write(&expected_path, text).unwrap();
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&expected_path) else {
            failures.push(format!(
                "{name}: no {} (run NUMASCOPE_BLESS=1 cargo test --test topology_fixtures)",
                expected_path.display()
            ));
            continue;
        };
        let expected: Value = serde_json::from_str(&text).unwrap();
        if expected != got {
            failures.push(format!(
                "{name}: topology differs from {}:\n{}",
                expected_path.display(),
                serde_json::to_string_pretty(&got).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_fixture_renders_as_text_and_graph() {
    for dir in fixtures() {
        for args in [&["topo"][..], &["topo", "--graph"][..]] {
            let out = Command::cargo_bin("numascope")
                .unwrap()
                .arg("--sysfs-root")
                .arg(&dir)
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}: {:?}", dir.display(), out);
            assert!(!out.stdout.is_empty());
        }
    }
}

#[test]
fn seed_machines_have_their_documented_shape() {
    let mc = topo_json(&fixtures_dir().join("magnycours-2s-likwid"));
    let cpus: Vec<Value> = mc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["cpus"].clone())
        .collect();
    assert_eq!(
        serde_json::to_string(&cpus).unwrap(),
        "[[0,2,4,6],[8,10,12,14],[9,11,13,15],[1,3,5,7]]"
    );
    let l3: Vec<&Value> = mc["caches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["level"] == 3)
        .collect();
    assert_eq!(l3.len(), 4);
    assert!(l3.iter().all(|c| c["size_bytes"] == 5 * 1024 * 1024));

    let x = topo_json(&fixtures_dir().join("xeon-x7560-4s-smt"));
    assert_eq!(x["cpus"].as_array().unwrap().len(), 64);
    assert_eq!(x["cpus"][0]["siblings"], serde_json::json!([0, 32]));

    let sparse = topo_json(&fixtures_dir().join("edge-sparse-hmat"));
    let ids: Vec<u64> = sparse["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, vec![0, 2, 5]);
    assert_eq!(sparse["nodes"][2]["has_cpu"], Value::Bool(false));
    assert_eq!(sparse["nodes"][2]["has_memory"], Value::Bool(true));
    let h5: Vec<&Value> = sparse["hmat"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["node"] == 5)
        .collect();
    assert_eq!(h5.len(), 2);
    assert_eq!(h5[0]["initiators"], serde_json::json!([0, 2]));
    assert_eq!(sparse["memory_side_caches"][0]["size_bytes"], 4u64 << 30);

    let off = topo_json(&fixtures_dir().join("edge-offline-cpus"));
    assert_eq!(off["cpus"][2]["online"], Value::Bool(false));
    assert_eq!(off["cpus"][2]["package"], Value::Null);
    assert_eq!(off["cpus"][2]["node"], 0);

    let cg = topo_json(&fixtures_dir().join("edge-cgroup-restricted"));
    assert_eq!(cg["allowed_cpus"], serde_json::json!([2, 3, 4, 5]));
    assert_eq!(cg["allowed_nodes"], serde_json::json!([1]));
    assert_eq!(cg["cpus"][1]["allowed"], Value::Bool(false));

    let ml = topo_json(&fixtures_dir().join("edge-memoryless-node"));
    assert_eq!(ml["nodes"][1]["has_memory"], Value::Bool(false));
    assert_eq!(ml["nodes"][1]["has_cpu"], Value::Bool(true));

    let min = topo_json(&fixtures_dir().join("edge-missing-optional"));
    assert_eq!(min["nodes"].as_array().unwrap().len(), 1);
    assert_eq!(min["nodes"][0]["cpus"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(min["caches"], serde_json::json!([]));
    assert_eq!(min["hmat"], serde_json::json!([]));
    assert_eq!(min["distances"], serde_json::json!([]));
}

/// The memory entry of node `id` in a topology's JSON.
fn node_memory(t: &Value, id: u64) -> Value {
    t["node_memory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["node"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

// Memory kinds and tiers, nodes per package and L3 domains, and hwloc's failure
// classes, each on a hand-made machine.
#[test]
fn kinds_tiers_and_domains_have_their_documented_shape() {
    let cxl = topo_json(&fixtures_dir().join("cxl-tiered-memory"));
    let m = node_memory(&cxl, 2);
    assert_eq!(
        (&m["kind"], &m["known"], &m["tier"]),
        (&"cxl".into(), &"declared".into(), &22.into())
    );
    assert!(m["evidence"].as_str().unwrap().contains("region0"), "{m}");
    assert_eq!(node_memory(&cxl, 0)["tier"], 4);
    assert_eq!(node_memory(&cxl, 0)["kind"], "dram");

    let gpu = topo_json(&fixtures_dir().join("gpu-memory-node"));
    let m = node_memory(&gpu, 1);
    assert_eq!(
        (&m["kind"], &m["known"]),
        (&"gpu".into(), &"declared".into())
    );
    assert!(
        m["evidence"].as_str().unwrap().contains("0000:01:00.0"),
        "{m}"
    );

    let nps = topo_json(&fixtures_dir().join("nps4-2s-64cpu"));
    assert_eq!(nps["nodes"].as_array().unwrap().len(), 8);
    assert_eq!(nps["nodes_per_package"]["mode"], "NPS4");
    assert_eq!(nps["nodes_per_package"]["nodes_per_package"], 4);
    let domains = nps["l3_domains"].as_array().unwrap();
    assert_eq!(domains.len(), 16);
    for n in 0..8u64 {
        let of_node = domains
            .iter()
            .filter(|d| d["nodes"] == serde_json::json!([n]))
            .count();
        assert_eq!(of_node, 2, "node {n}: two L3 domains");
    }

    let snc = topo_json(&fixtures_dir().join("snc2-2s"));
    assert_eq!(snc["nodes_per_package"]["mode"], "SNC2");
    assert!(snc["nodes_per_package"]["evidence"]
        .as_str()
        .unwrap()
        .contains("distance 11 between nodes of one package"));
    assert_eq!(snc["l3_domains"][0]["nodes"], serde_json::json!([0, 1]));
    assert_eq!(
        snc["l3_notes"][0],
        "the L3 of CPUs 0-3,8-11 spans nodes 0-1"
    );

    // hwloc's buggy NUMA class: both nodes list both CPUs; the machine is read, each CPU is
    // in node 0 only, and the contradiction is named.
    let bug = topo_json(&fixtures_dir().join("degrade-buggy-numa"));
    assert_eq!(bug["nodes"][0]["cpus"], serde_json::json!([0, 1]));
    assert_eq!(bug["nodes"][1]["cpus"], serde_json::json!([]));
    assert!(bug["warnings"][0]
        .as_str()
        .unwrap()
        .contains("node1/cpulist lists CPUs 0-1 that node 0 lists too"));
}

// The kernel's tiering state, and what of it can move a measurement's pages.
#[test]
fn tiering_state_is_read_and_its_page_movers_are_named() {
    let t = topo_json(&fixtures_dir().join("tiering-cxl-damon"));
    let e = &t["environment"];
    assert_eq!(e["numa_balancing"], 2);
    let ti = &e["tiering"];
    assert_eq!(ti["demotion_enabled"], true);
    assert_eq!(ti["promote_rate_limit_mib_per_s"], 2048);
    assert_eq!(ti["memory_tiers"][1]["tier"], 22);
    assert_eq!(ti["memory_tiers"][1]["nodes"], serde_json::json!([2]));
    assert_eq!(ti["memory_tiers"][1]["abstract_distance_from"], 2816);
    assert_eq!(e["platform"]["weighted_interleave_auto"], true);
    let k = ti["kdamonds"].as_array().unwrap();
    assert_eq!(k.len(), 3);
    assert_eq!(k[0]["contexts"][0]["operations"], "paddr");
    assert_eq!(k[0]["contexts"][0]["schemes"][0]["action"], "migrate_cold");
    assert_eq!(k[0]["contexts"][0]["schemes"][0]["target_nid"], 2);
    assert_eq!(k[1]["contexts"][0]["targets"][0]["pid"], 4242);
    assert_eq!(
        (&k[2]["state"], &k[2]["pid"]),
        (&"off".into(), &(-1).into())
    );

    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(fixtures_dir().join("tiering-cxl-damon"))
        .arg("topo")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "2 (memory tiering)",
        "demotion on reclaim",
        "2048 MiB/s",
        // The tiers section: node 2 in tier 22, HMAT's figures labelled firmware-declared.
        "Memory tiers",
        "22 (distance 2816-2943)",
        "read latency, firmware-declared",
        "250 ns from node 0,1",
        "DAMON kdamond.0 scheme 0",
        "migrate_cold on paddr to node 2",
        // The kernel's auto weights computed from HMAT: min(read, write) 80, 80, 30 GB/s.
        "node 0: 13, node 1: 13, node 2: 5 (calculated from HMAT",
    ] {
        assert!(text.contains(want), "{want} missing from:\n{text}");
    }
    // Promotion, demotion and kdamond.0's paddr scheme move pages; kdamond.1 acts on its
    // own target process only and kdamond.2 is off.
    for want in [
        "promotes hot pages",
        "demotion_enabled is true",
        "kdamond.0 runs a `migrate_cold`",
    ] {
        assert!(err.contains(want), "{want} missing from stderr:\n{err}");
        assert!(text.contains(want), "{want} missing from the text");
    }
    assert!(
        !err.contains("kdamond.1 runs") && !err.contains("kdamond.2 runs"),
        "{err}"
    );

    // HBM in flat mode: declared specific-purpose memory with more bandwidth than DRAM, one
    // tier, demotion off, no daemon; a malformed promotion limit is a warning.
    let h = topo_json(&fixtures_dir().join("hbm-flat-tiers"));
    assert_eq!(node_memory(&h, 1)["kind"], "hbm");
    let ti = &h["environment"]["tiering"];
    assert_eq!(ti["demotion_enabled"], false);
    assert!(ti.get("promote_rate_limit_mib_per_s").is_none());
    assert_eq!(ti["damon_available"], true);
    assert!(ti.get("kdamonds").is_none());
    assert!(h["warnings"].as_array().unwrap().iter().any(|w| w
        .as_str()
        .unwrap()
        .contains("numa_balancing_promote_rate_limit_MBps is malformed")));
}

fn capture(root: Option<&Path>, out: &Path) {
    let mut cmd = Command::cargo_bin("numascope").unwrap();
    if let Some(r) = root {
        cmd.arg("--sysfs-root").arg(r);
    }
    let o = cmd.arg("capture").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn capture_of_a_snapshot_replays_identically_as_dir_and_tar_gz() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "edge-sparse-hmat",
        "xeon-x7560-4s-smt",
        "edge-missing-optional",
        // Damaged snapshots keep their damage, and so their warnings, through a capture.
        "corrupt-cpulist-beyond-present",
        "degrade-empty-cpu-online",
        // The files behind memory kinds and tiers are kept by a capture.
        "cxl-tiered-memory",
        "gpu-memory-node",
    ] {
        let src = fixtures_dir().join(name);
        let want = normalized(topo_json(&src), false);
        let dir = tmp.path().join(name);
        capture(Some(&src), &dir);
        assert_eq!(
            normalized(topo_json(&dir), false),
            want,
            "{name} as a directory"
        );
        let tgz = tmp.path().join(format!("{name}.tar.gz"));
        capture(Some(&src), &tgz);
        assert_eq!(
            normalized(topo_json(&tgz), false),
            want,
            "{name} as .tar.gz"
        );
    }
}

#[test]
fn capture_of_this_machine_replays_to_the_same_topology() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("live");
    capture(None, &dir);
    let live: Value = {
        let out = Command::cargo_bin("numascope")
            .unwrap()
            .args(["topo", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(live["live"], Value::Bool(true));
    assert_eq!(normalized(topo_json(&dir), true), normalized(live, true));
}

#[test]
fn capture_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    Command::cargo_bin("numascope")
        .unwrap()
        .arg("capture")
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already exists; remove it"));
}

#[test]
fn capture_keeps_dangling_node_links() {
    // Regression: hwloc's `offline-cpu0-node0` snapshot has `cpuN/node0` links to an offline
    // node's missing directory; capture must keep such a link, not fail reading through it.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(fixtures_dir().join("edge-offline-cpus"))
        .arg(&src)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let cpu3 = src.join("sys/devices/system/cpu/cpu3");
    std::fs::remove_file(cpu3.join("node0")).unwrap();
    std::os::unix::fs::symlink("../../node/node7", cpu3.join("node7")).unwrap();
    std::fs::write(src.join("sys/devices/system/node/node0/cpulist"), "0-2\n").unwrap();
    std::fs::remove_file(src.join("sys/devices/system/node/node0/cpumap")).unwrap();
    let want = normalized(topo_json(&src), false);
    assert_eq!(
        want["cpus"][3]["node"], 7,
        "the cpuN/nodeM link is the fallback"
    );
    let out = tmp.path().join("copy");
    capture(Some(&src), &out);
    assert!(
        std::fs::symlink_metadata(out.join("sys/devices/system/cpu/cpu3/node7"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(normalized(topo_json(&out), false), want);
}
