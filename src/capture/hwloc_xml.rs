//! `--sysfs-root TOPOLOGY.xml`: an hwloc XML topology (from `lstopo --of xml`, `hwloc-gather`
//! or `numascope report --hwloc-xml`) turned into a snapshot directory of the sysfs and procfs
//! files numascope reads, so the one topology reader serves XML too.
//!
//! What hwloc's XML holds becomes the files the kernel would show: each PU a `cpuN` with its
//! package, core and caches (from the objects above it), each NUMANode a `nodeN` with its
//! CPUs, memory (MemTotal only: an XML has no free memory, which the reader then reports as
//! unknown with a warning) and huge-page pools, the `NUMALatency` distance matrix as each
//! node's `distance`, the Machine's allowed sets as the process's allowed CPUs and nodes, and
//! the CPU model and kernel release from the info attributes. What the XML does not hold
//! (THP, NUMA balancing, governor) is absent, and shown as unknown like any missing file.
//!
//! The file is opened as a regular file with a size cap and parsed with a node cap; the
//! external DTD hwloc names is never fetched, so an XML cannot make the reader read elsewhere
//! or grow without bound.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{bail, Context as _};

use super::Unpacked;

/// The largest XML accepted (a 1024-CPU machine's lstopo XML is about 2 MB).
const MAX_XML_BYTES: u64 = 64 << 20;

/// True when `p` is a regular file that starts like an XML document.
pub fn is_xml(p: &Path) -> bool {
    use std::io::Read as _;
    let Ok((f, _)) = crate::sys::safe_read::open_regular(p, MAX_XML_BYTES, false) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(256).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    let head = head.trim_start();
    head.starts_with("<?xml") || head.starts_with("<topology")
}

#[derive(Default, Debug)]
struct Pu {
    package: Option<u32>,
    core: Option<u32>,
    /// (level, type, size, line, ways, shared CPUs)
    caches: Vec<(u32, u32, u64, u64, u32, Vec<u32>)>,
}

/// A NUMANode: its cpuset, memory bytes and page pools (size, count).
type NumaObj = (Vec<u32>, u64, Vec<(u64, u64)>);

#[derive(Default, Debug)]
struct Parsed {
    pus: BTreeMap<u32, Pu>,
    nodes: BTreeMap<u32, NumaObj>,
    distances: Option<(Vec<u32>, Vec<u64>)>,
    allowed_cpus: Option<Vec<u32>>,
    allowed_nodes: Option<Vec<u32>>,
    cpu_model: Option<String>,
    os_release: Option<String>,
}

/// hwloc's bitmap syntax (`0x00000003`, `0x1,0xffffffff`, `0xf...f,0x3` infinite) to indices.
fn bits(s: &str) -> anyhow::Result<Vec<u32>> {
    let s = s.trim();
    let mut words: Vec<&str> = s.split(',').collect();
    words.reverse();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let hex = w.trim().trim_start_matches("0x");
        if hex.starts_with("f...f") {
            bail!("the bitmap `{s}` is infinite, which a CPU or node set cannot be");
        }
        let v = u32::from_str_radix(hex, 16)
            .with_context(|| format!("`{s}` is not an hwloc bitmap"))?;
        if i > 64 {
            bail!(
                "the bitmap `{}` is too large (max 2048 bits)",
                crate::sys::safe_read::excerpt(s)
            );
        }
        for b in 0..32 {
            if v & (1 << b) != 0 {
                out.push(i as u32 * 32 + b);
            }
        }
    }
    Ok(out)
}

fn num<T: std::str::FromStr>(n: roxmltree::Node, attr: &str) -> Option<T> {
    n.attribute(attr)?.trim().parse().ok()
}

fn info(n: roxmltree::Node, name: &str) -> Option<String> {
    n.children()
        .filter(|c| c.has_tag_name("info") && c.attribute("name") == Some(name))
        .find_map(|c| c.attribute("value").map(str::to_string))
}

