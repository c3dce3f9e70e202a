//! Comparing saved runs: the same metric from several `results.json` files side by side, each
//! as a ratio to the first run, with the differences beyond noise flagged, and with four or
//! more runs (a fleet) the hosts whose figures stand out from the others. This module is the
//! pure comparison logic over [`RunMetrics`] (the types are the contract in
//! `crate::results::compare`); pulling metrics out of a run is
//! [`metrics`], printing is `crate::render::fleet::compare`.
//!
//! What is flagged (docs/METHODOLOGY.md, "Deciding"):
//! - **Difference** (a run vs the first run): judged with both runs' 95 % intervals for the
//!   median. The ratio of medians gets the conservative interval [B.low / A.high, B.high /
//!   A.low]; a difference is declared only when that interval lies beyond 1 +- the practical
//!   margin (3 %) *and* its p-value, adjusted by Holm over every metric and run compared, is at
//!   most 5 %. So two runs of one configuration come out "no difference" however many metrics
//!   are compared. A figure without an interval (fewer than 6 repetitions, or a file written
//!   before intervals) is shown but not judged: "no interval".
//! - **Judged figure by figure**: a figure is judged when it was not marked disturbed
//!   and its own 95 % interval is narrow enough (half-width at most [`WIDE_INTERVAL`] of its
//!   median, the width that makes a run noisy), in both runs, whatever either run's verdict:
//!   a run on a busy VM is "noisy" because some of its figures are, and its narrow figures
//!   still decide ([`figure_unjudged`]).
//! - **Between-run floor** ([`between_run_floor`]): the intervals cover the variation inside a
//!   run only; between runs buffers, vCPU placement and other tenants change too. A difference
//!   must clear the larger of the margin and the metric's floor (wider in a virtual machine,
//!   where core to core is not compared at all; a difference beyond both intervals is still
//!   said, with the vCPU placement as its likely cause:
//!   `render::words::compare::vm_c2c_differences`).
//! - **Not comparable**: runs planned with different budgets measure the latency sweep to
//!   different sizes; runs under a different kernel version, transparent-huge-page mode or on
//!   another host differ in more than the memory system. The affected metrics are shown,
//!   marked and not judged. A kernel that differs only in its build string (the same version)
//!   is stated, not a reason ([`Comparison::stated_differences`]). When fewer than
//!   [`MIN_COMPARED_SHARE`] of the figures could be judged, the comparison says so first
//!   ([`Comparison::too_little_compared`]): nothing compared is not "no difference". A metric that records its own conditions ([`Metric::condition`]: working set
//!   or block size, page size, threads, the load's size) is not comparable when the two runs'
//!   conditions differ.
//! - **Distribution tail**: the per-load distribution's p99.9 is shown and never judged: it is
//!   set by rare events that change from run to run (one VM: 2.0, 2.4 and 20.5 us in three runs
//!   of one configuration), so no within-run interval or floor describes it.
//! - **Fleet outlier** (4+ runs): a run's median is further from the fleet median than
//!   3 scaled median absolute deviations (MAD x 1.4826, the usual robust z of 3) and by more
//!   than 5 %, and, when the run recorded an interval, that interval lies beyond the fleet
//!   median +- the margin. When every other run agrees exactly (MAD = 0), the 5 % rule alone
//!   decides. Three runs are too few for a MAD: no outliers are named.

mod metrics;
mod outliers;

pub use metrics::metrics;
use outliers::fleet_outliers;
pub use outliers::median_mad;

use crate::results::compare::{
    Affects, Better, Cell, Comparison, Conditions, Metric, Row, RunMetrics, MIN_COMPARED_SHARE,
    MIN_FLEET, VM_C2C_CAUSE,
};
use crate::results::verdict::WIDE_INTERVAL;
use crate::stats::multiple::holm;
use crate::stats::{unpaired_estimates, Decision, PRACTICAL_MARGIN};

