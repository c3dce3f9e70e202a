//! Bandwidth against working-set size (`bandwidth --sweep` or a `--size` list) as a tidy table
//! (`bandwidth_sweep.csv`) and a log2-x line chart, one line per kernel with its intervals,
//! the declared cache sizes marked: the chart the HTML report draws beside latency's.

use super::{interval_cells, quality_cells, Cell, Table};
use crate::render::svg::{LineChart, XScale};
use crate::results::bandwidth::BandwidthReport;
use crate::results::RunResults;

/// One row per kernel and size of the sweep.
pub fn bandwidth_sweep_table(b: Option<&BandwidthReport>) -> Table {
    let mut t = Table::new(
        "bandwidth_sweep",
        "Bandwidth vs working set",
        &[
            ("kernel", "kernel"),
            ("threads_count", "threads"),
            ("cpus", "CPUs"),
            (
                "working_set_per_thread_bytes",
                "working set per thread (bytes)",
            ),
            ("working_set_bytes", "working set, all threads (bytes)"),
            ("memory_level", "level it fits in"),
            ("fits_in", "fits in"),
        ],
    );
    t.extend_estimate("mb_per_s", "MB/s (MB = 10^6 B)");
    let Some(b) = b else {
        return t;
    };
    let Some(sw) = &b.sweep else {
        return t;
    };
    for p in &sw.points {
        let run = b.results.get(p.result_index);
        let mut row = vec![
            Cell::Text(p.kernel.clone()),
            Cell::Int(sw.threads as u64),
            Cell::Text(crate::results::format::format_list(&sw.cpus)),
            Cell::Int(p.working_set_bytes_per_thread),
            Cell::Int(p.working_set_bytes),
            Cell::Text(memory_level(&p.fits_in)),
            Cell::Text(p.fits_in.clone()),
        ];
        row.extend(interval_cells(run.map(|x| x.mb_per_s.summary()).as_ref()));
        row.extend(quality_cells(run.and_then(|x| x.quality.as_ref())));
        t.rows.push(row);
    }
    t
}

/// `L1d`, `L2`, `L3` or `DRAM` from a point's `fits in L2 (1 MiB per core)` label.
fn memory_level(fits_in: &str) -> String {
    let s = fits_in.strip_prefix("fits in ").unwrap_or(fits_in);
    s.split(" (").next().unwrap_or(s).to_string()
}

/// The chart: MB/s against working set per thread (log2 x), one line per kernel, intervals as
/// error bars, disturbed points hollow, the CPU's declared cache sizes as dashed markers.
pub fn bandwidth_sweep_chart(r: &RunResults) -> Option<LineChart> {
    let sw = r.bandwidth.as_ref()?.sweep.as_ref()?;
    if sw.points.is_empty() {
        return None;
    }
    let mut c = LineChart::new(
        "Bandwidth vs working set",
        &format!(
            "working set per thread (bytes, log scale), {} thread(s)",
            sw.threads
        ),
        "MB/s (median, MB = 10^6 B)",
        XScale::Log2Bytes,
    );
    c.y_from_zero = true;
    let mut kernels: Vec<&str> = Vec::new();
    for p in &sw.points {
        if !kernels.contains(&p.kernel.as_str()) {
            kernels.push(&p.kernel);
        }
    }
    for k in kernels {
        let points = sw.points.iter().filter(|p| p.kernel == k);
        let points = points.map(|p| {
            let x = p.working_set_bytes_per_thread as f64;
            (x, p.mb_per_s, p.ci, p.disturbed)
        });
        super::add_line(&mut c, k.to_string(), points);
    }
    let cpu = sw.cpus.first();
    c.markers.extend(
        cpu.into_iter()
            .flat_map(|&cpu| super::cache_markers(r, cpu)),
    );
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::bandwidth::{Sweep, SweepPoint};

    /// The Opteron fixture with a two-size, two-kernel sweep added (results 0 and 1 reused).
    pub(crate) fn with_sweep() -> RunResults {
        let mut r = crate::render::fixture::opteron_example();
        let b = r
            .bandwidth
            .as_mut()
            .expect("the Opteron fixture has bandwidth");
        assert!(b.results.len() >= 2);
        let point = |kernel: &str, per_thread: u64, level: Option<u32>, i: usize| SweepPoint {
            kernel: kernel.into(),
            working_set_bytes_per_thread: per_thread,
            working_set_bytes: 2 * per_thread,
            cache_level: level,
            fits_in: level.map_or("DRAM".into(), |l| format!("fits in L{l} (...)")),
            mb_per_s: 1000.0 * (i + 1) as f64,
            ci: Some(crate::stats::Interval::new(900.0, 2100.0)),
            disturbed: i == 1,
            result_index: i,
        };
        b.sweep = Some(Sweep {
            threads: 2,
            cpus: vec![0, 1],
            mode: "sweep".into(),
            points: vec![
                point("read", 16 << 10, Some(1), 0),
                point("copy", 16 << 10, Some(1), 1),
                point("read", 1 << 30, None, 0),
                point("copy", 1 << 30, None, 1),
            ],
        });
        r
    }

    #[test]
    fn the_table_has_one_row_per_point_and_empty_level_for_dram() {
        let t = bandwidth_sweep_table(with_sweep().bandwidth.as_ref());
        assert_eq!(t.rows.len(), 4);
        let csv = crate::render::csv::table_csv(&t).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "kernel,threads_count,cpus,working_set_per_thread_bytes,working_set_bytes,memory_level,fits_in,mb_per_s_median,mb_per_s_ci_low,mb_per_s_ci_high,ci_level_fraction,samples_count,repetitions_discarded_count,disturbed"
        );
        assert!(lines
            .next()
            .unwrap()
            .starts_with("read,2,0-1,16384,32768,L1,fits in L1 (...),"));
        let dram = csv.lines().nth(3).unwrap();
        assert!(
            dram.starts_with("read,2,0-1,1073741824,2147483648,DRAM,DRAM,"),
            "{dram}"
        );
        // Without a sweep there is no row (and so no file).
        assert!(bandwidth_sweep_table(
            crate::render::fixture::opteron_example().bandwidth.as_ref()
        )
        .rows
        .is_empty());
    }

    /// The sweep's CSV holds to the columns docs/csv.md lists for it.
    #[test]
    fn the_csv_follows_docs_csv_md() {
        let doc = crate::render::csv::csv_check::documented(include_str!("../../../docs/csv.md"));
        let files = crate::render::csv::run_csv(&with_sweep()).unwrap();
        let (name, text) = files
            .iter()
            .find(|f| f.0 == "bandwidth_sweep.csv")
            .expect("a run with a sweep writes bandwidth_sweep.csv");
        let cols = doc.get(name).expect("bandwidth_sweep.csv is documented");
        let problems = crate::render::csv::csv_check::check_file(name, text, cols);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn the_chart_draws_a_line_per_kernel_with_intervals() {
        let c = bandwidth_sweep_chart(&with_sweep()).unwrap();
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.series[0].name, "read");
        assert_eq!(
            c.series[0].points,
            vec![(16384.0, 1000.0), (1073741824.0, 1000.0)]
        );
        assert_eq!(c.errors.len(), 4);
        assert_eq!(c.disturbed, vec![(1, 16384.0), (1, 1073741824.0)]);
        assert!(matches!(c.x_scale, XScale::Log2Bytes));
        assert!(bandwidth_sweep_chart(&crate::render::fixture::opteron_example()).is_none());
    }
}
