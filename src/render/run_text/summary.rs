//! The one-screen summary that `run` prints, writes to summary.txt, and `report` prints:
//! the figures a person came for, each once, from [`crate::results::figures`]. Local
//! latency and bandwidth (as MLC's matrices when there are several nodes: CPU node rows,
//! memory node columns, SLIT beside), what to run for each kind of application, loaded
//! latency and core to core on a line each, then the warnings that matter and where the
//! rest is. At most 100 columns; every other table is in `report --full`, the HTML and the
//! CSV files. This renderer arranges and words; it decides nothing.

use std::io::{self, Write};
use std::path::Path;

use crate::render::format::estimate::{compact, gain, no_interval, num, ratio_gain};
use crate::results::figures::{self, Conditions, Figure, NodeMatrix, RunFigures};
use crate::results::findings::SHORT_OF_MEMORY;
use crate::results::format::{format_bytes, format_list};
use crate::results::penalty::{penalties, Quantity, RemotePenalty};
use crate::results::RunResults;
use crate::stats::decide::{percent, Decision};

/// Widest line the summary prints.
pub const WIDTH: usize = 100;
/// Warnings shown before "and N more".
const WARNINGS_SHOWN: usize = 4;

/// Writes the summary; `dir` is where the run's files went (none for `report`).
pub fn render(out: &mut dyn Write, r: &RunResults, dir: Option<&Path>) -> io::Result<()> {
    let f = figures::of_run(r);
    let mut lines = vec![machine_line(r), verdict_line(r)];
    lines.extend(latency_and_bandwidth(r, &f));
    lines.extend(remote_penalty(r));
    lines.extend(what_to_run(&f));
    lines.extend(crate::render::topo::tiering::weights_lines(&f));
    lines.extend(loaded_and_c2c(&f));
    lines.extend(warnings(r));
    lines.push(where_the_rest_is(dir));
    for l in lines.iter().flat_map(|l| l.split('\n')) {
        writeln!(out, "{}", crate::render::format::width::cut(l, WIDTH))?;
    }
    Ok(())
}

/// The one line a run prints for a launcher's log (`srun`, `mpirun`, `pdsh` gather one line
/// per host): host, verdict, the local latency and bandwidth figures and where the files are,
/// as `key=value` fields separated by spaces so a script can split it:
/// `numascope: host=h verdict=quiet partial=false latency_ns=95.1 bandwidth_mb_s=20123 failed=0 output=DIR`.
/// A disturbed figure is said by the verdict field (noisy or unusable); a missing one is `-`.
pub fn line(out: &mut dyn Write, r: &RunResults, dir: &Path) -> io::Result<()> {
    let f = figures::of_run(r);
    let verdict = r.quality.as_ref().map_or("unjudged", |q| q.verdict.label());
    let fig = |i: Option<usize>| {
        i.map_or("-".to_string(), |i| {
            format!("{:.1}", f.get(i).estimate.median)
        })
    };
    writeln!(
        out,
        "numascope: host={} verdict={verdict} partial={} latency_ns={} bandwidth_mb_s={} failed={} output={}",
        r.host.replace(char::is_whitespace, "_"),
        r.partial,
        fig(f.local_latency),
        fig(f.local_bandwidth),
        r.failed.len(),
        dir.display()
    )
}

fn machine_line(r: &RunResults) -> String {
    let t = &r.topology;
    let env = &t.environment;
    format!(
        "{}: {}, {}, {}, LLC {}, Linux {}{}",
        // Foreign strings, escaped; the host cut short enough that the line keeps its length
        // note when the whole line is fitted to the width.
        crate::sanitize::cut(&crate::sanitize::escape(&r.host), 40),
        crate::sanitize::escape(env.cpu_model.as_deref().unwrap_or("unknown CPU")),
        plural(t.nodes.len(), "node"),
        plural(t.usable_cpus().len(), "CPU"),
        format_bytes(t.llc_total_bytes()),
        crate::sanitize::escape(env.kernel_release.as_deref().unwrap_or("?")),
        if env.hypervisor { ", VM" } else { "" }
    )
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn verdict_line(r: &RunResults) -> String {
    let v = r
        .quality
        .as_ref()
        .map_or("not recorded", |q| verdict_clause(&q.sentence));
    format!(
        "{} in {:.0} s, {} budget\nverdict: {v}",
        if r.partial { "partial run" } else { "run" },
        r.duration_s,
        r.plan.budget.name()
    )
}

/// The verdict's first clause: `noisy: 26 of 31 figures marked` (the evidence after it is in
/// `report --full`).
pub fn verdict_clause(sentence: &str) -> &str {
    let end = [" (", "; "]
        .iter()
        .filter_map(|p| sentence.find(p))
        .min()
        .unwrap_or(sentence.len());
    &sentence[..end]
}

/// A figure in compact form with its disturbed mark.
pub(crate) fn fig(f: &Figure) -> String {
    let mut s = compact(&f.estimate, f.unit);
    if f.quality.disturbed {
        s.push_str(" DISTURBED");
    }
    s
}

/// Whose figure it is when the run measured it as its reference (in repetitions spread across
/// the run, and shown again wherever the conditions match); `None` for a part's own figure.
pub(crate) fn source(g: &Figure) -> Option<&'static str> {
    match g.key.as_str() {
        "latency.local" => {
            Some("the run's local idle latency, measured in repetitions spread across the run")
        }
        "bandwidth.local" => {
            Some("the run's local bandwidth, measured in repetitions spread across the run")
        }
        _ => None,
    }
}

