//! hwloc interoperability: the measured node x node latency and bandwidth of a run as hwloc
//! memory attributes, in an hwloc 2 XML topology built from the run's own topology, so that
//! `lstopo --memattrs -i OUT.xml` and any hwloc-based tool (`hwloc_memattr_get_value`,
//! `hwloc_get_local_numanode_objs`, MPI or runtime placement layers that load an XML topology)
//! see measured figures instead of the firmware's HMAT ones.
//!
//! The XML is built from `results.json` alone (not from the machine running the export), so a
//! run saved on one host can be exported on another. It is a complete hwloc topology of the
//! measured machine (packages, caches, cores, PUs and NUMA nodes, nested as hwloc nests them,
//! see `hwloc_tree`), the firmware's node distances as `NUMALatency`, and two attributes:
//! - `Latency` (hwloc's unit: ns) from the latency matrix medians, rounded to whole ns;
//! - `Bandwidth` (hwloc's unit: MiB/s = 2^20 B/s) from the bandwidth matrix medians,
//!   converted from numascope's MB/s (10^6 B/s).
//!
//! Each value's initiator is the cpuset of the CPU node whose threads measured it.

use std::fmt::Write as _;

use crate::render::html::esc;

use crate::results::topology::Topology;
use crate::results::RunResults;

use super::hwloc_tree;

/// Why nothing can be exported.
#[derive(Debug, thiserror::Error)]
pub enum HwlocError {
    #[error("the results hold neither a latency matrix nor a bandwidth matrix, so there is nothing to export as hwloc memory attributes; run `numascope run` with the latency-matrix or bandwidth-matrix part")]
    NothingToExport,
}

/// An hwloc bitmap string: `0x00000003`, `0x00000001,0xffffffff` (32-bit words, high first).
fn bitmap(bits: &[u32]) -> String {
    let Some(&max) = bits.iter().max() else {
        return "0x0".into();
    };
    let words = (max / 32 + 1) as usize;
    let mut w = vec![0u32; words];
    for &b in bits {
        w[(b / 32) as usize] |= 1 << (b % 32);
    }
    w.iter()
        .rev()
        .map(|x| format!("0x{x:08x}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn sets(cpus: &[u32], nodes: &[u32]) -> String {
    let c = bitmap(cpus);
    let n = bitmap(nodes);
    format!("cpuset=\"{c}\" complete_cpuset=\"{c}\" nodeset=\"{n}\" complete_nodeset=\"{n}\"")
}

/// The document being written and what its parts share: the online CPUs, the memory nodes,
/// the next gp_index and each NUMANode's gp_index (the memory attributes point at them).
struct Doc<'a> {
    t: &'a Topology,
    online: Vec<u32>,
    mem_nodes: Vec<u32>,
    gp: u64,
    node_gp: Vec<(u32, u64)>,
    x: String,
}

impl Doc<'_> {
    /// The next object's gp_index.
    fn take(&mut self) -> u64 {
        self.gp += 1;
        self.gp
    }

    /// The CPU model as hwloc's `CPUModel` info, indented `pad`, when known.
    fn cpu_model(&mut self, pad: &str) {
        if let Some(m) = &self.t.environment.cpu_model {
            let _ = writeln!(
                self.x,
                "{pad}<info name=\"CPUModel\" value=\"{}\"/>",
                esc(m)
            );
        }
    }
}

/// The XML topology with the measured memory attributes.
pub fn hwloc_xml(r: &RunResults) -> Result<String, HwlocError> {
    let (lat, bw) = (r.latency_cells(), r.bandwidth_matrix_cells());
    if lat.is_empty() && bw.is_empty() {
        return Err(HwlocError::NothingToExport);
    }
    let t: &Topology = &r.topology;
    let online: Vec<u32> = t.cpus.iter().filter(|c| c.online).map(|c| c.id).collect();
    let mut mem_nodes: Vec<u32> = (t.nodes.iter().filter(|n| n.has_memory))
        .map(|n| n.id)
        .collect();
    // No node directory (a kernel without NUMA): one node 0, as hwloc makes.
    if mem_nodes.is_empty() {
        mem_nodes.push(0);
    }
    let mut d = Doc {
        t,
        online,
        mem_nodes,
        gp: 0,
        node_gp: Vec::new(),
        x: String::new(),
    };
    machine(&mut d, r);
    objects(&mut d);
    distances(&mut d);
    memattrs(&mut d, &lat, &bw);
    d.x.push_str("</topology>\n");
    Ok(d.x)
}

