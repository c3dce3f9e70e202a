//! The bandwidth and latency measurements the scenarios and the advisor need: a team of
//! threads (pinned, or one left to the scheduler), each reading its own placed buffer with the
//! bandwidth engine's `read` kernel for a fixed time, all started by one barrier and stopped
//! by one shared flag (docs/METHODOLOGY.md, "Timed teams", "Placed, then verified"). The
//! single-thread latencies of (a) and (b) are measured side by side in `scenarios::latency`. Ctrl-C
//! ends a timed run at the next kernel call. Nothing here prints.

use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::placement::{PlacedBuffer, Policy};
use crate::results::bandwidth::Isa;
use crate::results::placement::PageSize;
use crate::results::placement::{NodePages, PlacementReport};
use crate::results::quality::{RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::results::topology::Topology;
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::quality::rep_sample;
use crate::threads::{run_team, StealProbe, TeamPlan, ThreadProbe};

use crate::schedule::TimedSettings;

/// Words per kernel call: 4 MiB, so the stop flag is polled every millisecond or so.
const CHUNK_WORDS: usize = 1 << 19;

/// The kernel every scenario row uses.
pub const KERNEL: KernelId = KernelId::Read;

/// One team's read bandwidth.
#[derive(Clone, Debug, PartialEq)]
pub struct TeamBandwidth {
    /// All threads together, MB/s, one sample per kept repetition: bytes of all threads over
    /// the longest thread's elapsed time.
    pub total_mb_per_s: Summary,
    /// Each thread's median MB/s.
    pub per_thread_mb_per_s: Vec<f64>,
    /// Smallest fraction of a buffer's pages on the policy's intended nodes.
    pub placement_fraction: f64,
    /// The repetitions' quality (the unpinned thread is judged wherever it ran).
    pub quality: Option<RepetitionQuality>,
    /// Base pages of all the buffers per node, as verified when they were placed.
    pub pages_per_node: Vec<NodePages>,
}

/// Pages per node of several verified buffers together, ascending node id.
fn pages_per_node<'a>(reports: impl Iterator<Item = &'a PlacementReport>) -> Vec<NodePages> {
    let mut per: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for r in reports {
        for h in &r.histogram {
            *per.entry(h.node).or_default() += h.pages;
        }
    }
    per.into_iter()
        .map(|(node, pages)| NodePages { node, pages })
        .collect()
}

fn read_kernel() -> anyhow::Result<Kernel> {
    Ok(Kernel::new(KERNEL, Isa::best())?)
}

/// Reads `buf` in chunks until `stop()`; returns bytes read and a checksum.
pub(crate) fn read_until(kernel: &Kernel, buf: &mut [f64], stop: impl Fn() -> bool) -> (u64, u64) {
    let p = Params::default();
    let mut seed = 1u64;
    let mut bytes = 0u64;
    let mut sum = 0u64;
    loop {
        for chunk in buf.chunks_mut(CHUNK_WORDS) {
            let o = kernel.run(&mut [chunk], &p, &mut seed);
            bytes += kernel.descriptor().app_bytes(o.elements);
            sum = sum.wrapping_add(o.checksum);
            if stop() || interrupted() {
                return (bytes, sum);
            }
        }
    }
}

fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    }
}

/// Placed buffers kept from one measurement to the next (interleaved rounds), each with the
/// placement verified when it was made.
pub type Kept = Option<Vec<(PlacedBuffer, PlacementReport)>>;

/// Buffers handed from one team to the next: slot `i` is thread `i`'s, taken by it.
pub(crate) type Reuse = std::sync::Mutex<Vec<Option<(PlacedBuffer, PlacementReport)>>>;

/// Thread `i`'s buffer: the one left in `reuse` by the team before when there is one (placed
/// and faulted in already), else a new one of `bytes` under `policy` in 4 KiB pages, first
/// touched on the calling thread and its placement checked.
pub(crate) fn reuse_or_place(
    reuse: &Reuse,
    i: usize,
    topo: &Topology,
    root: &SysRoot,
    bytes: u64,
    policy: &Policy,
) -> anyhow::Result<(PlacedBuffer, PlacementReport)> {
    let old = reuse
        .lock()
        .ok()
        .and_then(|mut v| v.get_mut(i).and_then(Option::take));
    if let Some(b) = old {
        return Ok(b);
    }
    let buf = PlacedBuffer::new(topo, root, bytes, policy, PageSize::Base)?;
    let report = buf.verify()?;
    Ok((buf, report))
}

