//! Declared against measured: the last-level cache size the kernel reports (from CPUID or
//! firmware tables; in a virtual machine, whatever the hypervisor chose to declare) checked
//! against the working-set curve the run measured. When the curve leaves the last-level
//! cache's plateau at a quarter of the declared size or less, the run says so as a finding:
//! the process gets only a slice of that cache at cache speed (a VM's share of a larger
//! cache, a partitioned cache, other tenants' data), and working sets should be sized by the
//! measured figure. Pure function over finished results; nothing measured here.
//!
//! The claim is only made from a curve that can carry it: a random walk with one chain whose
//! points around the knee were not disturbed (another program on the CPU moves knees). A
//! huge-page curve is preferred, because with 4 KiB pages the TLB's reach can end before the
//! cache does and step the curve by itself; when only base pages were measured the sentence
//! names that other cause and the command that tells them apart.

use crate::results::latency::{CurveKnees, LatencyReport, LatencyResult, Mode, SweepCurve};
use crate::results::placement::PageSize;
use crate::results::{findings::Finding, RunResults};
use crate::stats::decide::{unpaired_ratio, Decision, PRACTICAL_MARGIN};

/// A knee at or below this fraction of the declared size contradicts the declaration.
pub const CONTRADICTION_FRACTION: f64 = 0.25;
/// A curve counts as huge-paged where its points at and beyond 1 MiB got at least this
/// fraction of huge pages.
const HUGE_ENOUGH: f64 = 0.9;

/// The finding, when the curve contradicts the declared last-level cache size.
pub fn declared_vs_measured(r: &RunResults) -> Vec<Finding> {
    let Some(l) = &r.latency else {
        return Vec::new();
    };
    let Some((curve, knees, huge)) = best_curve(l) else {
        return Vec::new();
    };
    let Some(at) = knees.levels.iter().rposition(|k| k.sysfs_bytes.is_some()) else {
        return Vec::new();
    };
    let llc = &knees.levels[at];
    let Some(declared) = llc.sysfs_bytes.filter(|&d| d > 0) else {
        return Vec::new();
    };
    // Where the curve leaves the level: its plateau's knee, else (no plateau: the level's
    // latency rises within it) the last point before halfway to memory's latency.
    let lower = at
        .checked_sub(1)
        .and_then(|i| knees.levels[i].sysfs_bytes)
        .unwrap_or(0);
    let (edge, next) = match llc.knee_bytes {
        Some(k) => (k, None),
        None => match midpoint_edge(curve, lower, declared) {
            Some((e, n)) => (e, Some(n)),
            None => return Vec::new(),
        },
    };
    if edge as f64 > CONTRADICTION_FRACTION * declared as f64 {
        return Vec::new();
    }
    // The points from half the edge to twice it (and up to the declared size for a knee)
    // must be undisturbed.
    let top = next.map_or(declared, |n| n.max(2 * edge).min(declared));
    let around = curve
        .points
        .iter()
        .filter(|p| p.working_set_bytes >= edge / 2 && p.working_set_bytes <= top);
    if around.clone().count() < 2 || around.clone().any(disturbed) {
        return Vec::new();
    }
    let pages = if huge {
        format!("{} pages", page_label(knees.page_size))
    } else {
        "4 KiB pages".to_string()
    };
    let leaves = match next {
        None => format!("leaves the {} plateau at {}", llc.level, bytes(edge)),
        Some(n) => format!(
            "leaves the {} level between {} and {} (halfway to memory's latency by {})",
            llc.level,
            bytes(edge),
            bytes(n),
            bytes(n)
        ),
    };
    let mut text = format!(
        "{}: the kernel declares {} but the measured latency curve (random walk, {pages}) \
         {leaves}, {:.0} % of the declared size: this CPU gets about {} of {} at {} speed (a \
         virtual machine's slice of a larger cache, a partitioned cache, or other tenants' \
         data); size working sets by the measured figure, not the declared one",
        llc.level,
        bytes(declared),
        100.0 * edge as f64 / declared as f64,
        bytes(edge),
        llc.level,
        llc.level,
    );
    if !huge {
        text.push_str(
            "; with 4 KiB pages the TLB's reach can also end there: `numascope latency --sweep \
             --page-size thp` tells the two apart",
        );
    }
    vec![Finding::info("cache-declared-vs-measured", text)]
}