/// `random, 16 MiB, 4k pages, 1 thread on CPU 0, memory node 0`: the conditions once.
pub(crate) fn conditions(c: &Conditions) -> String {
    let mut parts = Vec::new();
    parts.extend(c.method.clone());
    parts.extend(c.working_set_bytes.map(format_bytes));
    parts.extend(c.page_size.as_ref().map(|p| format!("{p} pages")));
    if let Some(t) = c.threads {
        let on = if c.cpus.is_empty() {
            String::new()
        } else {
            format!(" on CPU {}", format_list(&c.cpus))
        };
        parts.push(format!("{t} thread{}{on}", if t == 1 { "" } else { "s" }));
    }
    if !c.memory_nodes.is_empty() {
        parts.push(format!("memory node {}", format_list(&c.memory_nodes)));
    }
    parts.extend(c.load.clone());
    parts.join(", ")
}

/// The interval note of a matrix: the widest ± or why there are none, once per block.
fn matrix_note(f: &RunFigures, m: &NodeMatrix) -> String {
    let figs: Vec<&Figure> = m
        .cells
        .iter()
        .flatten()
        .flatten()
        .map(|&i| f.get(i))
        .collect();
    let widest = figs
        .iter()
        .filter_map(|g| g.estimate.relative_half_width())
        .reduce(f64::max);
    let n = figs.iter().map(|g| g.estimate.count).max().unwrap_or(0);
    let disturbed = figs.iter().filter(|g| g.quality.disturbed).count();
    let mut s = match widest {
        Some(w) => format!("  medians; intervals at most ±{:.0} %, n<={n}", w * 100.0),
        None => format!("  medians; {} (n={n})", no_interval(n)),
    };
    if disturbed > 0 {
        s.push_str(&format!("; {disturbed} cell(s) disturbed"));
    }
    s
}

fn matrix_lines(f: &RunFigures, m: &NodeMatrix, slit: Option<&Vec<Vec<u32>>>) -> Vec<String> {
    let w = 9;
    let mut head = format!("  {:<22}", "CPU node \\ memory node");
    for c in &m.columns {
        head.push_str(&format!("{c:>w$}"));
    }
    if slit.is_some() {
        head.push_str("   SLIT");
    }
    let mut v = vec![head];
    for (ri, row) in m.rows.iter().enumerate() {
        let mut l = format!("  {row:<22}");
        for cell in &m.cells[ri] {
            let t = cell.map_or("-".to_string(), |i| num(f.get(i).estimate.median));
            l.push_str(&format!("{t:>w$}"));
        }
        if let Some(d) = slit.and_then(|d| d.get(*row as usize)) {
            let ds: Vec<String> = m
                .columns
                .iter()
                .map(|&c| d.get(c as usize).map_or("-".into(), |x| x.to_string()))
                .collect();
            l.push_str(&format!("   {}", ds.join(" ")));
        }
        v.push(l);
    }
    v.push(matrix_note(f, m));
    v
}

