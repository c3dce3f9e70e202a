//! The short terminal summary `numascope run` prints when it ends: one topology line, the
//! headline latency and bandwidth figures, the scenario table with the winner per kind of
//! application and its numactl line, the advice, the findings, what was skipped or failed, and
//! where the files are. The full report (every table, charts) is in the output directory.
//! Also the `--dry-run` plan. Pure: takes finished results and a writer.

use std::io::{self, Write};
use std::path::Path;

use crate::render::run_view as view;
use crate::render::topo_text::columns;
use crate::results::format::format_bytes;
use crate::results::format::format_list;
use crate::results::{Plan, RunResults};

/// The plan of `--dry-run`: parts with estimates and settings, then skipped parts.
pub fn render_plan(out: &mut dyn Write, plan: &Plan) -> io::Result<()> {
    let target = plan
        .target_s
        .map(|t| format!(", target {t:.0} s on a 2-CPU machine"))
        .unwrap_or_default();
    writeln!(
        out,
        "numascope run plan ({} budget{target}): about {:.0} s",
        plan.budget.name(),
        plan.estimate_s
    )?;
    let mut rows: Vec<Vec<String>> = plan
        .parts
        .iter()
        .map(|p| {
            let mut d = p.detail.clone();
            for r in &p.reduced {
                d.push_str(&format!("; reduced: {r}"));
            }
            vec![
                p.part.name().to_string(),
                format!("{:.1} s", p.estimate_s),
                d,
            ]
        })
        .collect();
    // The run's reference figures, measured between the parts (not a part of its own).
    if let Some(x) = &plan.reference {
        rows.push(vec![
            "(reference)".to_string(),
            format!("{:.1} s", x.estimate_s),
            x.detail.clone(),
        ]);
    }
    write!(
        out,
        "{}",
        super::width::fit_columns(&["part", "estimate", "what"], &rows)
    )?;
    if !plan.skipped.is_empty() {
        writeln!(out, "skipped:")?;
        for s in &plan.skipped {
            writeln!(out, "  {}: {}", s.part.name(), s.reason)?;
        }
    }
    Ok(())
}

fn topology_line(r: &RunResults) -> String {
    let t = &r.topology;
    let env = &t.environment;
    let cpus = t.usable_cpus();
    format!(
        "{} | {} | {} NUMA node(s), memory on {}, {} usable CPU(s) {} | LLC {} | kernel {}{}",
        crate::sanitize::value(&r.host),
        crate::sanitize::value(env.cpu_model.as_deref().unwrap_or("unknown CPU")),
        t.nodes.len(),
        format_list(&t.memory_nodes()),
        cpus.len(),
        format_list(&cpus),
        format_bytes(t.llc_total_bytes()),
        env.kernel_release.as_deref().unwrap_or("?"),
        if env.hypervisor {
            " | virtual machine"
        } else {
            ""
        }
    )
}

/// The run's reference figures, first in the headline: each with its interval, n and
/// conditions (one quantity, one figure).
fn reference_lines(r: &RunResults) -> Vec<String> {
    let mut v = Vec::new();
    let Some(f) = r.reference.as_ref() else {
        return v;
    };
    let taken = f.repetitions.len();
    let partial = if f.partial {
        "; the run stopped early, so fewer repetitions than planned"
    } else {
        ""
    };
    if let Some(l) = &f.latency {
        v.push(format!(
            "local idle latency ({} walk, {} pages, {} bound to node {}, 1 thread pinned to CPU {}; {} repetitions spread across the run{partial}): {}{} ns per load{}",
            l.mode.label(),
            l.page_size.label(),
            format_bytes(l.working_set_bytes),
            l.memory_node,
            l.cpu,
            l.quality.repetitions_taken.max(taken as u32),
            view::fmt_interval(&l.ns_per_load),
            width(&l.ns_per_load),
            disturbed(l.quality.disturbed)
        ));
    }
    if let Some(b) = &f.bandwidth {
        v.push(format!(
            "local read bandwidth ({} kernel, {} pinned thread(s) on CPUs {} of node {}, {} per thread, {} pages, local memory; {} repetitions spread across the run{partial}): {}{} MB/s{}",
            b.kernel,
            b.threads,
            format_list(&b.cpus),
            b.memory_node,
            format_bytes(b.bytes_per_thread),
            b.page_size.label(),
            b.quality.repetitions_taken,
            view::fmt_interval(&b.mb_per_s),
            width(&b.mb_per_s),
            disturbed(b.quality.disturbed)
        ));
    }
    v
}

/// "; DISTURBED" after a figure (a part's own, or the reference) whose repetitions stayed
/// disturbed after the retakes ran out (the mark travels with the figure to every
/// place a user reads it).
fn marked(q: Option<&crate::results::quality::RepetitionQuality>) -> &'static str {
    disturbed(q.is_some_and(|q| q.disturbed))
}

