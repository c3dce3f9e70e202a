//! The contract of `numascope fleet`: the hosts of a fleet (one saved run each), the hardware
//! groups they fall into, per group and metric the median, the robust spread and the hosts
//! that stand out, and each host's standing (alike, outlier, noisy, different hardware or
//! environment). `fleet --json` prints [`FleetReport`]; the judging is `crate::fleet`, the
//! text, CSV and HTML renderers read these types only. Documented in docs/fleet.md.

use serde::{Deserialize, Serialize};

use super::compare::Better;

/// Schema version of [`FleetReport`].
/// 2: figures judged one by one (`not_judged` per host, `kernel_releases`,
/// `baseline`, envelopes); the `kernel` of a group is the kernel version, not the release.
pub const FLEET_SCHEMA_VERSION: u32 = 2;

/// How one host stands in its fleet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Judged; no figure stands out.
    Alike,
    /// Judged; at least one figure stands out from its group beyond the host's own interval.
    Outlier,
    /// None of its figures could be judged (each was disturbed or its interval too wide):
    /// shown, not judged (rerun it on an idle host).
    Noisy,
    /// Other hardware or topology than the fleet's largest group (CPU model, node count, memory
    /// per node, kernel): compared only within its own group.
    DifferentHardware,
    /// Same hardware, other environment (THP mode, numa_balancing): shown, not judged.
    DifferentEnvironment,
    /// Checked against a baseline that has no group for its hardware: shown, not judged.
    NoBaseline,
}

impl Standing {
    pub fn label(self) -> &'static str {
        match self {
            Standing::Alike => "alike",
            Standing::Outlier => "outlier",
            Standing::Noisy => "noisy",
            Standing::DifferentHardware => "different-hardware",
            Standing::DifferentEnvironment => "different-environment",
            Standing::NoBaseline => "no-baseline",
        }
    }
}

/// What puts hosts into one group: figures are compared only within a group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hardware {
    pub cpu_model: Option<String>,
    /// NUMA nodes with memory (an NPS or SNC mode changes it).
    pub memory_nodes: usize,
    /// Memory per node, GiB rounded, in node order.
    pub memory_per_node_gib: Vec<u64>,
    /// The kernel version (`6.18.44` of `6.18.44-fc-v657`): another build of one version is
    /// the same group, stated in [`HardwareGroup::kernel_releases`].
    pub kernel: Option<String>,
}

/// How many of a host's figures were not judged for one reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NotJudged {
    /// `interval wider than +-10 %`, `disturbed`, `no interval`, `fewer than 4 hosts of its
    /// group could judge it`, ...
    pub reason: String,
    pub figures: usize,
}

/// One host (one results.json).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FleetHost {
    /// How the host is named in the report (host name, or host and directory when hosts repeat).
    pub name: String,
    /// The results file read.
    pub path: String,
    /// Index into [`FleetReport::groups`].
    pub group: usize,
    /// The run's own verdict (`quiet`, `noisy`, `unusable`), `None` for files without one.
    pub verdict: Option<String>,
    pub partial: bool,
    pub thp: Option<String>,
    pub numa_balancing: Option<u32>,
    /// The full kernel release (`6.18.44-fc-v657`).
    pub kernel_release: Option<String>,
    pub standing: Standing,
    /// Why: the differing conditions, or the outlying figures, in words.
    pub reasons: Vec<String>,
    /// Figures of this host that stand out from its group (0 unless an outlier).
    pub outlying_metrics: usize,
    /// Figures of this host that were judged.
    pub judged_metrics: usize,
    /// The figures that were not judged, counted by reason (most first).
    pub not_judged: Vec<NotJudged>,
}

/// A group of hosts with the same hardware.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HardwareGroup {
    pub hardware: Hardware,
    /// Host names in the group.
    pub hosts: Vec<String>,
    /// Hosts whose figures were judged (not noisy, same environment as most).
    pub judged_hosts: usize,
    /// The environment most of the group runs with: THP mode and numa_balancing.
    pub thp: Option<String>,
    pub numa_balancing: Option<u32>,
    /// How this group differs from the largest (empty for the largest group itself).
    pub differs_from_largest: Vec<String>,
    /// Why no outliers were looked for, when none were (`fewer than 4 judged hosts`).
    pub not_judged: Option<String>,
    /// The kernel releases in the group when more than one (builds of one version: stated).
    pub kernel_releases: Vec<String>,
}

