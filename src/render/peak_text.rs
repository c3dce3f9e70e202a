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
    view_text::pivot(w, &t, &["scope", "mix"], across, "mb_per_s_median")?;
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
    view_text::columns(w, &t, &[&keys[..], &all, &rest].concat())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::bandwidth::Rates;
    use crate::results::peak::*;
    use crate::results::quality::RepetitionQuality;

    fn rates(m: f64) -> Rates {
        Rates {
            median: m,
            min: m - 2.0,
            max: m + 2.0,
            samples: 9,
            ci: Some(crate::stats::Interval {
                low: m - 1.0,
                high: m + 1.0,
                level: 0.96,
            }),
            per_thread: vec![],
        }
    }

    /// One line-walk run of `mix` on `cpus` of node 0 at `m` MB/s.
    fn sample_run(mix: &str, cpus: Vec<u32>, m: f64) -> PeakRun {
        PeakRun {
            level: "node".into(),
            id: 0,
            mix: mix.into(),
            threads: cpus.len(),
            cpus,
            memory_nodes: vec![0],
            code: "line walk".into(),
            mb_per_s: rates(m),
            dram_mb_per_s_estimate: rates(m),
            bytes_per_thread: 128 << 20,
            placement_fraction: 1.0,
            huge_fraction: 1.0,
            duration_ms: 200,
            warmup_repetitions: 1,
            quality: RepetitionQuality::default(),
        }
    }

    /// The sample's two mixes: all reads, and one read per write.
    fn sample_mixes() -> Vec<crate::results::peak::PeakMixInfo> {
        vec![
            crate::results::peak::PeakMixInfo {
                name: "read".into(),
                description: "all reads".into(),
                reads: 1,
                writes: 0,
                non_temporal: false,
                counting: "bytes read".into(),
            },
            crate::results::peak::PeakMixInfo {
                name: "1:1".into(),
                description: "half".into(),
                reads: 1,
                writes: 1,
                non_temporal: false,
                counting: "bytes read + bytes written".into(),
            },
        ]
    }

    /// The sample's best runs: a clear one for reads, and one for 1:1 that is not clear.
    fn sample_best() -> Vec<PeakBest> {
        vec![
            PeakBest {
                level: "node".into(),
                id: 0,
                mix: "read".into(),
                threads: 2,
                run: 1,
                mb_per_s: 12000.0,
                ci_low: Some(11999.0),
                ci_high: Some(12001.0),
                clear: true,
                indistinguishable_from: vec![],
            },
            PeakBest {
                level: "node".into(),
                id: 0,
                mix: "1:1".into(),
                threads: 2,
                run: 3,
                mb_per_s: 7000.5,
                ci_low: Some(6999.5),
                ci_high: Some(7001.5),
                clear: false,
                indistinguishable_from: vec![1],
            },
        ]
    }

    /// The sample's node 0 with one L3 domain.
    fn sample_domains() -> Vec<DomainNode> {
        vec![DomainNode {
            node: 0,
            domains: vec![DomainRow {
                first_cpu: 0,
                cpus: vec![0, 1],
                l3_bytes: 32 << 20,
                alone_run: None,
                in_all_mb_per_s: Some(RateInterval {
                    median: 12000.0,
                    ci_low: Some(11999.0),
                    ci_high: Some(12001.0),
                    samples: 9,
                }),
                share_fraction: Some(1.0),
                alone_fraction_of_all: None,
            }],
            all_run: Some(1),
            finding: "node 0 has one L3 domain (CPUs 0-1): nothing to compare".into(),
        }]
    }

    pub(crate) fn sample() -> PeakReport {
        PeakReport {
            mixes: sample_mixes(),
            scopes: vec![PeakScope {
                level: "node".into(),
                id: 0,
                cpus: vec![0, 1],
                thread_counts: vec![1, 2],
                memory_nodes: vec![0],
                runs: vec![vec![Some(0), Some(1)], vec![Some(2), Some(3)]],
            }],
            runs: vec![
                sample_run("read", vec![0], 9000.0),
                sample_run("read", vec![0, 1], 12000.0),
                sample_run("1:1", vec![0], 7000.0),
                sample_run("1:1", vec![0, 1], 7000.5),
            ],
            best: sample_best(),
            domains: sample_domains(),
            notes: vec!["package 0 holds the usable CPUs of node 0 only".into()],
        }
    }

    #[test]
    fn tables_show_every_mix_with_intervals_and_the_peak_count() {
        let s = crate::render::fixture::written(|o| render_peak(o, &sample()));
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
