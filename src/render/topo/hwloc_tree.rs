//! The object tree of an hwloc export: packages, caches, cores and PUs nested by CPU-set
//! inclusion, with each NUMA node attached as a memory child of the smallest object that has
//! exactly its CPUs (or of a Group made for it, or of the Machine for memory-only nodes).
//!
//! hwloc's own rule is the same: an object's parent is the smallest object whose cpuset
//! contains it, and objects with identical cpusets are ordered by type (Package above Group
//! above the caches, from the last level down, above Core above PU). Building the tree from
//! the run's topology record (not from the machine doing the export) keeps the export
//! reproducible from `results.json` alone. hwloc tools such as `hwloc-calc core:1` and
//! `lstopo --input` then see the same cores and caches as lstopo on the measured machine.

use std::collections::BTreeMap;

use crate::results::topology::{Cache, Topology};

/// The kinds of object the export writes, in hwloc's order for equal cpusets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Package,
    Group,
    /// A cache: (level, 0 unified / 1 data / 2 instruction). Higher levels sort first.
    Cache(std::cmp::Reverse<u32>, u32),
    Core,
    Pu,
}

/// One object of the tree.
#[derive(Clone, Debug)]
pub struct Obj {
    pub kind: Kind,
    pub os_index: Option<u32>,
    /// Online CPUs, sorted.
    pub cpus: Vec<u32>,
    /// For caches: size, line, ways.
    pub cache: Option<(u64, Option<u64>, Option<u32>)>,
    /// NUMA nodes attached here as memory children.
    pub numa: Vec<u32>,
    pub children: Vec<usize>,
}

impl Obj {
    fn new(kind: Kind, os_index: Option<u32>, mut cpus: Vec<u32>) -> Obj {
        cpus.sort_unstable();
        cpus.dedup();
        Obj {
            kind,
            os_index,
            cpus,
            cache: None,
            numa: Vec::new(),
            children: Vec::new(),
        }
    }

    /// hwloc's type name.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Package => "Package",
            Kind::Group => "Group",
            Kind::Cache(_, 2) => "L1iCache",
            Kind::Cache(std::cmp::Reverse(l @ 1..=4), _) => {
                ["L1Cache", "L2Cache", "L3Cache", "L4Cache"][l as usize - 1]
            }
            Kind::Cache(..) => "L5Cache",
            Kind::Core => "Core",
            Kind::Pu => "PU",
        }
    }
}

/// The tree: `objs[0]` is the Machine (kind unused), children by index.
#[derive(Debug)]
pub struct Tree {
    pub objs: Vec<Obj>,
    /// Memory-only nodes with no locality at all (no CPUs, no HMAT initiators): hwloc puts
    /// each in a memory Group with an empty cpuset.
    pub cpuless: Vec<u32>,
}

fn contains(outer: &[u32], inner: &[u32]) -> bool {
    inner.iter().all(|c| outer.binary_search(c).is_ok())
}

fn cache_kind(c: &Cache) -> u32 {
    match c.kind.to_ascii_lowercase().as_str() {
        "data" => 1,
        "instruction" => 2,
        _ => 0,
    }
}

/// Builds the tree over the online CPUs of `t`.
pub fn build(t: &Topology, online: &[u32]) -> Tree {
    let mut flat = cpu_objects(t, online);
    let cpu_nodes = node_cpus(t, online);
    for (_, cpus) in &cpu_nodes {
        if !flat.iter().any(|o| &o.cpus == cpus) && cpus.len() < online.len() {
            flat.push(Obj::new(Kind::Group, None, cpus.clone()));
        }
    }
    let mut objs = nest(flat, online);
    let cpuless = attach_memory(t, &cpu_nodes, online, &mut objs);
    Tree { objs, cpuless }
}

/// `v` less the CPUs that are not online.
fn online_only(v: &[u32], online: &[u32]) -> Vec<u32> {
    v.iter().copied().filter(|c| online.contains(c)).collect()
}

/// Packages, cores and PUs from the CPU records, and one object per distinct cache.
fn cpu_objects(t: &Topology, online: &[u32]) -> Vec<Obj> {
    let on = |v: &[u32]| online_only(v, online);
    let mut flat: Vec<Obj> = Vec::new();
    // Packages, cores and PUs from the CPU records.
    let mut packages: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut cores: BTreeMap<(Option<u32>, u32), Vec<u32>> = BTreeMap::new();
    for c in &t.cpus {
        if let Some(p) = c.package {
            packages.entry(p).or_default().push(c.id);
        }
        if let Some(core) = c.core {
            cores.entry((c.package, core)).or_default().push(c.id);
        }
    }
    for (p, cpus) in packages {
        flat.push(Obj::new(Kind::Package, Some(p), on(&cpus)));
    }
    for ((_, core), cpus) in cores {
        flat.push(Obj::new(Kind::Core, Some(core), on(&cpus)));
    }
    for c in online {
        flat.push(Obj::new(Kind::Pu, Some(*c), vec![*c]));
    }
    // Caches: one object per distinct (level, kind, CPU set).
    for c in &t.caches {
        let mut o = Obj::new(
            Kind::Cache(std::cmp::Reverse(c.level), cache_kind(c)),
            None,
            on(&c.cpus),
        );
        o.cache = Some((c.size_bytes, c.line_bytes, c.ways));
        if !flat.iter().any(|f| f.kind == o.kind && f.cpus == o.cpus) {
            flat.push(o);
        }
    }
    flat.retain(|o| !o.cpus.is_empty());
    flat
}

