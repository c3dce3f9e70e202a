//! `app --tiering`: candidates whose placement the kernel manages while the program runs,
//! beside the static ones. Each starts the program with the default policy
//! (first touch) and puts system-wide settings in force for the run only:
//!
//! - `kernel:numa-balancing`: `numa_balancing` = 1, pages migrate toward the threads that
//!   touch them (machines with more than one memory node);
//! - `kernel:tiering`: `numa_balancing` = 2 (memory-tiering mode: hot pages on a slower tier
//!   are promoted) and `demotion_enabled` = true (reclaim demotes cold pages), on machines
//!   whose kernel puts memory in more than one tier;
//! - `kernel:damon`: a DAMON daemon on physical memory with two schemes, `migrate_hot` to the
//!   fastest tier's node and `migrate_cold` to the slowest's (Linux 6.11+), where the DAMON
//!   sysfs interface exists and no daemon is configured (adding one recreates them all).
//!
//! [`Knobs`] writes the settings and restores what was there on drop, so every exit path
//! (the program failing, a stop signal ending the run, an error) puts them back, as the
//! weights' guard does. Around each run `/proc/vmstat`'s promotion, demotion and migration
//! counters are read, and each sample's pages per node kept for the timeline.

use crate::results::app_tiering::{
    KernelManaged, KnobSetting, PagesSample, RunCounters, VMSTAT_COUNTERS,
};
use crate::results::inspect::Inspection;
use crate::results::topology::Topology;
use crate::sysroot::warn::shown;
use crate::sysroot::SysRoot;

use super::error::AppError;

const BALANCING: &str = "proc/sys/kernel/numa_balancing";
const DEMOTION: &str = "sys/kernel/mm/numa/demotion_enabled";
const KDAMONDS: &str = "sys/kernel/mm/damon/admin/kdamonds";

/// The kernel-managed candidates' ids, in the order `--tiering` adds them.
pub const IDS: [&str; 3] = ["kernel:numa-balancing", "kernel:tiering", "kernel:damon"];

/// True for a kernel-managed candidate's id.
pub fn is_kernel(id: &str) -> bool {
    IDS.contains(&id)
}

/// The candidate's label.
pub fn label(id: &str) -> &'static str {
    match id {
        "kernel:numa-balancing" => "first touch, with NUMA balancing (numa_balancing = 1) migrating pages toward the threads; set for each run, restored after",
        "kernel:tiering" => "first touch, with memory-tiering mode (numa_balancing = 2: hot pages promoted) and demotion on reclaim; set for each run, restored after",
        _ => "first touch, with a DAMON daemon migrating hot pages to the fastest tier and cold pages to the slowest; created for each run, removed after",
    }
}

/// The kernel-managed candidates for `--tiering`, each marked unavailable (with the reason)
/// where this machine cannot run it. Refused in one sentence when none can run, or when
/// this is not root (the settings are system-wide).
pub fn candidates(topo: &Topology, root: &SysRoot) -> Result<Vec<super::Candidate>, AppError> {
    if crate::sys::process::effective_uid() != 0 {
        return Err(AppError::environment(
            "--tiering changes system-wide kernel settings for each run (and restores them), which needs root; run as root or leave out --tiering",
        ));
    }
    let out: Vec<super::Candidate> = IDS
        .iter()
        .map(|id| super::Candidate {
            id: id.to_string(),
            label: label(id).into(),
            policy: crate::placement::Policy::FirstTouch,
            cpus: None,
            unavailable: unavailable(topo, root, id),
        })
        .collect();
    if out.iter().all(|c| c.unavailable.is_some()) {
        let why: Vec<String> = out
            .iter()
            .map(|c| format!("{}: {}", c.id, c.unavailable.as_deref().unwrap_or("")))
            .collect();
        return Err(AppError::environment(format!(
            "--tiering has no kernel-managed candidate this machine can run ({})",
            why.join("; ")
        )));
    }
    Ok(out)
}

/// Why `id` cannot run on this machine, in one sentence; `None` when it can.
pub fn unavailable(topo: &Topology, root: &SysRoot, id: &str) -> Option<String> {
    let env = &topo.environment;
    let tiers = &env.tiering.memory_tiers;
    let needs = |rel: &str, what: &str| {
        (!root.exists(rel)).then(|| format!("this kernel has no {} ({what})", shown(rel)))
    };
    match id {
        "kernel:numa-balancing" => needs(BALANCING, "built without CONFIG_NUMA_BALANCING").or_else(|| {
            (topo.memory_nodes().len() < 2)
                .then(|| "NUMA balancing needs more than one memory node, and this machine has one".into())
        }),
        "kernel:tiering" => needs(BALANCING, "built without CONFIG_NUMA_BALANCING")
            .or_else(|| needs(DEMOTION, "demotion needs Linux 5.15+"))
            .or_else(|| {
                (tiers.len() < 2).then(|| format!(
                    "memory-tiering mode needs a slower memory tier to promote from, and this kernel puts all memory in {}",
                    tiers.first().map_or("one tier".into(), |t| format!("tier {}", t.tier))
                ))
            }),
        _ => needs(KDAMONDS, "DAMON's sysfs interface: CONFIG_DAMON_SYSFS")
            .or_else(|| {
                (tiers.len() < 2).then(|| "DAMON migration between tiers needs more than one memory tier".into())
            })
            .or_else(|| {
                (!env.tiering.kdamonds.is_empty()).then(|| format!(
                    "{} DAMON daemon(s) are configured here (kdamond.{} first), and adding one through sysfs recreates them all; leave DAMON to its owner or remove them first",
                    env.tiering.kdamonds.len(),
                    env.tiering.kdamonds[0].id
                ))
            }),
    }
}

