//! The fleet page (`numascope fleet --html FILE`): one self-contained HTML file in the run
//! report's style: the verdict, then per hardware group a hosts x metrics table with the
//! outlying cells highlighted and the noisy or differently configured hosts marked, and a
//! strip chart per metric showing every host against the group median.

use crate::render::format::estimate::num;
use std::fmt::Write as _;

use super::page::Page;
use super::{esc, prose};
use crate::render::svg::strip::{strip_chart, StripChart};
use crate::results::fleet::{FleetReport, HardwareGroup, Standing};

/// Extra rules for the fleet table on top of the report's style sheet.
const FLEET_CSS: &str = "td.out{background:#fde8e8;font-weight:650}tr.noisy td,tr.different-environment td,tr.different-hardware td{color:var(--muted)}td.tag-outlier{color:#c0392b;font-weight:650}";

/// Renders the whole page.
pub fn render(f: &FleetReport) -> String {
    let facts = [
        format!("{} hosts", f.hosts.len()),
        format!("{} hardware group(s)", f.groups.len()),
        format!(
            "outlier: robust z > {:.0} and > {:.0} %, outside the host's own interval",
            f.outlier_z,
            f.min_relative_difference * 100.0
        ),
    ];
    let title = format!("numascope fleet: {} hosts", f.hosts.len());
    let mut p = Page::open(&title, FLEET_CSS, "numascope fleet", &facts);
    p.push("</header>\n");
    verdict_banner(&mut p, f);
    for (g, group) in f.groups.iter().enumerate() {
        group_section(&mut p, f, g, group);
    }
    p.close("numascope fleet; MB = 10^6 bytes")
}

/// Which hosts stand out, and the hosts not compared (and why).
fn verdict_banner(p: &mut Page, f: &FleetReport) {
    let (class, verdict) = if f.has_outliers() {
        let hosts = f.outlier_hosts.join(", ");
        let n = f.outlier_hosts.len();
        ("noisy", format!("{n} host(s) stand out: {hosts}"))
    } else {
        ("quiet", "No host stands out.".to_string())
    };
    let others: Vec<String> = f
        .hosts
        .iter()
        .filter(|h| !matches!(h.standing, Standing::Alike | Standing::Outlier))
        .map(|h| {
            format!(
                "{} ({}: {})",
                h.name,
                h.standing.label(),
                h.reasons.join("; ")
            )
        })
        .collect();
    let open = format!("<div class=\"banner verdict {class}\">{}", prose(&verdict));
    p.banner(&open, &others, usize::MAX);
}

/// What the group's hosts share (hardware, kernel, THP) and how it differs from the largest.
fn group_lead(group: &HardwareGroup) -> String {
    let hw = &group.hardware;
    format!(
        "{}, {} memory node(s) of {:?} GiB, kernel {}, THP {}{}",
        hw.cpu_model.as_deref().unwrap_or("unknown CPU"),
        hw.memory_nodes,
        hw.memory_per_node_gib,
        hw.kernel.as_deref().unwrap_or("unknown"),
        group.thp.as_deref().unwrap_or("unknown"),
        if group.differs_from_largest.is_empty() {
            String::new()
        } else {
            format!(
                "; differs from group 1: {}",
                group.differs_from_largest.join("; ")
            )
        }
    )
}

/// One group's section: its hosts against each metric, table and strip charts.
fn group_section(p: &mut Page, f: &FleetReport, g: usize, group: &HardwareGroup) {
    let lead = group_lead(group);
    p.section_open(
        &format!("group-{}", g + 1),
        &format!("Group {}: {} host(s)", g + 1, group.hosts.len()),
        &lead,
    );
    if let Some(why) = &group.not_judged {
        p.para("absent", &format!("Not judged: {why}"));
    }
    let metrics: Vec<_> = f.metrics.iter().filter(|m| m.group == g).collect();
    p.push("<div class=\"scroll\"><table><thead><tr><th>host</th><th>standing</th>");
    for m in &metrics {
        let _ = write!(
            p.html,
            "<th title=\"{}\">{} ({})</th>",
            esc(&m.key),
            esc(&m.label),
            esc(&m.unit)
        );
    }
    p.push("</tr></thead><tbody>");
    for h in f.hosts.iter().filter(|h| h.group == g) {
        let _ = write!(
            p.html,
            "<tr class=\"{s}\"><td>{}</td><td class=\"tag-{s}\" title=\"{}\">{s}</td>",
            esc(&h.name),
            esc(&h.reasons.join("; ")),
            s = h.standing.label()
        );
        for m in &metrics {
            let v = m.values.iter().find(|v| v.0 == h.name).map(|v| v.1);
            let out = m.outliers.iter().any(|o| o.host == h.name);
            let _ = write!(
                p.html,
                "<td class=\"n{}\">{}</td>",
                if out { " out" } else { "" },
                v.map_or("-".into(), num)
            );
        }
        p.push("</tr>");
    }
    p.push("<tr><td><b>median</b></td><td></td>");
    for m in &metrics {
        let _ = write!(
            p.html,
            "<td class=\"n\"><b>{}</b> +-{:.1} %</td>",
            num(m.median),
            m.spread_fraction * 100.0
        );
    }
    p.push("</tr></tbody></table></div>\n");
    for m in &metrics {
        let chart = StripChart {
            title: m.label.clone(),
            unit: m.unit.clone(),
            points: m
                .values
                .iter()
                .map(|(h, v)| (h.clone(), *v, m.outliers.iter().any(|o| &o.host == h)))
                .collect(),
            median: m.median,
            width: 1000,
        };
        p.figure(false, vec![strip_chart(&chart)], "");
    }
    p.section_close();
}
