//! Default buffer sizes for loaded latency: the chased buffer well beyond the last-level
//! cache (max(256 MiB, 8 x LLC), as the latency engine's default), each load thread's private
//! buffer beyond it too (max(64 MiB, 2 x LLC / threads)); both capped by the available memory of
//! their node (half of it for the chaser, a quarter for all load buffers together) so a run
//! never pushes the machine into reclaim. Sizes are whole MiB, and whole huge pages for
//! hugetlb backings.

use crate::results::format::format_bytes;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;

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

/// Refuses a team whose buffers together need more than their nodes have available: the
/// chased buffer plus every load buffer where both are on one node, each node alone otherwise.
/// Each buffer is checked alone when placed; this catches the sum, which the OOM killer would
/// otherwise settle mid-sweep.
pub fn check_team_fits(
    topo: &Topology,
    (mem_node, chaser_bytes): (u32, u64),
    (load_node, load_bytes_per_thread, threads): (u32, u64, usize),
) -> anyhow::Result<()> {
    let load = load_bytes_per_thread.saturating_mul(threads as u64);
    let mut need = vec![(mem_node, chaser_bytes)];
    match need.iter_mut().find(|(n, _)| *n == load_node) {
        Some((_, b)) => *b = b.saturating_add(load),
        None => need.push((load_node, load)),
    }
    for (node, bytes) in need {
        let have = topo.available_over(&[node]);
        anyhow::ensure!(
            bytes <= have,
            "the loaded-latency buffers need {} on node {node} but it has {} available; \
             use a smaller --size or fewer --load-cpus",
            format_bytes(bytes),
            format_bytes(have)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::topology::Cache;
    use crate::testutil::this_machine_one_node;

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

    #[test]
    fn a_team_is_refused_when_its_buffers_together_exceed_the_node() {
        let t = this_machine_one_node(); // 1 GiB available on node 0
                                         // Each buffer alone fits; together they do not.
        let e = check_team_fits(&t, (0, 512 * MIB), (0, 200 * MIB, 3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("node 0") && e.contains("--size"), "{e}");
        assert!(check_team_fits(&t, (0, 256 * MIB), (0, 64 * MIB, 3)).is_ok());
        // Buffers on another node are counted there, not here; an absent node has nothing.
        assert!(check_team_fits(&t, (0, 512 * MIB), (7, 1, 1)).is_err());
        assert!(check_team_fits(&t, (0, 512 * MIB), (0, 512 * MIB, 1)).is_ok());
    }
}
