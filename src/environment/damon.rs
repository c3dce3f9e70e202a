//! DAMON's state as its sysfs interface shows it (`/sys/kernel/mm/damon/admin/kdamonds/N/`):
//! each daemon's state and thread, each context's operations set (`paddr` acts on every
//! process's pages), targets and initial regions, and each scheme's action, access pattern,
//! quotas and watermark metric. A machine may already run a daemon (reclaim or tiering) that
//! acts on a benchmark's memory: this development VM runs `kdamond.0` with a `pageout` scheme
//! on physical memory. Every file is optional; most are readable by root only, so another
//! user learns that a daemon exists and is told that its state is unknown.

use crate::results::environment_tiering::{
    DamonContext, DamonRegion, DamonScheme, DamonTarget, Kdamond,
};
use crate::sys::safe_read::excerpt;
use crate::sysroot::warn::shown;
use crate::sysroot::{SysError, SysRoot};

/// The DAMON sysfs admin directory.
pub const ADMIN: &str = "sys/kernel/mm/damon/admin";

/// Every kdamond, and the operations sets the kernel offers (from the first context that
/// lists them). A daemon whose `state` cannot be read (not root) is named in `warnings`.
pub fn read_kdamonds(
    root: &SysRoot,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Kdamond>, Vec<String>), SysError> {
    let base = format!("{ADMIN}/kdamonds");
    let mut out = Vec::new();
    let mut sets = Vec::new();
    for id in root.list_numbered(&base, "")? {
        let dir = format!("{base}/{id}");
        let state = root.read_trimmed_opt(format!("{dir}/state"))?;
        if state.is_none() {
            warnings.push(format!(
                "{} cannot be read (root only): whether kdamond.{id} runs, and what it does to this machine's pages, is unknown; run as root to see it",
                shown(format!("{dir}/state"))
            ));
        }
        let pid = read_i64_opt(root, &format!("{dir}/pid"))?;
        let mut contexts = Vec::new();
        for c in root.list_numbered(format!("{dir}/contexts"), "")? {
            let cdir = format!("{dir}/contexts/{c}");
            if sets.is_empty() {
                if let Some(t) = root.read_opt(format!("{cdir}/avail_operations"))? {
                    sets = t.split_whitespace().map(str::to_string).collect();
                }
            }
            contexts.push(read_context(root, &cdir, c)?);
        }
        out.push(Kdamond {
            id,
            state,
            pid,
            contexts,
        });
    }
    Ok((out, sets))
}

fn read_context(root: &SysRoot, dir: &str, id: u32) -> Result<DamonContext, SysError> {
    let intervals = format!("{dir}/monitoring_attrs/intervals");
    let mut targets = Vec::new();
    for t in root.list_numbered(format!("{dir}/targets"), "")? {
        let tdir = format!("{dir}/targets/{t}");
        let mut regions = Vec::new();
        for r in root.list_numbered(format!("{tdir}/regions"), "")? {
            let rdir = format!("{tdir}/regions/{r}");
            let start = root.read_u64_opt(format!("{rdir}/start"))?;
            let end = root.read_u64_opt(format!("{rdir}/end"))?;
            if let (Some(start), Some(end)) = (start, end) {
                regions.push(DamonRegion { start, end });
            }
        }
        targets.push(DamonTarget {
            id: t,
            pid: read_i64_opt(root, &format!("{tdir}/pid_target"))?,
            regions,
        });
    }
    let mut schemes = Vec::new();
    for s in root.list_numbered(format!("{dir}/schemes"), "")? {
        schemes.push(read_scheme(root, &format!("{dir}/schemes/{s}"), s)?);
    }
    Ok(DamonContext {
        id,
        operations: root.read_trimmed_opt(format!("{dir}/operations"))?,
        sample_us: root.read_u64_opt(format!("{intervals}/sample_us"))?,
        aggr_us: root.read_u64_opt(format!("{intervals}/aggr_us"))?,
        targets,
        schemes,
    })
}

