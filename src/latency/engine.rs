//! Runs chases where they were asked to run: a thread pinned to the chosen CPU places the
//! buffer on the chosen memory node (bind, or first touch from that CPU), verifies where its
//! pages went, re-estimates the core clock, and only then builds the chains and measures
//! (METHODOLOGY points 3, 5 and 12-13). One buffer serves every size of a job (sizes are
//! prefixes of it), so the points of a sweep share one verified placement.

use crate::clock::{estimate_core_hz, ClockInfo};
use crate::placement::{PageSize, PlacedBuffer, Policy};
use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::chase::ChainSpec;
use super::measure::SamplePlan;
use super::result::{LatencyResult, Placement};
use super::sweep;

/// p90 / min above this marks a measurement as disturbed.
const NOISY: f64 = 1.25;

/// Where to run and what to place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub cpu: u32,
    /// `None`: first touch from `cpu` (the local node); `Some(n)`: bind to node `n`.
    pub memory_node: Option<u32>,
    pub page: PageSize,
}

/// What one job produced.
#[derive(Clone, Debug, PartialEq)]
pub struct JobOutcome {
    pub placement: Placement,
    /// One result per size, in the order given.
    pub results: Vec<LatencyResult>,
    pub warnings: Vec<String>,
}

/// Errors of a job, each already one sentence for the user.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(transparent)]
    Thread(#[from] crate::threads::ThreadError),
    #[error(transparent)]
    Placement(#[from] crate::placement::PlacementError),
    #[error(transparent)]
    Chain(#[from] super::chase::ChainError),
}

/// The buffer a job needs: the largest size, rounded up to the page granularity.
pub fn buffer_bytes(sizes: &[u64], page: PageSize) -> u64 {
    let max = sizes.iter().copied().max().unwrap_or(0);
    let g = page.bytes();
    max.div_ceil(g) * g
}

/// Measures every size of `sizes` with `spec` on `target`. `spec.group_bytes` is replaced by
/// the page size's TLB page when it is 0. `progress(done, total)` is called after each size.
#[allow(clippy::too_many_arguments)]
pub fn run_job(
    topo: &Topology,
    root: &SysRoot,
    target: Target,
    sizes: &[u64],
    spec: &ChainSpec,
    plan: &SamplePlan,
    clock: &ClockInfo,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<JobOutcome, JobError> {
    let mut spec = *spec;
    if spec.group_bytes == 0 {
        spec.group_bytes = target.page.tlb_page_bytes();
    }
    let bytes = buffer_bytes(sizes, target.page);
    let policy = match target.memory_node {
        Some(n) => Policy::Bind(vec![n]),
        None => Policy::FirstTouch,
    };
    let outcome = crate::threads::on_cpu(topo, root, target.cpu, || {
        let mut buf = PlacedBuffer::new(topo, root, bytes, &policy, target.page)?;
        let report = buf.verify()?;
        let mut clock = clock.clone();
        if let Some(hz) = estimate_core_hz() {
            clock.core_hz_estimate = Some(hz);
            clock.core_hz_source = format!(
                "{} (re-estimated on CPU {} right before this measurement)",
                clock.core_hz_source, target.cpu
            );
        }
        let measured = sweep::run(
            buf.as_u64_mut(),
            sizes,
            &spec,
            plan,
            clock.resolution_ns,
            progress,
        )?;
        Ok::<_, JobError>((report, clock, measured))
    })??;
    let (report, clock, measured) = outcome;
    let memory_node = target
        .memory_node
        .or_else(|| report.intended_nodes.first().copied());
    let placement = Placement {
        page_size: target.page,
        cpu: target.cpu,
        memory_node,
        placement_fraction: Some(report.fraction_on_intended),
        huge_fraction: Some(report.huge_fraction),
    };
    let mut warnings = Vec::new();
    let where_ = format!(
        "{} pages on CPU {} (memory node {})",
        target.page.label(),
        target.cpu,
        memory_node.map_or("?".into(), |n| n.to_string())
    );
    if report.fraction_on_intended < 1.0 {
        warnings.push(format!(
            "only {:.1} % of the buffer's pages are on the intended node for {where_}; the figures mix nodes",
            100.0 * report.fraction_on_intended
        ));
    }
    warnings.extend(report.backing_warning(&format!("the buffer for {where_}")));
    if let (Some(core), Some(tsc)) = (clock.core_hz_estimate, clock.tsc_hz) {
        if core < 0.75 * tsc {
            warnings.push(format!(
                "the core clock on CPU {} measured {:.2} GHz, far below the {:.2} GHz TSC: the CPU is shared or throttled, so these latencies are inflated; rerun on an idle machine",
                target.cpu,
                core / 1e9,
                tsc / 1e9
            ));
        }
    }
    let results: Vec<LatencyResult> = measured
        .iter()
        .map(|(size, m)| LatencyResult::new(&spec, *size, &placement, m, plan, &clock))
        .collect();
    let noisy: Vec<u64> = results
        .iter()
        .filter(|r| r.ns_per_load.p90 > NOISY * r.ns_per_load.min)
        .map(|r| r.working_set_bytes)
        .collect();
    if let (Some(first), Some(last)) = (noisy.first(), noisy.last()) {
        let fb = crate::parse::size::format_bytes;
        let at = if noisy.len() == 1 {
            fb(*first)
        } else {
            format!(
                "{} of {} sizes between {} and {}",
                noisy.len(),
                results.len(),
                fb(*first),
                fb(*last)
            )
        };
        warnings.push(format!(
            "samples vary by more than {:.0} % (p90 over min) at {at} for {where_}: something else ran on this CPU; rerun on an idle machine or with more --samples",
            100.0 * (NOISY - 1.0),
        ));
    }
    Ok(JobOutcome {
        placement,
        results,
        warnings,
    })
}