/// Smallest relative difference of a fleet member ever flagged, as a fraction.
pub const MIN_RELATIVE_DIFFERENCE: f64 = 0.05;
/// Robust z above which a fleet member is an outlier.
pub const OUTLIER_Z: f64 = 3.0;
/// MAD to standard deviation for normal data.
pub const MAD_SCALE: f64 = 1.4826;
/// Family-wise error rate kept by the Holm adjustment over all compared metrics.
pub const ALPHA: f64 = 0.05;
/// Why core-to-core figures of two runs in a virtual machine are not compared.
pub const VM_C2C: &str =
    "core to core between virtual CPUs (the hypervisor may run them on other cores each run)";

/// Why a core-to-core cell of runs in a virtual machine is not judged. The
/// difference is not silenced: when the ratio's interval lies beyond the bare-metal floor the
/// reason says it differs, by how much, and the likely cause; otherwise it says why such
/// figures are not compared. Either way the cell stays out of the exit status, as documented.
fn vm_c2c_reason(key: &str, r: Option<crate::stats::RatioInterval>, ratio: f64) -> String {
    match r.map(|r| r.decide(margin_for(key, false))) {
        Some(Decision::Higher | Decision::Lower) => format!(
            "not comparable: core to core differs x{ratio:.2} beyond both runs' intervals; {VM_C2C_CAUSE}"
        ),
        _ => format!("not comparable: {VM_C2C}"),
    }
}

/// The between-run floor of a metric: the smallest relative difference between two *runs*
/// that is not already explained by what changes from one run to the next, which the
/// within-run intervals cannot see (another buffer on other physical pages, another placement
/// of virtual CPUs on the host's cores, another tenant's share of the memory bus). Bare metal:
/// latency and bandwidth 5 %, core to core 10 %. In a virtual machine (either run): latency
/// 40 % and bandwidth 50 % (this project's VMs: latency 10-40 % between buffers, two-thread
/// bandwidth 15 % to 2x between runs), and core to core is not compared at all (`None`): on
/// one VM it was 37, 117 and 214 ns for one pair in three runs, each run +-0.4 %.
pub fn between_run_floor(key: &str, virtual_machine: bool) -> Option<f64> {
    let kind = key.split('/').next().unwrap_or("");
    match (kind, virtual_machine) {
        ("c2c", false) => Some(0.10),
        ("c2c", true) => None,
        (k, false) if LATENCY_KINDS.contains(&k) => Some(0.05),
        (k, true) if LATENCY_KINDS.contains(&k) => Some(0.40),
        (_, false) => Some(0.05),
        (_, true) => Some(0.50),
    }
}

/// The per-load distribution's 99.9th percentile: shown, never judged ([`DISTRIBUTION_TAIL`]).
pub const DISTRIBUTION_TAIL_KEY: &str = "latency-distribution/p99.9";

/// Why the distribution's p99.9 is not judged between runs, whatever its intervals say.
pub const DISTRIBUTION_TAIL: &str = "a distribution's 99.9th percentile is set by rare events (interrupts, preemption, other tenants) that change from run to run; three runs of one configuration on this project's VM gave 2.0, 2.4 and 20.5 us, each run's interval excluding the others";

/// The first key segments of latency metrics (the rest are bandwidths, and core to core).
const LATENCY_KINDS: [&str; 8] = [
    "latency-matrix",
    "latency-sweep",
    "loaded",
    "loaded-mix",
    "reference-latency",
    "latency-distribution",
    "rightmark-latency",
    "scenario-latency",
];

/// The margin a difference of `key` must clear: the practical margin or the between-run
/// floor, whichever is larger.
pub fn margin_for(key: &str, virtual_machine: bool) -> f64 {
    between_run_floor(key, virtual_machine).map_or(PRACTICAL_MARGIN, |f| f.max(PRACTICAL_MARGIN))
}

