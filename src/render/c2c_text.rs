//! Terminal rendering of a c2c result: the home node of the line and its verified placement,
//! then the run view's sections (the CPU x CPU grid of median one-way ns, each pair's
//! interval over its blocks, the groups, the sentence with what the figures mean in a virtual
//! machine), the highest tail and the NUMA counters.

use std::io::{self, Write};

use super::run_view::c2c::C2C_GROUP_KEYS;
use super::run_view::c2c::{c2c_groups_table, c2c_heatmap, c2c_summary, c2c_table};
use super::{traffic_text, view_text};
use crate::results::c2c::{C2cResult, PairResult};

/// Up to this many pairs, each pair's interval gets its own line; beyond, only the widest.
const PAIR_LINES: usize = 12;

/// Each pair's median with its 95 % interval over its blocks (results with blocks only:
/// older files had intervals over back-to-back samples, shown in the groups as before).
fn pair_intervals(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    let Some(blocks) = r.plan.blocks_per_pair else {
        return Ok(());
    };
    let mut t = c2c_table(Some(r)).with_interval_text("ns_one_way", "ns one way");
    let what = if r.pairs.len() <= PAIR_LINES {
        "per pair"
    } else {
        let h = |p: &PairResult| p.ns_one_way.relative_half_width().unwrap_or(0.0);
        let widest = (0..r.pairs.len()).max_by(|&a, &b| h(&r.pairs[a]).total_cmp(&h(&r.pairs[b])));
        t.rows = widest.map(|i| t.rows.swap_remove(i)).into_iter().collect();
        "the widest pair interval"
    };
    writeln!(
        out,
        "{what}: 95 % interval of its block medians, n = its blocks with a median (of {blocks}):"
    )?;
    view_text::columns(
        out,
        &t,
        &[
            "from_cpu",
            "to_cpu",
            "ns_one_way_median",
            "ns_one_way_min",
            "ns_one_way_p90",
        ],
    )
}

/// What was bounced where: the line's home node and placement, and how the pairs were sampled.
fn header(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Core-to-core latency: one cache line bounced between two pinned CPUs, ns one way (median)"
    )?;
    let touched = match r.line_touched_on_cpu {
        Some(c) => format!("first touched on CPU {c}"),
        None => "node has no usable CPU; bound by policy".into(),
    };
    writeln!(
        out,
        "line home node {} ({touched}); verified {:.0}% of its page on node {}",
        r.line_node,
        100.0 * r.placement_fraction,
        r.line_node
    )?;
    match r.plan.blocks_per_pair {
        Some(blocks) => writeln!(
            out,
            "pairs: {} ({}, of {} ordered pairs); each in {blocks} blocks of {} ms spread over the experiment (rounds over all pairs), the first fifth of each dropped; sample = {} round trips; figure and 95 % interval from the block medians",
            r.sampling.pairs,
            r.sampling.strategy,
            r.sampling.possible_pairs,
            r.plan.repetition_ms,
            r.plan.round_trips_per_sample
        )?,
        None => writeln!(
            out,
            "pairs: {} ({}, of {} ordered pairs); {} kept repetitions of {} ms per pair, first dropped; sample = {} round trips",
            r.sampling.pairs,
            r.sampling.strategy,
            r.sampling.possible_pairs,
            r.plan.repetitions,
            r.plan.repetition_ms,
            r.plan.round_trips_per_sample
        )?,
    }
    Ok(())
}

/// The pairs whose blocks fell into two separated groups, when any.
fn unstable(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    let pairs: Vec<String> = r
        .pairs
        .iter()
        .filter(|p| p.unstable.is_some())
        .map(|p| format!("CPU {} -> CPU {}", p.from, p.to))
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "unstable (the pair's blocks fell into two separated groups, see the warning): {}",
        pairs.join(", ")
    )
}

