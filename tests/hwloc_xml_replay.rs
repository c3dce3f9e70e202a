//! Replays every hwloc XML topology in a directory (hwloc's own test files: open-mpi/hwloc
//! keeps 68 under tests/hwloc/{xml,x86,linux}, real and hand-made machines: Sapphire Rapids
//! Xeon Max with HBM, Zen 4, KNL, POWER8 with GPU distances, DGX, CXL with DAX, memory-side
//! caches, 192 CPUs in 24 nodes...) through `numascope topo --json --sysfs-root FILE.xml` and
//! compares with what hwloc's `lstopo-no-graphics -i FILE --of xml -` makes of the same
//! file: node ids, online CPUs per node, memory per node, the NUMALatency matrix, the
//! numbers of packages, L3 caches and online CPUs, and node subtypes as declared kinds.
//!
//! The files are hwloc's and never part of this repository: the test runs when
//! `NUMASCOPE_HWLOC_XML` names a directory of `.xml` files, and is skipped with a printed
//! reason otherwise. To get them (outside this repository):
//!
//! ```text
//! git clone --depth 1 https://github.com/open-mpi/hwloc /tmp/hwloc
//! mkdir -p /tmp/hwloc-xml && cd /tmp/hwloc
//! for f in $(git ls-files 'tests/hwloc/*.xml'); do cp "$f" /tmp/hwloc-xml/$(echo ${f#tests/hwloc/} | tr / _); done
//! NUMASCOPE_HWLOC_XML=/tmp/hwloc-xml cargo test --test hwloc_xml_replay -- --nocapture
//! ```
//!
//! Debian's hwloc 2.9 cannot read format 3 (67 of the 68 files): such a file is lowered to
//! format 2 for lstopo only, by dropping what format 3 added (the `id` attributes, the
//! topology-level `<info>` and `<memtier>` elements, `<distances2hetero>`) and nothing that
//! is compared; numascope reads the original. Where lstopo is not installed, the reference is
//! the file's own contents. Each difference must be listed in [`EXPLAINED`] with hwloc's
//! reasoning; an explained file that has come to agree fails, so the list stays true.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use serde_json::Value;

#[path = "hwloc_xml/mod.rs"]
mod hwloc_xml;
use hwloc_xml::{parse_hwloc, Hwloc};

/// A file where numascope and hwloc differ on purpose, on the check named.
struct Explained {
    file: &'static str,
    check: &'static str,
    why: &'static str,
}

const EXPLAINED: &[Explained] = &[Explained {
    file: "linux_fakeheterocpunuma.xml",
    check: "cpus per node",
    why: "hand-made by hwloc with overlapping node cpusets (node 2 holds 0-3 and 8-11 of nodes \
          0 and 1; nodes 4 and 5 hold 16-23 and 12-23, overlapping node 3's 20-23), loaded in \
          hwloc's own test with HWLOC_DEBUG_ALLOW_OVERLAPPING_NODE_CPUSETS=1. A NUMANode's \
          cpuset in an XML is its locality (the CPUs near it), which may overlap; a CPU is \
          on one node in the kernel's model and numascope's, so each CPU goes to the smallest \
          node whose cpuset holds it (node 3 keeps 20-23, node 4 gets 16-19, node 5 12-15, \
          node 2 none). hwloc's wider localities are those cpusets as written",
}];

