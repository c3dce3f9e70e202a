//! The matrix in words: each measured pair is classified by what its two CPUs share in the
//! topology (the smallest cache level they share, else the same node and package, ...), and
//! pairs of one class form a group summarized by the median of their per-pair medians. The
//! groups put the measurement beside the cache topology `topo` reports, e.g. "CPUs sharing an
//! L3: 18 ns; no shared cache, same package: 70 ns; across packages: 130 ns". Pure functions.

use crate::results::c2c::{Group, Relation};
use crate::results::topology::Topology;
use crate::stats::Summary;

/// Classifies the pair `(a, b)` by `topo`.
pub fn relation(topo: &Topology, a: u32, b: u32) -> Relation {
    let (ca, cb) = (topo.cpu(a), topo.cpu(b));
    if let (Some(x), Some(y)) = (ca, cb) {
        if x.siblings.contains(&b) || y.siblings.contains(&a) {
            return Relation::SameCore;
        }
    }
    let shared = topo
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction" && c.cpus.contains(&a) && c.cpus.contains(&b))
        .map(|c| c.level)
        .min();
    if let Some(level) = shared {
        return Relation::SharedCache { level };
    }
    let node = |c: Option<&crate::results::topology::Cpu>| c.and_then(|c| c.node);
    let pkg = |c: Option<&crate::results::topology::Cpu>| c.and_then(|c| c.package);
    let same_node = node(ca).is_some() && node(ca) == node(cb);
    let same_pkg = match (pkg(ca), pkg(cb)) {
        (Some(x), Some(y)) => Some(x == y),
        _ => None,
    };
    match (same_node, same_pkg) {
        (true, Some(true)) | (true, None) => Relation::SameNode,
        (false, Some(true)) => Relation::SamePackageOtherNode,
        (true, Some(false)) => Relation::SameNodeOtherPackage,
        (false, _) => Relation::Remote,
    }
}

/// Groups `(from, to, median ns)` triples by relation, closest first; relations without
/// pairs are absent.
pub fn group(topo: &Topology, pair_medians: &[(u32, u32, f64)]) -> Vec<Group> {
    let mut keyed: Vec<(Relation, f64)> = pair_medians
        .iter()
        .filter(|(_, _, ns)| ns.is_finite())
        .map(|&(a, b, ns)| (relation(topo, a, b), ns))
        .collect();
    keyed.sort_by_key(|k| k.0);
    let mut out: Vec<Group> = Vec::new();
    let mut i = 0;
    while i < keyed.len() {
        let r = keyed[i].0;
        let vals: Vec<f64> = keyed[i..]
            .iter()
            .take_while(|(k, _)| *k == r)
            .map(|(_, v)| *v)
            .collect();
        i += vals.len();
        out.push(Group {
            relation: r,
            label: crate::render::words::labels::relation(&r),
            pairs: vals.len(),
            ns_one_way: Summary::of(&vals).expect("finite, non-empty"),
        });
    }
    out
}

