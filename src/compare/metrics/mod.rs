//! The figures of a run that `compare` sets side by side, as metrics with their direction
//! (lower or higher is better), pulled from a finished `RunResults`. Keys and labels use the
//! report's own wording (node lists, short byte sizes, the bandwidth matrix cells as the report
//! shows them) so a comparison names a figure as the report does; that is why this compute
//! step reads `crate::render` helpers (render never reads back). Every headline figure of a
//! run is a metric: besides the matrices, sweeps, scenarios, loaded curve
//! and c2c, the reference figures, scaling points, peak injection runs, every loaded-latency
//! mix, the RightMark and per-stream cells and the per-load distribution's percentiles; each
//! of those carries the conditions it was measured under, so `compare` can say "not
//! comparable" when two runs measured it differently.

use crate::render::run_view::{bandwidth::bw_matrix, nodes_text};
use crate::results::compare::{Better, Metric, RunMetrics};
use crate::results::format::format_bytes;
use crate::results::quality::RepetitionQuality;
use crate::results::RunResults;
use crate::stats::Summary;

mod tables;

use tables::{
    distribution_metrics, loaded_mix_metrics, peak_metrics, rightmark_metrics, scaling_metrics,
    stream_matrix_metrics,
};

fn metric(key: String, label: String, unit: &str, better: Better, s: &Summary) -> Metric {
    Metric::from_summary(key, label, unit, better, s)
}

/// The metric marked disturbed when its engine's quality record says so.
fn marked(mut m: Metric, q: Option<&RepetitionQuality>) -> Metric {
    m.disturbed = q.is_some_and(|q| q.disturbed);
    m
}

/// "1 thread" / "2 threads".
fn threads(n: usize) -> String {
    format!("{n} thread{}", if n == 1 { "" } else { "s" })
}

/// The figures `compare` sets side by side, each with the spread the run recorded.
pub fn metrics(r: &RunResults, name: &str) -> RunMetrics {
    let mut out = Vec::new();
    latency_metrics(r, &mut out);
    bandwidth_metrics(r, &mut out);
    bandwidth_matrix_metrics(r, &mut out);
    scenarios_metrics(r, &mut out);
    loaded_metrics(r, &mut out);
    c2c_metrics(r, &mut out);
    reference_metrics(r, &mut out);
    scaling_metrics(r, &mut out);
    peak_metrics(r, &mut out);
    loaded_mix_metrics(r, &mut out);
    rightmark_metrics(r, &mut out);
    stream_matrix_metrics(r, &mut out);
    distribution_metrics(r, &mut out);
    RunMetrics {
        name: name.into(),
        metrics: out,
        verdict: r.quality.as_ref().map(|q| q.verdict),
        virtual_machine: r.topology.environment.hypervisor,
    }
}

/// Latency: every matrix cell and the largest working set of each sweep curve.
fn latency_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(l) = &r.latency {
        if let Some(m) = &l.matrix {
            for c in &m.cells {
                out.push(marked(
                    metric(
                        format!("latency-matrix/{}->{}", c.initiator_node, c.memory_node),
                        format!(
                            "idle latency, CPU node {} -> memory node {}",
                            c.initiator_node, c.memory_node
                        ),
                        "ns",
                        Better::Lower,
                        &c.result.ns_per_load,
                    ),
                    c.result.quality.as_ref(),
                ));
            }
        }
        for c in &l.sweep {
            if let Some(p) = c.points.last() {
                out.push(marked(
                    metric(
                        format!(
                            "latency-sweep/{}/{}/{}",
                            c.mode.label(),
                            c.page_size.label(),
                            c.chains
                        ),
                        format!(
                            "latency at {} ({} walk, {} pages)",
                            crate::render::svg::bytes_short(p.working_set_bytes as f64),
                            c.mode.label(),
                            c.page_size.label()
                        ),
                        "ns",
                        Better::Lower,
                        &p.ns_per_load,
                    ),
                    p.quality.as_ref(),
                ));
            }
        }
    }
}

