//! The measurement sections of the HTML report: findings, latency (sweep, the per-load
//! distribution's histogram from [`super::latency_dist`], and matrix), bandwidth (kernels and
//! matrix), scaling, loaded latency and core to core.

use std::fmt::Write as _;

use super::page::Page;
use super::precision;
use super::prose;
use crate::render::run_view::{self as view};
use crate::render::svg::{self, bytes_short};
use crate::results::figures;
use crate::results::{findings::Severity, plan::Part, RunResults};

/// The findings. The run's own warnings are not repeated here: the verdict banner above
/// lists every warning of the run, these among them.
pub(super) fn findings(p: &mut Page, r: &RunResults) {
    if r.findings.is_empty() {
        p.push("<p class=\"absent\">No findings recorded.</p>");
    } else {
        p.push("<ul class=\"findings\">");
        for f in &r.findings {
            let (class, tag) = match f.severity {
                Severity::Warning => ("warning", "warning"),
                Severity::Info => ("info", "finding"),
            };
            let _ = write!(
                p.html,
                "<li class=\"{class}\"><span class=\"tag\">{tag}</span>{}</li>",
                prose(&f.text)
            );
        }
        p.push("</ul>");
    }
}

pub(super) fn latency_matrix(p: &mut Page, r: &RunResults) {
    let ws = r
        .latency
        .as_ref()
        .and_then(|l| l.matrix.as_ref())
        .map(|m| {
            format!(
                "ns per load, median; {} working set, {} walk, {} pages.",
                bytes_short(m.working_set_bytes as f64),
                m.mode.label(),
                m.page_size
            )
        })
        .unwrap_or_default();
    let ws = match view::cell_intervals(
        view::latency_matrix::latency_matrix_table(r.latency.as_ref()),
        "ns_per_load",
    ) {
        Some(ci) => format!("{ws} {ci}."),
        None => ws,
    };
    if !p.heatmaps(
        view::latency_matrix::latency_heatmaps(r),
        &ws,
        "The firmware declares no SLIT or HMAT figures for these pairs.",
    ) {
        p.absent(r, Part::LatencyMatrix);
    }
    // The paired ratios to local with their intervals.
    if let Some(l) = r
        .latency
        .as_ref()
        .and_then(|l| l.matrix.as_ref())
        .and_then(view::latency_matrix::matrix_ratio_line)
    {
        let _ = write!(p.html, "<p class=\"lead\">{}.</p>", prose(&l));
    }
    // The headline latencies' widths against the run's target.
    if let Some(l) = precision::figures_line(r, &figures::of_run(r), "ns", "latency") {
        let _ = write!(p.html, "<p class=\"lead\">{}.</p>", prose(&l));
    }
}

pub(super) fn bandwidth_kernels(p: &mut Page, r: &RunResults) {
    let bt = view::bandwidth::bandwidth_table(r.bandwidth.as_ref());
    if bt.rows.is_empty() {
        p.absent(r, Part::Bandwidth);
    } else {
        let bt = bt.with_interval_text("mb_per_s", "MB/s");
        let mut names = vec![
            "kernel",
            "isa",
            "threads_count",
            "cpu_nodes",
            "memory_nodes",
            "placement",
            "mb_per_s_median",
            "mb_per_s_min",
            "mb_per_s_max",
            "dram_mb_per_s_estimate_median",
            "on_intended_node_fraction",
        ];
        // `--stride` runs (NUMA-STREAM's strided kernels) name their stride; others have none.
        if r.bandwidth
            .iter()
            .flat_map(|b| &b.results)
            .any(|x| x.stride_elements.is_some())
        {
            names.insert(1, "stride_bytes");
        }
        let cols = bt.cols(&names);
        p.table(&bt, &cols, &|_| false);
    }
    peak(p, r);
}

/// The peak part, when it ran: the mixes as grouped bars with their intervals, the L3
/// domains alone beside their shares, both tables and the domain finding.
pub(super) fn peak(p: &mut Page, r: &RunResults) {
    let Some(rep) = view::peak::peak_report(r) else {
        return;
    };
    p.push("<h3>Peak injection bandwidth per read/write mix</h3>");
    if let Some((c, marks)) = view::peak::peak_chart(r) {
        p.bar_chart(
            &c,
            &marks,
            "Median MB/s (MB = 10^6 bytes) of each mix at each thread count, whiskers the 95 % interval, hollow bars disturbed; the accent bar is the highest. Reads + writes are counted; the read-for-ownership of normal stores is not (see the DRAM estimate column).",
        );
    }
    let t = view::peak::peak_table(Some(rep)).with_interval_text("mb_per_s", "MB/s");
    let cols = t.cols(&[
        "scope",
        "mix",
        "threads_count",
        "mb_per_s_median",
        "dram_mb_per_s_estimate_median",
        "peak",
        "peak_clear",
    ]);
    p.table(&t, &cols, &|i| {
        t.rows[i][t.col("peak")] == view::Cell::Bool(true)
    });
    lines(p, &view::peak::peak_notes(rep));
    if let Some((c, marks)) = view::peak::domains_chart(r) {
        p.bar_chart(
            &c,
            &marks,
            "Read MB/s of each L3 domain alone and its threads' share while every domain runs, with the 95 % intervals.",
        );
    }
    let dt = view::peak::peak_domains_table(Some(rep));
    if !dt.rows.is_empty() {
        let dt = dt.with_interval_text("alone_mb_per_s", "alone MB/s");
        let cols = dt.cols(&[
            "node",
            "domain_cpus",
            "l3_bytes",
            "alone_mb_per_s_median",
            "in_all_mb_per_s_median",
            "all_mb_per_s_median",
            "share_fraction",
            "alone_fraction_of_all",
        ]);
        p.table(&dt, &cols, &|_| false);
    }
    lines(p, &view::peak::domain_notes(rep));
}