/// Latency then bandwidth, each as its node matrix under its conditions, else as the one
/// local figure with its conditions (two local figures read as one block); a latency walk
/// short of memory is cautioned right under the latency.
fn latency_and_bandwidth(r: &RunResults, f: &RunFigures) -> Vec<String> {
    let slit = (!r.topology.distances.is_empty()).then_some(&r.topology.distances);
    let lat = ["Latency, ns per load", "Local latency   ", ""];
    let mut v = block(f, f.latency.as_ref(), f.local_latency, lat, slit);
    if let Some(short) = r.findings.iter().find(|f| f.id == SHORT_OF_MEMORY) {
        v.push(format!("  caution: {}", short.text));
    }
    let bw = ["Bandwidth, MB/s", "Local bandwidth ", "; MB = 10^6 B"];
    let bw = block(f, f.bandwidth.as_ref(), f.local_bandwidth, bw, None);
    let joined = f.latency.is_none() && f.local_latency.is_some() && f.bandwidth.is_none();
    v.extend(bw.into_iter().skip(usize::from(joined)));
    v
}

/// A blank line, then the matrix `m` under `title` and its conditions, or else the `local`
/// figure after `label` with its conditions and `note` on the next line; nothing without
/// either.
fn block(
    f: &RunFigures,
    m: Option<&NodeMatrix>,
    local: Option<usize>,
    [title, label, note]: [&str; 3],
    slit: Option<&Vec<Vec<u32>>>,
) -> Vec<String> {
    if let Some(m) = m {
        let head = format!("{title} ({})", conditions(&m.conditions));
        return [vec![String::new(), head], matrix_lines(f, m, slit)].concat();
    }
    let Some(g) = local.map(|i| f.get(i)) else {
        return Vec::new();
    };
    let conditions = conditions(&g.conditions);
    let figure = format!("{label}{}", fig(g));
    vec![String::new(), figure, format!("  {conditions}{note}")]
}

/// The worst remote node against local, for latency and for bandwidth, as the run's
/// findings decided it ([`penalties`]): the change with its interval when it clears the
/// practical margin, "within +-x %" when the two are indistinguishable here, the bare median
/// ratio marked "no interval" otherwise. Nothing on a one-node machine.
fn remote_penalty(r: &RunResults) -> Vec<String> {
    let all = penalties(r);
    let worst = |q: Quantity| {
        let of = all.iter().filter(|p| p.quantity == q);
        match q {
            Quantity::Latency => of.max_by(|a, b| a.ratio.ratio.total_cmp(&b.ratio.ratio)),
            Quantity::Bandwidth => of.min_by(|a, b| a.ratio.ratio.total_cmp(&b.ratio.ratio)),
        }
    };
    let parts: Vec<String> = [
        ("latency", Quantity::Latency),
        ("bandwidth", Quantity::Bandwidth),
    ]
    .into_iter()
    .filter_map(|(name, q)| Some(format!("{name} {}", penalty_text(worst(q)?))))
    .collect();
    if parts.is_empty() {
        return Vec::new();
    }
    vec![
        String::new(),
        format!("Remote penalty  {}", parts.join("; ")),
    ]
}

/// `+55 % [+53, +60 %] 1->0`, `within +-3 % 1->0` or `+55 % 1->0 (n=15)` (no interval): the
/// worst CPU node -> memory node pair against that CPU node's local memory.
fn penalty_text(p: &RemotePenalty) -> String {
    let pair = format!("{}->{}", p.initiator, p.memory_node);
    let mut s = match p.decision() {
        Decision::Higher | Decision::Lower => format!("{} {pair}", ratio_gain(&p.ratio)),
        Decision::Indistinguishable { within } => {
            format!("within \u{b1}{} {pair}", percent(within))
        }
        Decision::NoInterval { samples } => {
            format!("{} {pair} (n={samples})", ratio_gain(&p.ratio))
        }
    };
    if p.disturbed {
        s.push_str(" DISTURBED");
    }
    s
}

