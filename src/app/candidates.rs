//! The placements `numascope app` runs a program under: how users name them
//! (`default`, `bind:N`, `interleave[:LIST]`, `weighted`, `preferred:N`, `pin:N`), the default
//! list for this machine, the checks that a candidate is possible here (a node with memory,
//! a kernel with weighted interleave, CPUs on the node), and which candidates place threads
//! and pages identically on this machine (docs/METHODOLOGY.md, "Identical placements"), through the
//! same placement model the run's scenarios use. Pure but for reading the weighted-interleave
//! weights through the SysRoot and one probe of the kernel.

use crate::parse::cpulist::parse_user_list;
use crate::placement::model::{pages as placed_pages, same_reason as same_placement_reason};
use crate::placement::Policy;
use crate::results::format::format_list;
use crate::results::topology::Topology;
use crate::sys::spawn::ChildPlacement;
use crate::sysroot::SysRoot;

use super::error::AppError;

/// One placement to run the program under.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// As `--candidates` takes it: `bind:0`.
    pub id: String,
    /// In words: `CPUs and memory on node 0`.
    pub label: String,
    pub policy: Policy,
    /// CPUs the program is confined to; `None`: all it is allowed.
    pub cpus: Option<Vec<u32>>,
    /// Why it cannot run here (only in the default list; a candidate asked for by name that
    /// is not possible here stops the command instead).
    pub unavailable: Option<String>,
}

impl Candidate {
    /// What the child gets before exec.
    pub fn placement(&self) -> ChildPlacement {
        ChildPlacement {
            policy: self.policy.mode_and_nodes(),
            cpus: self.cpus.clone(),
        }
    }

    /// The nodes whose pages this candidate intends, when it names them.
    pub fn intended_nodes(&self) -> Option<Vec<u32>> {
        match &self.policy {
            Policy::FirstTouch | Policy::Preferred(_) | Policy::PreferredMany(_) => None,
            p => Some(p.nodes()),
        }
    }

    /// The policy word numa_maps prints for this candidate's mappings (`default`, `bind`,
    /// `interleave`, `prefer`, `weighted`).
    pub fn numa_maps_mode(&self) -> &'static str {
        match self.policy {
            Policy::FirstTouch => "default",
            Policy::Bind(_) => "bind",
            Policy::Preferred(_) => "prefer",
            Policy::PreferredMany(_) => "prefer",
            Policy::Interleave(_) => "interleave",
            // The kernel prints "weighted interleave:..." (two words; the parser keeps the first).
            Policy::WeightedInterleave(_) => "weighted",
        }
    }
}

/// The default candidates for this machine: the kernel default, each memory node bound (CPUs
/// of that node when it has some), interleave over all memory nodes, weighted interleave (the kernel's weights, and weights measured here where there are two memory nodes or more), each memory node preferred, and each CPU node pinned with its memory
/// left to first touch.
pub fn default_ids(topo: &Topology) -> Vec<String> {
    let mem = topo.memory_nodes();
    let mut ids = vec!["default".to_string()];
    ids.extend(mem.iter().map(|n| format!("bind:{n}")));
    ids.push("interleave".into());
    // Listed even where the kernel lacks it, so the report says why it was not run.
    ids.push("weighted".into());
    if mem.len() >= 2 {
        ids.push("weighted:measured".into());
    }
    ids.extend(mem.iter().map(|n| format!("preferred:{n}")));
    ids.extend(
        topo.initiator_nodes()
            .iter()
            .filter(|n| !topo.usable_cpus_of(**n).is_empty())
            .map(|n| format!("pin:{n}")),
    );
    ids
}

/// Resolves candidate names into placements, checking each is possible here: unknown names
/// and nodes that do not exist are input errors, a node without memory (or CPUs, for `pin`)
/// and weighted interleave on a kernel without it are refusals of this machine.
pub fn resolve(
    topo: &Topology,
    root: &SysRoot,
    ids: &[String],
) -> Result<Vec<Candidate>, AppError> {
    let here = Here {
        topo,
        root,
        nodes: topo.node_ids(),
        mem: topo.memory_nodes(),
    };
    let out = ids
        .iter()
        .map(|raw| here.candidate(raw))
        .collect::<Result<Vec<_>, _>>()?;
    if out.is_empty() {
        return Err(AppError::input(
            "--candidates is empty; name at least one, e.g. --candidates default,bind:0",
        ));
    }
    Ok(out)
}

