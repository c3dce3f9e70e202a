//! [`PlacedBuffer`]: map, apply the policy, fault every page in from the calling thread, and
//! verify where the pages went. Release happens on drop (the mapping unmaps itself).

use std::sync::atomic::AtomicU64;

use crate::results::topology::Topology;
use crate::sys::mmap::Mapping;
use crate::sys::{affinity, numa};
use crate::sysroot::SysRoot;

use super::page_size::base_page_bytes;
use super::validate::validate;
use super::weights::WeightGuard;
use super::{PlacementError, Policy};
use crate::results::placement::PageSize;
use crate::results::placement::PlacementReport;

/// A page-aligned anonymous buffer placed by a NUMA policy and already faulted in.
#[derive(Debug)]
pub struct PlacedBuffer {
    map: Mapping,
    policy: Policy,
    page: PageSize,
    root: SysRoot,
    /// For first touch: the node of the CPU that faulted the pages in.
    touch_node: Option<u32>,
}

impl PlacedBuffer {
    /// Validates the request against `topo`, maps `size_bytes` (rounded up to the page
    /// granularity), applies the policy and writes every page from the calling thread, so the
    /// buffer is fully resident before any timing. Pin the thread first for first touch.
    pub fn new(
        topo: &Topology,
        root: &SysRoot,
        size_bytes: u64,
        policy: &Policy,
        page: PageSize,
    ) -> Result<PlacedBuffer, PlacementError> {
        root.require_live("allocate placed memory")?;
        let size = validate(topo, size_bytes, policy, page)?;
        let mut map = Mapping::new(size as usize, page.backing())?;
        let _weights = match policy {
            Policy::WeightedInterleave(w) => WeightGuard::set(root, w)?,
            _ => None,
        };
        if let Some((mode, nodes)) = policy.mode_and_nodes() {
            map.bind(mode, &nodes, numa::MPOL_MF_STRICT | numa::MPOL_MF_MOVE)?;
        }
        let touch_node = affinity::current_cpu_and_node().ok().map(|(_, node)| node);
        map.touch_every(base_page_bytes() as usize);
        Ok(PlacedBuffer {
            map,
            policy: policy.clone(),
            page,
            root: root.clone(),
            touch_node,
        })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Never true (zero sizes are refused).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The buffer as 64-bit words.
    pub fn as_u64(&self) -> &[u64] {
        self.map.as_u64()
    }

    /// The buffer as mutable 64-bit words.
    pub fn as_u64_mut(&mut self) -> &mut [u64] {
        self.map.as_u64_mut()
    }

    /// The buffer as mutable doubles.
    pub fn as_f64_mut(&mut self) -> &mut [f64] {
        self.map.as_f64_mut()
    }

    /// The buffer as atomic 64-bit words, for memory threads share (c2c's bounced line).
    pub fn as_atomic_u64(&mut self) -> &[AtomicU64] {
        self.map.as_atomic_u64()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn page_size(&self) -> PageSize {
        self.page
    }

    /// Verifies again after a measurement and keeps whichever of `before` and now has the
    /// smaller fraction on the intended nodes: NUMA balancing, tiering promotion or demotion
    /// and DAMON schemes can move pages while a measurement runs.
    pub fn verify_after(&self, before: PlacementReport) -> Result<PlacementReport, PlacementError> {
        let after = self.verify()?;
        Ok(
            if after.fraction_on_intended < before.fraction_on_intended {
                after
            } else {
                before
            },
        )
    }

    /// Asks the kernel where every base page is, and how much is backed by huge pages.
    pub fn verify(&self) -> Result<PlacementReport, PlacementError> {
        let addrs = self.map.addresses_every(base_page_bytes() as usize);
        let statuses = numa::query_pages(&addrs)?;
        let intended = match &self.policy {
            Policy::FirstTouch => self.touch_node.into_iter().collect(),
            p => p.nodes(),
        };
        let start = self.map.as_mut_ptr() as usize;
        let huge = huge_bytes_in(&self.root, start, self.map.len())?;
        Ok(PlacementReport::from_statuses(
            self.map.len() as u64,
            self.page,
            &statuses,
            intended,
            huge,
        ))
    }
}

/// Bytes of `[start, start+len)` backed by huge pages, from /proc/self/smaps (AnonHugePages
/// for THP, Private/Shared_Hugetlb for hugetlbfs), summed over the VMAs inside the range.
fn huge_bytes_in(root: &SysRoot, start: usize, len: usize) -> Result<u64, PlacementError> {
    let text = root.read("proc/self/smaps")?;
    Ok(parse_smaps_huge(&text, start, start + len))
}

fn parse_smaps_huge(text: &str, start: usize, end: usize) -> u64 {
    let mut total = 0u64;
    let mut inside = false;
    for line in text.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = first.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                inside = a < end && b > start;
                continue;
            }
        }
        if !inside {
            continue;
        }
        for key in ["AnonHugePages:", "Private_Hugetlb:", "Shared_Hugetlb:"] {
            if let Some(rest) = line.strip_prefix(key) {
                if let Some(v) = crate::parse::size::parse_meminfo_kb(rest) {
                    total += v;
                }
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smaps_huge_share_is_summed_inside_the_range() {
        let text = "\
1000-3000 rw-p 00000000 00:00 0
AnonHugePages:      2048 kB
Private_Hugetlb:       0 kB
5000-6000 rw-p 00000000 00:00 0
AnonHugePages:      4096 kB
";
        assert_eq!(parse_smaps_huge(text, 0x1000, 0x3000), 2048 * 1024);
        assert_eq!(parse_smaps_huge(text, 0x0, 0x10000), 6144 * 1024);
        assert_eq!(parse_smaps_huge(text, 0x3000, 0x4000), 0);
    }
}

#[cfg(test)]
mod live_tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    #[test]
    fn bind_and_first_touch_place_every_page_on_node_0() {
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        for policy in [
            Policy::Bind(vec![0]),
            Policy::FirstTouch,
            Policy::Interleave(vec![0]),
            Policy::Preferred(0),
        ] {
            let mut b = PlacedBuffer::new(&topo, &root, 3 << 20, &policy, PageSize::Base).unwrap();
            b.as_u64_mut()[7] = 42;
            let r = b.verify().unwrap();
            assert_eq!(r.pages, 768);
            assert_eq!(r.pages_on(0), 768, "{policy:?}");
            assert_eq!(r.fraction_on_intended, 1.0);
            assert_eq!(r.huge_bytes, 0, "4k pages must not be THP-backed");
            assert!(r.judge(&policy).0, "{:?}", r.judge(&policy));
        }
    }

    #[test]
    fn refuses_impossible_requests_before_allocating() {
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let msg = |p: &Policy, size: u64, page: PageSize| {
            PlacedBuffer::new(&topo, &root, size, p, page)
                .unwrap_err()
                .to_string()
        };
        assert!(msg(&Policy::Bind(vec![9]), 4096, PageSize::Base).contains("node 9 does not exist"));
        assert!(msg(&Policy::Bind(vec![0]), 0, PageSize::Base).contains("0 bytes"));
        assert!(
            msg(&Policy::Bind(vec![0]), 4 << 30, PageSize::Base).contains("available on node(s) 0")
        );
        assert!(msg(&Policy::Bind(vec![0]), 3 << 20, PageSize::Huge2M).contains("multiple"));
        assert!(msg(&Policy::Bind(vec![0]), 4 << 20, PageSize::Huge2M).contains("reserve"));
        let (_snap, sroot) = crate::testutil::test_root(&[]);
        let e = PlacedBuffer::new(&topo, &sroot, 4096, &Policy::FirstTouch, PageSize::Base)
            .unwrap_err()
            .to_string();
        assert!(e.contains("snapshot"), "{e}");
    }

    #[test]
    fn thp_request_is_reported_as_obtained() {
        let topo = this_machine_one_node();
        let b = PlacedBuffer::new(
            &topo,
            &SysRoot::live(),
            8 << 20,
            &Policy::Bind(vec![0]),
            PageSize::Thp,
        )
        .unwrap();
        let r = b.verify().unwrap();
        assert_eq!(r.pages, 2048);
        // THP may be disabled system-wide; the report must say what was obtained either way.
        assert!(r.huge_fraction >= 0.0 && r.huge_fraction <= 1.0);
    }
}
