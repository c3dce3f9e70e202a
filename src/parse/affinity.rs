//! LIKWID's affinity-domain syntax for CPU lists, as likwid-pin and likwid-bench take it:
//! `N:0-3` (the node domain: every CPU this process may use), `S0:0-3` (socket, i.e. package,
//! 0), `M0:` (memory domain: NUMA node 0), `C0:` (last-level cache 0), each followed by
//! positions within the domain (empty: the whole domain), several joined with `@`
//! (`S0:0-1@S1:0-1`). Positions count in LIKWID's order: the first hardware thread of every
//! core, then the second ones, so `N:0-3` names four cores before any SMT sibling. The domains
//! are built from the topology once ([`Domains::of`]); parsing against them is a pure function.
//! LIKWID's `E:` and `L:` expressions and die domains (`D0`) are refused with a sentence: the
//! topology does not know dies, and the expression forms have plain-list equivalents.

use crate::parse::cpulist::{excerpt, parse_list, ListError};
use crate::results::format::format_list;
use crate::results::topology::Topology;

/// One affinity domain: its LIKWID name and its usable CPUs in LIKWID's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    pub name: String,
    pub cpus: Vec<u32>,
}

/// The affinity domains of one machine, as likwid-pin -p lists them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Domains {
    pub domains: Vec<Domain>,
}

impl Domains {
    /// The domains of `topo`, restricted to the CPUs this process may use: `N`, one `S` per
    /// package, one `C` per last-level cache instance and one `M` per NUMA node with CPUs,
    /// each numbered from 0 in ascending order of its lowest id.
    pub fn of(topo: &Topology) -> Domains {
        let usable = topo.usable_cpus();
        let order = |cpus: &[u32]| -> Vec<u32> {
            let mut v: Vec<u32> = cpus
                .iter()
                .copied()
                .filter(|c| usable.contains(c))
                .collect();
            // LIKWID's order: each CPU's rank among its SMT siblings first, then its number.
            v.sort_by_key(|&c| {
                let rank = topo
                    .cpu(c)
                    .and_then(|x| x.siblings.iter().position(|&s| s == c))
                    .unwrap_or(0);
                (rank, c)
            });
            v
        };
        let mut domains = vec![Domain {
            name: "N".into(),
            cpus: order(&usable),
        }];
        let mut packages: Vec<u32> = topo.cpus.iter().filter_map(|c| c.package).collect();
        packages.sort_unstable();
        packages.dedup();
        for (i, p) in packages.iter().enumerate() {
            let cpus: Vec<u32> = topo
                .cpus
                .iter()
                .filter(|c| c.package == Some(*p))
                .map(|c| c.id)
                .collect();
            domains.push(Domain {
                name: format!("S{i}"),
                cpus: order(&cpus),
            });
        }
        let llc = topo
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .map(|c| c.level)
            .max();
        let mut caches: Vec<Vec<u32>> = topo
            .caches
            .iter()
            .filter(|c| Some(c.level) == llc && c.kind != "Instruction")
            .map(|c| c.cpus.clone())
            .collect();
        caches.sort();
        caches.dedup();
        for (i, cpus) in caches.iter().enumerate() {
            domains.push(Domain {
                name: format!("C{i}"),
                cpus: order(cpus),
            });
        }
        let mut nodes: Vec<&crate::results::topology::Node> =
            topo.nodes.iter().filter(|n| !n.cpus.is_empty()).collect();
        nodes.sort_by_key(|n| n.id);
        for (i, n) in nodes.iter().enumerate() {
            domains.push(Domain {
                name: format!("M{i}"),
                cpus: order(&n.cpus),
            });
        }
        Domains { domains }
    }

    fn get(&self, name: &str) -> Option<&Domain> {
        self.domains.iter().find(|d| d.name == name)
    }

