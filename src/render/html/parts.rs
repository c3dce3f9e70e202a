//! The measurement sections of the HTML report: findings, the latency matrix, bandwidth
//! (kernels, peak and matrix), scaling, loaded latency and core to core, each with the
//! widths its headline figures reached against the run's target. A section's body returns
//! `false` when the run holds nothing for it ([`super::Section`]).

use std::fmt::Write as _;

use super::page::Page;
use super::prose;
use crate::render::run_view::{self as view};
use crate::render::svg::{self, bytes_short};
use crate::results::figures::{self, RunFigures};
use crate::results::{findings::Severity, plan::Part, RunResults};

/// The findings. The run's own warnings are not repeated here: the verdict banner above
/// lists every warning of the run, these among them.
pub(super) fn findings(p: &mut Page, r: &RunResults) -> bool {
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
    !r.findings.is_empty()
}

pub(super) fn latency_matrix(p: &mut Page, r: &RunResults) -> bool {
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
    let ci = view::cell_intervals(
        view::latency_matrix::latency_matrix_table(r.latency.as_ref()),
        "ns_per_load",
    );
    let f = figures::of_run(r);
    let card = f
        .local_latency
        .map(|i| ("local latency", f.get(i).estimate.median));
    if !p.heatmaps(
        view::latency_matrix::latency_heatmaps(r),
        (&ws, ci),
        "The firmware declares no SLIT or HMAT figures for these pairs.",
        card,
    ) {
        return false;
    }
    // The paired ratios to local with their intervals, and the headline latencies' widths
    // against the run's target.
    let ratios = r
        .latency
        .as_ref()
        .and_then(|l| l.matrix.as_ref())
        .and_then(view::latency_matrix::matrix_ratio_line);
    let widths = figures_line(r, &f, "ns", "latency");
    for l in ratios.iter().chain(&widths) {
        p.para("lead", &format!("{l}."));
    }
    true
}

/// The kernels' table and the peak part; `false` when the run has neither.
pub(super) fn bandwidth_kernels(p: &mut Page, r: &RunResults) -> bool {
    let bt = view::bandwidth::bandwidth_table(r.bandwidth.as_ref());
    let kernels = !bt.rows.is_empty();
    if !kernels {
        let why = view::absent_reason(r, Part::Bandwidth);
        p.para("absent", &format!("Not measured in this run ({why})."));
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
        p.table(&bt, &names);
    }
    peak(p, r) || kernels
}

