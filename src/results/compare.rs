//! The contract of `numascope compare`: the metrics pulled from each saved run, the rows,
//! cells and fleet outliers of a comparison, as serde types (`compare --json` prints
//! [`Comparison`]). The judging itself is `crate::compare`; the text renderer reads these
//! types only.

use serde::{Deserialize, Serialize};

use crate::stats::{Estimate, Interval, Summary};

/// Fewest runs for fleet outliers: with three, the MAD is one of two deviations.
pub const MIN_FLEET: usize = 4;

/// The floors of `crate::compare::between_run_floor` in words, for the compare output and its help.
pub const FLOORS_TEXT: &str = "its between-run floor (bare metal: latency and bandwidth 5 %, core to core 10 %; in a VM: latency 40 %, bandwidth 50 %, core to core not compared)";

/// Fewest compared figures, as a share of the figures both runs have, below which `compare`
/// says first that too little could be compared and exits 4 (when nothing differs).
pub const MIN_COMPARED_SHARE: f64 = 0.25;

/// Which direction is better for a metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The 95 % interval for the median and its exact coverage, when the run recorded one
    /// (keys `ci_low`, `ci_high`, `ci_level`, absent without one).
    #[serde(flatten)]
    pub ci: Option<Interval>,
    /// Repetitions behind the figure (0 when unknown).
    pub samples: usize,
    /// Its engine marked it disturbed (the retakes ran out): shown, never judged.
    pub disturbed: bool,
    /// The conditions it was measured under, in words (`256 MiB, 4k pages, 2 threads`), when
    /// they may differ between runs of one key: two runs whose conditions differ are "not
    /// comparable" for this metric. `None`: nothing beyond the key and the run's conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl Metric {
    /// A metric from a summary: median, min..max spread and the interval.
    pub fn from_summary(
        key: String,
        label: String,
        unit: &str,
        better: Better,
        s: &Summary,
    ) -> Metric {
        Metric {
            key,
            label,
            unit: unit.into(),
            better,
            value: s.median,
            low: s.min,
            high: s.max,
            ci: s.ci,
            samples: s.samples,
            disturbed: false,
            condition: None,
        }
    }

    /// The same metric measured under `condition` (see the field).
    pub fn under(mut self, condition: String) -> Metric {
        self.condition = Some(condition);
        self
    }

    /// The headline with its interval and count, for the one formatter.
    pub const fn estimate(&self) -> Estimate {
        Estimate::new(self.value, self.ci, self.samples)
    }
}

/// The conditions of a run that decide whether its figures compare with another's.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Conditions {
    /// `quick`, `default`, `thorough`.
    pub budget: Option<String>,
    pub kernel: Option<String>,
    /// Transparent huge pages mode (`always`, `madvise`, `never`).
    pub thp: Option<String>,
    pub host: Option<String>,
    /// The CPU model: another model is stated (the figures belong to another machine, which is
    /// what a comparison of two machines is for), not a reason to set figures aside.
    pub cpu_model: Option<String>,
}

impl Conditions {
    /// The conditions recorded in a results file.
    pub fn of(r: &super::RunResults) -> Conditions {
        let env = &r.topology.environment;
        Conditions {
            budget: Some(r.plan.budget.name().to_string()),
            kernel: env.kernel_release.clone(),
            thp: env.thp_enabled.clone(),
            host: Some(r.host.clone()),
            cpu_model: env.cpu_model.clone(),
        }
    }

    /// Conditions that differ from `first`, each with the figures it keeps from being compared.
    /// The budget affects only the latency sweep (its sizes depend on it); the kernel version
    /// (`6.18.44`), THP mode and host affect every figure; a kernel that differs only in its
    /// build string (`6.18.44-fc-v595` vs `6.18.44-fc-v657`: the same version, another build)
    /// affects none and is stated ([`Affects::Nothing`]).
    pub fn differences(&self, first: &Conditions) -> Vec<(String, Affects)> {
        let mut v = Vec::new();
        let check = |v: &mut Vec<(String, Affects)>,
                     name: &str,
                     a: &Option<String>,
                     b: &Option<String>,
                     what: Affects| {
            if let (Some(a), Some(b)) = (a, b) {
                if a != b {
                    v.push((format!("{name} {a} vs {b}"), what));
                }
            }
        };
        check(
            &mut v,
            "budget",
            &self.budget,
            &first.budget,
            Affects::Sweep,
        );
        match (&self.kernel, &first.kernel) {
            (Some(a), Some(b)) if a != b && kernel_version(a) == kernel_version(b) => v.push((
                format!(
                    "kernel build {a} vs {b} (the same version {}; stated, not a reason to set figures aside)",
                    kernel_version(a)
                ),
                Affects::Nothing,
            )),
            _ => check(&mut v, "kernel", &self.kernel, &first.kernel, Affects::All),
        }
        check(&mut v, "THP mode", &self.thp, &first.thp, Affects::All);
        check(&mut v, "host", &self.host, &first.host, Affects::All);
        check(
            &mut v,
            "CPU model",
            &self.cpu_model,
            &first.cpu_model,
            Affects::Nothing,
        );
        v
    }
}

