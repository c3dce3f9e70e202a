//! Probes around a timed region that tell whether it was disturbed (docs/METHODOLOGY.md, "Disturbed
//! repetitions"): the calling thread's CPU time against wall time and its involuntary context
//! switches ([`ThreadProbe`]), and the steal time of the CPUs used ([`StealProbe`]). The team uses
//! both for every repetition; a single-threaded sampler (a latency walk, a pinned chaser) wraps its
//! timed region in a [`Probe`] and hands the [`RepSample`] to a
//! [`RepetitionQuality`](crate::results::quality::RepetitionQuality), which decides whether
//! to keep it:
//!
//! ```ignore
//! let mut quality = RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, planned as u32);
//! while kept.len() < planned {
//!     let probe = Probe::start(root, cpu);
//!     let value = time_one_sample();
//!     if quality.record(&probe.finish()).kept() {
//!         kept.push(value);
//!     }
//! }
//! ```
//!
//! A probe that cannot read a counter records `None` for it; it never fails the measurement.

use std::marker::PhantomData;
use std::time::Instant;

use crate::results::quality::RepSample;
use crate::sys::cputime::{thread_cpu_ns, thread_involuntary_switches};
use crate::sysroot::SysRoot;

use super::steal::{read_proc_stat, steal_between, ProcStat};

/// What one thread got over a timed region.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThreadUsage {
    /// Wall time of the region, ns.
    pub wall_ns: u64,
    /// The thread's CPU time over the region, ns.
    pub cpu_ns: Option<u64>,
    /// The thread's involuntary context switches over the region, count.
    pub involuntary_switches: Option<u64>,
}

impl ThreadUsage {
    /// CPU time / wall time, fraction (1 = the thread ran all along).
    pub fn cpu_share(&self) -> Option<f64> {
        self.cpu_ns.map(|c| c as f64 / self.wall_ns.max(1) as f64)
    }
}

/// Measures the calling thread over a region. It reads per-thread clocks, so it must finish
/// on the thread that started it: it is neither `Send` nor `Sync`.
#[derive(Debug)]
pub struct ThreadProbe {
    cpu_ns: Option<u64>,
    switches: Option<u64>,
    t0: Instant,
    _this_thread: PhantomData<*const ()>,
}

impl ThreadProbe {
    /// Starts measuring the calling thread.
    pub fn start() -> ThreadProbe {
        // The wall span encloses the CPU-time span (read first here, last in `finish`), so
        // what the thread spends between the reads counts as wall time and never as CPU time
        // outside the wall span: the share stays at or below 1.
        let t0 = Instant::now();
        let switches = thread_involuntary_switches().ok();
        let cpu_ns = thread_cpu_ns().ok();
        ThreadProbe {
            cpu_ns,
            switches,
            t0,
            _this_thread: PhantomData,
        }
    }

    /// Ends the region.
    pub fn finish(self) -> ThreadUsage {
        let cpu_ns = self
            .cpu_ns
            .and_then(|a| thread_cpu_ns().ok().map(|b| b.saturating_sub(a)));
        let involuntary_switches = self.switches.and_then(|a| {
            thread_involuntary_switches()
                .ok()
                .map(|b| b.saturating_sub(a))
        });
        let wall_ns = self.t0.elapsed().as_nanos() as u64;
        ThreadUsage {
            wall_ns,
            cpu_ns,
            involuntary_switches,
        }
    }
}

/// Reads `/proc/stat` (through the root) at the start and end of a region.
#[derive(Debug)]
pub struct StealProbe<'a> {
    root: &'a SysRoot,
    cpus: Vec<u32>,
    before: Option<ProcStat>,
}