/// The peak part, when it ran: the mixes as grouped bars with their intervals, the L3
/// domains alone beside their shares, both tables and the domain finding.
pub(super) fn peak(p: &mut Page, r: &RunResults) -> bool {
    let Some(rep) = view::peak::peak_report(r) else {
        return false;
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
    let keys = [
        "scope",
        "mix",
        "threads_count",
        "mb_per_s_median",
        "dram_mb_per_s_estimate_median",
        "peak",
        "peak_clear",
    ];
    p.table_marked(&t, &keys, &|i| {
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
        p.table(
            &dt,
            &[
                "node",
                "domain_cpus",
                "l3_bytes",
                "alone_mb_per_s_median",
                "in_all_mb_per_s_median",
                "all_mb_per_s_median",
                "share_fraction",
                "alone_fraction_of_all",
            ],
        );
    }
    lines(p, &view::peak::domain_notes(rep));
    true
}

/// Each line as a paragraph.
fn lines(p: &mut Page, lines: &[String]) {
    for l in lines {
        p.para("", l.trim_start());
    }
}

pub(super) fn bandwidth_matrix(p: &mut Page, r: &RunResults) -> bool {
    node_bandwidth(p, r, true)
}

/// The bandwidth matrix; `cards` when the page shows the headline cards (the run report), so
/// that a one-cell matrix names the local bandwidth card rather than repeat it; a page of
/// its own (`bandwidth --matrix --html`) has no cards and shows the cell.
pub(super) fn node_bandwidth(p: &mut Page, r: &RunResults, cards: bool) -> bool {
    let bt = view::bandwidth::bandwidth_matrix_table(r.bandwidth.as_ref());
    let bw_title = bt.title.clone();
    let ci = view::cell_intervals(bt, "mb_per_s");
    let f = figures::of_run(r);
    let card = (f.local_bandwidth.filter(|_| cards))
        .map(|i| ("local bandwidth", f.get(i).estimate.median));
    let caption = format!("{bw_title}; MB/s, median, MB = 10^6 bytes.");
    p.heatmaps(
        view::bandwidth::bandwidth_heatmaps(r.bandwidth.as_ref(), Some(&r.topology)),
        (&caption, ci),
        "The firmware declares no HMAT bandwidth for these pairs (no HMAT table, or no bandwidth entries in it).",
        card,
    )
}

pub(super) fn scaling(p: &mut Page, r: &RunResults) -> bool {
    let Some(c) = view::scaling::scaling_chart(r) else {
        return false;
    };
    let caption = format!(
        "MB/s (median, MB = 10^6 bytes) against the number of threads. {} {}",
        intervals_note(&c),
        view::scaling::scaling_knee_note(r)
    );
    p.line_chart(&c, &caption);
    // The headline bandwidths' (kernels, matrix cells, scaling points) widths against the
    // run's target, after the last bandwidth section.
    if let Some(l) = figures_line(r, &figures::of_run(r), "MB/s", "bandwidth") {
        p.para("lead", &format!("{l}."));
    }
    true
}

/// The loaded-latency section: the `loaded-latency --html` page's chart and headline table
/// ([`super::loaded::curves_body`]), every point, and the placement and trend in words.
pub(super) fn loaded(p: &mut Page, r: &RunResults) -> bool {
    let curves = view::loaded::run_loaded_curves(r);
    if !super::loaded::curves_body(p, &curves) {
        return false;
    }
    super::loaded::points_table(p, &curves);
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
    p.para("", &format!("{}.", words.join(". ")));
    true
}

pub(super) fn core_to_core(p: &mut Page, r: &RunResults) -> bool {
    let (Some(c), Some(h)) = (&r.c2c, view::c2c::c2c_heatmap(r.c2c.as_ref())) else {
        return false;
    };
    let line = view::c2c::c2c_notes(c)[1..].join("; ") + ".";
    p.figure(true, vec![svg::heatmap(&h)], &line);
    let groups = view::c2c::c2c_groups_table(Some(c));
    if !groups.rows.is_empty() {
        let groups = groups.with_interval_text("ns_one_way", "ns one way (of pair medians)");
        p.table(&groups, view::c2c::C2C_GROUP_KEYS);
    }
    if let Some(s) = view::c2c::c2c_summary(c) {
        p.para("", &s);
    }
    true
}

/// "latency interval half-widths against the quick budget's target of ±5 %: " and the width
/// each figure of `unit` whose key starts with `what` (the local figure and the matrix
/// cells) reached, from the figure list: `local ±1.2 %; 0 → 1 ±2.0 %`; `None` without any.
pub(super) fn figures_line(
    r: &RunResults,
    f: &RunFigures,
    unit: &str,
    what: &str,
) -> Option<String> {
    let items: Vec<String> = f
        .figures
        .iter()
        .filter(|g| g.unit == unit && g.key.starts_with(what))
        .filter_map(|g| {
            let w = g.estimate.relative_half_width()?;
            let cell = g.key.rsplitn(3, '.').collect::<Vec<_>>();
            let name = match cell.as_slice() {
                [to, from, _] if from.parse::<u32>().is_ok() => format!("{from} \u{2192} {to}"),
                _ => "local".to_string(),
            };
            Some(format!("{name} \u{b1}{:.1} %", w * 100.0))
        })
        .collect();
    (!items.is_empty()).then(|| {
        format!(
            "{what} interval half-widths against the {} budget's target of \u{b1}{:.0} %: {}",
            r.plan.budget.name(),
            r.plan.budget.target_half_width() * 100.0,
            items.join("; ")
        )
    })
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
