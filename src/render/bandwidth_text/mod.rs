//! Terminal text for bandwidth: the kernel listing (from the descriptors alone) and the
//! measured results, through the run view's tables (the ones the HTML report and the CSV files
//! hold). Takes finished data and a writer; never measures, never reads the machine. Every
//! rate column says its unit, MB/s with 1 MB = 10^6 B.

use std::io::{self, Write};

use super::run_view::bandwidth::bandwidth_table;
use super::run_view::bandwidth::matrix_grids;
use super::run_view::bandwidth_sweep::bandwidth_sweep_table;
use super::run_view::scaling::{scaling_table, series_name};
use super::run_view::Cell;
use super::view_text;
use crate::render::words;
use crate::results::bandwidth::{BandwidthReport, BandwidthResult, Matrix};
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
    } else if report.sweep.is_some() {
        sweep(w, report)?;
    } else {
        kernels(w, report)?;
    }
    for m in &report.matrix {
        matrix(w, m)?;
    }
    scaling(w, report)?;
    precision(w, report)?;
    let q = crate::render::words::verdict::of_checks(&crate::results::verdict::bandwidth_checks(
        "bandwidth",
        report,
    ));
    crate::render::words::verdict::write_text(w, Some(&q), &warnings(report), "")
}

/// Whether result `i` is a point of a scaling curve (whose table prints its interval).
fn on_curve(report: &BandwidthReport, i: usize) -> bool {
    report
        .scaling
        .iter()
        .flat_map(|s| &s.series)
        .flat_map(|s| &s.points)
        .any(|p| p.result_index == i)
}