/// The settings `id` writes, in order, each with the value that undoes it when the file had
/// none to restore (DAMON's daemon is stopped and removed).
fn plan(topo: &Topology, root: &SysRoot, id: &str) -> Vec<(String, String)> {
    match id {
        "kernel:numa-balancing" => vec![(BALANCING.into(), "1".into())],
        "kernel:tiering" => vec![
            (DEMOTION.into(), "true".into()),
            (BALANCING.into(), "2".into()),
        ],
        _ => damon_plan(topo, largest_ram(root)),
    }
}

/// DAMON writes: one daemon, one paddr context over the largest System RAM range, two
/// schemes; `state` on last.
fn damon_plan(topo: &Topology, ram: Option<(u64, u64)>) -> Vec<(String, String)> {
    let tiers = &topo.environment.tiering.memory_tiers;
    let fast = tiers
        .first()
        .and_then(|t| t.nodes.first())
        .copied()
        .unwrap_or(0);
    let slow = tiers
        .last()
        .and_then(|t| t.nodes.first())
        .copied()
        .unwrap_or(0);
    let c = format!("{KDAMONDS}/0/contexts/0");
    let s = |k: u32, f: &str| format!("{c}/schemes/{k}/{f}");
    let mut w: Vec<(String, String)> = vec![
        (format!("{KDAMONDS}/nr_kdamonds"), "1".into()),
        (format!("{KDAMONDS}/0/contexts/nr_contexts"), "1".into()),
        (format!("{c}/operations"), "paddr".into()),
        (format!("{c}/targets/nr_targets"), "1".into()),
    ];
    if let Some((start, end)) = ram {
        let r = format!("{c}/targets/0/regions");
        w.push((format!("{r}/nr_regions"), "1".into()));
        w.push((format!("{r}/0/start"), start.to_string()));
        w.push((format!("{r}/0/end"), end.to_string()));
    }
    w.extend([
        (format!("{c}/schemes/nr_schemes"), "2".into()),
        (s(0, "action"), "migrate_hot".into()),
        (s(0, "target_nid"), fast.to_string()),
        (s(0, "access_pattern/nr_accesses/min"), "1".into()),
        (s(1, "action"), "migrate_cold".into()),
        (s(1, "target_nid"), slow.to_string()),
        (s(1, "access_pattern/nr_accesses/max"), "0".into()),
        (s(1, "access_pattern/age/min"), "10".into()),
    ]);
    w.push((format!("{KDAMONDS}/0/state"), "on".into()));
    w
}

/// The largest `System RAM` range of `/proc/iomem` as `[start, end)` (root sees the real
/// addresses; others see zeros, which give `None`).
fn largest_ram(root: &SysRoot) -> Option<(u64, u64)> {
    let text = root.read_opt("proc/iomem").ok().flatten()?;
    text.lines()
        .filter(|l| !l.starts_with(' ') && l.trim_end().ends_with(": System RAM"))
        .filter_map(|l| {
            let (a, b) = l.split(" : ").next()?.split_once('-')?;
            let a = u64::from_str_radix(a.trim(), 16).ok()?;
            let b = u64::from_str_radix(b.trim(), 16).ok()?;
            (b > a).then_some((a, b + 1))
        })
        .max_by_key(|(a, b)| b - a)
}

/// The settings in force for one run; restored (in reverse order) on drop.
pub struct Knobs {
    root: SysRoot,
    undo: Vec<(String, String)>,
    pub settings: Vec<KnobSetting>,
}

impl Knobs {
    /// Writes `id`'s settings. A refused write (not root, or a value this kernel does not
    /// take) undoes what was written and refuses in one sentence.
    pub fn set(topo: &Topology, root: &SysRoot, id: &str) -> Result<Knobs, AppError> {
        let mut k = Knobs {
            root: root.clone(),
            undo: Vec::new(),
            settings: Vec::new(),
        };
        let damon = id == "kernel:damon";
        if damon {
            // Stop and remove the daemon however far its setup got.
            k.undo.push((format!("{KDAMONDS}/nr_kdamonds"), "0".into()));
            k.undo.push((format!("{KDAMONDS}/0/state"), "off".into()));
        }
        for (rel, value) in plan(topo, root, id) {
            let was = root
                .read_trimmed_opt(&rel)
                .ok()
                .flatten()
                .unwrap_or_default();
            if let Err(e) = root.write(&rel, &format!("{value}\n")) {
                return Err(AppError::environment(format!(
                    "`{id}` cannot write {value} to {} ({e}); these settings are system-wide: run as root, on a kernel that has them, or leave out --tiering",
                    shown(&rel)
                )));
            }
            if !damon {
                k.undo.push((rel.clone(), was.clone()));
            }
            k.settings.push(KnobSetting {
                file: shown(&rel),
                value,
                was,
            });
        }
        Ok(k)
    }
}

