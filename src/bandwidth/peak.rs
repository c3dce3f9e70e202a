//! Peak injection bandwidth (`bandwidth --peak`): every planned run of [`peak_plan`] measured
//! by one pinned team (docs/METHODOLOGY.md, "Timed teams", "Placed, then verified", "Disturbed
//! repetitions"): each thread maps its private buffer bound to its own CPU's node and checks where
//! the pages went before any timing; every repetition starts on one barrier and ends on the shared
//! stop flag; rates are each thread's bytes over its own time (never less than the repetition's
//! length), summed, with the median, its 95 % interval and n, and the
//! repetition quality of the team. The read mix runs the bandwidth engine's read kernel; the
//! other mixes run the load kernels of `loaded::kernel` at full speed. From the runs come the
//! best thread count per scope and mix, and the per-L3-domain table: each domain's threads'
//! share of the all-domain run is summed per repetition, so it has its own interval.
//! Nothing here prints.
//!
//! [`peak_plan`]: super::peak_plan

use std::collections::BTreeSet;

use anyhow::Context as _;

use super::descriptor::{mb_per_s, ELEMENT_BYTES};
use super::experiment::{keep_or_stop, Toward};
use super::harness::{rates, CHUNK_ELEMENTS};
use super::kernels::{Kernel, Params};
use super::peak_domains::domains_of;
use super::peak_plan::{PeakMix, PeakPlan, PlannedRun};
use super::RunSettings;
use crate::loaded::kernel::{self as load, Pace};
use crate::placement::{PlacedBuffer, Policy};
use crate::results::peak::{PeakBest, PeakReport, PeakRun, PeakScope};
use crate::results::placement::PlacementReport;
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::{run_team, Stop, TeamPlan, ThreadSample};

/// One alone-domain rate at or above this share of the all-domain rate "saturates" the node.
pub const SATURATES_FRACTION: f64 = 0.9;

/// A thread's buffer and where it is in it.
struct Worker {
    buf: PlacedBuffer,
    pos: usize,
    seed: u64,
    report: PlacementReport,
}

/// Bytes one thread moved in one repetition: application and DRAM estimate.
#[derive(Clone, Copy, Debug, Default)]
struct Moved {
    app: u64,
    dram: u64,
}

/// A measured run and its per-repetition, per-thread rates (MB/s, `[rep][thread]`).
struct Measured {
    run: PeakRun,
    per_rep: Vec<Vec<f64>>,
}

/// Runs the plan `p` (made once by the caller, the CLI or the run's plan, with
/// [`plan`](super::peak_plan::plan)); `progress(done, total)` after each run. Ctrl-C stops before the
/// next run; a failed run is recorded (with `keep_going`) or ends the measurement.
pub fn run_peak(
    t: &Toward,
    read: Kernel,
    p: &PeakPlan,
    failed: &mut Option<anyhow::Error>,
) -> anyhow::Result<PeakReport> {
    let (topo, root, progress) = (t.topo, t.root, t.progress);
    let (settings, keep_going) = (&t.cfg.settings, t.cfg.keep_going);
    let mut measured: Vec<Option<Measured>> = Vec::with_capacity(p.runs.len());
    for (i, r) in p.runs.iter().enumerate() {
        if interrupted() {
            break;
        }
        match measure(topo, root, read, settings, r) {
            Ok(m) => measured.push(Some(m)),
            Err(e) => {
                measured.push(None);
                keep_or_stop(keep_going, failed, e, || {
                    format!(
                        "peak {} on {} CPU(s) of {} {}",
                        r.mix.name(),
                        r.cpus.len(),
                        r.level.word(),
                        r.id
                    )
                })?;
            }
        }
        progress(i + 1, p.runs.len());
    }
    Ok(assemble(topo, p, measured))
}

