//! The closing sections of the HTML report: the environment the figures were measured in and
//! the plan of the run.

use std::fmt::Write as _;

use super::page::Page;
use super::{esc, prose};
use crate::render::run_view::{self as view};
use crate::render::svg::bytes_short;
use crate::results::RunResults;

pub(super) fn environment(p: &mut Page, r: &RunResults) {
    p.push("<dl class=\"kv\">");
    let mut kv = machine_facts(r);
    clock_facts(r, &mut kv);
    for (k, v) in kv {
        let _ = write!(p.html, "<dt>{}</dt><dd>{}</dd>", esc(k), prose(&v));
    }
    for (k, v) in tiering_facts(r) {
        let _ = write!(p.html, "<dt>{}</dt><dd>{}</dd>", esc(&k), prose(&v));
    }
    p.push("</dl>");
}

/// The machine and its settings, as (name, value) lines.
fn machine_facts(r: &RunResults) -> Vec<(&'static str, String)> {
    let env = &r.topology.environment;
    let t = &r.topology;
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    let mut facts = vec![
        ("host", r.host.clone()),
        ("CPU", opt(&env.cpu_model)),
        ("architecture", env.arch.clone()),
        ("kernel", opt(&env.kernel_release)),
        (
            "virtual machine",
            if env.hypervisor {
                format!(
                    "yes{}",
                    env.hypervisor_type
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default()
                )
            } else {
                "no".into()
            },
        ),
        (
            "transparent huge pages",
            format!(
                "{} (defrag {})",
                opt(&env.thp_enabled),
                opt(&env.thp_defrag)
            ),
        ),
        (
            "automatic NUMA balancing",
            env.numa_balancing.map_or("unknown".into(), |v| {
                if v == 0 {
                    "off (0)".into()
                } else {
                    format!("on ({v})")
                }
            }),
        ),
        ("frequency governor", opt(&env.cpufreq_governor)),
        ("SMT", env.smt_active.map_or("unknown".into(), yes_no)),
        ("base page size", bytes_short(env.page_size_bytes as f64)),
        (
            "weighted interleave",
            if env.weighted_interleave_available {
                "available".into()
            } else {
                "not available (Linux < 6.9 or disabled)".into()
            },
        ),
        (
            "allowed CPUs",
            format!("{} of {}", t.allowed_cpus.len(), t.cpus.len()),
        ),
        ("allowed memory nodes", format!("{:?}", t.allowed_nodes)),
    ];
    // Memory limits on this process, only when there are some.
    facts.extend(env.memory_limits.iter().map(|l| {
        (
            "memory limit",
            crate::render::topo::environment::memory_limit(l),
        )
    }));
    facts.extend(layout_facts(r));
    facts
}

/// The kernel's tiering rows and what can move a measurement's pages.
fn tiering_facts(r: &RunResults) -> Vec<(String, String)> {
    let env = &r.topology.environment;
    let mut rows = Vec::new();
    // The mode bits, when memory-tiering mode is on (the row above says on/off).
    if let Some(v) = env.numa_balancing.filter(|v| *v & 2 != 0) {
        let modes = crate::render::topo::tiering::numa_balancing(Some(v));
        rows.push(("NUMA balancing modes".to_string(), modes));
    }
    rows.extend(crate::render::topo::tiering::rows(env));
    for m in crate::render::topo::tiering::mover_sentences(env) {
        rows.push(("can move pages".into(), m));
    }
    rows
}

/// Memory kinds and tiers, nodes per package, L3 domains and platform limits,
/// each only when known.
fn layout_facts(r: &RunResults) -> Vec<(&'static str, String)> {
    let t = &r.topology;
    let p = &t.environment.platform;
    let mut kv = Vec::new();
    if !t.layout.node_memory.is_empty() {
        let kinds: Vec<String> = t
            .layout
            .node_memory
            .iter()
            .map(|m| {
                let tier = m.tier.map(|x| format!(", tier {x}")).unwrap_or_default();
                format!(
                    "node {}: {} ({}{tier})",
                    m.node,
                    m.kind.word(),
                    m.known.word()
                )
            })
            .collect();
        kv.push(("memory kinds", kinds.join("; ")));
    }
    if let Some(n) = &t.layout.nodes_per_package {
        kv.push((
            "nodes per package",
            format!("{} ({}: {})", n.mode, n.known.word(), n.evidence),
        ));
    }
    if !t.layout.l3_domains.is_empty() {
        let mut v = format!("{}", t.layout.l3_domains.len());
        for note in &t.layout.l3_notes {
            let _ = write!(v, "; {note}");
        }
        kv.push(("L3 domains", v));
    }
    if let Some(v) = &p.hypervisor_vendor {
        let from = p.hypervisor_source.as_deref().unwrap_or("unknown source");
        kv.push(("hypervisor", format!("{v} (from {from})")));
    }
    if let Some(c) = &p.cpu_max {
        kv.push((
            "cgroup CPU limit",
            c.cpus().map_or("none".into(), |n| format!("{n:.2} CPUs")),
        ));
    }
    kv
}

/// The clock checks, when the run made them.
fn clock_facts(r: &RunResults, kv: &mut Vec<(&'static str, String)>) {
    if let Some(c) = &r.clock {
        kv.push((
            "clock",
            format!(
                "resolution {} ns, read cost {} ns",
                view::fmt_num(c.resolution_ns),
                view::fmt_num(c.read_cost_ns)
            ),
        ));
        if let Some(hz) = c.core_hz_estimate {
            kv.push((
                "core clock",
                format!("{:.2} GHz ({})", hz / 1e9, c.core_hz_source),
            ));
        }
    }
}

pub(super) fn plan(p: &mut Page, r: &RunResults) {
    let _ = write!(
        p.html,
        "<p class=\"lead\">Budget {}{}; estimated {:.0} s, took {:.1} s.</p>",
        esc(r.plan.budget.name()),
        r.plan
            .target_s
            .map(|t| format!(" (about {t:.0} s on a 2-CPU machine)"))
            .unwrap_or_default(),
        r.plan.estimate_s,
        r.duration_s
    );
    p.push("<div class=\"scroll\"><table><thead><tr><th>part</th><th>status</th><th>estimate (s)</th><th>took (s)</th><th>settings</th><th>left out by the budget</th></tr></thead><tbody>");
    for part in &r.plan.parts {
        let status = if let Some(f) = r.failed.iter().find(|f| f.part == part.part) {
            format!("failed: {}", f.error)
        } else if r.completed.contains(&part.part) {
            "done".into()
        } else {
            "not finished".into()
        };
        let _ = write!(
            p.html,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(part.part.name()),
            prose(&status),
            part.estimate_s,
            r.timings
                .iter()
                .find(|t| t.part == part.part)
                .map_or("-".into(), |t| format!("{:.1}", t.seconds)),
            prose(&part.detail),
            prose(&part.reduced.join("; "))
        );
    }
    for s in &r.plan.skipped {
        let _ = write!(
            p.html,
            "<tr><td>{}</td><td>skipped</td><td colspan=\"4\">{}</td></tr>",
            esc(s.part.name()),
            prose(&s.reason)
        );
    }
    p.push("</tbody></table></div>");
}
