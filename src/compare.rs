//! Comparing saved runs: the same metric from several `results.json` files side by side, each
//! as a ratio to the first run, with the differences that exceed the runs' own spread flagged,
//! and with three or more runs (a fleet) the hosts whose figures stand out from the others.
//! This module is the pure comparison logic over [`RunMetrics`]; pulling metrics out of a
//! run is `crate::render::run_view::metrics`, printing is the CLI's renderer.
//!
//! Two rules decide what is flagged:
//! - **Significant difference** (run vs the first run): the two runs' recorded intervals
//!   (min..max, or whatever spread the result recorded) do not overlap *and* the ratio differs
//!   from 1 by more than 5 %. Either alone is not enough: tight intervals make 1 % differences
//!   "non-overlapping", and a 30 % difference inside a noisy run's own range is not evidence.
//! - **Fleet outlier** (3+ runs): a run's median is further from the fleet median than
//!   3 scaled median absolute deviations (MAD x 1.4826, the usual robust z of 3) and by more
//!   than 5 %. When every other run agrees exactly (MAD = 0), the 5 % rule alone decides.

use serde::Serialize;

/// Smallest relative difference ever flagged, as a fraction.
pub const MIN_RELATIVE_DIFFERENCE: f64 = 0.05;
/// Robust z above which a fleet member is an outlier.
pub const OUTLIER_Z: f64 = 3.0;
/// MAD to standard deviation for normal data.
const MAD_SCALE: f64 = 1.4826;

/// Which direction is better for a metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Lower,
    Higher,
}

/// One figure of one run: the headline and the spread the run recorded for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    /// Stable key that matches the same figure across runs (`latency/0->1`).
    pub key: String,
    /// What it is, for people (`idle latency, CPU node 0 -> memory node 1`).
    pub label: String,
    /// Unit (`ns`, `MB/s`).
    pub unit: String,
    pub better: Better,
    /// Headline (median).
    pub value: f64,
    /// Low end of the run's own spread (min, or the median when none was recorded).
    pub low: f64,
    /// High end of the run's own spread (max or p90).
    pub high: f64,
}

/// The metrics of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMetrics {
    /// How the run is named in the comparison (host name, or file name when hosts repeat).
    pub name: String,
    pub metrics: Vec<Metric>,
}

/// One run's value of a compared metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    /// value / the first run's value; `None` for the first run or when the first has none.
    pub ratio_to_first: Option<f64>,
    /// Differs from the first run beyond both runs' spread and by more than 5 %.
    pub significant: bool,
    /// When significant: true if this run is better than the first.
    pub better_than_first: Option<bool>,
}

/// One metric across runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: String,
    pub better: Better,
    /// One per run, in run order; `None` where that run did not measure it.
    pub cells: Vec<Option<Cell>>,
}

/// A fleet member whose figure stands out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outlier {
    pub run: String,
    pub key: String,
    pub label: String,
    pub unit: String,
    pub value: f64,
    /// Median of the fleet (all runs that have the metric).
    pub fleet_median: f64,
    /// value / fleet_median.
    pub ratio_to_median: f64,
    /// Robust z: |value - median| / (1.4826 MAD); `None` when MAD is 0.
    pub robust_z: Option<f64>,
    /// True when the deviation is in the bad direction.
    pub worse: bool,
}

/// A host named as an outlier, with how many of its figures stand out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutlierHost {
    pub run: String,
    pub outlying_metrics: usize,
    /// Of those, how many are worse than the fleet.
    pub worse: usize,
    pub compared_metrics: usize,
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub runs: Vec<String>,
    pub rows: Vec<Row>,
    /// Metrics present in only some runs are still rows; this counts the rows every run has.
    pub common_metrics: usize,
    /// Count of significant differences per run (vs the first; the first is 0).
    pub significant_per_run: Vec<usize>,
    /// Fleet outliers (3+ runs only).
    pub outliers: Vec<Outlier>,
    /// Hosts with outlying figures, most first (3+ runs only).
    pub outlier_hosts: Vec<OutlierHost>,
}

