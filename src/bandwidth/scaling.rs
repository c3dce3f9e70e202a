//! Bandwidth against thread count (Bergstrom's curves): within each initiator node packed
//! (one CPU per core first), and over the whole machine packed and spread, with the knee (the
//! thread count where more threads stop helping) found by a pure, tested rule.

use super::experiment::{keep_or_stop, Toward};
use super::harness;
use super::kernels::Kernel;
use super::plan::{check_fits, node_cpus_cores_first, ordered_cpus, Order};
use crate::results::bandwidth::{BandwidthResult, Scaling, ScalingPoint, ScalingSeries};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;

/// Relative gain below which more threads are said not to help (10 %).
pub const KNEE_GAIN: f64 = 0.10;

/// The knee of a curve (`threads` ascending, `mb_per_s` the matching rates): the smallest
/// thread count after which (a) no later point is 10 % or more above it, and (b) no later
/// point gains, per added thread, 10 % or more of the first point's (one thread's) rate.
/// (a) ignores a slow creep, (b) keeps a still-linear curve from having a knee at its end.
/// `None` when no point but the last qualifies (the curve still rises) or there are fewer
/// than two points.
pub fn knee(threads: &[usize], mb_per_s: &[f64]) -> Option<usize> {
    let n = threads.len().min(mb_per_s.len());
    if n < 2 {
        return None;
    }
    let single = mb_per_s[0] / threads[0].max(1) as f64;
    (0..n - 1)
        .find(|&i| {
            (i + 1..n).all(|j| {
                let gain = mb_per_s[j] - mb_per_s[i];
                let added = threads[j].saturating_sub(threads[i]).max(1) as f64;
                gain < KNEE_GAIN * mb_per_s[i] && gain / added < KNEE_GAIN * single
            })
        })
        .map(|i| threads[i])
}

/// Thread counts measured up to `max`: every count up to 8, then about 16 evenly spaced
/// counts, always ending at `max`.
pub fn thread_counts(max: usize) -> Vec<usize> {
    let step = max.div_ceil(16).max(1);
    (1..=max)
        .filter(|&k| k <= 8 || k % step == 0 || k == max)
        .collect()
}

/// Which curves to measure.
pub struct Curves<'a> {
    /// Each node's curve, packed.
    pub nodes: &'a [u32],
    /// The thread counts (those a curve has CPUs for); `None`: [`thread_counts`].
    pub thread_counts: Option<&'a [usize]>,
    /// Also the curves over all `nodes`, packed and spread (with more than one node).
    pub machine_wide: bool,
}

/// One curve: its order, its node (`None`: machine-wide), its CPU pool and thread counts.
type Curve = (Order, Option<u32>, Vec<u32>, Vec<usize>);

impl Curves<'_> {
    /// Every curve's (order, node, CPU pool) and the thread counts measured on it.
    fn list(&self, topo: &Topology) -> Vec<Curve> {
        let mut curves: Vec<(Order, Option<u32>, Vec<u32>)> = self
            .nodes
            .iter()
            .map(|&n| (Order::Packed, Some(n), node_cpus_cores_first(topo, n)))
            .collect();
        if self.machine_wide && self.nodes.len() > 1 {
            for order in [Order::Packed, Order::Spread] {
                curves.push((order, None, ordered_cpus(topo, self.nodes, order)));
            }
        }
        curves
            .into_iter()
            .map(|(o, n, pool)| {
                let counts = match self.thread_counts {
                    Some(c) => c.iter().copied().filter(|&k| k <= pool.len()).collect(),
                    None => thread_counts(pool.len()),
                };
                (o, n, pool, counts)
            })
            .collect()
    }
}