/// The machine the candidates are resolved against: its nodes and its memory nodes.
struct Here<'a> {
    topo: &'a Topology,
    root: &'a SysRoot,
    nodes: Vec<u32>,
    mem: Vec<u32>,
}

impl Here<'_> {
    /// One `--candidates` entry, resolved.
    fn candidate(&self, raw: &str) -> Result<Candidate, AppError> {
        let id = raw.trim().to_ascii_lowercase();
        let (word, arg) = match id.split_once(':') {
            Some((w, a)) => (w, Some(a)),
            None => (id.as_str(), None),
        };
        match (word, arg) {
            ("default" | "first-touch", None) => Ok(Candidate {
                id: id.clone(),
                label: "kernel default (first touch), threads anywhere".into(),
                policy: Policy::FirstTouch,
                cpus: None,
                unavailable: None,
            }),
            ("bind", Some(a)) => self.bind(&id, a),
            ("preferred", Some(a)) => {
                let n = self.with_memory(&id, self.node(&id, a)?)?;
                Ok(Candidate {
                    id: id.clone(),
                    label: format!("memory on node {n} first, others when it is full"),
                    policy: Policy::Preferred(n),
                    cpus: None,
                    unavailable: None,
                })
            }
            ("pin", Some(a)) => self.pin(&id, a),
            ("interleave", a) => self.interleave(&id, a),
            ("weighted", None) => self.weighted(&id),
            ("weighted", Some("measured")) => self.weighted_measured(&id),
            _ => Err(AppError::input(format!(
                "--candidates: `{raw}` is not a candidate; use default, bind:N, interleave[:LIST], weighted, weighted:measured, preferred:N or pin:N"
            ))),
        }
    }

    /// The node number in `text`, refused unless it exists here.
    fn node(&self, id: &str, text: &str) -> Result<u32, AppError> {
        let nodes = &self.nodes;
        let n: u32 = text.trim().parse().map_err(|_| {
            AppError::input(format!(
                "--candidates: `{id}` needs a node number after the colon (nodes here: {})",
                format_list(nodes)
            ))
        })?;
        if !nodes.contains(&n) {
            return Err(AppError::input(format!(
                "--candidates: node {n} in `{id}` does not exist here; nodes: {}",
                format_list(nodes)
            )));
        }
        Ok(n)
    }

    /// Node `n`, refused unless it has memory.
    fn with_memory(&self, id: &str, n: u32) -> Result<u32, AppError> {
        if self.mem.contains(&n) {
            Ok(n)
        } else {
            Err(AppError::environment(format!(
                "candidate `{id}` is not possible here: node {n} has no memory (memory nodes: {}); choose another node",
                format_list(&self.mem)
            )))
        }
    }

    /// `bind:N`: memory on node N, threads on its CPUs when it has some.
    fn bind(&self, id: &str, a: &str) -> Result<Candidate, AppError> {
        let n = self.with_memory(id, self.node(id, a)?)?;
        let cpus = Some(self.topo.usable_cpus_of(n)).filter(|c| !c.is_empty());
        Ok(Candidate {
            label: match &cpus {
                Some(_) => format!("CPUs and memory on node {n}"),
                None => format!("memory on node {n} (no CPUs there), threads anywhere"),
            },
            id: id.to_string(),
            policy: Policy::Bind(vec![n]),
            cpus,
            unavailable: None,
        })
    }

    /// `pin:N`: threads on node N's CPUs, memory by first touch.
    fn pin(&self, id: &str, a: &str) -> Result<Candidate, AppError> {
        let n = self.node(id, a)?;
        let cpus = self.topo.usable_cpus_of(n);
        if cpus.is_empty() {
            return Err(AppError::environment(format!(
                "candidate `{id}` is not possible here: node {n} has no usable CPUs; choose a node with CPUs ({})",
                format_list(&self.topo.initiator_nodes())
            )));
        }
        Ok(Candidate {
            id: id.to_string(),
            label: format!("threads on node {n}'s CPUs, memory by first touch"),
            policy: Policy::FirstTouch,
            cpus: Some(cpus),
            unavailable: None,
        })
    }

    /// `interleave[:LIST]`: memory interleaved over the listed nodes, or every memory node.
    fn interleave(&self, id: &str, a: Option<&str>) -> Result<Candidate, AppError> {
        let set = match a {
            None => self.mem.clone(),
            Some(list) => {
                let set = parse_user_list(list, &self.nodes)
                    .map_err(|e| AppError::input(format!("--candidates: `{id}`: {}", e.0)))?;
                for &n in &set {
                    // A node that does not exist is the user's slip (2), as for
                    // `bind:N`; one without memory is this machine's refusal (3).
                    self.node(id, &n.to_string())?;
                    self.with_memory(id, n)?;
                }
                set
            }
        };
        Ok(Candidate {
            id: id.to_string(),
            label: format!("memory interleaved over nodes {}", format_list(&set)),
            policy: Policy::Interleave(set),
            cpus: None,
            unavailable: None,
        })
    }

    /// Refuses `id` when this kernel has no weighted interleave.
    fn need_weighted(&self, id: &str) -> Result<(), AppError> {
        if !self.topo.environment.weighted_interleave_available {
            return Err(AppError::environment(format!(
                "candidate `{id}` is not possible here: weighted interleave needs Linux 6.9 or newer (this kernel is {}); use `interleave`",
                self.topo.environment.kernel_release.as_deref().unwrap_or("unknown")
            )));
        }
        Ok(())
    }

    /// `weighted`: memory weighted-interleaved with the kernel's weights.
    fn weighted(&self, id: &str) -> Result<Candidate, AppError> {
        self.need_weighted("weighted")?;
        let mem = &self.mem;
        let w = kernel_weights(self.root, mem);
        Ok(Candidate {
            id: id.to_string(),
            label: format!(
                "memory weighted-interleaved over nodes {} with the kernel's weights {}",
                format_list(mem),
                crate::placement::measured_weights::weights_text(&w)
            ),
            policy: Policy::WeightedInterleave(w),
            cpus: None,
            unavailable: None,
        })
    }

    /// `weighted:measured`: weights measured here when the comparison starts (needs root and
    /// two memory nodes).
    fn weighted_measured(&self, id: &str) -> Result<Candidate, AppError> {
        self.need_weighted("weighted:measured")?;
        let mem = &self.mem;
        if mem.len() < 2 {
            return Err(AppError::environment(format!(
                "candidate `weighted:measured` is not possible here: it weighs memory nodes against each other and this machine has {} ({}); use `default`",
                mem.len(),
                format_list(mem)
            )));
        }
        if crate::sys::process::effective_uid() != 0 {
            return Err(AppError::environment(
                "candidate `weighted:measured` is not possible here: the weights are system-wide (/sys/kernel/mm/mempolicy/weighted_interleave) and setting them needs root; run as root, or use `weighted` with the kernel's weights",
            ));
        }
        // The weights are measured when the comparison starts (super::weights).
        Ok(Candidate {
            id: id.to_string(),
            label: "memory weighted-interleaved with weights measured here".into(),
            policy: Policy::WeightedInterleave(kernel_weights(self.root, mem)),
            cpus: None,
            unavailable: None,
        })
    }
}

