//! What `bandwidth --peak` measures, planned from the topology alone (pure, so the planning is
//! tested on replayed machines with several nodes and L3 domains): the mixes (MLC's -W
//! traffic patterns), the scopes (each NUMA node and each package with all its usable CPUs,
//! at 1, half and all of them), and per node its L3 domains (each alone, every one at once).
//! A run is planned once per mix and CPU set: a package that holds exactly one node's CPUs,
//! or a node's all-domain read run that is its all-CPU read run, is measured once and the
//! sentence in `notes` says so. Nothing here measures.

use std::collections::BTreeSet;

use crate::results::format::format_list;
use crate::results::loaded::LoadKernel;
use crate::results::peak::PeakMixInfo;
use crate::results::topology::Topology;

use super::plan::node_cpus_cores_first;

/// The `--mix` names of `--mix all`, in measurement order.
pub const ALL_MIXES: &[&str] = &[
    "read",
    "3:1",
    "2:1",
    "1:1",
    "write-nt",
    "2:1-nt",
    "triad-like",
];

/// One traffic pattern of the peak measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeakMix {
    /// The bandwidth engine's read kernel (SIMD loads over one array per thread).
    Read,
    /// A load kernel walking a private buffer line by line at full speed.
    Load(LoadKernel),
}

impl PeakMix {
    /// One `--mix` name: `read`, `write`, `write-nt`, a ratio `R:W` (3:1, 2:1, 1:1), the same
    /// with `-nt` (non-temporal writes), or `triad-like`.
    pub fn parse(s: &str) -> Result<PeakMix, String> {
        match s.trim() {
            "read" => Ok(PeakMix::Read),
            t => LoadKernel::from_mix_name(t)
                .map(PeakMix::Load)
                .map_err(|_| {
                    format!(
                    "--mix `{t}` is not a peak mix; use all or a list of {}, write, 3:1-nt, 1:1-nt",
                    ALL_MIXES.join(", ")
                )
                }),
        }
    }

    /// `--mix`: `all` or a comma-separated list, duplicates dropped, order kept.
    pub fn parse_list(text: &str) -> Result<Vec<PeakMix>, String> {
        let t = text.trim();
        let names: Vec<&str> = if t.eq_ignore_ascii_case("all") {
            ALL_MIXES.to_vec()
        } else {
            t.split(',').collect()
        };
        let mut out = Vec::new();
        for n in names {
            if n.trim().is_empty() {
                return Err(format!(
                    "--mix `{t}` has an empty entry; give all or names such as read,2:1"
                ));
            }
            let m = PeakMix::parse(n)?;
            if !out.contains(&m) {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// The `--mix` name.
    pub fn name(&self) -> String {
        match self {
            PeakMix::Read => "read".into(),
            PeakMix::Load(LoadKernel::Read) => "read-lines".into(),
            PeakMix::Load(LoadKernel::Write) => "write".into(),
            PeakMix::Load(LoadKernel::WriteNt) => "write-nt".into(),
            PeakMix::Load(LoadKernel::Mix { reads, writes }) => format!("{reads}:{writes}"),
            PeakMix::Load(LoadKernel::MixNt { reads, writes }) => format!("{reads}:{writes}-nt"),
            PeakMix::Load(LoadKernel::Triad) => "triad-like".into(),
        }
    }

    /// Lines read and written per `reads + writes` lines.
    pub fn ratio(&self) -> (u32, u32) {
        match self {
            PeakMix::Read => (1, 0),
            PeakMix::Load(k) => k.ratio(),
        }
    }

    pub fn non_temporal(&self) -> bool {
        matches!(self, PeakMix::Load(k) if k.non_temporal())
    }

    /// Arrays per thread (three for the triad-like mix).
    pub fn arrays(&self) -> usize {
        match self {
            PeakMix::Read => 1,
            PeakMix::Load(k) => k.lines_per_step(),
        }
    }

    /// The mix and what counts as a byte, for the report.
    pub fn info(&self) -> PeakMixInfo {
        let (reads, writes) = self.ratio();
        let description = match self {
            PeakMix::Read => "all reads: the read kernel's SIMD loads over one array".to_string(),
            PeakMix::Load(LoadKernel::Triad) => {
                "two reads per write, STREAM-triad-like: a[i] = b[i] + c[i] over three arrays, normal stores".into()
            }
            PeakMix::Load(LoadKernel::WriteNt) => "non-temporal writes only".into(),
            PeakMix::Load(LoadKernel::Write) => "normal writes only".into(),
            PeakMix::Load(k) => format!(
                "of every {} lines, {reads} read and {writes} written with {} stores",
                reads + writes,
                if k.non_temporal() { "non-temporal" } else { "normal" }
            ),
        };
        let counting = if writes == 0 {
            "bytes read; no stores, so the DRAM estimate is the same".to_string()
        } else if self.non_temporal() {
            "bytes read + bytes written; non-temporal stores need no read-for-ownership, so the DRAM estimate is the same".to_string()
        } else {
            "bytes read + bytes written; the read-for-ownership of each written line is not counted here and is added in the DRAM estimate".to_string()
        };
        PeakMixInfo {
            name: self.name(),
            description,
            reads,
            writes,
            non_temporal: self.non_temporal(),
            counting,
        }
    }
}

/// The scope a run was planned for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Node,
    Package,
    L3Domain,
}

impl Level {
    pub fn word(self) -> &'static str {
        match self {
            Level::Node => "node",
            Level::Package => "package",
            Level::L3Domain => "l3-domain",
        }
    }
}

/// One mix on one CPU set.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    pub level: Level,
    /// Node or package id, or the domain's first CPU.
    pub id: u32,
    pub mix: PeakMix,
    /// One thread per CPU, in this order.
    pub cpus: Vec<u32>,
}

