//! The environment record of `numascope topo`: kernel, CPU model, page sizes, the tiering
//! settings and page movers, and the platform facts that are known.

use std::io::{self, Write};

use super::{list_or_none, opt, yes};
use crate::results::environment::MemoryLimit;
use crate::results::environment_platform::Platform;
use crate::results::format::format_bytes;
use crate::results::topology::Topology;

/// The environment record.
pub(super) fn environment(t: &Topology, out: &mut dyn Write) -> io::Result<()> {
    let e = &t.environment;
    writeln!(out, "\nEnvironment")?;
    let clean = |v: &Option<String>| crate::sanitize::value(&opt(v.clone()));
    let hypervisor = match (&e.hypervisor, &e.hypervisor_type) {
        (true, Some(k)) => format!("yes ({k})"),
        (b, _) => yes(*b),
    };
    let wi = ["not available", "available"][usize::from(e.weighted_interleave_available)];
    let rows = [
        ("kernel", clean(&e.kernel_release)),
        ("architecture", crate::sanitize::value(&e.arch)),
        ("cpu model", clean(&e.cpu_model)),
        ("hypervisor", hypervisor),
        ("base page size", format_bytes(e.page_size_bytes)),
        ("THP enabled", opt(e.thp_enabled.clone())),
        ("THP defrag", opt(e.thp_defrag.clone())),
        (
            "THP page size",
            opt(e.thp_page_size_bytes.map(format_bytes)),
        ),
        (
            "numa_balancing",
            super::tiering::numa_balancing(e.numa_balancing),
        ),
        ("cpufreq governor", opt(e.cpufreq_governor.clone())),
        ("SMT active", opt(e.smt_active.map(yes))),
        ("weighted interleave", wi.into()),
    ];
    // Memory limits on this process, only when there are some.
    let limits = e
        .memory_limits
        .iter()
        .map(|l| ("memory limit", memory_limit(l)));
    let rows: Vec<Vec<String>> = (rows.into_iter().chain(limits))
        .chain(platform_rows(&e.platform))
        .map(|(k, v)| vec![k.to_string(), v])
        .collect();
    out.write_all(
        crate::render::format::width::fit_columns(&["setting", "value"], &rows).as_bytes(),
    )?;
    let tiers = super::tiering::section(t, None);
    if !tiers.is_empty() {
        writeln!(out, "\nMemory tiers")?;
        for l in tiers {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}

/// Environment rows for the platform facts that are known (none when nothing is).
fn platform_rows(p: &Platform) -> impl Iterator<Item = (&'static str, String)> + '_ {
    let or = |v: &Option<String>, none: &str| v.clone().unwrap_or_else(|| none.into());
    let dmi = (p.dmi_vendor.is_some() || p.dmi_product.is_some())
        .then(|| format!("{} / {}", or(&p.dmi_vendor, "-"), or(&p.dmi_product, "-")));
    let cpu_max = p.cpu_max.as_ref().map(|c| match c.cpus() {
        Some(n) => format!(
            "{n:.2} CPUs ({} of every {} us)",
            c.quota_us.unwrap_or(0),
            c.period_us
        ),
        None => "no limit".into(),
    });
    let weights: Vec<String> = (p.weighted_interleave_weights.iter())
        .map(|w| format!("node {}: {}", w.node, w.weight))
        .collect();
    let weights = (!weights.is_empty()).then(|| weights.join(", "));
    let vendor = (p.hypervisor_vendor.as_ref())
        .map(|v| format!("{v} (from {})", or(&p.hypervisor_source, "unknown source")));
    let cgroup = (p.cgroup_version.as_ref()).map(|v| format!("v{v}, {}", or(&p.cgroup_path, "-")));
    let cpus = p.cpuset_cpus.as_deref().map(list_or_none);
    let mems = p.cpuset_mems.as_deref().map(list_or_none);
    let auto = (p.weighted_interleave_auto).map(|a| ["off", "on"][usize::from(a)].to_string());
    [
        ("hypervisor vendor", vendor),
        ("DMI system", dmi),
        ("cgroup", cgroup),
        ("cgroup cpuset cpus", cpus),
        ("cgroup cpuset mems", mems),
        ("cgroup cpu.max", cpu_max),
        ("weighted interleave auto", auto),
        ("interleave weights", weights),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v?)))
}

/// A process memory limit in one line for the environment tables:
/// `300 MiB (cgroup v2 memory.max in /sys/fs/cgroup/x/memory.max; 296 MiB left)`.
pub fn memory_limit(l: &MemoryLimit) -> String {
    format!(
        "{} ({} in {}; {} left)",
        format_bytes(l.limit_bytes),
        l.kind,
        l.source,
        format_bytes(l.left_bytes())
    )
}