fn lstopo_present() -> bool {
    Process::new("lstopo-no-graphics")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Format 3 lowered to what hwloc 2.9 reads (see the module text).
fn to_v2(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut skip = false;
    for line in xml.lines() {
        let t = line.trim_start();
        let top = line.starts_with("  <") && !line.starts_with("   ");
        if top && t.starts_with("<distances2hetero") {
            skip = !t.ends_with("/>");
            continue;
        }
        if skip {
            skip = !t.starts_with("</distances2hetero");
            continue;
        }
        if top && (t.starts_with("<info ") || t.starts_with("<memtier ")) {
            continue;
        }
        let mut l = line.replace("<topology version=\"3.0\">", "<topology version=\"2.0\">");
        while let Some(i) = l.find(" id=\"obj") {
            let end = l[i + 5..]
                .find('"')
                .map(|e| i + 5 + e + 1)
                .unwrap_or(l.len());
            l.replace_range(i..end, "");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// hwloc's view of `file`: lstopo's export of it (lowered to format 2 first), or the file.
fn reference(file: &Path, lstopo: bool, tmp: &Path) -> Hwloc {
    let text = std::fs::read_to_string(file).unwrap();
    if !lstopo {
        return parse_hwloc(&text);
    }
    let v2 = tmp.join("v2.xml");
    std::fs::write(&v2, to_v2(&text)).unwrap();
    let out = Process::new("lstopo-no-graphics")
        .arg("--whole-system")
        .arg("-i")
        .arg(&v2)
        .args(["--of", "xml", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: lstopo cannot read it: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_hwloc(&String::from_utf8_lossy(&out.stdout))
}

fn numascope(file: &Path, tmp: &Path) -> Value {
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .env("TMPDIR", tmp)
        .args(["topo", "--json", "--sysfs-root"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ids(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// numascope's kind for an hwloc subtype, as src/topology/xml names them.
fn kind_of(subtype: &str) -> Option<&'static str> {
    Some(match subtype {
        "DRAM" => "dram",
        "HBM" | "MCDRAM" => "hbm",
        "CXL-DRAM" | "CXL-NVM" => "cxl",
        "NVM" => "nvm",
        "GPUMemory" | "GPU" => "gpu",
        "SPM" => "spm",
        _ => return None,
    })
}

/// Every check that differs, as (check, what).
fn differences(t: &Value, h: &Hwloc) -> Vec<(&'static str, String)> {
    let mut d = Vec::new();
    let nodes = t["nodes"].as_array().unwrap();
    let online: Vec<u64> = t["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["online"] == true)
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    let node_ids: Vec<u64> = nodes.iter().map(|n| n["id"].as_u64().unwrap()).collect();
    let theirs: Vec<u64> = h.nodes.keys().map(|k| *k as u64).collect();
    if node_ids != theirs {
        d.push(("node ids", format!("{node_ids:?} vs hwloc {theirs:?}")));
        return d;
    }
    for n in nodes {
        let id = n["id"].as_u64().unwrap() as u32;
        let (cpus, mem, _) = &h.nodes[&id];
        if n["memory_total_bytes"].as_u64().unwrap() != *mem {
            d.push((
                "memory",
                format!("node {id}: {} vs hwloc {mem}", n["memory_total_bytes"]),
            ));
        }
        // hwloc gives a memory-only node the CPUs near it; numascope the CPUs on it (none).
        let on: Vec<u64> = ids(&n["cpus"])
            .into_iter()
            .filter(|c| online.contains(c))
            .collect();
        let theirs: Vec<u64> = cpus.iter().map(|c| *c as u64).collect();
        if n["has_cpu"] == true && on != theirs {
            d.push((
                "cpus per node",
                format!("node {id}: {on:?} vs hwloc {theirs:?}"),
            ));
        }
    }
    let mut pus: Vec<u64> = h.pus.iter().map(|c| *c as u64).collect();
    pus.sort_unstable();
    if online != pus {
        d.push((
            "online cpus",
            format!("{} vs hwloc {}", online.len(), pus.len()),
        ));
    }
    let mine = t["distances"].as_array().unwrap();
    match &h.distances {
        Some((idx, vals)) => {
            let n = idx.len();
            for (r, from) in idx.iter().enumerate() {
                for (c, to) in idx.iter().enumerate() {
                    let i = node_ids.iter().position(|x| *x == *from as u64);
                    let j = node_ids.iter().position(|x| *x == *to as u64);
                    let got = i.zip(j).and_then(|(i, j)| mine.get(i)?.get(j)?.as_u64());
                    if got != Some(vals[r * n + c]) {
                        d.push((
                            "distances",
                            format!("{from}->{to}: {got:?} vs hwloc {}", vals[r * n + c]),
                        ));
                    }
                }
            }
        }
        None if !mine.is_empty() => d.push(("distances", "hwloc has none".into())),
        None => {}
    }
    let mut packages: Vec<u64> = t["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["package"].as_u64())
        .collect();
    packages.sort_unstable();
    packages.dedup();
    if packages.len() != h.packages {
        d.push((
            "packages",
            format!("{} vs hwloc {}", packages.len(), h.packages),
        ));
    }
    let l3 = t["caches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["level"] == 3)
        .count();
    if l3 != h.l3_caches {
        d.push(("L3 caches", format!("{l3} vs hwloc {}", h.l3_caches)));
    }
    for (node, st) in &h.subtypes {
        let Some(kind) = kind_of(st) else { continue };
        let m = t["node_memory"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["node"] == *node);
        let ok = m.is_some_and(|m| m["kind"] == kind && m["known"] == "declared");
        if !ok {
            d.push(("subtypes", format!("node {node}: {m:?} vs hwloc {st}")));
        }
    }
    d
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_hwloc_xml_reads_as_hwloc_reads_it() {
    let Some(dir) = std::env::var_os("NUMASCOPE_HWLOC_XML") else {
        println!("skipped: NUMASCOPE_HWLOC_XML names no directory of hwloc XML files (see the module text to get them)");
        return;
    };
    let lstopo = lstopo_present();
    if !lstopo {
        println!("lstopo-no-graphics is not installed: comparing with each file's own contents");
    }
    let (mut agree, mut explained) = (0, 0);
    let mut failures = Vec::new();
    for file in files(Path::new(&dir)) {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let tmp = tempfile::tempdir().unwrap();
        let t = numascope(&file, tmp.path());
        // Nothing written: the XML is read in memory, no snapshot under TMPDIR.
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "{name}: wrote to TMPDIR"
        );
        let h = reference(&file, lstopo, tmp.path());
        let diffs = differences(&t, &h);
        let mut unexplained = Vec::new();
        for (check, what) in &diffs {
            match EXPLAINED
                .iter()
                .find(|e| e.file == name && e.check == *check)
            {
                Some(e) => println!("{name}: {check} differs as explained ({what}): {}", e.why),
                None => unexplained.push(format!("{name}: {check}: {what}")),
            }
        }
        for e in EXPLAINED.iter().filter(|e| e.file == name) {
            if !diffs.iter().any(|(c, _)| *c == e.check) {
                unexplained.push(format!(
                    "{name}: explained {} difference is gone; drop it",
                    e.check
                ));
            }
        }
        match (diffs.is_empty(), unexplained.is_empty()) {
            (true, true) => agree += 1,
            (false, true) => explained += 1,
            _ => failures.extend(unexplained),
        }
    }
    println!(
        "hwloc XML replay: {agree} agree, {explained} differ as explained, {} fail",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
