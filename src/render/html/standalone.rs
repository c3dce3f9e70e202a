//! The pages the measuring commands write with `--html OUT.html` when they run on their own:
//! `bandwidth` (kernels, `--stride`, `--sweep`, `--matrix`, `--scaling`, `--peak`),
//! `bandwidth --stream-matrix` and `rightmark`. Each page is the run report's layout (the same
//! stylesheet, self-contained, no scripts) holding only what the command measured, drawn by
//! the run report's own section bodies: a peak page shows the per-mix bars with their
//! intervals and the L3-domain table exactly as `report.html` does, the node tables their
//! heat maps. A bandwidth report is first put where a run keeps it
//! ([`crate::render::tables_standalone::bandwidth_run`]), so no chart is drawn twice in code.

use std::fmt::Write as _;

use super::esc;
use super::page::{Page, CSS};
use super::{parts, tables};
use crate::render::run_view as view;
use crate::render::tables_standalone::bandwidth_run;
use crate::results::bandwidth::BandwidthReport;
use crate::results::environment::Environment;
use crate::results::tables::{RightmarkReport, StreamMatrixReport};
use crate::topology::Topology;

/// The page of `numascope bandwidth --html`: one section per table the variant filled.
pub fn render_bandwidth(report: &BandwidthReport, topo: &Topology) -> String {
    let r = bandwidth_run(report, topo);
    let what = if report.peak.is_some() {
        "peak injection per read/write mix"
    } else if !report.scaling.is_empty() {
        "scaling with threads"
    } else if !report.matrix.is_empty() {
        "CPU node x memory node"
    } else if report.sweep.is_some() {
        "against working-set size"
    } else {
        "kernels"
    };
    let mut p = open("Bandwidth", what, &report.environment, &report.warnings);
    if !view::bandwidth_table(&r).rows.is_empty() {
        p.section_open(
            "bandwidth",
            "Bandwidth kernels",
            "Application bytes moved per second by each kernel; MB = 10^6 bytes. Threads start on a barrier and stop on one shared flag.",
        );
        parts::bandwidth_kernels(&mut p, &r);
        p.section_close();
    }
    if let Some(c) = view::bandwidth_sweep_chart(&r) {
        p.section_open(
            "bandwidth-sweep",
            "Bandwidth vs working set",
            "Each size is labelled with the cache it fits in.",
        );
        p.line_chart(
            &c,
            &format!(
                "MB/s (median of the repetitions, all threads together, MB = 10^6 bytes) \
                 against the working set per thread; x axis in powers of two. Dashed lines: \
                 cache sizes from sysfs. {}",
                parts::intervals_note(&c)
            ),
        );
        p.section_close();
    }
    if view::bandwidth_heatmaps(&r).is_some() {
        p.section_open(
            "bandwidth-matrix",
            "Bandwidth, CPU node \u{00d7} memory node",
            "Threads of the row's node reading memory of the column's node, beside the firmware's HMAT bandwidth when declared.",
        );
        parts::bandwidth_matrix(&mut p, &r);
        p.section_close();
    }
    if view::scaling_chart(&r).is_some() {
        p.section_open(
            "scaling",
            "Bandwidth scaling with threads",
            "Total bandwidth as threads are added; where the curve flattens, memory (not the cores) is the limit.",
        );
        parts::scaling(&mut p, &r);
        p.section_close();
    }
    if view::peak_report(&r).is_some() {
        p.section_open(
            "peak",
            "Peak injection bandwidth",
            "Every node and package with 1, half and all of its usable CPUs, each thread's memory bound to its own node, for each read/write mix; then each node's L3 domains alone and all at once.",
        );
        parts::peak(&mut p, &r);
        p.section_close();
    }
    close(p)
}

/// The page of `numascope rightmark --html`: the run report's RightMark section.
pub fn render_rightmark(r: &RightmarkReport) -> String {
    let what = format!(
        "{} CPU node x memory node cell(s), {} rounds",
        r.cells.len(),
        r.rounds
    );
    let mut p = open("RightMark table", &what, &r.environment, &r.warnings);
    p.section_open(
        "rightmark",
        "RightMark table, CPU node \u{00d7} memory node",
        "The 2005 Opteron article's table measured here: one thread on the row's node, a block on the column's node; average and maximum (software prefetch, non-temporal stores) read and write bandwidth, pseudo-random and random latency.",
    );
    tables::rightmark_body(&mut p, r);
    p.section_close();
    close(p)
}

/// The page of `numascope bandwidth --stream-matrix --html`: the run report's per-stream
/// section, one heat map per kernel and CPU node.
pub fn render_stream_matrix(r: &StreamMatrixReport) -> String {
    let what = format!("{} matrix(es), {} rounds", r.matrices.len(), r.rounds);
    let mut p = open("Per-stream placement", &what, &r.environment, &r.warnings);
    p.section_open(
        "stream-matrix",
        "Bandwidth, source node \u{00d7} destination node",
        "LIKWID's per-stream placement: the CPU node's threads read from arrays on the row's node and write into an array on the column's node.",
    );
    tables::stream_matrix_body(&mut p, r);
    p.section_close();
    close(p)
}

/// The document head, the header (title, what was measured, the machine) and the warnings.
fn open(title: &str, what: &str, env: &Environment, warnings: &[String]) -> Page {
    let mut p = Page {
        html: String::with_capacity(128 * 1024),
    };
    let _ = write!(
        p.html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>numascope {}</title><style>{CSS}</style></head>\n<body><main>\n",
        esc(&title.to_lowercase())
    );
    let _ = write!(
        p.html,
        "<header class=\"top\"><h1>{}</h1><div class=\"sub\">",
        esc(title)
    );
    let mut facts = vec![
        what.to_string(),
        env.cpu_model
            .clone()
            .unwrap_or_else(|| "unknown CPU".into()),
        format!(
            "Linux {}",
            env.kernel_release.as_deref().unwrap_or("unknown")
        ),
    ];
    if env.hypervisor {
        facts.push(format!(
            "virtual machine{}",
            env.hypervisor_type
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default()
        ));
    }
    for f in facts {
        let _ = write!(p.html, "<span>{}</span>", esc(&f));
    }
    p.push("</div></header>\n");
    if !warnings.is_empty() {
        p.push("<div class=\"banner verdict\"><ul class=\"warnings\">");
        for w in warnings {
            let _ = write!(p.html, "<li>{}</li>", esc(w));
        }
        p.push("</ul></div>\n");
    }
    p
}

fn close(mut p: Page) -> String {
    let _ = write!(
        p.html,
        "<footer>numascope {} \u{00b7} MB = 10^6 bytes, KiB/MiB = 2^10/2^20 bytes</footer>\n</main></body></html>\n",
        esc(env!("CARGO_PKG_VERSION"))
    );
    p.html
}
