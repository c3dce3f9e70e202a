//! The one vocabulary every subcommand takes CPUs and nodes in (`--cpus`, `--cpu-nodes`,
//! `--mem-nodes` and their role-named cousins such as `--load-cpus`): numactl's list syntax
//! everywhere, and LIKWID's affinity domains wherever CPUs are taken, resolved against the
//! topology here so that each flag gives the same answer and the same sentence on every
//! subcommand. It only resolves names to ids; whether a CPU may be pinned or a node holds
//! memory is for the caller to check with its own sentence. docs/cli.md documents the syntax.

use crate::parse::affinity::{is_domain_syntax, parse_domains, Domains};
use crate::parse::cpulist::{excerpt, parse_numactl, IdSpace};
use crate::results::format::format_list;
use crate::results::topology::Topology;

/// A CPU list flag's value (`0-3`, `all`, `!0`, `+0-1`, `N:0-3`, `S0:`, `M1:`, `C0:0`)
/// resolved to CPU ids, ascending. `all`, `!` and `+` are relative to the usable CPUs (online
/// and allowed), as numactl's are to the cpuset.
pub fn cpus(topo: &Topology, flag: &str, text: &str) -> anyhow::Result<Vec<u32>> {
    let usable = topo.usable_cpus();
    let result = if is_domain_syntax(text) {
        parse_domains(text, &Domains::of(topo))
    } else {
        parse_numactl(
            text,
            &IdSpace {
                kind: "CPU",
                max: topo.cpus.iter().map(|c| c.id).max().unwrap_or(0),
                allowed: &usable,
            },
        )
    };
    result.map_err(|e| anyhow::anyhow!("{flag}: {}", e.0))
}

/// A node list flag's value (`0-1`, `all`, `!0`, `+0`) resolved to node ids, ascending.
/// `all`, `!` and `+` are relative to `allowed` (the nodes the flag's role may use: memory
/// nodes for memory, initiator nodes for CPUs).
pub fn nodes(topo: &Topology, flag: &str, text: &str, allowed: &[u32]) -> anyhow::Result<Vec<u32>> {
    if is_domain_syntax(text) {
        anyhow::bail!(
            "{flag} `{}` is an affinity-domain expression, which names CPUs; give node numbers here, e.g. {flag} 0 or {flag} all",
            excerpt(text.trim())
        );
    }
    parse_numactl(
        text,
        &IdSpace {
            kind: "node",
            max: topo.nodes.iter().map(|n| n.id).max().unwrap_or(0),
            allowed,
        },
    )
    .map_err(|e| anyhow::anyhow!("{flag}: {}", e.0))
}

/// The single id of a flag where only one makes sense: `what` says why one (e.g. "latency
/// chases from one CPU").
pub fn one(flag: &str, text: &str, ids: &[u32], kind: &str, what: &str) -> anyhow::Result<u32> {
    match ids {
        [one] => Ok(*one),
        _ => anyhow::bail!(
            "{flag} {} names {} {kind}s ({}), but {what}; give one {kind}, e.g. {flag} {}",
            excerpt(text.trim()),
            ids.len(),
            format_list(ids),
            ids.first().copied().unwrap_or(0)
        ),
    }
}

/// [`cpus`] where one CPU is needed.
pub fn one_cpu(topo: &Topology, flag: &str, text: &str, what: &str) -> anyhow::Result<u32> {
    one(flag, text, &cpus(topo, flag, text)?, "CPU", what)
}

/// [`nodes`] where one node is needed.
pub fn one_node(
    topo: &Topology,
    flag: &str,
    text: &str,
    allowed: &[u32],
    what: &str,
) -> anyhow::Result<u32> {
    one(flag, text, &nodes(topo, flag, text, allowed)?, "node", what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::topology::Cpu;

    /// Two nodes of two CPUs each (0-1 on node 0, 2-3 on node 1); CPU 3 is not allowed.
    fn topo() -> Topology {
        let mut t = crate::testutil::this_machine_one_node();
        t.cpus = (0..4)
            .map(|id| Cpu {
                id,
                node: Some(id / 2),
                package: Some(id / 2),
                core: Some(id % 2),
                siblings: vec![id],
                online: true,
                allowed: id != 3,
            })
            .collect();
        t.nodes = (0..2)
            .map(|id| crate::testutil::node(id, vec![2 * id, 2 * id + 1]))
            .collect();
        t.allowed_nodes = vec![0, 1];
        t
    }

    #[test]
    fn numactl_forms_resolve_against_the_usable_cpus() {
        let t = topo();
        assert_eq!(cpus(&t, "--cpus", "all").unwrap(), vec![0, 1, 2]);
        assert_eq!(cpus(&t, "--cpus", "!0").unwrap(), vec![1, 2]);
        assert_eq!(cpus(&t, "--cpus", "!0-1").unwrap(), vec![2]);
        assert_eq!(cpus(&t, "--cpus", "+1-2").unwrap(), vec![1, 2]);
        assert_eq!(cpus(&t, "--cpus", "1-3").unwrap(), vec![1, 2, 3]);
        let e = cpus(&t, "--cpus", "+3").unwrap_err().to_string();
        assert!(e.contains("too large (max 2)"), "{e}");
        let e = cpus(&t, "--cpus", "4").unwrap_err().to_string();
        assert!(
            e.starts_with("--cpus: ") && e.contains("too large (max 3)"),
            "{e}"
        );
        let e = cpus(&t, "--cpus", "!all").unwrap_err().to_string();
        assert!(e.contains("leaves no CPU"), "{e}");
    }

    #[test]
    fn domains_resolve_against_the_topology() {
        let t = topo();
        assert_eq!(cpus(&t, "--cpus", "N:0-1").unwrap(), vec![0, 1]);
        assert_eq!(cpus(&t, "--cpus", "S1:").unwrap(), vec![2]);
        assert_eq!(cpus(&t, "--cpus", "M0:").unwrap(), vec![0, 1]);
        let e = cpus(&t, "--cpus", "S1:1").unwrap_err().to_string();
        assert!(e.contains("too large (max 0)"), "{e}");
    }

    #[test]
    fn nodes_and_single_values() {
        let t = topo();
        assert_eq!(
            nodes(&t, "--mem-nodes", "all", &[0, 1]).unwrap(),
            vec![0, 1]
        );
        assert_eq!(nodes(&t, "--mem-nodes", "!1", &[0, 1]).unwrap(), vec![0]);
        let e = nodes(&t, "--mem-nodes", "18446744073709551616", &[0, 1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("too large (max 1)"), "{e}");
        assert!(nodes(&t, "--mem-nodes", "S0:", &[0]).is_err());
        let e = one_cpu(&t, "--cpus", "0-1", "latency chases from one CPU")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "--cpus 0-1 names 2 CPUs (0-1), but latency chases from one CPU; give one CPU, e.g. --cpus 0");
        assert_eq!(one_node(&t, "--mem-nodes", "+1", &[0, 1], "x").unwrap(), 1);
    }
}