/// Why one figure of one run cannot be judged, or `None` when it can: marked disturbed (its
/// repetitions did not own their CPUs), no interval, an interval wider than +-[`WIDE_INTERVAL`]
/// of its median, the distribution's tail, or core to core between virtual CPUs. The same rule
/// for `compare`, `fleet` and baselines; the run's own verdict does not enter. Without
/// `needs_interval` (a fleet, a baseline: the group's spread judges it) a figure that has no
/// interval at all, as in files written before intervals, is judged.
pub fn figure_unjudged(m: &Metric, virtual_machine: bool, needs_interval: bool) -> Option<String> {
    if m.key == DISTRIBUTION_TAIL_KEY {
        return Some("a distribution's 99.9th percentile (rare events)".into());
    }
    if between_run_floor(&m.key, virtual_machine).is_none() {
        return Some("core to core between virtual CPUs".into());
    }
    if m.disturbed {
        return Some("disturbed".into());
    }
    match m.estimate().relative_half_width() {
        None => needs_interval.then(|| "no interval".into()),
        Some(h) if h > WIDE_INTERVAL => Some(format!(
            "interval wider than +-{:.0} %",
            WIDE_INTERVAL * 100.0
        )),
        Some(_) => None,
    }
}

/// Why a cell cannot support a difference although both figures have intervals: either
/// figure was marked disturbed, or its interval is too wide to judge ([`figure_unjudged`]).
fn untrusted(first: &RunMetrics, run: &RunMetrics, a: &Metric, b: &Metric) -> Option<String> {
    for (r, m) in [(first, a), (run, b)] {
        if m.disturbed {
            return Some(format!("disturbed in {}", r.name));
        }
        if m.estimate()
            .relative_half_width()
            .is_some_and(|h| h > WIDE_INTERVAL)
        {
            return Some(format!(
                "interval wider than +-{:.0} % in {}",
                WIDE_INTERVAL * 100.0,
                r.name
            ));
        }
    }
    None
}

/// Compares runs; the first is the reference. No conditions known: everything compares.
pub fn compare(runs: &[RunMetrics]) -> Comparison {
    compare_with(runs, &vec![Conditions::default(); runs.len()])
}

/// The rows' keys, labels, units and directions: the first run's order, then metrics only
/// later runs have, in their order.
fn row_keys(runs: &[RunMetrics]) -> Vec<(String, String, String, Better)> {
    let mut keys: Vec<(String, String, String, Better)> = Vec::new();
    for r in runs {
        for m in &r.metrics {
            if !keys.iter().any(|k| k.0 == m.key) {
                keys.push((m.key.clone(), m.label.clone(), m.unit.clone(), m.better));
            }
        }
    }
    keys
}

/// One run's cell of a row: its value, its ratio to the first run's with the ratio's
/// interval, and either why it is not judged or the decision that enters the Holm family.
fn cell(
    key: &str,
    first: Option<&Metric>,
    m: &Metric,
    i: usize,
    runs: (&RunMetrics, &RunMetrics),
    diffs: &[(String, Affects)],
) -> (Cell, Option<Decision>) {
    let vm = runs.0.virtual_machine || runs.1.virtual_machine;
    let mut cell = Cell {
        value: m.value,
        low: m.low,
        high: m.high,
        ci: m.ci,
        samples: m.samples,
        ratio_to_first: None,
        ratio_ci: None,
        p_value: None,
        p_adjusted: None,
        not_judged: None,
        within: None,
        significant: false,
        better_than_first: None,
    };
    let Some(f) = first.filter(|f| i > 0 && f.value != 0.0) else {
        return (cell, None);
    };
    cell.ratio_to_first = Some(m.value / f.value);
    let mut blocking: Vec<String> = diffs
        .iter()
        .filter(|(_, a)| match a {
            Affects::All => true,
            Affects::Sweep => key.starts_with("latency-sweep/"),
            Affects::Nothing => false,
        })
        .map(|(d, _)| d.clone())
        .collect();
    // The metric's own conditions (size, page, threads, mix): measured differently.
    if let (Some(a), Some(b)) = (&f.condition, &m.condition) {
        if a != b {
            blocking.push(format!("{b} vs {a}"));
        }
    }
    let r = unpaired_estimates(&f.estimate(), &m.estimate());
    if let Some(r) = r {
        cell.ratio_ci = r.ci;
        cell.p_value = r.p_value;
    }
    let mut decision = None;
    if !blocking.is_empty() {
        cell.not_judged = Some(format!("not comparable: {}", blocking.join(", ")));
    } else if let Some(why) = untrusted(runs.0, runs.1, f, m) {
        cell.not_judged = Some(why);
    } else if key == DISTRIBUTION_TAIL_KEY {
        cell.not_judged = Some(format!("not comparable: {DISTRIBUTION_TAIL}"));
    } else if between_run_floor(key, vm).is_none() {
        cell.not_judged = Some(vm_c2c_reason(key, r, m.value / f.value));
    } else {
        match r.map(|r| r.decide(margin_for(key, vm))) {
            Some(d @ (Decision::Higher | Decision::Lower)) => decision = Some(d),
            Some(d @ Decision::Indistinguishable { within }) => {
                cell.within = Some(within);
                decision = Some(d);
            }
            _ => cell.not_judged = Some("no interval".into()),
        }
    }
    (cell, decision)
}