    /// The domain names, for messages: `N, S0, C0, M0`.
    pub fn names(&self) -> String {
        self.domains
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// True when `text` is written in LIKWID's domain syntax (a letter, an optional number and a
/// colon, e.g. `N:`, `S0:1`, `E:N:2`), not a plain or numactl list.
pub fn is_domain_syntax(text: &str) -> bool {
    let t = text.trim();
    let Some((head, _)) = t.split_once(':') else {
        return false;
    };
    let mut chars = head.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_digit())
}

/// Parses a LIKWID CPU expression (`N:0-3`, `S0:`, `M1:0,2@C0:1`) against `domains`. The
/// result is sorted and without duplicates, and never empty.
pub fn parse_domains(text: &str, domains: &Domains) -> Result<Vec<u32>, ListError> {
    let t = text.trim();
    let shown = excerpt(t);
    let mut out = Vec::new();
    for term in t.split('@') {
        let term = term.trim();
        let Some((name, list)) = term.split_once(':') else {
            return Err(ListError(format!(
                "`{}` in `{shown}` is not a domain expression; write DOMAIN:POSITIONS, e.g. `N:0-3` or `S0:`",
                excerpt(term)
            )));
        };
        let name = name.trim().to_ascii_uppercase();
        if name == "E" || name == "L" {
            return Err(ListError(format!(
                "LIKWID's `{name}:` expressions are not supported (`{shown}`); write the positions as a list, e.g. `N:0-3`"
            )));
        }
        if name.starts_with('D') {
            return Err(ListError(format!(
                "die domains such as `{name}` are not known to numascope (`{shown}`); use a socket `S0:`, a memory domain `M0:` or a cache domain `C0:`"
            )));
        }
        let Some(domain) = domains.get(&name) else {
            return Err(ListError(format!(
                "`{name}` in `{shown}` is not an affinity domain of this machine; the domains are {}",
                domains.names()
            )));
        };
        if domain.cpus.is_empty() {
            return Err(ListError(format!(
                "domain {name} has no CPU this process may use (`{shown}`); choose another of {}",
                domains.names()
            )));
        }
        let positions = parse_list(list).map_err(|e| ListError(format!("{name}: {}", e.0)))?;
        if positions.is_empty() {
            out.extend(&domain.cpus);
            continue;
        }
        let n = domain.cpus.len();
        for p in positions {
            let Some(&c) = domain.cpus.get(p as usize) else {
                return Err(ListError(format!(
                    "position {p} in `{shown}` is too large (max {}): domain {name} has {n} CPU(s) this process may use",
                    n - 1
                )));
            };
            out.push(c);
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// `domains` as `likwid-pin -p` prints them, one `NAME: LIST` line each (for docs and tests).
pub fn describe(domains: &Domains) -> String {
    domains
        .domains
        .iter()
        .map(|d| format!("{}: {}", d.name, format_list(&d.cpus)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Two packages of two cores with two threads each: CPUs 0-3 on package 0 (siblings
    /// 0/2 and 1/3), 4-7 on package 1, one L3 per package, one node per package.
    fn domains() -> Domains {
        let domain = |name: &str, cpus: Vec<u32>| Domain {
            name: name.into(),
            cpus,
        };
        Domains {
            domains: vec![
                domain("N", vec![0, 1, 4, 5, 2, 3, 6, 7]),
                domain("S0", vec![0, 1, 2, 3]),
                domain("S1", vec![4, 5, 6, 7]),
                domain("C0", vec![0, 1, 2, 3]),
                domain("M1", vec![4, 5, 6, 7]),
            ],
        }
    }

    #[test]
    fn domain_expressions_resolve_in_likwid_order() {
        let d = domains();
        assert_eq!(parse_domains("N:0-3", &d).unwrap(), vec![0, 1, 4, 5]);
        assert_eq!(parse_domains("S1:", &d).unwrap(), vec![4, 5, 6, 7]);
        assert_eq!(
            parse_domains("S0:0-1@S1:0-1", &d).unwrap(),
            vec![0, 1, 4, 5]
        );
        assert_eq!(parse_domains("m1:3", &d).unwrap(), vec![7]);
        assert_eq!(parse_domains("C0:2", &d).unwrap(), vec![2]);
    }

    #[test]
    fn bad_expressions_say_why() {
        let d = domains();
        let e = parse_domains("S0:4", &d).unwrap_err().0;
        assert!(e.contains("too large (max 3)"), "{e}");
        let e = parse_domains("S7:0", &d).unwrap_err().0;
        assert!(e.contains("the domains are N, S0, S1, C0, M1"), "{e}");
        assert!(parse_domains("E:N:2", &d)
            .unwrap_err()
            .0
            .contains("not supported"));
        assert!(parse_domains("D0:0", &d).unwrap_err().0.contains("die"));
        assert!(parse_domains("S0:x", &d).is_err());
    }

    #[test]
    fn recognises_the_syntax() {
        for yes in ["N:", "S0:1", "M12:0-3", "E:N:4", " C0: "] {
            assert!(is_domain_syntax(yes), "{yes}");
        }
        for no in ["0-3", "all", "!0", "+0-1", "", ":3", "0:1", "NS0:1"] {
            assert!(!is_domain_syntax(no), "{no}");
        }
    }

    /// The domains of a replayed 4-socket Xeon with SMT (CPU n and n+32 are siblings) follow
    /// LIKWID's order: first threads of every core, then the siblings.
    #[test]
    fn domains_of_a_replayed_smt_machine() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/topology/xeon-x7560-4s-smt");
        let root = crate::sysroot::SysRoot::snapshot(&dir).unwrap();
        let d = Domains::of(&crate::topology::read_topology(&root).unwrap());
        let names: Vec<&str> = d.domains.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names[..5], ["N", "S0", "S1", "S2", "S3"]);
        assert_eq!(parse_domains("N:0-3", &d).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_domains("S0:8", &d).unwrap(), vec![32]);
        assert_eq!(parse_domains("S1:0-1", &d).unwrap(), vec![8, 9]);
        let m1 = parse_domains("M1:", &d).unwrap();
        assert_eq!(format_list(&m1), "8-15,40-47");
        assert_eq!(parse_domains("C0:", &d).unwrap().len(), 16);
    }

    proptest! {
        #[test]
        fn positions_map_into_the_domain(pos in proptest::collection::btree_set(0u32..8, 1..8)) {
            let d = domains();
            let text = format!("N:{}", format_list(&pos.iter().copied().collect::<Vec<_>>()));
            let got = parse_domains(&text, &d).unwrap();
            let n = &d.domains[0].cpus;
            let mut want: Vec<u32> = pos.iter().map(|&p| n[p as usize]).collect();
            want.sort_unstable();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn out_of_range_positions_are_too_large(p in 8u32..100_000) {
            let e = parse_domains(&format!("N:{p}"), &domains()).unwrap_err().0;
            prop_assert!(e.contains("too large (max 7)"), "{}", e);
        }

        #[test]
        fn never_panics(s in "\\PC{0,24}") {
            let _ = parse_domains(&s, &domains());
            let _ = is_domain_syntax(&s);
        }
    }
}
