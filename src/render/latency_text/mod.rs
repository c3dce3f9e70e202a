//! The readable text form of `numascope latency`: the clock check first (what every figure
//! rests on), then single-size results, each sweep curve with its plateaus and knees beside the
//! sysfs cache sizes, and the node x node matrix beside the firmware's SLIT and HMAT figures
//! (labelled firmware-declared), the memory-level-parallelism factors of `--chains 1,N` and
//! the per-load distribution of `--distribution` with its histogram as bars. Latencies are ns
//! per load (median headline, then min, p90, p99 and the sample count); cycles are core cycles
//! from the core clock estimate. Sizes use binary units (KiB = 1024 bytes).

use std::io::{self, Write};

use super::width::indent;

mod distribution;
use distribution::distribution;

use crate::results::format::format_bytes;
use crate::results::latency::{LatencyReport, LatencyResult};

fn f1(v: f64) -> String {
    format!("{v:.1}")
}

fn f2(v: f64) -> String {
    format!("{v:.2}")
}

fn opt(v: Option<String>) -> String {
    v.unwrap_or_else(|| "-".into())
}

fn pct(v: Option<f64>) -> String {
    opt(v.map(|f| format!("{:.1}%", 100.0 * f)))
}

fn ghz(hz: Option<f64>) -> String {
    opt(hz.map(|h| format!("{:.3} GHz", h / 1e9)))
}

fn result_row(r: &LatencyResult) -> Vec<String> {
    let s = &r.ns_per_load;
    // A point measured in blocks: the median and interval over the block medians (n =
    // blocks), the spread columns over every kept sample.
    let (spread, n) = match &r.blocks {
        Some(b) => (&b.all_samples, format!("{} blocks", s.samples)),
        None => (s, s.samples.to_string()),
    };
    vec![
        format_bytes(r.working_set_bytes),
        r.mode.label().into(),
        r.page_size.label().into(),
        r.chains.to_string(),
        super::run_view::fmt_ci(s, r.quality.as_ref()),
        f2(spread.min),
        f2(spread.p90),
        f2(spread.p99),
        opt(r.cycles_per_load.as_ref().map(|c| f1(c.median))),
        n,
        r.cpu.to_string(),
        opt(r.memory_node.map(|n| n.to_string())),
        pct(r.placement_fraction),
        pct(r.huge_fraction),
    ]
}

const RESULT_HEADERS: [&str; 14] = [
    "working set",
    "mode",
    "page",
    "chains",
    "ns median [95 % interval]",
    "ns min",
    "ns p90",
    "ns p99",
    "cycles",
    "samples",
    "cpu",
    "mem node",
    "on node",
    "huge",
];

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
/// reached and the extra samples it took; nothing when no figure has a target.
fn precision(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    let mut lines = Vec::new();
    let clause = |p: &crate::results::quality::Precision| {
        crate::render::precision_words::clause_in(p, "sample", "samples")
    };
    let blocks = |p: &crate::results::quality::Precision| {
        crate::render::precision_words::clause_in(p, "block", "blocks")
    };
    let mut any_blocks = false;
    let mut sized_blocks = false;
    for x in &r.results {
        if let Some(p) = &x.precision {
            sized_blocks |= x.blocks.is_some();
            lines.push(format!(
                "{} walk, {} pages, {}: {}",
                x.mode.label(),
                x.page_size.label(),
                format_bytes(x.working_set_bytes),
                if x.blocks.is_some() {
                    blocks(p)
                } else {
                    clause(p)
                }
            ));
        }
    }
    for c in &r.sweep {
        if let Some((x, p)) = c.points.last().and_then(|x| Some((x, x.precision?))) {
            any_blocks |= x.blocks.is_some();
            lines.push(format!(
                "sweep {} walk, {} pages, at {}: {}",
                c.mode.label(),
                c.page_size.label(),
                format_bytes(x.working_set_bytes),
                if x.blocks.is_some() {
                    blocks(&p)
                } else {
                    clause(&p)
                }
            ));
        }
    }
    let mut any_rounds = false;
    for c in r.matrix.iter().flat_map(|m| &m.cells) {
        if let Some(p) = &c.result.precision {
            any_rounds |= c.result.blocks.is_some();
            lines.push(format!(
                "node {} -> memory node {}: {}",
                c.initiator_node,
                c.memory_node,
                if c.result.blocks.is_some() {
                    crate::render::precision_words::clause_in(p, "round", "rounds")
                } else {
                    clause(p)
                }
            ));
        }
    }
    if !lines.is_empty() {
        writeln!(
            out,
            "\nInterval half-widths of the headline figures against their target (extra samples{} are taken while an interval is wider, at most as many as planned)",
            match (sized_blocks, any_blocks, any_rounds) {
                (true, _, _) => ", or extra blocks,",
                (false, true, true) => ", or extra blocks of a sweep or rounds of the matrix,",
                (false, true, false) => ", or extra blocks of a sweep,",
                (false, false, true) => ", or extra rounds of the matrix,",
                (false, false, false) => "",
            }
        )?;
        for l in lines {
            writeln!(out, "  {l}")?;
        }
    }
    Ok(())
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
    if let Some(b) = r.results.iter().find_map(|p| p.blocks.as_ref()) {
        writeln!(
            out,
            "  each size: in blocks spread over the command, passes over the sizes ({} samples kept after {} dropped per block, each >= {:.2} ms, after an untimed walk back to steady state); its figure and interval are over its block medians (n = blocks)",
            b.samples_per_block,
            r.plan.warmup,
            b.min_sample_ns as f64 / 1e6
        )?;
    }
    if let Some(b) = r
        .sweep
        .iter()
        .flat_map(|c| &c.points)
        .find_map(|p| p.blocks.as_ref())
    {
        writeln!(
            out,
            "  sweep: in passes over its sizes, one block per point and pass ({} samples kept after {} dropped, each >= {:.2} ms); a point's figure and interval are over its block medians (n = blocks)",
            b.samples_per_block,
            r.plan.warmup,
            b.min_sample_ns as f64 / 1e6
        )?;
    }
    Ok(())
}