fn walk(n: roxmltree::Node, above: &Pu, p: &mut Parsed) -> anyhow::Result<()> {
    let ty = n.attribute("type").unwrap_or("");
    let cpus = n
        .attribute("cpuset")
        .map(bits)
        .transpose()?
        .unwrap_or_default();
    let mut here = Pu {
        package: above.package,
        core: above.core,
        caches: above.caches.clone(),
    };
    match ty {
        "Machine" => {
            p.allowed_cpus = n.attribute("allowed_cpuset").map(bits).transpose()?;
            p.allowed_nodes = n.attribute("allowed_nodeset").map(bits).transpose()?;
            p.os_release = info(n, "OSRelease");
            p.cpu_model = p.cpu_model.take().or_else(|| info(n, "CPUModel"));
        }
        "Package" => {
            here.package = num(n, "os_index");
            p.cpu_model = p.cpu_model.take().or_else(|| info(n, "CPUModel"));
        }
        "Core" => here.core = num(n, "os_index"),
        t if t.ends_with("Cache") => {
            let level = num(n, "depth").unwrap_or(0);
            let kind = num(n, "cache_type").unwrap_or(0);
            // Memory-side caches (type MemCache) are not CPU caches.
            if t != "MemCache" && level > 0 {
                here.caches.push((
                    level,
                    kind,
                    num(n, "cache_size").unwrap_or(0),
                    num(n, "cache_linesize").unwrap_or(0),
                    num(n, "cache_associativity").unwrap_or(0),
                    cpus.clone(),
                ));
            }
        }
        "PU" => {
            let id: u32 = num(n, "os_index").context("a PU without an os_index")?;
            p.pus.insert(id, here);
            return Ok(());
        }
        "NUMANode" => {
            let id: u32 = num(n, "os_index").context("a NUMANode without an os_index")?;
            let pages = n
                .children()
                .filter(|c| c.has_tag_name("page_type"))
                .filter_map(|c| Some((num(c, "size")?, num(c, "count")?)))
                .collect();
            p.nodes
                .insert(id, (cpus, num(n, "local_memory").unwrap_or(0), pages));
        }
        _ => {}
    }
    for c in n.children().filter(|c| c.has_tag_name("object")) {
        walk(c, &here, p)?;
    }
    Ok(())
}

fn parse(text: &str) -> anyhow::Result<Parsed> {
    // hwloc writes a DOCTYPE naming its external DTD (never fetched); roxmltree expands only
    // internal entities, with its own nesting limits, and the node count is capped here.
    let opt = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: 4_000_000,
        ..Default::default()
    };
    let doc =
        roxmltree::Document::parse_with_options(text, opt).context("it is not well-formed XML")?;
    let top = doc.root_element();
    if !top.has_tag_name("topology") {
        bail!(
            "its root element is <{}>, not hwloc's <topology>",
            top.tag_name().name()
        );
    }
    let mut p = Parsed::default();
    for o in top.children().filter(|c| c.has_tag_name("object")) {
        walk(o, &Pu::default(), &mut p)?;
    }
    for d in top.children().filter(|c| c.has_tag_name("distances2")) {
        let latency = d.attribute("name").is_none_or(|n| n == "NUMALatency");
        if d.attribute("type") != Some("NUMANode")
            || d.attribute("indexing") != Some("os")
            || !latency
        {
            continue;
        }
        let text = |tag: &str| -> String {
            d.children()
                .filter(|c| c.has_tag_name(tag))
                .filter_map(|c| c.text())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let idx: Vec<u32> = text("indexes")
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let vals: Vec<u64> = text("u64values")
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        if !idx.is_empty() && vals.len() == idx.len() * idx.len() {
            p.distances = Some((idx, vals));
        }
    }
    if p.pus.is_empty() {
        bail!("it holds no PU objects, so there are no CPUs to show");
    }
    Ok(p)
}

fn list(v: &[u32]) -> String {
    let mut s = String::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        if !s.is_empty() {
            s.push(',');
        }
        if j > i {
            let _ = write!(s, "{}-{}", v[i], v[j]);
        } else {
            let _ = write!(s, "{}", v[i]);
        }
        i = j + 1;
    }
    s.push('\n');
    s
}

