//! The run's verdict: which figures were disturbed or too wide to trust, the evidence
//! (lowest CPU share, largest steal, widest interval) and one word for the whole run, as
//! data. Pure functions of the results contract; `render::words::verdict` names the figures
//! and words the sentence, and `crate::run::findings` stores the worded verdict.

use serde::{Deserialize, Serialize};

use super::bandwidth::BandwidthReport;
use super::c2c::C2cResult;
use super::latency::{LatencyReport, Mode};
use super::loaded::LoadedResult;
use super::placement::PageSize;
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

/// The run's verdict with its evidence as results files store it: [`judge_figures`]'s
/// [`Judgement`] with its figures named and its sentence worded by
/// `render::words::verdict::recorded`. Absent in results files written before verdicts existed.
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
    /// The verdict line, e.g. "noisy: 3 of 41 figures marked (...)", for readers of the
    /// file (`render::words::verdict::sentence` of the fields above).
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

/// Which figure a check is about, as data: `render::words::figure` names it
/// ("latency 1 GiB 4k random, CPU 0 node 0").
#[derive(Clone, Debug, PartialEq)]
pub enum FigureName {
    /// A latency sweep point or matrix cell.
    Latency {
        working_set_bytes: u64,
        page_size: PageSize,
        mode: Mode,
        cpu: u32,
        memory_node: Option<u32>,
    },
    /// A bandwidth or scaling result; `part` names the report ("bandwidth", "scaling").
    Bandwidth {
        part: &'static str,
        kernel: String,
        threads: usize,
    },
    /// A peak-injection run of a bandwidth report.
    Peak {
        part: &'static str,
        mix: String,
        threads: usize,
        level: String,
        id: u32,
    },
    /// A loaded-latency point (index from the idle point), the CPU whose share was lowest,
    /// and the load mix when it is one of the further mixes.
    LoadedPoint {
        index: usize,
        cpu: Option<u32>,
        mix: Option<String>,
    },
    /// A core-to-core pair.
    CoreToCore { from: u32, to: u32 },
    /// A scenario row's bandwidth (`letter` as the row stores it: "a").
    Scenario { letter: String },
    /// The single-thread latency of a scenario row.
    ScenarioLatency { letter: String },
    /// A measured check of the weighted-interleave advice.
    AdvisorCheck { policy: String },
}

/// One headline figure as the verdict sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureCheck {
    /// Which figure it is.
    pub figure: FigureName,
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
    fn of(
        figure: FigureName,
        half_width: Option<f64>,
        q: &Option<RepetitionQuality>,
    ) -> FigureCheck {
        FigureCheck {
            figure,
            half_width,
            cpu_share: q.as_ref().and_then(|q| q.lowest_kept_cpu_share_fraction),
            steal: q.as_ref().and_then(|q| q.highest_kept_steal_fraction),
            disturbed: q.as_ref().is_some_and(|q| q.disturbed),
        }
    }
}

/// The verdict before it is worded: the counts, and each piece of evidence with the figure
/// it came from. `render::words::verdict::recorded` names the figures and words the
/// sentence into the [`RunQuality`] that results files store.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// Headline figures checked, count.
    pub figures: usize,
    /// Figures whose repetitions were disturbed, count.
    pub figures_disturbed: usize,
    /// Figures not disturbed but with an interval wider than +-10 %, count.
    pub figures_wide: usize,
    /// Lowest CPU share any measuring thread got (fraction) and its figure.
    pub lowest_cpu_share: Option<(f64, FigureName)>,
    /// Largest steal fraction seen and its figure.
    pub highest_steal: Option<(f64, FigureName)>,
    /// Widest interval half-width relative to its median and its figure.
    pub widest_interval: Option<(f64, FigureName)>,
}

/// Keeps `(value, figure)` when `better` says the new value beats the one held.
fn keep(
    held: &mut Option<(f64, FigureName)>,
    v: f64,
    f: &FigureName,
    better: fn(f64, f64) -> bool,
) {
    if held.as_ref().is_none_or(|(h, _)| better(v, *h)) {
        *held = Some((v, f.clone()));
    }
}