fn read_scheme(root: &SysRoot, dir: &str, id: u32) -> Result<DamonScheme, SysError> {
    let u = |rel: &str| root.read_u64_opt(format!("{dir}/{rel}"));
    Ok(DamonScheme {
        id,
        action: root.read_trimmed_opt(format!("{dir}/action"))?,
        target_nid: read_i64_opt(root, &format!("{dir}/target_nid"))?,
        nr_accesses_min: u("access_pattern/nr_accesses/min")?,
        nr_accesses_max: u("access_pattern/nr_accesses/max")?,
        age_min: u("access_pattern/age/min")?,
        age_max: u("access_pattern/age/max")?,
        quota_bytes: u("quotas/bytes")?,
        quota_ms: u("quotas/ms")?,
        quota_reset_interval_ms: u("quotas/reset_interval_ms")?,
        watermark_metric: root.read_trimmed_opt(format!("{dir}/watermarks/metric"))?,
    })
}

/// An optional file holding one signed integer (DAMON writes -1 for "none").
fn read_i64_opt(root: &SysRoot, rel: &str) -> Result<Option<i64>, SysError> {
    match root.read_trimmed_opt(rel)? {
        None => Ok(None),
        Some(t) => t.parse::<i64>().map(Some).map_err(|_| SysError::Malformed {
            path: root.path(rel),
            why: format!("expected an integer, found `{}`", excerpt(&t)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    const K: &str = "sys/kernel/mm/damon/admin/kdamonds";

    #[test]
    fn reads_this_machines_pageout_daemon() {
        let s = format!("{K}/0/contexts/0/schemes/0");
        let (_d, root) = test_root(&[
            (&format!("{K}/nr_kdamonds"), "1\n"),
            (&format!("{K}/0/state"), "on\n"),
            (&format!("{K}/0/pid"), "77\n"),
            (&format!("{K}/0/contexts/0/operations"), "paddr\n"),
            (
                &format!("{K}/0/contexts/0/avail_operations"),
                "vaddr fvaddr paddr\n",
            ),
            (
                &format!("{K}/0/contexts/0/monitoring_attrs/intervals/aggr_us"),
                "5000000\n",
            ),
            (&format!("{K}/0/contexts/0/targets/0/pid_target"), "0\n"),
            (
                &format!("{K}/0/contexts/0/targets/0/regions/0/start"),
                "4294967296\n",
            ),
            (
                &format!("{K}/0/contexts/0/targets/0/regions/0/end"),
                "8858370048\n",
            ),
            (&format!("{s}/action"), "pageout\n"),
            (&format!("{s}/target_nid"), "-1\n"),
            (&format!("{s}/access_pattern/age/min"), "12\n"),
            (&format!("{s}/quotas/bytes"), "134217728\n"),
            (&format!("{s}/watermarks/metric"), "none\n"),
        ]);
        let mut w = Vec::new();
        let (k, sets) = read_kdamonds(&root, &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(sets, ["vaddr", "fvaddr", "paddr"]);
        assert_eq!(k.len(), 1);
        assert!(k[0].is_on());
        assert_eq!(k[0].pid, Some(77));
        let c = &k[0].contexts[0];
        assert_eq!(c.operations.as_deref(), Some("paddr"));
        assert_eq!(c.aggr_us, Some(5_000_000));
        assert_eq!(c.targets[0].regions[0].end, 8858370048);
        let sc = &c.schemes[0];
        assert_eq!(sc.action.as_deref(), Some("pageout"));
        assert_eq!(sc.target_nid, Some(-1));
        assert_eq!(sc.age_min, Some(12));
        assert_eq!(sc.quota_bytes, Some(128 << 20));
        assert!(sc.moves_pages());
    }

    #[test]
    fn an_unreadable_state_is_a_warning_and_a_bad_number_is_malformed() {
        let (_d, root) = test_root(&[(&format!("{K}/0/contexts/nr_contexts"), "0\n")]);
        let mut w = Vec::new();
        let (k, _) = read_kdamonds(&root, &mut w).unwrap();
        assert_eq!(k[0].state, None);
        assert!(w[0].contains("kdamond.0") && w[0].contains("root"), "{w:?}");
        let (_d, root) = test_root(&[(&format!("{K}/0/pid"), "seventy\n")]);
        let e = read_kdamonds(&root, &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("expected an integer"), "{e}");
    }
}
