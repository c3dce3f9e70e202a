//! Where the program really was: from the procfs samples of its runs, the memory per node and
//! per kind at the largest sample, every CPU its threads were seen on, the share of its pages
//! on the nodes the candidate intends, and whether the program placed itself differently from
//! the candidate (its own mbind or set_mempolicy shows as another policy in numa_maps; its own
//! pinning as threads on CPUs outside the candidate's set). Pure: it reads samples only.

use std::collections::BTreeSet;

use crate::results::app::Observed;
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::inspect::Inspection;

use super::candidates::Candidate;

/// Observations of one candidate's runs; `None` without samples.
pub fn observe(cand: &Candidate, samples: &[&Inspection]) -> Option<Observed> {
    let total = |i: &Inspection| i.nodes.iter().map(|n| n.bytes).sum::<u64>();
    let largest = samples.iter().max_by_key(|i| total(i))?;
    let cpus: BTreeSet<u32> = samples
        .iter()
        .flat_map(|i| i.threads.iter().filter_map(|t| t.cpu))
        .collect();
    let nodes: BTreeSet<u32> = samples
        .iter()
        .flat_map(|i| i.threads.iter().filter_map(|t| t.node))
        .collect();
    let all = total(largest);
    let fraction_on_intended = cand.intended_nodes().filter(|_| all > 0).map(|want| {
        let on: u64 = largest
            .nodes
            .iter()
            .filter(|n| want.contains(&n.node))
            .map(|n| n.bytes)
            .sum();
        on as f64 / all as f64
    });
    let mut why = Vec::new();
    let want = cand.numa_maps_mode();
    let mut other: Vec<(String, u64)> = largest
        .policies
        .iter()
        .filter(|(p, b)| *b > 0 && mode_word(p) != want)
        .cloned()
        .collect();
    other.sort_by_key(|o| std::cmp::Reverse(o.1));
    if !other.is_empty() {
        let bytes: u64 = other.iter().map(|o| o.1).sum();
        why.push(format!(
            "{} of its memory is under its own policy ({}) instead of the candidate's {}",
            format_bytes(bytes),
            other
                .iter()
                .map(|o| o.0.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            cand.policy.describe()
        ));
    }
    if let Some(set) = &cand.cpus {
        let outside: Vec<u32> = cpus.iter().copied().filter(|c| !set.contains(c)).collect();
        if !outside.is_empty() {
            why.push(format!(
                "its threads ran on CPU {} outside the candidate's CPUs {}",
                format_list(&outside),
                format_list(set)
            ));
        }
    }
    Some(Observed {
        samples: samples.len(),
        nodes: largest.nodes.clone(),
        kinds: largest.kinds.clone(),
        policies: largest.policies.clone(),
        thread_cpus: cpus.into_iter().collect(),
        thread_nodes: nodes.into_iter().collect(),
        max_threads: samples.iter().map(|i| i.threads.len()).max().unwrap_or(0),
        fraction_on_intended,
        overriding: (!why.is_empty()).then(|| {
            format!(
                "the program overrides the candidate: {}; its figures are the program's own placement, not {}'s",
                why.join("; "),
                cand.id
            )
        }),
    })
}

/// The mode word of a numa_maps policy: `bind:0-1` gives `bind`, `default` gives `default`,
/// `prefer=relative:1` gives `prefer`.
fn mode_word(policy: &str) -> &str {
    policy.split([':', '=']).next().unwrap_or(policy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::parse_numa_maps;
    use crate::placement::Policy;
    use crate::results::inspect::{NodeMemory, ThreadPlace};

    fn sample(maps: &str, cpus: &[u32]) -> Inspection {
        let mappings = parse_numa_maps(maps);
        let mut policies: std::collections::BTreeMap<String, u64> = Default::default();
        let mut nodes: std::collections::BTreeMap<u32, u64> = Default::default();
        for m in &mappings {
            *policies.entry(m.policy.clone()).or_default() += m.total_pages_4k() * 4096;
            for (n, p) in m.pages_4k() {
                *nodes.entry(n).or_default() += p;
            }
        }
        Inspection {
            schema_version: 1,
            pid: 1,
            name: "prog".into(),
            nodes: nodes
                .into_iter()
                .map(|(node, pages)| NodeMemory {
                    node,
                    pages,
                    bytes: pages * 4096,
                })
                .collect(),
            kinds: vec![],
            policies: policies.into_iter().collect(),
            mappings,
            threads: cpus
                .iter()
                .enumerate()
                .map(|(k, &c)| ThreadPlace {
                    tid: k as u32 + 1,
                    name: "prog".into(),
                    cpu: Some(c),
                    node: Some(c / 2),
                    state: "R".into(),
                })
                .collect(),
            allowed_cpus: vec![],
            allowed_nodes: vec![],
            numastat: vec![],
        }
    }

    fn cand(policy: Policy, cpus: Option<Vec<u32>>) -> Candidate {
        Candidate {
            id: "x".into(),
            label: String::new(),
            policy,
            cpus,
            unavailable: None,
        }
    }

    #[test]
    fn a_program_that_follows_the_candidate_is_credited() {
        let s = sample(
            "1000 bind:1 anon=256 dirty=256 N1=256 kernelpagesize_kB=4\n2000 bind:1 file=/bin/x mapped=4 N1=4 kernelpagesize_kB=4\n",
            &[2, 3],
        );
        let o = observe(&cand(Policy::Bind(vec![1]), Some(vec![2, 3])), &[&s]).unwrap();
        assert_eq!(o.overriding, None);
        assert_eq!(o.fraction_on_intended, Some(1.0));
        assert_eq!(o.thread_cpus, vec![2, 3]);
        assert_eq!(o.thread_nodes, vec![1]);
        assert_eq!(o.nodes[0].node, 1);
    }

    #[test]
    fn its_own_mbind_or_pinning_is_overriding() {
        let s = sample(
            "1000 default anon=10 N0=10 kernelpagesize_kB=4\n2000 interleave:0-1 anon=256 N0=128 N1=128 kernelpagesize_kB=4\n",
            &[0],
        );
        let o = observe(&cand(Policy::FirstTouch, None), &[&s]).unwrap();
        let why = o.overriding.unwrap();
        assert!(
            why.contains("interleave:0-1") && why.contains("1 MiB"),
            "{why}"
        );
        let s = sample("1000 default anon=10 N0=10 kernelpagesize_kB=4\n", &[1]);
        let o = observe(&cand(Policy::FirstTouch, Some(vec![0])), &[&s]).unwrap();
        assert!(o.overriding.unwrap().contains("CPU 1 outside"));
        assert!(observe(&cand(Policy::FirstTouch, None), &[]).is_none());
    }
}
