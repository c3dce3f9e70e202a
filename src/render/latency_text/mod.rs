//! The readable text form of `numascope latency`: the clock check first (what every figure
//! rests on), then single-size results, each sweep curve with its plateaus and knees beside the
//! sysfs cache sizes, and the node x node matrix beside the firmware's SLIT and HMAT figures
//! (labelled firmware-declared), the memory-level-parallelism factors of `--chains 1,N` and
//! the per-load distribution of `--distribution` with its histogram as bars. Latencies are ns
//! per load (median headline, then min, p90, p99 and the sample count); cycles are core cycles
//! from the core clock estimate. Sizes use binary units (KiB = 1024 bytes).

use crate::render::format::estimate::num;
use std::io::{self, Write};

use super::run_view::{latency as view, latency_dist, latency_matrix as matrix};
use crate::render::format::width::indent;
use crate::render::words;

mod distribution;
use distribution::distribution;

use crate::results::format::format_bytes;
use crate::results::latency::{LatencyReport, LatencyResult};

fn ghz(hz: Option<f64>) -> String {
    hz.map_or("-".into(), |h| format!("{:.3} GHz", h / 1e9))
}

/// Renders the whole report.
pub fn render(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    clock(r, out)?;
    single_sizes(r, out)?;
    mlp(r, out)?;
    distribution(r, out)?;
    sweeps(r, out)?;
    matrix(r, out)?;
    precision(r, out)?;
    warnings(r, out)
}

/// The headline figures measured toward a precision target (each size asked for,
/// each sweep's largest point, each matrix cell), each with the interval half-width it
/// reached and the extra samples it took (or blocks, or the matrix's rounds, where it was
/// measured in them); nothing when no figure has a target.
fn precision(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    let line = |x: &LatencyResult, at: &str, blocks: &str| {
        let (m, p, ws) = (
            x.mode.label(),
            x.page_size.label(),
            format_bytes(x.working_set_bytes),
        );
        let u = if x.blocks.is_some() { blocks } else { "sample" };
        let clause = x
            .precision
            .map(|p| words::precision::clause_in(&p, u, &format!("{u}s")));
        clause.map(|c| format!("{at}{m} walk, {p} pages, {ws}: {c}"))
    };
    let mut lines: Vec<String> = r
        .results
        .iter()
        .filter_map(|x| line(x, "", "block"))
        .collect();
    let last = r.sweep.iter().filter_map(|c| c.points.last());
    lines.extend(last.filter_map(|x| line(x, "sweep ", "block")));
    for c in r.matrix.iter().flat_map(|m| &m.cells) {
        let cell = format!(
            "node {} -> memory node {}, ",
            c.initiator_node, c.memory_node
        );
        lines.extend(line(&c.result, &cell, "round"));
    }
    if !lines.is_empty() {
        writeln!(out)?;
    }
    super::view_text::precision(out, &lines)
}

/// The clock checks and the sample plan.
fn clock(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.clock;
    writeln!(out, "Clock")?;
    writeln!(
        out,
        "  monotonic clock: resolution {:.0} ns, {:.1} ns per read",
        c.resolution_ns, c.read_cost_ns
    )?;
    writeln!(out, "  TSC: {} ({})", ghz(c.tsc_hz), c.tsc_source)?;
    writeln!(
        out,
        "  core clock: {} ({})",
        ghz(c.core_hz_estimate),
        c.core_hz_source
    )?;
    writeln!(
        out,
        "  samples: {} kept after {} dropped, each >= {:.1} ms; ns per load is the median unless named",
        r.plan.samples,
        r.plan.warmup,
        r.plan.min_sample_ns as f64 / 1e6
    )?;
    let w = r.plan.warmup;
    if let Some(b) = r.results.iter().find_map(|p| p.blocks.as_ref()) {
        writeln!(
            out,
            "  each size: in blocks spread over the command, passes over the sizes (per block: {}, after an untimed walk back to steady state); its figure and interval are over its block medians (n = blocks)",
            kept(b, w)
        )?;
    }
    let sweep = r.sweep.iter().flat_map(|c| &c.points);
    if let Some(b) = sweep.filter_map(|p| p.blocks.as_ref()).next() {
        writeln!(
            out,
            "  sweep: in passes over its sizes, one block per point and pass ({}); a point's figure and interval are over its block medians (n = blocks)",
            kept(b, w)
        )?;
    }
    Ok(())
}

/// What a block keeps: `9 samples kept after 1 dropped, each >= 0.50 ms`.
fn kept(b: &crate::results::latency::PointBlocks, warmup: usize) -> String {
    let ms = b.min_sample_ns as f64 / 1e6;
    format!(
        "{} samples kept after {warmup} dropped, each >= {ms:.2} ms",
        b.samples_per_block
    )
}

/// Single-size results (`--size`).
fn single_sizes(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    let t = view::results_for_people(view::latency_sizes_table(Some(r)));
    if !t.rows.is_empty() {
        writeln!(out, "\nLatency (ns per load; cycles = median x core clock)")?;
        let keys = [&["mode", "page_size", "chains_count"], view::RESULT_KEYS].concat();
        write!(out, "{}", indent(&t.text(&keys)))?;
    }
    Ok(())
}