/// " (DISTURBED)" inside a sentence that goes on.
fn short_mark(q: Option<&crate::results::quality::RepetitionQuality>) -> &'static str {
    if q.is_some_and(|q| q.disturbed) {
        " (DISTURBED)"
    } else {
        ""
    }
}

/// "; DISTURBED" after a reference figure whose repetitions stayed disturbed.
fn disturbed(d: bool) -> &'static str {
    if d {
        "; DISTURBED: its repetitions stayed disturbed after the retakes ran out"
    } else {
        ""
    }
}

/// " (the run's local idle latency, n=9, measured across the run)" after a place that shows
/// the reference latency instead of its own measurement; "" elsewhere.
fn from_reference(r: &RunResults, part: crate::results::Part, latency: bool) -> String {
    use crate::results::reference::ReferenceFigure;
    let Some(f) = r.reference.as_ref() else {
        return String::new();
    };
    let figure = if latency {
        ReferenceFigure::Latency
    } else {
        ReferenceFigure::Bandwidth
    };
    if !f.fills(part, figure) {
        return String::new();
    }
    let note = if latency {
        f.latency_note()
    } else {
        f.bandwidth_note()
    };
    note.map(|n| format!(" ({n})")).unwrap_or_default()
}

fn headline(r: &RunResults) -> Vec<String> {
    use crate::results::Part;
    let mut v = reference_lines(r);
    let ref_lat = r.reference.as_ref().and_then(|f| f.latency.as_ref());
    if let Some(l) = &r.latency {
        for c in &l.sweep {
            if let Some(p) = c.points.last() {
                let shown = ref_lat.is_some_and(|x| {
                    c.mode == x.mode
                        && c.page_size == x.page_size
                        && p.working_set_bytes == x.working_set_bytes
                        && p.cpu == x.cpu
                });
                v.push(format!(
                    "latency sweep's largest point ({} walk, {} pages, 1 thread pinned to CPU {}) at {}: {}{} ns per load{}",
                    c.mode.label(),
                    c.page_size.label(),
                    p.cpu,
                    format_bytes(p.working_set_bytes),
                    view::fmt_interval(&p.ns_per_load),
                    toward(&p.ns_per_load, p.precision.as_ref(), latency_unit(p)),
                    if shown {
                        from_reference(r, Part::Latency, true)
                    } else {
                        marked(p.quality.as_ref()).to_string()
                    }
                ));
            }
        }
    }
    v.extend(view::latency_distribution_line(r.latency.as_ref()));
    if let Some(m) = r.latency.as_ref().and_then(|l| l.matrix.as_ref()) {
        for c in &m.cells {
            let shown = ref_lat.is_some_and(|x| {
                c.initiator_node == x.memory_node && c.memory_node == x.memory_node
            });
            // A remote cell's ratio to local, paired over the matrix's rounds.
            let ratio = match (&c.measured_ratio_interval, c.differs_from_reference()) {
                (Some(p), d) if c.initiator_node != c.memory_node => format!(
                    "; {} local, paired over {} rounds{}{}",
                    crate::render::tables_view::ratio_text(p),
                    p.pairs,
                    // The local cell shows another figure (the run's reference): say what the
                    // ratio is against, so the two figures do not seem to contradict it.
                    c.reference_in_rounds_ns
                        .map(|ns| format!(" (local measured {ns:.0} ns in them)"))
                        .unwrap_or_default(),
                    match d {
                        Some(true) if p.ratio > 1.0 => ", slower than local",
                        Some(true) => ", faster than local",
                        Some(false) => ", indistinguishable from local here",
                        None => "",
                    }
                ),
                _ => String::new(),
            };
            v.push(format!(
                "latency matrix node {} -> memory node {} ({} walk, {} pages, {}, 1 thread pinned to CPU {}): {}{} ns{}{ratio}",
                c.initiator_node,
                c.memory_node,
                m.mode.label(),
                m.page_size.label(),
                format_bytes(m.working_set_bytes),
                c.result.cpu,
                view::fmt_interval(&c.result.ns_per_load),
                toward(
                    &c.result.ns_per_load,
                    c.result.precision.as_ref(),
                    matrix_unit(&c.result)
                ),
                if shown {
                    from_reference(r, Part::LatencyMatrix, true)
                } else {
                    marked(c.result.quality.as_ref()).to_string()
                }
            ));
        }
    }
    let bw_filled = |part: Part, k: usize| {
        r.reference.as_ref().is_some_and(|f| {
            f.filled
                .iter()
                .any(|p| p.part == part && p.result_index == Some(k))
        })
    };
    if let Some(b) = &r.bandwidth {
        for (k, x) in b.results.iter().enumerate() {
            if x.placement == "local" {
                let m = &x.mb_per_s;
                v.push(format!(
                    "bandwidth {} on {} pinned thread(s), {} per thread, {} pages, {}: {}{} MB/s{}",
                    x.kernel,
                    x.threads,
                    format_bytes(x.array_bytes_per_thread),
                    x.page_size.label(),
                    if view::cache_note(r, x.working_set_bytes).is_empty() {
                        "local memory"
                    } else {
                        "fits the last-level cache (a cache figure, not DRAM)"
                    },
                    view::fmt_median_interval(m.median, m.ci.map(|c| c.ends()), m.samples),
                    rate_toward(m, x.precision.as_ref()),
                    if bw_filled(Part::Bandwidth, k) {
                        from_reference(r, Part::Bandwidth, false)
                    } else {
                        marked(x.quality.as_ref()).to_string()
                    }
                ));
            }
        }
    }
    if let Some(b) = r.bandwidth.as_ref().filter(|b| !b.matrix.is_empty()) {
        let m = b
            .matrix
            .iter()
            .find(|m| m.kernel == "read")
            .unwrap_or(&b.matrix[0]);
        for c in &m.cells {
            // The cell's own result gives its conditions and interval (a figure
            // measured under other conditions than the headline says which).
            match b.results.get(c.result_index) {
                Some(x) => v.push(format!(
                    "{} bandwidth matrix node {} -> memory node {} ({} pinned thread(s), {} per thread, {} pages): {}{} MB/s{}",
                    m.kernel,
                    c.initiator,
                    c.target,
                    x.threads,
                    format_bytes(x.array_bytes_per_thread),
                    x.page_size.label(),
                    view::fmt_median_interval(
                        x.mb_per_s.median,
                        x.mb_per_s.ci.map(|c| c.ends()),
                        x.mb_per_s.samples
                    ),
                    rate_toward(&x.mb_per_s, x.precision.as_ref()),
                    if bw_filled(Part::BandwidthMatrix, c.result_index) {
                        from_reference(r, Part::BandwidthMatrix, false)
                    } else {
                        marked(x.quality.as_ref()).to_string()
                    }
                )),
                None => v.push(format!(
                    "{} bandwidth matrix node {} -> memory node {} ({} thread(s)): {:.0} MB/s",
                    m.kernel, c.initiator, c.target, c.threads, c.mb_per_s
                )),
            }
        }
    }
    if let Some(l) = r.loaded_latency.as_ref() {
        if let (Some(first), Some(last)) = (l.points.first(), l.points.last()) {
            v.push(format!(
                "loaded latency (random walk, {} pages, {} chased by 1 thread pinned to CPU {}, {} load thread(s)): {}{} ns at its idle point{}{}, {}{} ns at {} MB/s of load{}",
                l.page_size.label(),
                format_bytes(l.chaser_size_bytes),
                l.chaser_cpu,
                l.load_cpus.len(),
                view::fmt_interval(&first.ns_per_load),
                width(&first.ns_per_load),
                short_mark(first.quality.as_ref()),
                loaded_beside(l, ref_lat),
                view::fmt_interval(&last.ns_per_load),
                width(&last.ns_per_load),
                view::loaded_mb_text(last),
                short_mark(last.quality.as_ref())
            ));
        }
    }
    if let Some(c) = &r.c2c {
        v.push(format!("core to core: {}", c2c_groups(c)));
    }
    v
}

