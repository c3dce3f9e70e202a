//! Terminal text for `bandwidth --peak`, from the run view's peak tables (the ones the HTML
//! report and `peak.csv`, `peak_domains.csv` hold): a row per scope, mix and thread count with
//! its median MB/s and 95 % interval, the count that gave each peak, what each mix counts as a
//! byte, each node's L3 domains and the plan's notes. Takes a finished [`PeakReport`].

use std::io::{self, Write};

use super::run_view::peak::{domain_notes, peak_domains_table, peak_notes, peak_table};
use super::view_text;
use crate::results::format::format_list;
use crate::results::peak::PeakReport;

/// Writes every table of the peak report.
pub fn render_peak(w: &mut dyn Write, p: &PeakReport) -> io::Result<()> {
    let scopes: Vec<String> = p
        .scopes
        .iter()
        .map(|s| {
            let nodes = format_list(&s.memory_nodes);
            format!(
                "{} {} (CPUs {}, memory nodes {nodes})",
                s.level,
                s.id,
                format_list(&s.cpus)
            )
        })
        .collect();
    writeln!(
        w,
        "Peak injection bandwidth, each thread's memory on its own node: MB/s median [95 % \
         interval] n, 1 MB = 10^6 B; scopes: {}",
        scopes.join(", ")
    )?;
    let t = peak_table(Some(p)).with_interval_text("mb_per_s", "MB/s");
    let head = |n: &str| format!("{n} thread(s)");
    let across = ("threads_count", &head as &dyn Fn(&str) -> String);
    view_text::layout(w, &t.pivot(&["scope", "mix"], across, "mb_per_s_median"))?;
    for l in peak_notes(p) {
        writeln!(w, "{l}")?;
    }
    domains(w, p)?;
    for l in domain_notes(p) {
        writeln!(w, "{l}")?;
    }
    Ok(())
}

/// The L3 domain table: each domain alone and with every domain of its node running.
fn domains(w: &mut dyn Write, p: &PeakReport) -> io::Result<()> {
    if p.domains.is_empty() {
        return Ok(());
    }
    writeln!(w)?;
    writeln!(w, "L3 domains (read mix, local memory), MB/s:")?;
    let t = peak_domains_table(Some(p)).with_interval_text("alone_mb_per_s", "alone MB/s");
    let keys = ["node", "domain_cpus", "l3_bytes", "alone_mb_per_s_median"];
    let all = [
        "in_all_mb_per_s_median",
        "in_all_mb_per_s_ci_low",
        "in_all_mb_per_s_ci_high",
    ];
    let rest = [
        "all_mb_per_s_median",
        "share_fraction",
        "alone_fraction_of_all",
    ];
    write!(w, "{}", t.text(&[&keys[..], &all, &rest].concat()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_show_every_mix_with_intervals_and_the_peak_count() {
        let p = crate::render::fixture::peak_example();
        let s = crate::render::fixture::written(|o| render_peak(o, &p));
        assert!(s.contains("12000 [11999, 12001]"), "{s}");
        assert!(s.contains("2 thread(s) (interval above the others)"), "{s}");
        assert!(s.contains("indistinguishable from 1"), "{s}");
        assert!(s.contains("one L3 domain"), "{s}");
        assert!(s.contains("Note: package 0"), "{s}");
        assert!(
            s.contains("1:1: half; counts bytes read + bytes written."),
            "{s}"
        );
    }
}
