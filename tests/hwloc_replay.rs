//! Replays hwloc's own recorded Linux machines (open-mpi/hwloc, tests/hwloc/linux/*.tar.bz2,
//! unpacked one per directory) through `numascope topo --json --sysfs-root DIR` and compares
//! what both tools make of the same files with `lstopo-no-graphics --whole-system --of xml`
//! run under `HWLOC_FSROOT=DIR` (Linux backend only, as hwloc's own test script runs it):
//! node ids, CPUs per node, the distance matrix and memory per node.
//!
//! The snapshots are not part of this repository (they are hwloc's); the test runs when
//! `NUMASCOPE_HWLOC_SNAPSHOTS` names a directory holding them, one subdirectory per machine
//! (its `sys/` and `proc/` at the top or one level down), and is skipped with a printed
//! reason otherwise. To get them:
//!
//! ```text
//! git clone --depth 1 https://github.com/open-mpi/hwloc /tmp/hwloc
//! for f in /tmp/hwloc/tests/hwloc/linux/*.tar.bz2; do
//!   n=$(basename "$f" .tar.bz2); mkdir -p /tmp/hwloc-snaps/$n; tar -xjf "$f" -C /tmp/hwloc-snaps/$n
//! done
//! NUMASCOPE_HWLOC_SNAPSHOTS=/tmp/hwloc-snaps cargo test --test hwloc_replay -- --nocapture
//! ```
//!
//! Every machine must be read (numascope never refuses a machine for an optional file), and
//! every machine must agree with hwloc or be listed in [`EXPLAINED`] with the reason, taken
//! from hwloc's own code and test notes. An explained machine that has come to agree fails
//! too, so the table stays true. The count of each kind is printed.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use serde_json::Value;

#[path = "hwloc_xml/mod.rs"]
mod hwloc_xml;
use hwloc_xml::{parse_hwloc, Hwloc};

/// A recorded machine where numascope and hwloc differ on purpose.
struct Explained {
    name: &'static str,
    /// Why, citing hwloc's reasoning.
    why: &'static str,
    /// Text numascope's JSON must hold for this machine (a warning or a fact that states the
    /// difference to the user, not only here).
    shows: &'static str,
}

/// The machines whose differences are explained. Keep in step with the replay: an entry that
/// agrees fails the test.
const EXPLAINED: &[Explained] = &[
    Explained {
        name: "8em64t-2s2ca2c-buggynuma",
        why: "the kernel shows 8 nodes that each list every CPU (hwloc's test note: \"Linux \
              reports 8 NUMA nodes containing the (same) entire list of all cores\"). hwloc's \
              Linux backend (topology-linux.c, look_sysfsnode) calls overlapping node cpusets \
              a buggy BIOS and ignores every node whose cpuset intersects an earlier node's, \
              so it keeps node 0 only. numascope keeps the kernel's 8 nodes (their memory can \
              be bound to), counts each CPU in the first node that lists it, and warns that \
              the NUMA information is contradictory",
        shows: "in more than one node",
    },
    Explained {
        name: "fakeheterocpunuma",
        why: "hand-made by hwloc with overlapping node cpusets (nodes 4 and 5 repeat CPUs of \
              node 3) and replayed in hwloc's own test with \
              HWLOC_DEBUG_ALLOW_OVERLAPPING_NODE_CPUSETS=1; without it hwloc ignores the \
              overlapping nodes as above. numascope keeps nodes 4 and 5, counts their shared \
              CPUs in node 3 and warns",
        shows: "in more than one node",
    },
    Explained {
        name: "nvidiagpunumanodes",
        why: "a POWER9 with NVIDIA V100 GPUs whose memory the kernel shows as CPU-less nodes \
              250-255. hwloc's Linux backend finds them in \
              /proc/driver/nvidia/gpus/BDF/numa_status (`Node: N`) and, on POWER, drops them \
              unless HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1 (elsewhere it keeps them with subtype \
              GPUMemory); its test note: \"P9 with V100 NUMA nodes, ignored\". numascope \
              lists every node the kernel has online, as a program binding memory sees them, \
              and marks nodes 250-255 as GPU memory declared by that same file",
        shows: r#""kind":"gpu","known":"declared""#,
    },
];

