//! `--sysfs-root TOPOLOGY.xml`: an hwloc XML topology (formats 2 and 3: `lstopo --of xml`,
//! `hwloc-gather`, `numascope report --hwloc-xml`) read straight into the topology model, in
//! memory, in time linear in the file; nothing is written anywhere.
//!
//! What the XML holds becomes the model's fields: each PU a CPU with its package (only where
//! the file has a Package object: none is invented), core and thread siblings; the Machine's
//! complete cpuset adds the offline CPUs (present, not online) and its allowed sets the
//! disallowed ones; each NUMANode a node with the CPUs on it (hwloc gives a node the CPUs
//! near it, see `build.rs`), its memory and its subtype (HBM, CXL-DRAM, GPUMemory, NVM,
//! DRAM, SPM) as a declared kind; every cache object one cache instance; MemCache objects the
//! node's memory-side caches; the `NUMALatency` matrix the distances, in node order whatever
//! order the file lists them in; the memory attributes (Latency, Bandwidth and their read
//! and write forms) the HMAT figures; the memory tiers (hwloc 3's `<memtier>`, hwloc 2's
//! `MemoryTier` info) each node's tier; the CPU model, kernel release and architecture from
//! the info attributes. What an XML does not hold (free memory, THP, NUMA balancing,
//! governor) is absent and shown as unknown, never invented.
//!
//! The file is opened as a regular file with a size cap and parsed with a node cap; objects
//! are walked with an explicit stack, so nesting depth costs memory, not the call stack; the
//! external DTD hwloc names is never fetched.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Context as _;

use crate::results::topology::{Topology, TOPOLOGY_SCHEMA_VERSION};
use crate::sysroot::SysRoot;

mod build;
mod memory;
mod parse;

pub use parse::MAX_CPUS;

/// The largest XML accepted (a 1024-CPU machine's lstopo XML is about 2 MB).
pub const MAX_XML_BYTES: u64 = 64 << 20;

/// True when `p` is a regular file that starts like an XML document (whatever its size: a
/// file over [`MAX_XML_BYTES`] is then refused as too large, not taken for a directory).
pub fn is_xml(p: &Path) -> bool {
    use std::io::Read as _;
    let Ok((f, _)) = crate::sys::safe_read::open_regular(p, u64::MAX, false) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(256).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    let head = head.trim_start_matches('\u{feff}').trim_start();
    head.starts_with("<?xml") || head.starts_with("<topology")
}

/// The root of an hwloc XML given to `--sysfs-root`: its topology read into memory and kept
/// in the root, which has no files. Errors name `path` as given.
pub fn open(path: &Path) -> anyhow::Result<SysRoot> {
    let root = SysRoot::hwloc_xml(path);
    let topology = read(path, &root)?;
    root.set_model(topology);
    Ok(root)
}

fn read(path: &Path, root: &SysRoot) -> anyhow::Result<Topology> {
    let shown = path.display();
    let bytes =
        crate::sys::safe_read::read_capped(path, MAX_XML_BYTES, false).with_context(|| {
            format!(
                "--sysfs-root {shown}: cannot read this hwloc XML (at most {} MiB)",
                MAX_XML_BYTES >> 20
            )
        })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("--sysfs-root {shown}: this XML is not UTF-8 text"))?;
    let not_hwloc = || {
        format!(
            "--sysfs-root {shown}: not an hwloc topology (make one with `lstopo --of xml FILE`)"
        )
    };
    // hwloc writes a DOCTYPE naming its external DTD (never fetched); roxmltree expands only
    // internal entities, with its own limits, and the node count is capped here.
    let opt = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: 4_000_000,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, opt)
        .context("it is not well-formed XML")
        .with_context(not_hwloc)?;
    let parsed = parse::parse(&doc).with_context(not_hwloc)?;
    drop(doc);
    assemble(&parsed, root).with_context(|| format!("--sysfs-root {shown}"))
}

/// The whole model from the parsed file. `root` (without files) gives the environment
/// reader and the kind inference nothing, so what the XML lacks stays unknown.
fn assemble(p: &parse::Parsed, root: &SysRoot) -> anyhow::Result<Topology> {
    let mut warnings = vec![
        "an hwloc XML holds no free memory figures: each node's free and available memory is unknown (shown as 0)".to_string(),
    ];
    let (present, _) = build::cpu_sets(p);
    let allowed: BTreeSet<u32> = match &p.allowed_cpus {
        Some(a) => a.iter().copied().filter(|c| present.contains(c)).collect(),
        None => present.iter().copied().collect(),
    };
    let (nodes, cpus) = build::nodes_and_cpus(p, &allowed);
    let caches = build::caches(p);
    let distances = build::distances(p, &nodes, &mut warnings);
    let hmat = memory::hmat(p, &nodes);
    let memory_side_caches = memory::memory_side_caches(p);
    let allowed_nodes = match &p.allowed_nodes {
        Some(a) => nodes
            .iter()
            .map(|n| n.id)
            .filter(|n| a.contains(n))
            .collect(),
        None => nodes.iter().map(|n| n.id).collect(),
    };
    let mut environment = crate::environment::read_environment_warn(root, &cpus, &mut warnings)?;
    environment.cpu_model = p.cpu_model.clone();
    environment.kernel_release = p.os_release.clone();
    if let Some(a) = &p.arch {
        environment.arch = a.clone();
    }
    environment.smt_active = Some(cpus.iter().any(|c| c.siblings.len() > 1));
    let mut node_memory =
        crate::topology::kinds::read_node_memory(root, &nodes, &hmat, &mut warnings)?;
    memory::declare_kinds(p, &mut node_memory);
    let model = environment.cpu_model.as_deref();
    let layout =
        crate::topology::domains::layout(&nodes, &cpus, &caches, &distances, model, node_memory);
    Ok(Topology {
        schema_version: TOPOLOGY_SCHEMA_VERSION,
        live: false,
        source: root.root().display().to_string(),
        nodes,
        distances,
        allowed_cpus: allowed.into_iter().collect(),
        cpus,
        caches,
        hmat,
        memory_side_caches,
        allowed_nodes,
        environment,
        warnings,
        layout,
    })
}

#[cfg(test)]
mod tests;
