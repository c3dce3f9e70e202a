//! Reading hwloc's XML (formats 2 and 3) into plain facts: every object's own attributes and
//! the objects above it, walked with an explicit stack (an XML nested 50,000 deep costs memory
//! in proportion, never the call stack), plus the top-level distance matrices, memory
//! attributes, memory tiers and info attributes. Nothing here decides what the facts mean for
//! numascope's model: `build.rs` and `memory.rs` do.

use anyhow::{bail, Context as _};

/// The most CPUs (bits of a CPU bitmap) an XML may name: the largest `NR_CPUS` a Linux
/// kernel is built with is 8192; twice that leaves room without letting a file size the work.
pub const MAX_CPUS: u32 = 16_384;

/// One PU: its OS index and the package and core objects above it.
#[derive(Debug)]
pub(super) struct XPu {
    pub(super) id: u32,
    /// The enclosing Package's `os_index`: `None` with no Package object above (or one
    /// without an index).
    pub(super) package: Option<u32>,
    /// The enclosing Core: (its position among the file's Core objects, its `os_index`).
    pub(super) core: Option<(usize, Option<u32>)>,
}

/// One NUMANode.
#[derive(Debug)]
pub(super) struct XNode {
    pub(super) id: u32,
    pub(super) gp_index: Option<u64>,
    /// The CPUs hwloc says the node is near (its locality), offline ones included.
    pub(super) cpus: Vec<u32>,
    pub(super) memory: u64,
    pub(super) subtype: Option<String>,
    /// hwloc 2's `MemoryTier` info attribute.
    pub(super) tier: Option<u32>,
}

/// One CPU cache object: (level, hwloc cache_type, size, line, associativity, its CPUs).
pub(super) type XCache = (u32, u32, u64, u64, i64, Vec<u32>);

/// One memory-side cache (MemCache) above a NUMANode: (node, level, size, line).
pub(super) type XMemCache = (u32, u32, u64, u64);

/// One memory attribute value: (target by gp_index or by os_index, initiator CPUs, value).
#[derive(Debug)]
pub(super) struct XValue {
    pub(super) target_gp: Option<u64>,
    pub(super) target_os: Option<u32>,
    pub(super) initiator: Option<Vec<u32>>,
    pub(super) value: u64,
}

/// Everything read from the file.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) pus: Vec<XPu>,
    pub(super) nodes: Vec<XNode>,
    pub(super) caches: Vec<XCache>,
    pub(super) memory_caches: Vec<XMemCache>,
    /// The Machine's `complete_cpuset` (every present CPU), `cpuset` (online) and
    /// `allowed_cpuset`, and its `allowed_nodeset`.
    pub(super) complete_cpus: Option<Vec<u32>>,
    pub(super) allowed_cpus: Option<Vec<u32>>,
    pub(super) allowed_nodes: Option<Vec<u32>>,
    pub(super) cpu_model: Option<String>,
    pub(super) os_release: Option<String>,
    pub(super) arch: Option<String>,
    /// The NUMALatency matrix: (node indexes in file order, is gp indexing, values row-major).
    pub(super) distances: Option<(Vec<u64>, bool, Vec<u64>)>,
    /// Memory attributes by name (Latency, Bandwidth, ReadLatency...).
    pub(super) memattrs: Vec<(String, Vec<XValue>)>,
    /// hwloc 3's `<memtier>` elements in file order: (kinds bits, node ids).
    pub(super) memtiers: Vec<(u64, Vec<u32>)>,
}

