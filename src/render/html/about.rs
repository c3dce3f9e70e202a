//! The closing sections of the HTML report: the environment the figures were measured in and
//! the plan of the run.

use crate::render::format::estimate::num;
use std::fmt::Write as _;

use super::page::Page;
use super::{esc, prose};
use crate::render::svg::bytes_short;
use crate::render::topo::tiering;
use crate::results::RunResults;

pub(super) fn environment(p: &mut Page, r: &RunResults) -> bool {
    p.push("<dl class=\"kv\">");
    for (k, v) in facts(r) {
        let _ = write!(p.html, "<dt>{}</dt><dd>{}</dd>", esc(&k), prose(&v));
    }
    p.push("</dl>");
    true
}

/// The machine and its settings, its layout, the clock checks, the kernel's tiering rows and
/// what can move a measurement's pages, as (name, value) rows.
fn facts(r: &RunResults) -> Vec<(String, String)> {
    let env = &r.topology.environment;
    let machine = machine_rows(r).into_iter().map(|(k, v)| (k, Some(v)));
    // A layout row whose value is `None` (not known, or not there) is left out.
    let mut rows: Vec<(String, String)> = (machine.chain(layout_rows(r)))
        .filter_map(|(k, v)| Some((k.to_string(), v?)))
        .collect();
    rows.extend(tiering::rows(env));
    let movers = tiering::mover_sentences(env).into_iter();
    rows.extend(movers.map(|m| ("can move pages".into(), m)));
    rows
}

/// The machine and its settings, and the memory limits on this process (only when there
/// are some).
fn machine_rows(r: &RunResults) -> Vec<(&'static str, String)> {
    let (t, env) = (&r.topology, &r.topology.environment);
    let known = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    let balancing = match env.numa_balancing {
        None => "unknown".into(),
        Some(0) => "off (0)".into(),
        Some(v) => format!("on ({v})"),
    };
    let weighted = if env.weighted_interleave_available {
        "available"
    } else {
        "not available (Linux < 6.9 or disabled)"
    };
    let thp = format!(
        "{} (defrag {})",
        known(&env.thp_enabled),
        known(&env.thp_defrag)
    );
    let smt = env.smt_active.map(|b| if b { "yes" } else { "no" }.into());
    let mut rows = vec![
        ("host", r.host.clone()),
        ("CPU", known(&env.cpu_model)),
        ("architecture", env.arch.clone()),
        ("kernel", known(&env.kernel_release)),
        ("virtual machine", super::virtual_machine(env, "yes", "no")),
        ("transparent huge pages", thp),
        ("automatic NUMA balancing", balancing),
        ("frequency governor", known(&env.cpufreq_governor)),
        ("SMT", known(&smt)),
        ("base page size", bytes_short(env.page_size_bytes as f64)),
        ("weighted interleave", weighted.into()),
        (
            "allowed CPUs",
            format!("{} of {}", t.allowed_cpus.len(), t.cpus.len()),
        ),
        ("allowed memory nodes", format!("{:?}", t.allowed_nodes)),
    ];
    let limits = env.memory_limits.iter();
    rows.extend(limits.map(|l| {
        (
            "memory limit",
            crate::render::topo::environment::memory_limit(l),
        )
    }));
    rows
}

/// Memory kinds and tiers, nodes per package, L3 domains, platform limits, the clock checks
/// and the NUMA balancing mode bits, each `None` when not known or not there.
fn layout_rows(r: &RunResults) -> [(&'static str, Option<String>); 8] {
    let (layout, env) = (&r.topology.layout, &r.topology.environment);
    let platform = &env.platform;
    let kinds: Vec<String> = (layout.node_memory.iter())
        .map(|m| {
            let tier = m.tier.map(|x| format!(", tier {x}")).unwrap_or_default();
            let (kind, known) = (m.kind.word(), m.known.word());
            format!("node {}: {kind} ({known}{tier})", m.node)
        })
        .collect();
    let l3 = std::iter::once(layout.l3_domains.len().to_string()).chain(layout.l3_notes.clone());
    let l3 = (!layout.l3_domains.is_empty()).then(|| l3.collect::<Vec<_>>().join("; "));
    let per_package = (layout.nodes_per_package.as_ref())
        .map(|n| format!("{} ({}: {})", n.mode, n.known.word(), n.evidence));
    let from = platform
        .hypervisor_source
        .as_deref()
        .unwrap_or("unknown source");
    let hypervisor = (platform.hypervisor_vendor.as_ref()).map(|v| format!("{v} (from {from})"));
    let cgroup = (platform.cpu_max.as_ref())
        .map(|c| c.cpus().map_or("none".into(), |n| format!("{n:.2} CPUs")));
    let clock = r.clock.as_ref().map(|c| {
        let [res, cost] = [c.resolution_ns, c.read_cost_ns].map(num);
        format!("resolution {res} ns, read cost {cost} ns")
    });
    let core = (r.clock.as_ref()).and_then(|c| {
        Some(format!(
            "{:.2} GHz ({})",
            c.core_hz_estimate? / 1e9,
            c.core_hz_source
        ))
    });
    // The mode bits, when memory-tiering mode is on (the row above says on/off).
    let modes =
        (env.numa_balancing.filter(|v| *v & 2 != 0)).map(|v| tiering::numa_balancing(Some(v)));
    [
        (
            "memory kinds",
            (!kinds.is_empty()).then(|| kinds.join("; ")),
        ),
        ("nodes per package", per_package),
        ("L3 domains", l3),
        ("hypervisor", hypervisor),
        ("cgroup CPU limit", cgroup),
        ("clock", clock),
        ("core clock", core),
        ("NUMA balancing modes", modes),
    ]
}

pub(super) fn plan(p: &mut Page, r: &RunResults) -> bool {
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
    true
}