/// Each line as a paragraph.
fn lines(p: &mut Page, lines: &[String]) {
    for l in lines {
        let _ = write!(p.html, "<p>{}</p>", prose(l.trim_start()));
    }
}

pub(super) fn bandwidth_matrix(p: &mut Page, r: &RunResults) {
    let bt = view::bandwidth::bandwidth_matrix_table(r.bandwidth.as_ref());
    let bw_title = bt.title.clone();
    let ci = view::cell_intervals(bt, "mb_per_s").map_or(String::new(), |c| format!(" {c}."));
    if !p.heatmaps(view::bandwidth::bandwidth_heatmaps(r.bandwidth.as_ref(), Some(&r.topology)), &format!("{bw_title}; MB/s, median, MB = 10^6 bytes.{ci}"), "The firmware declares no HMAT bandwidth for these pairs (no HMAT table, or no bandwidth entries in it).") {
        p.absent(r, Part::BandwidthMatrix);
    }
}

pub(super) fn scaling(p: &mut Page, r: &RunResults) {
    match view::scaling::scaling_chart(r) {
        Some(c) => p.line_chart(
            &c,
            &format!(
                "MB/s (median, MB = 10^6 bytes) against the number of threads. {} {}",
                intervals_note(&c),
                view::scaling::scaling_knee_note(r)
            ),
        ),
        None => p.absent(r, Part::Scaling),
    }
    // The headline bandwidths' (kernels, matrix cells, scaling points) widths against the
    // run's target, after the last bandwidth section.
    if let Some(l) = precision::figures_line(r, &figures::of_run(r), "MB/s", "bandwidth") {
        let _ = write!(p.html, "<p class=\"lead\">{}.</p>", prose(&l));
    }
}

/// The loaded-latency section: the `loaded-latency --html` page's chart and headline table
/// ([`super::loaded::curves_body`]), every point, and the placement and trend in words.
pub(super) fn loaded(p: &mut Page, r: &RunResults) {
    let curves = view::loaded::run_loaded_curves(r);
    if !super::loaded::curves_body(p, &curves) {
        return p.absent(r, Part::LoadedLatency);
    }
    let t = view::loaded_family::loaded_points_for_people(&curves);
    let mut keys = if curves.len() > 1 {
        vec!["curve"]
    } else {
        vec![]
    };
    keys.extend(["load_label", "delay_ns", "total_mb_per_s", "load_mb_per_s"]);
    keys.extend(["ns_per_load_median", "ns_per_load_p90"]);
    p.table(&t, &t.cols(&keys), &|_| false);
    let mut words = vec![crate::render::loaded_text::chaser_line(
        "Placement",
        curves[0],
    )];
    for c in &curves {
        let name = view::loaded_family::curve_name(c, &curves);
        words.push(format!(
            "{name}: {}",
            crate::render::loaded_text::trend_sentence(c)
        ));
    }
    let _ = write!(p.html, "<p>{}.</p>", prose(&words.join(". ")));
}

pub(super) fn core_to_core(p: &mut Page, r: &RunResults) {
    let groups = view::c2c::c2c_groups_table(r.c2c.as_ref());
    match view::c2c::c2c_heatmap(r.c2c.as_ref()) {
        Some(h) => {
            let notes = r.c2c.as_ref().map(view::c2c::c2c_notes);
            let line = notes.map(|n| n[1..].join("; ") + ".").unwrap_or_default();
            p.heatmap_figure(svg::heatmap(&h), &line);
            if !groups.rows.is_empty() {
                let groups =
                    groups.with_interval_text("ns_one_way", "ns one way (of pair medians)");
                p.table(&groups, &groups.cols(view::c2c::C2C_GROUP_KEYS), &|_| false);
            }
            if let Some(s) = r.c2c.as_ref().and_then(view::c2c::c2c_summary) {
                let _ = write!(p.html, "<p>{}</p>", prose(&s));
            }
        }
        None => p.absent(r, Part::C2c),
    }
}

/// What the chart's bars and hollow points mean, or why there are no bars.
pub(super) fn intervals_note(c: &svg::LineChart) -> String {
    let mut s = if c.errors.is_empty() {
        "No point has a 95 % interval (fewer than six samples each, or a results file written \
         before intervals existed)."
            .to_string()
    } else {
        "Bars are 95 % intervals of the median.".to_string()
    };
    if !c.disturbed.is_empty() {
        s.push_str(&format!(
            " {} hollow point{} disturbed: the retakes ran out.",
            c.disturbed.len(),
            if c.disturbed.len() == 1 {
                " is"
            } else {
                "s are"
            }
        ));
    }
    s
}
