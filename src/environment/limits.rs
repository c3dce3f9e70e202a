//! Limits on this process's memory, read where they are set (containers are the
//! everyday case, and a default sized from node free memory was OOM-killed under a 300 MB
//! cgroup). The cgroup of this process comes from `/proc/self/cgroup`; cgroup v2 gives
//! `memory.max` and `memory.high` of that cgroup and of every ancestor up to the mount (a
//! parent's limit binds its children too), v1 gives `memory.limit_in_bytes` of the memory
//! controller's cgroup. RLIMIT_AS comes from `getrlimit` on the live machine only (a snapshot
//! is another process's world). Every file is read through [`SysRoot`], so a snapshot with a
//! cgroup tree replays its limits. Only finite limits are returned: `max` and v1's huge
//! "unlimited" values are no limit.

use crate::results::environment::MemoryLimit;
use crate::sysroot::{SysError, SysRoot};

/// v1 writes "no limit" as a page-rounded i64::MAX; anything this large is no limit.
const UNLIMITED_FROM: u64 = 1 << 60;

/// Every finite memory limit on this process, tightest (least left) first.
pub fn read_memory_limits(root: &SysRoot) -> Result<Vec<MemoryLimit>, SysError> {
    let mut out = Vec::new();
    let cgroups = root.read_opt("proc/self/cgroup")?.unwrap_or_default();
    for line in cgroups.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let path = path.trim().trim_end_matches('/');
        if id == "0" && controllers.is_empty() {
            cgroup_v2(root, path, &mut out)?;
        } else if controllers.split(',').any(|c| c == "memory") {
            let dir = format!("sys/fs/cgroup/memory{path}");
            if let Some(limit) =
                finite(root.read_trimmed_opt(format!("{dir}/memory.limit_in_bytes"))?)
            {
                out.push(MemoryLimit {
                    kind: "cgroup v1 memory.limit_in_bytes".into(),
                    source: format!("/{dir}/memory.limit_in_bytes"),
                    limit_bytes: limit,
                    used_bytes: root
                        .read_u64_opt(format!("{dir}/memory.usage_in_bytes"))
                        .ok()
                        .flatten(),
                });
            }
        }
    }
    if root.is_live() {
        if let Some(limit) = crate::sys::process::address_space_limit() {
            let used = root
                .read_opt("proc/self/status")?
                .unwrap_or_default()
                .lines()
                .find_map(|l| l.strip_prefix("VmSize:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .map(|kb| kb * 1024);
            out.push(MemoryLimit {
                kind: "RLIMIT_AS".into(),
                source: "this process's resource limits (ulimit -v)".into(),
                limit_bytes: limit,
                used_bytes: used,
            });
        }
    }
    out.sort_by_key(|l| l.left_bytes());
    Ok(out)
}

/// memory.max and memory.high of the cgroup at `path` and each ancestor below the mount.
fn cgroup_v2(root: &SysRoot, path: &str, out: &mut Vec<MemoryLimit>) -> Result<(), SysError> {
    let mut at = path.to_string();
    loop {
        let dir = format!("sys/fs/cgroup{at}");
        for file in ["memory.max", "memory.high"] {
            if let Some(limit) = finite(root.read_trimmed_opt(format!("{dir}/{file}"))?) {
                out.push(MemoryLimit {
                    kind: format!("cgroup v2 {file}"),
                    source: format!("/{dir}/{file}"),
                    limit_bytes: limit,
                    used_bytes: root
                        .read_u64_opt(format!("{dir}/memory.current"))
                        .ok()
                        .flatten(),
                });
            }
        }
        match at.rfind('/') {
            Some(i) if !at.is_empty() => at.truncate(i),
            _ => break,
        }
    }
    Ok(())
}

/// A limit file's value in bytes, `None` for `max`, an absent file, or "unlimited".
fn finite(text: Option<String>) -> Option<u64> {
    text?.parse::<u64>().ok().filter(|&v| v < UNLIMITED_FROM)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(files: &[(&str, &str)]) -> (tempfile::TempDir, SysRoot) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("sys/devices/system")).unwrap();
        for (rel, text) in files {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let root = SysRoot::snapshot(tmp.path()).unwrap();
        (tmp, root)
    }

    #[test]
    fn v2_limits_of_the_cgroup_and_its_ancestors_tightest_first() {
        let (_t, root) = snapshot(&[
            ("proc/self/cgroup", "0::/box/job\n"),
            ("sys/fs/cgroup/box/job/memory.max", "max\n"),
            ("sys/fs/cgroup/box/job/memory.high", "314572800\n"),
            ("sys/fs/cgroup/box/job/memory.current", "10485760\n"),
            ("sys/fs/cgroup/box/memory.max", "1073741824\n"),
            ("sys/fs/cgroup/box/memory.current", "20971520\n"),
        ]);
        let l = read_memory_limits(&root).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].kind, "cgroup v2 memory.high");
        assert_eq!(l[0].source, "/sys/fs/cgroup/box/job/memory.high");
        assert_eq!(l[0].left_bytes(), 300 * 1048576 - 10 * 1048576);
        assert_eq!(l[1].kind, "cgroup v2 memory.max");
        assert_eq!(l[1].source, "/sys/fs/cgroup/box/memory.max");
    }

    #[test]
    fn v1_limit_and_unlimited_values() {
        let (_t, root) = snapshot(&[
            (
                "proc/self/cgroup",
                "5:cpu,cpuacct:/x\n4:memory:/docker/abc\n",
            ),
            (
                "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
                "268435456\n",
            ),
            (
                "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes",
                "1048576\n",
            ),
        ]);
        let l = read_memory_limits(&root).unwrap();
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].kind, "cgroup v1 memory.limit_in_bytes");
        assert_eq!(l[0].used_bytes, Some(1048576));
        let (_t, root) = snapshot(&[
            ("proc/self/cgroup", "4:memory:/\n"),
            (
                "sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
        ]);
        assert!(read_memory_limits(&root).unwrap().is_empty());
        // No cgroup file at all (an older snapshot): no limits.
        let (_t, root) = snapshot(&[]);
        assert!(read_memory_limits(&root).unwrap().is_empty());
    }
}