fn what_to_run(f: &RunFigures) -> Vec<String> {
    if f.what_to_run.is_empty() {
        return Vec::new();
    }
    let mut v = vec![
        String::new(),
        format!(
            "What to run ({} kernel, MB/s; gain over the next best, paired 95 % interval)",
            f.scenario_kernel.as_deref().unwrap_or("?")
        ),
    ];
    let mut shown: Vec<(usize, &str)> = Vec::new();
    for c in &f.what_to_run {
        let g = c.figure.map(|i| f.get(i));
        let earlier = c.figure.and_then(|i| shown.iter().find(|(j, _)| *j == i));
        let figure = match (earlier, g) {
            (Some((_, letter)), _) => format!("as {letter}"),
            (None, Some(g)) => compact(&g.estimate, g.unit),
            (None, None) => "-".into(),
        };
        shown.extend(
            c.figure
                .map(|i| (i, c.best.split(' ').next().unwrap_or(""))),
        );
        let why = match (&c.gain, &c.over) {
            _ if c.tie => "no difference here".to_string(),
            (Some(g), Some(o)) => format!("{} over {o}", gain(g)),
            _ => "the only way measured".into(),
        };
        let mark = match g {
            Some(g) if g.quality.disturbed => "DISTURBED; ",
            _ => "",
        };
        let best: String = c.best.chars().take(47).collect();
        v.push(format!("  {:<28} {best:<47} {figure}", kind_label(c.kind)));
        let line = format!("      {mark}{why}");
        if c.numactl.is_empty() || c.tie {
            v.push(line);
        } else if line.len() + 2 + c.numactl.len() <= WIDTH {
            v.push(format!("{line}: {}", c.numactl));
        } else {
            v.push(line);
            v.push(format!("      {}", c.numactl));
        }
    }
    v
}

/// The kind of application in a table cell.
fn kind_label(k: crate::results::scenarios::AppKind) -> &'static str {
    use crate::results::scenarios::AppKind::*;
    match k {
        SingleThreaded => "single-threaded",
        SeveralSingleThreaded => "several single-threaded",
        MultiThreadedNumaUnaware => "multi-threaded, NUMA-unaware",
        MultiThreadedNumaAware => "multi-threaded, NUMA-aware",
    }
}

fn loaded_and_c2c(f: &RunFigures) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(l) = &f.loaded {
        let idle = f.get(l.idle);
        let peak = f.get(l.at_peak);
        v.push(String::new());
        let load = peak.conditions.load.as_deref().unwrap_or("load");
        let at = num(l.peak_mb_per_s.median);
        // The idle point pooled into the reference is that figure, printed once above: the
        // line leads with the loaded figure and points to it.
        v.push(if f.local_latency == Some(l.idle) {
            format!(
                "Loaded latency  {} at {at} MB/s ({load}); idle: the local latency",
                fig(peak)
            )
        } else {
            format!(
                "Loaded latency  {} idle, {} at {at} MB/s ({load})",
                fig(idle),
                fig(peak)
            )
        });
        v.extend(crate::render::topo::tiering::loaded_kind_lines(f));
    }
    if !f.c2c.is_empty() {
        let groups: Vec<String> = f
            .c2c
            .iter()
            .map(|(label, i)| format!("{} {label}", fig(f.get(*i))))
            .collect();
        if f.loaded.is_none() {
            v.push(String::new());
        }
        v.push(format!("Core to core    {}", groups.join("; ")));
    }
    v
}

/// The warnings that matter, each cut to its first clause, and how many more there are.
fn warnings(r: &RunResults) -> Vec<String> {
    let all = crate::render::words::warnings::gathered(r);
    if all.is_empty() {
        return Vec::new();
    }
    let mut v = vec![String::new()];
    for w in all.iter().take(WARNINGS_SHOWN) {
        v.push(format!("warning: {w}"));
    }
    if all.len() > WARNINGS_SHOWN {
        v.push(format!(
            "  and {} more warning(s) in report --full",
            all.len() - WARNINGS_SHOWN
        ));
    }
    v
}

