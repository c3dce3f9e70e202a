//! The HTML report of a run: one self-contained page (inline CSS, inline SVG charts, no
//! scripts, no network, no external files) that a person can open, print or attach to a
//! ticket. It lays out what [`super::run_view`] extracted: header and headline cards,
//! findings, latency vs working set, the node x node heatmaps beside the firmware's view,
//! bandwidth kernels, scaling and loaded-latency curves, core to core, the policy scenarios
//! with the winner per kind of application, weighted-interleave advice, environment and plan.
//! A section whose part did not run says so and why. All text is escaped.

use std::fmt::Write as _;

use super::run_view::{self as view, Cell, Table};
use super::svg::{self, bytes_short, Heatmap};
use crate::results::{Part, RunResults, Severity, RESULTS_SCHEMA_VERSION};

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const CSS: &str = r#"
:root{--ink:#23272f;--muted:#687080;--line:#e3e6eb;--soft:#f6f7f9;--accent:#0b6fa4;--warn:#9a4d00;--warnbg:#fff5e6;--ok:#1d7a52}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#eef0f3;color:var(--ink);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:28px 20px 40px}
header.top{background:#fff;border:1px solid var(--line);border-radius:10px;padding:22px 26px;margin-bottom:18px}
header.top h1{margin:0 0 4px;font-size:26px;letter-spacing:-.01em}
header.top .sub{color:var(--muted);font-size:14px}
header.top .sub span+span:before{content:"·";margin:0 8px;color:#b5bac3}
nav.toc{margin-top:14px;font-size:13px;display:flex;flex-wrap:wrap;gap:6px 14px}
nav.toc a{color:var(--accent);text-decoration:none}
nav.toc a:hover{text-decoration:underline}
.banner{border-radius:8px;padding:12px 16px;margin:0 0 18px;font-weight:600}
.banner.partial{background:var(--warnbg);border:1px solid #f0c890;color:var(--warn)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(210px,1fr));gap:14px;margin-bottom:18px}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:16px 18px}
.card .k{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.card .v{font-size:28px;font-weight:650;margin:4px 0 2px;font-variant-numeric:tabular-nums}
.card .v small{font-size:15px;font-weight:500;color:var(--muted);margin-left:4px}
.card .d{font-size:13px;color:var(--muted)}
section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:20px 26px;margin-bottom:18px}
section h2{margin:0 0 6px;font-size:19px}
section p.lead{margin:0 0 14px;color:var(--muted);font-size:14px}
.absent{color:var(--muted);font-style:italic;margin:6px 0}
figure{margin:10px 0 14px;overflow-x:auto}
figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:13px;color:var(--muted);margin-top:4px}
.pair{display:flex;flex-wrap:wrap;gap:8px 24px;align-items:flex-start}
table{border-collapse:collapse;width:100%;font-size:13.5px;margin:8px 0 6px}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;color:#3d4451;background:var(--soft);font-size:12.5px}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.win td{background:#eef7f2}
tbody tr:hover td{background:#f9fafb}
.scroll{overflow-x:auto}
code{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:1px 5px;border-radius:4px}
pre{font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:10px 12px;border-radius:6px;overflow-x:auto}
ul.findings{list-style:none;padding:0;margin:0}
ul.findings li{padding:9px 12px 9px 14px;border-left:3px solid var(--accent);background:var(--soft);margin:0 0 8px;border-radius:0 6px 6px 0}
ul.findings li.warning{border-left-color:#d98a1c;background:var(--warnbg)}
.tag{display:inline-block;font-size:11px;text-transform:uppercase;letter-spacing:.05em;font-weight:600;color:var(--muted);margin-right:8px}
li.warning .tag{color:var(--warn)}
ul.recs{padding-left:18px;margin:8px 0}
ul.recs li{margin:4px 0}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:6px 0;font-size:14px}
dl.kv dt{color:var(--muted)}
dl.kv dd{margin:0}
footer{color:var(--muted);font-size:12.5px;text-align:center;padding:8px 0 0}
@media (max-width:640px){main{padding:12px 8px}section,header.top{padding:16px 14px}.card .v{font-size:23px}}
@media print{body{background:#fff}section,header.top,.card{border-color:#ccc;break-inside:avoid}}
"#;

struct Page {
    html: String,
}

impl Page {
    fn push(&mut self, s: &str) {
        self.html.push_str(s);
    }

    fn section_open(&mut self, id: &str, title: &str, lead: &str) {
        let _ = write!(
            self.html,
            "<section id=\"{}\"><h2>{}</h2>",
            esc(id),
            esc(title)
        );
        if !lead.is_empty() {
            let _ = write!(self.html, "<p class=\"lead\">{}</p>", esc(lead));
        }
    }

    fn section_close(&mut self) {
        self.push("</section>\n");
    }

    fn absent(&mut self, r: &RunResults, part: Part) {
        let _ = write!(
            self.html,
            "<p class=\"absent\">Not measured in this run ({}).</p>",
            esc(&view::absent_reason(r, part))
        );
    }

    fn figure(&mut self, svg: Result<String, svg::ChartError>, caption: &str) {
        match svg {
            Ok(s) => {
                self.push("<figure>");
                self.push(&s);
                if !caption.is_empty() {
                    let _ = write!(self.html, "<figcaption>{}</figcaption>", esc(caption));
                }
                self.push("</figure>");
            }
            Err(e) => {
                let _ = write!(self.html, "<p class=\"absent\">{}</p>", esc(&e.to_string()));
            }
        }
    }

    /// A table with the listed columns; `win` marks rows to highlight.
    fn table(&mut self, t: &Table, cols: &[usize], win: &dyn Fn(usize) -> bool) {
        self.push("<div class=\"scroll\"><table><thead><tr>");
        for &c in cols {
            let _ = write!(self.html, "<th>{}</th>", esc(&t.columns[c]));
        }
        self.push("</tr></thead><tbody>");
        for (i, row) in t.rows.iter().enumerate() {
            self.push(if win(i) { "<tr class=\"win\">" } else { "<tr>" });
            for &c in cols {
                let cell = &row[c];
                let numeric_col = t
                    .rows
                    .iter()
                    .all(|r| matches!(r[c], Cell::Num(_) | Cell::Int(_) | Cell::Missing));
                let class = if numeric_col { " class=\"n\"" } else { "" };
                if t.columns[c] == "numactl" && matches!(cell, Cell::Text(_)) {
                    let _ = write!(self.html, "<td><code>{}</code></td>", esc(&cell.display()));
                } else {
                    let _ = write!(self.html, "<td{class}>{}</td>", esc(&cell.display()));
                }
            }
            self.push("</tr>");
        }
        self.push("</tbody></table></div>");
    }

    fn heatmaps(
        &mut self,
        pair: Option<(Heatmap, Option<Heatmap>)>,
        caption: &str,
        none_declared: &str,
    ) -> bool {
        let Some((m, d)) = pair else { return false };
        self.push("<div class=\"pair\">");
        self.figure(svg::heatmap(&m), "");
        match d {
            Some(d) => self.figure(svg::heatmap(&d), ""),
            None => {
                let _ = write!(self.html, "<p class=\"absent\">{}</p>", esc(none_declared));
            }
        }
        self.push("</div>");
        let _ = write!(self.html, "<p class=\"lead\">{}</p>", esc(caption));
        true
    }
}

fn card(p: &mut Page, k: &str, v: &str, unit: &str, d: &str) {
    let _ = write!(
        p.html,
        "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}<small>{}</small></div><div class=\"d\">{}</div></div>",
        esc(k),
        esc(v),
        esc(unit),
        esc(d)
    );
}

/// The remote/local latency ratio of the matrix: worst remote over best local.
fn remote_penalty(r: &RunResults) -> Option<(f64, String)> {
    let m = r.latency.as_ref()?.matrix.as_ref()?;
    let local = m
        .cells
        .iter()
        .filter(|c| c.initiator_node == c.memory_node)
        .map(|c| c.result.ns_per_load.median)
        .fold(f64::INFINITY, f64::min);
    let remote = m
        .cells
        .iter()
        .filter(|c| c.initiator_node != c.memory_node)
        .max_by(|a, b| {
            a.result
                .ns_per_load
                .median
                .total_cmp(&b.result.ns_per_load.median)
        })?;
    if !local.is_finite() {
        return None;
    }
    Some((
        (remote.result.ns_per_load.median / local - 1.0) * 100.0,
        format!(
            "worst remote pair {} \u{2192} {}: {} ns vs {} ns local",
            remote.initiator_node,
            remote.memory_node,
            view::fmt_num(remote.result.ns_per_load.median),
            view::fmt_num(local)
        ),
    ))
}

/// Renders the page.
pub fn render(r: &RunResults) -> String {
    let mut p = Page {
        html: String::with_capacity(256 * 1024),
    };
    let env = &r.topology.environment;
    let _ = write!(
        p.html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>numascope report: {}</title><style>{CSS}</style></head>\n<body><main>\n",
        esc(&r.host)
    );

    // Header.
    p.push("<header class=\"top\">");
    let _ = write!(
        p.html,
        "<h1>Memory on {}</h1><div class=\"sub\">",
        esc(&r.host)
    );
    let mut facts = vec![
        env.cpu_model
            .clone()
            .unwrap_or_else(|| "unknown CPU".into()),
        format!(
            "Linux {}",
            env.kernel_release.as_deref().unwrap_or("unknown")
        ),
        format!("started {}", r.started_at),
        format!("{:.1} s, {} budget", r.duration_s, r.plan.budget.name()),
    ];
    if env.hypervisor {
        facts.insert(
            2,
            format!(
                "virtual machine{}",
                env.hypervisor_type
                    .as_deref()
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default()
            ),
        );
    }
    for f in facts {
        let _ = write!(p.html, "<span>{}</span>", esc(&f));
    }
    p.push("</div><nav class=\"toc\">");
    for (id, name) in [
        ("findings", "Findings"),
        ("latency", "Latency"),
        ("latency-matrix", "Latency matrix"),
        ("bandwidth", "Bandwidth"),
        ("bandwidth-matrix", "Bandwidth matrix"),
        ("scaling", "Scaling"),
        ("loaded", "Loaded latency"),
        ("c2c", "Core to core"),
        ("scenarios", "Policies"),
        ("advisor", "Weighted interleave"),
        ("environment", "Environment"),
        ("plan", "Plan"),
    ] {
        let _ = write!(p.html, "<a href=\"#{id}\">{name}</a>");
    }
    p.push("</nav></header>\n");
    if r.partial {
        p.push("<div class=\"banner partial\">Partial run: the run was interrupted or a part failed. Sections without data say why.</div>\n");
    }

    // Cards.
    p.push("<div class=\"cards\">");
    match view::idle_dram_latency(r) {
        Some((ns, w)) => card(&mut p, "Idle memory latency", &view::fmt_num(ns), "ns", &w),
        None => card(
            &mut p,
            "Idle memory latency",
            "\u{2013}",
            "",
            "not measured in this run",
        ),
    }
    match view::peak_bandwidth(r) {
        Some((mb, w)) => card(&mut p, "Peak bandwidth", &view::fmt_num(mb), "MB/s", &w),
        None => card(
            &mut p,
            "Peak bandwidth",
            "\u{2013}",
            "",
            "not measured in this run",
        ),
    }
    let t = &r.topology;
    card(
        &mut p,
        "NUMA nodes",
        &t.nodes.len().to_string(),
        "",
        &format!(
            "{} with CPUs, {} with memory, {} CPUs usable",
            t.initiator_nodes().len(),
            t.memory_nodes().len(),
            t.usable_cpus().len()
        ),
    );
    if let Some((pct, w)) = remote_penalty(r) {
        card(
            &mut p,
            "Remote latency penalty",
            &format!("{pct:+.0}"),
            "%",
            &w,
        );
    }
    p.push("</div>\n");

    // Findings.
    p.section_open("findings", "Findings", "");
    if r.findings.is_empty() && r.warnings.is_empty() {
        p.push("<p class=\"absent\">No findings recorded.</p>");
    } else {
        p.push("<ul class=\"findings\">");
        for f in &r.findings {
            let (class, tag) = match f.severity {
                Severity::Warning => ("warning", "warning"),
                Severity::Info => ("info", "finding"),
            };
            let _ = write!(
                p.html,
                "<li class=\"{class}\"><span class=\"tag\">{tag}</span>{}</li>",
                esc(&f.text)
            );
        }
        for w in &r.warnings {
            let _ = write!(
                p.html,
                "<li class=\"warning\"><span class=\"tag\">warning</span>{}</li>",
                esc(w)
            );
        }
        p.push("</ul>");
    }
    p.section_close();

    // Latency sweep.
    p.section_open(
        "latency",
        "Latency vs working set",
        "Dependent loads over a random cycle, one per cache line: random walks include TLB misses, page walks mostly hit the TLB. Dashed lines: cache sizes from sysfs.",
    );
    match view::latency_sweep_chart(r) {
        Some(c) => p.figure(
            svg::line_chart(&c),
            "ns per load (median of the samples) against working set; x axis in powers of two.",
        ),
        None => p.absent(r, Part::Latency),
    }
    p.section_close();

    // Latency matrix.
    p.section_open(
        "latency-matrix",
        "Latency, CPU node \u{00d7} memory node",
        "Each row is the node whose CPU chases pointers, each column the node holding the memory. Beside it, what the firmware declares (HMAT when present, else the SLIT distance).",
    );
    let ws = r
        .latency
        .as_ref()
        .and_then(|l| l.matrix.as_ref())
        .map(|m| {
            format!(
                "ns per load, median; {} working set, {} walk, {} pages.",
                bytes_short(m.working_set_bytes as f64),
                m.mode.label(),
                m.page_size
            )
        })
        .unwrap_or_default();
    if !p.heatmaps(
        view::latency_heatmaps(r),
        &ws,
        "The firmware declares no SLIT or HMAT figures for these pairs.",
    ) {
        p.absent(r, Part::LatencyMatrix);
    }
    p.section_close();

    // Bandwidth kernels.
    p.section_open(
        "bandwidth",
        "Bandwidth kernels",
        "Application bytes moved per second by each kernel; MB = 10^6 bytes. Threads start on a barrier and stop on one shared flag.",
    );
    let bt = view::bandwidth_table(r);
    if bt.rows.is_empty() {
        p.absent(r, Part::Bandwidth);
    } else {
        p.table(&bt, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], &|_| false);
    }
    p.section_close();

    p.section_open(
        "bandwidth-matrix",
        "Bandwidth, CPU node \u{00d7} memory node",
        "Threads of the row's node reading memory of the column's node, beside the firmware's HMAT bandwidth when declared.",
    );
    let bw_title = view::bandwidth_matrix_table(r).title;
    if !p.heatmaps(view::bandwidth_heatmaps(r), &format!("{bw_title}; MB/s, median, MB = 10^6 bytes."), "The firmware declares no HMAT bandwidth for these pairs (no HMAT table, or no bandwidth entries in it).") {
        p.absent(r, Part::BandwidthMatrix);
    }
    p.section_close();

    // Scaling.
    p.section_open("scaling", "Bandwidth scaling with threads", "Total bandwidth as threads are added; where the curve flattens, memory (not the cores) is the limit.");
    match view::scaling_chart(r) {
        Some(c) => p.figure(
            svg::line_chart(&c),
            "MB/s (median, MB = 10^6 bytes) against the number of threads.",
        ),
        None => p.absent(r, Part::Scaling),
    }
    p.section_close();

    // Loaded latency.
    p.section_open(
        "loaded",
        "Latency under load",
        "One thread chases pointers while the others generate bandwidth with a decreasing delay between requests: latency rises as bandwidth approaches its limit.",
    );
    match view::loaded_chart(r) {
        Some(c) => {
            p.figure(
                svg::line_chart(&c),
                "ns per load (median) against the total bandwidth of all threads (load threads plus the chaser's own 64 B per load).",
            );
            let t = view::loaded_table(r);
            p.table(&t, &[1, 2, 3, 4, 5, 6], &|_| false);
            if let Some(s) = view::loaded_summary(r) {
                let _ = write!(p.html, "<p>{}</p>", esc(&s));
            }
        }
        None => p.absent(r, Part::LoadedLatency),
    }
    p.section_close();

    // Core to core.
    p.section_open(
        "c2c",
        "Core to core",
        "One cache line bounced between two CPUs; one-way time is half the round trip.",
    );
    let groups = view::c2c_groups_table(r);
    match view::c2c_heatmap(r) {
        Some(h) => {
            let line = r
                .c2c
                .as_ref()
                .map(|c| format!("The bounced line's page is on node {}.", c.line_node))
                .unwrap_or_default();
            p.figure(svg::heatmap(&h), &line);
            if !groups.rows.is_empty() {
                p.table(&groups, &[0, 1, 2, 3, 4], &|_| false);
            }
            if let Some(s) = view::c2c_summary(r) {
                let _ = write!(p.html, "<p>{}</p>", esc(&s));
            }
        }
        None => p.absent(r, Part::C2c),
    }
    p.section_close();

    // Scenarios.
    p.section_open(
        "scenarios",
        "Memory policies for each kind of application",
        "The closing table of the 2005 Opteron NUMA analysis, measured on this machine: the same bandwidth kernel run with each placement.",
    );
    match &r.scenarios {
        None => p.absent(r, Part::Scenarios),
        Some(s) => {
            let bars: Vec<(String, f64)> = s
                .scenarios
                .iter()
                .filter_map(|row| {
                    Some((format!("({}) {}", row.letter, row.label), row.bandwidth()?))
                })
                .collect();
            let best = bars
                .iter()
                .enumerate()
                .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
                .map(|(i, _)| i);
            if !bars.is_empty() {
                p.figure(
                    svg::bar_chart(&svg::BarChart {
                        title: format!("Bandwidth by placement ({} kernel)", s.kernel),
                        unit: "MB/s".into(),
                        bars,
                        highlight: best,
                        width: 820,
                    }),
                    "",
                );
            }
            let winners: Vec<crate::results::ScenarioId> =
                s.recommendations.iter().map(|r| r.best).collect();
            let t = view::scenarios_table(r);
            p.table(&t, &[0, 1, 2, 4, 5, 6, 7, 9, 10], &|i| {
                winners.contains(&s.scenarios[i].id)
            });
            let _ = write!(
                p.html,
                "<p class=\"lead\">{} per thread, {} repetitions of {} ms, kernel {}; highlighted rows win for at least one kind of application.</p>",
                esc(&bytes_short(s.buffer_bytes_per_thread as f64)),
                s.repetitions,
                s.duration_ms,
                esc(&s.kernel)
            );
            let rt = view::recommendations_table(r);
            if !rt.rows.is_empty() {
                p.push("<h3>Best placement per kind of application</h3>");
                p.table(&rt, &[0, 1, 2, 3, 4], &|_| false);
                p.push("<ul class=\"recs\">");
                for rec in &s.recommendations {
                    let _ = write!(p.html, "<li>{}</li>", esc(&rec.text));
                }
                p.push("</ul>");
            }
        }
    }
    p.section_close();

    // Advisor.
    p.section_open("advisor", "Weighted interleave", "Per-node weights from the measured bandwidths, checked by measurement against binding and plain interleave.");
    match &r.advisor {
        None => p.absent(r, Part::Advisor),
        Some(a) => {
            let _ = write!(p.html, "<p>{}</p>", esc(&a.summary));
            p.push("<div class=\"scroll\"><table><thead><tr><th>policy</th><th>MB/s (MB = 10^6 B)</th><th>numactl</th></tr></thead><tbody>");
            for c in &a.checks {
                let v = match (c.mb_per_s, &c.unavailable) {
                    (Some(v), _) => view::fmt_num(v),
                    (None, Some(u)) => format!("not measured: {u}"),
                    (None, None) => "not measured".into(),
                };
                let class = if c.mb_per_s.is_some() {
                    " class=\"n\""
                } else {
                    ""
                };
                let _ = write!(
                    p.html,
                    "<tr><td>{}</td><td{class}>{}</td><td><code>{}</code></td></tr>",
                    esc(&c.policy),
                    esc(&v),
                    esc(&c.numactl)
                );
            }
            p.push("</tbody></table></div>");
            if !a.weights.is_empty() {
                let w: Vec<String> = a
                    .weights
                    .iter()
                    .map(|(n, w)| format!("node {n}: {w}"))
                    .collect();
                let _ = write!(
                    p.html,
                    "<p>Proposed weights for threads on node {}: {}.</p>",
                    a.initiator_node,
                    esc(&w.join(", "))
                );
            }
            if !a.apply.is_empty() {
                p.push("<pre>");
                p.push(&esc(&a.apply.join("\n")));
                p.push("</pre>");
            }
        }
    }
    p.section_close();

    // Environment.
    p.section_open(
        "environment",
        "Environment",
        "What changes memory results, recorded with them.",
    );
    p.push("<dl class=\"kv\">");
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    let mut kv: Vec<(&str, String)> = vec![
        ("host", r.host.clone()),
        ("CPU", opt(&env.cpu_model)),
        ("architecture", env.arch.clone()),
        ("kernel", opt(&env.kernel_release)),
        (
            "virtual machine",
            if env.hypervisor {
                format!(
                    "yes{}",
                    env.hypervisor_type
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default()
                )
            } else {
                "no".into()
            },
        ),
        (
            "transparent huge pages",
            format!(
                "{} (defrag {})",
                opt(&env.thp_enabled),
                opt(&env.thp_defrag)
            ),
        ),
        (
            "automatic NUMA balancing",
            env.numa_balancing.map_or("unknown".into(), |v| {
                if v == 0 {
                    "off (0)".into()
                } else {
                    format!("on ({v})")
                }
            }),
        ),
        ("frequency governor", opt(&env.cpufreq_governor)),
        ("SMT", env.smt_active.map_or("unknown".into(), yes_no)),
        ("base page size", bytes_short(env.page_size_bytes as f64)),
        (
            "weighted interleave",
            if env.weighted_interleave_available {
                "available".into()
            } else {
                "not available (Linux < 6.9 or disabled)".into()
            },
        ),
        (
            "allowed CPUs",
            format!("{} of {}", t.allowed_cpus.len(), t.cpus.len()),
        ),
        ("allowed memory nodes", format!("{:?}", t.allowed_nodes)),
    ];
    if let Some(c) = &r.clock {
        kv.push((
            "clock",
            format!(
                "resolution {} ns, read cost {} ns",
                view::fmt_num(c.resolution_ns),
                view::fmt_num(c.read_cost_ns)
            ),
        ));
        if let Some(hz) = c.core_hz_estimate {
            kv.push((
                "core clock",
                format!("{:.2} GHz ({})", hz / 1e9, c.core_hz_source),
            ));
        }
    }
    for (k, v) in kv {
        let _ = write!(p.html, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(&v));
    }
    p.push("</dl>");
    p.section_close();

    // Plan.
    p.section_open("plan", "What this run measured", "");
    let _ = write!(
        p.html,
        "<p class=\"lead\">Budget {}{}; estimated {:.0} s, took {:.1} s.</p>",
        esc(r.plan.budget.name()),
        r.plan
            .target_s
            .map(|t| format!(" (about {t:.0} s on a 2-CPU machine)"))
            .unwrap_or_default(),
        r.plan.estimate_s,
        r.duration_s
    );
    p.push("<div class=\"scroll\"><table><thead><tr><th>part</th><th>status</th><th>estimate (s)</th><th>took (s)</th><th>settings</th><th>left out by the budget</th></tr></thead><tbody>");
    for part in &r.plan.parts {
        let status = if let Some(f) = r.failed.iter().find(|f| f.part == part.part) {
            format!("failed: {}", f.error)
        } else if r.completed.contains(&part.part) {
            "done".into()
        } else {
            "not finished".into()
        };
        let _ = write!(
            p.html,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(part.part.name()),
            esc(&status),
            part.estimate_s,
            r.timings
                .iter()
                .find(|t| t.part == part.part)
                .map_or("-".into(), |t| format!("{:.1}", t.seconds)),
            esc(&part.detail),
            esc(&part.reduced.join("; "))
        );
    }
    for s in &r.plan.skipped {
        let _ = write!(
            p.html,
            "<tr><td>{}</td><td>skipped</td><td colspan=\"4\">{}</td></tr>",
            esc(s.part.name()),
            esc(&s.reason)
        );
    }
    p.push("</tbody></table></div>");
    p.section_close();

    let _ = write!(
        p.html,
        "<footer>numascope {} \u{00b7} results schema version {} (this build reads {}) \u{00b7} MB = 10^6 bytes, KiB/MiB = 2^10/2^20 bytes \u{00b7} firmware figures (SLIT, HMAT) are declared, not measured.</footer>\n</main></body></html>\n",
        esc(&r.tool_version),
        r.schema_version,
        RESULTS_SCHEMA_VERSION
    );
    p.html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;

    #[test]
    fn escapes_everything_it_is_given() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        let mut r = opteron_example();
        r.host = "<script>alert(1)</script>".into();
        r.findings[0].text = "a < b & c".into();
        let h = render(&r);
        assert!(!h.contains("<script>"));
        assert!(h.contains("&lt;script&gt;") && h.contains("a &lt; b &amp; c"));
    }

    #[test]
    fn self_contained_and_complete() {
        let h = render(&opteron_example());
        for bad in ["<script", "http://", "https://", "<link", "@import", "src="] {
            let ok = bad == "http://"
                && h.matches(bad).count() == h.matches("http://www.w3.org/2000/svg").count();
            assert!(ok || !h.contains(bad), "page contains {bad}");
        }
        for id in [
            "findings",
            "latency",
            "latency-matrix",
            "bandwidth",
            "bandwidth-matrix",
            "scaling",
            "loaded",
            "c2c",
            "scenarios",
            "advisor",
            "environment",
            "plan",
        ] {
            assert!(
                h.contains(&format!("<section id=\"{id}\">")),
                "missing section {id}"
            );
        }
        // Charts: sweep, 2 latency heatmaps, 1 bandwidth heatmap, scaling, loaded, c2c, bars.
        assert_eq!(h.matches("<svg ").count(), 8);
        assert!(!h.contains("Not measured in this run"));
        assert!(h.contains("MB = 10^6 bytes"));
        assert!(!h.contains("Partial run"));
    }

    #[test]
    fn absent_sections_say_why() {
        let mut r = opteron_example();
        r.partial = true;
        r.c2c = None;
        r.completed.retain(|p| *p != Part::C2c);
        r.scaling = None;
        r.plan.parts.retain(|p| p.part != Part::Scaling);
        r.plan.skipped.push(crate::results::SkippedPart {
            part: Part::Scaling,
            reason: "one CPU per node".into(),
        });
        let h = render(&r);
        assert!(h.contains("Partial run"));
        assert!(h.contains("Not measured in this run (one CPU per node)."));
        assert!(h.contains("Not measured in this run (the run stopped before this part finished)."));
    }

    #[test]
    fn opteron_page_snapshot() {
        insta::assert_snapshot!(render(&opteron_example()));
    }
}
