//! Writing the parsed topology as the sysfs and procfs files the topology reader knows.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::Context as _;

use super::parse::Parsed;

pub(super) fn list(v: &[u32]) -> String {
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

pub(super) fn write_snapshot(p: &Parsed, root: &Path) -> anyhow::Result<()> {
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
