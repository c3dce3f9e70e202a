//! The physical domain of the values a snapshot gives: a figure outside it (a node id above
//! the kernel's 1024 nodes, a cache of 2^60 bytes or of level 0, a SLIT distance of 0 or
//! 4294967295, an HMAT latency of 0 ns or 2^64-1, a THP page of 0 bytes, numa_balancing 7) is
//! not a machine's but a corrupt or hostile file's (environment.rs checks its own two, the
//! THP page size and numa_balancing). Such a value is refused field by field:
//! left unknown, with a warning naming the file and the value, never shown as a fact nor fed
//! to the plan or the memory-kind inference. Pure functions over what the readers parsed.

use crate::parse::cpulist::excerpt;
use crate::results::topology::HmatTarget;

/// The highest node id Linux can give (MAX_NUMNODES is at most 1024).
pub const MAX_NODE_ID: u32 = 1023;
/// Cache levels a CPU cache directory may name (L1 to L4).
pub const CACHE_LEVELS: std::ops::RangeInclusive<u64> = 1..=4;
/// The largest CPU cache believed: 16 GiB (today's largest L3 are about 1 GiB a package).
pub const MAX_CACHE_BYTES: u64 = 16 << 30;
/// ACPI SLIT distances: 10 is local, 255 unreachable, 0 to 9 reserved.
pub const SLIT: std::ops::RangeInclusive<u32> = 10..=255;
/// HMAT latencies believed, in ns: above 0 and at most a millisecond.
pub const HMAT_LATENCY_NS: std::ops::RangeInclusive<u64> = 1..=1_000_000;
/// HMAT bandwidths believed, in MB/s: above 0 and at most 100 TB/s.
pub const HMAT_BANDWIDTH_MB_S: std::ops::RangeInclusive<u64> = 1..=100_000_000;
/// The largest memory size believed: 64 PiB, the user address space of 57-bit addresses.
pub const MAX_MEMORY_BYTES: u64 = 1 << 56;

/// The warning for a refused value: `FILE gives VALUE, which no machine has (WHY); WHAT is
/// left unknown`.
pub fn refused(file: &str, value: &str, why: &str, then: &str) -> String {
    format!(
        "{file} gives {}, which no machine has ({why}); {then}",
        excerpt(value)
    )
}

/// Node ids above [`MAX_NODE_ID`] left out of `ids`, with a warning naming `file`.
pub fn node_ids(ids: Vec<u32>, file: &str, warnings: &mut Vec<String>) -> Vec<u32> {
    let (ok, bad): (Vec<u32>, Vec<u32>) = ids.into_iter().partition(|&n| n <= MAX_NODE_ID);
    if let Some(n) = bad.first() {
        warnings.push(refused(
            file,
            &format!("node {n}"),
            &format!("Linux numbers nodes 0 to {MAX_NODE_ID}"),
            "that node is left out",
        ));
    }
    ok
}

/// The SLIT matrix, or why it is refused (the first distance outside 10..=255).
pub fn check_distances(rows: &[Vec<u32>]) -> Result<(), String> {
    match rows.iter().flatten().find(|d| !SLIT.contains(d)) {
        Some(d) => Err(format!(
            "it gives the distance {d}, which no machine has (SLIT distances are 10, local, to 255)"
        )),
        None => Ok(()),
    }
}

/// Every HMAT figure outside its domain set to unknown, with one warning per figure.
pub fn check_hmat(targets: &mut [HmatTarget], warnings: &mut Vec<String>) {
    for t in targets {
        let file = |name: &str| {
            format!(
                "/sys/devices/system/node/node{}/access{}/initiators/{name}",
                t.node, t.access_class
            )
        };
        let mut check = |v: &mut Option<u64>, name: &str, range: &std::ops::RangeInclusive<u64>| {
            if let Some(x) = v.filter(|x| !range.contains(x)) {
                warnings.push(refused(
                    &file(name),
                    &x.to_string(),
                    &format!(
                        "the firmware's figures lie in {}..={}",
                        range.start(),
                        range.end()
                    ),
                    "that HMAT figure is left unknown",
                ));
                *v = None;
            }
        };
        check(&mut t.read_latency_ns, "read_latency", &HMAT_LATENCY_NS);
        check(&mut t.write_latency_ns, "write_latency", &HMAT_LATENCY_NS);
        check(
            &mut t.read_bandwidth_mb_s,
            "read_bandwidth",
            &HMAT_BANDWIDTH_MB_S,
        );
        check(
            &mut t.write_bandwidth_mb_s,
            "write_bandwidth",
            &HMAT_BANDWIDTH_MB_S,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_the_domain_are_refused() {
        let mut w = Vec::new();
        assert_eq!(node_ids(vec![0, 1, u32::MAX], "online", &mut w), vec![0, 1]);
        assert!(w[0].contains("node 4294967295"), "{w:?}");
        assert!(check_distances(&[vec![10, 20], vec![20, 10]]).is_ok());
        assert!(check_distances(&[vec![0, 20], vec![20, 10]]).is_err());
        assert!(check_distances(&[vec![10, u32::MAX], vec![20, 10]]).is_err());
        let mut t = vec![HmatTarget {
            node: 0,
            access_class: 0,
            initiators: vec![0],
            read_latency_ns: Some(0),
            write_latency_ns: Some(u64::MAX),
            read_bandwidth_mb_s: Some(20000),
            write_bandwidth_mb_s: None,
        }];
        let mut w = Vec::new();
        check_hmat(&mut t, &mut w);
        assert_eq!(t[0].read_latency_ns, None);
        assert_eq!(t[0].write_latency_ns, None);
        assert_eq!(t[0].read_bandwidth_mb_s, Some(20000));
        assert_eq!(w.len(), 2, "{w:?}");
    }
}
