//! Row (h): all threads under weighted interleave with the kernel's `auto` weights, the
//! weights Linux derives from the firmware's declared bandwidths, beside (g)'s weights from
//! the measured bandwidths. Both are measured in the same interleaved rounds on the same
//! streaming kernel, so `results::tiers::weights_choice` can say which weighting gives
//! more bandwidth here, or that they differ by no more than noise. This file plans the row;
//! the rounds measure it with the others.

use crate::results::tiers::kernel_auto_weights;

use super::*;

/// Where the kernel's `auto` weights came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The kernel's auto mode is on: the weights it holds now are its own.
    Read,
    /// Computed from HMAT the way the kernel documents it (auto mode off or absent).
    Computed,
}

/// The kernel's `auto` weights for the memory nodes: read where auto mode is on and the
/// kernel shows a weight for every memory node, else computed from HMAT; `None` without
/// declared bandwidth (the kernel then leaves every weight at 1, which is plain interleave).
pub(super) fn kernel_weights(topo: &Topology) -> Option<(Vec<(u32, u8)>, Source)> {
    let mem = topo.memory_nodes();
    let p = &topo.environment.platform;
    if p.weighted_interleave_auto == Some(true) {
        let read: Vec<(u32, u8)> = mem
            .iter()
            .filter_map(|n| {
                let w = p
                    .weighted_interleave_weights
                    .iter()
                    .find(|w| w.node == *n)?;
                Some((*n, w.weight.clamp(1, 255) as u8))
            })
            .collect();
        if read.len() == mem.len() && read.len() >= 2 {
            return Some((read, Source::Read));
        }
    }
    let computed: Vec<(u32, u8)> = kernel_auto_weights(topo)?
        .into_iter()
        .filter(|(n, _)| mem.contains(n))
        .map(|(n, w)| (n, w.clamp(1, 255) as u8))
        .collect();
    (computed.len() >= 2).then_some((computed, Source::Computed))
}

/// Fills row (h) and its configuration: unavailable with the reason where (g) is (one memory
/// node, an old kernel, not root) or where no weights are declared; else the kernel's
/// weights held system-wide while its threads place their pages, like (g)'s. Returns the
/// weights planned.
pub(super) fn plan_row(
    topo: &Topology,
    row: &mut ScenarioResult,
    config: &mut Option<Config>,
    unavailable: Option<&str>,
    bytes_per_thread: u64,
) -> Vec<(u32, u8)> {
    let all = topo.usable_cpus();
    row.policy = "weighted interleave, the kernel's auto weights".into();
    if let Some(why) = unavailable {
        row.unavailable = Some(why.to_string());
        return vec![];
    }
    let Some((w, source)) = kernel_weights(topo) else {
        row.unavailable = Some(
            "the firmware declares no memory bandwidth (no HMAT read and write bandwidth per node), so the kernel's auto mode has nothing to derive weights from and leaves every weight at 1, which is (f)".into(),
        );
        return vec![];
    };
    let from = match source {
        Source::Read => "read from the kernel, its auto mode on",
        Source::Computed => "computed from HMAT as the kernel's auto mode does",
    };
    row.policy = format!("weighted interleave {} ({from})", weights_text(&w));
    row.numactl = apply_line(&w, source);
    *config = Some(Config {
        job: Job::Team {
            cpus: all.clone(),
            policies: vec![Policy::WeightedInterleave(w.clone()); all.len()],
        },
        bytes_per_thread,
        weights: Some(w.clone()),
    });
    w
}

/// The line that gives a program these weights: turning auto mode on where the kernel
/// computes them itself, else writing each node's weight; then the numactl line.
fn apply_line(w: &[(u32, u8)], source: Source) -> String {
    let set = match source {
        Source::Read => "echo true > /sys/kernel/mm/mempolicy/weighted_interleave/auto".into(),
        Source::Computed => w
            .iter()
            .map(|(n, x)| {
                format!("echo {x} > /sys/kernel/mm/mempolicy/weighted_interleave/node{n}")
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    format!("{set}; numactl --weighted-interleave={} APP", nodes_text(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::environment_platform::NodeWeight;
    use crate::results::topology::HmatTarget;

    fn two_nodes() -> Topology {
        let p = format!(
            "{}/tests/fixtures/topology/opteron250-2s.expected.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    }

    fn hmat(node: u32, bw: u64) -> HmatTarget {
        HmatTarget {
            node,
            access_class: 1,
            initiators: vec![0],
            read_latency_ns: None,
            write_latency_ns: None,
            read_bandwidth_mb_s: Some(bw),
            write_bandwidth_mb_s: Some(bw),
        }
    }

    #[test]
    fn weights_are_read_in_auto_mode_and_computed_otherwise() {
        let mut t = two_nodes();
        t.hmat = vec![];
        assert_eq!(kernel_weights(&t), None);
        t.hmat = vec![hmat(0, 60_000), hmat(1, 20_000)];
        // 32 x 60/80 = 24, 32 x 20/80 = 8: 3:1.
        assert_eq!(
            kernel_weights(&t),
            Some((vec![(0, 3), (1, 1)], Source::Computed))
        );
        t.environment.platform.weighted_interleave_auto = Some(true);
        t.environment.platform.weighted_interleave_weights = vec![
            NodeWeight { node: 0, weight: 5 },
            NodeWeight { node: 1, weight: 2 },
        ];
        assert_eq!(
            kernel_weights(&t),
            Some((vec![(0, 5), (1, 2)], Source::Read))
        );
        // Auto mode on but a node's weight missing: computed.
        t.environment.platform.weighted_interleave_weights.pop();
        assert_eq!(kernel_weights(&t).map(|w| w.1), Some(Source::Computed));
    }

    #[test]
    fn the_row_says_why_it_cannot_run_or_how_to_apply_its_weights() {
        let mut t = two_nodes();
        let mut row = super::row(
            ScenarioId::AllAutoWeightedInterleave,
            &[0, 1],
            true,
            String::new(),
            String::new(),
        );
        let mut cfg = None;
        assert!(plan_row(&t, &mut row, &mut cfg, Some("needs root"), 1 << 24).is_empty());
        assert_eq!(row.unavailable.as_deref(), Some("needs root"));
        assert!(cfg.is_none());
        t.hmat = vec![];
        row.unavailable = None;
        assert!(plan_row(&t, &mut row, &mut cfg, None, 1 << 24).is_empty());
        assert!(row
            .unavailable
            .as_deref()
            .unwrap()
            .contains("no memory bandwidth"));
        t.hmat = vec![hmat(0, 60_000), hmat(1, 20_000)];
        row.unavailable = None;
        assert_eq!(
            plan_row(&t, &mut row, &mut cfg, None, 1 << 24),
            vec![(0, 3), (1, 1)]
        );
        assert!(row.unavailable.is_none());
        assert_eq!(
            row.numactl,
            "echo 3 > /sys/kernel/mm/mempolicy/weighted_interleave/node0; echo 1 > /sys/kernel/mm/mempolicy/weighted_interleave/node1; numactl --weighted-interleave=0,1 APP"
        );
        assert!(
            row.policy.contains("3:1") || row.policy.contains("0:3,1:1"),
            "{}",
            row.policy
        );
        let c = cfg.expect("planned");
        assert_eq!(c.weights, Some(vec![(0, 3), (1, 1)]));
    }
}