/// Judges a set of figures (pure): a figure is disturbed when its engine marked it or its CPU
/// share is below `min_cpu_share`; wide when not disturbed and its interval exceeds
/// [`WIDE_INTERVAL`]. Unusable when more than half of the figures are disturbed; noisy when any
/// figure is disturbed or wide; quiet otherwise.
pub fn judge_figures(checks: &[FigureCheck], min_cpu_share: f64) -> Judgement {
    let mut j = Judgement {
        verdict: Verdict::Quiet,
        figures: checks.len(),
        figures_disturbed: 0,
        figures_wide: 0,
        lowest_cpu_share: None,
        highest_steal: None,
        widest_interval: None,
    };
    for c in checks {
        let disturbed = c.disturbed || c.cpu_share.is_some_and(|s| s < min_cpu_share);
        if disturbed {
            j.figures_disturbed += 1;
        } else if c.half_width.is_some_and(|h| h > WIDE_INTERVAL) {
            j.figures_wide += 1;
        }
        if let Some(s) = c.cpu_share {
            keep(&mut j.lowest_cpu_share, s, &c.figure, |v, h| v < h);
        }
        if let Some(s) = c.steal {
            keep(&mut j.highest_steal, s, &c.figure, |v, h| v > h);
        }
        if let Some(h) = c.half_width {
            keep(&mut j.widest_interval, h, &c.figure, |v, h| v > h);
        }
    }
    j.verdict = if j.figures > 0 && 2 * j.figures_disturbed > j.figures {
        Verdict::Unusable
    } else if j.figures_disturbed + j.figures_wide > 0 {
        Verdict::Noisy
    } else {
        Verdict::Quiet
    };
    j
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
            if let FigureName::LoadedPoint { mix, .. } = &mut c.figure {
                *mix = Some(m.kernel_label.clone());
            }
            c
        }));
    }
    if let Some(c) = &r.c2c {
        v.extend(c2c_checks(c));
    }
    if let Some(t) = &r.scenarios {
        for s in t.scenarios.iter().filter(|s| s.same_as.is_none()) {
            if let Some(m) = &s.mb_per_s {
                let name = FigureName::Scenario {
                    letter: s.letter.clone(),
                };
                v.push(FigureCheck::of(name, m.relative_half_width(), &s.quality));
            }
            // The single-thread latency of (a) and (b), from its interleaved blocks.
            if let Some(l) = &s.latency {
                let name = FigureName::ScenarioLatency {
                    letter: s.letter.clone(),
                };
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
                let name = FigureName::AdvisorCheck {
                    policy: c.policy.clone(),
                };
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
            let name = FigureName::Latency {
                working_set_bytes: res.working_set_bytes,
                page_size: res.page_size,
                mode: res.mode,
                cpu: res.cpu,
                memory_node: res.memory_node,
            };
            FigureCheck::of(name, half, &res.quality)
        })
        .collect()
}

/// The figures of a bandwidth report (`what` names it: "bandwidth", "scaling").
pub fn bandwidth_checks(what: &'static str, b: &BandwidthReport) -> Vec<FigureCheck> {
    b.results
        .iter()
        .map(|res| {
            let m = &res.mb_per_s;
            let half = match (m.ci.map(|c| c.low), m.ci.map(|c| c.high)) {
                (Some(lo), Some(hi)) if m.median != 0.0 => Some((hi - lo) / 2.0 / m.median),
                _ => None,
            };
            let name = FigureName::Bandwidth {
                part: what,
                kernel: res.kernel.clone(),
                threads: res.threads,
            };
            FigureCheck::of(name, half, &res.quality)
        })
        .chain(b.peak.iter().flat_map(|p| &p.runs).map(|r| {
            let m = &r.mb_per_s;
            let half = match (m.ci.map(|c| c.low), m.ci.map(|c| c.high)) {
                (Some(lo), Some(hi)) if m.median != 0.0 => Some((hi - lo) / 2.0 / m.median),
                _ => None,
            };
            let name = FigureName::Peak {
                part: what,
                mix: r.mix.clone(),
                threads: r.threads,
                level: r.level.clone(),
                id: r.id,
            };
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
            let name = FigureName::LoadedPoint {
                index: i,
                cpu: own.map(|o| o.1),
                mix: None,
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
            let name = FigureName::CoreToCore {
                from: p.from,
                to: p.to,
            };
            let mut f = FigureCheck::of(name, p.ns_one_way.relative_half_width(), &p.quality);
            f.cpu_share = p.cpu_share.or(f.cpu_share);
            f
        })
        .collect()
}