/// Beside loaded latency's idle point, the run's reference latency: " (the run's local idle
/// latency under the same conditions: 240 [235, 246] n=11 ns)", or with the reference's size
/// when it chased another; "" without a reference.
fn loaded_beside(
    l: &crate::results::loaded::LoadedResult,
    x: Option<&crate::results::reference::ReferenceLatency>,
) -> String {
    let Some(x) = x else {
        return String::new();
    };
    let same = l.chaser_size_bytes == x.working_set_bytes
        && l.page_size == x.page_size
        && l.chaser_cpu == x.cpu;
    let what = if same {
        "under the same conditions".to_string()
    } else {
        format!(
            "at {}, {} pages, CPU {}",
            format_bytes(x.working_set_bytes),
            x.page_size.label(),
            x.cpu
        )
    };
    format!(
        " (the run's local idle latency {what}, measured across the run: {} ns{})",
        view::fmt_interval(&x.ns_per_load),
        if x.quality.disturbed {
            ", DISTURBED"
        } else {
            ""
        }
    )
}

/// Each c2c group's median with the span of its pairs' 95 % intervals ("CPUs sharing an L3:
/// 45 ns (2 pairs, intervals within [41, 52] ns)"); a pair marked disturbed is said. Files
/// without groups keep their stored sentence.
fn c2c_groups(c: &crate::results::c2c::C2cResult) -> String {
    let mut line = c2c_group_figures(c);
    // In a VM the host may place the vCPUs elsewhere in the next run: said once,
    // on the line a reader compares between runs.
    if let Some(note) = super::c2c_text::vm_note(c) {
        line.push_str(". ");
        line.push_str(note);
    }
    line
}

