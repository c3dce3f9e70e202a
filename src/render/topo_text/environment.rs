//! The environment record of `numascope topo`: kernel, CPU model, page sizes, the tiering
//! settings and page movers, and the platform facts that are known.

use std::io::{self, Write};

use super::{list_or_none, opt, yes};
use crate::results::format::format_bytes;
use crate::results::topology::Topology;

/// The environment record.
pub(super) fn environment(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let e = &t.environment;
    writeln!(out, "\nEnvironment")?;
    let mut rows = vec![
        vec![
            "kernel".into(),
            crate::sanitize::value(&opt(e.kernel_release.clone())),
        ],
        vec!["architecture".into(), crate::sanitize::value(&e.arch)],
        vec![
            "cpu model".into(),
            crate::sanitize::value(&opt(e.cpu_model.clone())),
        ],
        vec![
            "hypervisor".into(),
            match (&e.hypervisor, &e.hypervisor_type) {
                (true, Some(k)) => format!("yes ({k})"),
                (b, _) => yes(*b),
            },
        ],
        vec!["base page size".into(), format_bytes(e.page_size_bytes)],
        vec!["THP enabled".into(), opt(e.thp_enabled.clone())],
        vec!["THP defrag".into(), opt(e.thp_defrag.clone())],
        vec![
            "THP page size".into(),
            opt(e.thp_page_size_bytes.map(format_bytes)),
        ],
        vec![
            "numa_balancing".into(),
            crate::render::tiering_text::numa_balancing(e.numa_balancing),
        ],
        vec!["cpufreq governor".into(), opt(e.cpufreq_governor.clone())],
        vec!["SMT active".into(), opt(e.smt_active.map(yes))],
        vec![
            "weighted interleave".into(),
            if e.weighted_interleave_available {
                "available"
            } else {
                "not available"
            }
            .into(),
        ],
    ];
    // Memory limits on this process, only when there are some.
    rows.extend(e.memory_limits.iter().map(|l| {
        vec![
            "memory limit".into(),
            crate::render::memory_limit::summary(l),
        ]
    }));
    rows.extend(platform_rows(&e.platform));
    out.write_all(crate::render::width::fit_columns(&["setting", "value"], &rows).as_bytes())?;
    let tiers = crate::render::tiering_text::section(t, None);
    if !tiers.is_empty() {
        writeln!(out, "\nMemory tiers")?;
        for l in tiers {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}

/// Environment rows for the platform facts that are known (none when nothing is).
fn platform_rows(p: &crate::results::environment_platform::Platform) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    if let Some(v) = &p.hypervisor_vendor {
        let from = p.hypervisor_source.as_deref().unwrap_or("unknown source");
        rows.push(vec![
            "hypervisor vendor".into(),
            format!("{v} (from {from})"),
        ]);
    }
    if p.dmi_vendor.is_some() || p.dmi_product.is_some() {
        rows.push(vec![
            "DMI system".into(),
            format!(
                "{} / {}",
                p.dmi_vendor.as_deref().unwrap_or("-"),
                p.dmi_product.as_deref().unwrap_or("-")
            ),
        ]);
    }
    if let Some(v) = &p.cgroup_version {
        let path = p.cgroup_path.as_deref().unwrap_or("-");
        rows.push(vec!["cgroup".into(), format!("v{v}, {path}")]);
    }
    if let Some(c) = &p.cpuset_cpus {
        rows.push(vec!["cgroup cpuset cpus".into(), list_or_none(c)]);
    }
    if let Some(m) = &p.cpuset_mems {
        rows.push(vec!["cgroup cpuset mems".into(), list_or_none(m)]);
    }
    if let Some(c) = &p.cpu_max {
        let v = match c.cpus() {
            Some(n) => format!(
                "{n:.2} CPUs ({} of every {} us)",
                c.quota_us.unwrap_or(0),
                c.period_us
            ),
            None => "no limit".into(),
        };
        rows.push(vec!["cgroup cpu.max".into(), v]);
    }
    if let Some(a) = p.weighted_interleave_auto {
        rows.push(vec![
            "weighted interleave auto".into(),
            if a { "on" } else { "off" }.into(),
        ]);
    }
    if !p.weighted_interleave_weights.is_empty() {
        let w: Vec<String> = p
            .weighted_interleave_weights
            .iter()
            .map(|w| format!("node {}: {}", w.node, w.weight))
            .collect();
        rows.push(vec!["interleave weights".into(), w.join(", ")]);
    }
    rows
}