/// Holm over every judged cell (row, run, decision): the chance of any false difference
/// stays at ALPHA. Marks the significant cells; gives their count per run.
fn holm_pass(rows: &mut [Row], judged: &[(usize, usize, Decision)], runs: usize) -> Vec<usize> {
    let p: Vec<f64> = judged
        .iter()
        .map(|&(r, i, _)| {
            rows[r].cells[i]
                .as_ref()
                .and_then(|c| c.p_value)
                .unwrap_or(1.0)
        })
        .collect();
    let adjusted = holm(&p);
    let mut significant_per_run = vec![0usize; runs];
    for (&(r, i, d), &pa) in judged.iter().zip(&adjusted) {
        let better = rows[r].better;
        let Some(cell) = rows[r].cells[i].as_mut() else {
            continue;
        };
        cell.p_adjusted = Some(pa);
        if d.differs() && pa <= ALPHA {
            cell.significant = true;
            cell.better_than_first = Some(match better {
                Better::Lower => d == Decision::Lower,
                Better::Higher => d == Decision::Higher,
            });
            significant_per_run[i] += 1;
        }
    }
    significant_per_run
}

/// Per run, the differing conditions `keep` selects, in words.
fn listed(diffs: &[Vec<(String, Affects)>], keep: impl Fn(Affects) -> bool) -> Vec<Vec<String>> {
    diffs
        .iter()
        .map(|d| {
            d.iter()
                .filter(|x| keep(x.1))
                .map(|x| x.0.clone())
                .collect()
        })
        .collect()
}

/// Compares runs recorded under `conditions` (one per run); the first is the reference.
pub fn compare_with(runs: &[RunMetrics], conditions: &[Conditions]) -> Comparison {
    let none = Conditions::default();
    let first_cond = conditions.first().unwrap_or(&none);
    let diffs: Vec<Vec<(String, Affects)>> = (0..runs.len())
        .map(|i| match i {
            0 => vec![],
            _ => conditions.get(i).unwrap_or(&none).differences(first_cond),
        })
        .collect();
    let find = |r: &RunMetrics, key: &str| r.metrics.iter().find(|m| m.key == key).cloned();
    let any_vm = runs.iter().any(|r| r.virtual_machine);
    let mut rows = Vec::new();
    // (row, run, decision) of every judged cell, for the Holm family.
    let mut judged: Vec<(usize, usize, Decision)> = Vec::new();
    for (key, label, unit, better) in row_keys(runs) {
        let first = runs.first().and_then(|r| find(r, &key));
        let mut cells = Vec::new();
        for (i, r) in runs.iter().enumerate() {
            cells.push(find(r, &key).map(|m| {
                let (c, d) = cell(&key, first.as_ref(), &m, i, (&runs[0], r), &diffs[i]);
                if let Some(d) = d {
                    judged.push((rows.len(), i, d));
                }
                c
            }));
        }
        rows.push(Row {
            margin: margin_for(&key, any_vm),
            key,
            label,
            unit,
            better,
            cells,
        });
    }
    let significant_per_run = holm_pass(&mut rows, &judged, runs.len());
    let common_metrics = rows
        .iter()
        .filter(|r| r.cells.iter().all(|c| c.is_some()))
        .count();
    let comparable_cells = rows
        .iter()
        .flat_map(|r| r.cells.iter().skip(1))
        .filter(|c| c.as_ref().is_some_and(|c| c.ratio_to_first.is_some()))
        .count();
    let too_little_compared = too_little(&rows, comparable_cells, judged.len());
    let (outliers, outlier_hosts) = if runs.len() >= MIN_FLEET {
        fleet_outliers(runs, &rows)
    } else {
        (Vec::new(), Vec::new())
    };
    Comparison {
        runs: runs.iter().map(|r| r.name.clone()).collect(),
        rows,
        common_metrics,
        differs: significant_per_run.iter().any(|&n| n > 0),
        significant_per_run,
        not_comparable: listed(&diffs, |a| a != Affects::Nothing),
        stated_differences: listed(&diffs, |a| a == Affects::Nothing),
        comparable_cells,
        too_little_compared,
        judged: judged.len(),
        margin: PRACTICAL_MARGIN,
        alpha: ALPHA,
        outliers,
        outlier_hosts,
    }
}

