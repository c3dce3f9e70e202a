//! The tiering part of the environment record: the kernel's ways to move a
//! program's pages between memory tiers while it runs. NUMA balancing's mode bits are decoded
//! from `Environment::numa_balancing`; here are reclaim's demotion switch, the promotion rate
//! limit, the kernel's memory tiers and the DAMON daemons with their schemes. A plain serde
//! type with the pure decision of which of them can move or reclaim a measurement's pages;
//! reading it is `crate::environment::tiering` and `crate::environment::damon`.

use serde::{Deserialize, Serialize};

/// The kernel's tiering state; each fact `None` or empty when the kernel does not expose it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tiering {
    /// `/sys/kernel/mm/numa/demotion_enabled`: reclaim moves cold pages to a lower tier
    /// instead of discarding them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demotion_enabled: Option<bool>,
    /// `/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps`: the most memory-tiering
    /// mode promotes per second. The kernel counts this "MB" as 2^20 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promote_rate_limit_mib_per_s: Option<u64>,
    /// The kernel's memory tiers, fastest (lowest number) first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_tiers: Vec<MemoryTier>,
    /// The DAMON sysfs interface exists (`/sys/kernel/mm/damon/admin`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub damon_available: bool,
    /// The DAMON operations sets this kernel supports (`avail_operations` of the first
    /// context: `paddr`, `vaddr`, `fvaddr`); empty when no context exists to say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub damon_operation_sets: Vec<String>,
    /// Every DAMON daemon (`kdamonds/N`), running or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kdamonds: Vec<Kdamond>,
}

/// One memory tier (`/sys/devices/virtual/memory_tiering/memory_tierN`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryTier {
    /// N of `memory_tierN`.
    pub tier: u32,
    /// Its nodes (`nodelist`).
    pub nodes: Vec<u32>,
    /// The abstract distances the tier covers, derived from N: the kernel numbers a tier by
    /// its first abstract distance divided by 128 (`MEMTIER_CHUNK_BITS` = 7), so tier N holds
    /// N x 128 to N x 128 + 127 (DRAM's default, 576, is in tier 4). A calculation, not a
    /// reading: the kernel does not expose a node's own abstract distance.
    pub abstract_distance_from: u32,
    pub abstract_distance_to: u32,
}

impl MemoryTier {
    /// The tier numbered `tier` holding `nodes`, with its abstract-distance range.
    pub fn new(tier: u32, nodes: Vec<u32>) -> Self {
        MemoryTier {
            tier,
            nodes,
            abstract_distance_from: tier.saturating_mul(128),
            abstract_distance_to: tier.saturating_mul(128).saturating_add(127),
        }
    }
}

/// One DAMON daemon (`/sys/kernel/mm/damon/admin/kdamonds/N`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kdamond {
    pub id: u32,
    /// `on` or `off` (`state`).
    pub state: Option<String>,
    /// The daemon's thread (`pid`; the kernel writes -1 when it is off).
    pub pid: Option<i64>,
    pub contexts: Vec<DamonContext>,
}

impl Kdamond {
    pub fn is_on(&self) -> bool {
        self.state.as_deref() == Some("on")
    }
}

/// One monitoring context of a daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DamonContext {
    pub id: u32,
    /// The operations set: `paddr` (physical memory: every process's pages), `vaddr` or
    /// `fvaddr` (the address space of the targets' processes).
    pub operations: Option<String>,
    /// Sampling and aggregation intervals (`monitoring_attrs/intervals/{sample_us,aggr_us}`):
    /// a scheme's ages count aggregation intervals.
    pub sample_us: Option<u64>,
    pub aggr_us: Option<u64>,
    pub targets: Vec<DamonTarget>,
    pub schemes: Vec<DamonScheme>,
}

/// One monitoring target: a process (vaddr) or physical address ranges (paddr).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DamonTarget {
    pub id: u32,
    /// `pid_target` (0 or absent for paddr).
    pub pid: Option<i64>,
    /// The initial monitoring regions set by the user, `[start, end)` addresses.
    pub regions: Vec<DamonRegion>,
}

/// One address range `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DamonRegion {
    pub start: u64,
    pub end: u64,
}

/// One DAMOS scheme: which regions (access pattern) get which action, within what quota.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DamonScheme {
    pub id: u32,
    /// `pageout`, `migrate_hot`, `migrate_cold`, `lru_prio`, `lru_deprio`, `hugepage`,
    /// `nohugepage`, `cold`, `willneed`, `stat`.
    pub action: Option<String>,
    /// The destination node of `migrate_hot`/`migrate_cold` (`target_nid`; -1 when unset).
    pub target_nid: Option<i64>,
    /// Regions whose accesses per aggregation interval lie in this range...
    pub nr_accesses_min: Option<u64>,
    pub nr_accesses_max: Option<u64>,
    /// ...and whose age (in aggregation intervals) lies in this range.
    pub age_min: Option<u64>,
    pub age_max: Option<u64>,
    /// At most this many bytes acted on per `quota_reset_interval_ms` (0: no limit).
    pub quota_bytes: Option<u64>,
    /// At most this much CPU time per reset interval (0: no limit).
    pub quota_ms: Option<u64>,
    pub quota_reset_interval_ms: Option<u64>,
    /// The watermark metric (`none`, `free_mem_rate`): with `none` the scheme always runs.
    pub watermark_metric: Option<String>,
}

