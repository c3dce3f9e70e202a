//! `app --tiering`'s kernel-managed candidates as text, CSV columns and an HTML timeline:
//! the settings each put in force (and restored), the `/proc/vmstat` counters'
//! increase over its measured runs, and the program's pages per node over a run as a small
//! timeline (one bar character per sample, scaled to the node's largest count).

use crate::results::app::{AppCandidate, AppRun};
use std::collections::BTreeSet;

use crate::results::app_tiering::{KernelManaged, PagesSample, VMSTAT_COUNTERS};

use crate::render::html::esc;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// The most samples a timeline shows (evenly picked from longer runs).
const MAX_POINTS: usize = 40;

/// Text lines under a kernel-managed candidate (none for a static one).
pub fn lines(c: &AppCandidate) -> Vec<String> {
    let Some(k) = &c.kernel else {
        return vec![];
    };
    let set: Vec<String> = (k.settings.iter())
        .map(|s| {
            let was = if s.was.is_empty() { "-" } else { &s.was };
            format!("{} = {} (was {was})", s.file, s.value)
        })
        .collect();
    let measured = k.runs.iter().filter(|r| !r.warmup).count();
    let read = |n: &&&str| {
        k.runs
            .iter()
            .any(|r| r.counters.iter().any(|(c, _)| c == **n))
    };
    let counters: Vec<String> = (VMSTAT_COUNTERS.iter().filter(read))
        .map(|n| format!("{n} +{}", k.measured_total(n)))
        .collect();
    let counters = match counters.is_empty() {
        true => "no counter readable".into(),
        false => counters.join(", "),
    };
    let mut out = vec![
        format!(
            "  ({}) {} set for each run, restored after: {}",
            c.letter,
            c.id,
            set.join(", ")
        ),
        format!("      /proc/vmstat over {measured} measured run(s), system-wide: {counters}"),
    ];
    for (node, bar, first, last) in timeline(k) {
        out.push(format!(
            "      node {node} pages over the first measured run: {bar} ({first} -> {last})"
        ));
    }
    out
}

/// Per node: the bar timeline and its first and last page counts.
fn timeline(k: &KernelManaged) -> Vec<(u32, String, u64, u64)> {
    let nodes: BTreeSet<u32> = (k.timeline.iter())
        .flat_map(|s| s.pages.iter().map(|p| p.0))
        .collect();
    // At most MAX_POINTS samples, evenly picked, the first and the last included.
    let (n, m) = (k.timeline.len(), k.timeline.len().min(MAX_POINTS));
    let picked: Vec<&PagesSample> = (0..m)
        .map(|i| &k.timeline[i * (n - 1) / (m - 1).max(1)])
        .collect();
    nodes
        .into_iter()
        .map(|node| {
            let series: Vec<u64> = (picked.iter())
                .map(|s| s.pages.iter().find(|p| p.0 == node).map_or(0, |p| p.1))
                .collect();
            let max = series.iter().copied().max().unwrap_or(0).max(1);
            let bar: String = (series.iter())
                .map(|&v| BARS[((v * 7 + max / 2) / max).min(7) as usize])
                .collect();
            let first = series.first().copied().unwrap_or(0);
            (node, bar, first, series.last().copied().unwrap_or(0))
        })
        .collect()
}

/// How to run a kernel-managed candidate by hand: the settings as root, the program, and
/// the settings back.
pub fn how(k: &KernelManaged, program: Option<&str>) -> String {
    let set: Vec<String> = k
        .settings
        .iter()
        .map(|s| format!("echo {} > {}", s.value, s.file))
        .collect();
    let back: Vec<String> = k
        .settings
        .iter()
        .rev()
        .filter(|s| !s.was.is_empty())
        .map(|s| format!("echo {} > {}", s.was, s.file))
        .collect();
    format!(
        "{}; {}; {}",
        set.join("; "),
        program.unwrap_or("PROGRAM"),
        back.join("; ")
    )
}