/// The headline figures measured toward a precision target (each kernel's result,
/// each matrix cell, each scaling point), each with the interval half-width it reached and the
/// extra repetitions it took; nothing when no figure has a target.
fn precision(w: &mut dyn Write, report: &BandwidthReport) -> io::Result<()> {
    let cells = || report.matrix.iter().flat_map(|m| &m.cells);
    let lines: Vec<String> = (report.results.iter().enumerate())
        .filter_map(|(i, x)| {
            let what = match cells().find(|c| c.result_index == i) {
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
            let clause =
                words::precision::clause_in(x.precision.as_ref()?, "repetition", "repetitions");
            Some(format!("{what}: {clause}"))
        })
        .collect();
    view_text::precision(w, &lines)
}

/// One row per kernel run no scaling point shows: the run view's kernel table, with what
/// only the terminal adds: each stream's policy, the cache a cache-resident working set fits
/// in (its DRAM estimate is no DRAM figure) and each thread's median.
fn kernels(w: &mut dyn Write, report: &BandwidthReport) -> io::Result<()> {
    let mut t = bandwidth_table(Some(report)).with_interval_text("mb_per_s", "MB/s");
    t.extend([("per_thread", "per thread MB/s (median)")]);
    let (placement, dram) = (t.col("placement"), t.col("dram_mb_per_s_estimate_median"));
    for (row, r) in t.rows.iter_mut().zip(&report.results) {
        if r.placement != "local" {
            row[placement] = Cell::Text(r.stream_policies.join(" / "));
        }
        if let Some(level) = &r.cache_level {
            row[dram] = Cell::Text(format!("- (fits in {level})"));
        }
        let per_thread = r.mb_per_s.per_thread.iter();
        let per_thread: Vec<String> = per_thread
            .map(|p| format!("{}: {:.0}", p.cpu, p.median))
            .collect();
        row.push(Cell::Text(per_thread.join(", ")));
    }
    let mut i = 0..;
    t.rows.retain(|_| !on_curve(report, i.next().unwrap_or(0)));
    let results = &report.results;
    if !t.rows.is_empty() {
        let mut keys = vec!["kernel"];
        if results.iter().any(|r| r.stride_elements.is_some()) {
            keys.push("stride_bytes");
        }
        keys.extend([
            "isa",
            "threads_count",
            "cpus",
            "memory_nodes",
            "placement",
            "on_intended_node_fraction",
            "huge_page_backed_fraction",
            "working_set_bytes",
            "mb_per_s_median",
            "mb_per_s_max",
            "dram_mb_per_s_estimate_median",
            "per_thread",
        ]);
        write!(w, "{}", t.text(&keys))?;
        repetitions(w, results, "Median and max")?;
        writeln!(
            w,
            "MB/s counts application bytes as STREAM does; the DRAM estimate adds the \
             write-allocate read of normal stores. 1 MB = 10^6 B."
        )?;
    }
    stride_note(w, results)
}

/// `{what} over 5 repetitions of 200 ms (1 dropped as warm-up).`, from the first result.
fn repetitions(w: &mut dyn Write, results: &[BandwidthResult], what: &str) -> io::Result<()> {
    match results.first() {
        Some(r) => writeln!(
            w,
            "{what} over {} repetitions of {} ms ({} dropped as warm-up).",
            r.repetitions, r.duration_ms, r.warmup_repetitions
        ),
        None => Ok(()),
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

/// Bandwidth against working-set size: one row per kernel and size (per thread, with the
/// cache it fits in), the median MB/s of all threads with its interval.
fn sweep(w: &mut dyn Write, report: &BandwidthReport) -> io::Result<()> {
    let Some(sw) = &report.sweep else {
        return Ok(());
    };
    writeln!(
        w,
        "Bandwidth against working-set size, {} thread(s) on CPU {}; sizes are per thread (all \
         its streams together), rates are all threads together.",
        sw.threads,
        format_list(&sw.cpus)
    )?;
    let t = bandwidth_sweep_table(Some(report)).with_interval_text("mb_per_s", "MB/s");
    let head = |k: &str| format!("{k} MB/s");
    let rows = ["working_set_per_thread_bytes", "fits_in"];
    view_text::layout(w, &t.pivot(&rows, ("kernel", &head), "mb_per_s_median"))?;
    repetitions(w, &report.results, "MB/s median [95 % interval] n")?;
    writeln!(
        w,
        "A small working set is swept over and over for the whole repetition. \"fits in\" is \
         the smallest declared cache holding the threads' arrays. MB/s counts application \
         bytes as STREAM does, 1 MB = 10^6 B."
    )?;
    stride_note(w, &report.results)
}

/// The matrix: initiator rows, memory-node columns, median MB/s; HMAT's declared read and
/// write figures as grids beside it when given.
fn matrix(w: &mut dyn Write, m: &Matrix) -> io::Result<()> {
    let measured = format!("{}: measured bandwidth (MB/s)", m.kernel);
    let grids = matrix_grids(m, &measured);
    for h in grids.iter().flatten() {
        view_text::grid(w, h)?;
    }
    let threads: Vec<u32> = m.cells.iter().map(|c| c.threads as u32).collect();
    writeln!(
        w,
        "Median MB/s (1 MB = 10^6 B), application bytes; {} thread(s) per initiator node, all \
         streams bound to the memory node.{}",
        format_list(&threads),
        if grids[1].is_some() || grids[2].is_some() {
            " HMAT figures are firmware-declared (ACPI), not measured."
        } else {
            ""
        }
    )
}

/// Each scaling curve: its name and knee, then its points with their intervals.
fn scaling(w: &mut dyn Write, report: &BandwidthReport) -> io::Result<()> {
    let t = scaling_table(Some(report)).with_interval_text("mb_per_s", "MB/s");
    let curve = t.col("curve");
    for s in &report.scaling {
        for series in &s.series {
            let name = series_name(&s.kernel, series);
            match series.knee_threads {
                Some(k) => writeln!(
                    w,
                    "{name}: knee at {k} thread(s); more threads add less than 10 % in total and per thread"
                )?,
                None => writeln!(w, "{name}: no knee; bandwidth still rises at the last point")?,
            }
            let mut points = t.clone();
            points.rows.retain(|r| r[curve] == Cell::Text(name.clone()));
            let keys = ["threads_count", "cpus", "mb_per_s_median", "mb_per_s_max"];
            write!(w, "{}", points.text(&keys))?;
        }
    }
    if t.rows.is_empty() {
        return Ok(());
    }
    repetitions(w, &report.results, "Each point: median and max")
}

/// What the reader must know before trusting the numbers.
pub fn warnings(report: &BandwidthReport) -> Vec<String> {
    let mut v = report.warnings.clone();
    for r in &report.results {
        if r.placement_fraction < 0.9995 {
            v.push(format!(
                "{} on CPUs {}: only {:.1} % of the pages are on the intended node(s) {}; the figure mixes nodes (free memory short, or a policy the kernel could not honour)",
                r.kernel,
                format_list(&r.cpus),
                r.placement_fraction * 100.0,
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

    /// A strided result shows its stride and the note says what its MB/s and DRAM estimate
    /// count; contiguous results print neither.
    #[test]
    fn a_strided_result_names_its_stride_and_its_accounting() {
        let mut b = crate::render::fixture::opteron_example()
            .bandwidth
            .expect("the fixture has a bandwidth part");
        b.results.truncate(2);
        b.matrix.clear();
        let plain = crate::render::fixture::written(|o| render_report(o, &b));
        assert!(!plain.contains("stride"), "{plain}");
        b.results[0].stride_elements = Some(8);
        let s = crate::render::fixture::written(|o| render_report(o, &b));
        let row = s.lines().find(|l| l.starts_with("read ")).unwrap();
        assert!(row.contains(" 64 B "), "{s}");
        assert!(s.contains("Stride 8 (64 B): "), "{s}");
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