/// "CPUs sharing an L3: 18 ns; across packages: 130 ns" (medians, rounded).
pub fn sentence(groups: &[Group]) -> String {
    groups
        .iter()
        .map(|g| format!("{}: {:.0} ns", g.label, g.ns_one_way.median))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::c2c::*;
    use crate::results::environment::Environment;

    use crate::results::topology::*;

    /// Two packages, one node each; each package has two cores with two SMT threads; L2 per
    /// core, L3 per package. CPU ids: package p, core c, thread t -> 4p + 2c + t.
    fn two_socket() -> Topology {
        let mut cpus = Vec::new();
        let mut caches = Vec::new();
        for p in 0..2u32 {
            for c in 0..2u32 {
                let sib = vec![4 * p + 2 * c, 4 * p + 2 * c + 1];
                for t in 0..2u32 {
                    cpus.push(Cpu {
                        id: 4 * p + 2 * c + t,
                        node: Some(p),
                        package: Some(p),
                        core: Some(c),
                        siblings: sib.clone(),
                        online: true,
                        allowed: true,
                    });
                }
                caches.push(cache(2, sib.clone()));
                caches.push(cache(1, sib));
            }
            caches.push(cache(3, (4 * p..4 * p + 4).collect()));
        }
        topo(cpus, caches, 2)
    }

    fn cache(level: u32, cpus: Vec<u32>) -> Cache {
        Cache {
            level,
            kind: if level == 1 { "Data" } else { "Unified" }.into(),
            size_bytes: 1 << (15 + 3 * level),
            line_bytes: Some(64),
            ways: None,
            cpus,
        }
    }

    fn topo(cpus: Vec<Cpu>, caches: Vec<Cache>, nodes: u32) -> Topology {
        Topology {
            schema_version: TOPOLOGY_SCHEMA_VERSION,
            live: false,
            source: "synthetic".into(),
            warnings: vec![],
            nodes: (0..nodes)
                .map(|n| {
                    let on_n = cpus.iter().filter(|c| c.node == Some(n));
                    crate::testutil::node(n, on_n.map(|c| c.id).collect())
                })
                .collect(),
            distances: vec![],
            allowed_cpus: cpus.iter().map(|c| c.id).collect(),
            allowed_nodes: (0..nodes).collect(),
            cpus,
            caches,
            hmat: vec![],
            memory_side_caches: vec![],
            environment: Environment::default(),
            layout: Default::default(),
        }
    }

    #[test]
    fn relations_on_a_two_socket_smt_machine() {
        let t = two_socket();
        assert_eq!(relation(&t, 0, 1), Relation::SameCore);
        assert_eq!(relation(&t, 0, 2), Relation::SharedCache { level: 3 });
        assert_eq!(relation(&t, 0, 5), Relation::Remote);
        assert_eq!(relation(&t, 7, 6), Relation::SameCore);
    }

    #[test]
    fn relations_without_shared_caches_use_node_and_package() {
        // One package, two nodes (sub-NUMA clustering), one L3 per node, no SMT.
        let cpus: Vec<Cpu> = (0..4)
            .map(|id| Cpu {
                id,
                node: Some(id / 2),
                package: Some(0),
                core: Some(id),
                siblings: vec![id],
                online: true,
                allowed: true,
            })
            .collect();
        let t = topo(cpus, vec![cache(3, vec![0, 1]), cache(3, vec![2, 3])], 2);
        assert_eq!(relation(&t, 0, 1), Relation::SharedCache { level: 3 });
        assert_eq!(relation(&t, 1, 2), Relation::SamePackageOtherNode);
        // No caches known at all, one node: same node.
        let cpus: Vec<Cpu> = (0..2)
            .map(|id| Cpu {
                id,
                node: Some(0),
                package: Some(id),
                core: Some(0),
                siblings: vec![id],
                online: true,
                allowed: true,
            })
            .collect();
        let t = topo(cpus, vec![], 1);
        assert_eq!(relation(&t, 0, 1), Relation::SameNodeOtherPackage);
    }

    #[test]
    fn groups_summarize_the_matrix_closest_first() {
        let t = two_socket();
        // Synthetic matrix: 10 ns siblings, 20 ns same L3, 100 ns across packages.
        let mut m = Vec::new();
        for a in 0..8u32 {
            for b in 0..8u32 {
                if a == b {
                    continue;
                }
                let ns = match relation(&t, a, b) {
                    Relation::SameCore => 10.0,
                    Relation::SharedCache { .. } => 20.0 + a as f64 * 0.1,
                    _ => 100.0,
                };
                m.push((a, b, ns));
            }
        }
        m.push((0, 4, f64::NAN)); // an unmeasured pair is left out
        let g = group(&t, &m);
        let rel: Vec<Relation> = g.iter().map(|g| g.relation).collect();
        assert_eq!(
            rel,
            vec![
                Relation::SameCore,
                Relation::SharedCache { level: 3 },
                Relation::Remote
            ]
        );
        assert_eq!(g[0].pairs, 8);
        assert_eq!(g[1].pairs, 16);
        assert_eq!(g[2].pairs, 32);
        assert_eq!(g[0].ns_one_way.median, 10.0);
        assert!((g[1].ns_one_way.median - 20.35).abs() < 1e-9);
        assert_eq!(
            sentence(&g),
            "SMT siblings (same core): 10 ns; CPUs sharing an L3: 20 ns; across packages: 100 ns"
        );
        assert!(group(&t, &[]).is_empty());
    }
}
