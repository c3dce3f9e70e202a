//! Runs chases where they were asked to run: a thread pinned to the chosen CPU places the
//! buffer on the chosen memory node (bind, or first touch from that CPU), verifies where its
//! pages went, re-estimates the core clock, and only then builds the chains and measures
//! (docs/METHODOLOGY.md, "Page size", "Clocks and cycles", "Placed, then verified"). One buffer
//! serves every size of a job (sizes are prefixes of it, or for a sweep in passes each its own
//! region of it), so the points of a sweep share one verified placement.

use crate::clock::estimate_core_hz;

use crate::placement::{PlacedBuffer, Policy};
use crate::results::clock::ClockInfo;
use crate::results::placement::PageSize;
use crate::results::placement::PlacementReport;
use crate::results::topology::Topology;
use crate::sysroot::SysRoot;

use super::blocks::{self, Regions};
use super::chase::ChainError;
use super::chase::ChainSpec;
use super::measure::{Aim, Judge};
use super::noise::{disturbed_warning, noise_warning_between};
use super::sweep;
use crate::results::latency::SamplePlan;
use crate::results::latency::{LatencyResult, LoadDistribution, Placement};

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
    #[error(transparent)]
    Distribution(#[from] super::distribution::DistributionError),
}

/// The buffer a job needs: the largest size, rounded up to the page granularity.
pub fn buffer_bytes(sizes: &[u64], page: PageSize) -> u64 {
    let max = sizes.iter().copied().max().unwrap_or(0);
    let g = page.bytes();
    max.div_ceil(g) * g
}

/// Where the chains of a blocked sweep live: every size its own chain, interleaved in the
/// words of the elements ([`blocks::interleaved`], 1.33 times the largest size at most) when
/// an element has more than one word; else its own region for each size while the total stays
/// within [`blocks::MAX_REGION_FACTOR`] times the largest size and half the free memory of the
/// target's nodes; one shared region for everything with hugetlb pages (their pool may hold
/// the largest size only). Regions start on the TLB page or the size's power of two,
/// whichever is smaller, so a small size does not straddle a huge page.
pub fn sweep_regions(
    topo: &Topology,
    target: Target,
    sizes: &[u64],
    element_bytes: u64,
) -> Regions {
    if matches!(target.page, PageSize::Huge2M | PageSize::Huge1G) {
        return blocks::shared(sizes);
    }
    let tlb = target.page.tlb_page_bytes();
    let align = |s: u64| s.next_power_of_two().min(tlb).max(element_bytes).max(8);
    let slots = (element_bytes / 8) as usize;
    if slots > 1 {
        return blocks::interleaved(sizes, slots, element_bytes, align);
    }
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let nodes = match target.memory_node {
        Some(n) => vec![n],
        None => topo.memory_nodes(),
    };
    let free = topo.available_over(&nodes);
    let mut cap = blocks::MAX_REGION_FACTOR.saturating_mul(largest);
    if free > 0 {
        cap = cap.min(free / 2);
    }
    blocks::regions(sizes, cap, align)
}

/// One latency job: where it runs and places its buffer (`target`), the chain, the sampling
/// plan and the clock.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub topo: &'a Topology,
    pub root: &'a SysRoot,
    pub target: Target,
    pub spec: &'a ChainSpec,
    pub plan: &'a SamplePlan,
    pub clock: &'a ClockInfo,
}

impl Job<'_> {
    /// The job's chain with `group_bytes` 0 replaced by the page size's TLB page.
    fn spec(&self) -> ChainSpec {
        let mut spec = *self.spec;
        if spec.group_bytes == 0 {
            spec.group_bytes = self.target.page.tlb_page_bytes();
        }
        spec
    }
}

/// How a job samples its sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Each size's samples back to back: one moment of the machine, for a caller whose own
    /// rounds are the blocks.
    BackToBack,
    /// Sizes asked for by name, in blocks: passes over the sizes as a sweep's
    /// ([`sweep::run_blocked`]), each size's figure and interval over its block medians.
    Blocks,
    /// The working-set sweep, in passes over its sizes ([`sweep::run_blocked`]).
    Sweep,
}

impl Spread {
    /// What the blocks of a figure were taken between, for the noise warning.
    pub(crate) fn between(self) -> &'static str {
        match self {
            Spread::Sweep => "the sweep's passes",
            _ => "its blocks",
        }
    }
}