/// Read bandwidth of one pinned thread per CPU of `cpus`, thread `i` with buffer policy
/// `policies[i]`, each buffer `bytes_per_thread`, first touched on its thread. Reuses the
/// buffers in `kept` when there are (already placed and faulted in: no allocation, no page
/// faults, no placement check), and leaves this run's buffers there; `&mut None` for a
/// one-off measurement.
pub fn team_read_kept(
    topo: &Topology,
    root: &SysRoot,
    cpus: &[u32],
    policies: &[Policy],
    bytes_per_thread: u64,
    timed: &TimedSettings,
    kept: &mut Kept,
) -> anyhow::Result<TeamBandwidth> {
    let reuse: Reuse = std::sync::Mutex::new(
        kept.take()
            .filter(|v| v.len() == cpus.len())
            .map(|v| v.into_iter().map(Some).collect())
            .unwrap_or_default(),
    );
    let kernel = read_kernel()?;
    let plan = TeamPlan::new(
        Duration::from_millis(timed.duration_ms),
        timed.repetitions.max(1),
        1,
    );
    let out = run_team(
        topo,
        root,
        cpus,
        &plan,
        |i, _cpu| reuse_or_place(&reuse, i, topo, root, bytes_per_thread, &policies[i]),
        |_, state, stop| read_until(&kernel, state.0.as_f64_mut(), || stop.stopped()),
    )?;
    let mut totals = Vec::new();
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); cpus.len()];
    for rep in &out.reps {
        let bytes: u64 = rep.iter().map(|s| s.value.0).sum();
        let longest = rep.iter().map(|s| s.elapsed_ns).max().unwrap_or(0);
        totals.push(mb_per_s(bytes, longest));
        for (k, s) in rep.iter().enumerate() {
            per[k].push(mb_per_s(s.value.0, s.elapsed_ns));
        }
    }
    let total_mb_per_s =
        Summary::of(&totals).context("the bandwidth run produced no repetition")?;
    let per_thread_mb_per_s = per
        .iter()
        .map(|v| Summary::of(v).map_or(0.0, |s| s.median))
        .collect();
    let placement_fraction = out
        .states
        .iter()
        .map(|s| s.1.fraction_on_intended)
        .fold(1.0, f64::min);
    let pages = pages_per_node(out.states.iter().map(|s| &s.1));
    *kept = Some(out.states);
    Ok(TeamBandwidth {
        pages_per_node: pages,
        quality: Some(out.quality),
        total_mb_per_s,
        per_thread_mb_per_s,
        placement_fraction,
    })
}

