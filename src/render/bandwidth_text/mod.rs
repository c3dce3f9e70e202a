//! Terminal text for bandwidth: the kernel listing (from the descriptors alone) and the
//! measured results. Takes finished data and a writer; never measures, never reads the machine.
//! Every rate column says its unit, MB/s with 1 MB = 10^6 B.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};

use crate::results::bandwidth::{BandwidthReport, BandwidthResult, Matrix, Scaling, Sweep};
use crate::results::format::format_bytes;
use crate::results::format::format_list;

mod kernels;
pub use kernels::render_kernel_list;

/// Writes the measured results, the section `numascope bandwidth` prints and `report --full`
/// prints for the run's bandwidth and scaling parts: the peak table, or the sweep, or the
/// per-run table of every result not shown as a scaling point (matrix cells included: the
/// grid shows their medians, the table their intervals); then the matrices, the scaling
/// curves, the precision reached and the verdict with warnings.
pub fn render_report(w: &mut dyn Write, report: &BandwidthReport) -> io::Result<()> {
    if let Some(p) = &report.peak {
        super::peak_text::render_peak(w, p)?;
    } else if let Some(sw) = &report.sweep {
        render_sweep(w, sw, &report.results)?;
    } else {
        let listed = unlisted_results(report);
        if listed.is_empty() {
            // The scaling tables name no kernel row: say what the stride was here.
            stride_note(w, &report.results)?;
        } else {
            render_results(w, &listed)?;
        }
    }
    for m in &report.matrix {
        render_matrix(w, m)?;
    }
    for s in &report.scaling {
        render_scaling(w, s, &report.results)?;
    }
    precision(w, report)?;
    let q = super::verdict::of_checks(&crate::results::verdict::bandwidth_checks(
        "bandwidth",
        report,
    ));
    super::verdict::write_text(w, Some(&q), &warnings(report), "")
}

/// The results no scaling point shows (a scaling table prints each point's interval itself).
fn unlisted_results(report: &BandwidthReport) -> Vec<BandwidthResult> {
    let on_curve = |i: usize| {
        report
            .scaling
            .iter()
            .flat_map(|s| &s.series)
            .flat_map(|s| &s.points)
            .any(|p| p.result_index == i)
    };
    report
        .results
        .iter()
        .enumerate()
        .filter(|(i, _)| !on_curve(*i))
        .map(|(_, r)| r.clone())
        .collect()
}

/// The headline figures measured toward a precision target (each kernel's result,
/// each matrix cell, each scaling point), each with the interval half-width it reached and the
/// extra repetitions it took; nothing when no figure has a target.
fn precision(w: &mut dyn Write, report: &BandwidthReport) -> io::Result<()> {
    let mut lines = Vec::new();
    for (i, x) in report.results.iter().enumerate() {
        let Some(p) = &x.precision else { continue };
        let cell = report
            .matrix
            .iter()
            .flat_map(|m| &m.cells)
            .find(|c| c.result_index == i);
        let what = match cell {
            Some(c) => format!(
                "{} node {} -> memory node {}",
                x.kernel, c.initiator, c.target
            ),
            None => format!(
                "{} on {} thread(s) (CPUs {})",
                x.kernel,
                x.threads,
                format_list(&x.cpus)
            ),
        };
        lines.push(format!(
            "{what}: {}",
            crate::render::precision_words::clause_in(p, "repetition", "repetitions")
        ));
    }
    if !lines.is_empty() {
        writeln!(
            w,
            "Interval half-widths of the headline figures against their target (extra repetitions are taken while an interval is wider, at most as many as planned):"
        )?;
        for l in lines {
            writeln!(w, "  {l}")?;
        }
    }
    Ok(())
}

fn mb(v: f64) -> String {
    format!("{v:.0}")
}

fn pct(f: f64) -> String {
    format!("{:.1} %", f * 100.0)
}

