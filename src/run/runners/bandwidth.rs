//! The bandwidth parts of a run: the kernels, the node x node matrix, peak injection and
//! thread scaling, each through `bandwidth::run`.

use std::time::Duration;

use anyhow::Context as _;

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::kernels::{Kernel, Params};
use crate::bandwidth::plan::MemPlacement;
use crate::bandwidth::{self, RunSettings, WorkingSet};
use crate::results::bandwidth::BandwidthReport;
use crate::results::bandwidth::Isa;
use crate::results::placement::PageSize;
use crate::results::topology::Topology;
use crate::results::{plan::Part, RunResults};
use crate::schedule::TimedSettings;
use crate::threads::precision::PrecisionGoal;

use super::super::reference;
use super::{note_filled, Ctx};

/// Measures `kernels` under `variant` with the run's bandwidth settings (4 KiB pages, one
/// warm-up, each stream's arrays together `bytes_per_thread` per usable CPU whatever the
/// thread count) at `timed`, and adds the report to `slot`, its headline figures toward
/// `goal`; the part fails with the first cell that failed, keeping the others.
pub(super) fn measure(
    c: &Ctx<'_>,
    kernels: Vec<Kernel>,
    variant: bandwidth::Variant,
    timed: &TimedSettings,
    goal: Option<&PrecisionGoal>,
    slot: &mut Option<BandwidthReport>,
) -> anyhow::Result<()> {
    let cfg = bandwidth::Config {
        kernels,
        variant,
        placement: MemPlacement::Local,
        settings: RunSettings {
            page: PageSize::Base,
            duration: Duration::from_millis(timed.duration_ms),
            repetitions: timed.repetitions,
            warmup: 1,
            params: Params::default(),
            size: WorkingSet::PerStream(
                c.s.bandwidth.bytes_per_thread * c.topo.usable_cpus().len() as u64,
            ),
        },
        keep_going: true,
    };
    let out = bandwidth::experiment::run_toward(c.topo, c.root, &cfg, goal, c.step)?;
    match slot {
        Some(r) => append(r, out.report),
        None => *slot = Some(out.report),
    }
    out.failed.map_or(Ok(()), Err)
}

/// The report in `slot`, begun empty where the part has measured nothing into it yet (the
/// reference fills its figure there).
pub(super) fn report_in<'a>(
    slot: &'a mut Option<BandwidthReport>,
    topo: &Topology,
) -> &'a mut BandwidthReport {
    slot.get_or_insert_with(|| bandwidth::experiment::empty_report(topo))
}

/// The kernel `id` in the best instruction set this CPU has.
pub(super) fn kernel(id: KernelId) -> anyhow::Result<Kernel> {
    Ok(Kernel::new(id, Isa::best())?)
}

/// Appends `more` to `into`, moving the result indices of its matrices and curves past the
/// results `into` already holds.
fn append(into: &mut BandwidthReport, mut more: BandwidthReport) {
    let base = into.results.len();
    for m in &mut more.matrix {
        for c in &mut m.cells {
            c.result_index += base;
        }
    }
    for sc in &mut more.scaling {
        for p in sc.series.iter_mut().flat_map(|x| x.points.iter_mut()) {
            p.result_index += base;
        }
    }
    into.results.append(&mut more.results);
    into.matrix.append(&mut more.matrix);
    into.scaling.append(&mut more.scaling);
    if more.peak.is_some() {
        into.peak = more.peak;
    }
    into.warnings.append(&mut more.warnings);
}