/// The sentence `compare` says first when fewer than [`MIN_COMPARED_SHARE`] of the cells that
/// have a counterpart were judged: how many, and the commonest reasons with their counts.
fn too_little(rows: &[Row], comparable: usize, judged: usize) -> Option<String> {
    if comparable > 0 && judged as f64 >= MIN_COMPARED_SHARE * comparable as f64 {
        return None;
    }
    let mut reasons: Vec<(String, usize)> = Vec::new();
    let cells = rows.iter().flat_map(|r| r.cells.iter().skip(1).flatten());
    for w in cells.filter_map(|c| c.not_judged.as_deref()) {
        // "disturbed in b", "interval wider than +-10 % in b" and "not comparable: ..." count
        // by their kind.
        let kind = w.split([':', ';']).next().unwrap_or(w);
        let kind = kind.split(" in ").next().unwrap_or(kind).to_string();
        match reasons.iter_mut().find(|r| r.0 == kind) {
            Some(r) => r.1 += 1,
            None => reasons.push((kind, 1)),
        }
    }
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    let why: Vec<String> = reasons
        .iter()
        .take(4)
        .map(|(w, n)| format!("{n} {w}"))
        .collect();
    Some(if comparable == 0 {
        "nothing could be compared: the runs have no figure in common".to_string()
    } else {
        format!(
            "only {judged} of {comparable} figure(s) could be compared (at least {:.0} % are needed to call the runs alike): {}",
            MIN_COMPARED_SHARE * 100.0,
            why.join("; ")
        )
    })
}