/// Single-size results (`--size`).
fn single_sizes(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    if !r.results.is_empty() {
        writeln!(out, "\nLatency (ns per load; cycles = median x core clock)")?;
        let rows: Vec<Vec<String>> = r.results.iter().map(result_row).collect();
        write!(
            out,
            "{}",
            indent(&super::width::fit_columns(&RESULT_HEADERS, &rows))
        )?;
    }
    Ok(())
}

/// The memory-level-parallelism factor of each multi-chain result (`--chains 1,...`).
fn mlp(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    if r.mlp.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nMemory-level parallelism (factor = ns per load with 1 chain / with N: loads completed per second over one chain's)"
    )?;
    let rows: Vec<Vec<String>> = r
        .mlp
        .iter()
        .map(|m| {
            let factor = match (m.ci.map(|c| c.low), m.ci.map(|c| c.high)) {
                (Some(l), Some(h)) => format!("{} [{}, {}]", f2(m.factor), f2(l), f2(h)),
                _ => format!("{}, no interval", f2(m.factor)),
            };
            vec![
                format_bytes(m.working_set_bytes),
                m.mode.label().into(),
                m.page_size.label().into(),
                m.chains.to_string(),
                f2(m.one_chain_ns_per_load),
                f2(m.ns_per_load),
                f2(m.per_chain_ns_per_load),
                factor,
            ]
        })
        .collect();
    write!(
        out,
        "{}",
        indent(&super::width::fit_columns(
            &[
                "working set",
                "mode",
                "page",
                "chains",
                "ns 1 chain",
                "ns per load",
                "ns per chain's load",
                "MLP factor [interval]",
            ],
            &rows
        ))
    )
}

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
        let rows: Vec<Vec<String>> = curve.points.iter().map(result_row).collect();
        write!(
            out,
            "{}",
            indent(&super::width::fit_columns(&RESULT_HEADERS, &rows))
        )?;
        if let Some(kn) = r.knees.get(k) {
            writeln!(
                out,
                "  Plateaus and knees (knee = largest working set still on the plateau)"
            )?;
            let rows: Vec<Vec<String>> = kn
                .levels
                .iter()
                .map(|l| {
                    vec![
                        l.level.clone(),
                        opt(l.sysfs_bytes.map(format_bytes)),
                        opt(l.knee_bytes.map(format_bytes)),
                        opt(l.plateau_ns.map(f2)),
                        opt(l.plateau_cycles.map(f1)),
                    ]
                })
                .collect();
            write!(
                out,
                "{}",
                indent(&indent(&super::width::fit_columns(
                    &[
                        "level",
                        "sysfs size",
                        "knee",
                        "plateau ns",
                        "plateau cycles"
                    ],
                    &rows
                )))
            )?;
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
        let rows: Vec<Vec<String>> = m
            .cells
            .iter()
            .map(|cell| {
                let s = &cell.result.ns_per_load;
                vec![
                    cell.initiator_node.to_string(),
                    cell.result.cpu.to_string(),
                    cell.memory_node.to_string(),
                    f2(s.median),
                    f2(s.min),
                    f2(s.p99),
                    pct(cell.result.placement_fraction),
                    match &cell.measured_ratio_interval {
                        // The row's reference itself: every pair is 1.
                        Some(p)
                            if p.ratio == 1.0
                                && p.ci.map(|c| c.low) == Some(1.0)
                                && p.ci.map(|c| c.high) == Some(1.0) =>
                        {
                            f2(1.0)
                        }
                        Some(_) => opt(crate::render::run_view::latency::matrix_ratio_text(cell)),
                        None => opt(cell.measured_ratio.map(f2)),
                    },
                    opt(cell.slit_distance.map(|d| d.to_string())),
                    opt(cell.slit_ratio.map(f2)),
                    opt(cell.measured_over_slit.map(f2)),
                    opt(cell.hmat_read_latency_ns.map(|h| h.to_string())),
                    opt(cell.measured_over_hmat.map(f2)),
                ]
            })
            .collect();
        write!(
            out,
            "{}",
            indent(&super::width::fit_columns(
                &[
                    "cpu node",
                    "cpu",
                    "mem node",
                    "ns median",
                    "ns min",
                    "ns p99",
                    "on node",
                    "x local",
                    "SLIT",
                    "SLIT/local",
                    "measured/SLIT",
                    "HMAT read ns",
                    "measured/HMAT",
                ],
                &rows
            ))
        )?;
        if let Some(b) = m.cells.iter().find_map(|c| c.result.blocks.as_ref()) {
            writeln!(
                out,
                "  in {} interleaved rounds, every cell once per round in rotating order over one kept chain per memory node ({} samples kept per block after {} dropped, each >= {:.2} ms); a cell's figure and interval are over its round medians (n = rounds)",
                b.blocks,
                b.samples_per_block,
                r.plan.warmup.min(1),
                b.min_sample_ns as f64 / 1e6
            )?;
        }
        if let Some(l) = crate::render::run_view::latency::matrix_ratio_line(m) {
            writeln!(out, "  {l}")?;
        }
    }
    Ok(())
}

/// What the reader must know.
fn warnings(r: &LatencyReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    let q = super::verdict::of_checks(&crate::results::verdict::latency_checks(r));
    super::verdict::write_text(out, Some(&q), &r.warnings, "")
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
