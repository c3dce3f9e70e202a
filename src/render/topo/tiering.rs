//! The kernel's tiering state as (setting, value) rows for the environment tables of `topo`
//! and the report: NUMA balancing's mode bits, demotion, the promotion rate limit,
//! each memory tier, each DAMON daemon and scheme, and the sentences naming what can move or
//! reclaim a measurement's pages.

use crate::results::environment::Environment;
use crate::results::environment_tiering::MemoryTier;
use crate::results::environment_tiering::{
    numa_balancing_modes, page_movers, DamonContext, DamonScheme, Kdamond, PageMover,
};
use crate::results::figures::RunFigures;
use crate::results::format::format_bytes;
use crate::results::tiers::WeightsVerdict;
use crate::results::topology::{HmatTarget, NodeMemory, Topology};
use crate::results::RunResults;

use crate::render::format::estimate::{compact, num};

/// `numa_balancing` with its mode bits named: `0 (off)`, `1 (normal)`, `2 (memory tiering)`,
/// `3 (normal + memory tiering)`.
pub fn numa_balancing(value: Option<u32>) -> String {
    match value {
        None => "unknown".into(),
        Some(0) => "0 (off)".into(),
        Some(v) => {
            let m = numa_balancing_modes(v);
            if m.is_empty() {
                format!("{v}")
            } else {
                format!("{v} ({})", m.join(" + "))
            }
        }
    }
}

/// Rows for the tiering facts that are known (none when the kernel exposes none): the memory
/// tiers, then [`knob_rows`].
pub fn rows(e: &Environment) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for m in &e.tiering.memory_tiers {
        let nodes: Vec<String> = m.nodes.iter().map(u32::to_string).collect();
        rows.push((
            format!("memory tier {}", m.tier),
            format!(
                "nodes {} (abstract distance {}-{}, from the tier number)",
                nodes.join(","),
                m.abstract_distance_from,
                m.abstract_distance_to
            ),
        ));
    }
    rows.extend(knob_rows(e));
    rows
}

/// The kernel's tiering knobs and DAMON state: demotion, the promotion rate limit, each DAMON
/// daemon and scheme.
pub fn knob_rows(e: &Environment) -> Vec<(String, String)> {
    let t = &e.tiering;
    let demotion = (t.demotion_enabled).map(|d| ["disabled", "enabled"][usize::from(d)].into());
    let rate = (t.promote_rate_limit_mib_per_s).map(|r| format!("{r} MiB/s"));
    let damon = t.damon_available && t.kdamonds.is_empty();
    let damon = damon.then(|| "available, no daemon".to_string());
    let known = [
        ("demotion on reclaim", demotion),
        ("promotion rate limit", rate),
        ("DAMON", damon),
    ];
    let known = known
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_string(), v?)));
    let mut rows: Vec<(String, String)> = known.collect();
    for k in &t.kdamonds {
        rows.push((format!("DAMON kdamond.{}", k.id), daemon(k)));
        for c in &k.contexts {
            for s in &c.schemes {
                rows.push((
                    format!("DAMON kdamond.{} scheme {}", k.id, s.id),
                    scheme(c, s),
                ));
            }
        }
    }
    rows
}

fn daemon(k: &Kdamond) -> String {
    let state = k.state.as_deref().unwrap_or("state unknown (root only)");
    let pid = match k.pid {
        Some(p) if p > 0 => format!(" (pid {p})"),
        _ => String::new(),
    };
    let ctx: Vec<String> = (k.contexts.iter())
        .map(|c| {
            let regions = c.targets.iter().flat_map(|t| &t.regions);
            let bytes: u64 = regions.map(|r| r.end.saturating_sub(r.start)).sum();
            let pids: Vec<String> = (c.targets.iter())
                .filter_map(|t| Some(t.pid.filter(|p| *p > 0)?.to_string()))
                .collect();
            let on = (!pids.is_empty()).then(|| format!(" on pid {}", pids.join(",")));
            let over = (bytes > 0).then(|| format!(" over {}", format_bytes(bytes)));
            let ops = c.operations.as_deref().unwrap_or("?");
            format!(
                "{ops} context{}{}",
                on.unwrap_or_default(),
                over.unwrap_or_default()
            )
        })
        .collect();
    let ctx = if ctx.is_empty() {
        "no context".into()
    } else {
        ctx.join("; ")
    };
    format!("{state}{pid}, {ctx}")
}