/// Each NUMA node with the CPUs it is local to.
fn node_cpus(t: &Topology, online: &[u32]) -> Vec<(u32, Vec<u32>)> {
    let on = |v: &[u32]| online_only(v, online);
    // NUMA nodes with CPUs need an object with exactly their CPUs; make a Group if none has.
    // Each node's locality: its own online CPUs (hwloc keeps a node with CPUs but no memory
    // as a NUMANode of size 0; so does the export), else, for a memory-only node, the CPUs
    // of the initiator nodes the firmware's HMAT names for it (access class 1, else 0), as
    // hwloc's Linux backend reads them; else none.
    let hmat_initiators = |id: u32| -> Vec<u32> {
        let class = |k: u32| -> Vec<u32> {
            let h = t
                .hmat
                .iter()
                .filter(|h| h.node == id && h.access_class == k);
            h.flat_map(|h| h.initiators.clone()).collect()
        };
        let i = class(1);
        let nodes = if i.is_empty() { class(0) } else { i };
        let nodes = t.nodes.iter().filter(|n| nodes.contains(&n.id));
        nodes.flat_map(|n| on(&n.cpus)).collect()
    };
    let local = t.nodes.iter().map(|n| {
        let own = on(&n.cpus);
        let mut c = if own.is_empty() {
            hmat_initiators(n.id)
        } else {
            own
        };
        c.sort_unstable();
        c.dedup();
        (n.id, c)
    });
    local.filter(|(_, c)| !c.is_empty()).collect()
}

/// The objects as a tree under the machine: largest first, each under the smallest container.
fn nest(mut flat: Vec<Obj>, online: &[u32]) -> Vec<Obj> {
    // Largest first, then hwloc's type order; each object goes under the smallest container.
    flat.sort_by(|a, b| {
        b.cpus
            .len()
            .cmp(&a.cpus.len())
            .then(a.kind.cmp(&b.kind))
            .then(a.cpus.cmp(&b.cpus))
    });
    let mut objs = vec![Obj::new(Kind::Group, None, online.to_vec())];
    for o in flat {
        let mut parent = 0;
        'down: loop {
            for &ch in &objs[parent].children {
                if contains(&objs[ch].cpus, &o.cpus) {
                    parent = ch;
                    continue 'down;
                }
            }
            break;
        }
        objs.push(o);
        let id = objs.len() - 1;
        objs[parent].children.push(id);
    }
    objs
}

/// Hangs each node's memory under the highest object with exactly its CPUs; returns the
/// nodes without CPUs (shown at the top).
fn attach_memory(
    t: &Topology,
    cpu_nodes: &[(u32, Vec<u32>)],
    online: &[u32],
    objs: &mut [Obj],
) -> Vec<u32> {
    // Memory children: the highest object with exactly the node's CPUs; memory-only nodes
    // (and everything when the machine is one node) at the top.
    // A kernel without NUMA support has no node directory: hwloc then makes one node 0 of
    // all the machine's memory and CPUs, and so does the export.
    let cpus_of = |id: u32| {
        cpu_nodes
            .iter()
            .find(|(n, _)| *n == id)
            .map(|(_, c)| c.clone())
    };
    let mut mem: Vec<(u32, Vec<u32>)> = (t.nodes.iter())
        .filter(|n| n.has_memory || !n.cpus.is_empty())
        .map(|n| (n.id, cpus_of(n.id).unwrap_or_default()))
        .collect();
    if mem.is_empty() {
        mem.push((0, online.to_vec()));
    }
    let mut cpuless = Vec::new();
    for (id, cpus) in mem {
        if cpus.is_empty() {
            cpuless.push(id);
            continue;
        }
        let at = (1..objs.len()).find(|&i| objs[i].cpus == cpus).unwrap_or(0);
        objs[at].numa.push(id);
    }
    cpuless
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;

    /// Two single-CPU nodes of the Opteron example: each Package holds its node.
    #[test]
    fn nodes_attach_to_the_object_with_their_cpus() {
        let r = opteron_example();
        let online: Vec<u32> = r.topology.cpus.iter().map(|c| c.id).collect();
        let t = build(&r.topology, &online);
        let machine = &t.objs[0];
        assert!(machine.numa.is_empty() && t.cpuless.is_empty());
        for &ch in &machine.children {
            let o = &t.objs[ch];
            assert_eq!(o.cpus.len(), 1);
            assert_eq!(o.numa.len(), 1, "{:?}", o);
        }
        let pus = t.objs.iter().filter(|o| o.kind == Kind::Pu).count();
        assert_eq!(pus, online.len());
    }

    /// The four-socket Xeon X7560 with SMT (a topology fixture): one L3 per package, and
    /// each L1i under its core's L1d, as hwloc nests them.
    #[test]
    fn caches_nest_by_level_and_l1i_sits_under_l1d() {
        let topo = crate::testutil::topology_fixture("xeon-x7560-4s-smt");
        let online: Vec<u32> = topo.cpus.iter().map(|c| c.id).collect();
        let t = build(&topo, &online);
        let count = |name: &str| t.objs.iter().filter(|o| o.type_name() == name).count();
        assert_eq!((count("Package"), count("L3Cache")), (4, 4));
        for (i, o) in t.objs.iter().enumerate() {
            if o.type_name() == "L1iCache" {
                let parent = t.objs.iter().find(|o| o.children.contains(&i)).unwrap();
                assert_eq!(parent.type_name(), "L1Cache");
            }
        }
        assert_eq!(count("L1iCache"), count("Core"));
    }
}
