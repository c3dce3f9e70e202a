//! The run's verdict: which figures were disturbed or
//! too wide to trust, the evidence (lowest CPU share, largest steal, widest interval), one
//! word for the whole run, and every part's warnings gathered for the places a user looks.
//! Pure functions of the results contract; `crate::run::findings` stores the verdict.

use serde::{Deserialize, Serialize};

use super::bandwidth::BandwidthReport;
use super::c2c::C2cResult;
use super::latency::{LatencyReport, LatencyResult};
use super::loaded::LoadedResult;
use super::quality::RepetitionQuality;
use super::RunResults;

/// How far a run's figures can be trusted, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No figure was disturbed and every interval is within [`WIDE_INTERVAL`].
    Quiet,
    /// Some figures were disturbed or have wide intervals: read those with care.
    Noisy,
    /// Most figures were disturbed: rerun on an idle machine.
    Unusable,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Quiet => "quiet",
            Verdict::Noisy => "noisy",
            Verdict::Unusable => "unusable",
        }
    }
}

/// An interval whose half-width exceeds this fraction of its median marks its figure (+-10 %).
pub const WIDE_INTERVAL: f64 = 0.10;

/// The run's verdict with its evidence, computed by `crate::run::findings::quality` from the
/// finished parts. Absent in results files written before verdicts existed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunQuality {
    pub verdict: Verdict,
    /// Headline figures checked (one per measured median), count.
    pub figures: usize,
    /// Figures whose repetitions were disturbed (a thread short of CPU, or steal), count.
    pub figures_disturbed: usize,
    /// Figures not disturbed but with an interval wider than +-10 %, count.
    pub figures_wide: usize,
    /// Lowest CPU share any measuring thread got, fraction, and where ("c2c 0-1").
    pub lowest_cpu_share_fraction: Option<f64>,
    pub lowest_cpu_share_where: Option<String>,
    /// Largest steal fraction seen, and where.
    pub highest_steal_fraction: Option<f64>,
    pub highest_steal_where: Option<String>,
    /// Widest interval half-width relative to its median (0.05 = +-5 %), and which figure.
    pub widest_interval_fraction: Option<f64>,
    pub widest_interval_figure: Option<String>,
    /// The verdict line, e.g. "noisy: 3 of 41 figures marked (...)".
    pub sentence: String,
}

impl Default for RunQuality {
    fn default() -> Self {
        RunQuality {
            verdict: Verdict::Quiet,
            figures: 0,
            figures_disturbed: 0,
            figures_wide: 0,
            lowest_cpu_share_fraction: None,
            lowest_cpu_share_where: None,
            highest_steal_fraction: None,
            highest_steal_where: None,
            widest_interval_fraction: None,
            widest_interval_figure: None,
            sentence: String::new(),
        }
    }
}

/// One headline figure as the verdict sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureCheck {
    /// What the figure is ("latency 1 GiB 4 KiB random, CPU 0").
    pub name: String,
    /// Interval half-width relative to the median, when there is an interval.
    pub half_width: Option<f64>,
    /// Lowest CPU share of its measuring threads, when recorded.
    pub cpu_share: Option<f64>,
    /// Largest steal fraction over its repetitions, when recorded.
    pub steal: Option<f64>,
    /// Marked disturbed by its engine (retake allowance spent).
    pub disturbed: bool,
}

impl FigureCheck {
    /// A figure with the interval width given and its engine's repetition quality.
    fn of(name: String, half_width: Option<f64>, q: &Option<RepetitionQuality>) -> FigureCheck {
        FigureCheck {
            name,
            half_width,
            cpu_share: q.as_ref().and_then(|q| q.lowest_kept_cpu_share_fraction),
            steal: q.as_ref().and_then(|q| q.highest_kept_steal_fraction),
            disturbed: q.as_ref().is_some_and(|q| q.disturbed),
        }
    }
}

