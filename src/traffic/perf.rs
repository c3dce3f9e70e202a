//! Hardware NUMA traffic counters where the machine offers them: the generic
//! `PERF_COUNT_HW_CACHE_NODE` events (reads that reached a memory node, and those that
//! missed the local one) through `perf_event_open`. Many machines do not offer them (virtual
//! machines without a virtual PMU, containers, restrictive `perf_event_paranoid`), so every
//! use goes through [`NodeEvents::probe`], results say "not available" with the reason, and a
//! run never fails because counters are missing. The kernel's numastat counters
//! ([`crate::traffic::numastat`]) are recorded in every case.

use crate::sys::perf::{
    PerfCounter, PERF_COUNT_HW_CACHE_NODE, PERF_COUNT_HW_CACHE_OP_READ,
    PERF_COUNT_HW_CACHE_RESULT_ACCESS, PERF_COUNT_HW_CACHE_RESULT_MISS, PERF_TYPE_HW_CACHE,
};

use crate::results::traffic::{NodeEventCounts, PerfAvailability};

const EVENTS: &str = "node-loads and node-load-misses (PERF_COUNT_HW_CACHE_NODE)";

fn config(result: u64) -> u64 {
    PERF_COUNT_HW_CACHE_NODE | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (result << 16)
}

/// Both node events, open on the calling thread.
pub struct NodeEvents {
    reads: PerfCounter,
    misses: PerfCounter,
}

impl NodeEvents {
    /// Opens the events on the calling thread, or says why not.
    pub fn open() -> Result<NodeEvents, String> {
        let reads = PerfCounter::open(
            PERF_TYPE_HW_CACHE,
            config(PERF_COUNT_HW_CACHE_RESULT_ACCESS),
        )
        .map_err(|e| e.to_string())?;
        let misses = PerfCounter::open(PERF_TYPE_HW_CACHE, config(PERF_COUNT_HW_CACHE_RESULT_MISS))
            .map_err(|e| e.to_string())?;
        Ok(NodeEvents { reads, misses })
    }

    /// Checks once whether the events open on this thread.
    pub fn probe() -> PerfAvailability {
        match NodeEvents::open() {
            Ok(_) => PerfAvailability {
                events: EVENTS.into(),
                available: true,
                detail: "available".into(),
            },
            Err(why) => PerfAvailability {
                events: EVENTS.into(),
                available: false,
                detail: format!("not available: {why}"),
            },
        }
    }

    /// Zeroes and starts both counters.
    pub fn start(&self) -> Result<(), String> {
        self.reads.start().map_err(|e| e.to_string())?;
        self.misses.start().map_err(|e| e.to_string())
    }

    /// Stops both counters and returns the counts.
    pub fn stop(&self) -> Result<NodeEventCounts, String> {
        Ok(NodeEventCounts {
            node_reads: self.reads.stop().map_err(|e| e.to_string())?,
            node_read_misses: self.misses.stop().map_err(|e| e.to_string())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_answers_either_way_without_failing() {
        let p = NodeEvents::probe();
        assert_eq!(p.events, EVENTS);
        if p.available {
            assert_eq!(p.detail, "available");
        } else {
            assert!(p.detail.starts_with("not available: "), "{}", p.detail);
        }
        assert_eq!(config(PERF_COUNT_HW_CACHE_RESULT_MISS), 0x10006);
    }
}