/// Measures the curves of one kernel, each point toward `goal` when there is one; every
/// point's full result is appended to `results`, a failing point goes to `failed` when the
/// config keeps going. `progress` after each point.
pub fn run_scaling(
    t: &Toward,
    kernel: Kernel,
    curves: &Curves<'_>,
    results: &mut Vec<BandwidthResult>,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<Scaling> {
    let (topo, root, cfg, goal, progress) = (t.topo, t.root, t.cfg, t.goal, t.progress);
    let desc = kernel.descriptor();
    let streams = desc.stream_count();
    let list = curves.list(topo);
    let total: usize = list.iter().map(|c| c.3.len()).sum();
    let mut done = 0;
    let mut series = Vec::new();
    for (order, node, pool, counts) in list {
        let mut points = Vec::new();
        for k in counts {
            if interrupted() {
                break;
            }
            let cpus = pool[..k].to_vec();
            let array_bytes = cfg.settings.array_bytes(topo, streams, k);
            let measured = check_fits(
                topo,
                &cfg.placement.nodes(),
                array_bytes * (streams * k) as u64,
            )
            .map_err(anyhow::Error::msg)
            .and_then(|()| {
                cfg.settings
                    .spec(topo, kernel, cpus.clone(), &cfg.placement)
            })
            .and_then(|sp| {
                let mine = goal.map(|g| g.for_figure(total - done));
                harness::run_toward(topo, root, &sp, mine.as_ref())
            });
            match measured {
                Ok(r) => {
                    points.push(ScalingPoint {
                        threads: k,
                        cpus,
                        mb_per_s: r.mb_per_s.median,
                        mb_per_s_max: r.mb_per_s.max,
                        result_index: results.len(),
                    });
                    results.push(r);
                }
                Err(e) => keep_or_stop(cfg.keep_going, failed, e, || {
                    format!("{k} threads of the {} curve", order.label())
                })?,
            }
            done += 1;
            progress(done, total);
        }
        let t: Vec<usize> = points.iter().map(|p| p.threads).collect();
        let v: Vec<f64> = points.iter().map(|p| p.mb_per_s).collect();
        series.push(ScalingSeries {
            mode: order.label().into(),
            node,
            knee_threads: knee(&t, &v),
            points,
        });
    }
    Ok(Scaling {
        kernel: desc.name.to_string(),
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knee_of_a_saturating_curve() {
        let t = [1, 2, 3, 4, 5, 6, 8];
        let v = [10.0, 19.0, 26.0, 30.0, 32.0, 33.0, 33.0];
        assert_eq!(knee(&t, &v), Some(6));
        // Saturated at once: the knee is one thread.
        assert_eq!(knee(&[1, 2, 4], &[10.0, 10.5, 10.4]), Some(1));
    }

    #[test]
    fn a_linear_curve_has_no_knee() {
        let t: Vec<usize> = (1..=20).collect();
        let v: Vec<f64> = t.iter().map(|&k| 10.0 * k as f64).collect();
        assert_eq!(knee(&t, &v), None);
        assert_eq!(knee(&[1], &[5.0]), None);
    }

    #[test]
    fn a_late_jump_moves_the_knee() {
        // Flat, then a NUMA node's worth of bandwidth arrives at 8 threads.
        let t = [1, 2, 4, 8, 16];
        let v = [10.0, 11.0, 11.0, 20.0, 20.5];
        assert_eq!(knee(&t, &v), Some(8));
        // A slow creep of 3 % per thread over many threads still counts as a knee at 1.
        let t: Vec<usize> = (1..=4).collect();
        let v = [10.0, 10.3, 10.6, 10.9];
        assert_eq!(knee(&t, &v), Some(1));
    }

    #[test]
    fn thread_counts_cover_small_and_large_machines() {
        assert_eq!(thread_counts(2), vec![1, 2]);
        assert_eq!(thread_counts(8), (1..=8).collect::<Vec<_>>());
        let c = thread_counts(128);
        assert_eq!(c[..8], [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(*c.last().unwrap(), 128);
        assert!(c.len() <= 8 + 17);
    }
}
