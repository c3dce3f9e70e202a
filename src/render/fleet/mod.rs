//! Terminal and CSV rendering of a fleet verdict: per hardware group, one row per metric (the
//! group median, the robust spread, the range and the hosts that stand out), then one row per
//! host with its standing and why, then the verdict a script reads from the exit status. The
//! CSV is long: one row per host and metric, with the group median and the host's ratio to it.

pub mod compare;
pub mod openmetrics;

use crate::render::format::estimate::num;
use std::io::{self, Write};

use crate::render::format::width::fit_aligned;
use crate::results::fleet::{FleetReport, Standing};

/// Renders the fleet verdict as text.
pub fn render(f: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    // Nothing judged is said before anything else (exit status 4).
    if let Some(why) = crate::render::words::fleet::nothing_judged(f) {
        writeln!(out, "Not judged: {why}.")?;
    }
    if let Some(b) = &f.baseline {
        writeln!(
            out,
            "{} host(s) checked against the baseline {b}: a figure is outside when its whole 95 % interval lies outside the baseline's envelope; MB = 10^6 B.",
            f.hosts.len()
        )?;
    } else {
        writeln!(
            out,
            "Fleet of {} host(s) in {} hardware group(s). A figure stands out when it is beyond {:.0} robust z (1.4826 MAD) and {:.0} % of its group median, and outside the host's own 95 % interval; MB = 10^6 B.",
            f.hosts.len(),
            f.groups.len(),
            f.outlier_z,
            f.min_relative_difference * 100.0
        )?;
    }
    writeln!(
        out,
        "Each figure is judged on its own, whatever its run's verdict, when it was not disturbed and its interval is within +-{:.0} % of its median.",
        f.max_interval_half_width * 100.0
    )?;
    for (g, group) in f.groups.iter().enumerate() {
        group_table(f, g, group, out)?;
    }
    writeln!(out)?;
    hosts_table(f, out)?;
    writeln!(out)?;
    let standings = [
        (Standing::Noisy, "Noisy (no figure could be judged, rerun)"),
        (Standing::NoBaseline, "Not in the baseline (not judged)"),
        (
            Standing::DifferentEnvironment,
            "Different environment (not judged)",
        ),
        (
            Standing::DifferentHardware,
            "Different hardware (judged only within its group)",
        ),
    ];
    for (s, what) in standings {
        let n: Vec<String> = f.with_standing(s).map(|h| h.name.clone()).collect();
        if !n.is_empty() {
            writeln!(out, "{what}: {}", n.join(", "))?;
        }
    }
    if f.has_outliers() {
        for h in f.with_standing(Standing::Outlier) {
            writeln!(out, "{}: {}", h.name, h.reasons.join("; "))?;
        }
        writeln!(
            out,
            "Verdict: {} host(s) stand out: {} (exit status 1).",
            f.outlier_hosts.len(),
            f.outlier_hosts
                .iter()
                .map(|h| crate::sanitize::value(h))
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if f.nothing_judged() {
        writeln!(out, "Verdict: no host could be judged (exit status 4).")
    } else {
        writeln!(out, "Verdict: no host stands out (exit status 0).")
    }
}

/// One hardware group: what it is, how it differs from the largest, and one row per metric
/// with its median (or baseline envelope), spread and outliers.
fn group_table(
    f: &FleetReport,
    g: usize,
    group: &crate::results::fleet::HardwareGroup,
    out: &mut dyn Write,
) -> io::Result<()> {
    let hw = &group.hardware;
    writeln!(out)?;
    writeln!(
        out,
        "Group {}: {} host(s), {}, {} memory node(s) of {:?} GiB, kernel {}, THP {}, numa_balancing {}",
        g + 1,
        group.hosts.len(),
        crate::sanitize::value(hw.cpu_model.as_deref().unwrap_or("unknown CPU")),
        hw.memory_nodes,
        hw.memory_per_node_gib,
        crate::sanitize::value(hw.kernel.as_deref().unwrap_or("unknown")),
        crate::sanitize::value(group.thp.as_deref().unwrap_or("unknown")),
        group.numa_balancing.map_or("unknown".into(), |v| v.to_string())
    )?;
    let (differs, builds) = (&group.differs_from_largest, &group.kernel_releases);
    let notes = [
        (!differs.is_empty()).then(|| format!("differs from group 1: {}", differs.join("; "))),
        group
            .not_judged
            .as_ref()
            .map(|why| format!("not judged: {why}")),
        (!builds.is_empty()).then(|| {
            format!(
                "kernel builds of one version (stated, not a reason to set hosts aside): {}",
                builds.join(", ")
            )
        }),
    ];
    for note in notes.into_iter().flatten() {
        writeln!(out, "  {note}")?;
    }
    let [hosts, median, spread] = match f.baseline {
        Some(_) => ["checked", "expected", "envelope"],
        None => ["hosts", "median", "spread"],
    };
    let header = [
        "metric", "unit", hosts, median, spread, "min", "max", "outliers",
    ];
    let rows: Vec<Vec<String>> = (f.metrics.iter().filter(|m| m.group == g))
        .map(metric_row)
        .collect();
    write!(out, "{}", fit_aligned(&header, &rows, 2..7))
}

/// One metric of a group: hosts, median (or expected), spread (or envelope), min, max and
/// the hosts that stand out with their ratio to the median.
fn metric_row(m: &crate::results::fleet::FleetMetric) -> Vec<String> {
    let outliers: Vec<String> = m
        .outliers
        .iter()
        .map(|o| {
            format!(
                "{} x{:.2}",
                crate::sanitize::value(&o.host),
                o.ratio_to_median
            )
        })
        .collect();
    vec![
        m.label.clone(),
        m.unit.clone(),
        m.hosts.to_string(),
        num(m.median),
        match m.envelope {
            Some((lo, hi)) => format!("{}..{}", num(lo), num(hi)),
            None => format!("+-{:.1} %", m.spread_fraction * 100.0),
        },
        num(m.min),
        num(m.max),
        outliers.join(", "),
    ]
}

/// One row per host: group, verdict, standing, how many figures were judged and why not.
fn hosts_table(f: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    let mut rows = Vec::new();
    for h in &f.hosts {
        let not: usize = h.not_judged.iter().map(|n| n.figures).sum();
        let counts: Vec<String> = h
            .not_judged
            .iter()
            .map(|n| format!("{} {}", n.figures, n.reason))
            .collect();
        rows.push(vec![
            crate::sanitize::value(&h.name),
            (h.group + 1).to_string(),
            crate::sanitize::value(&h.verdict.clone().unwrap_or_else(|| "-".into())),
            h.standing.label().to_string(),
            format!("{} of {}", h.judged_metrics, h.judged_metrics + not),
            // The outlying figures are in the metric table above; here only how many.
            match (h.standing, counts.is_empty()) {
                (Standing::Outlier, _) => format!(
                    "{} of {} judged figures stand out (see the outliers column)",
                    h.outlying_metrics, h.judged_metrics
                ),
                (Standing::Alike, false) => format!("not judged: {}", counts.join(", ")),
                _ => h.reasons.join("; "),
            },
        ]);
    }
    let header = ["host", "group", "verdict", "standing", "judged", "why"];
    write!(out, "{}", fit_aligned(&header, &rows, 0..0))
}

/// The long CSV: one row per host and metric.
pub fn csv(f: &FleetReport) -> Result<String, csv::Error> {
    use crate::sanitize::csv_text;
    let header = [
        "group",
        "host",
        "standing",
        "verdict",
        "metric",
        "label",
        "unit",
        "value",
        "group_median",
        "ratio_to_median",
        "robust_z",
        "outlier",
    ];
    let rows = f.metrics.iter().flat_map(|m| {
        m.values.iter().map(move |(host, v)| {
            let h = f.hosts.iter().find(|h| &h.name == host);
            let o = m.outliers.iter().find(|o| &o.host == host);
            vec![
                (m.group + 1).to_string(),
                csv_text(host),
                h.map_or("", |h| h.standing.label()).to_string(),
                csv_text(&h.and_then(|h| h.verdict.clone()).unwrap_or_default()),
                csv_text(&m.key),
                csv_text(&m.label),
                csv_text(&m.unit),
                v.to_string(),
                m.median.to_string(),
                if m.median != 0.0 {
                    (v / m.median).to_string()
                } else {
                    String::new()
                },
                o.and_then(|o| o.robust_z)
                    .map_or(String::new(), |z| z.to_string()),
                o.is_some().to_string(),
            ]
        })
    });
    let header = header.map(String::from).to_vec();
    crate::render::csv::records(std::iter::once(header).chain(rows))
}