/// Where a level without a plateau ends: the level's latency is the median of the points in
/// (`lower`, 2 x `lower`] (`lower`: the previous level's size), memory's is the curve's largest
/// point, which must lie at twice the declared size or beyond and be at least twice as slow
/// (the low end of its interval, when it has one); returns the last point below the geometric
/// midpoint of the two and the first at or above it, when that step is beyond noise (
/// with intervals on both points, their ratio must clear the practical margin).
fn midpoint_edge(curve: &SweepCurve, lower: u64, declared: u64) -> Option<(u64, u64)> {
    let pts = &curve.points;
    let last = pts.last()?;
    if last.working_set_bytes < 2 * declared {
        return None;
    }
    let mut near: Vec<f64> = pts
        .iter()
        .filter(|p| p.working_set_bytes > lower && p.working_set_bytes <= 2 * lower.max(1))
        .map(|p| p.ns_per_load.median)
        .collect();
    if near.len() < 2 {
        return None;
    }
    near.sort_by(f64::total_cmp);
    let level = near[near.len() / 2];
    let memory = last.ns_per_load.median;
    // "At least twice as slow" is a difference: with an interval its low end must say so.
    let memory_low = last
        .ns_per_load
        .ci
        .map(|c| c.low)
        .unwrap_or(memory)
        .min(memory);
    if !(level > 0.0 && memory_low >= 2.0 * level) {
        return None;
    }
    let mid = (level * memory).sqrt();
    let mut prev: Option<&LatencyResult> = None;
    for p in pts.iter().filter(|p| p.working_set_bytes > lower) {
        if p.ns_per_load.median >= mid {
            let e = prev?;
            // The step must be more than noise: when both points have an interval, the
            // later one must clear the earlier one by the practical margin.
            let step =
                unpaired_ratio(&e.ns_per_load, &p.ns_per_load).map(|r| r.decide(PRACTICAL_MARGIN));
            if matches!(
                step,
                Some(Decision::Indistinguishable { .. } | Decision::Lower)
            ) {
                return None;
            }
            return Some((e.working_set_bytes, p.working_set_bytes));
        }
        prev = Some(p);
    }
    None
}

/// The random one-chain curve to judge: a huge-page one whose large points really got huge
/// pages, else the base-page one. Returns the curve, its knees and whether it is huge-paged.
fn best_curve(l: &LatencyReport) -> Option<(&SweepCurve, &CurveKnees, bool)> {
    let pairs = l.sweep.iter().zip(&l.knees).filter(|(c, k)| {
        c.mode == Mode::Random && c.chains == 1 && k.mode == c.mode && k.page_size == c.page_size
    });
    let mut base = None;
    for (c, k) in pairs {
        if c.page_size == PageSize::Base {
            base = base.or(Some((c, k, false)));
        } else if huge_paged(c) {
            return Some((c, k, true));
        }
    }
    base
}

fn huge_paged(c: &SweepCurve) -> bool {
    let big: Vec<&LatencyResult> = c
        .points
        .iter()
        .filter(|p| p.working_set_bytes >= 1 << 20)
        .collect();
    !big.is_empty()
        && big
            .iter()
            .all(|p| p.huge_fraction.is_some_and(|f| f >= HUGE_ENOUGH))
}

fn disturbed(p: &LatencyResult) -> bool {
    p.quality.as_ref().is_some_and(|q| q.disturbed)
}

fn page_label(p: PageSize) -> &'static str {
    match p {
        PageSize::Base => "4 KiB",
        PageSize::Thp => "transparent huge",
        PageSize::Huge2M => "2 MiB",
        PageSize::Huge1G => "1 GiB",
    }
}

