//! Memory tiers measured as tiers: for every node whose memory is not the CPU
//! nodes' DRAM tier (CXL, HBM, NVM, GPU memory, or a node the kernel puts in another tier),
//! the run's measured idle latency and read bandwidth from each CPU node against that node's
//! local memory, beside what the firmware declares for the same pair (HMAT: the target's
//! figure over the initiator's local figure) and the kernel's tier. Where the declared ratio
//! lies outside the measured ratio's 95 % interval widened by the practical margin, the two
//! disagree beyond noise and a warning says so. Pure functions over a finished run, like
//! penalty.rs (whose per-cell ratios they reuse); nothing here measures or prints.

use super::loaded::LoadedResult;
use super::penalty::{cell_ratios, Quantity, RemotePenalty};
use super::scenarios::{ScenarioId, ScenarioTable};
use super::topology::{HmatTarget, MemoryKind, Topology};
use super::RunResults;
use crate::stats::decide::PRACTICAL_MARGIN;
use serde::{Deserialize, Serialize};

/// One measured (initiator, memory node) pair of a tier, with the declared figures.
#[derive(Clone, Debug, PartialEq)]
pub struct TierCheck {
    pub kind: MemoryKind,
    pub tier: Option<u32>,
    /// Measured against the initiator's local memory (ratio with its interval).
    pub measured: RemotePenalty,
    /// HMAT's figure for this target from this initiator, and for the initiator's own node.
    pub declared: Option<u64>,
    pub declared_local: Option<u64>,
}

/// How measured and declared compare.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Agreement {
    /// The declared ratio lies inside the measured interval widened by the margin.
    Agree,
    /// Outside it: the firmware's figures do not describe this machine as measured.
    Disagree { declared_ratio: f64 },
    /// No HMAT figure for the pair, or no interval measured.
    Unknown,
}

impl TierCheck {
    /// HMAT's ratio (target over local), when both figures are declared.
    pub fn declared_ratio(&self) -> Option<f64> {
        let (d, l) = (self.declared?, self.declared_local?);
        (l > 0).then(|| d as f64 / l as f64)
    }

    pub fn agreement(&self) -> Agreement {
        let (Some(d), Some((lo, hi))) = (
            self.declared_ratio(),
            self.measured.ratio.ci.map(|c| c.ends()),
        ) else {
            return Agreement::Unknown;
        };
        if d < lo * (1.0 - PRACTICAL_MARGIN) || d > hi * (1.0 + PRACTICAL_MARGIN) {
            Agreement::Disagree { declared_ratio: d }
        } else {
            Agreement::Agree
        }
    }
}

/// The HMAT figure of `target` from `init` (CPU-initiator class preferred), when `init` is one
/// of the initiators the figure is declared for.
fn hmat_figure(hmat: &[HmatTarget], target: u32, init: u32, q: Quantity) -> Option<u64> {
    let mut m: Vec<&HmatTarget> = hmat
        .iter()
        .filter(|h| h.node == target && h.initiators.contains(&init))
        .collect();
    m.sort_by_key(|h| std::cmp::Reverse(h.access_class));
    m.into_iter().find_map(|h| match q {
        Quantity::Latency => h.read_latency_ns,
        Quantity::Bandwidth => h.read_bandwidth_mb_s,
    })
}

/// The nodes that are another tier than the CPU nodes' memory: not DRAM, or in a tier other
/// than the one holding the CPU nodes.
fn tier_nodes(t: &Topology) -> Vec<(u32, MemoryKind, Option<u32>)> {
    let mem = &t.layout.node_memory;
    let cpu_tier = mem
        .iter()
        .filter(|m| m.kind == MemoryKind::Dram)
        .filter_map(|m| m.tier)
        .min();
    mem.iter()
        .filter(|m| m.kind != MemoryKind::Dram || (m.tier.is_some() && m.tier != cpu_tier))
        .map(|m| (m.node, m.kind, m.tier))
        .collect()
}

/// Every measured pair whose memory node is another tier, latency then bandwidth.
pub fn tier_checks(r: &RunResults) -> Vec<TierCheck> {
    let nodes = tier_nodes(&r.topology);
    let mut out = Vec::new();
    for q in [Quantity::Latency, Quantity::Bandwidth] {
        for m in cell_ratios(r, q) {
            let Some(&(_, kind, tier)) = nodes.iter().find(|n| n.0 == m.memory_node) else {
                continue;
            };
            let hmat = &r.topology.hmat;
            out.push(TierCheck {
                kind,
                tier,
                declared: hmat_figure(hmat, m.memory_node, m.initiator, q),
                declared_local: hmat_figure(hmat, m.initiator, m.initiator, q),
                measured: m,
            });
        }
    }
    out
}

