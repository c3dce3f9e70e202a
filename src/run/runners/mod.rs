//! The runners of the run's parts: each turns the plan's typed settings into the
//! experiment's `Config` and calls its one entry point (`latency::run`, `bandwidth::run`,
//! `loaded::run`, `c2c::run`, the scenarios and the advisor), then files the report into the
//! [`RunResults`]. The per-part rules (what a failing curve or cell means for the part) live
//! here; measuring does not.
//!
//! One file per part: [`latency`] (the sweep and the matrix), [`bandwidth`] (kernels, matrix,
//! peak), [`scaling`], [`loaded`], [`c2c`], [`tables`] (RightMark and the stream matrix) and
//! [`policy`] (the scenarios and the advisor, whose modules take the settings as they are).

mod bandwidth;
mod c2c;
mod latency;
mod loaded;
mod policy;
mod scaling;
mod tables;

use anyhow::Context as _;

use crate::experiment::Progress as Step;
use crate::latency::kept::LentChain;
use crate::results::clock::ClockInfo;
use crate::results::latency::SamplePlan;
use crate::results::topology::Topology;
use crate::results::{plan::Part, RunResults};
use crate::sysroot::SysRoot;

use super::plan::Settings;

/// Seed of every chase of a run, so runs compare.
pub(super) const SEED: u64 = 0x6e75_6d61_7363_6f70;

/// What every part runner reads: the machine, the plan's settings, the reference's chased
/// buffer when the run keeps one (`latency::kept`: a part that chases the same walk borrows
/// it) and the progress sink.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub(super) topo: &'a Topology,
    pub(super) root: &'a SysRoot,
    pub(super) s: &'a Settings,
    pub(super) lent: Option<&'a LentChain>,
    pub(super) step: &'a Step<'a>,
}

/// Runs one part into `r`; `c.step(done, total)` reports its progress.
pub(super) fn run_part(part: Part, c: Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    // One runner file after the other: the dispatcher only names each part's runner.
    match part {
        Part::Topology => {
            r.clock = Some(ClockInfo::measure(c.root));
            Ok(())
        }
        Part::Latency => latency::latency_sweep(&c, r),
        Part::LatencyMatrix => latency::latency_matrix(&c, r),
        Part::Bandwidth => bandwidth::bandwidth(&c, r),
        Part::BandwidthMatrix => bandwidth::bandwidth_matrix(&c, r),
        Part::Peak => bandwidth::peak(&c, r),
        Part::Scaling => scaling::scaling(&c, r),
        Part::LoadedLatency => loaded::loaded_latency(&c, r),
        Part::C2c => c2c::core_to_core(&c, r),
        Part::Rightmark => tables::run_rightmark(&c, r),
        Part::StreamMatrix => tables::run_stream_matrix(&c, r),
        Part::Scenarios => policy::scenarios(&c, r),
        Part::Advisor => policy::advisor(&c, r),
    }
}

fn clock_of(r: &mut RunResults, root: &SysRoot) -> ClockInfo {
    r.clock
        .get_or_insert_with(|| ClockInfo::measure(root))
        .clone()
}

fn sample_plan(s: &Settings) -> SamplePlan {
    SamplePlan {
        samples: s.latency.samples,
        warmup: s.latency.warmup,
        min_sample_ns: s.latency.min_sample_ns,
    }
}

/// The plan's CPU that measures single-thread latency, or the error that there is none.
fn measuring_cpu(s: &Settings) -> anyhow::Result<u32> {
    s.measuring_cpu.context("no usable CPU")
}

/// Records that `part` shows a reference figure at `place` (once).
fn note_filled(
    r: &mut RunResults,
    part: Part,
    figure: crate::results::reference::ReferenceFigure,
    place: String,
    result_index: Option<usize>,
) {
    if let Some(f) = r.reference.as_mut() {
        if !f.filled.iter().any(|p| p.part == part && p.place == place) {
            f.filled.push(crate::results::reference::FilledPlace {
                part,
                figure,
                place,
                source: "reference".into(),
                result_index,
            });
        }
    }
}
