//! CPU caches from `cpuN/cache/indexM`: level, type, size, line size, associativity and the
//! CPUs sharing each instance. Every CPU lists every cache it sees, so a shared cache appears
//! once per CPU; instances are deduplicated by (level, type, sharing CPUs). A CPU without a
//! cache directory (offline, or a kernel that does not expose it) contributes nothing.

use std::collections::BTreeMap;

use crate::parse::size::parse_sysfs_size;
use crate::results::topology::{Cache, Cpu};
use crate::sys::safe_read::excerpt;
use crate::sysroot::{SysError, SysRoot};
use crate::topology::domain;
use crate::topology::files::{degrade, malformed, read_list_opt, read_mask_opt, CPU_DIR};

/// True when `text` is a whole number with an optional K, M or G: a size in the kernel's form
/// even when its bytes do not fit 64 bits.
fn is_count(text: &str) -> bool {
    let t = text.trim().trim_end_matches(['K', 'M', 'G']);
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// Reads the cache instances seen by the online CPUs, sorted by level, type and first CPU.
/// A size that does not parse leaves that one instance out, with a warning in `warnings`.
pub fn read_caches(
    root: &SysRoot,
    cpus: &[Cpu],
    warnings: &mut Vec<String>,
) -> Result<Vec<Cache>, SysError> {
    let mut seen: BTreeMap<(u32, String, Vec<u32>), Cache> = BTreeMap::new();
    for cpu in cpus.iter().filter(|c| c.online) {
        let dir = format!("{CPU_DIR}/cpu{}/cache", cpu.id);
        for idx in root.list_numbered(&dir, "index")? {
            let d = format!("{dir}/index{idx}");
            if let Some(cache) = read_cache_index(root, cpu.id, &d, warnings)? {
                let key = (cache.level, cache.kind.clone(), cache.cpus.clone());
                seen.entry(key).or_insert(cache);
            }
        }
    }
    let mut caches: Vec<Cache> = seen.into_values().collect();
    caches.sort_by(|a, b| {
        (a.level, kind_rank(&a.kind), a.cpus.first()).cmp(&(
            b.level,
            kind_rank(&b.kind),
            b.cpus.first(),
        ))
    });
    Ok(caches)
}

/// Reads one `indexN` cache directory `d` of `cpu`: `None` when it has no level or size, or
/// when its level or size is refused (with a warning).
fn read_cache_index(
    root: &SysRoot,
    cpu: u32,
    d: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<Cache>, SysError> {
    let Some(level) = root.read_u64_opt(format!("{d}/level"))? else {
        return Ok(None);
    };
    let kind = root
        .read_trimmed_opt(format!("{d}/type"))?
        .unwrap_or_else(|| "Unified".to_string());
    let Some(size_text) = root.read_trimmed_opt(format!("{d}/size"))? else {
        return Ok(None);
    };
    let size_bytes = parse_sysfs_size(&size_text);
    if let Some(bad) = refused_level_or_size(root, d, level, &size_text) {
        degrade(
            root,
            Err::<(), _>(bad),
            warnings,
            &format!("this level {level} cache of cpu{cpu} is left out"),
        )?;
        return Ok(None);
    }
    let size_bytes = size_bytes.unwrap_or_default();
    let line_bytes = root
        .read_u64_opt(format!("{d}/coherency_line_size"))?
        .filter(|&l| l > 0);
    let ways = root
        .read_u64_opt(format!("{d}/ways_of_associativity"))?
        .filter(|&w| w > 0)
        .map(|w| w as u32);
    let sharing = match read_list_opt(root, format!("{d}/shared_cpu_list"))? {
        Some(l) if !l.is_empty() => l,
        _ => read_mask_opt(root, format!("{d}/shared_cpu_map"))?
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| vec![cpu]),
    };
    Ok(Some(Cache {
        level: level as u32,
        kind,
        size_bytes,
        line_bytes,
        ways,
        cpus: sharing,
    }))
}

/// The error for a level or a size no CPU has (L0, L9, 2^60 bytes), refused like a size that
/// does not parse; `None` when both are plausible.
fn refused_level_or_size(root: &SysRoot, d: &str, level: u64, size_text: &str) -> Option<SysError> {
    let size_rel = format!("{d}/size");
    let size_bytes = parse_sysfs_size(size_text);
    if !domain::CACHE_LEVELS.contains(&level) {
        Some(malformed(
            root,
            format!("{d}/level"),
            format!(
                "it gives level {level}, which no CPU cache has (levels are {} to {})",
                domain::CACHE_LEVELS.start(),
                domain::CACHE_LEVELS.end()
            ),
        ))
    } else if size_bytes.is_some_and(|s| s == 0 || s > domain::MAX_CACHE_BYTES)
        || (size_bytes.is_none() && is_count(size_text))
    {
        Some(malformed(
            root,
            &size_rel,
            format!(
                "it gives `{}`, which no CPU cache has (above 0 and at most 16 GiB)",
                excerpt(size_text)
            ),
        ))
    } else {
        size_bytes.is_none().then(|| {
            malformed(
                root,
                &size_rel,
                format!("expected a size like `32K`, found `{}`", excerpt(size_text)),
            )
        })
    }
}

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{cpu, test_root};

    #[test]
    fn shared_instances_appear_once_and_masks_are_a_fallback() {
        let c = "sys/devices/system/cpu";
        let mut files = Vec::new();
        for id in 0..2 {
            files.push((format!("{c}/cpu{id}/cache/index0/level"), "1\n".to_string()));
            files.push((format!("{c}/cpu{id}/cache/index0/type"), "Data\n".into()));
            files.push((format!("{c}/cpu{id}/cache/index0/size"), "48K\n".into()));
            files.push((
                format!("{c}/cpu{id}/cache/index0/shared_cpu_list"),
                format!("{id}\n"),
            ));
            files.push((format!("{c}/cpu{id}/cache/index3/level"), "3\n".into()));
            files.push((format!("{c}/cpu{id}/cache/index3/type"), "Unified\n".into()));
            files.push((format!("{c}/cpu{id}/cache/index3/size"), "36608K\n".into()));
            files.push((
                format!("{c}/cpu{id}/cache/index3/coherency_line_size"),
                "64\n".into(),
            ));
            files.push((
                format!("{c}/cpu{id}/cache/index3/ways_of_associativity"),
                "0\n".into(),
            ));
            files.push((
                format!("{c}/cpu{id}/cache/index3/shared_cpu_map"),
                "00000003\n".into(),
            ));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let (_d, root) = test_root(&refs);
        let caches = read_caches(&root, &[cpu(0), cpu(1)], &mut Vec::new()).unwrap();
        assert_eq!(caches.len(), 3);
        assert_eq!(caches[0].cpus, vec![0]);
        assert_eq!(caches[1].cpus, vec![1]);
        let l3 = &caches[2];
        assert_eq!(
            (l3.level, l3.size_bytes, l3.cpus.clone()),
            (3, 36608 * 1024, vec![0, 1])
        );
        assert_eq!(l3.ways, None, "0 ways means unknown/fully associative");
        assert_eq!(l3.line_bytes, Some(64));
        // An offline CPU contributes nothing; no cache dir is not an error.
        let mut off = cpu(5);
        off.online = false;
        assert!(read_caches(&root, &[off, cpu(7)], &mut Vec::new())
            .unwrap()
            .is_empty());
    }
}