/// The runs kept (in plan order, failed or unmeasured ones left out) and every table that
/// refers to them. Pure.
fn assemble(topo: &Topology, p: &PeakPlan, measured: Vec<Option<Measured>>) -> PeakReport {
    // Planned index -> index in `runs`.
    let mut index = vec![None; p.runs.len()];
    let mut runs = Vec::new();
    let mut raw = Vec::new();
    for (i, m) in measured.into_iter().enumerate() {
        if let Some(m) = m {
            index[i] = Some(runs.len());
            runs.push(m.run);
            raw.push(m.per_rep);
        }
    }
    let at = |planned: usize| index.get(planned).copied().flatten();
    let mut scopes = Vec::new();
    let mut best = Vec::new();
    for s in &p.scopes {
        let memory_nodes: BTreeSet<u32> =
            s.cpus.iter().filter_map(|&c| topo.node_of_cpu(c)).collect();
        scopes.push(PeakScope {
            level: s.level.word().into(),
            id: s.id,
            cpus: s.cpus.clone(),
            thread_counts: s.thread_counts.clone(),
            memory_nodes: memory_nodes.into_iter().collect(),
            runs: s
                .runs
                .iter()
                .map(|row| row.iter().map(|&r| at(r)).collect())
                .collect(),
        });
        for (m, row) in p.mixes.iter().zip(&s.runs) {
            let cands: Vec<(usize, usize)> = s
                .thread_counts
                .iter()
                .zip(row)
                .filter_map(|(&t, &r)| at(r).map(|i| (t, i)))
                .collect();
            if let Some(b) = best_of(&runs, &cands) {
                best.push(PeakBest {
                    level: s.level.word().into(),
                    id: s.id,
                    mix: m.name(),
                    ..b
                });
            }
        }
    }
    let domains = domains_of(p, &runs, &raw, &at);
    PeakReport {
        mixes: p.mixes.iter().map(PeakMix::info).collect(),
        scopes,
        runs,
        best,
        domains,
        notes: p.notes.clone(),
    }
}

/// The thread count with the highest median among `(threads, run index)`, and whether its
/// interval clears every other one's. Pure.
fn best_of(runs: &[PeakRun], cands: &[(usize, usize)]) -> Option<PeakBest> {
    let &(threads, run) = cands.iter().max_by(|a, b| {
        runs[a.1]
            .mb_per_s
            .median
            .total_cmp(&runs[b.1].mb_per_s.median)
    })?;
    let r = &runs[run].mb_per_s;
    let indistinguishable_from: Vec<usize> = cands
        .iter()
        .filter(|&&(t, _)| t != threads)
        .filter(|&&(_, i)| {
            let o = &runs[i].mb_per_s;
            match (r.ci.map(|c| c.low), o.ci.map(|c| c.high)) {
                (Some(lo), Some(hi)) => lo <= hi,
                _ => true,
            }
        })
        .map(|&(t, _)| t)
        .collect();
    Some(PeakBest {
        level: String::new(),
        id: 0,
        mix: String::new(),
        threads,
        run,
        mb_per_s: r.median,
        ci: r.ci,
        clear: indistinguishable_from.is_empty() && r.ci.is_some(),
        indistinguishable_from,
    })
}

/// Bytes of one thread's buffer for `mix` run by `threads` threads (all arrays together).
pub fn buffer_bytes(topo: &Topology, settings: &RunSettings, mix: PeakMix, threads: usize) -> u64 {
    let arrays = mix.arrays();
    let per_array = settings.array_bytes(topo, arrays, threads).max(64 * 64);
    per_array * arrays as u64
}