fn c2c_group_figures(c: &crate::results::c2c::C2cResult) -> String {
    if c.groups.is_empty() {
        return c.summary.clone();
    }
    c.groups
        .iter()
        .map(|g| {
            let pairs: Vec<_> = c
                .pairs
                .iter()
                .filter(|p| p.relation == g.relation)
                .collect();
            let lo = pairs
                .iter()
                .filter_map(|p| p.ns_one_way.ci.map(|c| c.low))
                .reduce(f64::min);
            let hi = pairs
                .iter()
                .filter_map(|p| p.ns_one_way.ci.map(|c| c.high))
                .reduce(f64::max);
            let disturbed = pairs
                .iter()
                .filter(|p| p.quality.as_ref().is_some_and(|q| q.disturbed))
                .count();
            let span = match (lo, hi) {
                (Some(lo), Some(hi)) => format!(
                    "{} pair(s), intervals within [{lo:.0}, {hi:.0}] ns",
                    g.pairs
                ),
                _ => format!("{} pair(s), no interval", g.pairs),
            };
            let marked = if disturbed > 0 {
                format!(", {disturbed} disturbed")
            } else {
                String::new()
            };
            format!(
                "{}: {:.0} ns ({span}{marked})",
                g.label, g.ns_one_way.median
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// " (\u{b1}3.1 %)" after a figure with an interval: its half-width relative to its median,
/// so the gap to the run's precision target shows; "" without an interval.
fn width(s: &crate::stats::Summary) -> String {
    s.relative_half_width()
        .map(|h| format!(" (\u{b1}{:.1} %)", h * 100.0))
        .unwrap_or_default()
}

/// [`width`] of a bandwidth figure's rates.
fn rate_width(m: &crate::results::bandwidth::Rates) -> String {
    match (m.ci.map(|c| c.low), m.ci.map(|c| c.high)) {
        (Some(l), Some(h)) if m.median != 0.0 => {
            format!(" (\u{b1}{:.1} %)", (h - l) / 2.0 / m.median.abs() * 100.0)
        }
        _ => String::new(),
    }
}

/// How a latency and a bandwidth count their extra repetitions.
const SAMPLES: (&str, &str) = ("sample", "samples");
const REPETITIONS: (&str, &str) = ("repetition", "repetitions");

/// A sweep point measured in passes counts its extras in blocks, others in samples.
fn latency_unit(p: &crate::results::latency::LatencyResult) -> (&'static str, &'static str) {
    if p.blocks.is_some() {
        ("block", "blocks")
    } else {
        SAMPLES
    }
}

/// What a matrix cell's extras count: rounds when it was measured in rounds.
fn matrix_unit(p: &crate::results::latency::LatencyResult) -> (&'static str, &'static str) {
    if p.blocks.is_some() {
        ("round", "rounds")
    } else {
        SAMPLES
    }
}

/// [`width`], with the target and the extra repetitions of a figure measured toward one:
/// " (\u{b1}2.1 %; target \u{b1}3 %, 3 extra samples)".
fn toward(
    s: &crate::stats::Summary,
    p: Option<&crate::results::quality::Precision>,
    unit: (&str, &str),
) -> String {
    match p {
        Some(p) => format!(" ({}; {})", p.width_text(), p.target_text(unit.0, unit.1)),
        None => width(s),
    }
}

/// [`toward`] of a bandwidth figure's rates.
fn rate_toward(
    m: &crate::results::bandwidth::Rates,
    p: Option<&crate::results::quality::Precision>,
) -> String {
    match p {
        Some(p) => format!(
            " ({}; {})",
            p.width_text(),
            p.target_text(REPETITIONS.0, REPETITIONS.1)
        ),
        None => rate_width(m),
    }
}

/// "interval half-widths against the default budget's target of \u{b1}3 %: " and `items`, or
/// `None` without items.
fn against_target(r: &RunResults, what: &str, items: Vec<String>) -> Option<String> {
    (!items.is_empty()).then(|| {
        format!(
            "{what} interval half-widths against the {} budget's target of \u{b1}{:.0} %: {}",
            r.plan.budget.name(),
            r.plan.budget.target_half_width() * 100.0,
            items.join("; ")
        )
    })
}

/// The latency headline figures measured toward the run's target (each sweep curve's largest
/// point, each matrix cell), each with the width it reached and the extra samples it took;
/// `None` when no figure carries a precision record.
pub(super) fn latency_precision_line(r: &RunResults) -> Option<String> {
    let l = r.latency.as_ref()?;
    let mut items = Vec::new();
    for c in &l.sweep {
        if let Some((p, pr)) = c.points.last().and_then(|p| Some((p, p.precision?))) {
            items.push(format!(
                "sweep {} walk, {} pages, at {} {}",
                c.mode.label(),
                c.page_size.label(),
                format_bytes(p.working_set_bytes),
                pr.clause_in(latency_unit(p).0, latency_unit(p).1)
            ));
        }
    }
    for c in l.matrix.iter().flat_map(|m| &m.cells) {
        if let Some(pr) = c.result.precision {
            items.push(format!(
                "matrix node {} -> memory node {} {}",
                c.initiator_node,
                c.memory_node,
                pr.clause_in(matrix_unit(&c.result).0, matrix_unit(&c.result).1)
            ));
        }
    }
    against_target(r, "latency", items)
}

/// The bandwidth headline figures measured toward the run's target (each kernel's result,
/// each matrix cell, each scaling point), each with the width it reached and the extra
/// repetitions it took; `None` when no figure carries a precision record.
pub(super) fn bandwidth_precision_line(r: &RunResults) -> Option<String> {
    let mut items = Vec::new();
    for (b, scaling) in [(r.bandwidth.as_ref(), false), (r.scaling.as_ref(), true)] {
        let Some(b) = b else { continue };
        for (i, x) in b.results.iter().enumerate() {
            let Some(pr) = x.precision else { continue };
            let cell = b
                .matrix
                .iter()
                .flat_map(|m| &m.cells)
                .find(|c| c.result_index == i);
            let what = match (cell, scaling) {
                (Some(c), _) => format!(
                    "{} matrix node {} -> memory node {}",
                    x.kernel, c.initiator, c.target
                ),
                (None, true) => format!("{} scaling at {} thread(s)", x.kernel, x.threads),
                (None, false) => format!("{} on {} thread(s)", x.kernel, x.threads),
            };
            items.push(format!(
                "{what} {}",
                pr.clause_in(REPETITIONS.0, REPETITIONS.1)
            ));
        }
    }
    against_target(r, "bandwidth", items)
}

/// The precision line: the run's target and, for the scenario rows measured in rounds, the
/// width each reached and the extra rounds it got (the budget goes where the
/// intervals are widest). `None` when no row carries a precision record.
pub(super) fn precision_line(r: &RunResults) -> Option<String> {
    let t = r.scenarios.as_ref()?;
    let rows: Vec<String> = t
        .scenarios
        .iter()
        .filter(|s| s.same_as.is_none())
        .filter_map(|s| Some(format!("({}) {}", s.letter, s.precision?.clause())))
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(format!(
        "interval half-widths against the {} budget's target of \u{b1}{:.0} %: {}",
        r.plan.budget.name(),
        r.plan.budget.target_half_width() * 100.0,
        rows.join("; ")
    ))
}

/// What the scenario table's ns column is: one thread's latency under which conditions
/// (a latency measured apart from the headline's says its conditions); `None` when
/// no row has a latency.
pub(super) fn latency_conditions(t: &crate::results::scenarios::ScenarioTable) -> Option<String> {
    if t.scenarios.iter().all(|s| s.latency_ns.is_none()) {
        return None;
    }
    let size = t
        .latency_working_set_bytes
        .map(|b| format!(" on {}", format_bytes(b)))
        .unwrap_or_default();
    // Row (a) pinned its thread to one CPU in files before the fix; since, it binds the
    // thread to its node's CPUs (its numactl line). Say which this file holds.
    let a = match t.scenarios.first().map(|s| s.cpus.as_slice()) {
        Some([one]) => format!("pinned to CPU {one}"),
        Some(cpus) if !cpus.is_empty() => format!(
            "on node {}'s CPUs ({})",
            t.home_node,
            crate::results::format::format_list(cpus)
        ),
        _ => "pinned to its CPU".to_string(),
    };
    let conditions = format!(
        "ns: one thread's median dependent-load latency, random walk, 4k pages{size} on node {}; (a) {a}, (b) left to the scheduler",
        t.home_node
    );
    // The rows' blocks, interleaved or not, and (b) against (a) only as the
    // paired interval allows. Older files hold bare medians and read as before.
    let blocks: Vec<&crate::results::scenarios::ScenarioLatency> = t
        .scenarios
        .iter()
        .filter(|s| s.same_as.is_none())
        .filter_map(|s| s.latency.as_ref())
        .collect();
    let Some(most) = blocks.iter().map(|l| l.blocks.blocks).max() else {
        return Some(conditions);
    };
    let how = if blocks.iter().any(|l| l.interleaved) {
        format!(
            "(a) and (b) measured in {most} interleaved blocks each ((a) (b), then (b) (a), ...), [95 % interval] over the block medians"
        )
    } else {
        format!("measured in {most} blocks, [95 % interval] over the block medians")
    };
    let mut line = format!("{conditions}; {how}");
    if let Some(d) = t.latency_difference() {
        line.push_str("; ");
        line.push_str(&d);
    }
    Some(line)
}

/// The end-of-run summary; `dir` is where the files went.
pub fn render(out: &mut dyn Write, r: &RunResults, dir: Option<&Path>) -> io::Result<()> {
    writeln!(out, "{}", topology_line(r))?;
    let h = headline(r);
    if !h.is_empty() {
        writeln!(out)?;
        for l in h {
            writeln!(out, "  {l}")?;
        }
    }
    scenarios(out, r)?;
    advice_and_findings(out, r)?;
    notes_and_timings(out, r)?;
    writeln!(out)?;
    super::verdict::write_run(out, r)?;
    writeln!(
        out,
        "{} in {:.1} s{}",
        if r.partial {
            "partial run"
        } else {
            "run complete"
        },
        r.duration_s,
        dir.map(|d| format!("; files in {}/", d.display()))
            .unwrap_or_default()
    )
}

/// The scenario table and the recommendation per kind of application.
fn scenarios(out: &mut dyn Write, r: &RunResults) -> io::Result<()> {
    if let Some(t) = &r.scenarios {
        writeln!(out)?;
        writeln!(
            out,
            "Policy scenarios (kernel {}, MB = 10^6 B, median of {} x {} ms):",
            t.kernel, t.repetitions, t.duration_ms
        )?;
        let mut notes = Vec::new();
        let rows: Vec<Vec<String>> = t
            .scenarios
            .iter()
            .filter(|s| s.same_as.is_none())
            .map(|s| {
                let (letters, why) = super::run_view::merged_letters(t, s);
                if let Some(why) = why {
                    notes.push(format!("{letters}: {why}"));
                }
                vec![
                    letters,
                    s.label.clone(),
                    s.mb_per_s.as_ref().map_or_else(
                        || "-".into(),
                        |m| {
                            format!(
                                "{}{}",
                                super::run_view::fmt_interval(m),
                                short_mark(s.quality.as_ref())
                            )
                        },
                    ),
                    // The latency's interval over its blocks, marked like the MB/s cell
                    // when its blocks stayed disturbed.
                    super::run_view::latency_text(s).map_or_else(
                        || "-".into(),
                        |l| {
                            format!(
                                "{l}{}",
                                short_mark(s.latency.as_ref().and_then(|l| l.quality.as_ref()))
                            )
                        },
                    ),
                    match &s.unavailable {
                        Some(u) => format!("not measured: {u}"),
                        None => s.numactl.clone(),
                    },
                ]
            })
            .collect();
        write!(
            out,
            "{}",
            columns(&["", "scenario", "MB/s", "ns", "how"], &rows)
        )?;
        for n in notes {
            writeln!(out, "  {n}")?;
        }
        if let Some(l) = latency_conditions(t) {
            writeln!(out, "  {l}")?;
        }
        if let Some(p) = precision_line(r) {
            writeln!(out, "  {p}")?;
        }
        for rec in &t.recommendations {
            // The sentence already says "indistinguishable" or "same placement"; a winner
            // gets its paired ratio and interval appended.
            if rec.verdict == Some(crate::results::scenarios::Verdict::Winner) {
                writeln!(
                    out,
                    "  -> {} ({})",
                    rec.text,
                    super::run_view::comparison(rec)
                )?;
            } else {
                writeln!(out, "  -> {}", rec.text)?;
            }
            if !rec.numactl.is_empty() && super::run_view::names_winner(rec) {
                writeln!(out, "     {}", rec.numactl)?;
            }
        }
    }
    Ok(())
}

/// The weighted-interleave advice and the findings.
fn advice_and_findings(out: &mut dyn Write, r: &RunResults) -> io::Result<()> {
    if r.advisor.is_some() && r.topology.memory_nodes().len() <= 1 {
        writeln!(out)?;
        writeln!(
            out,
            "Weighted interleave: one memory node, nothing to spread pages over here."
        )?;
    } else if let Some(a) = &r.advisor {
        writeln!(out)?;
        writeln!(out, "Weighted interleave: {}", a.summary)?;
        for l in &a.apply {
            writeln!(out, "  {l}")?;
        }
    }
    if !r.findings.is_empty() {
        writeln!(out)?;
        writeln!(out, "Findings:")?;
        super::run_text::finding_lines(r, out, "  ", "-")?;
    }
    Ok(())
}

/// Skipped and failed parts, warnings, and the time each part took.
fn notes_and_timings(out: &mut dyn Write, r: &RunResults) -> io::Result<()> {
    let notes: Vec<String> = r
        .plan
        .skipped
        .iter()
        .filter(|s| !s.reason.starts_with("not named") && !s.reason.starts_with("left out"))
        .map(|s| format!("{} skipped: {}", s.part.name(), s.reason))
        .chain(
            r.failed
                .iter()
                .map(|f| format!("{} failed: {}", f.part.name(), f.error)),
        )
        .collect();
    if !notes.is_empty() {
        writeln!(out)?;
        for n in notes {
            writeln!(out, "note: {n}")?;
        }
    }
    if !r.timings.is_empty() {
        writeln!(out)?;
        let t: Vec<String> = r
            .timings
            .iter()
            .map(|t| {
                let est = r
                    .plan
                    .planned(t.part)
                    .map(|p| format!(" (est. {:.1})", p.estimate_s))
                    .unwrap_or_default();
                format!("{} {:.1} s{est}", t.part.name(), t.seconds)
            })
            .collect();
        writeln!(out, "time per part: {}", t.join(", "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::quality::RepetitionQuality;
    use crate::run::sample;

    /// A remote matrix cell's summary line carries its ratio to local paired over
    /// the rounds, called different only when the interval excludes 1; a local cell and a
    /// cell without rounds carry none.
    #[test]
    fn remote_matrix_cells_carry_their_paired_ratio() {
        use crate::results::tables::RatioToLocal;
        let mut r = sample::results();
        let mut l =
            sample::latency_matrix(&[(0, 0, 45.0, None), (0, 1, 70.0, None), (1, 0, 46.0, None)]);
        let ratio = |x: f64, lo: f64, hi: f64| RatioToLocal {
            ratio: x,
            ci: Some(crate::stats::Interval {
                low: lo,
                high: hi,
                level: 0.961,
            }),
            pairs: 9,
        };
        let cells = &mut l.matrix.as_mut().unwrap().cells;
        cells[0].measured_ratio_interval = Some(ratio(1.0, 1.0, 1.0));
        cells[1].measured_ratio_interval = Some(ratio(1.55, 1.53, 1.6));
        r.latency = Some(l);
        let h = headline(&r);
        let line = |from: &str| {
            h.iter()
                .find(|x| x.starts_with(from))
                .unwrap_or_else(|| panic!("{from}: {h:#?}"))
                .clone()
        };
        assert!(
            line("latency matrix node 0 -> memory node 1")
                .ends_with("; x1.55 [1.53, 1.60] local, paired over 9 rounds, slower than local"),
            "{h:#?}"
        );
        assert!(!line("latency matrix node 0 -> memory node 0").contains("local,"));
        assert!(!line("latency matrix node 1 -> memory node 0").contains("paired"));
        let cells = &mut r.latency.as_mut().unwrap().matrix.as_mut().unwrap().cells;
        cells[1].measured_ratio_interval = Some(ratio(1.01, 0.99, 1.03));
        let h = headline(&r);
        assert!(
            h.iter().any(|x| x.ends_with(
                "; x1.01 [0.990, 1.03] local, paired over 9 rounds, indistinguishable from local here"
            )),
            "{h:#?}"
        );
        // The home cell shows the run's reference figure: the ratio names the local figure of
        // the rounds it is against.
        let cells = &mut r.latency.as_mut().unwrap().matrix.as_mut().unwrap().cells;
        cells[1].reference_in_rounds_ns = Some(44.2);
        let h = headline(&r);
        assert!(
            h.iter().any(|x| x.ends_with(
                "; x1.01 [0.990, 1.03] local, paired over 9 rounds (local measured 44 ns in them), indistinguishable from local here"
            )),
            "{h:#?}"
        );
    }

    /// A part's own disturbed figure is marked on its summary line (sweep
    /// point, latency matrix cell, bandwidth, bandwidth matrix cell, loaded points), and an
    /// undisturbed run's lines carry no mark.
    #[test]
    fn disturbed_figures_are_marked_on_their_summary_lines() {
        let mut r = RunResults::from_json(
            include_str!("../../tests/fixtures/results/this-machine-kvm-2cpu.json"),
            "fixture",
        )
        .unwrap();
        assert!(headline(&r).iter().all(|l| !l.contains("DISTURBED")));
        let mut q = RepetitionQuality::new(0.9, 3);
        q.disturbed = true;
        let l = r.latency.as_mut().unwrap();
        for c in &mut l.sweep {
            c.points.last_mut().unwrap().quality = Some(q.clone());
        }
        for c in &mut l.matrix.as_mut().unwrap().cells {
            c.result.quality = Some(q.clone());
        }
        for x in &mut r.bandwidth.as_mut().unwrap().results {
            x.quality = Some(q.clone());
        }
        for p in &mut r.loaded_latency.as_mut().unwrap().points {
            p.quality = Some(q.clone());
        }
        let lines = headline(&r);
        for start in [
            "latency sweep's largest point",
            "latency matrix node",
            "bandwidth read",
            "read bandwidth matrix node",
            "loaded latency",
        ] {
            let of: Vec<&String> = lines.iter().filter(|l| l.starts_with(start)).collect();
            assert!(!of.is_empty(), "no line starts with {start}: {lines:#?}");
            assert!(of.iter().all(|l| l.contains("DISTURBED")), "{of:#?}");
        }
    }

    #[test]
    fn summary_of_the_opteron_results() {
        let mut r = sample::results();
        r.findings = crate::run::findings::derive(&r);
        let mut out = Vec::new();
        render(&mut out, &r, Some(Path::new("out"))).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.starts_with("opteron250 | AMD Opteron(tm) Processor 250 | 2 NUMA node(s)"),
            "{s}"
        );
        assert!(s.contains("(f)  all threads, interleaved memory"), "{s}");
        assert!(s.contains("8422"), "{s}");
        assert!(
            s.contains("-> For a NUMA-unaware multi-threaded application, (f)"),
            "{s}"
        );
        assert!(
            s.contains("not measured: Linux 2.6.32 has no weighted interleave"),
            "{s}"
        );
        assert!(
            s.trim_end()
                .ends_with("run complete in 42.0 s; files in out/"),
            "{s}"
        );
        let mut out = Vec::new();
        let t = sample::opteron_topology();
        let p =
            crate::run::plan::make_plan(&t, &Default::default(), crate::run::execute::BUILT).plan;
        render_plan(&mut out, &p).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.starts_with("numascope run plan (default budget, target 60 s"),
            "{s}"
        );
        assert!(s.contains("loaded-latency    "), "{s}");
        let only_topo = [crate::results::Part::Topology];
        let p = crate::run::plan::make_plan(&t, &Default::default(), &only_topo).plan;
        let mut out = Vec::new();
        render_plan(&mut out, &p).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.contains("c2c: its measurement engine is not part of this build"),
            "{s}"
        );
    }

    /// The scenario table's ns cells carry their interval over the blocks, a
    /// disturbed latency is marked, the conditions line says how the blocks ran and states
    /// (b) against (a) only beyond noise; the HTML cell and the CSV columns say the same.
    #[test]
    fn scenario_latencies_show_their_interval_blocks_and_paired_difference() {
        let mut r = sample::results();
        let brief = |r: &RunResults| {
            let mut out = Vec::new();
            render(&mut out, r, None).unwrap();
            String::from_utf8(out).unwrap()
        };
        let s = brief(&r);
        assert!(s.contains("45.6 [45.6, 45.6]"), "{s}");
        assert!(s.contains("57.5 [57.5, 57.5]"), "{s}");
        assert!(
            s.contains("(a) and (b) measured in 9 interleaved blocks each ((a) (b), then (b) (a), ...), [95 % interval] over the block medians; (b) vs (a) latency: +26 % [+26, +26 %], paired, 9 rounds"),
            "{s}"
        );
        // Noise: the rounds' ratios straddle 1 beyond the margin's reach.
        let t = r.scenarios.as_mut().unwrap();
        let a = t.scenarios[0].latency.clone().unwrap();
        let mut b = a.clone();
        b.blocks.block_medians_ns = [0.9, 1.1, 0.95, 1.05, 1.0, 1.08, 0.93, 1.02, 0.99]
            .iter()
            .map(|f| f * 45.6)
            .collect();
        t.scenarios[1].latency_ratio_to_a = crate::run::scenarios::latency::ratio_to_a(&a, &b);
        let s = brief(&r);
        assert!(
            s.contains(
                "(b) vs (a) latency: indistinguishable here (within \u{b1}8 %; paired, 9 rounds)"
            ),
            "{s}"
        );
        assert!(!s.contains("DISTURBED"), "{s}");
        let mut q = RepetitionQuality::new(0.9, 3);
        q.disturbed = true;
        let t = r.scenarios.as_mut().unwrap();
        t.scenarios[0].latency.as_mut().unwrap().quality = Some(q);
        let s = brief(&r);
        assert!(s.contains("45.6 [45.6, 45.6] (DISTURBED)"), "{s}");
        assert!(s.contains("(b) vs (a) latency: not stated"), "{s}");
        let html = crate::render::html::render(&r);
        assert!(
            html.contains("<td>45.6 [45.6, 45.6] (disturbed)</td>"),
            "{html}"
        );
        let csv = crate::render::run_view::scenarios_table(&r);
        let row = &csv.rows[1];
        assert_eq!(
            row[csv.col("ns_per_load_blocks_count")],
            crate::render::run_view::Cell::Int(9)
        );
        assert!(matches!(
            row[csv.col("ns_per_load_ratio_to_a")],
            crate::render::run_view::Cell::Num(_)
        ));
        assert_eq!(
            csv.rows[0][csv.col("ns_per_load_disturbed")],
            crate::render::run_view::Cell::Bool(true)
        );
    }
}