/// A node or a package with the thread counts measured on it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedScope {
    pub level: Level,
    pub id: u32,
    /// Usable CPUs in the order threads are added (one per core first).
    pub cpus: Vec<u32>,
    pub thread_counts: Vec<usize>,
    /// `[mix][thread count]` -> index into `PeakPlan::runs`.
    pub runs: Vec<Vec<usize>>,
}

/// One L3 domain of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedDomain {
    pub first_cpu: u32,
    pub cpus: Vec<u32>,
    pub l3_bytes: u64,
    /// Its run alone (several domains on the node only).
    pub alone: Option<usize>,
}

/// The L3 domains of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedDomains {
    pub node: u32,
    pub domains: Vec<PlannedDomain>,
    /// Every domain at once (read); for one domain, the node's all-CPU read run.
    pub all: Option<usize>,
}

/// Everything `--peak` will run, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct PeakPlan {
    pub mixes: Vec<PeakMix>,
    pub scopes: Vec<PlannedScope>,
    pub domains: Vec<PlannedDomains>,
    pub runs: Vec<PlannedRun>,
    pub notes: Vec<String>,
}

/// 1, half (rounded up) and all of `n` CPUs, ascending, without duplicates.
pub fn thread_counts(n: usize) -> Vec<usize> {
    let s: BTreeSet<usize> = [1, n.div_ceil(2), n]
        .into_iter()
        .filter(|&c| c >= 1)
        .collect();
    s.into_iter().collect()
}

impl PeakPlan {
    /// The run of `mix` on `cpus`, planned once: a second request for the same mix and CPU
    /// set returns the first one's index.
    fn run_of(&mut self, level: Level, id: u32, mix: PeakMix, cpus: Vec<u32>) -> usize {
        let key: BTreeSet<u32> = cpus.iter().copied().collect();
        if let Some(i) = self
            .runs
            .iter()
            .position(|r| r.mix == mix && r.cpus.iter().copied().collect::<BTreeSet<_>>() == key)
        {
            return i;
        }
        self.runs.push(PlannedRun {
            level,
            id,
            mix,
            cpus,
        });
        self.runs.len() - 1
    }