pub(super) fn bandwidth(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, s) = (c.topo, c.s);
    // When every usable CPU is the home node's, the read kernel here is the run's reference
    // bandwidth (same CPUs, local memory, size per thread): it is not measured again.
    let all = topo.usable_cpus();
    let from_ref = s.home_node.is_some_and(|h| topo.usable_cpus_of(h) == all)
        && s.bandwidth.kernels.contains(&KernelId::Read)
        && reference::bandwidth_ready(
            r,
            topo,
            s,
            &all,
            reference::bytes_per_thread(topo, s, all.len()),
        );
    // A kernel this CPU cannot run (non-temporal stores off x86) fails alone.
    let mut kernels = Vec::new();
    let mut unbuilt = None;
    for &id in &s.bandwidth.kernels {
        if from_ref && id == KernelId::Read {
            continue;
        }
        match kernel(id) {
            Ok(k) => kernels.push(k),
            Err(e) => {
                unbuilt.get_or_insert(e.context(format!("kernel {}", id.descriptor().name)));
            }
        }
    }
    let was_empty = r.bandwidth.is_none();
    let measured = if kernels.is_empty() {
        Ok(())
    } else {
        let variant = bandwidth::Variant::Kernels { cpus: all };
        let goal = super::super::budget::precision_goal(&r.plan, Part::Bandwidth);
        let timed = &s.bandwidth.timed;
        measure(c, kernels, variant, timed, Some(&goal), &mut r.bandwidth)
    };
    if from_ref {
        if let Some(placeholder) = reference::Reference::placeholder(r) {
            let report = report_in(&mut r.bandwidth, topo);
            // First, where the read kernel's result stands in a bandwidth part of its own.
            let at = if was_empty { 0 } else { report.results.len() };
            report.results.insert(at, placeholder);
            if was_empty {
                shift_indices(report, 1);
            }
            note_filled(
                r,
                Part::Bandwidth,
                reference_bandwidth(),
                "kernel read on every usable CPU".into(),
                Some(at),
            );
        }
    }
    measured.and(unbuilt.map_or(Ok(()), Err))
}

/// Moves every matrix cell's and scaling point's result index by `by` (a result was put in
/// front of them).
fn shift_indices(report: &mut BandwidthReport, by: usize) {
    for c in report.matrix.iter_mut().flat_map(|m| m.cells.iter_mut()) {
        c.result_index += by;
    }
    for p in report
        .scaling
        .iter_mut()
        .flat_map(|s| s.series.iter_mut())
        .flat_map(|x| x.points.iter_mut())
    {
        p.result_index += by;
    }
}

/// Peak injection bandwidth per mix on the home node, its package and its L3 domains, at the
/// plan's fixed timing, into the run's `peak` slot.
pub(super) fn peak(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let plan = (c.s.peak.plan.clone())
        .context("no node has usable CPUs, so the peak part has nothing to run")?;
    let kernels = vec![kernel(KernelId::Read)?];
    let variant = bandwidth::Variant::Peak(plan);
    measure(c, kernels, variant, &c.s.peak.timed, None, &mut r.peak)
}

/// The bandwidth matrix part: every planned cell measured, the home node's local cell taken
/// from the run's reference where it is ready.
pub(super) fn bandwidth_matrix(c: &Ctx<'_>, r: &mut RunResults) -> anyhow::Result<()> {
    let (topo, s) = (c.topo, c.s);
    // The home node's local cell (all its CPUs reading local memory, the read kernel) is the
    // run's reference bandwidth: it is not measured again.
    let home = s.home_node;
    let from_ref = home.is_some_and(|h| {
        s.bandwidth_matrix.cells.contains(&(h, h))
            && reference::bandwidth_ready(
                r,
                topo,
                s,
                &topo.usable_cpus_of(h),
                reference::bytes_per_thread(topo, s, topo.usable_cpus_of(h).len()),
            )
    });
    let cells: Vec<(u32, u32)> = s
        .bandwidth_matrix
        .cells
        .iter()
        .copied()
        .filter(|&cell| !(from_ref && Some(cell) == home.map(|h| (h, h))))
        .collect();
    let measured = if cells.is_empty() {
        Ok(())
    } else {
        measure_matrix_cells(c, r, cells, from_ref)
    };
    if let (true, Some(h)) = (from_ref, home) {
        if cells_is_empty_matrix(r) {
            push_read_matrix(topo, r);
        }
        file_reference_cell(topo, r, h);
    }
    measured
}