/// Measures one planned run.
fn measure(
    topo: &Topology,
    root: &SysRoot,
    read: Kernel,
    settings: &RunSettings,
    r: &PlannedRun,
) -> anyhow::Result<Measured> {
    let bytes = buffer_bytes(topo, settings, r.mix, r.cpus.len());
    let plan = TeamPlan::new(settings.duration, settings.repetitions, settings.warmup);
    let params = settings.params;
    let setup = |index: usize, cpu: u32| place_worker(topo, root, settings, bytes, (index, cpu));
    let mix = r.mix;
    let work = |_: usize, w: &mut Worker, stop: &Stop| -> Moved {
        match mix {
            PeakMix::Read => read_until_stopped(read, &params, w, stop),
            PeakMix::Load(k) => {
                let c = load::run(w.buf.as_u64_mut(), k, Pace::Full, &mut w.pos, stop);
                Moved {
                    app: c.bytes(),
                    dram: c.dram_bytes_estimate(),
                }
            }
        }
    };
    let outcome = run_team(topo, root, &r.cpus, &plan, setup, work)?;
    anyhow::ensure!(
        !outcome.reps.is_empty(),
        "no repetition completed; this is a numascope bug"
    );
    // A thread's time is at least the repetition's: one descheduled at the barrier that woke
    // after the stop flag did a single chunk in a few microseconds, and that chunk over its
    // own time would add a rate it never sustained to the node's peak.
    let floor_ns = settings.duration.as_nanos() as u64;
    let per_rep = rep_rates(&outcome.reps, floor_ns, |m| m.app);
    let dram = rep_rates(&outcome.reps, floor_ns, |m| m.dram);
    let (on, huge, memory_nodes) = placement_of(&outcome.states);
    let code = match mix {
        PeakMix::Read => format!("read kernel ({})", read.isa().label()),
        PeakMix::Load(_) => "line walk".into(),
    };
    Ok(Measured {
        run: PeakRun {
            level: r.level.word().into(),
            id: r.id,
            mix: mix.name(),
            threads: r.cpus.len(),
            cpus: r.cpus.clone(),
            memory_nodes,
            code,
            mb_per_s: rates(&per_rep, &r.cpus),
            dram_mb_per_s_estimate: rates(&dram, &r.cpus),
            bytes_per_thread: bytes,
            placement_fraction: on,
            huge_fraction: huge,
            duration_ms: settings.duration.as_millis() as u64,
            warmup_repetitions: settings.warmup,
            quality: outcome.quality,
        },
        per_rep,
    })
}

/// The read kernel over the thread's buffer, chunk by chunk, until the stop flag.
fn read_until_stopped(read: Kernel, params: &Params, w: &mut Worker, stop: &Stop) -> Moved {
    let len = w.buf.len() / ELEMENT_BYTES as usize;
    let mut elements = 0u64;
    let mut checksum = 0u64;
    loop {
        let from = if w.pos >= len { 0 } else { w.pos };
        let to = (from + CHUNK_ELEMENTS).min(len);
        let out = read.run(
            &mut [&mut w.buf.as_f64_mut()[from..to]],
            params,
            &mut w.seed,
        );
        elements += out.elements;
        checksum = checksum.wrapping_add(out.checksum);
        w.pos = to;
        if stop.stopped() {
            break;
        }
    }
    std::hint::black_box(checksum);
    let bytes = elements * ELEMENT_BYTES;
    Moved {
        app: bytes,
        dram: bytes,
    }
}

/// One worker's buffer, bound to its CPU's node when that node has memory (first touch
/// otherwise), placed and verified on the pinned thread.
fn place_worker(
    topo: &Topology,
    root: &SysRoot,
    settings: &RunSettings,
    bytes: u64,
    (index, cpu): (usize, u32),
) -> anyhow::Result<Worker> {
    let policy = match topo.node_of_cpu(cpu) {
        Some(n) if topo.node(n).is_some_and(|x| x.has_memory) => Policy::Bind(vec![n]),
        _ => Policy::FirstTouch,
    };
    let buf = PlacedBuffer::new(topo, root, bytes, &policy, settings.page)
        .with_context(|| format!("the buffer of CPU {cpu} ({})", policy.describe()))?;
    let report = buf.verify()?;
    Ok(Worker {
        buf,
        pos: 0,
        seed: 0x2545_F491_4F6C_DD1D ^ (index as u64).wrapping_mul(0x9E37_79B9),
        report,
    })
}