/// True when two recorded intervals overlap.
fn overlaps(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// Whether `x` differs from the reference `r` beyond both spreads and by > 5 %.
pub fn significant(r: &Metric, x: &Metric) -> bool {
    if r.value == 0.0 || !r.value.is_finite() || !x.value.is_finite() {
        return false;
    }
    let ratio = x.value / r.value;
    (ratio - 1.0).abs() > MIN_RELATIVE_DIFFERENCE
        && !overlaps(
            (r.low.min(r.value), r.high.max(r.value)),
            (x.low.min(x.value), x.high.max(x.value)),
        )
}

fn median(v: &[f64]) -> f64 {
    crate::stats::median(v)
}

/// Compares runs; the first is the reference.
pub fn compare(runs: &[RunMetrics]) -> Comparison {
    // Row order: the first run's order, then metrics only later runs have, in their order.
    let mut keys: Vec<(String, String, String, Better)> = Vec::new();
    for r in runs {
        for m in &r.metrics {
            if !keys.iter().any(|k| k.0 == m.key) {
                keys.push((m.key.clone(), m.label.clone(), m.unit.clone(), m.better));
            }
        }
    }
    let find = |r: &RunMetrics, key: &str| r.metrics.iter().find(|m| m.key == key).cloned();
    let mut rows = Vec::new();
    let mut significant_per_run = vec![0usize; runs.len()];
    for (key, label, unit, better) in &keys {
        let first = runs.first().and_then(|r| find(r, key));
        let cells: Vec<Option<Cell>> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let m = find(r, key)?;
                let (ratio, sig, bt) = match (&first, i) {
                    (Some(f), i) if i > 0 && f.value != 0.0 => {
                        let s = significant(f, &m);
                        let better_now = match better {
                            Better::Lower => m.value < f.value,
                            Better::Higher => m.value > f.value,
                        };
                        (Some(m.value / f.value), s, s.then_some(better_now))
                    }
                    _ => (None, false, None),
                };
                if sig {
                    significant_per_run[i] += 1;
                }
                Some(Cell {
                    value: m.value,
                    low: m.low,
                    high: m.high,
                    ratio_to_first: ratio,
                    significant: sig,
                    better_than_first: bt,
                })
            })
            .collect();
        rows.push(Row {
            key: key.clone(),
            label: label.clone(),
            unit: unit.clone(),
            better: *better,
            cells,
        });
    }
    let common_metrics = rows
        .iter()
        .filter(|r| r.cells.iter().all(|c| c.is_some()))
        .count();
    let (outliers, outlier_hosts) = if runs.len() >= 3 {
        fleet_outliers(runs, &rows)
    } else {
        (Vec::new(), Vec::new())
    };
    Comparison {
        runs: runs.iter().map(|r| r.name.clone()).collect(),
        rows,
        common_metrics,
        significant_per_run,
        outliers,
        outlier_hosts,
    }
}

