//! Where a buffer's pages went: the page size asked, the per-node page histogram, the fraction
//! on the intended nodes and the huge-page share, plus the `placement --json` contract. Plain
//! serde types; mapping, binding and verifying are `crate::placement`.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PageSize {
    /// Base pages (4 KiB on x86-64) with `MADV_NOHUGEPAGE`.
    #[default]
    #[serde(rename = "4k")]
    Base,
    /// Transparent huge pages requested with `MADV_HUGEPAGE`; what was obtained is verified.
    #[serde(rename = "thp")]
    Thp,
    /// hugetlbfs 2 MiB pages (must be reserved).
    #[serde(rename = "2m")]
    Huge2M,
    /// hugetlbfs 1 GiB pages (must be reserved).
    #[serde(rename = "1g")]
    Huge1G,
}

impl PageSize {
    /// The name users type and reports print.
    pub fn label(&self) -> &'static str {
        match self {
            PageSize::Base => "4k",
            PageSize::Thp => "thp",
            PageSize::Huge2M => "2m",
            PageSize::Huge1G => "1g",
        }
    }
}

impl std::fmt::Display for PageSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// Pages found on one node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodePages {
    pub node: u32,
    /// Base pages (4 KiB) on this node.
    pub pages: u64,
}

/// The verified placement of a buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementReport {
    /// Buffer size in bytes.
    pub size_bytes: u64,
    /// Page backing requested.
    pub page_size: PageSize,
    /// Base pages queried (size / base page size).
    pub pages: u64,
    /// Pages per node, ascending node id; nodes with no pages are omitted.
    pub histogram: Vec<NodePages>,
    /// Pages the kernel reported as not present (never faulted in or swapped out).
    pub not_present: u64,
    /// Nodes the policy intended (for first touch: the faulting CPU's node).
    pub intended_nodes: Vec<u32>,
    /// Fraction (0..=1) of queried pages that are on an intended node.
    pub fraction_on_intended: f64,
    /// Bytes of the buffer backed by huge pages (THP or hugetlb).
    pub huge_bytes: u64,
    /// huge_bytes / size_bytes.
    pub huge_fraction: f64,
}

impl PlacementReport {
    /// Pages on `node`.
    pub fn pages_on(&self, node: u32) -> u64 {
        self.histogram
            .iter()
            .find(|h| h.node == node)
            .map(|h| h.pages)
            .unwrap_or(0)
    }
}

/// Version of the `placement --json` contract.
pub const PLACEMENT_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementCheck {
    pub schema_version: u32,
    /// Policy name: first-touch, bind, preferred, preferred-many, interleave, weighted.
    pub policy: String,
    /// Nodes named by the policy (empty for first touch).
    pub nodes: Vec<u32>,
    /// Weights per node for weighted interleave, as (node, weight) pairs.
    pub weights: Option<Vec<(u32, u8)>>,
    /// CPU the faulting thread was pinned to, if one was requested.
    pub cpu: Option<u32>,
    /// CPU the faulting thread actually ran on (getcpu after the fault-in).
    pub ran_on_cpu: u32,
    pub report: PlacementReport,
    /// Expected share per node where the policy fixes it: (node, fraction 0..=1).
    pub expected_shares: Option<Vec<(u32, f64)>>,
    /// True when the histogram meets the policy (see PlacementReport::judge).
    pub matches: bool,
    /// One sentence saying what was found.
    pub verdict: String,
    /// The numactl options that apply the same policy to a whole program.
    pub numactl: String,
}