    fn add_scope(&mut self, level: Level, id: u32, cpus: Vec<u32>) {
        let counts = thread_counts(cpus.len());
        let mixes = self.mixes.clone();
        let runs = mixes
            .iter()
            .map(|&m| {
                counts
                    .iter()
                    .map(|&t| self.run_of(level, id, m, cpus[..t].to_vec()))
                    .collect()
            })
            .collect();
        self.scopes.push(PlannedScope {
            level,
            id,
            cpus,
            thread_counts: counts,
            runs,
        });
    }
}

/// Plans the peak measurement over the initiator `nodes` (each must have usable CPUs):
/// every node, every package of their CPUs not already measured as a node, and with
/// `domains` every node's L3 domains.
pub fn plan(topo: &Topology, mixes: &[PeakMix], nodes: &[u32], domains: bool) -> PeakPlan {
    let mut p = PeakPlan {
        mixes: mixes.to_vec(),
        scopes: vec![],
        domains: vec![],
        runs: vec![],
        notes: vec![],
    };
    let node_cpus: Vec<(u32, Vec<u32>)> = nodes
        .iter()
        .map(|&n| (n, node_cpus_cores_first(topo, n)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    for (n, cpus) in &node_cpus {
        p.add_scope(Level::Node, *n, cpus.clone());
    }
    plan_packages(topo, &node_cpus, &mut p);
    if domains {
        for (n, cpus) in &node_cpus {
            plan_domains(topo, *n, cpus, &mut p);
        }
    }
    p
}

/// One scope per package, its CPUs round robin over its nodes (one per core first), unless
/// its CPUs are exactly one node's.
fn plan_packages(topo: &Topology, node_cpus: &[(u32, Vec<u32>)], p: &mut PeakPlan) {
    let package_of = |c: u32| topo.cpu(c).and_then(|x| x.package);
    let all: Vec<u32> = node_cpus.iter().flat_map(|(_, c)| c.clone()).collect();
    if all.iter().any(|&c| package_of(c).is_none()) {
        p.notes.push(
            "the CPUs' packages are not known here (no physical_package_id), so there is no per-package figure".into(),
        );
        return;
    }
    let packages: BTreeSet<u32> = all.iter().filter_map(|&c| package_of(c)).collect();
    for pkg in packages {
        // Round robin over the package's nodes, each node's CPUs one per core first.
        let per_node: Vec<Vec<u32>> = node_cpus
            .iter()
            .map(|(_, c)| {
                c.iter()
                    .copied()
                    .filter(|&x| package_of(x) == Some(pkg))
                    .collect()
            })
            .filter(|v: &Vec<u32>| !v.is_empty())
            .collect();
        let mut cpus = Vec::new();
        for i in 0..per_node.iter().map(Vec::len).max().unwrap_or(0) {
            cpus.extend(per_node.iter().filter_map(|v| v.get(i)));
        }
        if per_node.len() == 1 {
            let node = node_cpus
                .iter()
                .find(|(_, c)| c.contains(&cpus[0]))
                .map_or(0, |(n, _)| *n);
            p.notes.push(format!(
                "package {pkg} holds the usable CPUs of node {node} only, so its figures are node {node}'s (measured once)"
            ));
            continue;
        }
        p.add_scope(Level::Package, pkg, cpus);
    }
}

/// The L3 domains of `node` (those whose CPUs are all on it): each alone and all at once
/// with the read mix; one domain is said and not compared with itself.
fn plan_domains(topo: &Topology, node: u32, node_cpus: &[u32], p: &mut PeakPlan) {
    let mut rows = Vec::new();
    for d in &topo.layout.l3_domains {
        let cpus: Vec<u32> = node_cpus
            .iter()
            .copied()
            .filter(|c| d.cpus.contains(c))
            .collect();
        if cpus.is_empty() {
            continue;
        }
        if d.nodes != [node] {
            p.notes.push(format!(
                "the L3 domain of CPUs {} spans nodes {}, so it is not measured as one of node {node}'s domains",
                format_list(&d.cpus),
                format_list(&d.nodes)
            ));
            continue;
        }
        rows.push(PlannedDomain {
            first_cpu: cpus.iter().copied().min().unwrap_or(0),
            cpus,
            l3_bytes: d.size_bytes,
            alone: None,
        });
    }
    rows.sort_by_key(|d| d.first_cpu);
    if rows.is_empty() {
        p.notes.push(format!(
            "node {node}: no L3 domain is known (no L3 cache in sysfs), so there is no per-domain figure"
        ));
        return;
    }
    let all = if rows.len() == 1 {
        p.run_of(Level::Node, node, PeakMix::Read, node_cpus.to_vec())
    } else {
        for d in &mut rows {
            d.alone = Some(p.run_of(Level::L3Domain, d.first_cpu, PeakMix::Read, d.cpus.clone()));
        }
        let every: Vec<u32> = rows.iter().flat_map(|d| d.cpus.clone()).collect();
        p.run_of(Level::Node, node, PeakMix::Read, every)
    };
    p.domains.push(PlannedDomains {
        node,
        domains: rows,
        all: Some(all),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::topology_fixture as fixture;

    #[test]
    fn mixes_parse_with_their_names_and_refuse_with_the_list() {
        let all = PeakMix::parse_list("all").unwrap();
        let names: Vec<String> = all.iter().map(PeakMix::name).collect();
        assert_eq!(names, ALL_MIXES);
        assert_eq!(
            PeakMix::parse_list("read, 2:1,read").unwrap(),
            vec![
                PeakMix::Read,
                PeakMix::Load(LoadKernel::Mix {
                    reads: 2,
                    writes: 1
                })
            ]
        );
        let e = PeakMix::parse_list("read,copy").unwrap_err();
        assert!(e.contains("`copy`") && e.contains("triad-like"), "{e}");
        assert!(PeakMix::parse_list("read,,2:1").is_err());
        let t = PeakMix::parse("triad-like").unwrap().info();
        assert_eq!((t.reads, t.writes, t.non_temporal), (2, 1, false));
        assert!(t.counting.contains("read-for-ownership"));
        assert_eq!(PeakMix::parse("triad-like").unwrap().arrays(), 3);
        assert!(PeakMix::parse("2:1-nt").unwrap().info().non_temporal);
    }

    #[test]
    fn thread_counts_are_one_half_and_all() {
        assert_eq!(thread_counts(1), vec![1]);
        assert_eq!(thread_counts(2), vec![1, 2]);
        assert_eq!(thread_counts(3), vec![1, 2, 3]);
        assert_eq!(thread_counts(32), vec![1, 16, 32]);
    }

    /// NPS4, two sockets, 8 CPUs per node in two L3 domains of 4: every node and both
    /// packages at 1, half and all CPUs; per node, each domain alone and both at once (the
    /// node's all-CPU read run, planned once).
    #[test]
    fn nps4_plans_nodes_packages_and_two_domains_per_node() {
        let t = fixture("nps4-2s-64cpu");
        let p = plan(&t, &[PeakMix::Read], &t.initiator_nodes(), true);
        let scopes: Vec<(Level, u32, usize)> = p
            .scopes
            .iter()
            .map(|s| (s.level, s.id, s.cpus.len()))
            .collect();
        assert_eq!(scopes.len(), 10);
        assert_eq!(scopes[0], (Level::Node, 0, 8));
        assert_eq!(scopes[8], (Level::Package, 0, 32));
        assert_eq!(scopes[9], (Level::Package, 1, 32));
        assert_eq!(p.scopes[0].thread_counts, vec![1, 4, 8]);
        // A package's threads go round robin over its four nodes: half of it spans them all.
        let pkg = &p.scopes[8];
        assert_eq!(&pkg.cpus[..4], &[0, 8, 16, 24]);
        let half = &p.runs[pkg.runs[0][1]].cpus;
        let nodes: BTreeSet<u32> = half.iter().filter_map(|&c| t.node_of_cpu(c)).collect();
        assert_eq!(nodes.len(), 4);
        // Domains: node 1 has CPUs 8-11 and 12-15.
        assert_eq!(p.domains.len(), 8);
        let d = &p.domains[1];
        assert_eq!(d.node, 1);
        let cpus: Vec<&[u32]> = d.domains.iter().map(|x| x.cpus.as_slice()).collect();
        assert_eq!(cpus, vec![&[8, 9, 10, 11][..], &[12, 13, 14, 15][..]]);
        for x in &d.domains {
            let r = &p.runs[x.alone.unwrap()];
            assert_eq!((r.mix, &r.cpus), (PeakMix::Read, &x.cpus));
        }
        // The first domain alone is node 1's half (CPUs 8-11): the same run, planned once;
        // the second is a run of its own.
        assert_eq!(d.domains[0].alone, Some(p.scopes[1].runs[0][1]));
        let second = &p.runs[d.domains[1].alone.unwrap()];
        assert_eq!((second.level, second.id), (Level::L3Domain, 12));
        // Both domains at once is node 1's all-CPU read run: planned once.
        assert_eq!(d.all, Some(p.scopes[1].runs[0][2]));
        // Runs: 8 nodes x 3 counts + 2 packages x 2 counts (a package's one thread is its
        // first node's one-thread run) + the 8 second domains alone.
        assert_eq!(p.scopes[8].runs[0][0], p.scopes[0].runs[0][0]);
        assert_eq!(p.runs.len(), 8 * 3 + 2 * 2 + 8);
        assert!(p.notes.is_empty(), "{:?}", p.notes);
    }

    /// The synthetic EPYC 7763 in NPS4: 32 CPUs per node (SMT), two L3 domains of 16 CPUs each.
    #[test]
    fn epyc_nps4_domains_hold_their_smt_siblings() {
        let t = fixture("epyc7763-2s-nps4-synthetic");
        let mixes = PeakMix::parse_list("read,1:1").unwrap();
        let p = plan(&t, &mixes, &[2], true);
        // Only node 2 asked: its package holds other nodes too, but of the selection only
        // node 2's CPUs, so the package is node 2 (said once).
        assert_eq!(p.scopes.len(), 1);
        assert!(
            p.notes[0].contains("package 0") && p.notes[0].contains("node 2"),
            "{:?}",
            p.notes
        );
        assert_eq!(p.scopes[0].thread_counts, vec![1, 16, 32]);
        assert_eq!(p.scopes[0].runs.len(), 2, "one row of runs per mix");
        let d = &p.domains[0];
        assert_eq!(d.domains.len(), 2);
        assert_eq!(d.domains[0].cpus.len(), 16);
        assert!(d.domains[0].cpus.contains(&32) && d.domains[0].cpus.contains(&160));
        assert!(d.domains[1].cpus.contains(&40) && d.domains[1].cpus.contains(&168));
        assert_eq!(d.domains[0].l3_bytes, 32 << 20);
        // 2 mixes x 3 counts + 2 domains alone; all at once = the node's all-CPU read run.
        assert_eq!(p.runs.len(), 2 * 3 + 2);
        assert_eq!(d.all, Some(p.scopes[0].runs[0][2]));
    }

    /// One node and one L3 domain (this machine's shape): the domain is said, not measured
    /// against itself, and its figure is the node's all-CPU read run.
    #[test]
    fn one_domain_is_not_compared_with_itself() {
        let mut t = crate::testutil::this_machine_one_node();
        let cpus = t.usable_cpus();
        t.layout.l3_domains = vec![crate::results::topology::L3Domain {
            nodes: vec![0],
            cpus: cpus.clone(),
            size_bytes: 32 << 20,
        }];
        let p = plan(&t, &[PeakMix::Read], &[0], true);
        let d = &p.domains[0];
        assert_eq!(d.domains.len(), 1);
        assert_eq!(d.domains[0].alone, None);
        assert_eq!(d.all, Some(*p.scopes[0].runs[0].last().unwrap()));
        assert_eq!(p.runs.len(), thread_counts(cpus.len()).len());
        // No L3 known: said in a note, no table.
        t.layout.l3_domains.clear();
        let p = plan(&t, &[PeakMix::Read], &[0], true);
        assert!(p.domains.is_empty());
        assert!(
            p.notes.iter().any(|n| n.contains("no L3 domain")),
            "{:?}",
            p.notes
        );
    }
}