/// Judges a set of figures (pure): a figure is disturbed when its engine marked it or its CPU
/// share is below `min_cpu_share`; wide when not disturbed and its interval exceeds
/// [`WIDE_INTERVAL`]. Unusable when more than half of the figures are disturbed; noisy when any
/// figure is disturbed or wide; quiet otherwise.
pub fn judge_figures(checks: &[FigureCheck], min_cpu_share: f64) -> RunQuality {
    let mut q = RunQuality {
        figures: checks.len(),
        ..RunQuality::default()
    };
    for c in checks {
        let disturbed = c.disturbed || c.cpu_share.is_some_and(|s| s < min_cpu_share);
        if disturbed {
            q.figures_disturbed += 1;
        } else if c.half_width.is_some_and(|h| h > WIDE_INTERVAL) {
            q.figures_wide += 1;
        }
        if let Some(s) = c.cpu_share {
            if q.lowest_cpu_share_fraction.is_none_or(|l| s < l) {
                q.lowest_cpu_share_fraction = Some(s);
                q.lowest_cpu_share_where = Some(c.name.clone());
            }
        }
        if let Some(s) = c.steal {
            if q.highest_steal_fraction.is_none_or(|l| s > l) {
                q.highest_steal_fraction = Some(s);
                q.highest_steal_where = Some(c.name.clone());
            }
        }
        if let Some(h) = c.half_width {
            if q.widest_interval_fraction.is_none_or(|l| h > l) {
                q.widest_interval_fraction = Some(h);
                q.widest_interval_figure = Some(c.name.clone());
            }
        }
    }
    q.verdict = if q.figures > 0 && 2 * q.figures_disturbed > q.figures {
        Verdict::Unusable
    } else if q.figures_disturbed + q.figures_wide > 0 {
        Verdict::Noisy
    } else {
        Verdict::Quiet
    };
    q.sentence = verdict_sentence(&q);
    q
}

fn pct(f: f64) -> String {
    format!("{:.0} %", f * 100.0)
}

/// The evidence clause: lowest CPU share, steal, widest interval.
fn evidence(q: &RunQuality) -> String {
    let mut e = Vec::new();
    match (&q.lowest_cpu_share_fraction, &q.lowest_cpu_share_where) {
        (Some(s), Some(w)) => e.push(format!("lowest CPU share {} ({w})", pct(*s))),
        _ => e.push("CPU share not recorded".into()),
    }
    if let (Some(s), Some(w)) = (&q.highest_steal_fraction, &q.highest_steal_where) {
        e.push(format!("largest steal {} ({w})", pct(*s)));
    }
    if let (Some(h), Some(w)) = (&q.widest_interval_fraction, &q.widest_interval_figure) {
        e.push(format!("widest interval \u{b1}{:.1} % ({w})", h * 100.0));
    }
    e.join("; ")
}

/// The one-line verdict.
pub fn verdict_sentence(q: &RunQuality) -> String {
    match q.verdict {
        Verdict::Quiet if q.lowest_cpu_share_fraction.is_some() => format!(
            "quiet: every checked repetition ran with its CPU to itself and every interval is within \u{b1}{:.0} % ({} figures; {})",
            WIDE_INTERVAL * 100.0,
            q.figures,
            evidence(q)
        ),
        Verdict::Quiet => format!(
            "quiet: no figure marked disturbed and every interval is within \u{b1}{:.0} % ({} figures; {})",
            WIDE_INTERVAL * 100.0,
            q.figures,
            evidence(q)
        ),
        Verdict::Noisy => format!(
            "noisy: {} of {} figures marked ({} disturbed, {} with an interval wider than \u{b1}{:.0} %); {}",
            q.figures_disturbed + q.figures_wide,
            q.figures,
            q.figures_disturbed,
            q.figures_wide,
            WIDE_INTERVAL * 100.0,
            evidence(q)
        ),
        Verdict::Unusable => format!(
            "unusable: {} of {} figures disturbed: rerun on an idle machine; {}",
            q.figures_disturbed,
            q.figures,
            evidence(q)
        ),
    }
}

/// One label for a latency figure: size, page size, walk mode, CPU and memory node.
fn latency_label(res: &LatencyResult) -> String {
    format!(
        "latency {} {} {}, CPU {}{}",
        super::format::format_bytes(res.working_set_bytes),
        res.page_size,
        res.mode.label(),
        res.cpu,
        res.memory_node
            .map(|n| format!(" node {n}"))
            .unwrap_or_default()
    )
}

/// Every headline figure of the run as the verdict sees it: its interval, the CPU share its
/// threads got and whether its engine marked it disturbed (each figure's own quality record,
/// or the CPU share its engine recorded).
pub fn figure_checks(r: &RunResults) -> Vec<FigureCheck> {
    let mut v = Vec::new();
    if let Some(l) = &r.latency {
        v.extend(latency_checks(l));
    }
    for (what, b) in [
        ("bandwidth", &r.bandwidth),
        ("scaling", &r.scaling),
        ("bandwidth", &r.peak),
    ] {
        if let Some(b) = b {
            v.extend(bandwidth_checks(what, b));
        }
    }
    if let Some(l) = &r.loaded_latency {
        v.extend(loaded_checks(l));
    }
    // The further load mixes' points, named by their mix; their idle point is the read
    // curve's, counted once above.
    for m in &r.loaded_latency_mixes {
        v.extend(loaded_checks(m).into_iter().skip(1).map(|mut c| {
            c.name = format!("{} ({})", c.name, m.kernel_label);
            c
        }));
    }
    if let Some(c) = &r.c2c {
        v.extend(c2c_checks(c));
    }
    if let Some(t) = &r.scenarios {
        for s in t.scenarios.iter().filter(|s| s.same_as.is_none()) {
            if let Some(m) = &s.mb_per_s {
                let name = format!("scenario ({})", s.letter);
                v.push(FigureCheck::of(name, m.relative_half_width(), &s.quality));
            }
            // The single-thread latency of (a) and (b), from its interleaved blocks.
            if let Some(l) = &s.latency {
                let name = format!("scenario ({}) latency", s.letter);
                v.push(FigureCheck::of(
                    name,
                    l.ns_per_load.relative_half_width(),
                    &l.quality,
                ));
            }
        }
    }
    if let Some(a) = &r.advisor {
        for c in &a.checks {
            if let Some(m) = &c.mb_per_s_summary {
                let name = format!("advisor check {}", c.policy);
                v.push(FigureCheck::of(name, m.relative_half_width(), &c.quality));
            }
        }
    }
    v
}

