//! Runs a plan: each planned part in order, through the engines, into one [`RunResults`].
//! After every part the results so far go to the output directory (`results.json`, marked
//! partial, so a later failure or Ctrl-C loses nothing). A part that fails is
//! recorded with its error and the run goes on; Ctrl-C (the SIGINT flag of `sys::signal`)
//! stops at the next check (between sweep curves, matrix cells, scenario rows, kernel calls)
//! and the run ends marked `partial`. Progress goes to a [`Progress`] sink; nothing here prints.
//!
//! When a part that shows them is planned, the run's reference figures (local idle latency,
//! local read bandwidth: `run::reference`) are measured in repetitions spread over the run:
//! before each part after the topology and after the last one, so their interval covers the run's drift; the
//! parts under the same conditions show them instead of measuring their own. A stop keeps
//! the repetitions taken so far, marked partial. Each latency repetition walks its chain back
//! to steady state untimed before timing (`latency::steady`). At the end, every place
//! that measured a reference quantity again under the same conditions is judged against it
//! (`results::agreement`); a disagreement is a warning naming both figures.

use std::time::Instant;

use crate::results::topology::Topology;
use crate::results::{plan::Part, PartError, PartTiming, RunResults};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::findings;
use super::output::OutputDir;
use super::plan::Planned;
use super::reference::{self, Reference};
use super::runners;

/// The parts this build can execute: every part.
pub const BUILT: &[Part] = &Part::ALL;

/// Where progress goes (a terminal bar, or nowhere).
pub trait Progress: Sync {
    /// A part starts.
    fn start(&self, part: Part, estimate_s: f64);
    /// `done` of `total` steps of the current part are finished.
    fn step(&self, done: usize, total: usize);
    /// The current part ended.
    fn finish(&self);
}

/// Progress that goes nowhere.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: Part, _: f64) {}
    fn step(&self, _: usize, _: usize) {}
    fn finish(&self) {}
}

/// Fixed facts of the run, known before it starts.
pub struct RunHeader {
    pub started_at: String,
    pub host: String,
}

/// Executes `planned` on the machine. After every part the results so far are written to
/// `out`, marked partial; a failure to write stops the run (the output cannot be written).
pub fn execute(
    topo: &Topology,
    root: &SysRoot,
    planned: &Planned,
    header: RunHeader,
    progress: &dyn Progress,
    out: &OutputDir,
) -> anyhow::Result<RunResults> {
    let t0 = Instant::now();
    let mut r = RunResults::begin(
        header.started_at,
        header.host,
        planned.plan.clone(),
        topo.clone(),
    );
    let s = &planned.settings;
    let parts: Vec<(Part, f64)> = planned
        .plan
        .parts
        .iter()
        .map(|p| (p.part, p.estimate_s))
        .collect();
    let slots = reference::slots(&parts.iter().map(|p| p.0).collect::<Vec<_>>());
    let per_slot = reference::per_slot(slots);
    let mut refm = start_reference((topo, root), planned, per_slot * slots, t0, &mut r);
    let told = refm.as_ref().map_or(0, |m| m.warnings.len());
    // The reference's chased buffer, lent to each part that chases the same walk.
    let lent = refm.as_ref().and_then(Reference::lent_chain);
    for (k, &(part, est)) in parts.iter().enumerate() {
        if let Some(m) = refm.as_mut().filter(|_| reference::slot_before(part)) {
            m.take(topo, root, Some(part), per_slot);
            m.store(topo, &mut r);
        }
        if interrupted() {
            let rest: Vec<&str> = parts[k..].iter().map(|p| p.0.name()).collect();
            r.warnings.push(format!(
                "the run was interrupted ({}); parts not run: {}",
                crate::sys::signal::stop_reason(),
                rest.join(", ")
            ));
            r.partial = true;
            break;
        }
        progress.start(part, est);
        let started = Instant::now();
        let c = runners::Ctx {
            topo,
            root,
            s,
            lent: lent.as_ref(),
            step: &|d, t| progress.step(d, t),
        };
        let outcome = runners::run_part(part, c, &mut r);
        r.timings.push(PartTiming {
            part,
            seconds: started.elapsed().as_secs_f64(),
        });
        progress.finish();
        if let Some(m) = refm.as_ref() {
            m.store(topo, &mut r);
        }
        record_outcome(&mut r, part, outcome);
        derive(&mut r, t0);
        out.write_partial(&r)?;
    }
    if let Some(m) = refm.take() {
        finish_reference(m, (topo, root), (per_slot, told), &mut r);
    }
    // One quantity, one figure: a place that measured a reference quantity again
    // under the same conditions and disagrees with it is the run's warning, naming both.
    r.warnings.extend(crate::results::agreement::warnings(&r));
    if interrupted() && !r.partial {
        r.partial = true;
    }
    derive(&mut r, t0);
    Ok(r)
}

