//! Reads the kernel's tiering state: reclaim's demotion switch, memory-tiering
//! mode's promotion rate limit, the memory tiers and DAMON. Every file is optional; a
//! malformed one leaves its fact unknown with a warning.

use crate::parse::cpulist::parse_list;
use crate::results::environment_tiering::{MemoryTier, Tiering};
use crate::sys::safe_read::excerpt;
use crate::sysroot::warn::degrade;
use crate::sysroot::{SysError, SysRoot};

/// The memory tiers' directory.
pub const TIERS: &str = "sys/devices/virtual/memory_tiering";
const DEMOTION: &str = "sys/kernel/mm/numa/demotion_enabled";
const RATE_LIMIT: &str = "proc/sys/kernel/numa_balancing_promote_rate_limit_MBps";

/// The tiering state through `root`; malformed optional files become `warnings`.
pub fn read_tiering(root: &SysRoot, warnings: &mut Vec<String>) -> Result<Tiering, SysError> {
    let demotion = read_bool_opt(root, DEMOTION);
    let demotion_enabled = degrade(
        root,
        demotion,
        warnings,
        "whether reclaim demotes is unknown",
    )?
    .flatten();
    let rate = root.read_u64_opt(RATE_LIMIT);
    let promote_rate_limit_mib_per_s =
        degrade(root, rate, warnings, "the promotion rate limit is unknown")?.flatten();
    let tiers = read_memory_tiers(root);
    let memory_tiers = degrade(root, tiers, warnings, "the memory tiers are unknown")?
        .unwrap_or_default()
        .into_iter()
        .map(|(t, nodes)| MemoryTier::new(t, nodes))
        .collect();
    let damon_available = root.exists(super::damon::ADMIN);
    let damon = super::damon::read_kdamonds(root, warnings);
    let (kdamonds, damon_operation_sets) =
        degrade(root, damon, warnings, "the DAMON daemons are unknown")?.unwrap_or_default();
    Ok(Tiering {
        demotion_enabled,
        promote_rate_limit_mib_per_s,
        memory_tiers,
        damon_available,
        damon_operation_sets,
        kdamonds,
    })
}

/// The kernel's memory tiers: (tier number, its nodes), from `memory_tierN/nodelist`, in
/// tier order.
pub fn read_memory_tiers(root: &SysRoot) -> Result<Vec<(u32, Vec<u32>)>, SysError> {
    let mut out = Vec::new();
    for t in root.list_numbered(TIERS, "memory_tier")? {
        let rel = format!("{TIERS}/memory_tier{t}/nodelist");
        if let Some(text) = root.read_opt(&rel)? {
            let nodes = parse_list(&text).map_err(|e| SysError::Malformed {
                path: root.path(&rel),
                why: format!("not a node list: {e}"),
            })?;
            out.push((t, nodes));
        }
    }
    Ok(out)
}

/// A sysfs boolean (`true`/`false`, also `1`/`0`, `Y`/`N`); absent gives `None`.
fn read_bool_opt(root: &SysRoot, rel: &str) -> Result<Option<bool>, SysError> {
    let Some(t) = root.read_trimmed_opt(rel)? else {
        return Ok(None);
    };
    match t.to_ascii_lowercase().as_str() {
        "true" | "1" | "y" => Ok(Some(true)),
        "false" | "0" | "n" => Ok(Some(false)),
        _ => Err(SysError::Malformed {
            path: root.path(rel),
            why: format!("expected `true` or `false`, found `{}`", excerpt(&t)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn reads_demotion_rate_limit_and_tiers() {
        let (_d, root) = test_root(&[
            (DEMOTION, "true\n"),
            (RATE_LIMIT, "65536\n"),
            (&format!("{TIERS}/memory_tier4/nodelist"), "0-1\n"),
            (&format!("{TIERS}/memory_tier22/nodelist"), "2\n"),
        ]);
        let mut w = Vec::new();
        let t = read_tiering(&root, &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(t.demotion_enabled, Some(true));
        assert_eq!(t.promote_rate_limit_mib_per_s, Some(65536));
        assert_eq!(t.memory_tiers.len(), 2);
        assert_eq!(t.memory_tiers[1].tier, 22);
        assert_eq!(t.memory_tiers[1].nodes, vec![2]);
        assert_eq!(t.memory_tiers[1].abstract_distance_from, 2816);
        assert!(!t.damon_available && t.kdamonds.is_empty());
    }

    #[test]
    fn malformed_files_are_warnings_and_absent_is_empty() {
        let (_d, root) = test_root(&[
            (DEMOTION, "maybe\n"),
            (RATE_LIMIT, "fast\n"),
            (&format!("{TIERS}/memory_tier4/nodelist"), "x\n"),
        ]);
        let mut w = Vec::new();
        let t = read_tiering(&root, &mut w).unwrap();
        assert!(t.is_empty(), "{t:?}");
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("demotion_enabled is malformed"), "{w:?}");
        let (_d, root) = test_root(&[]);
        assert!(read_tiering(&root, &mut w).unwrap().is_empty());
    }
}
