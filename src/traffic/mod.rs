//! What a measurement did to the NUMA counters: the kernel's per-node numastat read before and
//! after (always, where the files exist), and whether hardware node events were available.
//! Results of `c2c` and `loaded-latency` carry a [`NumaTraffic`]. Missing counters never fail
//! a run: a failed read becomes a note in the result instead.

pub mod numastat;
pub mod perf;

use crate::traffic::numastat::read_numastat;

use crate::results::traffic::NodeNumaStat;
use crate::sysroot::SysRoot;
use crate::traffic::perf::NodeEvents;

use crate::results::traffic::NumaTraffic;

/// Started before a measurement; [`TrafficRecorder::finish`] after it.
pub struct TrafficRecorder {
    root: SysRoot,
    before: Result<Vec<NodeNumaStat>, String>,
}

impl TrafficRecorder {
    pub fn start(root: &SysRoot) -> TrafficRecorder {
        TrafficRecorder {
            root: root.clone(),
            before: read_numastat(root).map_err(|e| e.to_string()),
        }
    }

    pub fn finish(self) -> NumaTraffic {
        let after = read_numastat(&self.root).map_err(|e| e.to_string());
        let (numastat_delta, numastat_note) = match (self.before, after) {
            (Ok(b), Ok(a)) => (deltas(&b, &a), None),
            (Err(e), _) | (_, Err(e)) => (vec![], Some(format!("numastat not available: {e}"))),
        };
        NumaTraffic {
            numastat_delta,
            numastat_note,
            perf: NodeEvents::probe(),
        }
    }
}

/// `after - before` for every node present in both.
pub fn deltas(before: &[NodeNumaStat], after: &[NodeNumaStat]) -> Vec<NodeNumaStat> {
    after
        .iter()
        .filter_map(|a| before.iter().find(|b| b.node == a.node).map(|b| a.delta(b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_pair_nodes_by_id() {
        let n = |node, hit| NodeNumaStat {
            node,
            numa_hit: hit,
            ..Default::default()
        };
        let d = deltas(&[n(0, 5), n(2, 1)], &[n(0, 9), n(1, 3), n(2, 4)]);
        assert_eq!(d, vec![n(0, 4), n(2, 3)]);
        let t = TrafficRecorder::start(&SysRoot::live());
        let _v = vec![1u8; 8 << 20];
        let r = t.finish();
        assert!(r.numastat_note.is_none());
        assert!(!r.numastat_delta.is_empty());
    }
}