impl Drop for Knobs {
    fn drop(&mut self) {
        for (rel, value) in self.undo.iter().rev() {
            let _ = self.root.write(rel, &format!("{value}\n"));
        }
    }
}

/// The recorded counters, read now (absent ones left out).
pub fn read_vmstat(root: &SysRoot) -> Vec<(String, u64)> {
    let text = root
        .read_opt("proc/vmstat")
        .ok()
        .flatten()
        .unwrap_or_default();
    VMSTAT_COUNTERS
        .iter()
        .filter_map(|name| {
            text.lines().find_map(|l| {
                let (k, v) = l.split_once(' ')?;
                (k == *name).then(|| Some((k.to_string(), v.trim().parse::<u64>().ok()?)))?
            })
        })
        .collect()
}

/// `after - before` per counter present in both (a counter never goes down; a wrapped one
/// counts 0).
pub fn delta(before: &[(String, u64)], after: &[(String, u64)]) -> Vec<(String, u64)> {
    after
        .iter()
        .filter_map(|(k, a)| {
            let b = before.iter().find(|(n, _)| n == k)?.1;
            Some((k.clone(), a.saturating_sub(b)))
        })
        .collect()
}

/// Adds one run to the candidate's record; the first measured run's samples become the
/// timeline.
pub fn record(
    k: &mut KernelManaged,
    round: usize,
    warmup: bool,
    counters: Vec<(String, u64)>,
    samples: &[Inspection],
) {
    k.runs.push(RunCounters {
        round,
        warmup,
        counters,
    });
    if !warmup && k.timeline.is_empty() {
        k.timeline = samples
            .iter()
            .enumerate()
            .map(|(sample, i)| PagesSample {
                sample,
                pages: i.nodes.iter().map(|n| (n.node, n.pages)).collect(),
            })
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn vmstat_deltas_and_knobs_restore_on_drop() {
        let (d, root) = test_root(&[
            (
                "proc/vmstat",
                "nr_free_pages 5\npgpromote_success 10\nnuma_hint_faults 7\n",
            ),
            (BALANCING, "0\n"),
            (DEMOTION, "false\n"),
        ]);
        let before = read_vmstat(&root);
        assert_eq!(
            before,
            vec![
                ("pgpromote_success".to_string(), 10),
                ("numa_hint_faults".to_string(), 7)
            ]
        );
        let after = vec![
            ("pgpromote_success".to_string(), 25),
            ("numa_hint_faults".to_string(), 7),
        ];
        assert_eq!(delta(&before, &after)[0].1, 15);
        let root = SysRoot::live_at(d.path());
        let topo = crate::render::fixture::opteron_example().topology;
        {
            let k = Knobs::set(&topo, &root, "kernel:tiering").unwrap();
            assert_eq!(
                std::fs::read_to_string(d.path().join(BALANCING)).unwrap(),
                "2\n"
            );
            assert_eq!(
                std::fs::read_to_string(d.path().join(DEMOTION)).unwrap(),
                "true\n"
            );
            assert_eq!(k.settings[1].was, "0");
        }
        assert_eq!(
            std::fs::read_to_string(d.path().join(BALANCING)).unwrap(),
            "0\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join(DEMOTION)).unwrap(),
            "false\n"
        );
    }

    #[test]
    fn one_tier_refuses_tiering_in_one_sentence() {
        let (_d, root) = test_root(&[(BALANCING, "0\n"), (DEMOTION, "false\n")]);
        let mut topo = crate::render::fixture::opteron_example().topology;
        topo.environment.tiering.memory_tiers =
            vec![crate::results::environment_tiering::MemoryTier::new(
                4,
                vec![0, 1],
            )];
        let why = unavailable(&topo, &root, "kernel:tiering").unwrap();
        assert!(why.contains("all memory in tier 4"), "{why}");
        assert_eq!(unavailable(&topo, &root, "kernel:numa-balancing"), None);
        assert!(unavailable(&topo, &root, "kernel:damon")
            .unwrap()
            .contains("DAMON"));
        let (_d, root) = test_root(&[(
            "proc/iomem",
            "00000000-00000fff : Reserved\n00001000-0009fbff : System RAM\n100000000-13fffffff : System RAM\n  100000000-100ffffff : Kernel code\n",
        )]);
        assert_eq!(largest_ram(&root), Some((0x1_0000_0000, 0x1_4000_0000)));
    }
}
