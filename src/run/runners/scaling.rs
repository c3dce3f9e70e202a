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

use super::super::plan::Settings;
use super::super::reference;
use super::bandwidth::{kernel, measure, reference_bandwidth, report_in};
use super::{note_filled, Ctx};

/// The scaling part into `r.scaling`.
pub(super) fn scaling(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, s) = (c.topo, c.s);
    let kernels = vec![kernel(KernelId::Read)?];
    r.scaling = None;
    // The home node's full point (all its CPUs) is the run's reference bandwidth: it is not
    // measured again; the home node's other points and the other nodes run as two jobs.
    let home = s.home_node.filter(|h| s.scaling.nodes.contains(h));
    let full = home.map(|h| topo.usable_cpus_of(h)).unwrap_or_default();
    let from_ref = home.is_some()
        && s.scaling.thread_counts.contains(&full.len())
        && reference::bandwidth_ready(
            r,
            topo,
            s,
            &full,
            reference::bytes_per_thread(topo, s, full.len()),
        );
    let around = home.filter(|_| from_ref);
    let result = measure_jobs(c, r, &kernels, jobs(s, around, full.len()));
    let (Some(h), Some(placeholder)) = (around, reference::Reference::placeholder(r)) else {
        return result;
    };
    let report = report_in(&mut r.scaling, topo);
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

/// The scaling jobs, each (nodes, thread counts): every planned node at every planned count;
/// around the reference's point (node `h` at its `full` count), node `h` at every planned
/// count but `full`, then the other nodes at every count, a job with nothing to measure left
/// out.
fn jobs(s: &Settings, around: Option<u32>, full: usize) -> Vec<(Vec<u32>, Vec<usize>)> {
    let sc = &s.scaling;
    let Some(h) = around else {
        return vec![(sc.nodes.clone(), sc.thread_counts.clone())];
    };
    let counts: Vec<usize> = sc
        .thread_counts
        .iter()
        .copied()
        .filter(|&t| t != full)
        .collect();
    let others: Vec<u32> = sc.nodes.iter().copied().filter(|&n| n != h).collect();
    [(vec![h], counts), (others, sc.thread_counts.clone())]
        .into_iter()
        .filter(|(nodes, counts)| !nodes.is_empty() && !counts.is_empty())
        .collect()
}

/// Measures the `jobs` one after the other into `r.scaling` (Ctrl-C ends them); returns the
/// first failure, having run them all.
fn measure_jobs(
    c: &Ctx<'_>,
    r: &mut RunResults,
    kernels: &[Kernel],
    jobs: Vec<(Vec<u32>, Vec<usize>)>,
) -> anyhow::Result<()> {
    let mut result = Ok(());
    let goal: PrecisionGoal = super::super::budget::precision_goal(&r.plan, Part::Scaling);
    for (nodes, counts) in jobs {
        if crate::sys::signal::interrupted() {
            break;
        }
        let variant = bandwidth::Variant::Scaling {
            nodes,
            thread_counts: Some(counts),
            machine_wide: false,
        };
        let (kernels, timed) = (kernels.to_vec(), &c.s.scaling.timed);
        let out = measure(c, kernels, variant, timed, Some(&goal), &mut r.scaling);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::plan::{make_plan, PlanRequest};

    fn settings(nodes: Vec<u32>, counts: Vec<usize>) -> Settings {
        let topo = crate::run::sample::opteron_topology();
        let mut s = make_plan(&topo, &PlanRequest::default(), &Part::ALL).settings;
        s.scaling.nodes = nodes;
        s.scaling.thread_counts = counts;
        s
    }

    /// Without the reference's point, one job: every node at every count. Around it, node
    /// `h` at the other counts, then the other nodes at every count; an empty job is dropped.
    #[test]
    fn the_jobs_leave_out_only_the_reference_point() {
        let s = settings(vec![0, 1], vec![1, 2]);
        assert_eq!(jobs(&s, None, 2), vec![(vec![0, 1], vec![1, 2])]);
        assert_eq!(
            jobs(&s, Some(1), 2),
            vec![(vec![1], vec![1]), (vec![0], vec![1, 2])]
        );
        let one = settings(vec![0], vec![1]);
        assert!(jobs(&one, Some(0), 1).is_empty());
        assert_eq!(jobs(&one, Some(0), 2), vec![(vec![0], vec![1])]);
    }
}