fn scheme(c: &DamonContext, s: &DamonScheme) -> String {
    let action = s.action.as_deref().unwrap_or("unknown action");
    let mut out = format!("{action} on {}", c.operations.as_deref().unwrap_or("?"));
    if let Some(n) = s.target_nid.filter(|n| *n >= 0) {
        out += &format!(" to node {n}");
    }
    let range = |lo: Option<u64>, hi: Option<u64>| match (lo, hi) {
        (Some(l), Some(h)) if h >= u32::MAX as u64 => format!(">= {l}"),
        (Some(l), Some(h)) => format!("{l}-{h}"),
        (Some(l), None) => format!(">= {l}"),
        (None, Some(h)) => format!("<= {h}"),
        (None, None) => "any".into(),
    };
    let aggr = c
        .aggr_us
        .map(|a| format!(" x {:.1} s", a as f64 / 1e6))
        .unwrap_or_default();
    out += &format!(
        ", regions with {} accesses per aggregation and age {}{aggr}",
        range(s.nr_accesses_min, s.nr_accesses_max),
        range(s.age_min, s.age_max)
    );
    let bytes = s.quota_bytes.filter(|b| *b > 0).map(format_bytes);
    let cpu = s
        .quota_ms
        .filter(|m| *m > 0)
        .map(|ms| format!("{ms} ms CPU"));
    let quota: Vec<String> = bytes.into_iter().chain(cpu).collect();
    if !quota.is_empty() {
        let per = s.quota_reset_interval_ms.map(|r| format!(" per {r} ms"));
        let per = per.unwrap_or_default();
        out += &format!("; quota {}{per}", quota.join(", "));
    }
    if let Some(m) = &s.watermark_metric {
        out += &format!("; watermarks {m}");
    }
    out
}

/// The tiers section of `topo` and `report --full`: one row per memory node with its kind,
/// kernel tier and the figures the firmware declares for it (HMAT, CPU initiators preferred,
/// labelled firmware-declared), then, for a run, each measured tier pair against its
/// declared ratio, the kernel's tiering knobs and DAMON state, and what can move a
/// measurement's pages. Empty when there is nothing to say (no tiers, no HMAT, one kind of
/// memory, no tiering knob, no DAMON).
pub fn section(t: &Topology, r: Option<&RunResults>) -> Vec<String> {
    let e = &t.environment;
    let knobs: Vec<Vec<String>> = knob_rows(e)
        .into_iter()
        .chain(auto_weights_row(t))
        .map(|(k, v)| vec![k, v])
        .collect();
    let mem = &t.layout.node_memory;
    let kinds = mem.iter().any(|m| m.kind != mem[0].kind);
    let tiered = mem.iter().any(|m| m.tier.is_some()) || !t.hmat.is_empty() || kinds;
    if knobs.is_empty() && !tiered {
        return Vec::new();
    }
    let mut v = Vec::new();
    if tiered {
        let rows: Vec<Vec<String>> = mem.iter().map(|m| node_row(t, m)).collect();
        let headers = [
            "node",
            "kind",
            "kernel tier",
            "read latency, firmware-declared",
            "read bandwidth, firmware-declared",
        ];
        v.push(table(&headers, &rows));
        v.push(if t.hmat.is_empty() {
            "(the firmware declares no latency or bandwidth: no HMAT)".into()
        } else {
            "(firmware-declared: the HMAT table's figures for CPU initiators, not measured)".into()
        });
    }
    if let Some(r) = r {
        v.extend(curve_rows(r));
    }
    let checks = r.map(crate::results::tiers::tier_checks);
    let checks = checks.iter().flatten();
    block(
        &mut v,
        "Measured against local memory, beside the firmware's figures:",
        checks.map(crate::render::words::tier::sentence).collect(),
    );
    if !knobs.is_empty() {
        v.push(String::new());
        v.push(table(&["tiering setting", "value"], &knobs));
    }
    block(
        &mut v,
        "Can move or reclaim a measurement's pages while it runs:",
        mover_sentences(e),
    );
    v
}

