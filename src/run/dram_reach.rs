//! Does the headline latency reach memory? The run's local latency is a random walk over a
//! working set of 8x the largest last-level cache instance, so that nearly every load misses
//! it (docs/METHODOLOGY.md, "Working-set sweep"), but never more than a quarter of free
//! memory. Where free memory caps the walk below 8x (a large L3 on a small node, a VM whose
//! node reports little memory), part of the walk is served by the cache and the figure reads
//! below memory's latency. A uniform random walk over W bytes with C bytes of cache hits the
//! cache on at most C / W of its loads (every cached line one of the walk's): that fraction is
//! the documented calculation given beside the warning. Pure function over finished results.

use crate::results::findings::{Finding, SHORT_OF_MEMORY};
use crate::results::format::format_bytes as fmt_bytes;
use crate::results::RunResults;
use crate::run::plan::llc_instance_bytes;

/// The working set, in last-level caches, past which a random walk counts as a memory figure.
pub const DRAM_REACH: u64 = 8;

/// The warning, when the run's reference latency walked less than [`DRAM_REACH`] times the
/// largest last-level cache.
pub fn short_of_memory(r: &RunResults) -> Option<Finding> {
    let walked = r.reference.as_ref()?.latency.as_ref()?.working_set_bytes;
    let llc = llc_instance_bytes(&r.topology)?;
    if walked >= DRAM_REACH * llc {
        return None;
    }
    let hit = (llc as f64 / walked as f64).min(1.0);
    Some(Finding::warning(
        SHORT_OF_MEMORY,
        format!(
            "the latency walk ({}) is {:.1}x the {} last-level cache, short of {}x: up to {:.0} % \
             of its loads can hit the cache and read low",
            fmt_bytes(walked),
            walked as f64 / llc as f64,
            fmt_bytes(llc),
            DRAM_REACH,
            hit * 100.0
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::reference::ReferenceFigures;
    use crate::results::topology::Cache;

    const MIB: u64 = 1 << 20;

    fn run(walked: u64, llc: u64) -> RunResults {
        let mut r = crate::run::sample::results();
        r.topology.caches = vec![Cache {
            level: 3,
            kind: "Unified".into(),
            size_bytes: llc,
            line_bytes: Some(64),
            ways: Some(20),
            cpus: vec![0, 1],
        }];
        let mut f = ReferenceFigures::empty();
        f.latency = Some(crate::testutil::reference_latency(
            walked,
            &[100.0, 101.0, 102.0],
        ));
        r.reference = Some(f);
        r
    }

    #[test]
    fn a_walk_of_three_caches_is_warned_with_its_hit_bound() {
        let f = short_of_memory(&run(929 * MIB, 300 * MIB)).expect("a warning");
        assert_eq!(f.id, SHORT_OF_MEMORY);
        assert!(
            f.text.contains("(929 MiB) is 3.1x the 300 MiB"),
            "{}",
            f.text
        );
        assert!(f.text.contains("up to 32 %"), "{}", f.text);
    }

    #[test]
    fn a_walk_of_eight_caches_or_more_is_silent() {
        assert!(short_of_memory(&run(256 * MIB, 32 * MIB)).is_none());
        assert!(short_of_memory(&run(2400 * MIB, 300 * MIB)).is_none());
    }

    #[test]
    fn without_a_reference_or_caches_nothing_is_said() {
        let mut r = run(16 * MIB, 32 * MIB);
        r.reference = None;
        assert!(short_of_memory(&r).is_none());
        let mut r = run(16 * MIB, 32 * MIB);
        r.topology.caches.clear();
        assert!(short_of_memory(&r).is_none());
    }
}