/// Which figures a differing condition keeps from being compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Affects {
    /// Every figure.
    All,
    /// The latency sweep (its sizes).
    Sweep,
    /// None: the difference is stated only.
    Nothing,
}

/// The version part of a kernel release: its leading digits and dots (`6.18.44` of
/// `6.18.44-fc-v657`); the rest is the build (local version, distribution suffix). A release
/// that does not start with a digit is its own version.
pub fn kernel_version(release: &str) -> &str {
    let end = release
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(release.len());
    let v = release[..end].trim_end_matches('.');
    if v.is_empty() {
        release
    } else {
        v
    }
}

/// The metrics of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMetrics {
    /// How the run is named in the comparison (host name, or file name when hosts repeat).
    pub name: String,
    pub metrics: Vec<Metric>,
    /// The run's own verdict; a noisy or unusable run is shown, not judged. `None` for files
    /// written before verdicts.
    pub verdict: Option<super::verdict::Verdict>,
    /// The run measured inside a virtual machine: the wider between-run floors apply.
    pub virtual_machine: bool,
}

/// One run's value of a compared metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    /// The interval for the median, when the run recorded one (keys `ci_low`, `ci_high`,
    /// `ci_level`).
    #[serde(flatten)]
    pub ci: Option<Interval>,
    /// Repetitions behind the value (0 when unknown).
    pub samples: usize,
    /// value / the first run's value; `None` for the first run or when the first has none.
    pub ratio_to_first: Option<f64>,
    /// Conservative interval of that ratio from both runs' intervals (keys `ratio_ci_low`,
    /// `ratio_ci_high`, `ratio_ci_level`: at least the product of the two coverages).
    #[serde(flatten, with = "crate::stats::estimate::ratio_keys")]
    pub ratio_ci: Option<Interval>,
    /// p-value of the difference (normal approximation from the intervals), and after Holm's
    /// adjustment over every judged cell of the comparison.
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    /// Why the cell was not judged (`no interval`, `not comparable: budget quick vs default`).
    pub not_judged: Option<String>,
    /// "within +-x %" when judged and not different.
    pub within: Option<f64>,
    /// Differs from the first run beyond both intervals and the margin, after Holm.
    pub significant: bool,
    /// When significant: true if this run is better than the first.
    pub better_than_first: Option<bool>,
}

impl Cell {
    /// The run's value with its interval and count, for the one formatter.
    pub const fn estimate(&self) -> Estimate {
        Estimate::new(self.value, self.ci, self.samples)
    }

    /// The ratio to the first run with its interval; `None` for the first run.
    pub fn ratio_estimate(&self) -> Option<Estimate> {
        self.ratio_to_first
            .map(|r| Estimate::new(r, self.ratio_ci, self.samples))
    }
}

/// One metric across runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: String,
    pub better: Better,
    /// The smallest relative difference this metric may be called at: the larger of the
    /// practical margin and its between-run floor (`crate::compare::between_run_floor`).
    pub margin: f64,
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
    /// Conditions in which each run differs from the first that keep figures from being
    /// compared (empty for the first).
    pub not_comparable: Vec<Vec<String>>,
    /// Conditions in which each run differs from the first that are stated only (a kernel
    /// build string); empty for the first.
    pub stated_differences: Vec<Vec<String>>,
    /// Cells that have a counterpart in the first run (every cell of a later run whose metric
    /// the first run also has): the figures that could have been compared.
    pub comparable_cells: usize,
    /// Set when fewer than [`MIN_COMPARED_SHARE`] of those cells were judged (none at all
    /// included): why, in one sentence, said first in the text; `compare` exits 4 when
    /// nothing differs.
    pub too_little_compared: Option<String>,
    /// Cells judged (both intervals present, conditions comparable): the Holm family.
    pub judged: usize,
    /// True when any difference beyond noise was found (`compare` exits 1).
    pub differs: bool,
    /// The practical margin and family-wise level used, as fractions.
    pub margin: f64,
    pub alpha: f64,
    /// Fleet outliers (3+ runs only).
    pub outliers: Vec<Outlier>,
    /// Hosts with outlying figures, most first (3+ runs only).
    pub outlier_hosts: Vec<OutlierHost>,
}

/// The likely cause of a core-to-core difference between two runs in a virtual machine;
/// `compare` ends such a cell's `not_judged` reason with it.
pub const VM_C2C_CAUSE: &str =
    "likely cause: the host placed the vCPUs on other host cores in each run (not a property of the machine, so not counted)";