/// Read bandwidth of one thread left to the scheduler among `cpus` (empty: every CPU this
/// process may use), its buffer under `policy`; it reuses the buffer in `kept` when there is
/// one and leaves this run's buffer there (`&mut None`: a buffer of its own). Each repetition is judged like a pinned team's (docs/METHODOLOGY.md, "Disturbed
/// repetitions"): the thread's CPU time against wall time wherever the scheduler ran it, and the
/// steal time of the CPUs it may run on; a disturbed repetition is taken again while the allowance
/// (as many retakes as repetitions planned) lasts, then kept and the figure marked disturbed.
pub fn unpinned_read_kept(
    topo: &Topology,
    root: &SysRoot,
    policy: &Policy,
    cpus: &[u32],
    bytes: u64,
    timed: &TimedSettings,
    kept: &mut Kept,
) -> anyhow::Result<TeamBandwidth> {
    root.require_live("measure bandwidth")?;
    if !cpus.is_empty() {
        crate::threads::check_cpus(topo, root, cpus)?;
    }
    let kernel = read_kernel()?;
    let old = kept.take().and_then(|mut v| v.pop());
    let watched = if cpus.is_empty() {
        topo.usable_cpus()
    } else {
        cpus.to_vec()
    };
    let planned = timed.repetitions.max(1);
    type Out = (Vec<f64>, PlacementReport, PlacedBuffer, RepetitionQuality);
    let r = std::thread::scope(|s| {
        s.spawn(|| -> anyhow::Result<Out> {
            if !cpus.is_empty() {
                crate::sys::affinity::set_current(cpus)?;
            }
            let (mut buf, report) = match old {
                Some(b) => b,
                None => {
                    let buf = PlacedBuffer::new(topo, root, bytes, policy, PageSize::Base)?;
                    let report = buf.verify()?;
                    (buf, report)
                }
            };
            let dur = Duration::from_millis(timed.duration_ms);
            let mut quality = RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, planned as u32);
            // One untimed repetition first (caches, TLB, frequency), as the team does.
            let t0 = Instant::now();
            read_until(&kernel, buf.as_f64_mut(), || t0.elapsed() >= dur);
            let mut v = Vec::new();
            while v.len() < planned && !interrupted() {
                let steal = StealProbe::start(root, &watched);
                let probe = ThreadProbe::start();
                let t0 = Instant::now();
                let (b, _) = read_until(&kernel, buf.as_f64_mut(), || t0.elapsed() >= dur);
                let ns = t0.elapsed().as_nanos() as u64;
                let usage = probe.finish();
                let cpu = crate::sys::affinity::current_cpu_and_node()
                    .map(|c| c.0)
                    .unwrap_or(watched[0]);
                if quality
                    .record(&rep_sample(&[(cpu, usage)], steal.finish()))
                    .kept()
                {
                    v.push(mb_per_s(b, ns));
                }
            }
            Ok((v, report, buf, quality))
        })
        .join()
        .map_err(|_| anyhow::anyhow!("the unpinned bandwidth thread panicked"))?
    })?;
    let placement_fraction = r.1.fraction_on_intended;
    let pages = pages_per_node(std::iter::once(&r.1));
    *kept = Some(vec![(r.2, r.1)]);
    let total = Summary::of(&r.0)
        .context("the bandwidth run was interrupted before a repetition finished")?;
    Ok(TeamBandwidth {
        pages_per_node: pages,
        quality: Some(r.3),
        per_thread_mb_per_s: vec![total.median],
        total_mb_per_s: total,
        placement_fraction,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    /// A short real run on this machine: two policies, plausible figures, full placement.
    #[test]
    fn team_reads_count_bytes_and_record_quality() {
        let (topo, root, cpus, timed) = small_reads();
        let t = team_read_kept(
            &topo,
            &root,
            &cpus,
            &[Policy::Bind(vec![0])],
            8 << 20,
            &timed,
            &mut None,
        )
        .unwrap();
        assert_eq!(t.total_mb_per_s.samples, 2);
        // Mechanics, not speed (a busy machine reads slowly): bytes were read and timed, and
        // the team's quality record holds the planned repetitions.
        assert!(
            t.total_mb_per_s.median.is_finite() && t.total_mb_per_s.median > 0.0,
            "{t:?}"
        );
        assert_eq!(t.per_thread_mb_per_s.len(), 1);
        let q = t.quality.as_ref().expect("a pinned team is judged");
        assert_eq!(q.repetitions_kept, 2);
        assert_eq!(q.repetitions_taken, 2 + q.repetitions_discarded);
        assert_eq!(t.placement_fraction, 1.0);
        // Every page of the one 8 MiB buffer, counted on its node.
        assert_eq!(
            t.pages_per_node,
            vec![NodePages {
                node: 0,
                pages: (8 << 20) / topo.environment.page_size_bytes.max(4096)
            }]
        );
    }

    /// Two 20 ms repetitions of 8 MiB reads on this machine's first usable CPU.
    fn small_reads() -> (
        crate::results::topology::Topology,
        SysRoot,
        Vec<u32>,
        TimedSettings,
    ) {
        let topo = this_machine_one_node();
        let cpus: Vec<u32> = topo.usable_cpus().into_iter().take(1).collect();
        let timed = TimedSettings {
            duration_ms: 20,
            repetitions: 2,
        };
        (topo, SysRoot::live(), cpus, timed)
    }

    #[test]
    fn unpinned_reads_count_bytes_and_record_quality() {
        let (topo, root, cpus, timed) = small_reads();
        // Left to the scheduler among all usable CPUs, then bound to the first one's set: the
        // thread is judged wherever it ran, and keeps the planned repetitions.
        for set in [vec![], cpus.clone()] {
            let u = unpinned_read_kept(
                &topo,
                &root,
                &Policy::Bind(vec![0]),
                &set,
                8 << 20,
                &timed,
                &mut None,
            )
            .unwrap();
            assert!(
                u.total_mb_per_s.median.is_finite() && u.total_mb_per_s.median > 0.0,
                "{u:?}"
            );
            assert_eq!(u.total_mb_per_s.samples, 2);
            let q = u
                .quality
                .as_ref()
                .expect("the unpinned thread is judged too");
            assert_eq!(q.repetitions_kept, 2);
            assert_eq!(q.repetitions_taken, 2 + q.repetitions_discarded);
        }
    }
}