/// The figures of a latency report: every sweep point and matrix cell.
pub fn latency_checks(l: &LatencyReport) -> Vec<FigureCheck> {
    l.all_results()
        .map(|res| {
            let half = res.ns_per_load.relative_half_width();
            FigureCheck::of(latency_label(res), half, &res.quality)
        })
        .collect()
}

/// The figures of a bandwidth report (`what` names it: "bandwidth", "scaling").
pub fn bandwidth_checks(what: &str, b: &BandwidthReport) -> Vec<FigureCheck> {
    b.results
        .iter()
        .map(|res| {
            let m = &res.mb_per_s;
            let half = match (m.ci.map(|c| c.low), m.ci.map(|c| c.high)) {
                (Some(lo), Some(hi)) if m.median != 0.0 => Some((hi - lo) / 2.0 / m.median),
                _ => None,
            };
            let name = format!("{what} {} {} threads", res.kernel, res.threads);
            FigureCheck::of(name, half, &res.quality)
        })
        .chain(b.peak.iter().flat_map(|p| &p.runs).map(|r| {
            let m = &r.mb_per_s;
            let half = match (m.ci.map(|c| c.low), m.ci.map(|c| c.high)) {
                (Some(lo), Some(hi)) if m.median != 0.0 => Some((hi - lo) / 2.0 / m.median),
                _ => None,
            };
            let name = format!("{what} {}", r.label());
            FigureCheck::of(name, half, &Some(r.quality.clone()))
        }))
        .collect()
}

/// The figures of a loaded-latency curve: one per point, with the lowest thread CPU share.
pub fn loaded_checks(l: &LoadedResult) -> Vec<FigureCheck> {
    l.points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let own = p
                .threads
                .iter()
                .filter_map(|t| t.cpu_share.map(|s| (s, t.cpu)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let name = match own {
                Some((_, cpu)) => format!("loaded latency point {i}, CPU {cpu}"),
                None => format!("loaded latency point {i}"),
            };
            let mut c = FigureCheck::of(name, p.ns_per_load.relative_half_width(), &p.quality);
            c.cpu_share = own.map(|o| o.0).or(c.cpu_share);
            c
        })
        .collect()
}

/// The figures of a core-to-core run: one per pair, with its CPU share.
pub fn c2c_checks(c: &C2cResult) -> Vec<FigureCheck> {
    c.pairs
        .iter()
        .map(|p| {
            let name = format!("core to core {}-{}", p.from, p.to);
            let mut f = FigureCheck::of(name, p.ns_one_way.relative_half_width(), &p.quality);
            f.cpu_share = p.cpu_share.or(f.cpu_share);
            f
        })
        .collect()
}

/// Every warning of the run in one list, each prefixed with the part that raised it: the
/// topology's, each measured part's, then the run's own.
pub fn gathered_warnings(r: &RunResults) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut add = |what: &str, ws: &[String]| {
        for w in ws {
            let line = format!("{what}: {w}");
            if !v.contains(&line) {
                v.push(line);
            }
        }
    };
    add("topology", &r.topology.warnings);
    if let Some(l) = &r.latency {
        add("latency", &l.warnings);
    }
    if let Some(b) = &r.bandwidth {
        add("bandwidth", &b.warnings);
    }
    if let Some(b) = &r.scaling {
        add("scaling", &b.warnings);
    }
    if let Some(l) = &r.loaded_latency {
        add("loaded latency", &l.warnings);
    }
    for m in &r.loaded_latency_mixes {
        add(&format!("loaded latency {}", m.kernel_label), &m.warnings);
    }
    if let Some(c) = &r.c2c {
        add("core to core", &c.warnings);
    }
    add("run", &r.warnings);
    v
}