/// Binary units, whole numbers where exact (`32 MiB`, `4.8 MiB`).
fn bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if (v - v.round()).abs() < 0.05 {
        format!("{:.0} {}", v.round(), UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::latency::LevelKnee;
    use crate::results::quality::RepetitionQuality;

    const MIB: u64 = 1 << 20;

    fn point(ws: u64, page: PageSize, huge: f64, dist: bool) -> LatencyResult {
        let mut p = crate::run::sample::latency_matrix(&[(0, 0, 10.0, None)])
            .matrix
            .unwrap()
            .cells[0]
            .result
            .clone();
        p.mode = Mode::Random;
        p.working_set_bytes = ws;
        p.page_size = page;
        p.huge_fraction = Some(huge);
        p.quality = Some(RepetitionQuality {
            disturbed: dist,
            ..RepetitionQuality::default()
        });
        p
    }

    fn report(page: PageSize, huge: f64, knee: u64, dist: bool) -> LatencyReport {
        let sizes = [MIB, 2 * MIB, 4 * MIB, 8 * MIB, 16 * MIB, 32 * MIB, 64 * MIB];
        let mut l = crate::run::sample::latency_matrix(&[]);
        l.matrix = None;
        l.sweep = vec![SweepCurve {
            mode: Mode::Random,
            page_size: page,
            chains: 1,
            points: sizes.iter().map(|&s| point(s, page, huge, dist)).collect(),
        }];
        l.knees = vec![CurveKnees {
            mode: Mode::Random,
            page_size: page,
            chains: 1,
            plateaus: vec![],
            levels: vec![
                LevelKnee {
                    level: "L2".into(),
                    sysfs_bytes: Some(MIB),
                    knee_bytes: Some(MIB / 2),
                    plateau_ns: Some(4.0),
                    plateau_cycles: None,
                },
                LevelKnee {
                    level: "L3".into(),
                    sysfs_bytes: Some(32 * MIB),
                    knee_bytes: Some(knee),
                    plateau_ns: Some(12.0),
                    plateau_cycles: None,
                },
            ],
        }];
        l
    }

    fn run_with(l: LatencyReport) -> RunResults {
        let mut r = crate::run::sample::results();
        r.latency = Some(l);
        r
    }

    #[test]
    fn a_knee_at_an_eighth_of_the_declared_l3_is_a_finding_naming_both_sizes() {
        let f = declared_vs_measured(&run_with(report(PageSize::Thp, 1.0, 4 * MIB, false)));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].id, "cache-declared-vs-measured");
        assert!(f[0].text.contains("declares 32 MiB"), "{}", f[0].text);
        assert!(f[0].text.contains("at 4 MiB, 12 %"), "{}", f[0].text);
        assert!(!f[0].text.contains("TLB"), "{}", f[0].text);
    }

    #[test]
    fn base_pages_name_the_tlb_as_the_other_cause() {
        let f = declared_vs_measured(&run_with(report(PageSize::Base, 0.0, 4 * MIB, false)));
        assert_eq!(f.len(), 1);
        assert!(f[0].text.contains("4 KiB pages"), "{}", f[0].text);
        assert!(f[0].text.contains("--page-size thp"), "{}", f[0].text);
    }

    #[test]
    fn thp_curve_without_huge_pages_is_not_taken_as_huge() {
        // THP asked but not obtained: no base curve either, so no claim at all.
        let f = declared_vs_measured(&run_with(report(PageSize::Thp, 0.0, 4 * MIB, false)));
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn a_knee_near_the_declared_size_or_a_disturbed_curve_says_nothing() {
        assert!(
            declared_vs_measured(&run_with(report(PageSize::Thp, 1.0, 16 * MIB, false))).is_empty()
        );
        assert!(
            declared_vs_measured(&run_with(report(PageSize::Thp, 1.0, 4 * MIB, true))).is_empty()
        );
    }

    /// This VM's THP random walk (2026-11-24): L3 speed to 2.8 MiB, a step at 4 MiB, no
    /// plateau long enough for a knee.
    fn measured_here(knee: Option<u64>, memory_ns: f64) -> LatencyReport {
        let curve: [(u64, f64); 9] = [
            (1024, 16.7),
            (1448, 18.6),
            (2048, 19.7),
            (2896, 22.7),
            (4096, 98.0),
            (8192, 150.7),
            (32768, 175.6),
            (131072, 196.0),
            (262144, memory_ns),
        ];
        let mut l = report(PageSize::Thp, 1.0, 0, false);
        l.sweep[0].points = curve
            .iter()
            .map(|&(kib, ns)| {
                let mut p = point(kib << 10, PageSize::Thp, 1.0, false);
                p.ns_per_load = crate::stats::Summary::of(&[ns]).unwrap();
                p
            })
            .collect();
        l.knees[0].levels[1].knee_bytes = knee;
        l
    }

    #[test]
    fn without_a_plateau_the_step_halfway_to_memory_bounds_the_level() {
        let f = declared_vs_measured(&run_with(measured_here(None, 190.9)));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].text
                .contains("leaves the L3 level between 2.8 MiB and 4 MiB"),
            "{}",
            f[0].text
        );
        assert!(
            f[0].text.contains("9 % of the declared size"),
            "{}",
            f[0].text
        );
        // Memory not clearly slower than the level: no claim.
        assert!(declared_vs_measured(&run_with(measured_here(None, 30.0))).is_empty());
    }

    /// With intervals, a step between two points whose intervals say they may be
    /// the same is noise, not the level's end; a clear step still is.
    #[test]
    fn a_step_within_noise_is_no_edge() {
        let with_spread = |mut l: LatencyReport, kib: u64, ns: f64, w: f64| {
            let p = l.sweep[0]
                .points
                .iter_mut()
                .find(|p| p.working_set_bytes == kib << 10)
                .unwrap();
            let xs: Vec<f64> = (0..9)
                .map(|k| ns * (1.0 + w * (k as f64 - 4.0) / 4.0))
                .collect();
            p.ns_per_load = crate::stats::Summary::of(&xs).unwrap();
            l
        };
        // 22.7 ns and 98 ns, each within +-1 %: a step.
        let l = with_spread(measured_here(None, 190.9), 2896, 22.7, 0.01);
        let l = with_spread(l, 4096, 98.0, 0.01);
        assert_eq!(declared_vs_measured(&run_with(l)).len(), 1);
        // 2.8 MiB at 50 ns within [16, 84] and 4 MiB at 98 ns within [78, 118]: the two may
        // be one latency, so no step is claimed.
        let l = with_spread(measured_here(None, 190.9), 2896, 50.0, 0.9);
        let l = with_spread(l, 4096, 98.0, 0.2);
        assert!(declared_vs_measured(&run_with(l)).is_empty());
    }

    #[test]
    fn sizes_print_in_binary_units() {
        assert_eq!(bytes(32 * MIB), "32 MiB");
        assert_eq!(bytes(5 * MIB + MIB / 2), "5.5 MiB");
        assert_eq!(bytes(13_722), "13.4 KiB");
    }
}
