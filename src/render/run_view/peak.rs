//! The run's peak injection part as tables (CSV `peak.csv` and `peak_domains.csv`, the HTML
//! report) and as the bar charts of the HTML report: the mixes as groups of bars (one per
//! thread count) with their intervals, and each L3 domain alone beside its share when all
//! run. Read from the run's `peak` report only.

use super::{ci_cells, estimate_cells, interval_cells, interval_columns, Cell, Table};
use crate::render::svg::{BarChart, BarMark};
use crate::results::format::format_list;
use crate::results::peak::{PeakBest, PeakMixInfo, PeakReport, PeakRun, PeakScope};
use crate::results::RunResults;

/// The run's peak report, when the part ran.
pub fn peak_report(r: &RunResults) -> Option<&PeakReport> {
    r.peak.as_ref().and_then(|b| b.peak.as_ref())
}

/// One row per scope, mix and thread count.
pub fn peak_table(p: Option<&PeakReport>) -> Table {
    let mut t = Table::new(
        "peak",
        "Peak injection bandwidth per read/write mix",
        &[
            ("scope", "scope"),
            ("mix", "mix (reads:writes, lines)"),
            ("threads_count", "threads"),
            ("cpus", "CPUs"),
        ],
    );
    t.extend_estimate("mb_per_s", "MB/s (MB = 10^6 B)");
    t.extend([
        (
            "dram_mb_per_s_estimate_median",
            "DRAM MB/s est. (median, with RFO)",
        ),
        ("on_intended_node_fraction", "on intended node (fraction)"),
        ("peak", "highest median of its scope and mix"),
        ("peak_clear", "its interval lies above the other counts'"),
    ]);
    let Some(p) = p else { return t };
    for s in &p.scopes {
        for (m, n, i, run) in scope_runs(p, s) {
            let best = (p.best.iter())
                .find(|b| b.level == s.level && b.id == s.id && b.mix == m.name && b.run == i);
            let mut cells = vec![
                Cell::Text(format!("{} {}", s.level, s.id)),
                Cell::Text(m.name.clone()),
                Cell::Int(n as u64),
                Cell::Text(format_list(&run.cpus)),
            ];
            cells.extend(estimate_cells(&run.mb_per_s.summary(), Some(&run.quality)));
            cells.extend([
                Cell::Num(run.dram_mb_per_s_estimate.median),
                Cell::Num(run.placement_fraction),
                Cell::Bool(best.is_some()),
                Cell::Bool(best.is_some_and(|b| b.clear)),
            ]);
            t.rows.push(cells);
        }
    }
    t
}

/// Each measured run of scope `s`, mix by mix and thread count by thread count: (mix,
/// thread count, run index, run).
fn scope_runs<'a>(
    p: &'a PeakReport,
    s: &'a PeakScope,
) -> impl Iterator<Item = (&'a PeakMixInfo, usize, usize, &'a PeakRun)> {
    p.mixes.iter().zip(&s.runs).flat_map(move |(m, row)| {
        let counts = s.thread_counts.iter().zip(row);
        counts.filter_map(move |(&n, idx)| Some((m, n, (*idx)?, p.runs.get((*idx)?)?)))
    })
}

/// One row per L3 domain of each measured node.
pub fn peak_domains_table(p: Option<&PeakReport>) -> Table {
    let mut t = Table::new(
        "peak_domains",
        "Read bandwidth per L3 domain: alone, and its share with every domain running",
        &[
            ("node", "node"),
            ("domain_cpus", "L3 domain (CPUs)"),
            ("l3_bytes", "L3 size (bytes)"),
            ("domains_count", "L3 domains on the node"),
        ],
    );
    t.extend(interval_columns("alone_mb_per_s", "alone MB/s", ""));
    t.extend([
        ("in_all_mb_per_s_median", "with every domain running, MB/s"),
        ("in_all_mb_per_s_ci_low", "with all, 95 % low"),
        ("in_all_mb_per_s_ci_high", "with all, 95 % high"),
        ("all_mb_per_s_median", "all together, MB/s"),
        ("share_fraction", "share of all"),
        ("alone_fraction_of_all", "alone / all"),
    ]);
    let Some(p) = p else { return t };
    for d in &p.domains {
        let all = d.all_run.and_then(|i| p.runs.get(i));
        for x in &d.domains {
            let alone = x.alone_run.and_then(|i| p.runs.get(i));
            let mut cells = vec![
                Cell::Int(d.node as u64),
                Cell::Text(format_list(&x.cpus)),
                Cell::Int(x.l3_bytes),
                Cell::Int(d.domains.len() as u64),
            ];
            cells.extend(interval_cells(alone.map(|a| a.mb_per_s.summary()).as_ref()));
            let [low, high, _] = ci_cells(x.in_all_mb_per_s.and_then(|s| s.ci));
            cells.extend([
                Cell::opt(x.in_all_mb_per_s.map(|s| s.median)),
                low,
                high,
                Cell::opt(all.map(|a| a.mb_per_s.median)),
                Cell::opt(x.share_fraction),
                Cell::opt(x.alone_fraction_of_all),
            ]);
            t.rows.push(cells);
        }
    }
    t
}

/// The lines under the peak table, in the terminal and the HTML report: the count that gave
/// each peak, how each figure was measured and what each mix does and counts as a byte.
pub fn peak_notes(p: &PeakReport) -> Vec<String> {
    let mut v = vec!["The thread count of each peak:".to_string()];
    v.extend(p.best.iter().map(|b| format!("  {}.", peak_at(b))));
    if let Some(r) = p.runs.first() {
        v.push(format!(
            "Each figure: {} repetitions of {} ms kept ({} warm-up dropped); threads added one \
             per core first, a package's round robin over its nodes.",
            r.mb_per_s.samples, r.duration_ms, r.warmup_repetitions
        ));
    }
    v.push("What each mix does and counts:".into());
    let mixes = p.mixes.iter();
    v.extend(mixes.map(|m| format!("  {}: {}; counts {}.", m.name, m.description, m.counting)));
    v
}