pub fn render(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    header(r, out)?;
    writeln!(out)?;
    if let Some(h) = c2c_heatmap(Some(r)) {
        view_text::grid(out, &h)?;
    }
    unstable(r, out)?;
    pair_intervals(r, out)?;
    writeln!(out)?;
    let groups = c2c_groups_table(Some(r)).with_interval_text("ns_one_way", "ns one way");
    view_text::columns(out, &groups, C2C_GROUP_KEYS)?;
    if let Some(s) = c2c_summary(r) {
        writeln!(out, "{s}")?;
    }
    let tail = |p: &PairResult| p.ns_one_way_all_samples.unwrap_or(p.ns_one_way);
    let worst = r
        .pairs
        .iter()
        .max_by(|a, b| tail(a).p99.total_cmp(&tail(b).p99));
    if let Some(w) = worst {
        writeln!(
            out,
            "highest p99: CPU {} -> CPU {}: {:.1} ns (median {:.1})",
            w.from,
            w.to,
            tail(w).p99,
            w.ns_one_way.median
        )?;
    }
    traffic_text::render(&r.traffic, out)?;
    let q = super::verdict::of_checks(&crate::results::verdict::c2c_checks(r));
    super::verdict::write_text(out, Some(&q), &r.warnings, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::c2c::{matrix_of, C2cPlan, Group, PairResult, Relation, Sampling};
    use crate::results::placement::{NodePages, PageSize, PlacementReport};
    use crate::results::traffic::{NodeNumaStat, NumaTraffic, PerfAvailability};
    use crate::stats::Summary;

    /// Two pairs with sample intervals, written before blocks existed.
    fn two_pairs() -> C2cResult {
        let cpus = vec![0, 1];
        let pairs: Vec<PairResult> = [(0, 1, 40.0), (1, 0, 42.0)]
            .iter()
            .map(|&(from, to, ns)| PairResult {
                quality: None,
                from,
                to,
                relation: Relation::SharedCache { level: 3 },
                ns_one_way: Summary::of(&[ns, ns + 1.0, ns + 30.0]).unwrap(),
                ns_one_way_all_samples: None,
                blocks: vec![],
                unstable: None,
                cpu_share: Some(1.0),
                patience: None,
            })
            .collect();
        let groups = vec![Group {
            relation: Relation::SharedCache { level: 3 },
            label: Relation::SharedCache { level: 3 }.label(),
            pairs: 2,
            ns_one_way: Summary::of(&[41.0, 43.0]).unwrap(),
        }];
        C2cResult {
            schema_version: 1,
            matrix: matrix_of(&cpus, &pairs),
            cpus: cpus.clone(),
            line_node: 0,
            line_touched_on_cpu: Some(0),
            line_placement: PlacementReport {
                size_bytes: 4096,
                page_size: PageSize::Base,
                pages: 1,
                histogram: vec![NodePages { node: 0, pages: 1 }],
                not_present: 0,
                intended_nodes: vec![0],
                fraction_on_intended: 1.0,
                huge_bytes: 0,
                huge_fraction: 0.0,
            },
            placement_fraction: 1.0,
            plan: C2cPlan {
                round_trips_per_sample: 200,
                repetitions: 5,
                warmup_repetitions: 1,
                repetition_ms: 10,
                method: "m".into(),
                blocks_per_pair: None,
            },
            sampling: Sampling {
                strategy: "all-pairs".into(),
                partners: vec![],
                pairs: 2,
                possible_pairs: 2,
            },
            pairs,
            summary: "CPUs sharing an L3: 42.0 ns one way".into(),
            groups,
            traffic: NumaTraffic {
                numastat_delta: vec![NodeNumaStat {
                    node: 0,
                    numa_hit: 7,
                    ..Default::default()
                }],
                numastat_note: None,
                perf: PerfAvailability {
                    events: "e".into(),
                    available: false,
                    detail: "not available: no PMU".into(),
                },
            },
            environment: Default::default(),
            warnings: vec!["threads were descheduled".into()],
        }
    }

    fn text_of(r: &C2cResult) -> String {
        crate::render::fixture::written(|o| render(r, o))
    }

    #[test]
    fn renders_matrix_groups_placement_and_counters() {
        let r = two_pairs();
        let text = crate::render::fixture::written(|o| render(&r, o));
        assert!(
            text.contains(
                "line home node 0 (first touched on CPU 0); verified 100% of its page on node 0"
            ),
            "{text}"
        );
        let row0 = text.lines().find(|l| l.starts_with("0 ")).unwrap();
        assert!(row0.contains('-') && row0.ends_with(" 41"), "{row0}");
        assert!(text.contains("all-pairs"));
        assert!(text.contains("node 0: +7 hit"));
        assert!(text.contains("hardware node events: not available: no PMU"));
        assert!(text.contains("warning: threads were descheduled"));
        assert!(
            text.contains("highest p99: CPU 1 -> CPU 0: 72.0 ns"),
            "{text}"
        );
    }

    /// With blocks, each pair's interval over its blocks is shown, an unstable pair
    /// is marked in the matrix, and in a virtual machine the text says once what the figures
    /// describe; the tail comes from every sample.
    #[test]
    fn blocks_unstable_pairs_and_the_vm_note() {
        use crate::results::c2c::{BlockMedian, Unstable};
        let mut r = two_pairs();
        let text = text_of(&r);
        assert!(!text.contains("block medians"), "{text}");
        assert!(!text.contains("virtual machine"), "{text}");

        r.plan.blocks_per_pair = Some(6);
        r.environment.hypervisor = true;
        for p in &mut r.pairs {
            let medians = [40.0, 41.0, 42.0, 40.5, 41.5, 43.0];
            p.blocks = medians
                .iter()
                .enumerate()
                .map(|(i, &ns)| BlockMedian {
                    start_offset_ms: i as f64 * 20.0,
                    ns_one_way_median: Some(ns),
                    samples: 40,
                    disturbed: false,
                })
                .collect();
            p.ns_one_way = crate::c2c::blocks::pair_summary(&p.blocks).unwrap();
            p.ns_one_way_all_samples = Some(Summary::of(&[39.0, 41.0, 250.0]).unwrap());
        }
        r.pairs[1].ns_one_way_all_samples = Some(Summary::of(&[39.0, 41.0, 90.0]).unwrap());
        r.pairs[1].unstable = Some(Unstable {
            low_ns_one_way: 41.0,
            high_ns_one_way: 180.0,
            low_blocks: 3,
            high_blocks: 3,
        });
        r.matrix = matrix_of(&r.cpus, &r.pairs);
        let text = text_of(&r);
        assert!(
            text.contains("each in 6 blocks of 10 ms spread over the experiment"),
            "{text}"
        );
        assert!(
            text.contains(
                "per pair: 95 % interval of its block medians, n = its blocks with a median (of 6):"
            ),
            "{text}"
        );
        let pair = text
            .lines()
            .find(|l| l.starts_with("0 ") && l.contains(" 1 "));
        assert!(pair.unwrap().contains("41.2 [40, 43] n=6"), "{text}");
        assert!(
            text.contains("separated groups, see the warning): CPU 1 -> CPU 0\n"),
            "{text}"
        );
        assert_eq!(
            text.matches("In a virtual machine these figures").count(),
            1
        );
        assert!(
            text.contains("highest p99: CPU 0 -> CPU 1: 250.0 ns"),
            "{text}"
        );
    }
}