/// Bandwidth results outside the matrix (all CPUs, other placements), one per key.
fn bandwidth_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(b) = &r.bandwidth {
        // Matrix cells are compared below; here the runs on all CPUs and other placements.
        let in_matrix: Vec<usize> = b
            .matrix
            .iter()
            .flat_map(|m| m.cells.iter().map(|c| c.result_index))
            .collect();
        for (i, k) in b
            .results
            .iter()
            .enumerate()
            .filter(|(i, _)| !in_matrix.contains(i))
        {
            let key = format!(
                "bandwidth/{}/{}t/{}/{}->{}",
                k.kernel,
                k.threads,
                k.placement,
                nodes_text(&k.cpu_nodes),
                nodes_text(&k.memory_nodes)
            );
            if out.iter().any(|m: &Metric| m.key == key) {
                continue;
            }
            let _ = i;
            let s = k.mb_per_s.summary();
            out.push(marked(
                metric(
                    key,
                    format!(
                        "bandwidth, {}, {} thread{}, {} memory, nodes {} -> {}",
                        k.kernel,
                        k.threads,
                        if k.threads == 1 { "" } else { "s" },
                        k.placement,
                        nodes_text(&k.cpu_nodes),
                        nodes_text(&k.memory_nodes)
                    ),
                    "MB/s",
                    Better::Higher,
                    &s,
                ),
                k.quality.as_ref(),
            ));
        }
    }
}

/// The bandwidth matrix cells of the first kernel.
fn bandwidth_matrix_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let kernel = r
        .bandwidth
        .as_ref()
        .and_then(|b| b.matrix.first())
        .map(|m| m.kernel.clone())
        .unwrap_or_default();
    for c in bw_matrix(r.bandwidth.as_ref()) {
        let (a, b) = (c.initiator, c.target);
        out.push(marked(
            metric(
                format!("bandwidth-matrix/{kernel}/{a}->{b}"),
                format!("bandwidth ({kernel}), CPU node {a} -> memory node {b}"),
                "MB/s",
                Better::Higher,
                &c.mb_per_s,
            ),
            c.quality,
        ));
    }
}

/// Every measured policy scenario.
fn scenarios_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(s) = &r.scenarios {
        for row in &s.scenarios {
            if let Some(m) = &row.mb_per_s {
                out.push(marked(
                    metric(
                        format!("scenario/{}", row.letter),
                        format!("scenario ({}) {}", row.letter, row.label),
                        "MB/s",
                        Better::Higher,
                        m,
                    ),
                    row.quality.as_ref(),
                ));
            }
            // The single-thread latency of (a) and (b) with its interval over the blocks,
            // once per measured configuration (a row placed as another shows that
            // one's figure), under its conditions: working set, pages, walk, where the
            // thread ran.
            if let (Some(l), None) = (&row.latency, row.same_as) {
                let thread = if row.cpus.is_empty() {
                    "thread left to the scheduler".to_string()
                } else {
                    format!(
                        "thread on CPUs {}",
                        crate::results::format::format_list(&row.cpus)
                    )
                };
                let size = s
                    .latency_working_set_bytes
                    .map_or_else(|| "working set unknown".into(), format_bytes);
                out.push(
                    marked(
                        metric(
                            format!("scenario-latency/{}", row.letter),
                            format!("scenario ({}) {}, latency", row.letter, row.label),
                            "ns",
                            Better::Lower,
                            &l.ns_per_load,
                        ),
                        l.quality.as_ref(),
                    )
                    .under(format!(
                        "{size}, 4k pages, random walk, memory on node {}, {thread}",
                        s.home_node
                    )),
                );
            }
        }
    }
}

/// The loaded-latency curve: idle latency and latency at peak load.
fn loaded_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    if let Some(l) = &r.loaded_latency {
        if let Some(idle) = l.points.iter().find(|p| p.delay_ns.is_none()) {
            out.push(marked(
                metric(
                    "loaded/idle".into(),
                    "loaded-latency curve, idle latency".into(),
                    "ns",
                    Better::Lower,
                    &idle.ns_per_load,
                ),
                idle.quality.as_ref(),
            ));
        }
        if let Some(peak) = l
            .points
            .iter()
            .max_by(|a, b| a.total_mb_per_s.total_cmp(&b.total_mb_per_s))
        {
            out.push(marked(
                metric(
                    "loaded/peak-latency".into(),
                    "loaded-latency curve, latency at peak load".into(),
                    "ns",
                    Better::Lower,
                    &peak.ns_per_load,
                ),
                peak.quality.as_ref(),
            ));
        }
    }
}

