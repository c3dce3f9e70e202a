//! Default buffer sizes for loaded latency: the chased buffer well beyond the last-level
//! cache (max(256 MiB, 8 x LLC), as the latency engine's default), each load thread's private
//! buffer beyond it too (max(64 MiB, 2 x LLC / threads)); both capped by the available memory of
//! their node (half of it for the chaser, a quarter for all load buffers together) so a run
//! never pushes the machine into reclaim. Sizes are whole MiB, and whole huge pages for
//! hugetlb backings.

use crate::results::placement::PageSize;
use crate::topology::Topology;

const MIB: u64 = 1 << 20;

/// (chaser bytes, load bytes per thread), whole MiB (whole pages of `page` if larger), at
/// least one of them each.
pub fn default_sizes(
    topo: &Topology,
    mem_node: u32,
    load_mem_node: u32,
    load_threads: usize,
    page: PageSize,
) -> (u64, u64) {
    let llc = topo.llc_total_bytes();
    let free = |n: u32| topo.available_over(&[n]);
    let chaser = (256 * MIB).max(8 * llc).min(free(mem_node) / 2);
    let threads = load_threads.max(1) as u64;
    let per_thread = (64 * MIB)
        .max(2 * llc / threads)
        .min(free(load_mem_node) / 4 / threads);
    let unit = page.bytes().max(MIB);
    let whole = |b: u64| (b / unit).max(1) * unit;
    (whole(chaser), whole(per_thread))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;
    use crate::topology::Cache;

    #[test]
    fn sizes_follow_the_llc_and_respect_available_memory() {
        let mut t = this_machine_one_node(); // 1 GiB available, no caches
        assert_eq!(
            default_sizes(&t, 0, 0, 1, PageSize::Base),
            (256 * MIB, 64 * MIB)
        );
        t.caches.push(Cache {
            level: 3,
            kind: "Unified".into(),
            size_bytes: 36 * MIB,
            line_bytes: Some(64),
            ways: None,
            cpus: vec![0],
        });
        t.nodes[0].memory_available_bytes = 8 << 30;
        assert_eq!(
            default_sizes(&t, 0, 0, 1, PageSize::Base),
            (288 * MIB, 72 * MIB)
        );
        // Many threads: 64 MiB floor, then the quarter-of-available cap.
        assert_eq!(default_sizes(&t, 0, 0, 64, PageSize::Base).1, 32 * MIB);
        t.nodes[0].memory_available_bytes = 100 * MIB;
        assert_eq!(
            default_sizes(&t, 0, 0, 1, PageSize::Base),
            (50 * MIB, 25 * MIB)
        );
        assert_eq!(
            default_sizes(&t, 0, 0, 1, PageSize::Thp),
            (50 * MIB, 25 * MIB)
        );
        // hugetlb: whole huge pages, at least one.
        assert_eq!(
            default_sizes(&t, 0, 0, 1, PageSize::Huge2M),
            (50 * MIB, 24 * MIB)
        );
        assert_eq!(
            default_sizes(&t, 0, 0, 1, PageSize::Huge1G),
            (1 << 30, 1 << 30)
        );
    }
}