/// The most a weight gets when the kernel derives them (`weightiness` in mm/mempolicy.c).
pub const KERNEL_WEIGHTINESS: u64 = 32;

/// The weights weighted interleave's `auto` mode derives (Linux 6.16+), computed the way the
/// kernel documents and does it: each memory node's bandwidth is the smaller of its declared
/// read and write bandwidth (HMAT for CPU initiators, `access1`, else `access0`), a node
/// weighs `32 x its bandwidth / the sum` rounded down, at least 1 (also a node with no
/// figure), and all are divided by their greatest common divisor. `None` when no memory node
/// has a declared bandwidth (the kernel then leaves every weight at 1).
pub fn kernel_auto_weights(t: &Topology) -> Option<Vec<(u32, u32)>> {
    let nodes = t.memory_nodes();
    let bw: Vec<(u32, u64)> = nodes
        .iter()
        .map(|&n| {
            let mut m: Vec<&HmatTarget> = t.hmat.iter().filter(|h| h.node == n).collect();
            m.sort_by_key(|h| std::cmp::Reverse(h.access_class));
            let b = m
                .iter()
                .find_map(|h| Some(h.read_bandwidth_mb_s?.min(h.write_bandwidth_mb_s?)));
            (n, b.unwrap_or(0))
        })
        .collect();
    let sum: u64 = bw.iter().map(|b| b.1).sum();
    if sum == 0 {
        return None;
    }
    let raw: Vec<(u32, u64)> = bw
        .iter()
        .map(|&(n, b)| {
            let scaled = KERNEL_WEIGHTINESS * b;
            (
                n,
                if b > 0 && sum < scaled {
                    scaled / sum
                } else {
                    1
                },
            )
        })
        .collect();
    let g = raw.iter().fold(0, |g, &(_, w)| gcd(g, w)).max(1);
    Some(raw.into_iter().map(|(n, w)| (n, (w / g) as u32)).collect())
}

/// The loaded-latency curve on one kind of memory other than the home node's: the chaser on
/// the home node's measuring CPU and the load threads on the other usable CPUs, as for the
/// run's curve, but both buffers on `node`, the first memory node of that kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KindCurve {
    pub kind: MemoryKind,
    pub node: u32,
    pub curve: LoadedResult,
}

/// One loaded-latency curve per kind of memory the run measured: the run's own curve under
/// its node's kind (DRAM on most machines) first, then each [`KindCurve`].
pub fn curves_per_kind(r: &RunResults) -> Vec<(MemoryKind, u32, &LoadedResult)> {
    let kind_of = |n: u32| {
        r.topology
            .layout
            .node_memory
            .iter()
            .find(|m| m.node == n)
            .map_or(MemoryKind::Unknown, |m| m.kind)
    };
    r.loaded_latency
        .iter()
        .map(|c| (kind_of(c.mem_node), c.mem_node, c))
        .chain(
            r.loaded_latency_kinds
                .iter()
                .map(|k| (k.kind, k.node, &k.curve)),
        )
        .collect()
}

/// How the kernel's `auto` weights, row (h), compare with the weights from the measured
/// bandwidths, row (g), both measured in the same interleaved rounds on the same kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeightsVerdict {
    /// (h) places its pages exactly as (g) here: the two weightings are one.
    Same,
    /// The two medians' 95 % intervals are disjoint: `better` gives more bandwidth, by
    /// `gain` (its median over the other's, less 1).
    Better { better: ScenarioId, gain: f64 },
    /// The intervals overlap: no difference beyond noise.
    NoDifference,
    /// One of the two has no interval (too few rounds): nothing is stated.
    NoInterval,
}

/// Rows (g) and (h) side by side, with the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsChoice {
    pub measured: Vec<(u32, u8)>,
    pub auto: Vec<(u32, u8)>,
    pub verdict: WeightsVerdict,
    /// The better row's line that applies its weights (sysfs, then numactl); empty when
    /// none is better.
    pub apply: String,
}

