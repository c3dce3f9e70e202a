//! The outlier hosts of a comparison of four or more runs: per metric the median and MAD
//! over the runs, and the hosts beyond [`OUTLIER_Z`] robust z, [`MIN_RELATIVE_DIFFERENCE`]
//! and their own interval.

use super::*;
use crate::results::compare::*;

fn median(v: &[f64]) -> f64 {
    crate::stats::median(v)
}

/// The median of `vals` and their median absolute deviation from it (the fleet's robust
/// centre and spread; `MAD_SCALE` x MAD estimates a standard deviation).
pub fn median_mad(vals: &[f64]) -> (f64, f64) {
    let med = median(vals);
    let devs: Vec<f64> = vals.iter().map(|v| (v - med).abs()).collect();
    (med, median(&devs))
}

pub(super) fn fleet_outliers(
    runs: &[RunMetrics],
    rows: &[Row],
) -> (Vec<Outlier>, Vec<OutlierHost>) {
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
        let (med, mad) = median_mad(&vals);
        for &(i, v) in &present {
            compared[i] += 1;
            if med == 0.0 {
                continue;
            }
            let rel = (v / med - 1.0).abs();
            let z = (mad > 0.0).then(|| (v - med).abs() / (MAD_SCALE * mad));
            // A run whose own interval reaches the fleet median (+- the margin) is not an
            // outlier, whatever the MAD of a handful of runs says.
            let cell = row.cells[i].as_ref();
            let interval_agrees = cell
                .and_then(|c| c.ci)
                .is_some_and(|ci| ci.reaches(med, PRACTICAL_MARGIN));
            let outlying = rel > MIN_RELATIVE_DIFFERENCE
                && !matches!(z, Some(z) if z <= OUTLIER_Z)
                && !interval_agrees;
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
