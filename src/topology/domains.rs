//! How a socket is divided: nodes per package (AMD's NPS0/1/2/4, Intel's SNC2/3/4, or one
//! node per socket), inferred from the packages, the nodes and their distances, and the L3
//! domains (the CPUs sharing one L3: a CCX or CCD on AMD) with where they cross node lines.
//! Per-domain measurements are planned from these. Nothing here reads a file: it is derived
//! from what the other readers found, and every inference carries its evidence.

use std::collections::{BTreeMap, BTreeSet};

use crate::results::format::format_list;
use crate::results::topology::{
    Cache, Cpu, Known, L3Domain, Layout, Node, NodeMemory, NodesPerPackage,
};

/// The machine's layout, as both topology readers (the live one and the hwloc XML one) derive
/// it: `node_memory` as read, the nodes per package and the L3 domains from the rest.
pub fn layout(
    nodes: &[Node],
    cpus: &[Cpu],
    caches: &[Cache],
    distances: &[Vec<u32>],
    cpu_model: Option<&str>,
    node_memory: Vec<NodeMemory>,
) -> Layout {
    let (l3_domains, l3_notes) = l3_domains(caches, cpus);
    Layout {
        node_memory,
        nodes_per_package: nodes_per_package(nodes, cpus, distances, cpu_model),
        l3_domains,
        l3_notes,
    }
}

/// Nodes per package from the online CPUs' packages and nodes; `None` when the packages or
/// nodes of the CPUs are not known.
pub fn nodes_per_package(
    nodes: &[Node],
    cpus: &[Cpu],
    distances: &[Vec<u32>],
    cpu_model: Option<&str>,
) -> Option<NodesPerPackage> {
    let (per_package, per_node) = package_node_maps(cpus)?;
    let packages = per_package.len() as u32;
    let cpu_nodes = per_node.len();
    let model = cpu_model.unwrap_or("");
    let epyc = model.contains("EPYC");
    let xeon = model.contains("Xeon");
    let base = format!("{packages} package(s), {cpu_nodes} node(s) with CPUs");
    if per_node.values().any(|p| p.len() > 1) {
        return Some(nodes_spanning_packages(&per_node, packages, epyc, &base));
    }
    let counts: BTreeSet<usize> = per_package.values().map(|n| n.len()).collect();
    if counts.len() != 1 {
        let counts: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        return Some(NodesPerPackage {
            mode: "uneven".into(),
            nodes_per_package: 0,
            packages,
            known: Known::Inferred,
            evidence: format!(
                "{base}: packages hold different numbers of nodes ({})",
                counts.join(" or ")
            ),
        });
    }
    let k = *counts.iter().next()? as u32;
    let (inside, across) = inside_and_across_distances(nodes, distances, &per_node);
    let show = |s: &BTreeSet<u32>| {
        s.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut evidence = format!("{base}: each package's CPUs are in {k} node(s)");
    if !inside.is_empty() {
        evidence.push_str(&format!(
            "; distance {} between nodes of one package",
            show(&inside)
        ));
    }
    if !across.is_empty() {
        evidence.push_str(&format!("; {} between packages", show(&across)));
    }
    if k > 1 && distances.is_empty() {
        evidence.push_str("; no distances to confirm it");
    }
    let mode = match k {
        1 => "one node per package".to_string(),
        2 | 4 if epyc => format!("NPS{k}"),
        2..=4 if xeon => {
            evidence.push_str(" (Intel: sub-NUMA clustering, or several dies per package)");
            format!("SNC{k}")
        }
        _ => format!("{k} nodes per package"),
    };
    Some(NodesPerPackage {
        mode,
        nodes_per_package: k,
        packages,
        known: Known::Inferred,
        evidence,
    })
}

/// The nodes of each package and the packages of each node, over the online CPUs; `None`
/// when no CPU is online or one lacks its package or node.
fn package_node_maps(cpus: &[Cpu]) -> Option<(NodeSets, NodeSets)> {
    let online: Vec<&Cpu> = cpus.iter().filter(|c| c.online).collect();
    if online.is_empty()
        || online
            .iter()
            .any(|c| c.package.is_none() || c.node.is_none())
    {
        return None;
    }
    let mut per_package: NodeSets = BTreeMap::new();
    let mut per_node: NodeSets = BTreeMap::new();
    for c in &online {
        let (p, n) = (c.package?, c.node?);
        per_package.entry(p).or_default().insert(n);
        per_node.entry(n).or_default().insert(p);
    }
    Some((per_package, per_node))
}

/// An id mapped to the set of ids it holds (a package's nodes, or a node's packages).
type NodeSets = BTreeMap<u32, BTreeSet<u32>>;

/// The answer when some node holds CPUs of more than one package (NPS0 and the like).
fn nodes_spanning_packages(
    per_node: &NodeSets,
    packages: u32,
    epyc: bool,
    base: &str,
) -> NodesPerPackage {
    let spans_all = per_node.len() == 1 && packages > 1;
    let (mode, why) = if spans_all {
        (
            if epyc {
                "NPS0"
            } else {
                "one node for all packages"
            }
            .to_string(),
            "one node holds the CPUs of every package (memory interleaved across sockets)",
        )
    } else {
        (
            "nodes span packages".to_string(),
            "some node holds CPUs of more than one package",
        )
    };
    NodesPerPackage {
        mode,
        nodes_per_package: 0,
        packages,
        known: Known::Inferred,
        evidence: format!("{base}: {why}"),
    }
}

/// Distances between nodes of one package and between packages: sub-NUMA clustering
/// shows as nearer nodes inside a package.
fn inside_and_across_distances(
    nodes: &[Node],
    distances: &[Vec<u32>],
    per_node: &NodeSets,
) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let dist = |a: u32, b: u32| {
        let i = nodes.iter().position(|n| n.id == a)?;
        let j = nodes.iter().position(|n| n.id == b)?;
        distances.get(i)?.get(j).copied()
    };
    let mut inside = BTreeSet::new();
    let mut across = BTreeSet::new();
    for (a, pa) in per_node {
        for (b, pb) in per_node {
            if a < b {
                if let Some(d) = dist(*a, *b) {
                    if pa == pb {
                        inside.insert(d);
                    } else {
                        across.insert(d);
                    }
                }
            }
        }
    }
    (inside, across)
}