/// The XML header and the Machine object's opening tag and facts.
fn machine(d: &mut Doc, r: &RunResults) {
    let mut all_nodes: Vec<u32> = d.t.nodes.iter().map(|n| n.id).collect();
    if all_nodes.is_empty() {
        all_nodes.push(0);
    }
    let gp = d.take();
    let on = &d.online;
    let _ = write!(
        d.x,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">\n  <object type=\"Machine\" os_index=\"0\" {} allowed_cpuset=\"{}\" allowed_nodeset=\"{}\" gp_index=\"{gp}\">\n",
        sets(on, &all_nodes),
        bitmap(on),
        bitmap(&all_nodes),
    );
    let _ = writeln!(
        d.x,
        "    <info name=\"HostName\" value=\"{}\"/>\n    <info name=\"Backend\" value=\"numascope\"/>\n    <info name=\"numascope\" value=\"Latency (ns) and Bandwidth (MiB/s) are numascope {} measurements of {}, not firmware figures\"/>",
        esc(&r.host),
        esc(&r.tool_version),
        esc(&r.started_at)
    );
    if d.t.cpus.iter().all(|c| c.package.is_none()) {
        d.cpu_model("    ");
    }
}

/// The nodes local to `cpus` (hwloc's nodeset): the nodes holding any of them, a memoryless
/// one included as hwloc does, or every memory node when none does.
fn locality(t: &Topology, mem_nodes: &[u32], cpus: &[u32]) -> Vec<u32> {
    let local: Vec<u32> = t
        .nodes
        .iter()
        .filter(|n| n.cpus.iter().any(|c| cpus.contains(c)))
        .map(|n| n.id)
        .collect();
    if local.is_empty() {
        mem_nodes.to_vec()
    } else {
        local
    }
}

/// The Machine's children, written depth first: at each object its NUMA nodes first (as
/// hwloc writes memory children), then its normal children. Then the Machine closes.
fn objects(d: &mut Doc) {
    let tree = hwloc_tree::build(d.t, &d.online);
    children(d, &tree, 0, 2);
    // A memory-only node (CXL, HBM) has no CPUs of its own: hwloc's Linux backend puts it in
    // a memory Group (kind 1001) with an empty cpuset, and so does the export, so hwloc tools
    // count and place it as they do on the machine itself.
    for &n in &tree.cpuless {
        let gp = d.take();
        let _ = writeln!(
            d.x,
            "    <object type=\"Group\" {} gp_index=\"{gp}\" kind=\"1001\" subkind=\"0\">",
            sets(&[], &[n])
        );
        numa_node(d, n, &[], 3);
        d.x.push_str("    </object>\n");
    }
    d.x.push_str("  </object>\n");
}

fn numa_node(d: &mut Doc, node: u32, cpus: &[u32], depth: usize) {
    let gp = d.take();
    d.node_gp.push((node, gp));
    let mem = d.t.node(node).map(|n| n.memory_total_bytes).unwrap_or(0);
    let pad = "  ".repeat(depth);
    let _ = writeln!(
        d.x,
        "{pad}<object type=\"NUMANode\" os_index=\"{node}\" {} gp_index=\"{gp}\" local_memory=\"{mem}\"/>",
        sets(cpus, &[node])
    );
}