impl DamonScheme {
    /// True for actions that move a page to another node or reclaim it.
    pub fn moves_pages(&self) -> bool {
        matches!(
            self.action.as_deref(),
            Some("pageout" | "migrate_hot" | "migrate_cold")
        )
    }
}

/// Something the kernel runs that can move or reclaim a measurement's pages while it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PageMover {
    /// NUMA balancing mode 1: pages migrate toward the threads that touch them.
    NumaBalancing,
    /// NUMA balancing mode 2 with more than one tier: hot pages on a slow tier are promoted.
    TieringPromotion,
    /// `demotion_enabled` with more than one tier: reclaim demotes cold pages.
    Demotion,
    /// A running kdamond's scheme acting on physical memory (every process's pages).
    DamonScheme {
        kdamond: u32,
        context: u32,
        scheme: u32,
        action: String,
    },
}

/// The kernel's actors that can move or reclaim a measurement's pages while it runs, given
/// the `numa_balancing` value and the tiering state.
pub fn page_movers(numa_balancing: Option<u32>, t: &Tiering) -> Vec<PageMover> {
    let mut out = Vec::new();
    let nb = numa_balancing.unwrap_or(0);
    let tiered = t.memory_tiers.len() > 1;
    if nb & 1 != 0 {
        out.push(PageMover::NumaBalancing);
    }
    if nb & 2 != 0 && tiered {
        out.push(PageMover::TieringPromotion);
    }
    if t.demotion_enabled == Some(true) && tiered {
        out.push(PageMover::Demotion);
    }
    for k in t.kdamonds.iter().filter(|k| k.is_on()) {
        for c in &k.contexts {
            if c.operations.as_deref() != Some("paddr") {
                continue;
            }
            for s in c.schemes.iter().filter(|s| s.moves_pages()) {
                out.push(PageMover::DamonScheme {
                    kdamond: k.id,
                    context: c.id,
                    scheme: s.id,
                    action: s.action.clone().unwrap_or_default(),
                });
            }
        }
    }
    out
}

/// The names of the set bits of `numa_balancing`: `normal` (1), `memory tiering` (2).
pub fn numa_balancing_modes(value: u32) -> Vec<&'static str> {
    let mut m = Vec::new();
    if value & 1 != 0 {
        m.push("normal");
    }
    if value & 2 != 0 {
        m.push("memory tiering");
    }
    m
}

impl Tiering {
    /// True when nothing is known (kept out of the JSON).
    pub fn is_empty(&self) -> bool {
        self == &Tiering::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheme(action: &str) -> DamonScheme {
        DamonScheme {
            id: 0,
            action: Some(action.into()),
            target_nid: None,
            nr_accesses_min: None,
            nr_accesses_max: None,
            age_min: None,
            age_max: None,
            quota_bytes: None,
            quota_ms: None,
            quota_reset_interval_ms: None,
            watermark_metric: None,
        }
    }

    fn daemon(state: &str, ops: &str, action: &str) -> Kdamond {
        Kdamond {
            id: 0,
            state: Some(state.into()),
            pid: Some(77),
            contexts: vec![DamonContext {
                id: 0,
                operations: Some(ops.into()),
                sample_us: None,
                aggr_us: None,
                targets: vec![],
                schemes: vec![scheme(action)],
            }],
        }
    }

    #[test]
    fn movers_need_a_running_paddr_scheme_or_tiers() {
        let mut t = Tiering {
            kdamonds: vec![daemon("on", "paddr", "pageout")],
            ..Tiering::default()
        };
        let m = page_movers(Some(0), &t);
        assert_eq!(m.len(), 1);
        assert_eq!(
            m[0],
            PageMover::DamonScheme {
                kdamond: 0,
                context: 0,
                scheme: 0,
                action: "pageout".into()
            }
        );
        t.kdamonds = vec![daemon("off", "paddr", "pageout")];
        assert!(
            page_movers(Some(0), &t).is_empty(),
            "an off daemon moves nothing"
        );
        t.kdamonds = vec![daemon("on", "vaddr", "migrate_cold")];
        assert!(
            page_movers(Some(0), &t).is_empty(),
            "vaddr acts on its targets only"
        );
        t.kdamonds = vec![daemon("on", "paddr", "stat")];
        assert!(page_movers(Some(0), &t).is_empty(), "stat moves nothing");
        // Mode 2 and demotion matter only with a second tier.
        t.kdamonds.clear();
        t.demotion_enabled = Some(true);
        assert_eq!(page_movers(Some(2), &t), vec![]);
        t.memory_tiers = vec![MemoryTier::new(4, vec![0]), MemoryTier::new(22, vec![1])];
        assert_eq!(
            page_movers(Some(3), &t),
            vec![
                PageMover::NumaBalancing,
                PageMover::TieringPromotion,
                PageMover::Demotion
            ]
        );
    }

    #[test]
    fn modes_and_tier_distances() {
        assert_eq!(numa_balancing_modes(0), Vec::<&str>::new());
        assert_eq!(numa_balancing_modes(3), vec!["normal", "memory tiering"]);
        let t = MemoryTier::new(4, vec![0]);
        assert_eq!(
            (t.abstract_distance_from, t.abstract_distance_to),
            (512, 639)
        );
        assert!(Tiering::default().is_empty());
    }
}
