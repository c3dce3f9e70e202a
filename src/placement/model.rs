//! Where a policy puts a thread's pages on this machine's shape, without touching the
//! machine: the model the run's scenarios and `app`'s candidates use to find placements this
//! machine cannot tell apart (one memory node, one CPU per node), so they are measured once
//! and the others say why.

use crate::results::topology::Topology;

use super::Policy;

/// Where a thread's pages land: (node, share) reduced by their gcd; `None` when it depends
/// on something this model does not know (first touch on a node without memory among several
/// memory nodes, a multi-node bind).
pub fn pages(
    topo: &Topology,
    mem: &[u32],
    policy: &Policy,
    cpu: Option<u32>,
) -> Option<Vec<(u32, u32)>> {
    let mut v: Vec<(u32, u32)> = match policy {
        Policy::Bind(ns) if ns.len() == 1 => vec![(ns[0], 1)],
        Policy::Interleave(ns) => ns.iter().map(|&n| (n, 1)).collect(),
        Policy::WeightedInterleave(ws) => ws.iter().map(|&(n, w)| (n, u32::from(w))).collect(),
        // With one memory node, "that node first" is "that node".
        Policy::Preferred(n) if mem == [*n] => vec![(*n, 1)],
        Policy::FirstTouch => {
            let local = cpu
                .and_then(|c| topo.node_of_cpu(c))
                .filter(|n| mem.contains(n));
            match (local, mem) {
                (Some(n), _) => vec![(n, 1)],
                (None, [only]) => vec![(*only, 1)],
                _ => return None,
            }
        }
        _ => return None,
    };
    // Only memory nodes can hold pages; one memory node holds them all.
    if let [only] = mem {
        if v.iter().all(|(n, _)| n == only) {
            return Some(vec![(*only, 1)]);
        }
    }
    v.sort();
    v.dedup_by_key(|x| x.0);
    let g = v.iter().fold(0, |a, &(_, w)| gcd(a, w)).max(1);
    Some(v.into_iter().map(|(n, w)| (n, w / g)).collect())
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Why configurations place identically here, from the machine's shape; `one_thread` for rows
/// of one thread, where a thread bound to its node and one left free can also be the same.
pub fn same_reason(topo: &Topology, one_thread: bool) -> String {
    let mem = topo.memory_nodes();
    let usable = topo.usable_cpus();
    let mut facts = Vec::new();
    if mem.len() == 1 {
        facts.push(format!(
            "one memory node (node {}), so every policy puts every page on it",
            mem[0]
        ));
    }
    let cpu_nodes: Vec<u32> = topo
        .initiator_nodes()
        .into_iter()
        .filter(|n| !topo.usable_cpus_of(*n).is_empty())
        .collect();
    if usable.len() == 1 {
        facts.push("one usable CPU, so the scheduler has nowhere else to run the thread".into());
    } else if let ([only], true) = (cpu_nodes.as_slice(), one_thread) {
        facts.push(format!(
            "every usable CPU is on node {only}, so binding a thread to its node leaves the scheduler the same CPUs"
        ));
    } else if topo
        .initiator_nodes()
        .iter()
        .all(|n| topo.usable_cpus_of(*n).len() <= 1)
    {
        facts.push("one CPU per node, so all threads are one thread per node".into());
    }
    if facts.is_empty() {
        facts.push("the same CPUs with pages on the same nodes".into());
    }
    format!("same placement here: {}", facts.join("; "))
}
