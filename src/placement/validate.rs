//! Checks a placement request against the machine before anything is allocated: nodes exist,
//! have memory and are allowed; the size is positive, fits the page size, and fits in the
//! target nodes' available memory (free plus reclaimable page cache) (so the OOM killer never decides); hugetlb pages are reserved.

use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::topology::Topology;

use super::{PlacementError, Policy};

use crate::results::placement::PageSize;

/// The largest buffer asked of the kernel: 64 PiB, the user address space of 57-bit virtual
/// addresses. Anything above is a typing slip, and rounding it up to whole pages could wrap.
pub const MAX_BUFFER_BYTES: u64 = 1 << 56;

fn invalid(s: String) -> PlacementError {
    PlacementError::Invalid(s)
}

/// Refuses `size` bytes when the tightest limit on this process's memory (cgroup, RLIMIT_AS:
/// `Environment::memory_limits`) leaves less, before anything is allocated: one sentence
/// naming the limit, where it is set and the fix. `what` names the request (`--size`, `a
/// buffer of`).
pub fn check_limit(topo: &Topology, size: u64, what: &str) -> Result<(), PlacementError> {
    if size > MAX_BUFFER_BYTES {
        return Err(invalid(format!(
            "{what} {} is larger than any machine's memory; ask for at most {}",
            format_bytes(size),
            format_bytes(MAX_BUFFER_BYTES)
        )));
    }
    match topo.environment.tightest_memory_limit() {
        Some(l) if size > l.left_bytes() => Err(invalid(format!(
            "{what} {} does not fit under the {} of {} set in {} ({} of it left for this process); ask for at most that, or {}",
            format_bytes(size),
            l.kind,
            format_bytes(l.limit_bytes),
            l.source,
            format_bytes(l.left_bytes()),
            l.fix()
        ))),
        _ => Ok(()),
    }
}

/// Validates and returns the size rounded up to the page granularity.
pub(super) fn validate(
    topo: &Topology,
    size_bytes: u64,
    policy: &Policy,
    page: PageSize,
) -> Result<u64, PlacementError> {
    if size_bytes == 0 {
        return Err(invalid(
            "a size of 0 bytes cannot be placed; give a positive size such as 64MiB".into(),
        ));
    }
    page.check_whole_pages(size_bytes).map_err(invalid)?;
    let gran = page.bytes();
    let size = size_bytes
        .div_ceil(gran)
        .checked_mul(gran)
        .filter(|&s| usize::try_from(s).is_ok() && s <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            invalid(format!(
                "a buffer of {} is larger than any machine's memory; give at most {}",
                format_bytes(size_bytes),
                format_bytes(MAX_BUFFER_BYTES)
            ))
        })?;
    check_limit(topo, size, "a buffer of")?;
    for &n in &policy.nodes() {
        let node = topo.node(n).ok_or_else(|| {
            invalid(format!(
                "node {n} does not exist; this machine has nodes {}",
                format_list(&topo.node_ids())
            ))
        })?;
        if !node.has_memory {
            return Err(invalid(format!(
                "node {n} has no memory (CPUs only), so nothing can be placed there; choose one of the memory nodes {}",
                format_list(&topo.memory_nodes())
            )));
        }
        if !topo.allowed_nodes.contains(&n) {
            return Err(invalid(format!(
                "node {n} is not in this process's allowed memory nodes {} (cgroup cpuset or numactl); choose an allowed node",
                format_list(&topo.allowed_nodes)
            )));
        }
    }
    check_available(topo, size, policy)?;
    if page.is_hugetlb() {
        let pages_needed = size / gran;
        let nodes = if policy.nodes().is_empty() {
            topo.memory_nodes()
        } else {
            policy.nodes()
        };
        let free: u64 = nodes
            .iter()
            .filter_map(|&n| topo.node(n))
            .flat_map(|n| n.hugepages.iter())
            .filter(|h| h.page_size_bytes == gran)
            .map(|h| h.free)
            .sum();
        if free < pages_needed {
            let first = nodes.first().copied().unwrap_or(0);
            return Err(invalid(format!(
                "{} needs {pages_needed} free {} huge pages on node(s) {} but {free} are free; reserve them with `echo {pages_needed} | sudo tee /sys/devices/system/node/node{first}/hugepages/hugepages-{}kB/nr_hugepages`, or use --page-size thp",
                format_bytes(size),
                page.label(),
                format_list(&nodes),
                gran / 1024
            )));
        }
    }
    Ok(size)
}

/// Refuses a size larger than the memory the policy may draw on: any allowed memory node for
/// the policies that spill over, the named nodes for bind, and each node's share for the
/// policies that spread pages.
fn check_available(topo: &Topology, size: u64, policy: &Policy) -> Result<(), PlacementError> {
    let (nodes, place, fix) = match policy {
        // May spill over to any allowed memory node.
        Policy::FirstTouch | Policy::Preferred(_) | Policy::PreferredMany(_) => (
            topo.memory_nodes(),
            "the allowed memory nodes".to_string(),
            "use a smaller --size",
        ),
        Policy::Bind(nodes) => (
            nodes.clone(),
            format!("node(s) {}", format_list(nodes)),
            "use a smaller --size or more nodes",
        ),
        p => {
            for (n, share) in p.expected_shares().unwrap_or_default() {
                let node = topo.node(n).expect("checked above");
                let need = (size as f64 * share) as u64;
                if need > node.memory_available_bytes {
                    return Err(invalid(format!(
                        "node {n} would need {} but has {} available; use a smaller --size",
                        format_bytes(need),
                        format_bytes(node.memory_available_bytes)
                    )));
                }
            }
            return Ok(());
        }
    };
    let free: u64 = nodes
        .iter()
        .filter_map(|&n| topo.node(n))
        .map(|n| n.memory_available_bytes)
        .sum();
    if size > free {
        return Err(invalid(format!(
            "{} is more than the {} available on {place}; {fix}",
            format_bytes(size),
            format_bytes(free)
        )));
    }
    Ok(())
}