fn have_lstopo() -> bool {
    Process::new("lstopo-no-graphics")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The root of one unpacked snapshot: the directory holding `sys`, itself or its one child.
fn snapshot_root(dir: &Path) -> Option<PathBuf> {
    if dir.join("sys").is_dir() {
        return Some(dir.to_path_buf());
    }
    let kids: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    match kids.as_slice() {
        [one] if one.join("sys").is_dir() => Some(one.clone()),
        _ => None,
    }
}

fn numascope_json(root: &Path) -> Result<Value, String> {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .arg("--sysfs-root")
        .arg(root)
        .args(["topo", "--json"])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

fn lstopo_xml(root: &Path) -> Result<String, String> {
    let out = Process::new("lstopo-no-graphics")
        .args(["--whole-system", "--of", "xml", "-"])
        .env("HWLOC_FSROOT", root)
        .env("HWLOC_COMPONENTS", "linux,stop")
        .env("HWLOC_DUMPED_HWDATA_DIR", "/var/run/hwloc")
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn ids(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

/// The disagreements between numascope's JSON and hwloc's view, one line each: node ids,
/// online CPUs per node (a node without CPUs is skipped, as hwloc gives it its locality),
/// distances (hwloc keeps none for one node) and memory per node.
fn compare(t: &Value, h: &Hwloc) -> Vec<String> {
    let mut bad = Vec::new();
    let online: Vec<u32> = t["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["online"] == Value::Bool(true))
        .map(|c| c["id"].as_u64().unwrap() as u32)
        .collect();
    let nodes = t["nodes"].as_array().unwrap();
    let ours: Vec<u32> = nodes
        .iter()
        .map(|n| n["id"].as_u64().unwrap() as u32)
        .collect();
    let theirs: Vec<u32> = h.nodes.keys().copied().collect();
    if ours != theirs {
        bad.push(format!("nodes {ours:?} vs hwloc {theirs:?}"));
    }
    for n in nodes {
        let id = n["id"].as_u64().unwrap() as u32;
        let Some((hcpus, hmem, _)) = h.nodes.get(&id) else {
            continue;
        };
        let cpus: Vec<u32> = ids(&n["cpus"])
            .into_iter()
            .filter(|c| online.contains(c))
            .collect();
        if !cpus.is_empty() && &cpus != hcpus {
            bad.push(format!("node {id} CPUs {cpus:?} vs hwloc {hcpus:?}"));
        }
        let mem = n["memory_total_bytes"].as_u64().unwrap();
        if mem != *hmem {
            bad.push(format!("node {id} memory {mem} vs hwloc {hmem}"));
        }
    }
    let flat: Vec<u64> = t["distances"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()))
        .collect();
    match &h.distances {
        Some((idx, vals)) => {
            if idx != &ours {
                bad.push(format!("distance indexes {idx:?} vs nodes {ours:?}"));
            }
            if &flat != vals {
                bad.push(format!("distances {flat:?} vs hwloc {vals:?}"));
            }
        }
        None if nodes.len() > 1 && !flat.is_empty() => {
            bad.push(format!("hwloc has no distances but numascope has {flat:?}"));
        }
        None => {}
    }
    bad
}

#[test]
fn every_hwloc_snapshot_is_read_and_agrees_or_is_explained() {
    let Some(dir) = std::env::var_os("NUMASCOPE_HWLOC_SNAPSHOTS") else {
        println!(
            "skipped: NUMASCOPE_HWLOC_SNAPSHOTS is not set; set it to a directory of unpacked \
             hwloc Linux snapshots (see the module text)"
        );
        return;
    };
    let dir = PathBuf::from(dir);
    if !dir.is_dir() {
        println!(
            "skipped: NUMASCOPE_HWLOC_SNAPSHOTS={} is not a directory",
            dir.display()
        );
        return;
    }
    if !have_lstopo() {
        println!("skipped: lstopo-no-graphics is not installed (apt-get install hwloc)");
        return;
    }
    let mut machines: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    machines.sort();
    let (mut agree, mut explained, mut failures) = (0, 0, Vec::new());
    for m in &machines {
        let name = m.file_name().unwrap().to_string_lossy().into_owned();
        let Some(root) = snapshot_root(m) else {
            println!("{name}: not a snapshot (no sys/ directory), left out");
            continue;
        };
        let t = match numascope_json(&root) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: numascope refused the machine: {e}"));
                continue;
            }
        };
        let xml = match lstopo_xml(&root) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: lstopo failed: {e}"));
                continue;
            }
        };
        let diffs = compare(&t, &parse_hwloc(&xml));
        let entry = EXPLAINED.iter().find(|e| e.name == name);
        match (diffs.is_empty(), entry) {
            (true, None) => agree += 1,
            (true, Some(_)) => failures.push(format!(
                "{name}: agrees with hwloc now; remove it from EXPLAINED"
            )),
            (false, None) => failures.push(format!("{name}: {}", diffs.join("; "))),
            (false, Some(e)) => {
                if !t.to_string().contains(e.shows) {
                    failures.push(format!(
                        "{name}: explained, but numascope's JSON does not hold `{}`",
                        e.shows
                    ));
                } else {
                    println!(
                        "{name}: differs as explained ({}): {}",
                        e.why,
                        diffs.join("; ")
                    );
                    explained += 1;
                }
            }
        }
    }
    println!(
        "{} snapshots: {agree} agree, {explained} differ as explained, {} differ",
        machines.len(),
        failures.len()
    );
    assert!(!machines.is_empty(), "{} holds no snapshot", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_replay_comparison_can_fail() {
    // A doctored hwloc view of a fixture must disagree on every compared fact.
    if !have_lstopo() {
        println!("skipped: lstopo-no-graphics is not installed (apt-get install hwloc)");
        return;
    }
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/topology/magnycours-2s-likwid");
    let t = numascope_json(&root).unwrap();
    let mut h = parse_hwloc(&lstopo_xml(&root).unwrap());
    assert!(compare(&t, &h).is_empty(), "{:?}", compare(&t, &h));
    if let Some((_, vals)) = &mut h.distances {
        vals[1] = 99;
    }
    let n0 = h.nodes.get_mut(&0).unwrap();
    n0.0.push(1);
    n0.1 += 4096;
    assert_eq!(compare(&t, &h).len(), 3);
    h.nodes.insert(9, (vec![], 0, String::new()));
    assert_eq!(compare(&t, &h).len(), 4);
}
