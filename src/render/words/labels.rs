//! Short labels of measured things, as warnings and tables name them: a bandwidth result
//! ("read with 2 thread(s) on CPU 0,1 (local memory)"), a peak-injection run, what two CPUs
//! of a core-to-core pair share.

use crate::results::bandwidth::BandwidthResult;
use crate::results::c2c::Relation;
use crate::results::peak::PeakRun;

/// A bandwidth figure: kernel, threads and CPUs, placement.
pub fn bandwidth(r: &BandwidthResult) -> String {
    let cpus: Vec<String> = r.cpus.iter().map(|c| c.to_string()).collect();
    format!(
        "{} with {} thread(s) on CPU {} ({} memory)",
        r.kernel,
        r.threads,
        cpus.join(","),
        r.placement
    )
}

/// A peak-injection run: its mix, thread count and scope.
pub fn peak(mix: &str, threads: usize, level: &str, id: u32) -> String {
    format!("peak {mix} with {threads} thread(s) on {level} {id}")
}

/// [`peak`] of one run.
pub fn peak_run(r: &PeakRun) -> String {
    peak(&r.mix, r.threads, &r.level, r.id)
}

/// What two CPUs share, for the core-to-core group sentence and tables (results files keep
/// it as each group's `label`).
pub fn relation(r: &Relation) -> String {
    match r {
        Relation::SameCore => "SMT siblings (same core)".into(),
        Relation::SharedCache { level } => format!("CPUs sharing an L{level}"),
        Relation::SameNode => "no shared cache, same node and package".into(),
        Relation::SamePackageOtherNode => "across nodes of one package".into(),
        Relation::SameNodeOtherPackage => "across packages within one node".into(),
        Relation::Remote => "across packages".into(),
    }
}
