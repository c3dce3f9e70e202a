//! Terminal text for `bandwidth --peak`: one table per node or package (a row per mix, a
//! column per thread count, each cell the median MB/s with its 95 % interval, and the count
//! that gave the peak), the L3 domain table of each node, what each mix counts as a byte, and
//! the plan's notes. Takes a finished [`PeakReport`] and a writer.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};

use crate::results::format::{format_bytes, format_list};
use crate::results::peak::{DomainNode, PeakBest, PeakReport, RateInterval};
use crate::results::quality::RepetitionQuality;
use crate::stats::Summary;

use super::run_view::{bandwidth::rates_summary, fmt_ci};

/// Writes every table of the peak report.
pub fn render_peak(w: &mut dyn Write, p: &PeakReport) -> io::Result<()> {
    for s in &p.scopes {
        writeln!(
            w,
            "Peak injection bandwidth, {} {} (CPUs {}, each thread's memory on its own node {}): MB/s median [95 % interval], 1 MB = 10^6 B",
            s.level,
            s.id,
            format_list(&s.cpus),
            format_list(&s.memory_nodes)
        )?;
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED);
        let mut header = vec!["mix".to_string()];
        header.extend(s.thread_counts.iter().map(|n| format!("{n} thread(s)")));
        header.push("peak at".into());
        t.set_header(header);
        for (k, m) in p.mixes.iter().enumerate() {
            let mut row = vec![m.name.clone()];
            for c in 0..s.thread_counts.len() {
                let run = s
                    .runs
                    .get(k)
                    .and_then(|r| r.get(c).copied().flatten())
                    .and_then(|i| p.runs.get(i));
                row.push(match run {
                    Some(r) => fmt_ci(&rates_summary(&r.mb_per_s), Some(&r.quality)),
                    None => "-".into(),
                });
            }
            let best = p
                .best
                .iter()
                .find(|b| b.level == s.level && b.id == s.id && b.mix == m.name);
            row.push(best.map_or("-".into(), peak_at));
            t.add_row(row);
        }
        for c in 1..=s.thread_counts.len() {
            if let Some(col) = t.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        writeln!(w, "{}", super::width::fit(&t))?;
    }
    if let Some(r) = p.runs.first() {
        writeln!(
            w,
            "Each cell: {} repetitions of {} ms kept ({} warm-up dropped); threads added one per core first, a package's round robin over its nodes.",
            r.mb_per_s.samples, r.duration_ms, r.warmup_repetitions
        )?;
    }
    writeln!(w, "What each mix does and counts:")?;
    for m in &p.mixes {
        writeln!(w, "  {}: {}; counts {}.", m.name, m.description, m.counting)?;
    }
    for d in &p.domains {
        domains(w, p, d)?;
    }
    for n in &p.notes {
        writeln!(w, "Note: {n}.")?;
    }
    Ok(())
}

/// The L3 domain table of one node: each domain alone and with every domain running.
fn domains(w: &mut dyn Write, p: &PeakReport, d: &DomainNode) -> io::Result<()> {
    writeln!(w)?;
    writeln!(
        w,
        "L3 domains of node {} (read mix, local memory): MB/s median [95 % interval]",
        d.node
    )?;
    let mut t = crate::render::width::table(
        UTF8_FULL_CONDENSED,
        vec![
            "L3 domain (CPUs)",
            "L3",
            "alone",
            "with every domain running",
            "share of all",
            "alone / all",
        ],
    );
    let all_quality = d.all_run.and_then(|i| p.runs.get(i)).map(|r| &r.quality);
    for x in &d.domains {
        let alone = x.alone_run.and_then(|i| p.runs.get(i));
        t.add_row(vec![
            format_list(&x.cpus),
            format_bytes(x.l3_bytes),
            match alone {
                Some(r) => fmt_ci(&rates_summary(&r.mb_per_s), Some(&r.quality)),
                None if d.domains.len() == 1 => "= the node (one domain)".into(),
                None => "-".into(),
            },
            x.in_all_mb_per_s
                .map_or("-".into(), |s| interval(&s, all_quality)),
            x.share_fraction.map_or("-".into(), pct),
            x.alone_fraction_of_all.map_or("-".into(), pct),
        ]);
    }
    if let Some(r) = d.all_run.and_then(|i| p.runs.get(i)) {
        t.add_row(vec![
            format!("all ({})", format_list(&r.cpus)),
            "-".into(),
            "-".into(),
            fmt_ci(&rates_summary(&r.mb_per_s), Some(&r.quality)),
            pct(1.0),
            "-".into(),
        ]);
    }
    writeln!(w, "{}", super::width::fit(&t))?;
    writeln!(w, "{}.", d.finding)
}

/// `8 threads (clear)`, or which counts it cannot be told from.
fn peak_at(b: &PeakBest) -> String {
    if b.clear {
        format!("{} thread(s) (interval above the others)", b.threads)
    } else if b.indistinguishable_from.is_empty() {
        format!("{} thread(s) (no interval)", b.threads)
    } else {
        let others: Vec<String> = b
            .indistinguishable_from
            .iter()
            .map(|t| t.to_string())
            .collect();
        format!(
            "{} thread(s) (indistinguishable from {})",
            b.threads,
            others.join(", ")
        )
    }
}

fn interval(s: &RateInterval, q: Option<&RepetitionQuality>) -> String {
    let sum = Summary {
        median: s.median,
        min: s.median,
        max: s.median,
        p90: s.median,
        p99: s.median,
        samples: s.samples,
        ci: s.ci,
    };
    fmt_ci(&sum, q)
}

fn pct(f: f64) -> String {
    format!("{:.0} %", f * 100.0)
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
                ci: Some(crate::stats::Interval::new(11999.0, 12001.0)),
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
                ci: Some(crate::stats::Interval::new(6999.5, 7001.5)),
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
                    ci: Some(crate::stats::Interval::new(11999.0, 12001.0)),
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
        assert!(s.contains("= the node (one domain)"), "{s}");
        assert!(s.contains("one L3 domain"), "{s}");
        assert!(s.contains("Note: package 0"), "{s}");
        assert!(
            s.contains("1:1: half; counts bytes read + bytes written."),
            "{s}"
        );
    }
}
