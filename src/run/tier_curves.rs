//! The loaded-latency curve on each kind of memory the machine has beside the home node's
//! (a CXL expander, HBM in flat mode, persistent memory, GPU memory): the run's curve repeated
//! with both buffers on the first memory node of that kind, the chaser and the load threads
//! where the run's curve had them, so the curves differ only in the memory they load.
//! One curve per kind, after the run's own; a curve that fails leaves a warning and the
//! others still run.

use crate::loaded::engine::run_curve;
use crate::loaded::sizes::default_sizes;
use crate::loaded::LoadedConfig;
use crate::results::tiers::KindCurve;
use crate::results::topology::MemoryKind;
use crate::results::topology::Topology;
use crate::results::RunResults;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

/// One memory node for each kind of memory other than `home`'s, the first of that kind in
/// node order, where a kind is the memory's kind and the kernel's tier (a memory-only DRAM
/// node in a lower tier, as a CXL expander without CDAT shows, is another kind); a node of
/// unknown kind in `home`'s tier is left out (nothing tells it apart).
pub fn other_kinds(topo: &Topology, home: u32) -> Vec<(MemoryKind, u32)> {
    let class = |n: u32| {
        topo.layout
            .node_memory
            .iter()
            .find(|m| m.node == n)
            .map(|m| (m.kind, m.tier))
    };
    let home_class = class(home);
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for n in topo.memory_nodes() {
        let Some(c) = class(n) else { continue };
        let other_tier = c.1.is_some() && c.1 != home_class.and_then(|h| h.1);
        let other_kind = Some(c.0) != home_class.map(|h| h.0) && c.0 != MemoryKind::Unknown;
        if (other_kind || other_tier) && !seen.contains(&c) {
            seen.push(c);
            out.push((c.0, n));
        }
    }
    out
}

/// Measures the curve of every other kind with `base`'s chaser, load and points, into
/// `r.loaded_latency_kinds`; a failure becomes a warning naming the node.
pub fn measure(topo: &Topology, root: &SysRoot, base: &LoadedConfig, r: &mut RunResults) {
    for (kind, node) in other_kinds(topo, base.mem_node) {
        if interrupted() {
            break;
        }
        // Sized for the kind's node (a CXL or HBM node is often far smaller than the home
        // node the run's curve was sized for), never larger than the run's curve.
        let (chaser, per_thread) = default_sizes(topo, node, node, base.load_cpus.len(), base.page);
        let cfg = LoadedConfig {
            mem_node: node,
            load_mem_node: node,
            chaser_bytes: base.chaser_bytes.min(chaser),
            load_bytes_per_thread: base.load_bytes_per_thread.min(per_thread),
            lent: None,
            ..base.clone()
        };
        match run_curve(topo, root, &cfg) {
            Ok(curve) => r.loaded_latency_kinds.push(KindCurve { kind, node, curve }),
            Err(e) => r.warnings.push(format!(
                "loaded latency on {} node {node} not measured: {e:#}",
                kind.word()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Topology {
        let p = format!(
            "{}/tests/fixtures/topology/{name}.expected.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    }

    #[test]
    fn one_node_per_other_kind() {
        let t = fixture("tiering-cxl-damon");
        let kinds: Vec<(MemoryKind, u32)> = t
            .layout
            .node_memory
            .iter()
            .map(|m| (m.kind, m.node))
            .collect();
        assert!(kinds.contains(&(MemoryKind::Cxl, 2)), "{kinds:?}");
        assert_eq!(other_kinds(&t, 0), vec![(MemoryKind::Cxl, 2)]);
        let h = fixture("hbm-flat-tiers");
        let o = other_kinds(&h, 0);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].0, MemoryKind::Hbm);
        // One kind of memory: no other curve.
        assert!(other_kinds(&fixture("opteron250-2s"), 0).is_empty());
    }
}
