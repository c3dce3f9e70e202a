//! The [`Reference`] of one run: its two sides set up once, the repetitions taken before each
//! part (a disturbed one taken again while the allowance lasts), and the figures they make.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::kernels::Kernel;
use crate::placement::{PlacedBuffer, Policy};
use crate::results::bandwidth::Isa;
use crate::results::latency::Mode;
use crate::results::placement::PageSize;
use crate::results::placement::PlacementReport;
use crate::results::quality::{Decision, RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::results::reference::{
    ReferenceBandwidth, ReferenceFigures, ReferenceLatency, ReferenceRepetition,
};
use crate::results::topology::Topology;
use crate::results::{plan::Part, RunResults};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::{run_team, TeamPlan};

use super::chaser::{spawn_latency, LatMsg, LatWorker};
use super::fill::fill_latency;
use super::{Conditions, BANDWIDTH_REP_MS, SAMPLES_PER_REP};
use crate::bandwidth::team::read::{read_until, reuse_or_place, Reuse};

/// The read side: the kernel and the placed buffers kept from one repetition to the next.
pub(super) struct BwState {
    pub(super) kernel: Kernel,
    pub(super) kept: Vec<(PlacedBuffer, PlacementReport)>,
}

fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    }
}

/// The reference measurement of one run, alive from before the first part to after the last.
pub struct Reference {
    pub(super) cond: Conditions,
    pub(super) t0: Instant,
    pub(super) lat: Option<LatWorker>,
    pub(super) bw: Option<BwState>,
    pub(super) bw_started: bool,
    pub(super) lat_quality: RepetitionQuality,
    pub(super) bw_totals: Vec<f64>,
    pub(super) bw_per_thread: Vec<Vec<f64>>,
    pub(super) bw_elapsed: Vec<Vec<u64>>,
    pub(super) bw_quality: Option<RepetitionQuality>,
    /// Retakes still allowed for the bandwidth side.
    pub(super) bw_retakes_left: usize,
    pub(super) repetitions: Vec<ReferenceRepetition>,
    pub(super) partial: bool,
    /// Why a side could not be measured, one sentence each (the run's warnings).
    pub warnings: Vec<String>,
}

impl Reference {
    /// Places the buffers and links the chase of the `sides` (latency, bandwidth) asked for;
    /// `planned` repetitions in all. A side that cannot be set up is left out with a warning
    /// (the parts then measure their own).
    pub fn start(
        topo: &Topology,
        root: &SysRoot,
        cond: Conditions,
        sides: (bool, bool),
        planned: usize,
        t0: Instant,
    ) -> Reference {
        let mut warnings = Vec::new();
        let lat = match sides.0.then(|| spawn_latency(topo, root, &cond)) {
            None => None,
            Some(Ok(w)) => Some(w),
            Some(Err(e)) => {
                warnings.push(format!(
                    "the run's reference latency could not be set up ({}); each part measures its own",
                    crate::error::one_sentence(&e)
                ));
                None
            }
        };
        let bw = match sides.1.then(|| Kernel::new(KernelId::Read, Isa::best())) {
            None => None,
            Some(Ok(kernel)) => Some(BwState {
                kernel,
                kept: Vec::new(),
            }),
            Some(Err(e)) => {
                warnings.push(format!(
                    "the run's reference bandwidth could not be set up ({e}); each part measures its own"
                ));
                None
            }
        };
        // A small allowance: a third of the planned repetitions may be taken again.
        let allowance = planned.div_ceil(3).max(1);
        Reference {
            t0,
            lat,
            bw,
            bw_started: false,
            lat_quality: RepetitionQuality::new(DEFAULT_MIN_CPU_SHARE, allowance as u32),
            bw_totals: Vec::new(),
            bw_per_thread: vec![Vec::new(); cond.cpus.len()],
            bw_elapsed: Vec::new(),
            bw_quality: None,
            bw_retakes_left: allowance,
            repetitions: Vec::new(),
            partial: false,
            warnings,
            cond,
        }
    }