fn put(root: &Path, rel: &str, body: &str) -> anyhow::Result<()> {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        fs::create_dir_all(d)?;
    }
    fs::write(&p, body).with_context(|| format!("cannot write {}", p.display()))
}

fn write_snapshot(p: &Parsed, root: &Path) -> anyhow::Result<()> {
    let cpus: Vec<u32> = p.pus.keys().copied().collect();
    for f in ["online", "possible", "present"] {
        put(root, &format!("sys/devices/system/cpu/{f}"), &list(&cpus))?;
    }
    for (id, pu) in &p.pus {
        let base = format!("sys/devices/system/cpu/cpu{id}");
        put(root, &format!("{base}/online"), "1\n")?;
        let pkg = pu.package.unwrap_or(0);
        put(
            root,
            &format!("{base}/topology/physical_package_id"),
            &format!("{pkg}\n"),
        )?;
        put(
            root,
            &format!("{base}/topology/core_id"),
            &format!("{}\n", pu.core.unwrap_or(*id)),
        )?;
        let siblings: Vec<u32> = p
            .pus
            .iter()
            .filter(|(_, o)| o.package == pu.package && o.core == pu.core && pu.core.is_some())
            .map(|(c, _)| *c)
            .collect();
        let siblings = if siblings.is_empty() {
            vec![*id]
        } else {
            siblings
        };
        put(
            root,
            &format!("{base}/topology/thread_siblings_list"),
            &list(&siblings),
        )?;
        let package: Vec<u32> = p
            .pus
            .iter()
            .filter(|(_, o)| o.package == pu.package)
            .map(|(c, _)| *c)
            .collect();
        put(
            root,
            &format!("{base}/topology/package_cpus_list"),
            &list(&package),
        )?;
        let mut caches = pu.caches.clone();
        caches.sort_by_key(|c| (c.0, std::cmp::Reverse(c.1)));
        for (k, (level, kind, size, line, ways, shared)) in caches.iter().enumerate() {
            let c = format!("{base}/cache/index{k}");
            put(root, &format!("{c}/level"), &format!("{level}\n"))?;
            let ty = match kind {
                1 => "Data",
                2 => "Instruction",
                _ => "Unified",
            };
            put(root, &format!("{c}/type"), &format!("{ty}\n"))?;
            put(root, &format!("{c}/size"), &format!("{}K\n", size / 1024))?;
            if *line > 0 {
                put(
                    root,
                    &format!("{c}/coherency_line_size"),
                    &format!("{line}\n"),
                )?;
            }
            if *ways > 0 {
                put(
                    root,
                    &format!("{c}/ways_of_associativity"),
                    &format!("{ways}\n"),
                )?;
            }
            put(root, &format!("{c}/shared_cpu_list"), &list(shared))?;
        }
    }
    let smt = p.pus.iter().any(|(a, x)| {
        x.core.is_some()
            && p.pus
                .iter()
                .any(|(b, y)| a != b && y.core == x.core && y.package == x.package)
    });
    put(
        root,
        "sys/devices/system/cpu/smt/active",
        if smt { "1\n" } else { "0\n" },
    )?;
    let ids: Vec<u32> = p.nodes.keys().copied().collect();
    put(root, "sys/devices/system/node/online", &list(&ids))?;
    put(root, "sys/devices/system/node/possible", &list(&ids))?;
    let with_mem: Vec<u32> = p
        .nodes
        .iter()
        .filter(|(_, n)| n.1 > 0)
        .map(|(i, _)| *i)
        .collect();
    put(root, "sys/devices/system/node/has_memory", &list(&with_mem))?;
    // hwloc gives a memory-only node the CPUs near it; the kernel's cpulist is the CPUs on it.
    // A CPU is on the node whose NUMANode is the smallest one covering it (a memory-only node
    // that hwloc attached beside a DRAM node, with the same cpuset, loses the tie: memory
    // first, then the lower id).
    let mut on: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for c in &cpus {
        let best = p
            .nodes
            .iter()
            .filter(|(_, n)| n.0.contains(c))
            .min_by_key(|(i, n)| (n.0.len(), n.1 == 0, **i));
        if let Some((i, _)) = best {
            on.entry(*i).or_default().push(*c);
        }
    }
    let has_cpu: Vec<u32> = on.keys().copied().collect();
    put(root, "sys/devices/system/node/has_cpu", &list(&has_cpu))?;
    let mut total = 0;
    for (id, (_, mem, pages)) in &p.nodes {
        let base = format!("sys/devices/system/node/node{id}");
        let cpus_on = on.get(id).cloned().unwrap_or_default();
        put(root, &format!("{base}/cpulist"), &list(&cpus_on))?;
        put(
            root,
            &format!("{base}/meminfo"),
            &format!("Node {id} MemTotal: {:>8} kB\n", mem / 1024),
        )?;
        total += mem;
        for (size, count) in pages.iter().filter(|(s, _)| *s > 4096) {
            let h = format!("{base}/hugepages/hugepages-{}kB", size / 1024);
            put(root, &format!("{h}/nr_hugepages"), &format!("{count}\n"))?;
        }
        if let Some((idx, vals)) = &p.distances {
            if let Some(row) = idx.iter().position(|i| i == id) {
                let n = idx.len();
                let line: Vec<String> = vals[row * n..row * n + n]
                    .iter()
                    .map(|v| v.to_string())
                    .collect();
                put(
                    root,
                    &format!("{base}/distance"),
                    &format!("{}\n", line.join(" ")),
                )?;
            }
        }
    }
    put(
        root,
        "proc/meminfo",
        &format!("MemTotal: {:>8} kB\n", total / 1024),
    )?;
    let mut status = String::new();
    if let Some(a) = &p.allowed_cpus {
        let _ = write!(status, "Cpus_allowed_list:\t{}", list(a));
    }
    if let Some(a) = &p.allowed_nodes {
        let _ = write!(status, "Mems_allowed_list:\t{}", list(a));
    }
    if !status.is_empty() {
        put(root, "proc/self/status", &status)?;
    }
    if let Some(m) = &p.cpu_model {
        let mut s = String::new();
        for c in &cpus {
            let _ = write!(s, "processor\t: {c}\nmodel name\t: {m}\n\n");
        }
        put(root, "proc/cpuinfo", &s)?;
    }
    if let Some(r) = &p.os_release {
        put(root, "proc/sys/kernel/osrelease", &format!("{r}\n"))?;
    }
    Ok(())
}