impl<'a> StealProbe<'a> {
    /// Starts watching the steal time of `cpus` (the whole machine when their lines are
    /// missing).
    pub fn start(root: &'a SysRoot, cpus: &[u32]) -> StealProbe<'a> {
        StealProbe {
            root,
            cpus: cpus.to_vec(),
            before: read_proc_stat(root).ok(),
        }
    }

    /// Steal ticks and all ticks of those CPUs over the region; `None` when unknown.
    pub fn finish(self) -> Option<(u64, u64)> {
        let after = read_proc_stat(self.root).ok()?;
        steal_between(self.before.as_ref()?, &after, &self.cpus)
    }
}

/// Combines the judged threads' usage and the steal over one repetition into the sample the
/// quality decision reads: the lowest share (and its CPU), the switches summed.
pub fn rep_sample(threads: &[(u32, ThreadUsage)], steal: Option<(u64, u64)>) -> RepSample {
    let lowest = threads
        .iter()
        .filter_map(|(cpu, u)| u.cpu_share().map(|s| (s, *cpu)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let switches = threads
        .iter()
        .map(|(_, u)| u.involuntary_switches)
        .try_fold(0u64, |acc, s| s.map(|s| acc + s));
    RepSample {
        cpu_share_fraction: lowest.map(|l| l.0),
        cpu: lowest.map(|l| l.1),
        involuntary_switches: if threads.is_empty() { None } else { switches },
        steal_ticks: steal.map(|s| s.0),
        cpu_ticks: steal.map(|s| s.1),
    }
}

/// Both probes for a single-threaded timed region on `cpu` (see the module docs).
#[derive(Debug)]
pub struct Probe<'a> {
    cpu: u32,
    steal: StealProbe<'a>,
    thread: ThreadProbe,
}

impl<'a> Probe<'a> {
    /// Starts measuring the calling thread, pinned to `cpu`, and that CPU's steal time.
    pub fn start(root: &'a SysRoot, cpu: u32) -> Probe<'a> {
        let steal = StealProbe::start(root, &[cpu]);
        Probe {
            cpu,
            steal,
            thread: ThreadProbe::start(),
        }
    }

    /// Ends the region and returns what it measured.
    pub fn finish(self) -> RepSample {
        let usage = self.thread.finish();
        rep_sample(&[(self.cpu, usage)], self.steal.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::quality::{Decision, RepetitionQuality};
    use crate::testutil::this_machine_one_node;

    fn usage(wall: u64, cpu: u64, sw: u64) -> ThreadUsage {
        ThreadUsage {
            wall_ns: wall,
            cpu_ns: Some(cpu),
            involuntary_switches: Some(sw),
        }
    }

    #[test]
    fn rep_sample_keeps_the_lowest_share_and_sums_switches() {
        let s = rep_sample(
            &[(0, usage(100, 95, 1)), (1, usage(100, 48, 30))],
            Some((3, 20)),
        );
        assert_eq!(s.cpu_share_fraction, Some(0.48));
        assert_eq!(s.cpu, Some(1));
        assert_eq!(s.involuntary_switches, Some(31));
        assert_eq!(s.steal_fraction(), Some(0.15));
        let unknown = ThreadUsage {
            wall_ns: 100,
            cpu_ns: None,
            involuntary_switches: None,
        };
        let s = rep_sample(&[(0, unknown), (1, usage(100, 99, 0))], None);
        assert_eq!(s.cpu, Some(1), "an unknown share is not the lowest");
        assert_eq!(s.involuntary_switches, None, "a partial sum is not the sum");
        assert_eq!(s.steal_ticks, None);
        assert_eq!(rep_sample(&[], None), RepSample::default());
    }

    /// How a single-threaded sampler adopts the probe: wrap each timed region, let the
    /// quality record decide, keep what it keeps.
    #[test]
    fn a_single_threaded_sampler_keeps_what_the_quality_record_keeps() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let cpu = topo.usable_cpus()[0];
        let planned = 3usize;
        let (kept, quality) = crate::threads::on_cpu(&topo, &root, cpu, || {
            // An impossible threshold: every sample is disturbed, so the allowance is spent
            // and the last ones are kept, marked.
            let mut quality = RepetitionQuality::new(1.01, 2);
            let mut kept = Vec::new();
            while kept.len() < planned {
                let probe = Probe::start(&root, cpu);
                let (t, mut x) = (std::time::Instant::now(), 0u64);
                while t.elapsed() < std::time::Duration::from_millis(3) {
                    x = std::hint::black_box(x + 1);
                }
                let sample = probe.finish();
                let share = sample.cpu_share_fraction.expect("the thread clock reads");
                assert!(share > 0.0 && share <= 1.05, "share {share}");
                assert_eq!(sample.cpu, Some(cpu));
                if quality.record(&sample).kept() {
                    kept.push(x);
                }
            }
            (kept, quality)
        })
        .unwrap();
        assert_eq!(kept.len(), planned);
        assert_eq!(quality.repetitions_taken, 5);
        assert_eq!(quality.repetitions_discarded, 2);
        assert_eq!(quality.repetitions_kept_disturbed, 3);
        assert!(quality.disturbed);
        assert!(crate::render::words::disturbed::reason(&quality)
            .unwrap()
            .contains(&format!("CPU {cpu} ran")));
        let mut q = RepetitionQuality::new(0.0, 2);
        let probe = Probe::start(&root, cpu);
        assert_eq!(q.record(&probe.finish()), Decision::Keep, "threshold 0");
    }
}