/// One row per run: rates (median and max over repetitions) and each thread's median.
pub fn render_results(w: &mut dyn Write, results: &[BandwidthResult]) -> io::Result<()> {
    let mut t = crate::render::width::table(
        UTF8_FULL_CONDENSED,
        vec![
            "kernel",
            "ISA",
            "threads (CPUs)",
            "memory",
            "on intended node",
            "huge pages",
            "working set",
            "MB/s median (1 MB = 10^6 B) [95 % interval]",
            "MB/s max",
            "DRAM MB/s est. median",
            "per thread MB/s (median)",
        ],
    );
    for r in results {
        let memory = if r.placement == "local" {
            format!("local ({})", format_list(&r.memory_nodes))
        } else {
            r.stream_policies.join(" / ")
        };
        let per_thread = r
            .mb_per_s
            .per_thread
            .iter()
            .map(|p| format!("{}: {}", p.cpu, mb(p.median)))
            .collect::<Vec<_>>()
            .join(", ");
        t.add_row(vec![
            kernel_label(r),
            r.isa.label().to_string(),
            format!("{} ({})", r.threads, format_list(&r.cpus)),
            memory,
            pct(r.placement_fraction),
            pct(r.huge_fraction),
            format_bytes(r.working_set_bytes),
            super::run_view::fmt_ci(
                &super::run_view::bandwidth::rates_summary(&r.mb_per_s),
                r.quality.as_ref(),
            ),
            mb(r.mb_per_s.max),
            // A cache-resident working set never reaches DRAM: say where it is instead.
            match &r.cache_level {
                Some(level) => format!("- (fits in {level})"),
                None => mb(r.dram_mb_per_s_estimate.median),
            },
            per_thread,
        ]);
    }
    for c in [4, 5, 6, 7, 8, 9] {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(w, "{}", super::width::fit(&t))?;
    if let Some(r) = results.first() {
        writeln!(
            w,
            "Median and max over {} repetitions of {} ms ({} dropped as warm-up). MB/s counts \
             application bytes as STREAM does; the DRAM estimate adds the write-allocate read of \
             normal stores. 1 MB = 10^6 B.",
            r.repetitions, r.duration_ms, r.warmup_repetitions
        )?;
    }
    stride_note(w, results)?;
    Ok(())
}

/// The kernel's name, with its stride when it has one: `triad, stride 8 (64 B)`.
pub fn kernel_label(r: &BandwidthResult) -> String {
    match r.stride_elements {
        Some(s) => format!("{}, stride {s} ({} B)", r.kernel, s * 8),
        None => r.kernel.clone(),
    }
}

/// One sentence on what a strided figure counts, when any result has a stride.
fn stride_note(w: &mut dyn Write, results: &[BandwidthResult]) -> io::Result<()> {
    let mut strides: Vec<u64> = results.iter().filter_map(|r| r.stride_elements).collect();
    strides.sort_unstable();
    strides.dedup();
    if !strides.is_empty() {
        let list = strides
            .iter()
            .map(|s| format!("{s} ({} B)", s * 8))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            w,
            "Stride {list}: every N-th 8 B element is processed; MB/s counts the useful bytes \
             of the elements processed (8 B per stream each), the DRAM estimate the lines they \
             move (a whole line per stream and element once the stride reaches a line, two for \
             a normal store)."
        )?;
    }
    Ok(())
}

