//! Writing the reference's figures into the places the parts left to it: the sweep point and
//! the matrix cell for latency; the bandwidth result, its matrix cells and scaling points for
//! bandwidth; and the bandwidth result that stands in for it until then.

use std::time::Instant;

use crate::bandwidth::descriptor::KernelId;
use crate::bandwidth::kernels::Kernel;
use crate::placement::Policy;
use crate::results::bandwidth::Isa;
use crate::results::bandwidth::{
    BandwidthResult, BytesPerElement, Rates, StreamPlacement, ThreadRate,
};
use crate::results::latency::Mode;
use crate::results::latency::{CurveKnees, LatencyResult};
use crate::results::placement::PageSize;
use crate::results::placement::PlacementReport;
use crate::results::quality::RepetitionQuality;
use crate::results::reference::{ReferenceBandwidth, ReferenceFigure, ReferenceLatency};
use crate::results::topology::Topology;
use crate::results::{plan::Part, RunResults};
use crate::stats::Summary;

use super::take::Reference;
use super::Conditions;

impl Reference {
    /// The reference bandwidth as a bandwidth result, for a report's `results`.
    fn bandwidth_result(&self, b: &ReferenceBandwidth) -> BandwidthResult {
        let kernel = self
            .bw
            .as_ref()
            .map(|s| s.kernel)
            .or_else(|| Kernel::new(KernelId::Read, Isa::best()).ok());
        let desc = KernelId::Read.descriptor();
        let reports: Vec<&PlacementReport> = self
            .bw
            .as_ref()
            .map(|s| s.kept.iter().map(|k| &k.1).collect())
            .unwrap_or_default();
        let policy = Policy::Bind(vec![b.memory_node]).describe();
        let placements = stream_placements(&reports, &b.cpus, &policy);
        let huge = if reports.is_empty() {
            0.0
        } else {
            reports.iter().map(|r| r.huge_fraction).sum::<f64>() / reports.len() as f64
        };
        let per_thread: Vec<ThreadRate> = b
            .cpus
            .iter()
            .zip(&self.bw_per_thread)
            .map(|(&cpu, v)| ThreadRate::of(cpu, &Summary::of(v).unwrap_or(Summary::point(0.0, 0))))
            .collect();
        let rates = Rates::from_summary(&b.mb_per_s, per_thread);
        let dram = desc.dram_bytes_per_element(self.cond.line_bytes);
        let app = desc.app_bytes_per_element().max(1);
        let dram_rates = scaled_rates(&rates, dram as f64 / app as f64);
        BandwidthResult {
            // Its repetitions are the run's slots, not a count extras could add to.
            precision: None,
            kernel: desc.name.to_string(),
            isa: kernel.map_or(crate::results::bandwidth::Isa::Scalar, |k| k.isa()),
            non_temporal: desc.non_temporal,
            threads: b.threads,
            cpus: b.cpus.clone(),
            cpu_nodes: vec![b.memory_node],
            memory_nodes: vec![b.memory_node],
            placement: "local".into(),
            stream_policies: vec![policy],
            placement_fraction: b.placement_fraction,
            huge_fraction: huge,
            mb_per_s: rates,
            dram_mb_per_s_estimate: dram_rates,
            bytes_per_element: BytesPerElement {
                read: desc.read_bytes_per_element,
                written: desc.written_bytes_per_element,
                write_allocate: desc.write_allocate_bytes_per_element,
                dram_estimate: dram,
            },
            array_bytes_per_thread: b.bytes_per_thread,
            working_set_bytes: b.bytes_per_thread * b.threads as u64,
            page_size: b.page_size,
            duration_ms: b.duration_ms,
            repetitions: b.mb_per_s.samples,
            warmup_repetitions: 1,
            elapsed_ns: b.elapsed_ns.clone(),
            placements,
            quality: Some(b.quality.clone()),
            cache_level: None,
            stride_elements: None,
        }
    }

    /// Writes the reference bandwidth into every bandwidth place that shows it: the result
    /// the place indexes, the matrix cells and scaling points that index it (their knees
    /// found again).
    pub(super) fn fill_bandwidth(&self, _topo: &Topology, r: &mut RunResults) {
        let Some(f) = r.reference.as_ref() else {
            return;
        };
        let Some(b) = f.bandwidth.clone() else {
            return;
        };
        let places: Vec<(Part, usize)> = f
            .filled
            .iter()
            .filter(|p| p.figure == ReferenceFigure::Bandwidth)
            .filter_map(|p| Some((p.part, p.result_index?)))
            .collect();
        let result = self.bandwidth_result(&b);
        for (part, idx) in places {
            let report = match part {
                Part::Scaling => r.scaling.as_mut(),
                _ => r.bandwidth.as_mut(),
            };
            let Some(report) = report else { continue };
            let Some(slot) = report.results.get_mut(idx) else {
                continue;
            };
            *slot = result.clone();
            for c in report
                .matrix
                .iter_mut()
                .flat_map(|m| m.cells.iter_mut())
                .filter(|c| c.result_index == idx)
            {
                c.threads = result.threads;
                c.mb_per_s = result.mb_per_s.median;
                c.dram_mb_per_s_estimate = result.dram_mb_per_s_estimate.median;
                c.placement_fraction = result.placement_fraction;
            }
            for series in report.scaling.iter_mut().flat_map(|s| s.series.iter_mut()) {
                let mut touched = false;
                for p in series.points.iter_mut().filter(|p| p.result_index == idx) {
                    p.mb_per_s = result.mb_per_s.median;
                    p.mb_per_s_max = result.mb_per_s.max;
                    p.cpus = result.cpus.clone();
                    touched = true;
                }
                if touched {
                    series.points.sort_by_key(|p| p.threads);
                    let t: Vec<usize> = series.points.iter().map(|p| p.threads).collect();
                    let m: Vec<f64> = series.points.iter().map(|p| p.mb_per_s).collect();
                    series.knee_threads = crate::bandwidth::scaling::knee(&t, &m);
                }
            }
        }
    }

