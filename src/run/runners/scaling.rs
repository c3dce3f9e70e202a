//! The scaling part: read bandwidth of each planned node at each planned thread count. The
//! home node's full point (all its CPUs) is the run's reference bandwidth where it is ready,
//! filed from the reference and not measured again; the home node's other points and the
//! other nodes then run as two jobs.

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::kernels::Kernel;
use crate::bandwidth::{self};
use crate::results::bandwidth::{Scaling, ScalingPoint, ScalingSeries};
use crate::results::{plan::Part, RunResults};
use crate::threads::precision::PrecisionGoal;

use super::super::reference;
use super::bandwidth::{bw_config, bw_part, kernel, reference_bandwidth};
use super::{note_filled, Ctx};

/// The scaling part into `r.scaling`.
pub(super) fn scaling(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let kernels = vec![kernel(KernelId::Read)?];
    r.scaling = None;
    // The home node's full point (all its CPUs) is the run's reference bandwidth: it is not
    // measured again; the home node's other points and the other nodes run as two jobs.
    let home = s.home_node.filter(|h| s.scaling.nodes.contains(h));
    let full = home.map(|h| topo.usable_cpus_of(h));
    let from_ref = match (&home, &full) {
        (Some(_), Some(cpus)) => {
            s.scaling.thread_counts.contains(&cpus.len())
                && reference::bandwidth_ready(
                    r,
                    topo,
                    s,
                    cpus,
                    reference::bytes_per_thread(topo, s, cpus.len()),
                )
        }
        _ => false,
    };
    let Some(h) = home.filter(|_| from_ref) else {
        let variant = bandwidth::Variant::Scaling {
            nodes: s.scaling.nodes.clone(),
            thread_counts: Some(s.scaling.thread_counts.clone()),
            machine_wide: false,
        };
        let cfg = bw_config(topo, s, kernels, variant, &s.scaling.timed);
        let goal = super::super::budget::precision_goal(&r.plan, Part::Scaling);
        return bw_part(topo, root, &cfg, Some(&goal), &mut r.scaling, step);
    };
    let full = full.unwrap_or_default();
    let result = measure_around_reference(c, r, &kernels, h, full.len());
    let Some(placeholder) = reference::Reference::placeholder(r) else {
        return result;
    };
    let report = r
        .scaling
        .get_or_insert_with(|| bandwidth::experiment::empty_report(topo));
    let at = report.results.len();
    let series = home_series(report, h);
    series.points.push(ScalingPoint {
        threads: placeholder.threads,
        cpus: placeholder.cpus.clone(),
        mb_per_s: placeholder.mb_per_s.median,
        mb_per_s_max: placeholder.mb_per_s.max,
        result_index: at,
    });
    series.points.sort_by_key(|p| p.threads);
    report.results.push(placeholder);
    note_filled(
        r,
        Part::Scaling,
        reference_bandwidth(),
        format!("node {h}, {} threads", full.len()),
        Some(at),
    );
    result
}

/// Measures the two jobs around the reference point: node `h` at every planned count but
/// `full` (the reference's), then the other nodes at every count. Returns the first failure,
/// having run both.
fn measure_around_reference(
    c: &Ctx<'_>,
    r: &mut RunResults,
    kernels: &[Kernel],
    h: u32,
    full: usize,
) -> anyhow::Result<()> {
    let (topo, root, s, step) = (c.topo, c.root, c.s, c.step);
    let counts: Vec<usize> = s
        .scaling
        .thread_counts
        .iter()
        .copied()
        .filter(|&t| t != full)
        .collect();
    let others: Vec<u32> = s
        .scaling
        .nodes
        .iter()
        .copied()
        .filter(|&n| n != h)
        .collect();
    let mut result = Ok(());
    let goal: PrecisionGoal = super::super::budget::precision_goal(&r.plan, Part::Scaling);
    for (nodes, counts) in [(vec![h], counts), (others, s.scaling.thread_counts.clone())] {
        if nodes.is_empty() || counts.is_empty() || crate::sys::signal::interrupted() {
            continue;
        }
        let variant = bandwidth::Variant::Scaling {
            nodes,
            thread_counts: Some(counts),
            machine_wide: false,
        };
        let cfg = bw_config(topo, s, kernels.to_vec(), variant, &s.scaling.timed);
        let out = bw_part(topo, root, &cfg, Some(&goal), &mut r.scaling, step);
        if result.is_ok() {
            result = out;
        }
    }
    result
}

/// The read kernel's one scaling entry (the second job's series joined to the first's) and,
/// in it, node `h`'s packed series, added first where it is missing.
fn home_series(
    report: &mut crate::results::bandwidth::BandwidthReport,
    h: u32,
) -> &mut ScalingSeries {
    if report.scaling.len() > 1 {
        let rest: Vec<_> = report.scaling.drain(1..).collect();
        for sc in rest {
            report.scaling[0].series.extend(sc.series);
        }
    }
    if report.scaling.is_empty() {
        report.scaling.push(Scaling {
            kernel: KernelId::Read.descriptor().name.to_string(),
            series: vec![],
        });
    }
    let sc = &mut report.scaling[0];
    match sc.series.iter().position(|x| x.node == Some(h)) {
        Some(i) => &mut sc.series[i],
        None => {
            sc.series.insert(
                0,
                ScalingSeries {
                    mode: "packed".into(),
                    node: Some(h),
                    points: vec![],
                    knee_threads: None,
                },
            );
            &mut sc.series[0]
        }
    }
}
