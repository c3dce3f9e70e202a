//! Steal time from `/proc/stat`: the ticks a hypervisor ran something else while a virtual
//! CPU wanted to run. A guest cannot see it in its own threads' CPU time on every kernel, so
//! the conductor of a timed repetition reads it before and after, for the CPUs it uses.
//!
//! The file is read through the [`SysRoot`] like every `/proc` read. The parser is pure and
//! tolerant: a kernel that prints fewer than eight values per line (no steal column) gives
//! "steal unknown", and a line that does not parse is skipped, never an error. This lives
//! beside the team rather than in `sys/` because `sys/` may not read through the root
//! (`sysroot` already uses `sys`, and the layers must not form a cycle).

use std::collections::BTreeMap;

use crate::sysroot::{SysError, SysRoot};

/// The counters of one `cpu` line, in ticks (USER_HZ, usually 100 per second).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTicks {
    /// user + nice + system + idle + iowait + irq + softirq + steal: all time the CPU
    /// accounted. (guest and guest_nice are already counted in user and nice.)
    pub total: u64,
    /// The 8th value; `None` on kernels whose lines stop before it.
    pub steal: Option<u64>,
}

/// The `cpu` lines of one `/proc/stat`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcStat {
    /// The aggregate `cpu` line (the whole machine).
    pub machine: Option<CpuTicks>,
    /// The `cpuN` lines, by CPU number (offline CPUs have none).
    pub cpus: BTreeMap<u32, CpuTicks>,
}

fn parse_ticks(values: &str) -> Option<CpuTicks> {
    let nums: Vec<u64> = values
        .split_whitespace()
        .map(|v| v.parse::<u64>().ok())
        .collect::<Option<_>>()?;
    if nums.len() < 4 {
        return None; // not even user, nice, system, idle: not a cpu line we understand
    }
    Some(CpuTicks {
        total: nums
            .iter()
            .take(8)
            .fold(0u64, |acc, &v| acc.saturating_add(v)),
        steal: nums.get(7).copied(),
    })
}

/// Parses the `cpu` and `cpuN` lines of `/proc/stat`; other lines and malformed ones are
/// skipped.
pub fn parse_proc_stat(text: &str) -> ProcStat {
    let mut out = ProcStat::default();
    for line in text.lines() {
        let Some((label, values)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        let Some(suffix) = label.strip_prefix("cpu") else {
            continue;
        };
        let Some(ticks) = parse_ticks(values) else {
            continue;
        };
        if suffix.is_empty() {
            out.machine = Some(ticks);
        } else if let Ok(cpu) = suffix.parse::<u32>() {
            out.cpus.insert(cpu, ticks);
        }
    }
    out
}

/// Reads and parses `proc/stat` under `root`.
pub fn read_proc_stat(root: &SysRoot) -> Result<ProcStat, SysError> {
    Ok(parse_proc_stat(&root.read("proc/stat")?))
}

/// Steal and total ticks between two readings, summed over `cpus`; over the whole machine
/// when a CPU's line is missing from either reading. `None` when steal is unknown. Counters
/// that went backwards (a CPU went offline and back) count as zero.
pub fn steal_between(before: &ProcStat, after: &ProcStat, cpus: &[u32]) -> Option<(u64, u64)> {
    let delta = |a: &CpuTicks, b: &CpuTicks| -> Option<(u64, u64)> {
        Some((
            b.steal?.saturating_sub(a.steal?),
            b.total.saturating_sub(a.total),
        ))
    };
    let per_cpu: Option<Vec<(u64, u64)>> = if cpus.is_empty() {
        None
    } else {
        cpus.iter()
            .map(|c| delta(before.cpus.get(c)?, after.cpus.get(c)?))
            .collect()
    };
    match per_cpu {
        Some(d) => Some(d.iter().fold((0, 0), |(s, t), &(ds, dt)| (s + ds, t + dt))),
        None => delta(before.machine.as_ref()?, after.machine.as_ref()?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODERN: &str = "\
cpu  340864 0 78091 104828 1987 0 809 5186 0 0
cpu0 172153 0 35531 55275 459 0 22 2461 0 0
cpu1 168710 0 42560 49552 1528 0 787 2724 0 0
intr 123 0 0
ctxt 456
";

    #[test]
    fn parses_the_machine_and_per_cpu_lines() {
        let p = parse_proc_stat(MODERN);
        assert_eq!(
            p.machine,
            Some(CpuTicks {
                total: 340864 + 78091 + 104828 + 1987 + 809 + 5186,
                steal: Some(5186)
            })
        );
        assert_eq!(p.cpus.len(), 2);
        assert_eq!(p.cpus[&1].steal, Some(2724));
        assert_eq!(
            p.cpus[&0].total,
            172153 + 35531 + 55275 + 459 + 22 + 2461,
            "guest columns are not added twice"
        );
    }

    #[test]
    fn old_kernels_without_a_steal_column_give_steal_unknown() {
        // 2.6.9-era lines: seven values, no steal.
        let p = parse_proc_stat("cpu  10 0 5 100 1 0 0\ncpu0 10 0 5 100 1 0 0\n");
        assert_eq!(p.machine.unwrap().steal, None);
        assert_eq!(p.machine.unwrap().total, 116);
        assert_eq!(steal_between(&p, &p, &[0]), None);
        // 2.4-era: four values.
        assert_eq!(
            parse_proc_stat("cpu 1 2 3 4\n").machine.unwrap().steal,
            None
        );
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let p =
            parse_proc_stat("cpu x y z\ncpuX 1 2 3 4 5 6 7 8\ncpu3 1 2\n\ncpu2 1 1 1 1 1 1 1 1\n");
        assert_eq!(p.machine, None);
        assert_eq!(p.cpus.keys().copied().collect::<Vec<_>>(), vec![2]);
        assert_eq!(parse_proc_stat(""), ProcStat::default());
    }

    #[test]
    fn steal_between_sums_the_cpus_used_or_falls_back_to_the_machine() {
        let before = parse_proc_stat(MODERN);
        let after = parse_proc_stat(
            "cpu  340874 0 78091 104828 1987 0 809 5196 0 0\n\
             cpu0 172158 0 35531 55275 459 0 22 2461 0 0\n\
             cpu1 168715 0 42560 49552 1528 0 787 2734 0 0\n",
        );
        assert_eq!(steal_between(&before, &after, &[1]), Some((10, 15)));
        assert_eq!(steal_between(&before, &after, &[0, 1]), Some((10, 20)));
        // CPU 7 has no line: the whole machine stands in.
        assert_eq!(steal_between(&before, &after, &[7]), Some((10, 20)));
        assert_eq!(steal_between(&before, &after, &[]), Some((10, 20)));
        // A counter that went backwards counts as nothing.
        assert_eq!(steal_between(&after, &before, &[1]), Some((0, 0)));
    }

    #[test]
    fn reads_through_the_root() {
        let p = read_proc_stat(&SysRoot::live()).unwrap();
        assert!(p.machine.is_some(), "/proc/stat has a cpu line");
        assert!(!p.cpus.is_empty());
    }
}