    /// A bandwidth result standing for the reference until [`Reference::store`] fills it
    /// (the parts push it where they skipped the measurement).
    pub fn placeholder(r: &RunResults) -> Option<BandwidthResult> {
        let f = r.reference.as_ref()?;
        let b = f.bandwidth.as_ref()?;
        let me = Reference::detached(b);
        Some(me.bandwidth_result(b))
    }

    /// A reference holding no measurement, for building results from stored figures.
    pub(super) fn detached(b: &ReferenceBandwidth) -> Reference {
        Reference {
            cond: Conditions {
                node: b.memory_node,
                cpu: b.cpus.first().copied().unwrap_or(0),
                cpus: b.cpus.clone(),
                latency_bytes: 0,
                line_bytes: 64,
                bytes_per_thread: b.bytes_per_thread,
            },
            t0: Instant::now(),
            lat: None,
            bw: None,
            bw_started: true,
            lat_quality: RepetitionQuality::default(),
            bw_totals: vec![],
            bw_per_thread: vec![],
            bw_elapsed: vec![],
            bw_quality: None,
            bw_retakes_left: 0,
            repetitions: vec![],
            partial: false,
            warnings: vec![],
        }
    }
}

/// `rates` times `scale` (application bytes to the estimated DRAM traffic).
fn scaled_rates(rates: &Rates, scale: f64) -> Rates {
    let scaled = |x: f64| x * scale;
    Rates {
        median: scaled(rates.median),
        min: scaled(rates.min),
        max: scaled(rates.max),
        samples: rates.samples,
        ci: rates.ci.map(|c| crate::stats::Interval {
            low: scaled(c.low),
            high: scaled(c.high),
            level: c.level,
        }),
        per_thread: rates
            .per_thread
            .iter()
            .map(|t| ThreadRate {
                cpu: t.cpu,
                median: scaled(t.median),
                min: scaled(t.min),
                max: scaled(t.max),
            })
            .collect(),
    }
}

/// One placement record per reading thread (its CPU, the bind policy, its buffer's report).
fn stream_placements(
    reports: &[&PlacementReport],
    cpus: &[u32],
    policy: &str,
) -> Vec<StreamPlacement> {
    reports
        .iter()
        .enumerate()
        .map(|(t, r)| StreamPlacement {
            thread: t,
            cpu: cpus.get(t).copied().unwrap_or(0),
            stream: 0,
            policy: policy.to_string(),
            report: (*r).clone(),
        })
        .collect()
}

/// The reference latency as a latency result (one sample per kept repetition).
pub fn latency_result(l: &ReferenceLatency) -> LatencyResult {
    LatencyResult {
        // Its repetitions are the run's slots, not a count extras could add to.
        precision: None,
        blocks: None,
        mode: l.mode,
        working_set_bytes: l.working_set_bytes,
        element_bytes: l.element_bytes,
        group_bytes: None,
        page_size: l.page_size,
        cpu: l.cpu,
        memory_node: Some(l.memory_node),
        placement_fraction: Some(l.placement_fraction),
        huge_fraction: Some(l.huge_fraction),
        chains: 1,
        ns_per_load: l.ns_per_load,
        cycles_per_load: None,
        loads_per_sample: l.loads_per_repetition / l.samples_per_repetition.max(1) as u64,
        warmup_samples: 0,
        quality: Some(l.quality.clone()),
    }
}

/// Writes the reference latency into the sweep point and matrix cell the parts left to it.
pub(super) fn fill_latency(topo: &Topology, r: &mut RunResults) {
    let Some(f) = r.reference.as_ref() else {
        return;
    };
    let Some(l) = f.latency.as_ref() else {
        return;
    };
    let res = latency_result(l);
    let sweep = f.fills(Part::Latency, ReferenceFigure::Latency);
    let matrix = f.fills(Part::LatencyMatrix, ReferenceFigure::Latency);
    let Some(rep) = r.latency.as_mut() else {
        return;
    };
    if sweep {
        let at = rep
            .sweep
            .iter()
            .position(|c| c.mode == Mode::Random && c.page_size == PageSize::Base && c.chains == 1);
        if let Some(k) = at {
            let c = &mut rep.sweep[k];
            c.points
                .retain(|p| p.working_set_bytes != res.working_set_bytes);
            let pos = c
                .points
                .iter()
                .position(|p| p.working_set_bytes > res.working_set_bytes)
                .unwrap_or(c.points.len());
            c.points.insert(pos, res.clone());
            let knees = CurveKnees::of_sweep(
                c.mode,
                c.page_size,
                c.chains,
                &c.points,
                &topo.cache_sizes_for_cpu(res.cpu),
            );
            if let Some(kn) = rep
                .knees
                .iter_mut()
                .find(|kn| kn.mode == c.mode && kn.page_size == c.page_size && kn.chains == 1)
            {
                *kn = knees;
            } else {
                rep.knees.insert(k.min(rep.knees.len()), knees);
            }
        }
    }
    if matrix {
        if let Some(m) = rep.matrix.as_mut() {
            let node = l.memory_node;
            // The row's paired ratios from the matrix's rounds are kept.
            crate::latency::matrix::with_result(topo, m, node, node, res);
        }
    }
}