/// How runs are named in a comparison or a fleet: by host, with the file name where hosts
/// repeat, and the whole path where host and file name both repeat (`a/results.json`,
/// `b/results.json`). `runs` gives each run's path and host.
pub fn run_names(runs: &[(&std::path::Path, &str)]) -> Vec<String> {
    let mut n: Vec<String> = runs
        .iter()
        .map(|(p, host)| {
            if runs.iter().filter(|(_, o)| o == host).count() > 1 {
                let file = p
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{host} ({file})")
            } else {
                host.to_string()
            }
        })
        .collect();
    // Decided on the names as first made, so every one of a repeated name gets its path.
    let repeated: Vec<bool> = (0..n.len())
        .map(|i| n.iter().filter(|m| **m == n[i]).count() > 1)
        .collect();
    for (i, r) in repeated.into_iter().enumerate() {
        if r {
            n[i] = format!("{} ({})", runs[i].1, runs[i].0.display());
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::compare::*;
    use crate::stats::{Interval, Summary};

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
            // The recorded spread stands in for the interval in these hand-made runs.
            ci: Some(Interval {
                low,
                high,
                level: 0.96,
            }),
            samples: 9,
            disturbed: false,
            condition: None,
        }
    }

    /// A metric summarised from 9 samples of `truth` with relative noise `noise`.
    fn noisy(key: &str, truth: f64, noise: f64, rng: &mut crate::stats::sim::Rng) -> Metric {
        let v: Vec<f64> = (0..9)
            .map(|_| truth * (1.0 + noise * rng.normal()))
            .collect();
        Metric::from_summary(
            key.into(),
            key.into(),
            "MB/s",
            Better::Higher,
            &Summary::of(&v).unwrap(),
        )
    }

    fn run(name: &str, metrics: Vec<Metric>) -> RunMetrics {
        RunMetrics {
            name: name.into(),
            metrics,
            verdict: None,
            virtual_machine: false,
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
        // (value, low, high) of bw/cpu0, bw/cpu1, lat/cpu0, lat/cpu1.
        let opteron = |name: &str, f: [(f64, f64, f64); 4]| {
            let keys = [
                ("bw/cpu0", Better::Higher),
                ("bw/cpu1", Better::Higher),
                ("lat/cpu0", Better::Lower),
                ("lat/cpu1", Better::Lower),
            ];
            let ms = keys.iter().zip(f);
            run(
                name,
                ms.map(|(&(k, b), (v, l, h))| m(k, b, v, l, h)).collect(),
            )
        };
        let off = opteron(
            "interleave off",
            [
                (6286.0, 6283.0, 6289.0),
                (3116.0, 3114.0, 3118.0),
                (45.6, 45.6, 48.3),
                (70.9, 70.9, 74.7),
            ],
        );
        let on = opteron(
            "interleave on",
            [
                (4211.0, 4208.0, 4214.0),
                (4217.0, 4214.0, 4220.0),
                (57.5, 57.5, 60.5),
                (58.0, 58.0, 60.2),
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
        runs[2].metrics[0].ci = Some(Interval::new(106.0, 106.0));
        let c = compare(&runs);
        assert_eq!(c.outlier_hosts[0].run, "h2");
        assert_eq!(c.outliers[0].robust_z, None);
    }

    /// Two runs of one configuration, 40 metrics with 5 % noise each: nothing
    /// differs beyond noise once the family is controlled (the old rule found "6 significant
    /// differences" between two identical quick runs).
    #[test]
    fn aa_runs_show_no_difference_over_many_metrics() {
        let mut rng = crate::stats::sim::Rng::new(19);
        let mut declared = 0;
        for _ in 0..50 {
            let a = run(
                "a",
                (0..40)
                    .map(|k| noisy(&format!("m{k}"), 1000.0 + k as f64, 0.05, &mut rng))
                    .collect(),
            );
            let b = run(
                "b",
                (0..40)
                    .map(|k| noisy(&format!("m{k}"), 1000.0 + k as f64, 0.05, &mut rng))
                    .collect(),
            );
            let c = compare(&[a, b]);
            // Every figure is judged, but for the odd one whose 9 samples gave an interval
            // wider than +-10 % (such a figure is not judged).
            let wide = c.rows.iter().filter(|r| {
                let w = r.cells[1].as_ref().and_then(|c| c.not_judged.as_deref());
                w.is_some_and(|w| w.starts_with("interval wider than"))
            });
            assert_eq!(c.judged + wide.count(), 40);
            declared += c.differs as usize;
        }
        assert!(
            declared <= 3,
            "{declared} of 50 A/A comparisons declared a difference"
        );
    }

    #[test]
    fn halved_bandwidth_is_named_and_missing_intervals_are_not_judged() {
        let mut rng = crate::stats::sim::Rng::new(5);
        let a = run(
            "a",
            (0..10)
                .map(|k| noisy(&format!("m{k}"), 1000.0, 0.03, &mut rng))
                .collect(),
        );
        let mut b = run(
            "b",
            (0..10)
                .map(|k| {
                    noisy(
                        &format!("m{k}"),
                        if k == 3 { 500.0 } else { 1000.0 },
                        0.03,
                        &mut rng,
                    )
                })
                .collect(),
        );
        let c = compare(&[a.clone(), b.clone()]);
        assert!(c.differs);
        assert_eq!(c.significant_per_run, vec![0, 1]);
        let cell = c.rows[3].cells[1].as_ref().unwrap();
        assert!(cell.significant && cell.better_than_first == Some(false));
        assert!(cell.p_adjusted.unwrap() <= ALPHA);
        // An older file without intervals: shown, not judged.
        for m in b.metrics.iter_mut() {
            m.ci = None;
        }
        let c = compare(&[a, b]);
        assert!(!c.differs && c.judged == 0);
        assert_eq!(
            c.rows[3].cells[1].as_ref().unwrap().not_judged.as_deref(),
            Some("no interval")
        );
    }

    #[test]
    fn different_conditions_are_not_comparable_for_the_affected_metrics() {
        let a = run(
            "a",
            vec![
                m(
                    "latency-sweep/random/4k/1",
                    Better::Lower,
                    100.0,
                    99.0,
                    101.0,
                ),
                m("bandwidth/x", Better::Higher, 1000.0, 990.0, 1010.0),
            ],
        );
        let b = run(
            "b",
            vec![
                m(
                    "latency-sweep/random/4k/1",
                    Better::Lower,
                    150.0,
                    149.0,
                    151.0,
                ),
                m("bandwidth/x", Better::Higher, 500.0, 490.0, 510.0),
            ],
        );
        let cond = |budget: &str, kernel: &str| Conditions {
            budget: Some(budget.into()),
            kernel: Some(kernel.into()),
            thp: Some("madvise".into()),
            host: Some("h".into()),
            cpu_model: None,
        };
        // Budgets differ: the sweep is not judged, bandwidth still is.
        let c = compare_with(
            &[a.clone(), b.clone()],
            &[cond("default", "6.1"), cond("quick", "6.1")],
        );
        let sweep = c.rows[0].cells[1].as_ref().unwrap();
        assert_eq!(
            sweep.not_judged.as_deref(),
            Some("not comparable: budget quick vs default")
        );
        assert!(!sweep.significant);
        assert!(c.rows[1].cells[1].as_ref().unwrap().significant);
        assert_eq!(c.not_comparable[1], vec!["budget quick vs default"]);
        // Kernel versions differ: nothing is judged, and that is said first.
        let c = compare_with(
            &[a.clone(), b.clone()],
            &[cond("default", "6.1.0-1"), cond("default", "6.9.2-1")],
        );
        assert!(!c.differs && c.judged == 0);
        assert!(c.too_little_compared.is_some());
        assert_eq!(c.not_comparable[1], vec!["kernel 6.9.2-1 vs 6.1.0-1"]);
        // Only the build string differs: stated, and every figure is judged.
        let c = compare_with(
            &[a, b],
            &[
                cond("default", "6.18.44-fc-v595"),
                cond("default", "6.18.44-fc-v657"),
            ],
        );
        assert!(c.differs && c.judged == 2 && c.too_little_compared.is_none());
        assert!(c.not_comparable[1].is_empty());
        assert!(c.stated_differences[1][0].starts_with(
            "kernel build 6.18.44-fc-v657 vs 6.18.44-fc-v595 (the same version 6.18.44"
        ));
    }

    /// Three runs of one configuration made every run an outlier.
    #[test]
    fn three_noisy_runs_of_one_configuration_have_no_outliers() {
        let mut rng = crate::stats::sim::Rng::new(3);
        let runs: Vec<RunMetrics> = (0..3)
            .map(|i| {
                run(
                    &format!("r{i}"),
                    (0..30)
                        .map(|k| noisy(&format!("m{k}"), 1000.0, 0.1, &mut rng))
                        .collect(),
                )
            })
            .collect();
        let c = compare(&runs);
        assert!(c.outliers.is_empty() && c.outlier_hosts.is_empty());
        // Four or more: a run whose intervals agree with the fleet is no outlier either.
        let mut runs = runs;
        runs.push(run(
            "r3",
            (0..30)
                .map(|k| noisy(&format!("m{k}"), 1000.0, 0.1, &mut rng))
                .collect(),
        ));
        let c = compare(&runs);
        assert!(c.outlier_hosts.len() <= 1, "{:?}", c.outlier_hosts);
    }

    /// A disturbed figure, or any figure of a noisy or unusable run, cannot support a
    /// difference: shown with the reason, never judged, so a busy machine never "differs".
    #[test]
    fn disturbed_figures_and_noisy_runs_are_not_judged() {
        use crate::results::verdict::Verdict;
        let a = || {
            run(
                "a",
                vec![m("latency-matrix/0->0", Better::Lower, 100.0, 99.0, 101.0)],
            )
        };
        let b = || {
            run(
                "b",
                vec![m("latency-matrix/0->0", Better::Lower, 200.0, 198.0, 202.0)],
            )
        };
        // Quiet and undisturbed: a doubling is a difference.
        assert!(compare(&[a(), b()]).differs);
        let mut d = b();
        d.metrics[0].disturbed = true;
        let c = compare(&[a(), d]);
        let cell = c.rows[0].cells[1].as_ref().unwrap();
        assert!(!c.differs && c.judged == 0);
        assert_eq!(cell.not_judged.as_deref(), Some("disturbed in b"));
        // The run's verdict does not set its narrow figures aside...
        for v in [Verdict::Noisy, Verdict::Unusable] {
            let mut first = a();
            first.verdict = Some(v);
            assert!(compare(&[first, b()]).differs);
        }
        // ...a figure's own wide interval does, and nothing compared is said first.
        let mut wide = b();
        wide.metrics[0].ci = Some(Interval::new(150.0, 260.0));
        let c = compare(&[a(), wide]);
        assert!(!c.differs && c.judged == 0);
        assert_eq!(
            c.rows[0].cells[1].as_ref().unwrap().not_judged.as_deref(),
            Some("interval wider than +-10 % in b")
        );
        assert_eq!(
            c.too_little_compared.as_deref(),
            Some("only 0 of 1 figure(s) could be compared (at least 25 % are needed to call the runs alike): 1 interval wider than +-10 %")
        );
        let mut quiet = b();
        quiet.verdict = Some(Verdict::Quiet);
        assert!(compare(&[a(), quiet]).differs);
    }

    /// Between-run floors: the intervals see only the variation inside a run. In a VM a 30 %
    /// latency difference between two runs is not called, 60 % is; on bare metal 30 % is.
    /// Core to core between virtual CPUs is never compared.
    #[test]
    fn between_run_floors_widen_the_margin_and_vms_do_not_compare_c2c() {
        let pair = |vm: bool, ratio: f64, key: &str| {
            let mut a = run("a", vec![m(key, Better::Lower, 100.0, 99.0, 101.0)]);
            let v = 100.0 * ratio;
            let mut b = run("b", vec![m(key, Better::Lower, v, v * 0.99, v * 1.01)]);
            a.virtual_machine = vm;
            b.virtual_machine = false;
            compare(&[a, b])
        };
        let lat = "latency-matrix/0->0";
        assert!(pair(false, 1.3, lat).differs);
        let c = pair(true, 1.3, lat);
        assert!(!c.differs && c.judged == 1);
        assert_eq!(c.rows[0].margin, 0.40);
        assert!(c.rows[0].cells[1].as_ref().unwrap().within.unwrap() > 0.3);
        assert!(pair(true, 1.6, lat).differs);
        assert!(pair(true, 1.6, "bandwidth/x").differs);
        assert!(!pair(true, 1.4, "bandwidth/x").differs);
        // c2c: 10 % floor on bare metal, not compared in a VM whatever the ratio.
        assert!(!pair(false, 1.08, "c2c/SMT siblings").differs);
        assert!(pair(false, 1.2, "c2c/SMT siblings").differs);
        let c = pair(true, 1.02, "c2c/SMT siblings");
        assert!(!c.differs && c.judged == 0);
        assert_eq!(
            c.rows[0].cells[1].as_ref().unwrap().not_judged,
            Some(format!("not comparable: {VM_C2C}"))
        );
        assert!(crate::render::words::compare::vm_c2c_differences(&c).is_empty());
        // A VM's c2c difference is not silenced: it is said with its likely cause,
        // and stays out of the exit status.
        let c = pair(true, 3.0, "c2c/SMT siblings");
        assert!(!c.differs && c.judged == 0);
        assert_eq!(
            c.rows[0].cells[1].as_ref().unwrap().not_judged,
            Some(format!(
                "not comparable: core to core differs x3.00 beyond both runs' intervals; {VM_C2C_CAUSE}"
            ))
        );
        assert_eq!(
            crate::render::words::compare::vm_c2c_differences(&c),
            vec![format!(
                "b: c2c/SMT siblings: x3.00 beyond both runs' intervals; {VM_C2C_CAUSE}"
            )]
        );
        assert_eq!(margin_for("scenario/a", false), 0.05);
        assert_eq!(between_run_floor("c2c/x", true), None);
    }
}
