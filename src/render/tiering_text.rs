//! The kernel's tiering state as (setting, value) rows for the environment tables of `topo`
//! and the report: NUMA balancing's mode bits, demotion, the promotion rate limit,
//! each memory tier, each DAMON daemon and scheme, and the sentences naming what can move or
//! reclaim a measurement's pages.

use crate::results::environment::Environment;
use crate::results::environment_tiering::{
    numa_balancing_modes, page_movers, DamonContext, DamonScheme, Kdamond, PageMover,
};
use crate::results::format::format_bytes;

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

/// Rows for the tiering facts that are known (none when the kernel exposes none).
pub fn rows(e: &Environment) -> Vec<(String, String)> {
    let t = &e.tiering;
    let mut rows = Vec::new();
    if let Some(d) = t.demotion_enabled {
        rows.push((
            "demotion on reclaim".into(),
            if d { "enabled" } else { "disabled" }.to_string(),
        ));
    }
    if let Some(r) = t.promote_rate_limit_mib_per_s {
        rows.push(("promotion rate limit".into(), format!("{r} MiB/s")));
    }
    for m in &t.memory_tiers {
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
    if t.damon_available && t.kdamonds.is_empty() {
        rows.push(("DAMON".into(), "available, no daemon".into()));
    }
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
    let ctx: Vec<String> = k
        .contexts
        .iter()
        .map(|c| {
            let ops = c.operations.as_deref().unwrap_or("?");
            let bytes: u64 = c
                .targets
                .iter()
                .flat_map(|t| &t.regions)
                .map(|r| r.end.saturating_sub(r.start))
                .sum();
            let pids: Vec<String> = c
                .targets
                .iter()
                .filter_map(|t| t.pid.filter(|p| *p > 0).map(|p| p.to_string()))
                .collect();
            let mut s = format!("{ops} context");
            if !pids.is_empty() {
                s += &format!(" on pid {}", pids.join(","));
            }
            if bytes > 0 {
                s += &format!(" over {}", format_bytes(bytes));
            }
            s
        })
        .collect();
    if ctx.is_empty() {
        format!("{state}{pid}, no context")
    } else {
        format!("{state}{pid}, {}", ctx.join("; "))
    }
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
    let mut quota = Vec::new();
    if let Some(b) = s.quota_bytes.filter(|b| *b > 0) {
        quota.push(format_bytes(b));
    }
    if let Some(ms) = s.quota_ms.filter(|m| *m > 0) {
        quota.push(format!("{ms} ms CPU"));
    }
    if !quota.is_empty() {
        let per = s
            .quota_reset_interval_ms
            .map(|r| format!(" per {r} ms"))
            .unwrap_or_default();
        out += &format!("; quota {}{per}", quota.join(", "));
    }
    if let Some(m) = &s.watermark_metric {
        out += &format!("; watermarks {m}");
    }
    out
}

/// The weights weighted interleave's `auto` mode derives from HMAT, computed here as the
/// kernel does (`results::tiers::kernel_auto_weights`), and the line that applies them when
/// the current weights differ; `None` without two memory nodes or declared bandwidth.
pub fn auto_weights_row(t: &crate::results::topology::Topology) -> Option<(String, String)> {
    if t.memory_nodes().len() < 2 {
        return None;
    }
    let w = crate::results::tiers::kernel_auto_weights(t)?;
    let text: Vec<String> = w.iter().map(|(n, w)| format!("node {n}: {w}")).collect();
    let p = &t.environment.platform;
    let current: Vec<(u32, u32)> = p
        .weighted_interleave_weights
        .iter()
        .map(|w| (w.node, w.weight))
        .collect();
    let apply = if current.is_empty() || current == w {
        String::new()
    } else if p.weighted_interleave_auto == Some(true) {
        "; the kernel's own auto weights differ (it may have had CXL CDAT figures)".into()
    } else if p.weighted_interleave_auto == Some(false) {
        "; apply: echo true > /sys/kernel/mm/mempolicy/weighted_interleave/auto".into()
    } else {
        let lines: Vec<String> = w
            .iter()
            .map(|(n, w)| {
                format!("echo {w} > /sys/kernel/mm/mempolicy/weighted_interleave/node{n}")
            })
            .collect();
        format!("; apply: {}", lines.join("; "))
    };
    Some((
        "kernel auto weights".into(),
        format!(
            "{} (calculated from HMAT as the kernel's auto mode does){apply}",
            text.join(", ")
        ),
    ))
}

/// One sentence per kernel actor that can move or reclaim a measurement's pages, but NUMA
/// balancing's mode 1, which the environment states in its own row (`1 (normal)`) and `run`
/// in its `numa-balancing` finding.
pub fn mover_sentences(e: &Environment) -> Vec<String> {
    page_movers(e.numa_balancing, &e.tiering)
        .iter()
        .filter(|m| **m != PageMover::NumaBalancing)
        .map(PageMover::sentence)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::environment_tiering::*;

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
        assert!(m[0].contains("kdamond.0 runs a `pageout` scheme"), "{m:?}");
    }
}
