//! Core-to-core latency: how long one cache line takes to travel between two CPUs
//! (METHODOLOGY point 18). [`run`] places the line on its home node, measures the selected
//! ordered pairs with [`bounce`], and summarizes the matrix by the cache topology
//! ([`summary`]). It never prints; `cli/c2c.rs` and `render/c2c_text.rs` do.

pub mod bounce;
pub mod pairs;
pub mod result;
pub mod summary;

use std::sync::atomic::AtomicU64;

use anyhow::Context as _;

use crate::experiment::{Outcome, Progress};
use crate::placement::{PageSize, PlacedBuffer, Policy};
use crate::stats::Summary;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;
use crate::threads::{check_cpus, on_cpu};
use crate::topology::Topology;
use crate::traffic::TrafficRecorder;

pub use bounce::BouncePlan;

/// Attempts per pair, each with 4x longer repetitions and 16x smaller batches than the last
/// (10 ms and 200 round trips a sample become 640 ms and one).
const ATTEMPTS: usize = 4;
pub use result::{C2cPlan, C2cResult, PairResult, C2C_SCHEMA_VERSION};

/// A validated c2c request.
#[derive(Clone, Debug)]
pub struct Config {
    /// Distinct CPUs, ascending, at least two.
    pub cpus: Vec<u32>,
    pub line_node: u32,
    pub plan: BouncePlan,
}

/// Checks the CPUs (exist, online, allowed, at least two) and returns them ascending.
pub fn check_config_cpus(
    topo: &Topology,
    root: &SysRoot,
    cpus: &[u32],
) -> anyhow::Result<Vec<u32>> {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    check_cpus(topo, root, &v)?;
    if v.len() < 2 {
        anyhow::bail!(
            "core-to-core latency needs at least two CPUs, --cpus gives only {}; name two or more, e.g. --cpus 0,1",
            crate::parse::cpulist::format_list(&v)
        );
    }
    Ok(v)
}

/// Measures every selected pair and builds the result; `progress(done, total)` after each
/// pair. A pair that fails stops the experiment (its error names the pair); Ctrl-C stops at
/// the next pair and the pairs not measured are empty cells of the matrix.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress<'_>,
) -> anyhow::Result<Outcome<C2cResult>> {
    let cpus = check_config_cpus(topo, root, &cfg.cpus)?;
    let (mut buf, touched) = place_line(topo, root, cfg.line_node)?;
    let report = buf.verify()?;
    let line: &AtomicU64 = &buf.as_atomic_u64()[0];

    let (selected, sampling) = pairs::select_pairs(&cpus);
    let traffic = TrafficRecorder::start(root);
    let results = measure_pairs(topo, root, line, &selected, &cfg.plan, progress)?;
    let traffic = traffic.finish();
    drop(buf);

    let medians: Vec<(u32, u32, f64)> = results
        .iter()
        .map(|p| (p.from, p.to, p.ns_one_way.median))
        .collect();
    let groups = summary::group(topo, &medians);
    let warnings = disturbed_warning(&results).into_iter().collect();
    Ok(Outcome::done(C2cResult {
        schema_version: C2C_SCHEMA_VERSION,
        matrix: result::matrix_of(&cpus, &results),
        summary: summary::sentence(&groups),
        groups,
        cpus,
        line_node: cfg.line_node,
        line_touched_on_cpu: touched,
        placement_fraction: report.fraction_on_intended,
        line_placement: report,
        plan: C2cPlan {
            round_trips_per_sample: cfg.plan.round_trips_per_sample,
            repetitions: cfg.plan.repetitions,
            warmup_repetitions: 1,
            repetition_ms: cfg.plan.repetition.as_millis() as u64,
            method: "compare-and-swap handshake on one 64-byte-aligned line; ns one way = round trip / 2".into(),
        },
        sampling,
        pairs: results,
        traffic,
        environment: topo.environment.clone(),
        warnings,
    }))
}

/// Bounces the line for every selected pair, in order; Ctrl-C stops before the next pair.
fn measure_pairs(
    topo: &Topology,
    root: &SysRoot,
    line: &AtomicU64,
    selected: &[(u32, u32)],
    plan: &BouncePlan,
    progress: &Progress<'_>,
) -> anyhow::Result<Vec<PairResult>> {
    let mut results = Vec::with_capacity(selected.len());
    for (k, &(a, b)) in selected.iter().enumerate() {
        if interrupted() {
            break;
        }
        let pair = bounce::Pair {
            line,
            from: a,
            to: b,
        };
        let (bounce, used) = bounce::bounce_pair_patient(topo, root, pair, plan, ATTEMPTS)
            .with_context(|| format!("measuring CPU {a} -> CPU {b}"))?;
        let ns = Summary::of(&bounce.samples_ns).ok_or_else(|| {
            anyhow::anyhow!(
                "CPU {a} and CPU {b} completed no round trip even in {} ms repetitions; the CPUs are too busy with other work, try again when they are idle",
                used.repetition.as_millis()
            )
        })?;
        results.push(PairResult {
            from: a,
            to: b,
            relation: summary::relation(topo, a, b),
            ns_one_way: ns,
            cpu_share: bounce.cpu_share,
            quality: Some(bounce.quality),
            patience: (used != *plan).then_some(result::Patience {
                round_trips_per_sample: used.round_trips_per_sample,
                repetition_ms: used.repetition.as_millis() as u64,
            }),
        });
        progress(k + 1, selected.len());
    }
    Ok(results)
}

/// One warning for the pair whose threads got the least of their CPUs, when its repetitions
/// stayed disturbed after the retakes ran out (the times then include waiting for the other
/// thread to be scheduled).
fn disturbed_warning(results: &[PairResult]) -> Option<String> {
    let share = |p: &PairResult| p.cpu_share.unwrap_or(1.0);
    let worst = results
        .iter()
        .filter(|p| p.quality.as_ref().is_some_and(|q| q.disturbed))
        .min_by(|x, y| share(x).total_cmp(&share(y)))?;
    let reason = worst.quality.as_ref()?.reason()?;
    Some(format!(
        "core-to-core time of CPU {} -> CPU {}: {reason}",
        worst.from, worst.to
    ))
}

/// One page bound to `node`, first touched from a usable CPU of that node when it has one.
fn place_line(
    topo: &Topology,
    root: &SysRoot,
    node: u32,
) -> anyhow::Result<(PlacedBuffer, Option<u32>)> {
    let policy = Policy::Bind(vec![node]);
    let page = topo.environment.page_size_bytes.max(4096);
    match topo.usable_cpus_of(node).first() {
        Some(&cpu) => {
            let buf = on_cpu(topo, root, cpu, || {
                PlacedBuffer::new(topo, root, page, &policy, PageSize::Base)
            })??;
            Ok((buf, Some(cpu)))
        }
        None => Ok((
            PlacedBuffer::new(topo, root, page, &policy, PageSize::Base)?,
            None,
        )),
    }
}
