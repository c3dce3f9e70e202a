//! The loaded-latency curve as a table, a chart with its doubling point, and two sentences.

use super::{
    fmt_num, interval_cells, interval_columns, quality_cells, quality_columns, Cell, Table,
};
use crate::render::svg::{ErrorBar, LineChart, Marker, Series, SeriesStyle, XScale};
use crate::results::RunResults;

/// The loaded-latency curve's name: `CPU 0 chasing node 0, load: read`.
pub fn loaded_name(l: &crate::results::loaded::LoadedResult) -> String {
    format!(
        "CPU {} chasing node {}, {} load thread{} ({}) on node {}",
        l.chaser_cpu,
        l.mem_node,
        l.load_cpus.len(),
        if l.load_cpus.len() == 1 { "" } else { "s" },
        l.kernel_label,
        l.load_mem_node
    )
}

/// Latency under bandwidth load, one row per delay setting. The idle point (load threads
/// asleep) has empty load columns and says so in `load_label`.
pub fn loaded_table(r: &RunResults) -> Table {
    let mut t = Table::new(
        "loaded_latency",
        "Loaded latency",
        &[
            ("curve", "curve"),
            ("load_label", "load"),
            ("load_asked_fraction", "load asked (share of full speed)"),
            ("delay_ns", "delay between requests (ns)"),
            ("total_mb_per_s", "MB/s (total, MB = 10^6 B)"),
            ("load_mb_per_s", "MB/s of the load threads"),
        ],
    );
    t.extend(interval_columns("ns_per_load", "ns per load"));
    t.extend(quality_columns());
    t.columns.push("ns p90".into());
    t.keys.push("ns_per_load_p90".into());
    if let Some(l) = &r.loaded_latency {
        let name = loaded_name(l);
        for p in &l.points {
            let label = match (p.delay_ns, p.target_fraction) {
                (None, _) => "idle (load threads asleep)".to_string(),
                (Some(_), Some(f)) => format!("{:.0} % of full speed", 100.0 * f),
                (Some(_), None) => "load at the given delay".to_string(),
            };
            let mut row = vec![
                Cell::Text(name.clone()),
                Cell::Text(label),
                Cell::opt(p.delay_ns.and(p.target_fraction)),
                Cell::opt(p.delay_ns),
                Cell::Num(p.total_mb_per_s),
                Cell::Num(p.load_mb_per_s),
            ];
            row.extend(interval_cells(Some(&p.ns_per_load)));
            row.extend(quality_cells(p.quality.as_ref()));
            row.push(Cell::Num(p.ns_per_load.p90));
            t.rows.push(row);
        }
    }
    t
}

/// The loaded-latency chart (bandwidth on x, latency on y), the doubling point marked.
pub fn loaded_chart(r: &RunResults) -> Option<LineChart> {
    let l = r.loaded_latency.as_ref()?;
    if l.points.is_empty() {
        return None;
    }
    let mut c = LineChart::new(
        "Latency under load",
        "bandwidth of all threads (MB/s, MB = 10^6 B)",
        "ns per load (median)",
        XScale::Linear,
    );
    c.y_from_zero = true;
    let mut points: Vec<(f64, f64)> = l
        .points
        .iter()
        .map(|p| (p.total_mb_per_s, p.ns_per_load.median))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    for p in &l.points {
        if let (Some(low), Some(high)) = (p.ns_per_load.ci_low, p.ns_per_load.ci_high) {
            c.errors.push(ErrorBar {
                series: 0,
                x: p.total_mb_per_s,
                low,
                high,
            });
        }
        if p.quality.as_ref().is_some_and(|q| q.disturbed) {
            c.disturbed.push((0, p.total_mb_per_s));
        }
    }
    c.series.push(Series {
        name: loaded_name(l),
        points,
        style: SeriesStyle::LinePoints,
    });
    if let Some(x) = l.curve.doubled_at_mb_per_s {
        c.markers.push(Marker {
            x,
            label: format!("latency x2 at {} MB/s", fmt_num(x)),
        });
    }
    Some(c)
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The curve in two sentences: idle, doubling point, peak; then the trend.
pub fn loaded_summary(r: &RunResults) -> Option<String> {
    let l = r.loaded_latency.as_ref()?;
    let c = &l.curve;
    let doubled = match c.doubled_at_mb_per_s {
        Some(x) => format!("latency doubles at {} MB/s", fmt_num(x)),
        None => "latency never doubles".into(),
    };
    Some(format!(
        "Idle {} ns (random walk, {} pages, {} chased by 1 thread pinned to CPU {}, load \
         threads asleep); {doubled}; at the peak of {} MB/s a load takes {} ns. {}.",
        fmt_num(c.idle_ns_per_load),
        l.page_size.label(),
        crate::results::format::format_bytes(l.chaser_size_bytes),
        l.chaser_cpu,
        fmt_num(c.peak_mb_per_s),
        fmt_num(c.ns_per_load_at_peak),
        upper_first(&crate::render::loaded_text::trend_sentence(l))
    ))
}