/// Each repetition's per-thread MB/s of what `f` counts, each thread's time floored at the
/// repetition's.
fn rep_rates(
    reps: &[Vec<ThreadSample<Moved>>],
    floor_ns: u64,
    f: fn(&Moved) -> u64,
) -> Vec<Vec<f64>> {
    reps.iter()
        .map(|rep| {
            rep.iter()
                .map(|s| mb_per_s(f(&s.value), s.elapsed_ns.max(floor_ns)))
                .collect()
        })
        .collect()
}

/// The workers' buffers together: the fraction on the intended nodes, the fraction in huge
/// pages (both by size), and the intended nodes.
fn placement_of(states: &[Worker]) -> (f64, f64, Vec<u32>) {
    let (mut total, mut on, mut huge) = (0f64, 0f64, 0f64);
    let mut memory_nodes = BTreeSet::new();
    for w in states {
        let b = w.report.size_bytes as f64;
        total += b;
        on += w.report.fraction_on_intended * b;
        huge += w.report.huge_fraction * b;
        memory_nodes.extend(w.report.intended_nodes.iter().copied());
    }
    let frac = |x: f64| if total > 0.0 { x / total } else { 0.0 };
    (frac(on), frac(huge), memory_nodes.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::super::peak_domains::{domain_finding, domain_share};
    use super::super::peak_plan::plan;
    use super::*;
    use crate::bandwidth::WorkingSet;
    use crate::results::bandwidth::Isa;
    use crate::results::peak::DomainRow;
    use crate::results::placement::PageSize;
    use crate::results::quality::RepetitionQuality;
    use std::time::Duration;

    fn fake_run(cpus: &[u32], per_rep: &[Vec<f64>]) -> PeakRun {
        PeakRun {
            level: "node".into(),
            id: 0,
            mix: "read".into(),
            threads: cpus.len(),
            cpus: cpus.to_vec(),
            memory_nodes: vec![0],
            code: "line walk".into(),
            mb_per_s: rates(per_rep, cpus),
            dram_mb_per_s_estimate: rates(per_rep, cpus),
            bytes_per_thread: 1 << 20,
            placement_fraction: 1.0,
            huge_fraction: 0.0,
            duration_ms: 100,
            warmup_repetitions: 1,
            quality: RepetitionQuality::default(),
        }
    }

    /// The best count's interval clears the others' only when it lies above all of them.
    #[test]
    fn best_thread_count_says_whether_its_interval_clears_the_others() {
        let reps = |base: f64| -> Vec<Vec<f64>> { (0..9).map(|k| vec![base + k as f64]).collect() };
        let runs = vec![
            fake_run(&[0], &reps(100.0)),
            fake_run(&[0], &reps(200.0)),
            fake_run(&[0], &reps(204.0)),
        ];
        let b = best_of(&runs, &[(1, 0), (2, 1)]).unwrap();
        assert_eq!((b.threads, b.run, b.clear), (2, 1, true));
        assert!(b.indistinguishable_from.is_empty());
        let b = best_of(&runs, &[(1, 0), (2, 1), (4, 2)]).unwrap();
        assert_eq!((b.threads, b.clear), (4, false));
        assert_eq!(b.indistinguishable_from, vec![2]);
        // Five repetitions: no interval, so never clear.
        let short: Vec<Vec<f64>> = (0..5).map(|k| vec![500.0 + k as f64]).collect();
        let runs = vec![fake_run(&[0], &reps(100.0)), fake_run(&[0], &short)];
        let b = best_of(&runs, &[(1, 0), (2, 1)]).unwrap();
        assert_eq!((b.threads, b.clear), (2, false));
        assert!(best_of(&runs, &[]).is_none());
    }

    /// A domain's share sums its own CPUs' rates repetition by repetition.
    #[test]
    fn domain_share_sums_its_cpus_per_repetition() {
        let per_rep: Vec<Vec<f64>> = (0..6)
            .map(|k| vec![10.0 + k as f64, 20.0, 30.0, 40.0])
            .collect();
        let s = domain_share(&[4, 5, 6, 7], &per_rep, &[4, 6]).unwrap();
        assert_eq!(s.samples, 6);
        assert_eq!(s.median, 42.5);
        assert_eq!(s.ci.map(|c| c.ends()), Some((40.0, 45.0)));
        assert!(domain_share(&[4, 5], &per_rep, &[9]).is_none());
    }

    /// Two domains: one alone at 62 % (medians 64 and 104) of both together is a node one domain cannot saturate;
    /// one domain is said plainly.
    #[test]
    fn findings_name_a_node_one_domain_cannot_saturate() {
        let reps = |base: f64| -> Vec<Vec<f64>> { (0..9).map(|k| vec![base + k as f64]).collect() };
        let runs = vec![fake_run(&[0], &reps(60.0)), fake_run(&[0, 1], &reps(100.0))];
        let row = |c: u32, alone| DomainRow {
            first_cpu: c,
            cpus: vec![c],
            l3_bytes: 1 << 25,
            alone_run: alone,
            in_all_mb_per_s: None,
            share_fraction: None,
            alone_fraction_of_all: None,
        };
        let f = domain_finding(3, &[row(0, Some(0)), row(1, None)], Some(&runs[1]), &runs);
        assert!(
            f.contains("cannot saturate") && f.contains("62 %") && !f.contains("overlap"),
            "{f}"
        );
        let f = domain_finding(3, &[row(0, None)], Some(&runs[1]), &runs);
        assert!(f.contains("one L3 domain"), "{f}");
    }

    /// On this machine: two mixes at 1 and all CPUs, every run with its placement checked and
    /// its repetitions judged. Mechanics only.
    #[test]
    fn peak_runs_every_mix_with_placement_and_quality() {
        let _serial = crate::testutil::timing_lock();
        let topo = crate::testutil::this_machine_one_node();
        let root = SysRoot::live();
        let settings = RunSettings {
            page: PageSize::Base,
            duration: Duration::from_millis(20),
            repetitions: 2,
            warmup: 0,
            params: Params::default(),
            size: WorkingSet::Total(8 << 20),
        };
        let mixes = PeakMix::parse_list("read,triad-like").unwrap();
        let p = plan(&topo, &mixes, &[0], true);
        let read = Kernel::new(crate::bandwidth::descriptor::KernelId::Read, Isa::Scalar).unwrap();
        let cfg = crate::bandwidth::Config {
            kernels: vec![read],
            variant: crate::bandwidth::Variant::Peak(p.clone()),
            placement: crate::bandwidth::plan::MemPlacement::Local,
            settings,
            keep_going: false,
        };
        let t = Toward {
            topo: &topo,
            root: &root,
            cfg: &cfg,
            goal: None,
            progress: &|_, _| {},
        };
        let mut failed = None;
        let rep = run_peak(&t, read, &p, &mut failed).unwrap();
        assert!(failed.is_none());
        let counts = super::super::peak_plan::thread_counts(topo.usable_cpus().len());
        assert_eq!(rep.runs.len(), 2 * counts.len());
        for r in &rep.runs {
            assert!(r.mb_per_s.median > 0.0, "{}", r.mix);
            assert_eq!(r.mb_per_s.samples, 2);
            assert_eq!(r.placement_fraction, 1.0);
            assert_eq!(r.quality.repetitions_kept, 2);
            assert!(r.dram_mb_per_s_estimate.median >= r.mb_per_s.median * 0.999);
        }
        let triad = rep.runs.iter().find(|r| r.mix == "triad-like").unwrap();
        assert!(triad.dram_mb_per_s_estimate.median > triad.mb_per_s.median);
        assert_eq!(rep.best.len(), 2);
        // No L3 in the synthetic topology: said, no table.
        assert!(rep.domains.is_empty());
        assert!(rep.notes.iter().any(|n| n.contains("no L3")));
    }
}
