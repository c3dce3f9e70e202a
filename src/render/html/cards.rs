//! The headline cards under the page header: idle memory latency (the run's reference figure
//! when it has one), the run's local read bandwidth, peak bandwidth, NUMA nodes and the remote
//! latency penalty.

use super::page::card;
use super::page::Page;
use crate::render::run_view::{self as view};
use crate::results::RunResults;

/// Writes the row of cards.
pub(super) fn write(p: &mut Page, r: &RunResults) {
    p.push("<div class=\"cards\">");
    match view::idle_dram_latency(r) {
        Some((ns, w, d)) => card(p, "Idle memory latency", &marked(ns, d), "ns", &w),
        None => card(
            p,
            "Idle memory latency",
            "\u{2013}",
            "",
            "not measured in this run",
        ),
    }
    if let Some((mb, w, d)) = view::reference_bandwidth(r) {
        card(p, "Local read bandwidth", &marked(mb, d), "MB/s", &w);
    }
    match view::peak_bandwidth(r) {
        Some((mb, w, d)) => card(p, "Peak bandwidth", &marked(mb, d), "MB/s", &w),
        None => card(
            p,
            "Peak bandwidth",
            "\u{2013}",
            "",
            "not measured in this run",
        ),
    }
    let t = &r.topology;
    card(
        p,
        "NUMA nodes",
        &t.nodes.len().to_string(),
        "",
        &format!(
            "{} with CPUs, {} with memory, {} CPUs usable",
            t.initiator_nodes().len(),
            t.memory_nodes().len(),
            t.usable_cpus().len()
        ),
    );
    if let Some((pct, w)) = remote_penalty(r) {
        card(p, "Remote latency penalty", &format!("{pct:+.0}"), "%", &w);
    }
    p.push("</div>\n");
}

/// A headline value, with a warning sign when the figure is disturbed (its label says why).
fn marked(v: f64, disturbed: bool) -> String {
    if disturbed {
        format!("\u{26a0} {}", view::fmt_num(v))
    } else {
        view::fmt_num(v)
    }
}

/// The remote/local latency ratio of the matrix: worst remote over best local.
fn remote_penalty(r: &RunResults) -> Option<(f64, String)> {
    let m = r.latency.as_ref()?.matrix.as_ref()?;
    let local = m
        .cells
        .iter()
        .filter(|c| c.initiator_node == c.memory_node)
        .map(|c| c.result.ns_per_load.median)
        .fold(f64::INFINITY, f64::min);
    let remote = m
        .cells
        .iter()
        .filter(|c| c.initiator_node != c.memory_node)
        .max_by(|a, b| {
            a.result
                .ns_per_load
                .median
                .total_cmp(&b.result.ns_per_load.median)
        })?;
    if !local.is_finite() {
        return None;
    }
    Some((
        (remote.result.ns_per_load.median / local - 1.0) * 100.0,
        format!(
            "worst remote pair {} \u{2192} {}: {} ns vs {} ns local",
            remote.initiator_node,
            remote.memory_node,
            view::fmt_num(remote.result.ns_per_load.median),
            view::fmt_num(local)
        ),
    ))
}