fn object(d: &mut Doc, tree: &hwloc_tree::Tree, i: usize, depth: usize) {
    let o = &tree.objs[i];
    let pad = "  ".repeat(depth);
    let nodes = locality(d.t, &d.mem_nodes, &o.cpus);
    let mut attrs = format!("type=\"{}\"", o.type_name());
    if let Some(os) = o.os_index {
        let _ = write!(attrs, " os_index=\"{os}\"");
    }
    let _ = write!(
        attrs,
        " {} gp_index=\"{}\"",
        sets(&o.cpus, &nodes),
        d.take()
    );
    if let (Some((size, line, ways)), hwloc_tree::Kind::Cache(std::cmp::Reverse(level), kind)) =
        (o.cache, o.kind)
    {
        let _ = write!(
            attrs,
            " cache_size=\"{size}\" depth=\"{level}\" cache_linesize=\"{}\" cache_associativity=\"{}\" cache_type=\"{kind}\"",
            line.unwrap_or(0),
            ways.unwrap_or(0)
        );
    }
    if matches!(o.kind, hwloc_tree::Kind::Group) {
        // hwloc's kind for a group made to hold a NUMA node's CPUs.
        attrs.push_str(" kind=\"1001\" subkind=\"0\"");
    }
    if o.numa.is_empty() && o.children.is_empty() {
        let _ = writeln!(d.x, "{pad}<object {attrs}/>");
        return;
    }
    let _ = writeln!(d.x, "{pad}<object {attrs}>");
    if o.kind == hwloc_tree::Kind::Package {
        d.cpu_model(&format!("{pad}  "));
    }
    children(d, tree, i, depth + 1);
    let _ = writeln!(d.x, "{pad}</object>");
}

/// The memory children of object `i`, then its normal children, at `depth`.
fn children(d: &mut Doc, tree: &hwloc_tree::Tree, i: usize, depth: usize) {
    let o = &tree.objs[i];
    for &n in &o.numa {
        numa_node(d, n, &o.cpus, depth);
    }
    for &ch in &o.children {
        object(d, tree, ch, depth);
    }
}

/// The firmware's node distances (SLIT) as hwloc's NUMALatency matrix, os-indexed.
fn distances(d: &mut Doc) {
    let t = d.t;
    let n = t.nodes.len();
    if n < 2 || t.distances.len() != n || t.distances.iter().any(|r| r.len() != n) {
        return;
    }
    let idx: String = t.nodes.iter().map(|x| format!("{} ", x.id)).collect();
    let vals: String = t
        .distances
        .iter()
        .flatten()
        .map(|v| format!("{v} "))
        .collect();
    let _ = writeln!(
        d.x,
        "  <distances2 type=\"NUMANode\" nbobjs=\"{n}\" kind=\"5\" name=\"NUMALatency\" indexing=\"os\">\n    <indexes length=\"{}\">{idx}</indexes>\n    <u64values length=\"{}\">{vals}</u64values>\n  </distances2>",
        idx.len(),
        vals.len()
    );
}