fn where_the_rest_is(dir: Option<&Path>) -> String {
    match dir {
        Some(d) => format!("More: numascope report --full {}/results.json", d.display()),
        None => {
            "Every table, sweep point and decision: numascope report --full (or --html, --csv)."
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::saved as load;

    #[test]
    fn one_line_with_every_field() {
        let r = crate::run::sample::results();
        let f = figures::of_run(&r);
        let s = crate::render::fixture::written(|o| line(o, &r, Path::new("res/h1")));
        assert_eq!(s.lines().count(), 1, "{s}");
        for k in [
            "host=",
            "verdict=",
            "partial=false",
            "latency_ns=",
            "bandwidth_mb_s=",
            "failed=0",
            "output=res/h1",
        ] {
            assert!(s.contains(k), "{k} missing: {s}");
        }
        // The sample run has bandwidth but no latency part: a missing figure is `-`.
        assert!(
            f.local_latency.is_none() && s.contains("latency_ns=- "),
            "{s}"
        );
        let bw = f
            .local_bandwidth
            .map_or("-".into(), |i| format!("{:.1}", f.get(i).estimate.median));
        assert!(s.contains(&format!("bandwidth_mb_s={bw} ")), "{s}");
    }

    fn summary(r: &RunResults) -> String {
        crate::render::fixture::written(|o| render(o, r, None))
    }

    /// Every number with a decimal point or three digits appears no more often than the
    /// figures of the model that print as it: each figure once.
    fn assert_each_figure_once(r: &RunResults, text: &str) {
        let f = figures::of_run(r);
        let mut printed = std::collections::HashMap::<String, usize>::new();
        for g in &f.figures {
            *printed.entry(num(g.estimate.median)).or_default() += 1;
        }
        let mut seen = std::collections::HashMap::<String, usize>::new();
        for word in text.split_whitespace() {
            let w = word.trim_matches(|c: char| "()[],;:+-±%.".contains(c));
            let number = !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.');
            if number && (w.contains('.') || w.len() >= 3) {
                *seen.entry(w.to_string()).or_default() += 1;
            }
        }
        for (w, n) in seen {
            if n > 1 {
                let figs = printed.get(&w).copied().unwrap_or(0);
                assert!(
                    n <= figs.max(1),
                    "{w} printed {n} times for {figs} figure(s):\n{text}"
                );
            }
        }
    }

    fn check(r: &RunResults, max_lines: usize) -> String {
        let text = summary(r);
        assert!(
            text.lines().count() <= max_lines,
            "{} lines:\n{text}",
            text.lines().count()
        );
        for l in text.lines() {
            assert!(
                l.chars().count() <= WIDTH,
                "{} columns: {l}",
                l.chars().count()
            );
        }
        assert_each_figure_once(r, &text);
        text
    }

    #[test]
    fn opteron_two_sockets_in_forty_lines() {
        insta::assert_snapshot!(check(&load("opteron-2node.json"), 40));
    }

    #[test]
    fn this_machine_one_node_in_thirty_lines() {
        insta::assert_snapshot!(check(&load("this-machine-kvm-2cpu.json"), 30));
    }

    /// A loaded curve whose idle point was pooled into the reference leads with its loaded
    /// figure and points to the local latency line for the idle one, never printing it twice
    /// nor reading as if the loaded figure were the idle one.
    #[test]
    fn a_pooled_idle_point_points_to_the_local_latency() {
        use crate::results::agreement::places::loaded_place;
        use crate::results::reference::{PooledPlace, ReferenceFigure};
        let mut r = load("this-machine-quick-v657.json");
        let label = r.loaded_latency.as_ref().unwrap().kernel_label.clone();
        let own = summary(&r);
        let line = |t: &str| {
            t.lines()
                .find(|l| l.starts_with("Loaded latency"))
                .unwrap()
                .to_string()
        };
        assert!(line(&own).contains(" idle, "), "{own}");
        r.reference.as_mut().unwrap().pooled.push(PooledPlace {
            figure: ReferenceFigure::Latency,
            place: loaded_place(&label),
            blocks: 3,
        });
        let pooled = summary(&r);
        let l = line(&pooled);
        assert!(l.ends_with("; idle: the local latency"), "{l}");
        let local = figures::of_run(&r);
        let local = fig(local.get(local.local_latency.unwrap()));
        assert_eq!(pooled.matches(local.as_str()).count(), 1, "{pooled}");
    }

    /// A latency walk short of 8x the last-level cache is said right under the latency it
    /// qualifies, once, and nowhere when the run holds no such finding.
    #[test]
    fn a_walk_short_of_memory_is_cautioned_under_the_local_latency() {
        use crate::results::findings::Finding;
        let mut r = load("this-machine-quick-v657.json");
        assert!(!summary(&r).contains("caution:"));
        r.findings.push(Finding::warning(
            SHORT_OF_MEMORY,
            "the latency walk (929 MiB) is short",
        ));
        let text = summary(&r);
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("Local latency"))
            .unwrap();
        assert_eq!(
            lines[at + 2],
            "  caution: the latency walk (929 MiB) is short",
            "{text}"
        );
        assert_eq!(text.matches("caution:").count(), 1, "{text}");
    }

    /// tests/fixtures/results/four-node.json is the Opteron fixture grown to four nodes (a
    /// Magny-Cours-like square: latency one hop 1.4x, two hops 1.8x; SLIT 10/16/22; its
    /// bandwidth matrix grown the same way, 0.52x and 0.31x): a rendering fixture.
    #[test]
    fn four_nodes_in_forty_lines() {
        insta::assert_snapshot!(check(&load("four-node.json"), 40));
    }
}
