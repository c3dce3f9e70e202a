//! Terminal rendering of a c2c result: the home node of the line and its verified placement,
//! the matrix of median one-way ns (rows: the ping CPU, columns: the pong CPU), the groups,
//! and the NUMA counters.

use std::io::{self, Write};

use comfy_table::{presets::NOTHING, CellAlignment, Table};

use super::traffic_text;
use crate::results::c2c::C2cResult;

pub fn render(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
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
    writeln!(
        out,
        "pairs: {} ({}, of {} ordered pairs); {} kept repetitions of {} ms per pair, first dropped; sample = {} round trips",
        r.sampling.pairs,
        r.sampling.strategy,
        r.sampling.possible_pairs,
        r.plan.repetitions,
        r.plan.repetition_ms,
        r.plan.round_trips_per_sample
    )?;
    writeln!(out)?;
    let mut t = Table::new();
    t.load_preset(NOTHING);
    let mut header = vec!["ping \\ pong".to_string()];
    header.extend(r.cpus.iter().map(|c| format!("CPU {c}")));
    t.set_header(header);
    for (i, &a) in r.cpus.iter().enumerate() {
        let mut row = vec![format!("CPU {a}")];
        row.extend(r.matrix[i].iter().map(|v| match v {
            Some(ns) => format!("{ns:.1}"),
            None => "-".into(),
        }));
        t.add_row(row);
    }
    for c in t.column_iter_mut().skip(1) {
        c.set_cell_alignment(CellAlignment::Right);
    }
    writeln!(out, "{}", super::width::fit(&t))?;
    writeln!(out)?;
    let mut g = Table::new();
    g.load_preset(NOTHING);
    g.set_header(vec![
        "group",
        "pairs",
        "median ns [95 % interval of pair medians]",
        "min",
        "max",
    ]);
    for grp in &r.groups {
        g.add_row(vec![
            grp.label.clone(),
            grp.pairs.to_string(),
            super::run_view::fmt_ci(&grp.ns_one_way, None),
            format!("{:.1}", grp.ns_one_way.min),
            format!("{:.1}", grp.ns_one_way.max),
        ]);
    }
    writeln!(out, "{}", super::width::fit(&g))?;
    writeln!(out, "{}", r.summary)?;
    let worst = r
        .pairs
        .iter()
        .max_by(|a, b| a.ns_one_way.p99.total_cmp(&b.ns_one_way.p99));
    if let Some(w) = worst {
        writeln!(
            out,
            "highest p99: CPU {} -> CPU {}: {:.1} ns (median {:.1})",
            w.from, w.to, w.ns_one_way.p99, w.ns_one_way.median
        )?;
    }
    traffic_text::render(&r.traffic, out)?;
    let q = super::verdict::of_checks(&crate::results::findings::c2c_checks(r));
    super::verdict::write_text(out, Some(&q), &r.warnings, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::c2c::{matrix_of, C2cPlan, Group, PairResult, Relation, Sampling};
    use crate::results::placement::{NodePages, PageSize, PlacementReport};
    use crate::results::traffic::{NodeNumaStat, NumaTraffic, PerfAvailability};
    use crate::stats::Summary;

    #[test]
    fn renders_matrix_groups_placement_and_counters() {
        let cpus = vec![0, 1];
        let pairs: Vec<PairResult> = [(0, 1, 40.0), (1, 0, 42.0)]
            .iter()
            .map(|&(from, to, ns)| PairResult {
                quality: None,
                from,
                to,
                relation: Relation::SharedCache { level: 3 },
                ns_one_way: Summary::of(&[ns, ns + 1.0, ns + 30.0]).unwrap(),
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
        let r = C2cResult {
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
        };
        let mut out = Vec::new();
        render(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "line home node 0 (first touched on CPU 0); verified 100% of its page on node 0"
            ),
            "{text}"
        );
        let row0 = text
            .lines()
            .find(|l| l.trim_start().starts_with("CPU 0"))
            .unwrap();
        assert!(row0.contains('-') && row0.contains("41.0"), "{row0}");
        assert!(text.contains("all-pairs"));
        assert!(text.contains("node 0: +7 hit"));
        assert!(text.contains("hardware node events: not available: no PMU"));
        assert!(text.contains("warning: threads were descheduled"));
        assert!(
            text.contains("highest p99: CPU 1 -> CPU 0: 72.0 ns"),
            "{text}"
        );
    }
}
