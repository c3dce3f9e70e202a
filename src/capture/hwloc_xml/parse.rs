//! Reading hwloc's XML: the objects above each PU (package, core, caches), the NUMA nodes,
//! the NUMALatency distances and the Machine's allowed sets and info attributes.

use std::collections::BTreeMap;

use anyhow::{bail, Context as _};

#[derive(Default, Debug)]
pub(super) struct Pu {
    pub(super) package: Option<u32>,
    pub(super) core: Option<u32>,
    /// (level, type, size, line, ways, shared CPUs)
    pub(super) caches: Vec<(u32, u32, u64, u64, u32, Vec<u32>)>,
}

/// A NUMANode: its cpuset, memory bytes and page pools (size, count).
pub(super) type NumaObj = (Vec<u32>, u64, Vec<(u64, u64)>);

#[derive(Default, Debug)]
pub(super) struct Parsed {
    pub(super) pus: BTreeMap<u32, Pu>,
    pub(super) nodes: BTreeMap<u32, NumaObj>,
    pub(super) distances: Option<(Vec<u32>, Vec<u64>)>,
    pub(super) allowed_cpus: Option<Vec<u32>>,
    pub(super) allowed_nodes: Option<Vec<u32>>,
    pub(super) cpu_model: Option<String>,
    pub(super) os_release: Option<String>,
}

/// hwloc's bitmap syntax (`0x00000003`, `0x1,0xffffffff`, `0xf...f,0x3` infinite) to indices.
pub(super) fn bits(s: &str) -> anyhow::Result<Vec<u32>> {
    let s = s.trim();
    let mut words: Vec<&str> = s.split(',').collect();
    words.reverse();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let hex = w.trim().trim_start_matches("0x");
        if hex.starts_with("f...f") {
            bail!("the bitmap `{s}` is infinite, which a CPU or node set cannot be");
        }
        // hwloc leaves zero words empty: `0xff,,0x1` is three words.
        let v = if hex.is_empty() {
            0
        } else {
            u32::from_str_radix(hex, 16).with_context(|| format!("`{s}` is not an hwloc bitmap"))?
        };
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

pub(super) fn parse(text: &str) -> anyhow::Result<Parsed> {
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