/// The CSV's counter column names (`vmstat_<counter>`), always present.
pub fn csv_headers() -> Vec<String> {
    VMSTAT_COUNTERS
        .iter()
        .map(|n| format!("vmstat_{n}"))
        .collect()
}

/// The counter cells of one run: its increase, empty for a static candidate's run.
pub fn csv_cells(c: &AppCandidate, run: &AppRun) -> Vec<String> {
    let counters = c
        .kernel
        .as_ref()
        .and_then(|k| k.runs.iter().find(|r| r.round == run.round));
    VMSTAT_COUNTERS
        .iter()
        .map(|n| {
            counters
                .and_then(|r| r.counters.iter().find(|(c, _)| c == n))
                .map_or(String::new(), |(_, v)| v.to_string())
        })
        .collect()
}

/// An HTML section with each kernel-managed candidate's settings, counters and timeline;
/// empty when there is none.
pub fn html(candidates: &[AppCandidate]) -> String {
    let mut s = String::new();
    for c in candidates.iter().filter(|c| c.kernel.is_some()) {
        s.push_str(&format!("<h3>({}) {}</h3>\n<pre>", c.letter, esc(&c.id)));
        for l in lines(c) {
            s.push_str(&esc(l.trim_start()));
            s.push('\n');
        }
        s.push_str("</pre>\n");
    }
    if s.is_empty() {
        s
    } else {
        format!("<h2>Kernel-managed candidates</h2>\n{s}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::app_tiering::{KnobSetting, PagesSample, RunCounters};

    /// A kernel-managed candidate with one measured run and no kernel record yet.
    fn candidate() -> AppCandidate {
        let run = AppRun {
            round: 0,
            warmup: false,
            wall_s: 1.0,
            user_s: 1.0,
            sys_s: 0.0,
            max_rss_kib: 1,
            exit_code: Some(0),
            signal: None,
            stopped: false,
            samples: 4,
            stdout_file: None,
            stderr_file: None,
        };
        AppCandidate {
            id: "kernel:tiering".into(),
            letter: 'c',
            label: "tiering".into(),
            policy: "first touch".into(),
            runs: vec![run],
            ..AppCandidate::default()
        }
    }

    #[test]
    fn settings_counters_and_timeline_read_as_lines() {
        let mut c = candidate();
        c.kernel = Some(KernelManaged {
            mode: "tiering".into(),
            settings: vec![KnobSetting {
                file: "/proc/sys/kernel/numa_balancing".into(),
                value: "2".into(),
                was: "0".into(),
            }],
            runs: vec![
                RunCounters {
                    round: 0,
                    warmup: true,
                    counters: vec![("pgpromote_success".into(), 5)],
                },
                RunCounters {
                    round: 1,
                    warmup: false,
                    counters: vec![("pgpromote_success".into(), 300)],
                },
            ],
            timeline: (0..4)
                .map(|i| PagesSample {
                    sample: i,
                    pages: vec![(0, 100 * i as u64), (2, 300 - 100 * i as u64)],
                })
                .collect(),
        });
        let l = lines(&c);
        assert!(
            l[0].contains("/proc/sys/kernel/numa_balancing = 2 (was 0)"),
            "{l:?}"
        );
        assert!(
            l[1].contains("over 1 measured run(s)") && l[1].contains("pgpromote_success +300"),
            "{l:?}"
        );
        assert_eq!(
            l[2],
            "      node 0 pages over the first measured run: ▁▃▆█ (0 -> 300)"
        );
        assert_eq!(
            l[3],
            "      node 2 pages over the first measured run: █▆▃▁ (300 -> 0)"
        );
        let run = AppRun {
            round: 1,
            ..c.runs[0].clone()
        };
        let cells = csv_cells(&c, &run);
        assert_eq!(cells[0], "300");
        assert_eq!(cells.len(), csv_headers().len());
        assert!(html(&[c]).contains("Kernel-managed candidates"));
    }
}