/// A blank line, `title`, then each item as `  - item`; nothing without an item.
fn block(v: &mut Vec<String>, title: &str, items: Vec<String>) {
    if !items.is_empty() {
        v.extend([String::new(), title.into()]);
        v.extend(items.iter().map(|i| format!("  - {i}")));
    }
}

/// Rows under headers, fitted to the terminal, without the last newline.
fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let t = crate::render::format::width::fit_columns(headers, rows);
    t.trim_end().to_string()
}

/// The loaded-latency curve of each kind of memory measured (the run's own curve first):
/// one row per point, the kind and node named on its curve's first row.
fn curve_rows(r: &RunResults) -> Vec<String> {
    let curves = crate::results::tiers::curves_per_kind(r);
    if curves.len() < 2 {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for (kind, node, c) in curves {
        for (i, p) in c.points.iter().enumerate() {
            rows.push(vec![
                match i {
                    0 => format!("{} node {node}", kind.word()),
                    _ => String::new(),
                },
                num(p.total_mb_per_s),
                compact(&p.ns_per_load.estimate(), "ns"),
            ]);
        }
    }
    vec![
        String::new(),
        "Loaded latency per kind of memory (chaser and load threads as the run's curve):".into(),
        table(&["memory", "load, MB/s", "latency"], &rows),
    ]
}

/// The summary's line for each other kind's loaded curve: idle, and at its highest load.
pub fn loaded_kind_lines(f: &RunFigures) -> Vec<String> {
    f.loaded_kinds
        .iter()
        .map(|(name, l)| {
            format!(
                "  on {name}  {} idle, {} at {} MB/s",
                compact(&f.get(l.idle).estimate, "ns"),
                compact(&f.get(l.at_peak).estimate, "ns"),
                num(l.peak_mb_per_s.median)
            )
        })
        .collect()
}

/// A node's row: kind (and how it is known), tier with its abstract distance range, and the
/// HMAT read latency and bandwidth with the initiators they are declared for.
fn node_row(t: &Topology, m: &NodeMemory) -> Vec<String> {
    let tier = match m.tier {
        Some(n) => {
            let mt = MemoryTier::new(n, vec![]);
            format!(
                "{n} (distance {}-{})",
                mt.abstract_distance_from, mt.abstract_distance_to
            )
        }
        None => "-".into(),
    };
    let mut h: Vec<&HmatTarget> = t.hmat.iter().filter(|h| h.node == m.node).collect();
    h.sort_by_key(|h| std::cmp::Reverse(h.access_class));
    let from = |h: &HmatTarget| {
        let n: Vec<String> = h.initiators.iter().map(u32::to_string).collect();
        if n.is_empty() {
            String::new()
        } else {
            format!(" from node {}", n.join(","))
        }
    };
    // The first declared figure, with its unit and initiators.
    let declared = |v: fn(&HmatTarget) -> Option<u64>, unit: &str| {
        let first = h
            .iter()
            .find_map(|h| Some(format!("{} {unit}{}", v(h)?, from(h))));
        first.unwrap_or_else(|| "-".into())
    };
    let lat = declared(|h| h.read_latency_ns, "ns");
    let bw = declared(|h| h.read_bandwidth_mb_s, "MB/s");
    vec![
        m.node.to_string(),
        format!("{} ({})", m.kind.word(), m.known.word()),
        tier,
        lat,
        bw,
    ]
}

/// The weights weighted interleave's `auto` mode derives from HMAT, computed here as the
/// kernel does (`results::tiers::kernel_auto_weights`), and the line that applies them when
/// the current weights differ; `None` without two memory nodes or declared bandwidth.
pub fn auto_weights_row(t: &Topology) -> Option<(String, String)> {
    if t.memory_nodes().len() < 2 {
        return None;
    }
    let w = crate::results::tiers::kernel_auto_weights(t)?;
    let text: Vec<String> = w.iter().map(|(n, w)| format!("node {n}: {w}")).collect();
    let p = &t.environment.platform;
    let current = p
        .weighted_interleave_weights
        .iter()
        .map(|w| (w.node, w.weight));
    let current: Vec<(u32, u32)> = current.collect();
    let sysfs = "/sys/kernel/mm/mempolicy/weighted_interleave";
    let apply = match p.weighted_interleave_auto {
        _ if current.is_empty() || current == w => String::new(),
        Some(true) => {
            "; the kernel's own auto weights differ (it may have had CXL CDAT figures)".into()
        }
        Some(false) => format!("; apply: echo true > {sysfs}/auto"),
        None => {
            let lines: Vec<String> = (w.iter())
                .map(|(n, w)| format!("echo {w} > {sysfs}/node{n}"))
                .collect();
            format!("; apply: {}", lines.join("; "))
        }
    };
    Some((
        "kernel auto weights".into(),
        format!(
            "{} (calculated from HMAT as the kernel's auto mode does){apply}",
            text.join(", ")
        ),
    ))
}

/// The kernel's `auto` weights, row (h), against the weights from the measured bandwidths,
/// row (g): both figures, the verdict, and the better one's lines (one command a line).
/// Empty where the two rows did not both run.
pub fn weights_lines(f: &RunFigures) -> Vec<String> {
    let Some(w) = &f.weights else {
        return Vec::new();
    };
    let c = &w.choice;
    let (g, h) = (f.get(w.measured), f.get(w.auto));
    let mut v = vec![
        String::new(),
        "Weighted interleave, measured weights (g) vs the kernel's auto weights (h), same rounds"
            .to_string(),
        format!(
            "  (g) {}  {}    (h) {}  {}",
            ratio(&c.measured),
            compact(&g.estimate, g.unit),
            ratio(&c.auto),
            compact(&h.estimate, h.unit)
        ),
    ];
    let verdict = match c.verdict {
        WeightsVerdict::Same => {
            "(h) places its pages as (g) here: the kernel's weights are the measured ones".into()
        }
        WeightsVerdict::Better { better, gain } => format!(
            "({}) gives {:+.0} % more bandwidth (95 % intervals disjoint); apply it with:",
            better.letter(),
            gain * 100.0
        ),
        WeightsVerdict::NoDifference => {
            "no difference beyond noise (their 95 % intervals overlap)".into()
        }
        WeightsVerdict::NoInterval => {
            "not compared: too few rounds for an interval on one of them".into()
        }
    };
    v.push(format!("      {verdict}"));
    v.extend(
        c.apply
            .split("; ")
            .filter(|l| !l.is_empty())
            .map(|l| format!("      {l}")),
    );
    v
}

/// `0:3,1:1` (node:weight).
fn ratio(w: &[(u32, u8)]) -> String {
    let v: Vec<String> = w.iter().map(|(n, x)| format!("{n}:{x}")).collect();
    v.join(",")
}

/// One sentence per kernel actor that can move or reclaim a measurement's pages, but NUMA
/// balancing's mode 1, which the environment states in its own row (`1 (normal)`) and `run`
/// in its `numa-balancing` finding.
pub fn mover_sentences(e: &Environment) -> Vec<String> {
    page_movers(e.numa_balancing, &e.tiering)
        .iter()
        .filter(|m| **m != PageMover::NumaBalancing)
        .map(mover_sentence)
        .collect()
}

/// One sentence: what the mover does to a measurement's pages.
pub fn mover_sentence(m: &PageMover) -> String {
    match m {
        PageMover::NumaBalancing => "NUMA balancing (mode 1) migrates pages toward the threads that touch them".into(),
        PageMover::TieringPromotion => "NUMA balancing's memory-tiering mode (2) promotes hot pages from a slower tier to a faster one".into(),
        PageMover::Demotion => "demotion_enabled is true: memory reclaim moves cold pages to a slower tier instead of dropping them".into(),
        PageMover::DamonScheme { kdamond, context, scheme, action } => format!(
            "DAMON kdamond.{kdamond} runs a `{action}` scheme (contexts/{context}/schemes/{scheme}) on physical memory: it can {} any process's pages, a measurement's included",
            if action == "pageout" { "reclaim" } else { "migrate" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::environment_tiering::*;

    /// Fake rounds for (g) and (h) in the Opteron results: the summary's lines name the
    /// better weighting with the commands that apply it only when the intervals are
    /// disjoint.
    #[test]
    fn weights_lines_name_the_better_only_beyond_noise() {
        use crate::results::figures::of_run;
        use crate::results::scenarios::ScenarioId;
        use crate::stats::Summary;
        let mut r = crate::render::fixture::opteron_example();
        assert!(
            weights_lines(&of_run(&r)).is_empty(),
            "no (h) row: no lines"
        );
        let t = r.scenarios.as_mut().unwrap();
        t.weights = vec![(0, 2), (1, 1)];
        t.auto_weights = vec![(0, 3), (1, 1)];
        let g9 = [100.0, 101.0, 99.0, 100.5, 100.2, 99.8, 100.1, 99.9, 100.3];
        let g = t
            .scenarios
            .iter_mut()
            .find(|s| s.id == ScenarioId::AllWeightedInterleave)
            .unwrap();
        g.mb_per_s = Summary::of(&g9);
        g.unavailable = None;
        let mut h = g.clone();
        h.id = ScenarioId::AllAutoWeightedInterleave;
        h.letter = "h".into();
        h.policy = "weighted interleave 0:3,1:1".into();
        h.numactl = "echo 3 > /sys/kernel/mm/mempolicy/weighted_interleave/node0; echo 1 > /sys/kernel/mm/mempolicy/weighted_interleave/node1; numactl --weighted-interleave=0,1 APP".into();
        h.mb_per_s = Summary::of(&g9.map(|x| x * 1.2));
        t.scenarios.push(h);
        let l = weights_lines(&of_run(&r));
        assert_eq!(l.len(), 7, "{l:#?}");
        assert!(
            l[2].starts_with("  (g) 0:2,1:1  100 MB/s") && l[2].contains("(h) 0:3,1:1  120 MB/s"),
            "{l:#?}"
        );
        assert_eq!(
            l[3],
            "      (h) gives +20 % more bandwidth (95 % intervals disjoint); apply it with:"
        );
        assert_eq!(l[6], "      numactl --weighted-interleave=0,1 APP");
        let t = r.scenarios.as_mut().unwrap();
        t.scenarios.last_mut().unwrap().mb_per_s = Summary::of(&g9.map(|x| x + 0.1));
        let l = weights_lines(&of_run(&r));
        assert_eq!(l.len(), 4, "{l:#?}");
        assert_eq!(
            l[3],
            "      no difference beyond noise (their 95 % intervals overlap)"
        );
    }

    use crate::testutil::topology_fixture;

    /// The tiers section of `topo` on the two tiered fixtures: every node with its kind, tier
    /// and firmware-declared figures, the knobs, DAMON, and what can move pages.
    #[test]
    fn tiers_section_of_the_tiered_fixtures() {
        let t = topology_fixture("tiering-cxl-damon");
        let s = section(&t, None).join("\n");
        assert!(s.contains("firmware-declared"), "{s}");
        assert!(s.contains("DAMON kdamond.0"), "{s}");
        insta::assert_snapshot!("tiers_section_cxl_damon", s);
        let h = topology_fixture("hbm-flat-tiers");
        let s = section(&h, None).join("\n");
        assert!(s.contains("HBM"), "{s}");
        insta::assert_snapshot!("tiers_section_hbm_flat", s);
        // One kind of memory, no tiers, no HMAT, no knob: nothing to say.
        assert!(section(&topology_fixture("opteron250-2s"), None).is_empty());
    }

    /// In `report --full`: a CXL node's measured latency beside what HMAT declares, and one
    /// loaded curve per kind of memory.
    #[test]
    fn tiers_section_of_a_run_shows_measured_figures_and_a_curve_per_kind() {
        use crate::results::tiers::KindCurve;
        use crate::results::topology::MemoryKind;
        let mut r = crate::render::fixture::opteron_example();
        let mem = crate::testutil::node_memory;
        r.topology.layout.node_memory =
            vec![mem(0, MemoryKind::Dram, 4), mem(1, MemoryKind::Cxl, 22)];
        let mut curve = r.loaded_latency.clone().unwrap();
        curve.mem_node = 1;
        curve.load_mem_node = 1;
        r.loaded_latency_kinds = vec![KindCurve {
            kind: MemoryKind::Cxl,
            node: 1,
            curve,
        }];
        let s = section(&r.topology, Some(&r));
        let text = s.join("\n");
        assert!(text.contains("Loaded latency per kind of memory"), "{text}");
        let dram = text.find("DRAM node 0 ").unwrap();
        let cxl = text.find("CXL node 1 ").unwrap();
        assert!(dram < cxl, "{text}");
        assert!(
            text.contains("Measured against local memory")
                && text.contains("CXL node 1, kernel tier 22 from node 0"),
            "{text}"
        );
        let f = crate::results::figures::of_run(&r);
        let l = loaded_kind_lines(&f);
        assert_eq!(l.len(), 1);
        assert!(l[0].starts_with("  on CXL node 1  "), "{l:?}");
    }

    #[test]
    fn modes_daemons_and_schemes_read_as_sentences() {
        assert_eq!(numa_balancing(Some(3)), "3 (normal + memory tiering)");
        assert_eq!(numa_balancing(Some(0)), "0 (off)");
        let mut e = Environment::default();
        e.tiering.memory_tiers = vec![MemoryTier::new(4, vec![0, 1])];
        e.tiering.kdamonds = vec![Kdamond {
            id: 0,
            state: Some("on".into()),
            pid: Some(77),
            contexts: vec![DamonContext {
                id: 0,
                operations: Some("paddr".into()),
                sample_us: Some(500_000),
                aggr_us: Some(5_000_000),
                targets: vec![DamonTarget {
                    id: 0,
                    pid: Some(0),
                    regions: vec![DamonRegion {
                        start: 1 << 32,
                        end: 2 << 32,
                    }],
                }],
                schemes: vec![DamonScheme {
                    id: 0,
                    action: Some("pageout".into()),
                    target_nid: Some(-1),
                    nr_accesses_min: Some(0),
                    nr_accesses_max: Some(1),
                    age_min: Some(12),
                    age_max: Some(u32::MAX as u64),
                    quota_bytes: Some(128 << 20),
                    quota_ms: Some(50),
                    quota_reset_interval_ms: Some(1000),
                    watermark_metric: Some("none".into()),
                }],
            }],
        }];
        let r = rows(&e);
        assert_eq!(r[0].0, "memory tier 4");
        assert!(r[0].1.contains("nodes 0,1 (abstract distance 512-639"));
        assert_eq!(
            r[1],
            (
                "DAMON kdamond.0".into(),
                "on (pid 77), paddr context over 4 GiB".into()
            )
        );
        assert_eq!(r[2].1, "pageout on paddr, regions with 0-1 accesses per aggregation and age >= 12 x 5.0 s; quota 128 MiB, 50 ms CPU per 1000 ms; watermarks none");
        let m = mover_sentences(&e);
        assert_eq!(m.len(), 1);
        // Its daemon, its path under sysfs and what it does (the snapshots show migrate_cold
        // and demotion).
        let pageout = "kdamond.0 runs a `pageout` scheme (contexts/0/schemes/0) on physical memory: it can reclaim";
        assert!(m[0].contains(pageout), "{m:?}");
    }
}