/// The lines under the L3-domain table: each node's finding, then the plan's notes.
pub fn domain_notes(p: &PeakReport) -> Vec<String> {
    let findings = p.domains.iter().map(|d| format!("{}.", d.finding));
    findings
        .chain(p.notes.iter().map(|n| format!("Note: {n}.")))
        .collect()
}

/// `node 0, read: 8 thread(s) (interval above the others)`, or which counts it cannot be
/// told from.
fn peak_at(b: &PeakBest) -> String {
    let why = if b.clear {
        "interval above the others".to_string()
    } else if b.indistinguishable_from.is_empty() {
        "no interval".to_string()
    } else {
        let others: Vec<String> = b
            .indistinguishable_from
            .iter()
            .map(|t| t.to_string())
            .collect();
        format!("indistinguishable from {}", others.join(", "))
    };
    format!(
        "{} {}, {}: {} thread(s) ({why})",
        b.level, b.id, b.mix, b.threads
    )
}

/// The mixes of the first scope (the home node) as grouped bars: each mix's thread counts in
/// a row, with their intervals.
pub fn peak_chart(r: &RunResults) -> Option<(BarChart, Vec<BarMark>)> {
    let p = peak_report(r)?;
    let s = p.scopes.first()?;
    let mut bars = Vec::new();
    for (m, n, _, run) in scope_runs(p, s) {
        let mark = BarMark::of(&run.mb_per_s.summary(), run.quality.disturbed);
        bars.push((
            format!("{}, {n} thread(s)", m.name),
            run.mb_per_s.median,
            mark,
        ));
    }
    let cpus = format_list(&s.cpus);
    let title = format!("Peak injection per mix, {} {} (CPUs {cpus})", s.level, s.id);
    (!bars.is_empty()).then(|| BarChart::of(title, "MB/s", bars))
}

/// Each L3 domain of the first node alone beside its share with every domain running, and
/// every domain together (the accent bar); `None` when no node has more than one domain.
pub fn domains_chart(r: &RunResults) -> Option<(BarChart, Vec<BarMark>)> {
    let p = peak_report(r)?;
    let d = p.domains.iter().find(|d| d.domains.len() > 1)?;
    let run = |i: Option<usize>| i.and_then(|i| p.runs.get(i));
    let bar = |label: String, r: &PeakRun| {
        let mark = BarMark::of(&r.mb_per_s.summary(), r.quality.disturbed);
        (label, r.mb_per_s.median, mark)
    };
    let mut bars = Vec::new();
    for x in &d.domains {
        let cpus = format_list(&x.cpus);
        if let Some(a) = run(x.alone_run) {
            bars.push(bar(format!("CPUs {cpus} alone"), a));
        }
        if let Some(s) = x.in_all_mb_per_s {
            let interval = s.ci.map(|c| c.ends());
            let mark = BarMark {
                interval,
                disturbed: false,
            };
            bars.push((format!("CPUs {cpus} with all"), s.median, mark));
        }
    }
    bars.push(bar("every domain together".into(), run(d.all_run)?));
    let title = format!("Read bandwidth per L3 domain, node {}", d.node);
    let (mut c, marks) = BarChart::of(title, "MB/s", bars);
    c.highlight = Some(c.bars.len() - 1);
    Some((c, marks))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::csv::run_csv;

    fn with_peak() -> RunResults {
        let mut r = crate::run::sample::results();
        r.peak = Some(crate::render::fixture::peak_bandwidth_report());
        r
    }

    /// The peak tables hold one row per scope, mix and count and one per domain, at full
    /// precision in the CSV (their columns against docs/csv.md: tables_standalone's test).
    #[test]
    fn peak_csvs_hold_a_row_per_scope_mix_and_count() {
        let r = with_peak();
        assert_eq!(peak_table(peak_report(&r)).rows.len(), 4);
        assert_eq!(peak_domains_table(peak_report(&r)).rows.len(), 1);
        let files = run_csv(&r).unwrap();
        let peak = &files.iter().find(|f| f.0 == "peak.csv").unwrap().1;
        assert!(
            peak.contains("node 0,read,2,0-1,12000,11999,12001,0.96,9,0,false,12000,1,true,true"),
            "{peak}"
        );
        // Without the part: no rows, so no file.
        let names: Vec<String> = run_csv(&crate::run::sample::results())
            .unwrap()
            .into_iter()
            .map(|f| f.0)
            .collect();
        assert!(!names.iter().any(|n| n.starts_with("peak")));
    }

    /// The charts: every mix and count of the first scope with its interval; one domain
    /// draws no domain chart (nothing to compare).
    #[test]
    fn charts_group_the_mixes_and_skip_a_single_domain() {
        let r = with_peak();
        let (c, marks) = peak_chart(&r).unwrap();
        assert_eq!(c.bars.len(), 4);
        assert_eq!(c.bars[1].0, "read, 2 thread(s)");
        assert_eq!(c.highlight, Some(1));
        assert_eq!(marks[1].interval, Some((11999.0, 12001.0)));
        assert!(domains_chart(&r).is_none());
        let html = crate::render::html::render(&r);
        assert!(html.contains("Peak injection bandwidth per read/write mix"));
        assert!(html.contains("one L3 domain"));
    }
}