/// The run's reference (`run::reference`), started when a planned part shows one of its
/// figures and the machine has a home node; its warnings so far are the run's.
fn start_reference(
    (topo, root): (&Topology, &SysRoot),
    planned: &Planned,
    repetitions: usize,
    t0: Instant,
    r: &mut RunResults,
) -> Option<Reference> {
    let sides = reference::wanted(&planned.plan);
    let cond = reference::conditions(topo, &planned.settings)?;
    if !(sides.0 || sides.1) {
        return None;
    }
    r.reference = Some(crate::results::reference::ReferenceFigures::empty());
    let m = Reference::start(topo, root, cond, sides, repetitions, t0);
    r.warnings.extend(m.warnings.iter().cloned());
    Some(m)
}

/// The reference's last repetitions after the last part (none after a stop), its figures
/// stored and its warnings after the `told` ones at its start added.
fn finish_reference(
    mut m: Reference,
    (topo, root): (&Topology, &SysRoot),
    (per_slot, told): (usize, usize),
    r: &mut RunResults,
) {
    if interrupted() {
        m.stopped();
    } else {
        m.take(topo, root, None, per_slot);
    }
    m.store(topo, r);
    r.warnings.extend(m.warnings.iter().skip(told).cloned());
    warn_disturbed_reference(r);
}

/// Records how `part` ended: completed, interrupted (its figures incomplete) or failed.
fn record_outcome(r: &mut RunResults, part: Part, outcome: anyhow::Result<()>) {
    match outcome {
        Ok(()) if interrupted() => {
            r.partial = true;
            r.warnings.push(format!(
                "{part} was interrupted ({}): its figures are incomplete",
                crate::sys::signal::stop_reason()
            ));
            r.failed.push(PartError {
                part,
                error: format!("interrupted ({})", crate::sys::signal::stop_reason()),
            });
        }
        Ok(()) => r.completed.push(part),
        Err(e) => {
            r.partial = true;
            r.failed.push(PartError {
                part,
                error: crate::error::one_sentence(&e),
            });
        }
    }
}

/// The run's duration so far and what derives from its figures: findings and quality.
fn derive(r: &mut RunResults, t0: Instant) {
    r.duration_s = t0.elapsed().as_secs_f64();
    r.findings = findings::derive(r);
    r.quality = Some(findings::quality(r));
}

/// A reference figure whose repetitions stayed disturbed is the run's warning, as a
/// part's figure is.
fn warn_disturbed_reference(r: &mut RunResults) {
    if let Some(f) = &r.reference {
        let why = [
            ("local idle latency", f.latency.as_ref().map(|l| &l.quality)),
            (
                "local read bandwidth",
                f.bandwidth.as_ref().map(|b| &b.quality),
            ),
        ];
        for (what, q) in why {
            if let Some(reason) = q
                .filter(|q| q.disturbed)
                .and_then(crate::render::words::disturbed::reason)
            {
                r.warnings
                    .push(format!("the run's reference {what}: {reason}"));
            }
        }
        let probe = f.latency.as_ref().and_then(|l| l.probe.as_ref());
        if let Some(w) = probe.and_then(crate::run::reference::probe_warning) {
            r.warnings.push(w);
        }
    }
}