fn fleet_outliers(runs: &[RunMetrics], rows: &[Row]) -> (Vec<Outlier>, Vec<OutlierHost>) {
    let mut out = Vec::new();
    let mut compared = vec![0usize; runs.len()];
    for row in rows {
        let present: Vec<(usize, f64)> = row
            .cells
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.as_ref().map(|c| (i, c.value)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        if present.len() < 3 {
            continue;
        }
        let vals: Vec<f64> = present.iter().map(|p| p.1).collect();
        let med = median(&vals);
        let devs: Vec<f64> = vals.iter().map(|v| (v - med).abs()).collect();
        let mad = median(&devs);
        for &(i, v) in &present {
            compared[i] += 1;
            if med == 0.0 {
                continue;
            }
            let rel = (v / med - 1.0).abs();
            let z = (mad > 0.0).then(|| (v - med).abs() / (MAD_SCALE * mad));
            let outlying = rel > MIN_RELATIVE_DIFFERENCE && !matches!(z, Some(z) if z <= OUTLIER_Z);
            if outlying {
                let worse = match row.better {
                    Better::Lower => v > med,
                    Better::Higher => v < med,
                };
                out.push(Outlier {
                    run: runs[i].name.clone(),
                    key: row.key.clone(),
                    label: row.label.clone(),
                    unit: row.unit.clone(),
                    value: v,
                    fleet_median: med,
                    ratio_to_median: v / med,
                    robust_z: z,
                    worse,
                });
            }
        }
    }
    let mut hosts: Vec<OutlierHost> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let mine: Vec<&Outlier> = out.iter().filter(|o| o.run == r.name).collect();
            (!mine.is_empty()).then(|| OutlierHost {
                run: r.name.clone(),
                outlying_metrics: mine.len(),
                worse: mine.iter().filter(|o| o.worse).count(),
                compared_metrics: compared[i],
            })
        })
        .collect();
    hosts.sort_by(|a, b| {
        b.outlying_metrics
            .cmp(&a.outlying_metrics)
            .then(a.run.cmp(&b.run))
    });
    (out, hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(key: &str, better: Better, value: f64, low: f64, high: f64) -> Metric {
        Metric {
            key: key.into(),
            label: key.into(),
            unit: if better == Better::Lower {
                "ns"
            } else {
                "MB/s"
            }
            .into(),
            better,
            value,
            low,
            high,
        }
    }

    fn run(name: &str, metrics: Vec<Metric>) -> RunMetrics {
        RunMetrics {
            name: name.into(),
            metrics,
        }
    }

    /// Chips and Cheese, Turin: DRAM latency ~130 ns in NPS1, > 220 ns in NPS0 (+90 ns).
    #[test]
    fn turin_nps0_vs_nps1_latency_is_significant_and_worse() {
        let nps1 = run(
            "nps1",
            vec![m("latency/dram", Better::Lower, 131.0, 128.0, 136.0)],
        );
        let nps0 = run(
            "nps0",
            vec![m("latency/dram", Better::Lower, 221.0, 216.0, 229.0)],
        );
        let c = compare(&[nps1, nps0]);
        let cell = c.rows[0].cells[1].as_ref().unwrap();
        assert!(cell.significant);
        assert_eq!(cell.better_than_first, Some(false));
        assert!((cell.ratio_to_first.unwrap() - 221.0 / 131.0).abs() < 1e-12);
        assert_eq!(c.significant_per_run, vec![0, 1]);
        assert!(c.outliers.is_empty(), "two runs are not a fleet");
    }

    /// iXBT Opteron 2+2: node interleave on vs off, CPU 0. Without interleave local max read
    /// is 6286 MB/s and pseudo-random latency 45.6..48.3 ns; with it 4211 MB/s, 57.5..60.5 ns.
    /// The remote CPU 1 gains with interleave (3116 -> 4217 MB/s).
    #[test]
    fn opteron_interleave_on_vs_off() {
        let off = run(
            "interleave off",
            vec![
                m("bw/cpu0", Better::Higher, 6286.0, 6283.0, 6289.0),
                m("bw/cpu1", Better::Higher, 3116.0, 3114.0, 3118.0),
                m("lat/cpu0", Better::Lower, 45.6, 45.6, 48.3),
                m("lat/cpu1", Better::Lower, 70.9, 70.9, 74.7),
            ],
        );
        let on = run(
            "interleave on",
            vec![
                m("bw/cpu0", Better::Higher, 4211.0, 4208.0, 4214.0),
                m("bw/cpu1", Better::Higher, 4217.0, 4214.0, 4220.0),
                m("lat/cpu0", Better::Lower, 57.5, 57.5, 60.5),
                m("lat/cpu1", Better::Lower, 58.0, 58.0, 60.2),
            ],
        );
        let c = compare(&[off, on]);
        let verdicts: Vec<Option<bool>> = c
            .rows
            .iter()
            .map(|r| r.cells[1].as_ref().unwrap().better_than_first)
            .collect();
        assert_eq!(
            verdicts,
            vec![Some(false), Some(true), Some(false), Some(true)]
        );
        assert_eq!(c.common_metrics, 4);
    }

    #[test]
    fn overlapping_spread_or_small_ratio_is_not_significant() {
        // 10 % apart but the first run's own spread covers the second: noise.
        let a = run("a", vec![m("x", Better::Lower, 100.0, 90.0, 130.0)]);
        let b = run("b", vec![m("x", Better::Lower, 110.0, 108.0, 112.0)]);
        assert!(
            !compare(&[a, b]).rows[0].cells[1]
                .as_ref()
                .unwrap()
                .significant
        );
        // Disjoint but only 3 % apart: not worth flagging.
        let a = run("a", vec![m("x", Better::Lower, 100.0, 99.9, 100.1)]);
        let b = run("b", vec![m("x", Better::Lower, 103.0, 102.9, 103.1)]);
        assert!(
            !compare(&[a, b]).rows[0].cells[1]
                .as_ref()
                .unwrap()
                .significant
        );
    }

    #[test]
    fn missing_metrics_stay_rows_with_gaps() {
        let a = run("a", vec![m("x", Better::Lower, 1.0, 1.0, 1.0)]);
        let b = run("b", vec![m("y", Better::Lower, 1.0, 1.0, 1.0)]);
        let c = compare(&[a, b]);
        assert_eq!(c.rows.len(), 2);
        assert_eq!(c.common_metrics, 0);
        assert!(c.rows[0].cells[1].is_none() && c.rows[1].cells[0].is_none());
    }

    #[test]
    fn fleet_names_the_outlier_host() {
        let vals = [
            (95.0, 20100.0),
            (96.0, 19900.0),
            (94.5, 20050.0),
            (131.0, 14000.0),
            (95.5, 20000.0),
        ];
        let runs: Vec<RunMetrics> = vals
            .iter()
            .enumerate()
            .map(|(i, &(lat, bw))| {
                run(
                    &format!("host{i}"),
                    vec![
                        m("lat", Better::Lower, lat, lat - 0.5, lat + 0.5),
                        m("bw", Better::Higher, bw, bw - 50.0, bw + 50.0),
                    ],
                )
            })
            .collect();
        let c = compare(&runs);
        assert_eq!(c.outlier_hosts.len(), 1);
        let h = &c.outlier_hosts[0];
        assert_eq!(h.run, "host3");
        assert_eq!((h.outlying_metrics, h.worse, h.compared_metrics), (2, 2, 2));
        assert!(c
            .outliers
            .iter()
            .all(|o| o.worse && o.robust_z.unwrap() > OUTLIER_Z));
    }

    #[test]
    fn identical_fleet_has_no_outliers_and_zero_mad_uses_the_five_percent_rule() {
        let same: Vec<RunMetrics> = (0..4)
            .map(|i| {
                run(
                    &format!("h{i}"),
                    vec![m("x", Better::Lower, 100.0, 100.0, 100.0)],
                )
            })
            .collect();
        assert!(compare(&same).outliers.is_empty());
        let mut runs = same.clone();
        runs[2].metrics[0].value = 104.0;
        assert!(compare(&runs).outliers.is_empty());
        runs[2].metrics[0].value = 106.0;
        let c = compare(&runs);
        assert_eq!(c.outlier_hosts[0].run, "h2");
        assert_eq!(c.outliers[0].robust_z, None);
    }
}
