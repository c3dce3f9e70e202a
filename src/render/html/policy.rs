//! The policy sections of the HTML report: the scenarios (a)..(g) with the winner per kind of
//! application, and the weighted-interleave advice.

use crate::render::format::estimate::num;
use std::fmt::Write as _;

use super::page::Page;
use super::{esc, prose};
use crate::render::run_view::{self as view};
use crate::render::svg::{self, bytes_short};
use crate::render::words::{precision, scenarios as scenario_words};
use crate::results::scenarios::ScenarioTable;
use crate::results::RunResults;

pub(super) fn scenarios(p: &mut Page, r: &RunResults) -> bool {
    let Some(s) = &r.scenarios else { return false };
    scenario_bars(p, s);
    scenario_table(p, r, s);
    recommendations(p, r, s);
    true
}

/// The bandwidth of each placement as bars, the best highlighted.
fn scenario_bars(p: &mut Page, s: &ScenarioTable) {
    let bars: Vec<(String, f64, svg::BarMark)> = s
        .scenarios
        .iter()
        // A scenario placed exactly as another is one bar, its letters merged, as in
        // the table below.
        .filter(|row| row.same_as.is_none())
        .filter_map(|row| {
            let letters = view::policy::merged_letters(s, row).0;
            let mark = svg::BarMark {
                interval: row.mb_per_s.and_then(|m| m.ci.map(|c| c.ends())),
                disturbed: row.quality.as_ref().is_some_and(|q| q.disturbed),
            };
            Some((format!("{letters} {}", row.label), row.bandwidth()?, mark))
        })
        .collect();
    if bars.is_empty() {
        return;
    }
    let title = format!("Bandwidth by placement ({} kernel)", s.kernel);
    let (mut c, marks) = svg::BarChart::of(title, "MB/s", bars);
    c.width = 820;
    p.bar_chart(
        &c,
        &marks,
        "Bars are medians over the interleaved rounds; whiskers are 95 % intervals of the \
         median; a hollow bar is disturbed (its retakes ran out).",
    );
}

/// The table of the placements, identical placements merged into one row, and what its
/// latency column measured.
fn scenario_table(p: &mut Page, r: &RunResults, s: &ScenarioTable) {
    // Only a named winner (or the only candidate measured) is highlighted.
    let winners: Vec<crate::results::scenarios::ScenarioId> = s
        .recommendations
        .iter()
        .filter(|r| view::policy::names_winner(r))
        .map(|r| r.best)
        .collect();
    // A scenario placed exactly as another is shown once, on that one's row, with
    // its letters merged and the reason below the table.
    let mut t = view::policy::with_latency_text(
        view::policy::scenarios_table(r).with_interval_text("mb_per_s", "MB/s"),
        r,
    );
    let mut keep = Vec::new();
    let mut notes = Vec::new();
    for (i, res) in s.scenarios.iter().enumerate() {
        if res.same_as.is_some() {
            continue;
        }
        let (letters, why) = view::policy::merged_letters(s, res);
        if let Some(why) = why {
            notes.push(format!("{letters}: {why}"));
        }
        let mut row = t.rows[i].clone();
        row[0] = view::Cell::Text(letters);
        keep.push((res.id, row));
    }
    t.rows = keep.iter().map(|k| k.1.clone()).collect();
    let keys = [
        "scenario",
        "what_runs",
        "threads_count",
        "mb_per_s_median",
        "mb_per_s_min",
        "mb_per_s_max",
        "ns_per_load_median",
        "numactl",
        "not_measured_because",
    ];
    p.table_marked(&t, &keys, &|i| winners.contains(&keep[i].0));
    // What the latency column measured and each row's precision, as `report --full` says.
    let precision = precision::precision_line(r).map(|l| format!("scenario {l}"));
    let extra = [scenario_words::latency_conditions(s), precision];
    for n in notes.iter().chain(extra.iter().flatten()) {
        p.para("lead", n);
    }
    // Row (h) against (g): the kernel's auto weights against the measured ones.
    let w = crate::render::topo::tiering::weights_lines(&crate::results::figures::of_run(r));
    if let Some((title, rest)) = w.split_first().and_then(|(_, w)| w.split_first()) {
        let _ = write!(
            p.html,
            "<p class=\"lead\">{}</p><pre>{}</pre>",
            prose(title),
            esc(&rest.join("\n"))
        );
    }
    let _ = write!(
        p.html,
        "<p class=\"lead\">{} per thread, {} repetitions of {} ms, kernel {}; highlighted rows win for at least one kind of application.</p>",
        esc(&bytes_short(s.buffer_bytes_per_thread as f64)),
        s.repetitions,
        s.duration_ms,
        esc(&s.kernel)
    );
}

/// The best placement per kind of application, as a table and in words.
fn recommendations(p: &mut Page, r: &RunResults, s: &ScenarioTable) {
    let rt = view::policy::recommendations_table(r);
    if !rt.rows.is_empty() {
        p.push("<h3>Best placement per kind of application</h3>");
        let keys: Vec<&str> = rt.keys[..5].iter().map(String::as_str).collect();
        p.table(&rt, &keys);
        p.push("<ul class=\"recs\">");
        for rec in &s.recommendations {
            let _ = write!(
                p.html,
                "<li>{} <span class=\"muted\">({})</span></li>",
                prose(&rec.text),
                prose(&view::policy::comparison(rec))
            );
        }
        p.push("</ul>");
    }
}

pub(super) fn advisor(p: &mut Page, r: &RunResults) -> bool {
    let Some(a) = r
        .advisor
        .as_ref()
        .filter(|_| r.topology.memory_nodes().len() > 1)
    else {
        return false;
    };
    p.para("", &a.summary);
    let head = [
        ("policy", "policy"),
        ("mb_per_s", "MB/s (MB = 10^6 B; median [95 % interval] n)"),
        ("numactl", "numactl"),
    ];
    let mut t = view::Table::new("advisor", "", &head);
    for c in &a.checks {
        let v = match (&c.mb_per_s_summary, c.mb_per_s, &c.unavailable) {
            (Some(m), Some(_), _) => crate::render::format::estimate::bracketed(&m.estimate()),
            (_, Some(v), _) => num(v),
            (_, None, Some(u)) => format!("not measured: {u}"),
            (_, None, None) => "not measured".into(),
        };
        let row = [&c.policy, &v, &c.numactl].map(|s| view::Cell::Text(s.clone()));
        t.rows.push(row.to_vec());
    }
    p.table(&t, &[]);
    if !a.weights.is_empty() {
        let w: Vec<String> = a
            .weights
            .iter()
            .map(|(n, w)| format!("node {n}: {w}"))
            .collect();
        let _ = write!(
            p.html,
            "<p>Proposed weights for threads on node {}: {}.</p>",
            a.initiator_node,
            esc(&w.join(", "))
        );
    }
    if !a.apply.is_empty() {
        let _ = write!(p.html, "<pre>{}</pre>", esc(&a.apply.join("\n")));
    }
    true
}