    /// Takes `count` repetitions (each a latency sample then a bandwidth sample) before
    /// `before` (`None`: after the last part). A stop signal ends it at once, marked partial.
    pub fn take(&mut self, topo: &Topology, root: &SysRoot, before: Option<Part>, count: usize) {
        for _ in 0..count {
            if interrupted() {
                self.partial = true;
                return;
            }
            let at_s = self.t0.elapsed().as_secs_f64();
            let (ns, latency_kept, probe_ns, cpu_disturbed) = self.take_latency(before);
            let (mb, bandwidth_kept) = self.take_bandwidth(topo, root);
            self.repetitions.push(ReferenceRepetition {
                before,
                at_s,
                ns_per_load: ns,
                latency_kept,
                mb_per_s: mb,
                bandwidth_kept,
                probe_ns,
                probe_disturbed: false,
                cpu_disturbed,
            });
        }
    }

    /// Marks the reference partial (the run stopped before its last slot).
    pub fn stopped(&mut self) {
        self.partial = true;
    }

    /// One latency repetition, taken again while it is disturbed and the allowance lasts
    /// (once spent, a disturbed one is kept and the figure marked, unless enough quiet blocks
    /// let `pool::latency_verdict` leave it out). (sample, kept, idle probes, kept
    /// disturbed); each discarded take is recorded as its own repetition.
    fn take_latency(
        &mut self,
        before: Option<Part>,
    ) -> (Option<f64>, bool, Option<[f64; 2]>, bool) {
        loop {
            let Some(w) = self.lat.as_ref() else {
                return (None, false, None, false);
            };
            let at_s = self.t0.elapsed().as_secs_f64();
            let got =
                w.go.as_ref()
                    .is_some_and(|g| g.send(()).is_ok())
                    .then(|| w.back.recv().ok())
                    .flatten();
            let Some(LatMsg::Rep {
                samples_ns,
                sample,
                probe_ns,
            }) = got
            else {
                self.warnings.push(
                    "the run's reference chasing thread stopped answering; the latency figure keeps the repetitions taken so far".into(),
                );
                self.lat = None;
                return (None, false, None, false);
            };
            let ns = crate::stats::median(&samples_ns);
            let decision = self.lat_quality.record(&sample);
            if decision.kept() {
                return (
                    Some(ns),
                    true,
                    probe_ns,
                    decision == Decision::KeepDisturbed,
                );
            }
            self.repetitions.push(ReferenceRepetition {
                before,
                at_s,
                ns_per_load: Some(ns),
                latency_kept: false,
                mb_per_s: None,
                bandwidth_kept: false,
                probe_ns,
                probe_disturbed: false,
                cpu_disturbed: false,
            });
            if interrupted() {
                return (None, false, None, false);
            }
        }
    }

