//! Turning the user's choices into a validated run: which CPUs the threads go to (an explicit
//! list, or N threads from a node list, packed or spread), where each stream's memory goes
//! (local, one node or one node per stream, interleaved, weighted), and how big the arrays are.
//! Pure functions of the topology; every refusal is one sentence naming the value and the fix.

use crate::placement::Policy;
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::topology::Topology;

/// How threads are laid over nodes when only a count is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Fill one node (one CPU per core first, then SMT siblings) before the next.
    Packed,
    /// Round robin over the nodes: each new thread goes to the next node (Bergstrom's "new
    /// nodes first").
    Spread,
}

impl Order {
    pub fn label(self) -> &'static str {
        match self {
            Order::Packed => "packed",
            Order::Spread => "spread",
        }
    }
}

/// A node's usable CPUs, one per core first (lowest id of each core), then the SMT siblings.
pub fn node_cpus_cores_first(topo: &Topology, node: u32) -> Vec<u32> {
    let mut cpus: Vec<(usize, u32)> = topo
        .usable_cpus_of(node)
        .into_iter()
        .map(|id| {
            let rank = topo
                .cpu(id)
                .and_then(|c| c.siblings.iter().position(|&s| s == id))
                .unwrap_or(0);
            (rank, id)
        })
        .collect();
    cpus.sort_unstable();
    cpus.into_iter().map(|(_, id)| id).collect()
}

/// All usable CPUs of `nodes` in `order`.
pub fn ordered_cpus(topo: &Topology, nodes: &[u32], order: Order) -> Vec<u32> {
    let per_node: Vec<Vec<u32>> = nodes
        .iter()
        .map(|&n| node_cpus_cores_first(topo, n))
        .collect();
    match order {
        Order::Packed => per_node.concat(),
        Order::Spread => {
            let longest = per_node.iter().map(|v| v.len()).max().unwrap_or(0);
            (0..longest)
                .flat_map(|i| per_node.iter().filter_map(move |v| v.get(i).copied()))
                .collect()
        }
    }
}

/// Chooses the threads' CPUs. `cpus` (explicit) wins; else `threads` CPUs from `cpu_nodes`
/// (default: every initiator node) in `order`; `threads` defaults to 1.
pub fn select_cpus(
    topo: &Topology,
    cpus: Option<&[u32]>,
    cpu_nodes: Option<&[u32]>,
    threads: Option<usize>,
    order: Order,
) -> Result<Vec<u32>, String> {
    if threads == Some(0) {
        return Err("--threads 0 runs nothing; give at least 1".into());
    }
    if let Some(list) = cpus {
        if cpu_nodes.is_some() {
            return Err("--cpus and --cpu-nodes both choose CPUs; give only one of them".into());
        }
        let usable = topo.usable_cpus();
        for &c in list {
            if !usable.contains(&c) {
                return Err(format!(
                    "CPU {c} in --cpus is not usable (it does not exist, is offline or is outside this process's allowed CPUs); choose from {}",
                    format_list(&usable)
                ));
            }
        }
        return match threads {
            Some(t) if t != list.len() => Err(format!(
                "--threads {t} disagrees with the {} CPUs of --cpus {}; drop --threads or list {t} CPUs",
                list.len(),
                format_list(list)
            )),
            _ => Ok(list.to_vec()),
        };
    }
    let initiators = topo.initiator_nodes();
    let nodes: Vec<u32> = match cpu_nodes {
        Some(n) => {
            for &id in n {
                if !initiators.contains(&id) {
                    return Err(format!(
                        "node {id} in --cpu-nodes has no usable CPUs; choose from the initiator nodes {}",
                        format_list(&initiators)
                    ));
                }
            }
            n.to_vec()
        }
        None => initiators,
    };
    let pool = ordered_cpus(topo, &nodes, order);
    let want = threads.unwrap_or(1);
    if want > pool.len() {
        return Err(format!(
            "--threads {want} is more than the {} usable CPUs of nodes {}; use at most {}",
            pool.len(),
            format_list(&nodes),
            pool.len()
        ));
    }
    Ok(pool[..want].to_vec())
}