/// The kernel's weights against the measured ones, when both rows gave a bandwidth (`None`
/// where either could not run: one memory node, no root, no declared bandwidth, an older
/// results file; each row then says why).
pub fn weights_choice(t: &ScenarioTable) -> Option<WeightsChoice> {
    let g = t.get(ScenarioId::AllWeightedInterleave)?;
    let h = t.get(ScenarioId::AllAutoWeightedInterleave)?;
    let (gs, hs) = (g.mb_per_s.as_ref()?, h.mb_per_s.as_ref()?);
    let verdict = if h.same_as == Some(g.id) || g.same_as == Some(h.id) {
        WeightsVerdict::Same
    } else {
        match (gs.ci, hs.ci) {
            (Some(a), Some(b)) if a.low > b.high => WeightsVerdict::Better {
                better: g.id,
                gain: gs.median / hs.median - 1.0,
            },
            (Some(a), Some(b)) if b.low > a.high => WeightsVerdict::Better {
                better: h.id,
                gain: hs.median / gs.median - 1.0,
            },
            (Some(_), Some(_)) => WeightsVerdict::NoDifference,
            _ => WeightsVerdict::NoInterval,
        }
    };
    let apply = match verdict {
        WeightsVerdict::Better { better, .. } if better == h.id => h.numactl.clone(),
        WeightsVerdict::Better { .. } => g.numactl.clone(),
        _ => String::new(),
    };
    Some(WeightsChoice {
        measured: t.weights.clone(),
        auto: t.auto_weights.clone(),
        verdict,
        apply,
    })
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::penalty::Method;
    use crate::stats::decide::RatioInterval;

    fn check(lo: f64, hi: f64, declared: Option<u64>) -> TierCheck {
        TierCheck {
            kind: MemoryKind::Cxl,
            tier: Some(22),
            measured: RemotePenalty {
                quantity: Quantity::Latency,
                initiator: 0,
                memory_node: 2,
                remote: 250.0,
                local: 100.0,
                ratio: RatioInterval {
                    ratio: (lo + hi) / 2.0,
                    ci: Some(crate::stats::Interval::new(lo, hi)),
                    samples: 9,
                    p_value: Some(0.004),
                },
                method: Method::Paired { rounds: 9 },
                disturbed: false,
            },
            declared,
            declared_local: Some(100),
        }
    }

    #[test]
    fn declared_outside_the_widened_interval_disagrees() {
        assert_eq!(check(2.4, 2.6, Some(250)).agreement(), Agreement::Agree);
        // 2.65 is beyond 2.6 but within the 3 % margin.
        assert_eq!(check(2.4, 2.6, Some(265)).agreement(), Agreement::Agree);
        assert_eq!(
            check(1.0, 1.05, Some(250)).agreement(),
            Agreement::Disagree {
                declared_ratio: 2.5
            }
        );
        assert_eq!(check(2.4, 2.6, None).agreement(), Agreement::Unknown);
        let s = crate::render::words::tier::sentence(&check(2.4, 2.6, Some(250)));
        assert!(
            s.starts_with(
                "CXL node 2, kernel tier 22 from node 0: idle latency x2.50 [2.40, 2.60]"
            ),
            "{s}"
        );
        assert!(s.contains("HMAT declares x2.50 (250 vs 100 ns)"), "{s}");
    }

    /// Fake rounds for (g) and (h): disjoint intervals name the better, overlapping ones
    /// say no difference, too few rounds state nothing, one placement is "the same".
    #[test]
    fn the_better_weighting_is_named_only_beyond_noise() {
        use crate::stats::Summary;
        let mut r = crate::render::fixture::opteron_example();
        let t = r.scenarios.as_mut().unwrap();
        t.weights = vec![(0, 2), (1, 1)];
        t.auto_weights = vec![(0, 3), (1, 1)];
        let mut h = t.get(ScenarioId::AllWeightedInterleave).unwrap().clone();
        h.id = ScenarioId::AllAutoWeightedInterleave;
        h.letter = "h".into();
        t.scenarios.push(h);
        let set = |t: &mut ScenarioTable, id: ScenarioId, rounds: &[f64]| {
            let row = t.scenarios.iter_mut().find(|s| s.id == id).unwrap();
            row.mb_per_s = Summary::of(rounds);
        };
        let g9 = [100.0, 101.0, 99.0, 100.5, 100.2, 99.8, 100.1, 99.9, 100.3];
        let h_low: Vec<f64> = g9.iter().map(|x| x * 0.8).collect();
        let h_near: Vec<f64> = g9.iter().rev().map(|x| x + 0.2).collect();
        set(t, ScenarioId::AllWeightedInterleave, &g9);
        set(t, ScenarioId::AllAutoWeightedInterleave, &h_low);
        match weights_choice(t).unwrap().verdict {
            WeightsVerdict::Better { better, gain } => {
                assert_eq!(better, ScenarioId::AllWeightedInterleave);
                assert!((gain - 0.25).abs() < 1e-9, "{gain}");
            }
            v => panic!("{v:?}"),
        }
        set(t, ScenarioId::AllWeightedInterleave, &h_low);
        set(t, ScenarioId::AllAutoWeightedInterleave, &g9);
        assert!(matches!(
            weights_choice(t).unwrap().verdict,
            WeightsVerdict::Better {
                better: ScenarioId::AllAutoWeightedInterleave,
                ..
            }
        ));
        set(t, ScenarioId::AllWeightedInterleave, &h_near);
        assert_eq!(
            weights_choice(t).unwrap().verdict,
            WeightsVerdict::NoDifference
        );
        set(t, ScenarioId::AllWeightedInterleave, &[100.0, 90.0, 95.0]);
        assert_eq!(
            weights_choice(t).unwrap().verdict,
            WeightsVerdict::NoInterval
        );
        let row = t.scenarios.last_mut().unwrap();
        row.same_as = Some(ScenarioId::AllWeightedInterleave);
        let c = weights_choice(t).unwrap();
        assert_eq!(c.verdict, WeightsVerdict::Same);
        assert_eq!(
            (c.measured, c.auto),
            (vec![(0, 2), (1, 1)], vec![(0, 3), (1, 1)])
        );
        t.scenarios.last_mut().unwrap().mb_per_s = None;
        assert_eq!(weights_choice(t), None);
    }

    #[test]
    fn kernel_auto_weights_follow_the_documented_reduction() {
        let topology_with_hmat = |bw: &[(u32, u64, u64)]| {
            let mut t = crate::render::fixture::opteron_example().topology;
            t.hmat = bw
                .iter()
                .map(|&(node, r, w)| HmatTarget {
                    node,
                    access_class: 1,
                    initiators: vec![node],
                    read_latency_ns: None,
                    write_latency_ns: None,
                    read_bandwidth_mb_s: Some(r),
                    write_bandwidth_mb_s: Some(w),
                })
                .collect();
            t
        };
        // DRAM 100/80 GB/s (min 80), CXL 40/30 (min 30): 32*80/110 = 23, 32*30/110 = 8.
        let t = topology_with_hmat(&[(0, 100_000, 80_000), (1, 40_000, 30_000)]);
        assert_eq!(kernel_auto_weights(&t), Some(vec![(0, 23), (1, 8)]));
        // Equal bandwidths: 16 and 16, reduced by their divisor to 1:1.
        let t = topology_with_hmat(&[(0, 50_000, 50_000), (1, 50_000, 50_000)]);
        assert_eq!(kernel_auto_weights(&t), Some(vec![(0, 1), (1, 1)]));
        // Bandwidths 2:1 give 21:10 (rounded down, no common divisor), not 2:1.
        let t = topology_with_hmat(&[(0, 100_000, 100_000), (1, 50_000, 50_000)]);
        assert_eq!(kernel_auto_weights(&t), Some(vec![(0, 21), (1, 10)]));
        assert_eq!(kernel_auto_weights(&topology_with_hmat(&[])), None);
    }

    #[test]
    fn a_cxl_node_is_measured_beside_hmat_and_a_wrong_hmat_is_named() {
        use crate::stats::Summary;
        let mut r = crate::run::sample::results();
        r.bandwidth = None;
        r.advisor = None;
        r.rightmark = None;
        let mut lat =
            crate::run::sample::latency_matrix(&[(0, 0, 100.0, None), (0, 1, 250.0, None)]);
        for c in &mut lat.matrix.as_mut().unwrap().cells {
            let v = c.result.ns_per_load.median;
            let s: Vec<f64> = (0..9).map(|k| v * (1.0 + 0.001 * k as f64)).collect();
            c.result.ns_per_load = Summary::of(&s).unwrap();
        }
        r.latency = Some(lat);
        let mem = crate::testutil::node_memory;
        r.topology.layout.node_memory =
            vec![mem(0, MemoryKind::Dram, 4), mem(1, MemoryKind::Cxl, 22)];
        let hmat = |node, lat| HmatTarget {
            node,
            access_class: 0,
            initiators: vec![0],
            read_latency_ns: Some(lat),
            write_latency_ns: None,
            read_bandwidth_mb_s: None,
            write_bandwidth_mb_s: None,
        };
        // HMAT says node 1 is as fast as node 0; measured it is 2.5 times slower.
        r.topology.hmat = vec![hmat(0, 100), hmat(1, 100)];
        let c = tier_checks(&r);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!((c[0].measured.initiator, c[0].measured.memory_node), (0, 1));
        assert!(matches!(c[0].agreement(), Agreement::Disagree { .. }));
        let f = crate::run::findings::tier_findings(&r);
        assert_eq!(f[0].id, "tier-measured");
        assert!(
            f[0].text
                .starts_with("CXL node 1, kernel tier 22 from node 0: idle latency x2.50"),
            "{}",
            f[0].text
        );
        assert_eq!(f[1].id, "tier-declared-disagrees");
        // HMAT that agrees: no warning.
        r.topology.hmat = vec![hmat(0, 100), hmat(1, 250)];
        assert!(crate::run::findings::tier_findings(&r)
            .iter()
            .all(|f| f.id != "tier-declared-disagrees"));
    }
}
