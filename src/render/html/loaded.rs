//! The page `numascope loaded-latency --html OUT.html` writes: the same self-contained layout as
//! the run report, holding what loaded latency measured on its own: every curve (one per load
//! mix, or per matrix cell and mix) on one latency-against-bandwidth chart with the 95 %
//! intervals as error bars, one headline row per curve, the matrix as heat maps, every point,
//! and the warnings. A run's report shows its own loaded-latency curve in its section.

use super::page::Page;
use crate::render::run_view::{
    loaded::bandwidth_note, loaded_charts::loaded_family_chart,
    loaded_charts::loaded_matrix_heatmaps, loaded_family::loaded_points_for_people,
    loaded_family::loaded_summary_for_people, loaded_family::report_curves,
};
use crate::render::svg;
use crate::results::loaded::{LoadedMatrix, LoadedReport, LoadedResult};

/// The chart's caption: what the bars and the hollow points are, how a point's figures
/// were summarized (as the terminal says it).
fn chart_note(c: &svg::LineChart, curves: &[&LoadedResult]) -> String {
    format!(
        "ns per load (median) against the total bandwidth of all threads (load threads plus \
         the chaser's own 64 B per load){}. {} {}",
        if curves.len() > 1 {
            ", one curve per load mix"
        } else {
            ""
        },
        super::parts::intervals_note(c),
        bandwidth_note(curves)
    )
}

/// What the page holds and the machine, for its header.
fn header_facts(r: &LoadedReport, curves: &[&LoadedResult]) -> Vec<String> {
    let what = match r {
        LoadedReport::Curve(_) => "one curve".to_string(),
        LoadedReport::Family(f) => format!("{} load mixes from one placement", f.curves.len()),
        LoadedReport::Matrix(m) => format!(
            "{} initiator node(s) x {} memory node(s)",
            m.initiators.len(),
            m.targets.len()
        ),
    };
    let mut facts = vec![what];
    if let Some(c) = curves.first() {
        facts.extend(super::machine_facts(&c.environment));
        facts.truncate(3);
        facts.push(format!("{} ms per point", c.duration_ms_per_point));
    }
    facts
}

/// The curves on one chart with their error bars, then one headline row per curve: the
/// body of this page's first section and of the run report's loaded-latency section.
/// `false` (nothing written) when no curve has a point.
pub(super) fn curves_body(p: &mut Page, curves: &[&LoadedResult]) -> bool {
    let Some(c) = loaded_family_chart(curves) else {
        return false;
    };
    p.line_chart(&c, &chart_note(&c, curves));
    let t = loaded_summary_for_people(curves);
    let keys = [
        "curve",
        "cpu_node",
        "memory_node",
        "load_cpus",
        "idle_ns_per_load_median",
        "doubled_at_mb_per_s",
        "max_mb_per_s",
        "ns_per_load_at_max_median",
        "disturbed_points_count",
        "on_intended_node_fraction",
    ];
    p.table(&t, &keys);
    p.para("lead", "The doubling is stated only when more than one point lies at or beyond it; the idle point is measured once per placement and heads every curve of that placement.");
    true
}

/// Every point of every curve (the idle point once per placement), with the chaser's CPU
/// share, the steal and the retakes that judge it: this page's last section and the run
/// report's loaded-latency table.
pub(super) fn points_table(p: &mut Page, curves: &[&LoadedResult]) {
    let t = loaded_points_for_people(curves);
    let mut keys = if curves.len() > 1 {
        vec!["curve"]
    } else {
        vec![]
    };
    keys.extend(["load_label", "delay_ns", "total_mb_per_s", "load_mb_per_s"]);
    keys.extend([
        "ns_per_load_median",
        "ns_per_load_p90",
        "chaser_cpu_share_fraction",
    ]);
    keys.extend(["steal_fraction", "repetitions_discarded_count"]);
    p.table(&t, &keys);
}

/// Renders the page.
pub fn render_loaded(r: &LoadedReport) -> String {
    let curves = report_curves(r);
    let warnings = crate::render::run_view::loaded_family::curve_warnings(&curves);
    let facts = header_facts(r, &curves);
    super::standalone::page("Loaded latency", &facts, &warnings, |p| {
        p.section_open(
            "curves",
            "Latency against bandwidth",
            "One thread chases pointers while the load threads stream at rising shares of their full speed; the mixes were measured interleaved, level by level.",
        );
        if !curves_body(p, &curves) {
            p.para("absent", "No curve was measured.");
        }
        p.section_close();
        if let LoadedReport::Matrix(m) = r {
            matrix_section(p, m);
        }
        p.section_open("points", "Every point", "");
        points_table(p, &curves);
        p.section_close();
    })
}

/// The matrix's heat maps, one pair per mix, and the cells not measured.
fn matrix_section(p: &mut Page, m: &LoadedMatrix) {
    p.section_open(
        "matrix",
        "Initiator x target",
        "Idle latency and maximum bandwidth of every cell, one pair of heat maps per mix; the intervals are in the table above.",
    );
    for (idle, max) in loaded_matrix_heatmaps(m) {
        p.heatmap_pair(&[&idle, &max]);
    }
    for n in crate::render::run_view::loaded_family::matrix_notes(m) {
        p.para("lead", &n);
    }
    p.section_close();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::run_view::loaded_family::loaded_curves_table;
    use crate::results::loaded::{LoadedFamily, LOADED_SCHEMA_VERSION};

    /// Two mixes from the example run's curve: one chart with two series, one headline row
    /// each, every point listed.
    #[test]
    fn a_family_page_has_one_series_and_row_per_mix() {
        let run = crate::render::fixture::opteron_example();
        let read = run.loaded_latency.clone().unwrap();
        let mut mix = read.clone();
        mix.kernel = crate::results::loaded::LoadKernel::Mix {
            reads: 2,
            writes: 1,
        };
        mix.kernel_label = "read:write 2:1".into();
        let r = LoadedReport::Family(LoadedFamily {
            schema_version: LOADED_SCHEMA_VERSION,
            order: "interleaved".into(),
            curves: vec![read.clone(), mix],
        });
        let html = render_loaded(&r);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("2 load mixes from one placement"));
        assert!(html.contains("read:write 2:1"));
        let c = loaded_family_chart(&report_curves(&r)).unwrap();
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.series[1].name, "read:write 2:1");
        let rows = 2 * read.points.len();
        assert_eq!(loaded_curves_table(&report_curves(&r)).rows.len(), rows);
        assert!(!html.contains("id=\"matrix\""));
    }
}