/// Where the streams' memory goes.
#[derive(Clone, Debug, PartialEq)]
pub enum MemPlacement {
    /// First touch by each thread on its own CPU: NUMA-local memory.
    Local,
    /// Bound to one node (all streams) or to one node per stream.
    Node(Vec<u32>),
    /// Interleaved page by page over these nodes.
    Interleave(Vec<u32>),
    /// Weighted interleave.
    Weighted(Vec<(u32, u8)>),
}

impl MemPlacement {
    /// `local`, `node`, `interleave` or `weighted`.
    pub fn label(&self) -> &'static str {
        match self {
            MemPlacement::Local => "local",
            MemPlacement::Node(_) => "node",
            MemPlacement::Interleave(_) => "interleave",
            MemPlacement::Weighted(_) => "weighted",
        }
    }

    /// One policy per stream for a kernel `kernel` with `streams` streams.
    pub fn policies(&self, kernel: &str, streams: usize) -> Result<Vec<Policy>, String> {
        Ok(match self {
            MemPlacement::Local => vec![Policy::FirstTouch; streams],
            MemPlacement::Node(n) if n.len() == 1 => vec![Policy::Bind(vec![n[0]]); streams],
            MemPlacement::Node(n) if n.len() == streams => {
                n.iter().map(|&x| Policy::Bind(vec![x])).collect()
            }
            MemPlacement::Node(n) => {
                return Err(format!(
                    "--mem-nodes {} names {} nodes but kernel {kernel} has {streams} streams; give one node, or one per stream in stream order",
                    n.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","),
                    n.len()
                ))
            }
            MemPlacement::Interleave(n) => vec![Policy::Interleave(n.clone()); streams],
            MemPlacement::Weighted(w) => vec![Policy::WeightedInterleave(w.clone()); streams],
        })
    }

    /// The nodes this placement names (empty for local).
    pub fn nodes(&self) -> Vec<u32> {
        let mut v = match self {
            MemPlacement::Local => vec![],
            MemPlacement::Node(n) | MemPlacement::Interleave(n) => n.clone(),
            MemPlacement::Weighted(w) => w.iter().map(|(n, _)| *n).collect(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Builds the placement from `--placement`, `--mem-nodes` (kept in the user's order: it is
/// per stream for `node`) and `--weights`, and checks the nodes are memory nodes.
pub fn memory_placement(
    topo: &Topology,
    mode: Option<&str>,
    mem_nodes: Option<&[u32]>,
    weights: Option<&[(u32, u8)]>,
) -> Result<MemPlacement, String> {
    let mode = mode
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_else(|| {
            if weights.is_some() {
                "weighted".into()
            } else if mem_nodes.is_some() {
                "node".into()
            } else {
                "local".into()
            }
        });
    let p = match mode.as_str() {
        "local" => {
            if mem_nodes.is_some() {
                return Err("--placement local puts memory on each thread's own node and takes no --mem-nodes; use --placement node to choose nodes".into());
            }
            MemPlacement::Local
        }
        "node" => match mem_nodes {
            Some(n) => MemPlacement::Node(n.to_vec()),
            None => {
                return Err(
                    "--placement node needs --mem-nodes N (or one node per stream, e.g. 0,1)"
                        .into(),
                )
            }
        },
        "interleave" => MemPlacement::Interleave(match mem_nodes {
            Some(n) => {
                let mut v = n.to_vec();
                v.sort_unstable();
                v.dedup();
                v
            }
            None => topo.memory_nodes(),
        }),
        "weighted" => match weights {
            Some(w) => MemPlacement::Weighted(w.to_vec()),
            None => {
                return Err(
                    "--placement weighted needs --weights NODE:WEIGHT,... (e.g. 0:3,1:1)".into(),
                )
            }
        },
        other => {
            return Err(format!(
                "`{other}` is not a placement; use local, node, interleave or weighted"
            ))
        }
    };
    let memory = topo.memory_nodes();
    for n in p.nodes() {
        let Some(node) = topo.node(n) else {
            return Err(format!(
                "node {n} does not exist; this machine has nodes {}",
                format_list(&topo.node_ids())
            ));
        };
        if !node.has_memory {
            return Err(format!(
                "node {n} has no memory, so it cannot be a target; choose from the memory nodes {}",
                format_list(&memory)
            ));
        }
        if !memory.contains(&n) {
            return Err(format!(
                "node {n} is outside this process's allowed memory nodes {}; choose an allowed node",
                format_list(&memory)
            ));
        }
    }
    Ok(p)
}

/// STREAM's rule for private arrays: the arrays of one stream, summed over the threads, are at
/// least 4x the total last-level cache (and at least 256 MiB), split evenly over the threads
/// and rounded up to 2 MiB (whole transparent huge pages).
///
/// A memory limit on this process (cgroup, RLIMIT_AS) or little free memory shrinks it to an
/// eighth of what the process can have, so a default never runs into the OOM killer.
pub fn default_array_bytes(topo: &Topology, threads: usize) -> u64 {
    const TWO_MIB: u64 = 2 << 20;
    let can_have = topo.available_over(&topo.memory_nodes());
    let mut per_stream = (4 * topo.llc_total_bytes()).max(256 << 20);
    if can_have > 0 {
        per_stream = per_stream.min((can_have / 8).max(TWO_MIB * threads.max(1) as u64));
    }
    per_stream.div_ceil(threads.max(1) as u64).div_ceil(TWO_MIB) * TWO_MIB
}

/// Free bytes on the nodes the memory may land on (`None` placement nodes: all memory nodes).
pub fn free_bytes_of(topo: &Topology, nodes: &[u32]) -> u64 {
    let nodes = if nodes.is_empty() {
        topo.memory_nodes()
    } else {
        nodes.to_vec()
    };
    topo.available_over(&nodes)
}

/// Refuses a working set that does not fit in the free memory of its target nodes.
pub fn check_fits(topo: &Topology, nodes: &[u32], working_set: u64) -> Result<(), String> {
    // Above a memory limit of this process: the sentence names the limit, not node memory.
    crate::placement::check_limit(topo, working_set, "the working set of")
        .map_err(|e| e.to_string())?;
    let free = free_bytes_of(topo, nodes);
    if working_set > free {
        return Err(format!(
            "the working set of {} is more than the {} free on {}; use a smaller --size or fewer threads",
            format_bytes(working_set),
            format_bytes(free),
            if nodes.is_empty() {
                "the memory nodes".to_string()
            } else {
                format!("node(s) {}", format_list(nodes))
            }
        ));
    }
    Ok(())
}

/// The cache level a working set fits in, from the topology's declared caches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheFit {
    /// Cache level (1, 2, 3...).
    pub level: u32,
    /// `L1d (32 KiB per core)`, `L3 (32 MiB shared by 16 CPUs)`.
    pub label: String,
}

/// The name of a cache level as people write it: `L1d` for a level-1 data cache, else `L<n>`.
fn level_name(level: u32, kind: &str) -> String {
    if level == 1 && kind == "Data" {
        "L1d".into()
    } else {
        format!("L{level}")
    }
}

/// The smallest cache level that holds the data of threads pinned to `cpus`, each touching
/// `bytes_per_thread` (all its streams together): at that level every instance holds the sum
/// over the threads whose CPU shares it (SMT siblings share L1 and L2; a package or CCX shares
/// L3). `None` when no declared cache holds it (the working set is in DRAM) or the topology
/// declares no caches for these CPUs.
pub fn cache_fit(topo: &Topology, cpus: &[u32], bytes_per_thread: u64) -> Option<CacheFit> {
    let data = |c: &&crate::results::topology::Cache| c.kind != "Instruction";
    let mut levels: Vec<u32> = topo.caches.iter().filter(data).map(|c| c.level).collect();
    levels.sort_unstable();
    levels.dedup();
    for level in levels {
        let instances: Vec<_> = topo
            .caches
            .iter()
            .filter(data)
            .filter(|c| c.level == level)
            .collect();
        let mut all_fit = true;
        let mut used = None;
        for &cpu in cpus {
            let Some(c) = instances.iter().find(|c| c.cpus.contains(&cpu)) else {
                all_fit = false;
                break;
            };
            let sharing = cpus.iter().filter(|x| c.cpus.contains(x)).count() as u64;
            if sharing * bytes_per_thread > c.size_bytes {
                all_fit = false;
                break;
            }
            used.get_or_insert(*c);
        }
        if let (true, Some(c)) = (all_fit, used) {
            let core = topo
                .cpu(c.cpus[0])
                .map(|x| x.siblings.clone())
                .unwrap_or_default();
            let scope = if c.cpus.len() <= 1 || c.cpus == core {
                "per core".to_string()
            } else {
                format!("shared by {} CPUs", c.cpus.len())
            };
            return Some(CacheFit {
                level,
                label: format!(
                    "{} ({} {scope})",
                    level_name(level, &c.kind),
                    format_bytes(c.size_bytes)
                ),
            });
        }
    }
    None
}

/// The default sweep of working sets per thread: from half the first level's cache (the L1d,
/// 16 KiB when no cache is declared) to 4x the last-level cache (256 MiB when unknown), two
/// points per octave on the latency sweep's grid.
pub fn default_sweep(topo: &Topology, cpu: u32) -> (u64, u64) {
    let sizes = topo.cache_sizes_for_cpu(cpu);
    let from = sizes.first().map_or(16 << 10, |&(_, s)| (s / 2).max(4096));
    let llc = topo.llc_total_bytes();
    let to = if llc == 0 { 256 << 20 } else { 4 * llc };
    (from, to.max(from))
}

/// Points per octave of a bandwidth sweep: each point costs every kernel's repetitions, so half
/// the latency sweep's density.
pub const SWEEP_POINTS_PER_OCTAVE: u32 = 2;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use crate::testutil::topology_fixture as fixture;

    #[test]
    fn packed_fills_a_node_first_and_spread_round_robins() {
        let t = fixture("edge-sparse-hmat"); // nodes 0: 0-3, 2: 4-7, 5: memory only
        assert_eq!(
            select_cpus(&t, None, None, Some(3), Order::Packed).unwrap(),
            vec![0, 1, 2]
        );
        assert_eq!(
            select_cpus(&t, None, None, Some(3), Order::Spread).unwrap(),
            vec![0, 4, 1]
        );
        assert_eq!(
            select_cpus(&t, None, Some(&[2]), Some(2), Order::Spread).unwrap(),
            vec![4, 5]
        );
        assert_eq!(
            select_cpus(&t, Some(&[7, 1]), None, None, Order::Packed).unwrap(),
            vec![7, 1]
        );
    }

    #[test]
    fn cpu_selection_refuses_bad_input() {
        let t = fixture("edge-sparse-hmat");
        for (cpus, nodes, threads) in [
            (None, None, Some(0)),
            (None, None, Some(9)),
            (Some(&[42u32][..]), None, None),
            (Some(&[1u32][..]), None, Some(2)),
            (None, Some(&[5u32][..]), None),
        ] {
            let e = select_cpus(&t, cpus, nodes, threads, Order::Packed).unwrap_err();
            assert!(e.contains(';'), "{e}");
        }
    }

    #[test]
    fn smt_siblings_come_after_cores() {
        let t = fixture("xeon-x7560-4s-smt");
        let first = node_cpus_cores_first(&t, t.initiator_nodes()[0]);
        let c0 = t.cpu(first[0]).unwrap();
        // No sibling of the first CPU appears before all cores have one CPU.
        let cores = first
            .iter()
            .filter(|&&id| t.cpu(id).unwrap().siblings[0] == id)
            .count();
        assert!(first[..cores]
            .iter()
            .all(|&id| t.cpu(id).unwrap().siblings[0] == id));
        assert!(!c0.siblings.is_empty());
    }

    #[test]
    fn memory_placement_per_stream_and_errors() {
        let t = fixture("edge-sparse-hmat");
        let p = memory_placement(&t, None, Some(&[5, 0]), None).unwrap();
        assert_eq!(
            p.policies("copy", 2).unwrap(),
            vec![Policy::Bind(vec![5]), Policy::Bind(vec![0])]
        );
        assert!(p.policies("triad", 3).unwrap_err().contains("3 streams"));
        let p = memory_placement(&t, Some("interleave"), None, None).unwrap();
        assert_eq!(p, MemPlacement::Interleave(vec![0, 2, 5]));
        assert_eq!(
            memory_placement(&t, None, None, None).unwrap(),
            MemPlacement::Local
        );
        let t = fixture("edge-memoryless-node");
        let e = memory_placement(&t, Some("node"), Some(&[1]), None).unwrap_err();
        assert!(e.contains("node 1 has no memory"), "{e}");
        assert!(memory_placement(&t, Some("node"), Some(&[9]), None).is_err());
        assert!(memory_placement(&t, Some("bogus"), None, None).is_err());
        assert!(memory_placement(&t, Some("weighted"), None, None).is_err());
    }

    #[test]
    fn sizes_follow_streams_rule_and_free_memory() {
        let mut t = fixture("edge-sparse-hmat");
        t.caches.clear();
        assert_eq!(default_array_bytes(&t, 1), 256 << 20);
        assert_eq!(default_array_bytes(&t, 3), 86 << 20); // 85.3 MiB rounded up to 2 MiB
        assert!(check_fits(&t, &[0], 1 << 30).is_ok());
        let e = check_fits(&t, &[0], 100 << 30).unwrap_err();
        assert!(e.contains("smaller --size"), "{e}");
    }

    #[test]
    fn cache_fit_names_the_smallest_level_that_holds_every_thread() {
        // xeon-x7560: L1d 32 KiB and L2 256 KiB per core (2 SMT siblings), L3 24 MiB per
        // package of 16 CPUs.
        let t = fixture("xeon-x7560-4s-smt");
        let cpu = t.initiator_nodes()[0];
        let cpu = node_cpus_cores_first(&t, cpu)[0];
        let l = |b| cache_fit(&t, &[cpu], b).map(|f| f.label);
        assert_eq!(l(16 << 10).as_deref(), Some("L1d (32 KiB per core)"));
        assert_eq!(l(32 << 10).as_deref(), Some("L1d (32 KiB per core)"));
        assert_eq!(l(200 << 10).as_deref(), Some("L2 (256 KiB per core)"));
        assert_eq!(l(4 << 20).as_deref(), Some("L3 (24 MiB shared by 16 CPUs)"));
        assert_eq!(l(64 << 20), None);
        // Two SMT siblings share one L1d: 2 x 20 KiB does not fit, so L2.
        let sib = t.cpu(cpu).unwrap().siblings.clone();
        assert_eq!(sib.len(), 2);
        assert_eq!(cache_fit(&t, &sib, 20 << 10).unwrap().level, 2);
        // No caches declared: nothing is said to fit.
        let mut bare = t.clone();
        bare.caches.clear();
        assert_eq!(cache_fit(&bare, &[cpu], 1024), None);
        assert_eq!(default_sweep(&bare, cpu), (16 << 10, 256 << 20));
        assert_eq!(default_sweep(&t, cpu), (16 << 10, 4 * t.llc_total_bytes()));
    }
}