/// Measures the matrix `cells` with the read kernel; where the reference fills a cell and
/// the engine made no matrix, an empty read matrix is added for it.
fn measure_matrix_cells(
    c: &Ctx<'_>,
    r: &mut RunResults,
    cells: Vec<(u32, u32)>,
    from_ref: bool,
) -> anyhow::Result<()> {
    let variant = bandwidth::Variant::Matrix {
        cells: Some(cells),
        threads: None,
    };
    let kernels = vec![kernel(KernelId::Read)?];
    let before = r.bandwidth.as_ref().map_or(0, |b| b.matrix.len());
    let goal = super::super::budget::precision_goal(&r.plan, Part::BandwidthMatrix);
    let timed = &c.s.bandwidth.timed;
    let out = measure(c, kernels, variant, timed, Some(&goal), &mut r.bandwidth);
    // The engine's matrix is the last one now; the reference cell goes into it.
    if r.bandwidth.as_ref().map_or(0, |b| b.matrix.len()) == before && from_ref {
        push_read_matrix(c.topo, r);
    }
    out
}

/// Files the reference's local read of node `h` as the matrix cell `h -> h` (sharing the
/// bandwidth part's result where that part shows the reference).
fn file_reference_cell(topo: &Topology, r: &mut RunResults, h: u32) {
    let Some(placeholder) = reference::Reference::placeholder(r) else {
        return;
    };
    // The bandwidth part's local read, when it shows the reference, is this cell's
    // figure too: one result for both places.
    let shared = r.reference.as_ref().and_then(|f| {
        f.filled
            .iter()
            .find(|p| p.part == Part::Bandwidth)
            .and_then(|p| p.result_index)
    });
    let report = report_in(&mut r.bandwidth, topo);
    let shared = shared.filter(|&i| i < report.results.len());
    let at = shared.unwrap_or(report.results.len());
    let hmat = topo.hmat_for(h, h);
    let cell = crate::results::bandwidth::MatrixCell {
        initiator: h,
        target: h,
        threads: placeholder.threads,
        mb_per_s: placeholder.mb_per_s.median,
        dram_mb_per_s_estimate: placeholder.dram_mb_per_s_estimate.median,
        placement_fraction: placeholder.placement_fraction,
        hmat_read_mb_per_s: hmat.and_then(|x| x.read_bandwidth_mb_s),
        hmat_write_mb_per_s: hmat.and_then(|x| x.write_bandwidth_mb_s),
        result_index: at,
    };
    if shared.is_none() {
        report.results.push(placeholder);
    }
    if let Some(m) = report.matrix.last_mut() {
        let pos = m
            .cells
            .iter()
            .position(|c| (c.initiator, c.target) > (h, h))
            .unwrap_or(m.cells.len());
        m.cells.insert(pos, cell);
    }
    note_filled(
        r,
        Part::BandwidthMatrix,
        reference_bandwidth(),
        format!("matrix cell {h} -> {h}"),
        Some(at),
    );
}

/// Whether the bandwidth report has no matrix yet (the part measured no cell itself).
fn cells_is_empty_matrix(r: &RunResults) -> bool {
    r.bandwidth.as_ref().is_none_or(|b| b.matrix.is_empty())
}

/// Adds an empty read matrix over the machine's nodes to the run's bandwidth report.
fn push_read_matrix(topo: &Topology, r: &mut RunResults) {
    let report = report_in(&mut r.bandwidth, topo);
    report.matrix.push(crate::results::bandwidth::Matrix {
        kernel: KernelId::Read.descriptor().name.to_string(),
        initiators: topo.initiator_nodes(),
        targets: topo.memory_nodes(),
        cells: vec![],
    });
}

/// The reference figure the bandwidth parts fill.
pub(super) fn reference_bandwidth() -> crate::results::reference::ReferenceFigure {
    crate::results::reference::ReferenceFigure::Bandwidth
}