/// Core-to-core relation groups, disturbed when any pair of the group is.
fn c2c_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    for c in r.c2c.iter() {
        for g in &c.groups {
            let mut m = metric(
                format!("c2c/{}", g.label),
                format!("core to core, {}", g.label),
                "ns",
                Better::Lower,
                &g.ns_one_way,
            );
            m.disturbed = c.pairs.iter().any(|p| {
                p.relation == g.relation && p.quality.as_ref().is_some_and(|q| q.disturbed)
            });
            out.push(m);
        }
    }
}

/// The run's reference figures: local idle latency and local read
/// bandwidth, measured once per run in interleaved repetitions. Their conditions (working
/// set, page size, walk, threads) are the metric's condition.
fn reference_metrics(r: &RunResults, out: &mut Vec<Metric>) {
    let Some(f) = &r.reference else { return };
    if let Some(l) = &f.latency {
        out.push(
            marked(
                metric(
                    "reference-latency/local-idle".into(),
                    "local idle latency (the run's reference figure)".into(),
                    "ns",
                    Better::Lower,
                    &l.ns_per_load,
                ),
                Some(&l.quality),
            )
            .under(format!(
                "{}, {} pages, {} walk",
                format_bytes(l.working_set_bytes),
                l.page_size.label(),
                l.mode.label()
            )),
        );
    }
    if let Some(b) = &f.bandwidth {
        out.push(
            marked(
                metric(
                    "reference-bandwidth/local-read".into(),
                    "local read bandwidth (the run's reference figure)".into(),
                    "MB/s",
                    Better::Higher,
                    &b.mb_per_s,
                ),
                Some(&b.quality),
            )
            .under(format!(
                "{} {}, {} per thread, {} pages",
                b.kernel,
                threads(b.threads),
                format_bytes(b.bytes_per_thread),
                b.page_size.label()
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::compare;
    use crate::results::compare::Conditions;
    use crate::results::latency::Mode;
    use crate::results::placement::PageSize;
    use crate::results::reference::{ReferenceBandwidth, ReferenceFigures, ReferenceLatency};

    fn summary(v: f64) -> Summary {
        let s: Vec<f64> = (0..9)
            .map(|i| v * (1.0 + (i as f64 - 4.0) * 0.002))
            .collect();
        Summary::of(&s).unwrap()
    }

    /// The example run with every figure group this module added: reference figures, a
    /// scaling curve, peak injection, a second loaded-latency mix, the RightMark and
    /// per-stream tables and the per-load distribution.
    fn full() -> RunResults {
        let mut r = crate::render::fixture::opteron_example();
        let mut f = ReferenceFigures::empty();
        f.latency = Some(ReferenceLatency {
            cpu: 0,
            memory_node: 0,
            working_set_bytes: 256 << 20,
            page_size: PageSize::Base,
            mode: Mode::Random,
            element_bytes: 64,
            placement_fraction: 1.0,
            huge_fraction: 0.0,
            loads_per_repetition: 1_000_000,
            samples_per_repetition: 1,
            ns_per_load: summary(110.0),
            quality: RepetitionQuality::default(),
            probe: None,
        });
        f.bandwidth = Some(ReferenceBandwidth {
            kernel: "read".into(),
            cpus: vec![0, 1],
            threads: 2,
            memory_node: 0,
            bytes_per_thread: 64 << 20,
            page_size: PageSize::Base,
            duration_ms: 100,
            placement_fraction: 1.0,
            mb_per_s: summary(9000.0),
            per_thread_mb_per_s: vec![],
            elapsed_ns: vec![],
            quality: RepetitionQuality::default(),
        });
        r.reference = Some(f);
        r.scaling = Some(crate::run::sample::scaling(0, &[(1, 5000.0), (2, 9000.0)]));
        r.peak = Some(crate::render::fixture::peak_bandwidth_report());
        let mut mix = r.loaded_latency.clone().unwrap();
        mix.kernel_label = "read:write 2:1".into();
        for p in mix.points.iter_mut() {
            p.total_mb_per_s_summary = Some(summary(p.total_mb_per_s));
        }
        r.loaded_latency_mixes = vec![mix];
        r.rightmark = Some(crate::render::tables_view::fixture::rightmark_example());
        r.stream_matrix = Some(crate::render::tables_view::fixture::stream_example());
        r.latency.as_mut().unwrap().distribution =
            Some(crate::render::run_view::latency_dist::tests_support::distribution());
        r
    }

    fn find<'a>(m: &'a RunMetrics, key: &str) -> &'a Metric {
        m.metrics
            .iter()
            .find(|x| x.key == key)
            .unwrap_or_else(|| panic!("no metric {key} in {:?}", keys(m)))
    }

    fn keys(m: &RunMetrics) -> Vec<&str> {
        m.metrics.iter().map(|x| x.key.as_str()).collect()
    }

    #[test]
    fn reference_scaling_peak_and_loaded_groups_become_metrics_in_the_reports_wording() {
        let m = metrics(&full(), "a");
        let l = find(&m, "reference-latency/local-idle");
        assert_eq!(l.label, "local idle latency (the run's reference figure)");
        assert_eq!((l.unit.as_str(), l.better), ("ns", Better::Lower));
        assert_eq!(l.value, 110.0);
        assert!(l.ci.is_some());
        assert_eq!(
            l.condition.as_deref(),
            Some("256 MiB, 4k pages, random walk")
        );
        let b = find(&m, "reference-bandwidth/local-read");
        assert_eq!((b.value, b.better), (9000.0, Better::Higher));
        assert_eq!(
            b.condition.as_deref(),
            Some("read 2 threads, 64 MiB per thread, 4k pages")
        );
        // Scaling: one metric per point.
        let s = find(&m, "scaling/read/packed/0/2t");
        assert_eq!(s.label, "scaling, read, node 0, packed, 2 threads");
        assert_eq!(s.value, 9000.0);
        assert!(keys(&m).contains(&"scaling/read/packed/0/1t"));
        // Peak injection: every mix at every count, labelled as the report labels them.
        let p = find(&m, "peak/node0/1:1/2t");
        assert_eq!(p.label, "peak 1:1 with 2 thread(s) on node 0");
        assert_eq!(p.value, 7000.5);
        assert_eq!(p.ci.map(|c| c.low), Some(6999.5));
        assert_eq!(
            keys(&m).iter().filter(|k| k.starts_with("peak/")).count(),
            4
        );
        // Loaded latency: the mix's idle, peak latency and bandwidth at peak; the first
        // curve's bandwidth at peak.
        for k in [
            "loaded-mix/read:write 2:1/idle",
            "loaded-mix/read:write 2:1/peak-latency",
            "loaded-bandwidth/read:write 2:1/peak",
            "loaded-bandwidth/peak",
        ] {
            find(&m, k);
        }
        let mix_bw = find(&m, "loaded-bandwidth/read:write 2:1/peak");
        assert!(mix_bw.ci.is_some() && mix_bw.unit == "MB/s");
    }

    #[test]
    fn table_and_distribution_groups_become_metrics_in_the_reports_wording() {
        let m = metrics(&full(), "a");
        // RightMark: 4 cells x 6 figures, latencies lower-is-better under their own kind.
        let rm = keys(&m)
            .iter()
            .filter(|k| k.starts_with("rightmark"))
            .count();
        assert_eq!(rm, 24);
        let rl = find(&m, "rightmark-latency/random/0->1");
        assert_eq!(
            rl.label,
            "RightMark random latency, CPU node 0 -> memory node 1"
        );
        assert_eq!((rl.value, rl.better), (112.3, Better::Lower));
        assert_eq!(rl.condition.as_deref(), Some("16 MiB block, 4k pages"));
        let rb = find(&m, "rightmark/read-prefetch/0->0");
        assert_eq!((rb.value, rb.better), (6286.0, Better::Higher));
        // Per-stream matrix: 2 x 2 cells.
        let st = find(&m, "stream-matrix/copy/0/1->0");
        assert_eq!(
            st.label,
            "per-stream copy on CPU node 0, source node 1 -> destination node 0"
        );
        assert_eq!(st.value, 2369.0);
        // The distribution: every percentile, with its interval where it has one.
        let p50 = find(&m, "latency-distribution/p50");
        assert_eq!(
            (p50.value, p50.ci.map(|c| c.ends())),
            (101.0, Some((100.0, 102.0)))
        );
        assert_eq!(p50.samples, 1000);
        assert_eq!(
            p50.condition.as_deref(),
            Some("random walk, 4k pages, 256 MiB")
        );
        assert_eq!(find(&m, "latency-distribution/p90").ci, None);
        assert_eq!(
            keys(&m)
                .iter()
                .filter(|k| k.starts_with("latency-distribution/"))
                .count(),
            6
        );
        // Keys are unique: a comparison matches each figure once.
        let mut k = keys(&m);
        let n = k.len();
        k.sort();
        k.dedup();
        assert_eq!(k.len(), n);
    }

    #[test]
    fn disturbed_figures_of_the_new_groups_are_marked() {
        let mut r = full();
        let disturbed = RepetitionQuality {
            disturbed: true,
            ..RepetitionQuality::default()
        };
        r.reference
            .as_mut()
            .unwrap()
            .latency
            .as_mut()
            .unwrap()
            .quality = disturbed.clone();
        r.rightmark.as_mut().unwrap().cells[1].figures[5]
            .figure
            .quality = Some(disturbed.clone());
        r.peak.as_mut().unwrap().peak.as_mut().unwrap().runs[0].quality = disturbed.clone();
        r.latency
            .as_mut()
            .unwrap()
            .distribution
            .as_mut()
            .unwrap()
            .quality = Some(disturbed);
        let m = metrics(&r, "a");
        for k in [
            "reference-latency/local-idle",
            "rightmark-latency/random/0->1",
            "peak/node0/read/1t",
            "latency-distribution/p99",
        ] {
            assert!(find(&m, k).disturbed, "{k}");
        }
        assert!(!find(&m, "reference-bandwidth/local-read").disturbed);
        assert!(!find(&m, "rightmark-latency/random/0->0").disturbed);
    }

    /// A/A over every group: the same run twice differs nowhere; one new figure halved
    /// beyond both intervals differs, and only that one; the same figure measured under
    /// another condition (the RightMark block size) is not comparable, not judged.
    /// The example run's per-load percentiles, to change.
    fn percentiles(r: &mut RunResults) -> &mut crate::results::latency::LoadPercentiles {
        &mut r
            .latency
            .as_mut()
            .unwrap()
            .distribution
            .as_mut()
            .unwrap()
            .ns_per_load
    }

    #[test]
    fn distribution_metrics_are_judged_but_the_tail() {
        let a = metrics(&full(), "a");
        let c = compare(&[a.clone(), metrics(&full(), "b")]);
        assert!(!c.differs);
        assert!(c.judged > 40, "{}", c.judged);
        // The distribution's p99.9, ten times slower: shown, never judged (its tail is set by
        // rare events that change from run to run); its p50 beyond both intervals is judged.
        let mut r = full();
        let p = percentiles(&mut r);
        p.p99_9 *= 10.0;
        let c = compare(&[a.clone(), metrics(&r, "b")]);
        assert!(!c.differs);
        let tail = c
            .rows
            .iter()
            .find(|x| x.key == "latency-distribution/p99.9")
            .unwrap();
        assert_eq!(
            tail.cells[1].as_ref().unwrap().not_judged,
            Some(format!(
                "not comparable: {}",
                crate::compare::DISTRIBUTION_TAIL
            ))
        );
        let p = percentiles(&mut r);
        p.p50 = 130.0;
        p.intervals.as_mut().unwrap().p50 = Some(crate::results::latency::PercentileInterval {
            low: 129.0,
            high: 131.0,
            level: 0.95,
        });
        let c = compare(&[a.clone(), metrics(&r, "b")]);
        assert!(c.differs);
        assert_eq!(c.significant_per_run, vec![0, 1]);
        let p50 = c
            .rows
            .iter()
            .find(|x| x.key == "latency-distribution/p50")
            .unwrap();
        assert_eq!(
            p50.cells[1].as_ref().unwrap().better_than_first,
            Some(false)
        );
    }

    #[test]
    fn table_metrics_are_judged_and_their_conditions_make_them_not_comparable() {
        let a = metrics(&full(), "a");
        let mut r = full();
        let f = &mut r.rightmark.as_mut().unwrap().cells[0].figures[0].figure;
        f.summary = Some(summary(1800.0));
        let c = compare(&[a.clone(), metrics(&r, "b")]);
        assert!(c.differs);
        let sig: Vec<&str> = c
            .rows
            .iter()
            .filter(|row| row.cells[1].as_ref().is_some_and(|x| x.significant))
            .map(|row| row.key.as_str())
            .collect();
        assert_eq!(sig, vec!["rightmark/read/0->0"]);
        r.rightmark.as_mut().unwrap().block_bytes = 64 << 20;
        let c = compare(&[a, metrics(&r, "b")]);
        assert!(!c.differs);
        let row = c
            .rows
            .iter()
            .find(|x| x.key == "rightmark/read/0->0")
            .unwrap();
        assert_eq!(
            row.cells[1].as_ref().unwrap().not_judged.as_deref(),
            Some("not comparable: 64 MiB block, 4k pages vs 16 MiB block, 4k pages")
        );
        // Run-level conditions still apply to the new metrics (a kernel change: none judged).
        let cond = |k: &str| Conditions {
            kernel: Some(k.into()),
            ..Conditions::default()
        };
        let c = crate::compare::compare_with(
            &[metrics(&full(), "a"), metrics(&full(), "b")],
            &[cond("6.1"), cond("6.9")],
        );
        assert_eq!(c.judged, 0);
    }

    #[test]
    fn latency_kinds_get_the_latency_floor() {
        use crate::compare::between_run_floor;
        for k in [
            "reference-latency/local-idle",
            "latency-distribution/p50",
            "loaded-mix/x/idle",
            "rightmark-latency/random/0->0",
        ] {
            assert_eq!(between_run_floor(k, true), Some(0.40), "{k}");
        }
        for k in [
            "reference-bandwidth/local-read",
            "scaling/read/packed/0/1t",
            "peak/node0/read/1t",
            "loaded-bandwidth/peak",
            "rightmark/read/0->0",
            "stream-matrix/copy/0/0->1",
        ] {
            assert_eq!(between_run_floor(k, true), Some(0.50), "{k}");
        }
    }

    /// The scenarios' single-thread latency is judged by its interval over the
    /// blocks like every other figure, lower being better, under its conditions; a row placed
    /// as another is not a second metric.
    #[test]
    fn scenario_latency_is_judged_by_its_interval_under_its_conditions() {
        let with = |ns: f64, bytes: u64| {
            let mut r = full();
            let t = r.scenarios.as_mut().unwrap();
            t.latency_working_set_bytes = Some(bytes);
            for row in t.scenarios.iter_mut().take(2) {
                row.latency = Some(crate::testutil::nine_blocks(ns, summary(ns)));
            }
            t.scenarios[1].same_as = Some(crate::results::scenarios::ScenarioId::PinnedLocal);
            r
        };
        let a = metrics(&with(100.0, 64 << 20), "a");
        let m = find(&a, "scenario-latency/a");
        assert_eq!((m.unit.as_str(), m.better), ("ns", Better::Lower));
        assert!(m.low < 100.0 && m.high > 100.0);
        assert_eq!(
            m.condition.as_deref(),
            Some("64 MiB, 4k pages, random walk, memory on node 0, thread on CPUs 0")
        );
        assert!(!a.metrics.iter().any(|m| m.key == "scenario-latency/b"));
        assert!(!compare(&[a.clone(), metrics(&with(100.0, 64 << 20), "b")]).differs);
        let c = compare(&[a.clone(), metrics(&with(200.0, 64 << 20), "b")]);
        assert!(c.differs);
        let row = c
            .rows
            .iter()
            .find(|x| x.key == "scenario-latency/a")
            .unwrap();
        let cell = row.cells[1].as_ref().unwrap();
        assert!(cell.significant && cell.better_than_first == Some(false));
        let c = compare(&[a, metrics(&with(200.0, 32 << 20), "b")]);
        let row = c
            .rows
            .iter()
            .find(|x| x.key == "scenario-latency/a")
            .unwrap();
        assert!(row.cells[1]
            .as_ref()
            .unwrap()
            .not_judged
            .as_deref()
            .is_some_and(|w| w.starts_with("not comparable: 32 MiB")));
    }
}