/// hwloc's bitmap syntax (`0x00000003`, `0x1,,0x2`) to indices, ascending. An infinite
/// bitmap (`0xf...f`) or one beyond [`MAX_CPUS`] bits is refused.
pub(super) fn bits(s: &str) -> anyhow::Result<Vec<u32>> {
    let s = s.trim();
    let words = s.split(',').count();
    if words as u32 > MAX_CPUS / 32 {
        bail!(
            "the bitmap `{}` is too large (at most {MAX_CPUS} bits)",
            crate::sys::safe_read::excerpt(s)
        );
    }
    let mut out = Vec::new();
    for (i, w) in s.split(',').rev().enumerate() {
        let hex = w.trim().trim_start_matches("0x");
        if hex.starts_with("f...f") {
            bail!("the bitmap `{s}` is infinite, which a CPU or node set cannot be");
        }
        // hwloc leaves zero words empty: `0xff,,0x1` is three words.
        let v = if hex.is_empty() {
            0
        } else {
            u32::from_str_radix(hex, 16).with_context(|| {
                format!(
                    "`{}` is not an hwloc bitmap",
                    crate::sys::safe_read::excerpt(s)
                )
            })?
        };
        for b in 0..32 {
            if v & (1 << b) != 0 {
                out.push(i as u32 * 32 + b);
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

pub(super) fn num<T: std::str::FromStr>(n: roxmltree::Node, attr: &str) -> Option<T> {
    n.attribute(attr)?.trim().parse().ok()
}

fn set(n: roxmltree::Node, attr: &str) -> anyhow::Result<Option<Vec<u32>>> {
    n.attribute(attr)
        .map(bits)
        .transpose()
        .with_context(|| format!("the {attr} of a {}", n.attribute("type").unwrap_or("?")))
}

/// The info attributes numascope reports, wherever they are (hwloc 2 puts them on the
/// Machine and Packages, hwloc 3 the OS ones on the topology).
fn infos(n: roxmltree::Node, p: &mut Parsed) {
    for c in n.children().filter(|c| c.has_tag_name("info")) {
        let (Some(name), Some(value)) = (c.attribute("name"), c.attribute("value")) else {
            continue;
        };
        let slot = match name {
            "CPUModel" => &mut p.cpu_model,
            "OSRelease" => &mut p.os_release,
            "Architecture" => &mut p.arch,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(value.to_string());
        }
    }
}

/// What the objects above an object say about it.
#[derive(Clone, Default)]
struct Above {
    package: Option<u32>,
    core: Option<(usize, Option<u32>)>,
    /// The memory-side caches above: (level, size, line).
    memory_caches: Vec<(u32, u64, u64)>,
}

/// One object: its facts go into `p`, and what its children inherit is returned.
fn object(
    n: roxmltree::Node,
    above: &Above,
    p: &mut Parsed,
    cores: &mut usize,
) -> anyhow::Result<Above> {
    let ty = n.attribute("type").unwrap_or("");
    let mut here = above.clone();
    match ty {
        "Machine" => {
            p.complete_cpus = set(n, "complete_cpuset")?.or(set(n, "cpuset")?);
            p.allowed_cpus = set(n, "allowed_cpuset")?;
            p.allowed_nodes = set(n, "allowed_nodeset")?;
            infos(n, p);
        }
        "Package" => {
            here.package = num(n, "os_index");
            infos(n, p);
        }
        "Core" => {
            here.core = Some((*cores, num(n, "os_index")));
            *cores += 1;
        }
        "MemCache" => here.memory_caches.push((
            num(n, "depth").unwrap_or(0),
            num(n, "cache_size").unwrap_or(0),
            num(n, "cache_linesize").unwrap_or(0),
        )),
        t if t.ends_with("Cache") => p.caches.push((
            num(n, "depth").unwrap_or(0),
            num(n, "cache_type").unwrap_or(0),
            num(n, "cache_size").unwrap_or(0),
            num(n, "cache_linesize").unwrap_or(0),
            num(n, "cache_associativity").unwrap_or(0),
            set(n, "cpuset")?.unwrap_or_default(),
        )),
        "PU" => {
            let id: u32 = num(n, "os_index").context("a PU without an os_index")?;
            if id >= MAX_CPUS {
                bail!("PU {id} is beyond the {MAX_CPUS} CPUs numascope reads");
            }
            p.pus.push(XPu {
                id,
                package: here.package,
                core: here.core,
            });
        }
        "NUMANode" => numa_node(n, &here, p)?,
        _ => {}
    }
    Ok(here)
}

fn numa_node(n: roxmltree::Node, above: &Above, p: &mut Parsed) -> anyhow::Result<()> {
    let id: u32 = num(n, "os_index").context("a NUMANode without an os_index")?;
    let tier = n
        .children()
        .filter(|c| c.has_tag_name("info") && c.attribute("name") == Some("MemoryTier"))
        .find_map(|c| c.attribute("value")?.trim().parse().ok());
    for &(level, size, line) in &above.memory_caches {
        p.memory_caches.push((id, level, size, line));
    }
    p.nodes.push(XNode {
        id,
        gp_index: num(n, "gp_index"),
        cpus: set(n, "complete_cpuset")?
            .or(set(n, "cpuset")?)
            .unwrap_or_default(),
        memory: num(n, "local_memory").unwrap_or(0),
        subtype: n.attribute("subtype").map(str::to_string),
        tier,
    });
    Ok(())
}

/// Walks every `<object>` under the topology element, depth first, without recursion.
fn walk(top: roxmltree::Node, p: &mut Parsed) -> anyhow::Result<()> {
    let mut cores = 0;
    let mut stack: Vec<(roxmltree::Node, Above)> = top
        .children()
        .filter(|c| c.has_tag_name("object"))
        .map(|c| (c, Above::default()))
        .collect();
    stack.reverse();
    while let Some((n, above)) = stack.pop() {
        let here = object(n, &above, p, &mut cores)?;
        let first = stack.len();
        stack.extend(
            n.children()
                .filter(|c| c.has_tag_name("object"))
                .map(|c| (c, here.clone())),
        );
        stack[first..].reverse();
    }
    Ok(())
}

/// The text of the `tag` children of `d`, split into numbers.
fn numbers(d: roxmltree::Node, tag: &str) -> Vec<u64> {
    d.children()
        .filter(|c| c.has_tag_name(tag))
        .filter_map(|c| c.text())
        .flat_map(str::split_whitespace)
        .filter_map(|x| x.parse().ok())
        .collect()
}

fn distances(d: roxmltree::Node, p: &mut Parsed) {
    let latency = d.attribute("name").is_none_or(|n| n == "NUMALatency");
    let gp = match d.attribute("indexing") {
        Some("os") => false,
        Some("gp") => true,
        _ => return,
    };
    if d.attribute("type") != Some("NUMANode") || !latency || p.distances.is_some() {
        return;
    }
    let idx = numbers(d, "indexes");
    let vals = numbers(d, "u64values");
    if !idx.is_empty() && Some(vals.len()) == idx.len().checked_mul(idx.len()) {
        p.distances = Some((idx, gp, vals));
    }
}

fn memattr(m: roxmltree::Node, p: &mut Parsed) -> anyhow::Result<()> {
    let Some(name) = m.attribute("name") else {
        return Ok(());
    };
    let mut values = Vec::new();
    for v in m.children().filter(|c| c.has_tag_name("memattr_value")) {
        if v.attribute("target_obj_type") != Some("NUMANode") {
            continue;
        }
        let Some(value) = num(v, "value") else {
            continue;
        };
        values.push(XValue {
            target_gp: num(v, "target_obj_gp_index"),
            target_os: num(v, "target_obj_os_index"),
            initiator: set(v, "initiator_cpuset")?,
            value,
        });
    }
    p.memattrs.push((name.to_string(), values));
    Ok(())
}

/// Reads an hwloc XML document (already parsed by roxmltree) into [`Parsed`].
pub(super) fn parse(doc: &roxmltree::Document) -> anyhow::Result<Parsed> {
    let top = doc.root_element();
    if !top.has_tag_name("topology") {
        bail!(
            "its root element is <{}>, not hwloc's <topology>",
            top.tag_name().name()
        );
    }
    let mut p = Parsed::default();
    walk(top, &mut p)?;
    infos(top, &mut p);
    for c in top.children() {
        match c.tag_name().name() {
            "distances2" => distances(c, &mut p),
            "memattr" => memattr(c, &mut p)?,
            "memtier" => {
                let nodes = set(c, "nodeset")?.unwrap_or_default();
                p.memtiers.push((num(c, "kinds").unwrap_or(0), nodes));
            }
            _ => {}
        }
    }
    if p.pus.is_empty() {
        bail!("it holds no PU objects, so there are no CPUs to show");
    }
    Ok(p)
}