/// A figure of one host that stands out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FleetOutlier {
    pub host: String,
    pub value: f64,
    /// value / the group median.
    pub ratio_to_median: f64,
    /// |value - median| / (1.4826 MAD); `None` when the MAD is 0.
    pub robust_z: Option<f64>,
    /// True when the deviation is in the bad direction (slower, less bandwidth).
    pub worse: bool,
}

/// One metric within one group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FleetMetric {
    pub group: usize,
    /// The key `compare` uses (`bandwidth-matrix/read/0->0`).
    pub key: String,
    pub label: String,
    pub unit: String,
    pub better: Better,
    /// Judged hosts with this figure.
    pub hosts: usize,
    pub median: f64,
    /// Median absolute deviation, in the metric's unit.
    pub mad: f64,
    /// 1.4826 MAD / median: the robust relative spread (0.02 = 2 %).
    pub spread_fraction: f64,
    pub min: f64,
    pub max: f64,
    /// Every host's value in the group (judged or not), in host order: (host, value).
    pub values: Vec<(String, f64)>,
    pub outliers: Vec<FleetOutlier>,
    /// Checked against a baseline: its envelope (low, high); `median` is its expected value.
    pub envelope: Option<(f64, f64)>,
}

/// The whole fleet verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FleetReport {
    pub schema_version: u32,
    pub hosts: Vec<FleetHost>,
    /// Groups, the largest first.
    pub groups: Vec<HardwareGroup>,
    pub metrics: Vec<FleetMetric>,
    /// Names of hosts with [`Standing::Outlier`], most outlying figures first.
    pub outlier_hosts: Vec<String>,
    /// Robust z above which a figure stands out, and the smallest relative difference flagged.
    pub outlier_z: f64,
    pub min_relative_difference: f64,
    /// Widest interval half-width, relative to its median, of a figure that is judged.
    pub max_interval_half_width: f64,
    /// The baseline file the hosts were checked against, when one was given.
    pub baseline: Option<String>,
}

impl FleetReport {
    /// True when some host stands out (`fleet` exits 1).
    pub fn has_outliers(&self) -> bool {
        !self.outlier_hosts.is_empty()
    }

    /// True when no figure of any host could be judged (`fleet` exits 4 then): too few
    /// hosts per group, or every figure disturbed or too wide
    /// (`render::words::fleet::nothing_judged` says why).
    pub fn nothing_judged(&self) -> bool {
        !self.hosts.iter().any(|h| h.judged_metrics > 0) && !self.has_outliers()
    }

    /// The hosts with a standing.
    pub fn with_standing(&self, s: Standing) -> impl Iterator<Item = &FleetHost> {
        self.hosts.iter().filter(move |h| h.standing == s)
    }
}

/// Schema version of [`Baseline`] (docs/schema/baseline.md).
pub const BASELINE_SCHEMA_VERSION: u32 = 1;
/// What a baseline file says it is, so another JSON file is refused by name.
pub const BASELINE_FORMAT: &str = "numascope-fleet-baseline";

/// A fleet's expected figures, saved by `fleet --save-baseline FILE` and checked by `fleet
/// --baseline FILE` and `compare --baseline FILE`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub format: String,
    pub schema_version: u32,
    /// numascope version that saved it.
    pub tool_version: String,
    /// The hosts whose figures it was made from.
    pub hosts: Vec<String>,
    pub groups: Vec<BaselineGroup>,
}

/// One hardware group of a baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineGroup {
    pub hardware: Hardware,
    /// The environment most of the group ran with; a host with another is not checked.
    pub thp: Option<String>,
    pub numa_balancing: Option<u32>,
    pub hosts: usize,
    pub figures: Vec<BaselineFigure>,
}

/// One figure's expected value and envelope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineFigure {
    pub key: String,
    pub label: String,
    pub unit: String,
    pub better: Better,
    /// The group median of the judged hosts (outliers left out).
    pub expected: f64,
    /// The envelope: expected +- the largest of 3 x 1.4826 MAD, 5 % of expected and the
    /// median of the hosts' own interval half-widths.
    pub low: f64,
    pub high: f64,
    /// Hosts behind it.
    pub hosts: usize,
}