/// Measures every size of `sizes` with the job's chain on its target, the sizes `aim` names
/// toward its precision goal, as `how` says. `progress(done, total)` is called as sizes are
/// done.
pub fn run_job(
    job: &Job<'_>,
    sizes: &[u64],
    aim: Option<Aim<'_>>,
    how: Spread,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<JobOutcome, JobError> {
    let (topo, target, plan) = (job.topo, job.target, job.plan);
    let spec = job.spec();
    let blocked = how != Spread::BackToBack;
    let regions = blocked.then(|| sweep_regions(topo, target, sizes, spec.element_bytes));
    let bytes = match &regions {
        Some(r) => buffer_bytes(&[r.total_bytes], target.page),
        None => buffer_bytes(sizes, target.page),
    };
    let resident_bytes = topo
        .cache_sizes_for_cpu(target.cpu)
        .iter()
        .map(|c| c.1)
        .max()
        .unwrap_or(0);
    let (report, clock, measured) = place_and_measure(job, bytes, |buf, clock, judge| {
        let sampling = sweep::Sampling {
            spec: &spec,
            plan,
            timer_resolution_ns: clock.resolution_ns,
            judge: Some(judge),
            aim,
            pass_spacing: match how {
                Spread::Blocks => blocks::SIZES_PASS_SPACING,
                _ => std::time::Duration::ZERO,
            },
        };
        match &regions {
            Some(r) => sweep::run_blocked(buf, sizes, r, resident_bytes, &sampling, progress),
            None => sweep::run(buf, sizes, &sampling, progress),
        }
    })?;
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
    let where_ = format!(
        "{} pages on CPU {} (memory node {})",
        target.page.label(),
        target.cpu,
        memory_node.map_or("?".into(), |n| n.to_string())
    );
    let mut warnings = placement_warnings(&report, &clock, target.cpu, &where_);
    let results: Vec<LatencyResult> = measured
        .iter()
        .map(|(size, m)| LatencyResult::new(&spec, *size, &placement, m, plan, &clock))
        .collect();
    // A sweep's curves are judged together once all are measured (sweep_noise_warning).
    if how != Spread::Sweep {
        warnings.extend(noise_warning_between(&results, &where_, how.between()));
    }
    warnings.extend(disturbed_warning(&results, &where_));
    Ok(JobOutcome {
        placement,
        results,
        warnings,
    })
}

/// The per-load distribution at `size` with the one-chain `spec` on `target`: on one placed
/// buffer and one chain, first the usual chase samples (the figure the histogram's median is
/// checked against), then `groups` timed groups. `None` when a stop signal came first.
pub fn run_distribution_job(
    job: &Job<'_>,
    size: u64,
    groups: usize,
) -> Result<Option<(LoadDistribution, Vec<String>)>, JobError> {
    let (target, plan) = (job.target, job.plan);
    let spec = job.spec();
    let bytes = buffer_bytes(&[size], target.page);
    let (report, clock, measured) = place_and_measure(job, bytes, |buf, clock, judge| {
        let words = ((size / 8) as usize).min(buf.len());
        let mut chain = super::walk::Chain::build(&mut buf[..words], &spec)?;
        let chase = super::measure::measure(&mut chain, plan, clock.resolution_ns, Some(judge));
        // The chase walked the whole chain (and then some) just before: it is warm,
        // unless a stop signal cut the chase short.
        let warm = chase.is_some();
        let dist = super::distribution::measure(&mut chain, groups, Some(judge), warm);
        Ok((chase, dist))
    })?;
    let (chase, dist) = measured;
    let Some(d) = dist? else {
        return Ok(None);
    };
    let memory_node = target
        .memory_node
        .or_else(|| report.intended_nodes.first().copied());
    let where_ = format!(
        "the per-load distribution ({} pages on CPU {}, memory node {})",
        target.page.label(),
        target.cpu,
        memory_node.map_or("?".into(), |n| n.to_string())
    );
    let mut warnings = placement_warnings(&report, &clock, target.cpu, &where_);
    let invariant = super::distribution::counter_invariant();
    if invariant == Some(false) {
        warnings.push(format!(
            "the TSC of this CPU is not invariant (CPUID 0x80000007 EDX bit 8 clear): its rate may follow the core clock, so {where_} may be off by the frequency changes during it"
        ));
    }
    if let Some(reason) = d
        .quality
        .as_ref()
        .filter(|q| q.disturbed)
        .and_then(crate::render::words::disturbed::reason)
    {
        warnings.push(format!("{where_}: {reason}"));
    }
    if d.clamped > 0 {
        warnings.push(format!(
            "{} of {} timed groups took less than the timer's median cost and were counted as 0 ns in {where_}",
            d.clamped, d.groups
        ));
    }
    let dist = LoadDistribution {
        mode: spec.mode,
        working_set_bytes: size,
        element_bytes: spec.element_bytes,
        page_size: target.page,
        cpu: target.cpu,
        memory_node,
        placement_fraction: Some(report.fraction_on_intended),
        loads_per_group: super::walk::LOADS_PER_ITERATION,
        groups: d.groups,
        counter: super::distribution::counter_name().into(),
        counter_hz: d.counter_hz,
        counter_invariant: invariant,
        timer_overhead: d.overhead,
        clamped_groups: d.clamped,
        ns_per_load: d.ns_per_load,
        histogram: d.histogram,
        bins_per_octave: super::distribution::BINS_PER_OCTAVE,
        chase_ns_per_load_median: chase.map(|m| m.ns_per_load.median),
        interleaved_chase_ns_per_load_median: d.interleaved_chase_ns,
        quality: d.quality,
    };
    Ok(Some((dist, warnings)))
}

/// On a thread pinned to the target CPU: place and verify a buffer of `bytes`, re-estimate
/// the core clock, then `measure` the buffer, judging each sample on that CPU.
fn place_and_measure<M>(
    job: &Job<'_>,
    bytes: u64,
    measure: impl FnOnce(&mut [u64], &ClockInfo, Judge<'_>) -> Result<M, ChainError> + Send,
) -> Result<(PlacementReport, ClockInfo, M), JobError>
where
    M: Send,
{
    let (topo, root, target, clock) = (job.topo, job.root, job.target, job.clock);
    let policy = match target.memory_node {
        Some(n) => Policy::Bind(vec![n]),
        None => Policy::FirstTouch,
    };
    crate::threads::on_cpu(topo, root, target.cpu, || {
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
        let judge = Judge {
            root,
            cpu: target.cpu,
        };
        let measured = measure(buf.as_u64_mut(), &clock, judge)?;
        let report = buf.verify_after(report)?;
        Ok::<_, JobError>((report, clock, measured))
    })?
}

/// Warnings about where the pages went and about a core clock far below the TSC.
pub(crate) fn placement_warnings(
    report: &PlacementReport,
    clock: &ClockInfo,
    cpu: u32,
    where_: &str,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if report.fraction_on_intended < 1.0 {
        warnings.push(format!(
            "only {:.1} % of the buffer's pages are on the intended node for {where_}; the figures mix nodes",
            100.0 * report.fraction_on_intended
        ));
    }
    warnings.extend(report.backing_warning(&format!("the buffer for {where_}")));
    warnings.extend(clock_warning(clock, cpu));
    warnings
}

/// A warning when the core clock re-estimated on `cpu` is far below the TSC.
pub(crate) fn clock_warning(clock: &ClockInfo, cpu: u32) -> Option<String> {
    let (core, tsc) = (clock.core_hz_estimate?, clock.tsc_hz?);
    (core < 0.75 * tsc).then(|| {
        format!(
            "the core clock on CPU {} measured {:.2} GHz, far below the {:.2} GHz TSC: the CPU is shared or throttled, so these latencies are inflated; rerun on an idle machine",
            cpu,
            core / 1e9,
            tsc / 1e9
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::noise::sweep_noise_warning;
    use super::*;
    use crate::results::latency::PointBlocks;
    use crate::results::latency::SweepCurve;
    use crate::results::quality::RepetitionQuality;

    fn noise_warning(results: &[LatencyResult], where_: &str) -> Option<String> {
        noise_warning_between(results, where_, Spread::Sweep.between())
    }

    /// A 64 MiB result whose samples spread 40 % (p90 over min), judged or not.
    fn spread(quality: Option<RepetitionQuality>) -> LatencyResult {
        let samples: Vec<f64> = (0..10).map(|i| 100.0 + 5.0 * i as f64).collect();
        LatencyResult {
            quality,
            ..crate::latency::mlp::tests::result(1, 64 << 20, &samples)
        }
    }

    /// A spread while the thread kept its CPU is not blamed on the CPU.
    #[test]
    fn a_spread_names_the_memory_system_when_the_thread_kept_its_cpu() {
        let mut q = RepetitionQuality::new(0.9, 25);
        q.lowest_kept_cpu_share_fraction = Some(0.98);
        let w = noise_warning(&[spread(Some(q.clone()))], "CPU 0").unwrap();
        assert!(w.contains("kept its CPU (lowest share 98 %)"), "{w}");
        assert!(!w.contains("something else ran on this CPU"), "{w}");
        q.disturbed = true;
        let w = noise_warning(&[spread(Some(q))], "CPU 0").unwrap();
        assert!(w.contains("something else ran on this CPU"), "{w}");
        let w = noise_warning(&[spread(None)], "CPU 0").unwrap();
        assert!(w.contains("something else ran on this CPU"), "{w}");
    }

    fn point(bytes: u64, min: f64, p90: f64, blocks: bool) -> LatencyResult {
        let mut r = crate::run::sample::latency_matrix(&[(0, 0, 10.0, None)])
            .matrix
            .unwrap()
            .cells[0]
            .result
            .clone();
        r.working_set_bytes = bytes;
        r.ns_per_load.min = min;
        r.ns_per_load.p90 = p90;
        r.blocks = blocks.then(|| PointBlocks {
            blocks: 6,
            samples_per_block: 3,
            min_sample_ns: 1_000_000,
            block_medians_ns: vec![min, p90, min, min, min, min],
            all_samples: r.ns_per_load,
        });
        r
    }

    fn curve(mode: crate::results::latency::Mode, page: PageSize, noisy: &[u64]) -> SweepCurve {
        let points = [4096u64, 8192, 16384]
            .iter()
            .map(|&b| match noisy.contains(&b) {
                true => point(b, 10.0, 14.0, true),
                false => point(b, 10.0, 11.0, true),
            })
            .collect();
        SweepCurve {
            mode,
            page_size: page,
            chains: 1,
            points,
        }
    }

    /// Several curves of one sweep that spread give one warning with each curve's count and
    /// the range of sizes; one curve alone keeps the one-curve wording; none, nothing.
    #[test]
    fn a_sweeps_curves_share_one_noise_warning() {
        use crate::results::latency::Mode;
        let (random, page) = (Mode::Random, Mode::Page);
        let curves = [
            curve(random, PageSize::Base, &[8192, 16384]),
            curve(page, PageSize::Base, &[]),
            curve(random, PageSize::Thp, &[4096]),
        ];
        let w = sweep_noise_warning(&curves, "on CPU 0 (memory node 0)").unwrap();
        assert!(
            w.starts_with(&format!(
                "block medians vary by more than 25 % (p90 over min) at 3 of 9 points of 3 curves \
                 ({} 4k 2, {} thp 1) between 4 KiB and 16 KiB on CPU 0 (memory node 0): ",
                random.label(),
                random.label()
            )),
            "{w}"
        );
        assert!(w.contains("the sweep's passes"), "{w}");
        let one = sweep_noise_warning(&curves[..2], "on CPU 0 (memory node 0)").unwrap();
        assert!(
            one.contains("at 2 of 3 sizes between 8 KiB and 16 KiB for 4k pages on CPU 0"),
            "{one}"
        );
        assert_eq!(sweep_noise_warning(&curves[1..2], "on CPU 0"), None);
    }

    /// A sweep in passes spreads its block medians over the sweep's time: its warning names
    /// the blocks and the changing conditions; samples back to back keep theirs.
    #[test]
    fn the_noise_warning_names_what_varied() {
        let quiet = point(4096, 10.0, 11.0, true);
        let noisy = point(8192, 10.0, 14.0, true);
        assert_eq!(noise_warning(std::slice::from_ref(&quiet), "here"), None);
        let w = noise_warning(&[quiet, noisy], "here").unwrap();
        assert!(
            w.starts_with("block medians vary by more than 25 % (p90 over min) at 8 KiB for here: conditions changed between the sweep's passes"),
            "{w}"
        );
        let w = noise_warning(&[point(8192, 10.0, 14.0, false)], "here").unwrap();
        assert!(w.starts_with("samples vary by more than 25 %"), "{w}");
        // A size asked by name, in blocks: its blocks, not a sweep's passes.
        let w = noise_warning_between(
            &[point(8192, 10.0, 14.0, true)],
            "here",
            Spread::Blocks.between(),
        )
        .unwrap();
        assert!(w.contains("conditions changed between its blocks"), "{w}");
    }
}