/// Bandwidth against working-set size: one row per size (per thread, with the cache it fits
/// in), one column per kernel (median MB/s of all threads with its interval).
pub fn render_sweep(w: &mut dyn Write, sw: &Sweep, results: &[BandwidthResult]) -> io::Result<()> {
    let mut kernels: Vec<&str> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    for p in &sw.points {
        if !kernels.contains(&p.kernel.as_str()) {
            kernels.push(&p.kernel);
        }
        if !sizes.contains(&p.working_set_bytes_per_thread) {
            sizes.push(p.working_set_bytes_per_thread);
        }
    }
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec!["working set per thread".to_string(), "fits in".to_string()];
    header.extend(
        kernels
            .iter()
            .map(|k| format!("{k} MB/s median [95 % interval]")),
    );
    t.set_header(header);
    for &size in &sizes {
        let at: Vec<_> = sw
            .points
            .iter()
            .filter(|p| p.working_set_bytes_per_thread == size)
            .collect();
        let fits = at.first().map_or("-".into(), |p| {
            p.fits_in
                .strip_prefix("fits in ")
                .unwrap_or(&p.fits_in)
                .to_string()
        });
        let mut row = vec![format_bytes(size), fits];
        for k in &kernels {
            row.push(match at.iter().find(|p| p.kernel == *k) {
                None => "-".into(),
                Some(p) => match results.get(p.result_index) {
                    Some(r) => super::run_view::fmt_ci(
                        &super::run_view::bandwidth::rates_summary(&r.mb_per_s),
                        r.quality.as_ref(),
                    ),
                    None => mb(p.mb_per_s),
                },
            });
        }
        t.add_row(row);
    }
    for c in 2..2 + kernels.len() {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(
        w,
        "Bandwidth against working-set size, {} thread(s) on CPU {}; sizes are per thread (all \
         its streams together), rates are all threads together.",
        sw.threads,
        format_list(&sw.cpus)
    )?;
    writeln!(w, "{}", super::width::fit(&t))?;
    if let Some(r) = results.first() {
        writeln!(
            w,
            "Median over {} repetitions of {} ms ({} dropped as warm-up); a small working set is \
             swept over and over for the whole repetition. \"fits in\" is the smallest declared \
             cache holding the threads' arrays. MB/s counts application bytes as STREAM does, \
             1 MB = 10^6 B.",
            r.repetitions, r.duration_ms, r.warmup_repetitions
        )?;
    }
    stride_note(w, results)?;
    Ok(())
}

/// The matrix: initiator rows, memory-node columns, median MB/s; HMAT beside it when given.
pub fn render_matrix(w: &mut dyn Write, m: &Matrix) -> io::Result<()> {
    let has_hmat = m
        .cells
        .iter()
        .any(|c| c.hmat_read_mb_per_s.is_some() || c.hmat_write_mb_per_s.is_some());
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec![format!("{}: CPU node \\ memory node", m.kernel)];
    header.extend(m.targets.iter().map(|n| format!("node {n} MB/s")));
    t.set_header(header);
    for &i in &m.initiators {
        let mut row = vec![format!("node {i}")];
        for &tg in &m.targets {
            let cell = m.cells.iter().find(|c| c.initiator == i && c.target == tg);
            row.push(match cell {
                None => "-".into(),
                Some(c) => {
                    let mut s = mb(c.mb_per_s);
                    if c.placement_fraction < 0.9995 {
                        s.push_str(&format!(" ({} placed)", pct(c.placement_fraction)));
                    }
                    if has_hmat {
                        let h = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or("-".into());
                        s.push_str(&format!(
                            "\nHMAT r/w {}/{}",
                            h(c.hmat_read_mb_per_s),
                            h(c.hmat_write_mb_per_s)
                        ));
                    }
                    s
                }
            });
        }
        t.add_row(row);
    }
    writeln!(w, "{}", super::width::fit(&t))?;
    let threads: Vec<usize> = m.cells.iter().map(|c| c.threads).collect();
    writeln!(
        w,
        "Median MB/s (1 MB = 10^6 B), application bytes; {} thread(s) per initiator node, all \
         streams bound to the memory node.{}",
        format_list(&threads.iter().map(|&x| x as u32).collect::<Vec<_>>()),
        if has_hmat {
            " HMAT figures are firmware-declared (ACPI), not measured."
        } else {
            ""
        }
    )
}

/// Each scaling curve with its knee; each point's interval comes from its result in
/// `results`.
pub fn render_scaling(
    w: &mut dyn Write,
    s: &Scaling,
    results: &[BandwidthResult],
) -> io::Result<()> {
    for series in &s.series {
        let scope = match series.node {
            Some(n) => format!("node {n}"),
            None => "whole machine".into(),
        };
        writeln!(w, "{}: {} over {}", s.kernel, series.mode, scope)?;
        let mut t = crate::render::width::table(
            UTF8_FULL_CONDENSED,
            vec![
                "threads",
                "CPUs",
                "MB/s median (1 MB = 10^6 B) [95 % interval]",
                "MB/s max",
            ],
        );
        for p in &series.points {
            let median = match results.get(p.result_index) {
                Some(r) => {
                    let mut sum = super::run_view::bandwidth::rates_summary(&r.mb_per_s);
                    sum.median = p.mb_per_s;
                    super::run_view::fmt_ci(&sum, r.quality.as_ref())
                }
                None => mb(p.mb_per_s),
            };
            t.add_row(vec![
                p.threads.to_string(),
                format_list(&p.cpus),
                median,
                mb(p.mb_per_s_max),
            ]);
        }
        writeln!(w, "{}", super::width::fit(&t))?;
        match series.knee_threads {
            Some(k) => writeln!(
                w,
                "knee: {k} thread(s); more threads add less than 10 % in total and per thread."
            )?,
            None => writeln!(w, "knee: none; bandwidth still rises at the last point.")?,
        }
    }
    if let Some(r) = results.first().filter(|_| !s.series.is_empty()) {
        writeln!(
            w,
            "Each point: median and max over {} repetitions of {} ms ({} dropped as warm-up).",
            r.repetitions, r.duration_ms, r.warmup_repetitions
        )?;
    }
    Ok(())
}

/// What the reader must know before trusting the numbers.
pub fn warnings(report: &BandwidthReport) -> Vec<String> {
    let mut v = report.warnings.clone();
    for r in &report.results {
        if r.placement_fraction < 0.9995 {
            v.push(format!(
                "{} on CPUs {}: only {} of the pages are on the intended node(s) {}; the figure mixes nodes (free memory short, or a policy the kernel could not honour)",
                r.kernel,
                format_list(&r.cpus),
                pct(r.placement_fraction),
                format_list(&r.memory_nodes)
            ));
        }
    }
    let remote = report
        .results
        .iter()
        .any(|r| r.memory_nodes.iter().any(|n| !r.cpu_nodes.contains(n)));
    if remote && report.numa_balancing.is_some_and(|b| b != 0) {
        v.push("automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing), so the kernel may migrate remote pages toward the threads during the run; turn it off (echo 0 > /proc/sys/kernel/numa_balancing) for remote figures you can trust".into());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::bandwidth::KernelListing;

    use crate::results::bandwidth::KernelRow;

    fn row(name: &str, strided: bool) -> KernelRow {
        KernelRow {
            name: name.into(),
            description: format!("what {name} does"),
            streams: 1,
            read_bytes_per_element: 8,
            written_bytes_per_element: 0,
            app_bytes_per_element: 8,
            write_allocate_bytes_per_element: 0,
            dram_bytes_per_element: if strided { 64 } else { 8 },
            non_temporal: false,
            simd: !strided,
            strided,
        }
    }

    #[test]
    fn kernel_list_names_every_kernel_and_the_units() {
        let listing = KernelListing {
            line_bytes: 64,
            kernels: vec![
                row("read", false),
                row("read-stride", true),
                row("read-random", true),
            ],
        };
        let s = crate::render::fixture::written(|o| render_kernel_list(o, &listing));
        for d in &listing.kernels {
            assert!(s.contains(&d.name), "{}", d.name);
        }
        assert!(s.contains("1 MB = 10^6 B"));
        assert!(s.contains("DRAM B/elem (est.)"));
        assert!(s.contains("64-byte line"));
        assert!(s.contains("for read-stride and read-random"), "{s}");
    }

    /// A strided result names its stride in the kernel column and the note says what its
    /// MB/s and DRAM estimate count; contiguous results print neither.
    #[test]
    fn a_strided_result_names_its_stride_and_its_accounting() {
        let mut results = crate::render::fixture::opteron_example()
            .bandwidth
            .expect("the fixture has a bandwidth part")
            .results;
        results.truncate(2);
        let plain = crate::render::fixture::written(|o| render_results(o, &results));
        assert!(!plain.contains("stride"), "{plain}");
        results[0].stride_elements = Some(8);
        assert_eq!(
            kernel_label(&results[0]),
            format!("{}, stride 8 (64 B)", results[0].kernel)
        );
        let s = crate::render::fixture::written(|o| render_results(o, &results));
        assert!(s.contains("stride 8 (64 B)"), "{s}");
        assert!(
            s.contains("useful bytes") && s.contains("lines they"),
            "{s}"
        );
    }

    /// A figure measured toward a target shows the width it reached and its extra
    /// repetitions in the section the standalone command and `report --full` print;
    /// without one the output is unchanged.
    #[test]
    fn figures_measured_toward_a_target_show_their_width_and_extras() {
        let mut r = crate::render::fixture::opteron_example();
        let mut before = Vec::new();
        render_report(&mut before, r.bandwidth.as_ref().unwrap()).unwrap();
        assert!(!String::from_utf8(before)
            .unwrap()
            .contains("against their target"));
        let b = r.bandwidth.as_mut().unwrap();
        let k = b
            .results
            .iter()
            .position(|x| x.placement == "local")
            .expect("a local kernel result");
        b.results[k].precision = Some(crate::results::quality::Precision {
            target_half_width_fraction: 0.03,
            half_width_fraction: Some(0.012),
            planned_rounds: 9,
            extra_rounds: 3,
        });
        let s = crate::render::fixture::written(|o| render_report(o, b));
        assert!(s.contains("against their target"), "{s}");
        assert!(
            s.contains(": \u{b1}1.2 % (target \u{b1}3 %, 3 extra repetitions)"),
            "{s}"
        );
        // `report --full` prints the same section, so the same line.
        let full = crate::render::fixture::written(|o| crate::render::run_text::render(&r, o));
        assert!(
            full.contains(": \u{b1}1.2 % (target \u{b1}3 %, 3 extra repetitions)"),
            "{full}"
        );
    }
}
