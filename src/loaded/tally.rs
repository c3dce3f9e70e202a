//! One repetition's threads summed into a block's figures: the chaser's samples, windows and
//! rate, the load threads' rates, spins, lines and window slices, and each thread's own rate.

use super::kernel::{LoadCount, SliceMark, LINE_BYTES};
use super::points::{Out, Sample, Window};
use crate::results::loaded::ThreadRate;
use crate::results::traffic::NodeEventCounts;
use crate::stats::Summary;

/// What a repetition's threads add up to; borrows the chaser's samples and windows and the
/// load threads' slices from the repetition.
#[derive(Default)]
pub(super) struct Tally<'a> {
    pub(super) threads: Vec<ThreadRate>,
    pub(super) load_mb: f64,
    pub(super) chaser_mb: f64,
    pub(super) dram_extra_mb: f64,
    /// The chaser's summary, ns per load; `None` when it completed no sample.
    pub(super) ns: Option<Summary>,
    pub(super) chaser_events: Option<NodeEventCounts>,
    pub(super) chaser_windows: &'a [Window],
    pub(super) chaser_samples: &'a [f64],
    pub(super) started: Option<std::time::Instant>,
    pub(super) load_slices: Vec<(&'a LoadCount, &'a [SliceMark])>,
    pub(super) spins: u64,
    pub(super) lines: u64,
}

impl<'a> Tally<'a> {
    /// Sums `rep`'s threads; `loaded`: the load threads' CPU shares count (not at the idle
    /// point, where they sleep).
    pub(super) fn of(rep: &'a [Sample], loaded: bool) -> Tally<'a> {
        let mut t = Tally {
            threads: Vec::with_capacity(rep.len()),
            ..Tally::default()
        };
        for s in rep {
            let secs_ns = s.elapsed_ns.max(1) as f64;
            let cpu_share = s.cpu_share();
            match &s.value {
                Out::Chaser {
                    started: at,
                    samples_ns,
                    loads,
                    windows,
                    events,
                } => {
                    t.chaser_events = events.clone();
                    t.chaser_windows = windows;
                    t.chaser_samples = samples_ns;
                    t.started = Some(*at);
                    let mb = (*loads * LINE_BYTES as u64) as f64 / secs_ns * 1e3;
                    t.chaser_mb += mb;
                    t.ns = Summary::of(samples_ns);
                    t.threads.push(ThreadRate {
                        cpu: s.cpu,
                        role: "chaser".into(),
                        mb_per_s: mb,
                        elapsed_ns: s.elapsed_ns,
                        cpu_share,
                        lines_read: *loads,
                        lines_written: 0,
                    });
                }
                Out::Load { count: c, marks } => {
                    t.load_slices.push((c, marks));
                    let mb = c.bytes() as f64 / secs_ns * 1e3;
                    t.load_mb += mb;
                    t.dram_extra_mb += (c.dram_bytes_estimate() - c.bytes()) as f64 / secs_ns * 1e3;
                    t.spins += c.spin_iterations;
                    t.lines += c.lines();
                    t.threads.push(ThreadRate {
                        cpu: s.cpu,
                        role: "load".into(),
                        mb_per_s: mb,
                        elapsed_ns: s.elapsed_ns,
                        cpu_share: if loaded { cpu_share } else { None },
                        lines_read: c.lines_read,
                        lines_written: c.lines_written,
                    });
                }
            }
        }
        t
    }
}
