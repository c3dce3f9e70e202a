//! Reading hwloc's XML export (`lstopo-no-graphics --of xml`) for the tests that compare
//! numascope with hwloc: NUMA nodes (cpuset, local memory), caches, the NUMALatency matrix and
//! memory attributes. Shared by tests/hwloc_crosscheck.rs and tests/hwloc_replay.rs through
//! `#[path]`, so the two read hwloc the same way.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// The value of `name="..."` in one XML tag.
pub fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

/// Parses an hwloc bitmap (`0x000000ff`, `0x00000001,0xffffffff`, groups most significant
/// first).
pub fn bitmap(s: &str) -> Vec<u32> {
    let groups: Vec<&str> = s.split(',').collect();
    let n = groups.len();
    let mut out = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        // hwloc writes all-zero groups as empty (`0x1,,0x0`) and infinite sets as `0xf...f`.
        let g = g.trim_start_matches("0x");
        if g == "f...f" {
            continue;
        }
        let v = if g.is_empty() {
            0
        } else {
            u32::from_str_radix(g, 16).unwrap()
        };
        for b in 0..32 {
            if v & (1 << b) != 0 {
                out.push(((n - 1 - i) * 32) as u32 + b);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The `<object ...>` and other opening tags of the document, in order.
pub fn tags(xml: &str) -> Vec<&str> {
    xml.split('<').filter(|t| !t.starts_with('/')).collect()
}

#[derive(Debug, Default)]
pub struct Hwloc {
    /// os_index -> (cpus, local memory bytes, gp_index)
    pub nodes: BTreeMap<u32, (Vec<u32>, u64, String)>,
    /// (level, instruction?, size, cpus)
    pub caches: Vec<(u32, bool, u64, Vec<u32>)>,
    /// node os indexes and row-major values of NUMALatency
    pub distances: Option<(Vec<u32>, Vec<u64>)>,
    /// memattr name -> target gp_index -> value
    pub memattrs: BTreeMap<String, BTreeMap<String, u64>>,
    /// node os_index -> its `subtype` (HBM, DRAM, CXL-DRAM, GPUMemory, NVM, SPM...)
    pub subtypes: BTreeMap<u32, String>,
    /// The os_index of every PU (the online CPUs).
    pub pus: Vec<u32>,
    /// How many Package and L3Cache objects the topology has.
    pub packages: usize,
    pub l3_caches: usize,
}

pub fn parse_hwloc(xml: &str) -> Hwloc {
    let mut h = Hwloc::default();
    let mut current_memattr: Option<String> = None;
    let all = tags(xml);
    let mut i = 0;
    while i < all.len() {
        let t = all[i];
        if t.starts_with("object ") {
            let ty = attr(t, "type").unwrap_or_default();
            if ty == "NUMANode" {
                let os: u32 = attr(t, "os_index").unwrap().parse().unwrap();
                let cpus = bitmap(&attr(t, "cpuset").unwrap());
                let mem = attr(t, "local_memory")
                    .map(|m| m.parse().unwrap())
                    .unwrap_or(0);
                h.nodes
                    .insert(os, (cpus, mem, attr(t, "gp_index").unwrap()));
                if let Some(st) = attr(t, "subtype") {
                    h.subtypes.insert(os, st);
                }
            } else if ty == "PU" {
                h.pus.push(attr(t, "os_index").unwrap().parse().unwrap());
            } else if ty == "Package" {
                // Packages with online CPUs: an offline CPU has no package in numascope's
                // model (the kernel shows no topology for it), so a package whose CPUs are
                // all offline is not counted on either side.
                if attr(t, "cpuset").is_some_and(|c| !bitmap(&c).is_empty()) {
                    h.packages += 1;
                }
            } else if let Some(rest) = ty.strip_prefix('L') {
                if let Some(level) = rest
                    .strip_suffix("iCache")
                    .or_else(|| rest.strip_suffix("Cache"))
                {
                    let instr = rest.ends_with("iCache");
                    if ty == "L3Cache" {
                        h.l3_caches += 1;
                    }
                    h.caches.push((
                        level.parse().unwrap(),
                        instr,
                        attr(t, "cache_size").unwrap().parse().unwrap(),
                        bitmap(&attr(t, "cpuset").unwrap()),
                    ));
                }
            }
        } else if t.starts_with("distances2 ")
            && attr(t, "type").as_deref() == Some("NUMANode")
            && attr(t, "name").is_none_or(|n| n == "NUMALatency")
            && h.distances.is_none()
        {
            // The first NUMA node latency matrix; an unnamed one (kind 5, from the OS, means
            // latency) is what older hwloc wrote before naming it NUMALatency.
            // hwloc writes indexes and values in chunks of at most ten per element.
            let text = |tag: &str| {
                tag.split_once('>')
                    .map(|(_, b)| b.to_string())
                    .unwrap_or_default()
            };
            let mut idx: Vec<u32> = Vec::new();
            let mut vals: Vec<u64> = Vec::new();
            let mut j = i + 1;
            while j < all.len()
                && (all[j].starts_with("indexes") || all[j].starts_with("u64values"))
            {
                let words = text(all[j]);
                if all[j].starts_with("indexes") {
                    idx.extend(words.split_whitespace().map(|v| v.parse::<u32>().unwrap()));
                } else {
                    vals.extend(words.split_whitespace().map(|v| v.parse::<u64>().unwrap()));
                }
                j += 1;
            }
            h.distances = Some((idx, vals));
        } else if t.starts_with("memattr ") {
            current_memattr = attr(t, "name");
        } else if t.starts_with("memattr_value ") {
            if let Some(m) = &current_memattr {
                h.memattrs.entry(m.clone()).or_default().insert(
                    attr(t, "target_obj_gp_index").unwrap(),
                    attr(t, "value").unwrap().parse().unwrap(),
                );
            }
        }
        i += 1;
    }
    h
}