/// [`resolve`] for the default list: a candidate this machine refuses stays in the list,
/// marked unavailable with the reason, instead of stopping the command; so does one whose
/// policy the kernel refuses ([`probe`]).
pub fn resolve_lenient(
    topo: &Topology,
    root: &SysRoot,
    ids: &[String],
) -> Result<Vec<Candidate>, AppError> {
    let mut out = Vec::new();
    for id in ids {
        let one = resolve(topo, root, std::slice::from_ref(id)).and_then(|c| probe(&c).map(|()| c));
        match one {
            Ok(mut c) => out.append(&mut c),
            Err(e) if e.status == super::error::EXIT_ENVIRONMENT => out.push(Candidate {
                id: id.clone(),
                label: "not possible here".into(),
                policy: if id.starts_with("weighted") {
                    Policy::WeightedInterleave(kernel_weights(root, &topo.memory_nodes()))
                } else {
                    Policy::FirstTouch
                },
                cpus: None,
                unavailable: Some(e.message),
            }),
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The weights the kernel applies (`/sys/kernel/mm/mempolicy/weighted_interleave/nodeN`,
/// 1 when a file is missing or unreadable). numascope does not change them: they are
/// system-wide and setting them needs root.
pub fn kernel_weights(root: &SysRoot, mem: &[u32]) -> Vec<(u32, u8)> {
    mem.iter()
        .map(|&n| {
            let w = root
                .read_u64_opt(format!(
                    "sys/kernel/mm/mempolicy/weighted_interleave/node{n}"
                ))
                .ok()
                .flatten()
                .unwrap_or(1)
                .clamp(1, 255) as u8;
            (n, w)
        })
        .collect()
}

/// Where a candidate's threads run and its pages land, for comparing candidates: the CPU set
/// (all usable CPUs when not confined) and the (node, share) of its pages; `None` when the
/// model cannot tell (then it is never merged).
type Key = (Vec<u32>, Vec<(u32, u32)>);

fn key(topo: &Topology, c: &Candidate) -> Option<Key> {
    if c.unavailable.is_some() {
        return None;
    }
    let usable = topo.usable_cpus();
    let cpus: Vec<u32> = match &c.cpus {
        None => usable,
        Some(set) => set.iter().copied().filter(|x| usable.contains(x)).collect(),
    };
    // First touch lands on the threads' node when all the CPUs are on one node.
    let nodes: Vec<Option<u32>> = cpus.iter().map(|&x| topo.node_of_cpu(x)).collect();
    let one_node_cpu = match nodes.first() {
        Some(Some(n)) if nodes.iter().all(|m| *m == Some(*n)) => cpus.first().copied(),
        _ => None,
    };
    let pages = placed_pages(topo, &topo.memory_nodes(), &c.policy, one_node_cpu)?;
    Some((cpus, pages))
}

/// For each candidate, the index of an earlier one that places identically here, and the
/// reason in words (from the machine's shape).
pub fn merge_identical(topo: &Topology, cands: &[Candidate]) -> (Vec<Option<usize>>, String) {
    let keys: Vec<Option<Key>> = cands.iter().map(|c| key(topo, c)).collect();
    let merged = (0..cands.len())
        .map(|i| {
            let k = keys[i].as_ref()?;
            (0..i).find(|&j| keys[j].as_ref() == Some(k))
        })
        .collect();
    (merged, same_placement_reason(topo, false))
}

/// Checks that the kernel takes each candidate's policy, by setting it on a short-lived thread
/// (the policy of a thread dies with it): an old kernel or a refused node set is a refusal of
/// this machine, said before any run.
pub fn probe(cands: &[Candidate]) -> Result<(), AppError> {
    for c in cands.iter().filter(|c| c.unavailable.is_none()) {
        let Some((mode, nodes)) = c.policy.mode_and_nodes() else {
            continue;
        };
        let r = std::thread::scope(|s| {
            s.spawn(|| crate::sys::numa::set_mempolicy(mode, &nodes))
                .join()
                .unwrap_or(Ok(()))
        });
        if let Err(e) = r {
            return Err(AppError::environment(format!(
                "candidate `{}` is not possible here: {e}",
                c.id
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn guest_a() -> (Topology, SysRoot) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/topology/guest-A");
        let root = SysRoot::snapshot(&dir).unwrap();
        (crate::topology::read_topology(&root).unwrap(), root)
    }

    #[test]
    fn one_node_machine_merges_every_default_candidate() {
        let topo = testutil::this_machine_one_node();
        let (_d, root) = testutil::test_root(&[]);
        let all = default_ids(&topo);
        // The test machine's environment says nothing of weighted interleave: marked, not run.
        let cands = resolve_lenient(&topo, &root, &all).unwrap();
        let weighted = cands.iter().position(|c| c.id == "weighted").unwrap();
        assert!(cands[weighted]
            .unavailable
            .as_ref()
            .unwrap()
            .contains("Linux 6.9"));
        assert!(resolve(&topo, &root, &all).is_err());
        let (merged, why) = merge_identical(&topo, &cands);
        assert_eq!(merged[0], None);
        assert_eq!(merged[weighted], None);
        assert!(
            (1..cands.len())
                .filter(|&k| k != weighted)
                .all(|k| merged[k] == Some(0)),
            "{merged:?}"
        );
        assert!(why.contains("one memory node"), "{why}");
        let aa = resolve(&topo, &root, &ids(&["default", "default"])).unwrap();
        assert_eq!(merge_identical(&topo, &aa).0, vec![None, Some(0)]);
    }

    #[test]
    fn two_cpu_nodes_and_a_memory_only_node_keep_their_candidates_apart() {
        let (topo, root) = guest_a();
        assert_eq!(topo.memory_nodes(), vec![0, 1, 2]);
        let cands = resolve(
            &topo,
            &root,
            &ids(&[
                "bind:0",
                "bind:1",
                "bind:2",
                "interleave",
                "pin:0",
                "default",
            ]),
        )
        .unwrap();
        assert_eq!(cands[0].cpus, Some(topo.usable_cpus_of(0)));
        assert_eq!(cands[2].cpus, None, "node 2 has no CPUs");
        assert_eq!(cands[3].policy, Policy::Interleave(vec![0, 1, 2]));
        let (merged, _) = merge_identical(&topo, &cands);
        assert_eq!(&merged[..4], &[None, None, None, None]);
        // pin:0 is first touch on node 0's CPUs: node 0's memory, like bind:0.
        assert_eq!(merged[4], Some(0));
        let e = resolve(&topo, &root, &ids(&["pin:2"])).unwrap_err();
        assert_eq!(e.status, super::super::error::EXIT_ENVIRONMENT);
    }

    #[test]
    fn a_memoryless_node_is_refused_by_name_and_marked_in_the_default_list() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/topology/edge-memoryless-node");
        let root = SysRoot::snapshot(&dir).unwrap();
        let topo = crate::topology::read_topology(&root).unwrap();
        assert_eq!(topo.memory_nodes(), vec![0]);
        let e = resolve(&topo, &root, &ids(&["bind:1"])).unwrap_err();
        assert_eq!(e.status, super::super::error::EXIT_ENVIRONMENT);
        assert!(e.message.contains("node 1 has no memory"), "{}", e.message);
        let c = resolve_lenient(&topo, &root, &ids(&["default", "bind:1"])).unwrap();
        assert_eq!(c[0].unavailable, None);
        assert!(c[1].unavailable.as_ref().unwrap().contains("no memory"));
        // An unavailable candidate is never merged with another.
        assert_eq!(merge_identical(&topo, &c).0, vec![None, None]);
        assert!(resolve_lenient(&topo, &root, &ids(&["bogus"])).is_err());
    }

    #[test]
    fn bad_candidates_say_which_and_why() {
        let topo = testutil::this_machine_one_node();
        let (_d, root) = testutil::test_root(&[]);
        let e = resolve(&topo, &root, &ids(&["bind:7"])).unwrap_err();
        assert_eq!(e.status, super::super::error::EXIT_INPUT);
        assert!(e.message.contains("node 7"), "{}", e.message);
        let e = resolve(&topo, &root, &ids(&["fastest"])).unwrap_err();
        assert!(e.message.contains("`fastest` is not a candidate"));
        assert!(resolve(&topo, &root, &ids(&["bind:x"])).is_err());
        assert!(resolve(&topo, &root, &[]).is_err());
    }
}