    /// One bandwidth repetition through the team (which retakes a disturbed one while the
    /// allowance lasts); the first also places the buffers and runs one warm-up.
    fn take_bandwidth(&mut self, topo: &Topology, root: &SysRoot) -> (Option<f64>, bool) {
        let Some(st) = self.bw.as_mut() else {
            return (None, false);
        };
        let c = &self.cond;
        let retakes = self.bw_retakes_left.min(1);
        let mut plan = TeamPlan::new(
            Duration::from_millis(BANDWIDTH_REP_MS),
            1,
            usize::from(!self.bw_started),
        );
        plan.max_retakes = retakes;
        let reuse: Reuse = Mutex::new(std::mem::take(&mut st.kept).into_iter().map(Some).collect());
        let kernel = st.kernel;
        let out = run_team(
            topo,
            root,
            &c.cpus,
            &plan,
            |i, _cpu| {
                let policy = Policy::Bind(vec![c.node]);
                reuse_or_place(&reuse, i, topo, root, c.bytes_per_thread, &policy)
            },
            |_, state, stop| read_until(&kernel, state.0.as_f64_mut(), || stop.stopped()).0,
        );
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                self.warnings.push(format!(
                    "the run's reference bandwidth failed ({e}); each part measures its own"
                ));
                self.bw = None;
                return (None, false);
            }
        };
        self.bw_started = true;
        st.kept = out.states;
        self.bw_retakes_left -= (out.quality.repetitions_discarded as usize).min(retakes);
        RepetitionQuality::merge_into(&mut self.bw_quality, &out.quality);
        let Some(rep) = out.reps.first() else {
            return (None, false);
        };
        let bytes: u64 = rep.iter().map(|s| s.value).sum();
        let longest = rep.iter().map(|s| s.elapsed_ns).max().unwrap_or(0);
        let total = mb_per_s(bytes, longest);
        for (k, s) in rep.iter().enumerate() {
            if let Some(v) = self.bw_per_thread.get_mut(k) {
                v.push(mb_per_s(s.value, s.elapsed_ns));
            }
        }
        self.bw_elapsed
            .push(rep.iter().map(|s| s.elapsed_ns).collect());
        self.bw_totals.push(total);
        (Some(total), true)
    }

    /// The figures so far (places filled are the run's; `filled` is kept from `r`).
    pub fn figures(&self, keep: Option<&ReferenceFigures>) -> ReferenceFigures {
        let c = &self.cond;
        let verdict = self.latency_verdict();
        let quality = verdict.quality(&self.lat_quality);
        let placed = self.lat.as_ref().map(|w| &w.placement);
        let latency = match (&self.lat, Summary::of(&verdict.blocks)) {
            (_, Some(s)) => Some(ReferenceLatency {
                cpu: c.cpu,
                memory_node: c.node,
                working_set_bytes: c.latency_bytes,
                page_size: PageSize::Base,
                mode: Mode::Random,
                element_bytes: c.line_bytes,
                placement_fraction: placed.map_or(
                    keep.and_then(|k| k.latency.as_ref())
                        .map_or(1.0, |l| l.placement_fraction),
                    |p| p.fraction_on_intended,
                ),
                huge_fraction: placed.map_or(0.0, |p| p.huge_fraction),
                loads_per_repetition: self
                    .lat
                    .as_ref()
                    .map_or(0, |w| w.loads * SAMPLES_PER_REP as u64),
                samples_per_repetition: SAMPLES_PER_REP,
                ns_per_load: s,
                quality,
                probe: verdict.probe,
            }),
            _ => None,
        };
        let bandwidth = Summary::of(&self.bw_totals).map(|s| ReferenceBandwidth {
            kernel: "read".into(),
            cpus: c.cpus.clone(),
            threads: c.cpus.len(),
            memory_node: c.node,
            bytes_per_thread: c.bytes_per_thread,
            page_size: PageSize::Base,
            duration_ms: BANDWIDTH_REP_MS,
            placement_fraction: self
                .bw
                .as_ref()
                .map(|b| {
                    b.kept
                        .iter()
                        .map(|k| k.1.fraction_on_intended)
                        .fold(1.0, f64::min)
                })
                .unwrap_or(1.0),
            per_thread_mb_per_s: self
                .bw_per_thread
                .iter()
                .map(|v| crate::stats::median(v))
                .collect(),
            elapsed_ns: self.bw_elapsed.clone(),
            quality: self.bw_quality.clone().unwrap_or_default(),
            mb_per_s: s,
        });
        ReferenceFigures {
            latency,
            bandwidth,
            repetitions: verdict.repetitions,
            filled: keep.map(|k| k.filled.clone()).unwrap_or_default(),
            pooled: vec![],
            partial: self.partial,
            latency_live: self.lat.is_some(),
            bandwidth_live: self.bw.is_some(),
        }
    }

    /// Stores the figures so far into `r`, with the blocks of the places that measured them
    /// again under the same conditions pooled in (`pool`), and writes them into every place
    /// the parts left to the reference (see the module docs).
    pub fn store(&self, topo: &Topology, r: &mut RunResults) {
        let f = self.figures(r.reference.as_ref());
        r.reference = Some(f);
        self.pool(r);
        fill_latency(topo, r);
        self.fill_bandwidth(topo, r);
    }
}