/// The memory-level-parallelism factor of each multi-chain result (`--chains 1,...`).
fn mlp(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    let t = latency_dist::mlp_for_people(Some(r));
    if !t.rows.is_empty() {
        writeln!(
            out,
            "\nMemory-level parallelism (factor = ns per load with 1 chain / with N: loads completed per second over one chain's)"
        )?;
        write!(out, "{}", indent(&t.text(latency_dist::MLP_KEYS)))?;
    }
    Ok(())
}

/// The columns of a curve's plateaus and knees.
const KNEE_COLUMNS: [&str; 5] = [
    "level",
    "sysfs size",
    "knee",
    "plateau ns",
    "plateau cycles",
];

/// Each working-set curve with its plateaus and knees.
fn sweeps(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    for (k, curve) in r.sweep.iter().enumerate() {
        writeln!(
            out,
            "\nWorking-set sweep: {} mode, {} pages, {} chain(s), CPU {}",
            curve.mode.label(),
            curve.page_size.label(),
            curve.chains,
            curve.points.first().map_or(0, |p| p.cpu)
        )?;
        let t = view::results_table("latency_sweep", "", &curve.points);
        let t = view::results_for_people(t);
        write!(out, "{}", indent(&t.text(view::RESULT_KEYS)))?;
        if let Some(kn) = r.knees.get(k) {
            writeln!(
                out,
                "  Plateaus and knees (knee = largest working set still on the plateau)"
            )?;
            let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            let rows: Vec<Vec<String>> = kn
                .levels
                .iter()
                .map(|l| {
                    let mut row = vec![l.level.clone()];
                    row.extend([l.sysfs_bytes, l.knee_bytes].map(|b| dash(b.map(format_bytes))));
                    row.extend([l.plateau_ns, l.plateau_cycles].map(|v| dash(v.map(num))));
                    row
                })
                .collect();
            let table = crate::render::format::width::fit_columns(&KNEE_COLUMNS, &rows);
            write!(out, "{}", indent(&indent(&table)))?;
        }
    }
    Ok(())
}

/// The node x node matrix beside the firmware's SLIT and HMAT.
fn matrix(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    if let Some(m) = &r.matrix {
        writeln!(
            out,
            "\nNode x node latency: {} mode, {} working set, {} pages (SLIT and HMAT are firmware-declared)",
            m.mode.label(),
            format_bytes(m.working_set_bytes),
            m.page_size.label()
        )?;
        let t = matrix::matrix_for_people(matrix::latency_matrix_table(Some(r)), Some(r));
        write!(out, "{}", indent(&t.text(matrix::MATRIX_KEYS)))?;
        if let Some(b) = m.cells.iter().find_map(|c| c.result.blocks.as_ref()) {
            writeln!(
                out,
                "  in {} interleaved rounds, every cell once per round in rotating order over one kept chain per memory node (per block: {}); a cell's figure and interval are over its round medians (n = rounds)",
                b.blocks,
                kept(b, r.plan.warmup.min(1))
            )?;
        }
        if let Some(l) = matrix::matrix_ratio_line(m) {
            writeln!(out, "  {l}")?;
        }
    }
    Ok(())
}

/// What the reader must know.
fn warnings(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    let q = crate::render::words::verdict::of_checks(&crate::results::verdict::latency_checks(r));
    crate::render::words::verdict::write_text(out, Some(&q), &r.warnings, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::quality::Precision;

    /// The headline latencies measured toward a target (a sweep's largest point, a matrix
    /// cell) show the width they reached and their extra samples in the standalone text (which
    /// `report --full` prints too); the fixture, measured without a
    /// target, shows none of it.
    #[test]
    fn figures_measured_toward_a_target_show_their_width_and_extras() {
        let mut r = crate::render::fixture::opteron_example();
        let l = r.latency.as_mut().expect("the fixture has a latency part");
        let mut before = Vec::new();
        render(l, &mut before).unwrap();
        assert!(!String::from_utf8(before)
            .unwrap()
            .contains("against their target"));
        let p = Precision {
            target_half_width_fraction: 0.03,
            half_width_fraction: Some(0.041),
            planned_rounds: 9,
            extra_rounds: 8,
        };
        l.sweep[0].points.last_mut().unwrap().precision = Some(p);
        let cell = l
            .matrix
            .as_mut()
            .and_then(|m| m.cells.first_mut())
            .expect("the fixture has a matrix");
        cell.result.precision = Some(Precision {
            half_width_fraction: Some(0.01),
            extra_rounds: 0,
            ..p
        });
        let s = crate::render::fixture::written(|o| render(l, o));
        assert!(s.contains("against their target"), "{s}");
        assert!(
            s.contains(": \u{b1}4.1 % (target \u{b1}3 %, 8 extra samples)"),
            "{s}"
        );
        assert!(
            s.contains(": \u{b1}1.0 % (target \u{b1}3 %, no extra samples)"),
            "{s}"
        );
    }
}