/// Reads the hwloc XML at `path` into a fresh snapshot directory, removed when dropped.
pub fn unpack_xml(path: &Path) -> anyhow::Result<Unpacked> {
    let bytes =
        crate::sys::safe_read::read_capped(path, MAX_XML_BYTES, false).with_context(|| {
            format!(
                "--sysfs-root {}: cannot read this hwloc XML (at most {} MiB)",
                path.display(),
                MAX_XML_BYTES >> 20
            )
        })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "--sysfs-root {}: this XML is not UTF-8 text",
            path.display()
        )
    })?;
    let parsed = parse(&text).with_context(|| {
        format!(
            "--sysfs-root {}: not an hwloc topology (make one with `lstopo --of xml FILE`)",
            path.display()
        )
    })?;
    let u = Unpacked::fresh()?;
    write_snapshot(&parsed, u.path())?;
    Ok(u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmaps_read_back() {
        assert_eq!(bits("0x00000003").unwrap(), vec![0, 1]);
        assert_eq!(bits("0x00000001,0x00000000").unwrap(), vec![32]);
        assert_eq!(bits("0x0").unwrap(), Vec::<u32>::new());
        assert!(bits("0xf...f").is_err());
        assert!(bits("zz").is_err());
    }

    #[test]
    fn lists_are_compact() {
        assert_eq!(list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8\n");
        assert_eq!(list(&[]), "\n");
    }

    #[test]
    fn refuses_what_is_not_a_topology() {
        assert!(parse("<html/>").unwrap_err().to_string().contains("<html>"));
        assert!(parse("<topology/>")
            .unwrap_err()
            .to_string()
            .contains("no PU"));
        assert!(parse("not xml").is_err());
    }
}