/// The measured latency and bandwidth as hwloc memory attributes.
fn memattrs(d: &mut Doc, lat: &[(u32, u32, f64)], bw: &[(u32, u32, f64)]) {
    // Flags as hwloc writes them: Bandwidth 5 (higher is better, needs initiator), Latency 6
    // (lower is better, needs initiator). Values in hwloc's units: MiB/s and whole ns.
    let mib: fn(f64) -> f64 = |v| v * 1e6 / 1048576.0;
    let attrs = [("Bandwidth", 5, bw, mib), ("Latency", 6, lat, |v: f64| v)];
    for (name, flags, cells, unit) in attrs {
        let lines: Vec<String> = (cells.iter())
            .filter_map(|&(a, b, v)| {
                let gp = d.node_gp.iter().find(|(n, _)| *n == b)?.1;
                let cpus = d.t.node(a)?.cpus.iter().copied();
                let cpus: Vec<u32> = cpus.filter(|c| d.online.contains(c)).collect();
                let from = (!cpus.is_empty()).then(|| bitmap(&cpus))?;
                let v = unit(v).round().max(1.0) as u64;
                Some(format!(
                    "    <memattr_value target_obj_type=\"NUMANode\" target_obj_gp_index=\"{gp}\" value=\"{v}\" initiator_cpuset=\"{from}\"/>\n"
                ))
            })
            .collect();
        if !lines.is_empty() {
            let _ = writeln!(d.x, "  <memattr name=\"{name}\" flags=\"{flags}\">");
            d.x.push_str(&lines.concat());
            d.x.push_str("  </memattr>\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;

    #[test]
    fn bitmaps_match_hwloc_syntax() {
        assert_eq!(bitmap(&[]), "0x0");
        assert_eq!(bitmap(&[0, 1]), "0x00000003");
        assert_eq!(bitmap(&[32]), "0x00000001,0x00000000");
        assert_eq!(bitmap(&[0, 33, 35]), "0x0000000a,0x00000001");
    }

    #[test]
    fn opteron_xml_holds_both_matrices() {
        let x = hwloc_xml(&opteron_example()).unwrap();
        assert_eq!(x.matches("<memattr_value").count(), 8);
        // 70.9 ns -> 71; 3116 MB/s -> 2972 MiB/s; 6286 MB/s -> 5995 MiB/s.
        assert!(x.contains("value=\"71\" initiator_cpuset=\"0x00000001\""));
        assert!(x.contains("value=\"2972\""));
        assert!(x.contains("value=\"5995\""));
        insta::assert_snapshot!(x);
    }

    #[test]
    fn nothing_to_export_is_one_sentence() {
        let mut r = opteron_example();
        r.latency = None;
        r.bandwidth = None;
        let e = hwloc_xml(&r).unwrap_err().to_string();
        assert!(e.contains("nothing to export") && !e.contains('\n'));
    }

    /// A memory-only node (CXL, HBM) sits in a memory Group and still gets its values.
    #[test]
    fn memory_only_node_is_a_target() {
        let mut r = opteron_example();
        let mut n = r.topology.nodes[1].clone();
        n.id = 2;
        n.cpus.clear();
        n.has_cpu = false;
        r.topology.nodes.push(n);
        let m = r.latency.as_mut().unwrap().matrix.as_mut().unwrap();
        let mut c = m.cells[1].clone();
        c.memory_node = 2;
        c.result.ns_per_load.median = 250.0;
        m.cells.push(c);
        let x = hwloc_xml(&r).unwrap();
        // In a memory Group of its own under the Machine, with no CPUs, as hwloc puts it.
        let lines: Vec<&str> = x.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("type=\"NUMANode\" os_index=\"2\""))
            .unwrap();
        assert!(lines[at].starts_with("      <object"), "{}", lines[at]);
        assert!(lines[at].contains("cpuset=\"0x0\""), "{}", lines[at]);
        assert!(
            lines[at - 1].starts_with("    <object type=\"Group\" cpuset=\"0x0\""),
            "{}",
            lines[at - 1]
        );
        assert!(x.contains("value=\"250\" initiator_cpuset=\"0x00000001\""));
    }

    /// The real check: hwloc itself loads the XML and shows the measured values.
    #[test]
    fn lstopo_shows_the_measured_values() {
        let Ok(out) = std::process::Command::new("lstopo-no-graphics")
            .arg("--version")
            .output()
        else {
            println!("skipped: lstopo-no-graphics (hwloc) is not installed");
            return;
        };
        if !out.status.success() {
            println!("skipped: lstopo-no-graphics --version failed");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opteron.xml");
        std::fs::write(&path, hwloc_xml(&opteron_example()).unwrap()).unwrap();
        let out = std::process::Command::new("lstopo-no-graphics")
            .arg("--memattrs")
            .arg("-i")
            .arg(&path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "lstopo failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Each attribute's block, then the values hwloc read from it.
        let block = |name: &str| {
            let after = text.split(&format!("name `{name}'")).nth(1);
            let after = after.unwrap_or_else(|| panic!("no {name} attribute: {text}"));
            after.split("Memory attribute").next().unwrap().to_string()
        };
        for (name, value) in [
            ("Latency", "NUMANode L#0 = 46 from cpuset 0x00000001"),
            ("Latency", "NUMANode L#1 = 71 from cpuset 0x00000001"),
            ("Latency", "NUMANode L#0 = 71 from cpuset 0x00000002"),
            ("Bandwidth", "NUMANode L#0 = 5995 from cpuset 0x00000001"),
            ("Bandwidth", "NUMANode L#1 = 2972 from cpuset 0x00000001"),
        ] {
            assert!(block(name).contains(value), "{name} {value}: {text}");
        }
    }
}