/// The L3 instances (data or unified) with the nodes of their CPUs, and sentences for an L3
/// spanning nodes and for a node holding several L3s.
pub fn l3_domains(caches: &[Cache], cpus: &[Cpu]) -> (Vec<L3Domain>, Vec<String>) {
    let node_of = |c: u32| cpus.iter().find(|x| x.id == c).and_then(|x| x.node);
    let mut out: Vec<L3Domain> = caches
        .iter()
        .filter(|c| c.level == 3 && c.kind != "Instruction")
        .map(|c| {
            let mut nodes: Vec<u32> = c.cpus.iter().filter_map(|&x| node_of(x)).collect();
            nodes.sort_unstable();
            nodes.dedup();
            L3Domain {
                nodes,
                cpus: c.cpus.clone(),
                size_bytes: c.size_bytes,
            }
        })
        .collect();
    out.sort_by_key(|d| d.cpus.first().copied());
    let mut notes = Vec::new();
    for d in out.iter().filter(|d| d.nodes.len() > 1) {
        notes.push(format!(
            "the L3 of CPUs {} spans nodes {}",
            format_list(&d.cpus),
            format_list(&d.nodes)
        ));
    }
    let mut per_node: BTreeMap<u32, Vec<&L3Domain>> = BTreeMap::new();
    for d in &out {
        for n in &d.nodes {
            per_node.entry(*n).or_default().push(d);
        }
    }
    for (n, ds) in per_node.iter().filter(|(_, ds)| ds.len() > 1) {
        let groups: Vec<String> = ds
            .iter()
            .map(|d| format!("({})", format_list(&d.cpus)))
            .collect();
        notes.push(format!(
            "node {n} has {} L3 domains: CPUs {}",
            ds.len(),
            groups.join(" ")
        ));
    }
    (out, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::cpu;

    fn machine(packages: u32, nodes_per: u32, cpus_per_node: u32) -> (Vec<Node>, Vec<Cpu>) {
        let mut nodes = Vec::new();
        let mut cpus = Vec::new();
        for n in 0..packages * nodes_per {
            let ids: Vec<u32> = (0..cpus_per_node).map(|k| n * cpus_per_node + k).collect();
            for &id in &ids {
                let mut c = cpu(id);
                c.node = Some(n);
                c.package = Some(n / nodes_per);
                cpus.push(c);
            }
            nodes.push(Node {
                id: n,
                cpus: ids,
                memory_total_bytes: 1 << 30,
                memory_free_bytes: 0,
                memory_available_bytes: 0,
                has_cpu: true,
                has_memory: true,
                hugepages: vec![],
            });
        }
        (nodes, cpus)
    }

    #[test]
    fn nps_snc_and_one_per_socket() {
        let (n, c) = machine(2, 4, 2);
        let d: Vec<Vec<u32>> = (0..8)
            .map(|i: u32| {
                (0..8)
                    .map(|j: u32| match (i == j, i / 4 == j / 4) {
                        (true, _) => 10,
                        (false, true) => 12,
                        _ => 32,
                    })
                    .collect()
            })
            .collect();
        let e = nodes_per_package(&n, &c, &d, Some("AMD EPYC 7713 64-Core Processor")).unwrap();
        assert_eq!((e.mode.as_str(), e.nodes_per_package), ("NPS4", 4));
        assert!(
            e.evidence
                .contains("distance 12 between nodes of one package; 32 between packages"),
            "{}",
            e.evidence
        );
        let e = nodes_per_package(&n, &c, &d, Some("Intel(R) Xeon(R) Gold")).unwrap();
        assert_eq!(e.mode, "SNC4");
        let (n, c) = machine(2, 1, 2);
        let e = nodes_per_package(&n, &c, &[], None).unwrap();
        assert_eq!(e.mode, "one node per package");
        // NPS0: one node holding both packages.
        let (n, mut c) = machine(1, 1, 4);
        c[2].package = Some(1);
        c[3].package = Some(1);
        let e = nodes_per_package(&n, &c, &[], Some("AMD EPYC 9654")).unwrap();
        assert_eq!((e.mode.as_str(), e.nodes_per_package), ("NPS0", 0));
        c[3].package = None;
        assert_eq!(nodes_per_package(&n, &c, &[], None), None);
    }

    #[test]
    fn l3_spanning_nodes_and_nodes_with_several_l3s() {
        let (_, c) = machine(1, 2, 4);
        let l3 = |cpus: Vec<u32>| Cache {
            level: 3,
            kind: "Unified".into(),
            size_bytes: 32 << 20,
            line_bytes: Some(64),
            ways: None,
            cpus,
        };
        let (d, notes) = l3_domains(&[l3(vec![0, 1]), l3(vec![2, 3]), l3(vec![4, 5, 6, 7])], &c);
        assert_eq!(d.len(), 3);
        assert_eq!(d[2].nodes, vec![1]);
        assert_eq!(
            notes,
            vec!["node 0 has 2 L3 domains: CPUs (0-1) (2-3)".to_string()]
        );
        let (d, notes) = l3_domains(&[l3((0..8).collect())], &c);
        assert_eq!(d[0].nodes, vec![0, 1]);
        assert_eq!(
            notes,
            vec!["the L3 of CPUs 0-7 spans nodes 0-1".to_string()]
        );
    }
}
