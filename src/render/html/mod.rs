//! The HTML report of a run: one self-contained page (inline CSS, inline SVG charts, no
//! scripts, no network, no external files) that a person can open, print or attach to a
//! ticket. It lays out what [`super::run_view`] extracted: header and headline cards,
//! findings, latency vs working set, the node x node heatmaps beside the firmware's view,
//! bandwidth kernels, scaling and loaded-latency curves, core to core, the policy scenarios
//! with the winner per kind of application, weighted-interleave advice, environment and plan.
//! A section whose part did not run says so and why. All text is escaped.

mod about;
mod cards;
pub mod fleet;
mod latency_dist;
mod loaded;
mod page;
mod parts;
mod policy;
mod standalone;
mod sweep;
mod tables;

pub use loaded::render_loaded;
pub use standalone::{render_bandwidth, render_rightmark, render_stream_matrix};

use std::fmt::Write as _;

use crate::render::run_view as view;
use crate::results::{plan::Part, RunResults, RESULTS_SCHEMA_VERSION};
use page::Page;

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

/// Escapes a sentence for element content, setting a word quoted in backticks (a sentence
/// written for the terminal: "runs a `pageout` scheme") as code; a backtick without its pair
/// is dropped, so no backtick reaches the page. A numactl line in the text is set as a
/// command, which never breaks (at its hyphens or anywhere else).
pub fn prose(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    let mut o = String::with_capacity(s.len() + 16);
    for (i, part) in parts.iter().enumerate() {
        let quoted = i % 2 == 1 && i + 1 < parts.len();
        if quoted {
            let _ = write!(o, "<code>{}</code>", esc(part));
        } else {
            commands(&mut o, part);
        }
    }
    o
}

/// Escapes `s` into `o`, each `numactl ...` in it (up to the end of its clause: `;`, `,`, `)`
/// or a full stop) as `<code class="cmd">`.
fn commands(o: &mut String, mut s: &str) {
    while let Some(at) = s.find("numactl ") {
        o.push_str(&esc(&s[..at]));
        let rest = &s[at..];
        let end = [";", ",", ")", ". "]
            .iter()
            .filter_map(|p| rest.find(p))
            .min()
            .unwrap_or(rest.len());
        let cmd = rest[..end].trim_end_matches('.');
        let _ = write!(o, "<code class=\"cmd\">{}</code>", esc(cmd));
        s = &rest[cmd.len()..];
    }
    o.push_str(&esc(s));
}

/// One section of the page: its anchor, its name in the table of contents, its heading, its
/// lead paragraph and the function that writes its body. [`SECTIONS`] drives both the table
/// of contents and the body, so the two cannot drift apart; the standalone pages
/// ([`standalone`]) are lists of sections too.
#[derive(Clone, Copy)]
struct Section {
    id: &'static str,
    toc: &'static str,
    title: &'static str,
    lead: &'static str,
    /// Writes the body; `false` when the run holds nothing for the section, which is then
    /// left out of the navigation and the page, and named in the closing list of what was
    /// not measured, with the reason.
    body: fn(&mut Page, &RunResults) -> bool,
    /// The part whose absence the section would show; `None` for sections always present.
    part: Option<Part>,
}

/// The sections in page order.
const SECTIONS: &[Section] = &[
    Section {
        id: "findings",
        toc: "Findings",
        title: "Findings",
        lead: "",
        body: parts::findings,
        part: None,
    },
    Section {
        id: "latency",
        toc: "Latency",
        title: "Latency vs working set",
        lead: "Dependent loads over a random cycle, one per cache line: random walks include TLB misses, page walks mostly hit the TLB.",
        body: sweep::latency_sweep,
        part: Some(Part::Latency),
    },
    Section {
        id: "latency-matrix",
        toc: "Latency matrix",
        title: "Latency, CPU node \u{00d7} memory node",
        lead: "Each row is the node whose CPU chases pointers, each column the node holding the memory. Beside it, what the firmware declares (HMAT when present, else the SLIT distance).",
        body: parts::latency_matrix,
        part: Some(Part::LatencyMatrix),
    },
    Section {
        id: "bandwidth",
        toc: "Bandwidth",
        title: "Bandwidth kernels",
        lead: "Application bytes moved per second by each kernel; MB = 10^6 bytes. Threads start on a barrier and stop on one shared flag.",
        body: parts::bandwidth_kernels,
        part: Some(Part::Bandwidth),
    },
    Section {
        id: "bandwidth-matrix",
        toc: "Bandwidth matrix",
        title: "Bandwidth, CPU node \u{00d7} memory node",
        lead: "Threads of the row's node reading memory of the column's node, beside the firmware's HMAT bandwidth when declared.",
        body: parts::bandwidth_matrix,
        part: Some(Part::BandwidthMatrix),
    },
    Section {
        id: "scaling",
        toc: "Scaling",
        title: "Bandwidth scaling with threads",
        lead: "Total bandwidth as threads are added; where the curve flattens, memory (not the cores) is the limit.",
        body: parts::scaling,
        part: Some(Part::Scaling),
    },
    Section {
        id: "loaded",
        toc: "Loaded latency",
        title: "Latency under load",
        lead: "One thread chases pointers while the others generate bandwidth with a decreasing delay between requests: latency rises as bandwidth approaches its limit.",
        body: parts::loaded,
        part: Some(Part::LoadedLatency),
    },
    Section {
        id: "c2c",
        toc: "Core to core",
        title: "Core to core",
        lead: "One cache line bounced between two CPUs; one-way time is half the round trip.",
        body: parts::core_to_core,
        part: Some(Part::C2c),
    },
    Section {
        id: "scenarios",
        toc: "Policies",
        title: "Memory policies for each kind of application",
        lead: "The closing table of the 2005 Opteron NUMA analysis, measured on this machine: the same bandwidth kernel run with each placement.",
        body: policy::scenarios,
        part: Some(Part::Scenarios),
    },
    Section {
        id: "advisor",
        toc: "Weighted interleave",
        title: "Weighted interleave",
        lead: "Per-node weights from the measured bandwidths, checked by measurement against binding and plain interleave.",
        body: policy::advisor,
        part: Some(Part::Advisor),
    },
    Section {
        id: "rightmark",
        toc: "RightMark table",
        title: "RightMark table, CPU node \u{00d7} memory node",
        lead: "The 2005 Opteron article's table measured here: one thread on the row's node, a 16 MiB block on the column's node; average and maximum (software prefetch, non-temporal stores) read and write bandwidth, pseudo-random and random latency.",
        body: tables::rightmark,
        part: Some(Part::Rightmark),
    },
    Section {
        id: "stream-matrix",
        toc: "Per-stream matrix",
        title: "Copy bandwidth, source node \u{00d7} destination node",
        lead: "LIKWID's per-stream placement: the home node's threads copy from an array on the row's node into an array on the column's node.",
        body: tables::stream_matrix,
        part: Some(Part::StreamMatrix),
    },
    Section {
        id: "environment",
        toc: "Environment",
        title: "Environment",
        lead: "What changes memory results, recorded with them.",
        body: about::environment,
        part: None,
    },
    Section {
        id: "plan",
        toc: "Plan",
        title: "What this run measured",
        lead: "",
        body: about::plan,
        part: None,
    },
];

/// The run report's section `id`.
fn section(id: &str) -> &'static Section {
    SECTIONS
        .iter()
        .find(|s| s.id == id)
        .expect("a section of SECTIONS")
}

/// Writes each section of `sections` that has something to show (in a frame of its own:
/// heading, lead, body); returns the ones shown and the ones left out.
fn write_sections<'s>(
    p: &mut Page,
    r: &RunResults,
    sections: impl IntoIterator<Item = &'s Section>,
) -> (Vec<&'s Section>, Vec<&'s Section>) {
    let (mut shown, mut left_out) = (vec![], vec![]);
    for s in sections {
        let mut body = Page::default();
        body.section_open(s.id, s.title, s.lead);
        if (s.body)(&mut body, r) {
            body.section_close();
            p.push(&body.html);
            shown.push(s);
        } else {
            left_out.push(s);
        }
    }
    (shown, left_out)
}

/// Renders the page.
pub fn render(r: &RunResults) -> String {
    let t = &r.topology;
    let mut facts = machine_facts(&t.environment);
    facts.push(format!(
        "{} NUMA node(s): {} with CPUs, {} with memory; {} CPUs usable",
        t.nodes.len(),
        t.initiator_nodes().len(),
        t.memory_nodes().len(),
        t.usable_cpus().len()
    ));
    facts.push(format!("started {}", r.started_at));
    let budget = r.plan.budget.name();
    facts.push(format!("{:.1} s, {budget} budget", r.duration_s));
    let title = format!("numascope report: {}", r.host);
    let mut p = Page::open(&title, "", &format!("Memory on {}", r.host), &facts);
    // The sections first, so that the navigation names only the ones shown.
    let mut body = Page::default();
    let (shown, left_out) = write_sections(&mut body, r, SECTIONS);
    p.push("<nav class=\"toc\">");
    for s in &shown {
        let _ = write!(p.html, "<a href=\"#{}\">{}</a>", s.id, s.toc);
    }
    p.push("</nav></header>\n");
    if r.partial {
        p.push("<div class=\"banner partial\">Partial run: the run was interrupted or a part failed. Sections without data are named at the end, with the reason.</div>\n");
    }
    verdict_banner(&mut p, r);
    cards::write(&mut p, r);
    p.push(&body.html);
    not_measured(&mut p, r, &left_out);
    p.close(&format!(
        "numascope {} \u{00b7} results schema version {} (this build reads {}) \u{00b7} MB = 10^6 \
         bytes, KiB/MiB = 2^10/2^20 bytes \u{00b7} firmware figures (SLIT, HMAT) are declared, \
         not measured.",
        r.tool_version, r.schema_version, RESULTS_SCHEMA_VERSION
    ))
}

/// The sections left out, each with the reason its part has nothing to show, in one line at
/// the end of the page.
fn not_measured(p: &mut Page, r: &RunResults, left_out: &[&Section]) {
    let items: Vec<String> = left_out
        .iter()
        .filter_map(|s| {
            let why = match s.part? {
                Part::Advisor if r.advisor.is_some() => {
                    "one memory node: weighted interleave has nothing to spread pages over".into()
                }
                part => view::absent_reason(r, part),
            };
            Some(format!("{} ({why})", s.toc))
        })
        .collect();
    if !items.is_empty() {
        let _ = writeln!(
            p.html,
            "<p class=\"absent\" id=\"not-measured\">Not measured in this run: {}.</p>",
            prose(&items.join("; "))
        );
    }
}

/// Warnings shown in the verdict banner before the rest are folded, as many as the terminal
/// summary shows.
const WARNINGS_SHOWN: usize = 4;

/// The verdict and every part's warnings, before the first section: the first few as the
/// terminal summary shows them, the rest folded under them.
fn verdict_banner(p: &mut Page, r: &RunResults) {
    let (class, line) = match &r.quality {
        Some(q) => (q.verdict.label(), q.sentence.clone()),
        None => (
            "unknown",
            "not recorded (results file written before verdicts existed)".to_string(),
        ),
    };
    let open = format!(
        "<div class=\"banner verdict {class}\" id=\"verdict\"><strong>Verdict:</strong> {}",
        prose(&line)
    );
    let warnings = crate::render::words::warnings::gathered(r);
    p.banner(&open, &warnings, WARNINGS_SHOWN);
}

/// The machine in the header of every page: CPU model, kernel, and "virtual machine (type)"
/// when the hypervisor flag is set.
pub(super) fn machine_facts(env: &crate::results::environment::Environment) -> Vec<String> {
    let cpu = env.cpu_model.as_deref().unwrap_or("unknown CPU");
    let kernel = env.kernel_release.as_deref().unwrap_or("unknown");
    let mut facts = vec![cpu.to_string(), format!("Linux {kernel}")];
    facts.extend(
        env.hypervisor
            .then(|| virtual_machine(env, "virtual machine", "")),
    );
    facts
}

/// `yes` and the hypervisor's type (`yes (kvm)`) when the hypervisor flag is set, else `no`.
fn virtual_machine(env: &crate::results::environment::Environment, yes: &str, no: &str) -> String {
    match (env.hypervisor, &env.hypervisor_type) {
        (true, Some(t)) => format!("{yes} ({t})"),
        (true, None) => yes.to_string(),
        (false, _) => no.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;

    /// The section `id` of a page, from its opening tag to its end; panics without one.
    pub(in crate::render::html) fn section_of<'a>(html: &'a str, id: &str) -> &'a str {
        let open = format!("<section id=\"{id}\">");
        let s = &html[html
            .find(&open)
            .unwrap_or_else(|| panic!("no section {id}"))..];
        &s[..s.find("</section>").unwrap()]
    }

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
        // Every section but the two tables the fixture predates.
        let predates = |s: &&Section| matches!(s.part, Some(Part::Rightmark | Part::StreamMatrix));
        for s in SECTIONS.iter().filter(|s| !predates(s)) {
            let _ = section_of(&h, s.id);
        }
        // Charts: sweep, 2 latency heatmaps, 1 bandwidth heatmap, scaling, loaded, c2c, bars;
        // the three line charts and the bar chart come twice, laid out wide and for a phone
        // (four phone layouts and four heat maps: phone_charts_keep_text_readable).
        assert_eq!(h.matches("<svg ").count(), 12);
        // Every part of the fixture's plan is drawn; only the two it predates are listed.
        assert!(!h.contains("Not measured in this run ("));
        assert!(h.contains("Not measured in this run: RightMark table ("));
        assert!(h.contains("MB = 10^6 bytes"));
        assert!(!h.contains("Partial run"));
    }

    /// At phone width (420 px, about 375 px of content) every chart's text stays at
    /// 10 px or more: each phone variant, scaled from its drawn width to 375 px, has no font
    /// under 10 px, and heatmaps (shown at their drawn size on a phone) none under 10 px.
    #[test]
    fn phone_charts_keep_text_readable() {
        let h = render(&opteron_example());
        let smallest_font = |svg: &str| {
            svg.match_indices("font-size=\"")
                .map(|(i, _)| {
                    let rest = &svg[i + 11..];
                    rest[..rest.find('"').unwrap()].parse::<f64>().unwrap()
                })
                .fold(f64::MAX, f64::min)
        };
        let drawn_width = |svg: &str| {
            let rest = &svg[svg.find("width=\"").unwrap() + 7..];
            rest[..rest.find('"').unwrap()].parse::<f64>().unwrap()
        };
        let mut narrow = 0;
        for part in h.split("<div class=\"chart-narrow\">").skip(1) {
            let svg = &part[..part.find("</svg>").unwrap()];
            let scale = (375.0 / drawn_width(svg)).min(1.0);
            let px = smallest_font(svg) * scale;
            assert!(
                px >= 10.0,
                "phone chart text at {px:.1} px: {}",
                &svg[..200]
            );
            narrow += 1;
        }
        assert_eq!(narrow, 4);
        assert!(h.contains("figure.heatmap svg{max-width:none}"));
        let mut maps = 0;
        for part in h.split("<figure class=\"heatmap\">").skip(1) {
            let svg = &part[..part.find("</svg>").unwrap()];
            assert!(smallest_font(svg) >= 10.0);
            maps += 1;
        }
        assert_eq!(maps, 4);
    }

    /// Scenarios placed identically are one bar with merged letters, as in the table.
    #[test]
    fn same_placement_scenarios_are_one_bar() {
        let mut r = opteron_example();
        let s = r.scenarios.as_mut().unwrap();
        let first = s.scenarios[3].id;
        s.scenarios[4].same_as = Some(first);
        let (d, e) = (s.scenarios[3].letter.clone(), s.scenarios[4].letter.clone());
        let (dl, el) = (s.scenarios[3].label.clone(), s.scenarios[4].label.clone());
        let h = render(&r);
        let bar = format!("({d}) = ({e}) {dl}");
        assert!(h.contains(&esc(&bar)), "no merged bar {bar}");
        assert!(!h.contains(&format!(">\n{}\n</text>", esc(&format!("({e}) {el}")))));
    }

    #[test]
    fn absent_sections_say_why() {
        let mut r = opteron_example();
        r.partial = true;
        r.c2c = None;
        r.completed.retain(|p| *p != Part::C2c);
        r.scaling = None;
        r.plan.parts.retain(|p| p.part != Part::Scaling);
        r.plan.skipped.push(crate::results::plan::SkippedPart {
            part: Part::Scaling,
            reason: "one CPU per node".into(),
        });
        let h = render(&r);
        assert!(h.contains("Partial run"));
        // Left out of the navigation and the body, named once at the end with the reason.
        for id in ["scaling", "c2c", "rightmark", "stream-matrix"] {
            assert!(
                !h.contains(&format!("href=\"#{id}\"")),
                "{id} in the navigation"
            );
            assert!(
                !h.contains(&format!("<section id=\"{id}\">")),
                "{id} in the body"
            );
        }
        assert!(h.contains("Not measured in this run: Scaling (one CPU per node); Core to core (the run stopped before this part finished); RightMark table (it was not part of this run&#39;s plan)"));
    }

    /// A machine with one node has a one-cell matrix: a plain figure, no heat map and no
    /// colour scale; the cell is the local latency card's figure, so it is named, not shown
    /// again, and the firmware's figure stays. A cell that is not the card's is shown.
    #[test]
    fn one_cell_matrix_is_a_figure_shown_once() {
        let mut r = opteron_example();
        let m = r.latency.as_mut().unwrap().matrix.as_mut().unwrap();
        m.cells
            .retain(|c| c.initiator_node == 0 && c.memory_node == 0);
        let h = render(&r);
        let sec = section_of(&h, "latency-matrix");
        assert!(!sec.contains("<svg"), "{sec}");
        assert!(!sec.contains("<dd>45.6</dd>"), "{sec}");
        assert!(sec.contains(
            "the one measured cell (CPU node 0 \u{2192} memory node 0) is the local latency card above"
        ));
        assert!(sec.contains(
            "SLIT distance (firmware), CPU node 0 \u{2192} memory node 0</dt><dd>10</dd>"
        ));
        // Nor its interval in the caption: the card has it.
        assert!(!sec.contains("0-&gt;0 45.6"), "{sec}");
        let cards = &h[h.find("<div class=\"cards\">").unwrap()..];
        assert!(cards.contains("<div class=\"v\">45.6<small>"));
        // A cell measured apart from the card's figure is a figure of its own.
        let mut p = Page::default();
        let pair = view::latency_matrix::latency_heatmaps(&r);
        assert!(p.heatmaps(pair, ("", None), "", Some(("local latency", 44.0))));
        assert!(p.html.contains(
            "Measured latency (ns), CPU node 0 \u{2192} memory node 0</dt><dd>45.6</dd>"
        ));
    }

    /// A table's numactl column is the line under each row, across the table, so that the
    /// "what to run" tables fit a 1400 px page: no numactl header, one command row per row
    /// spanning every column, the winners' command rows highlighted with them.
    #[test]
    fn commands_are_lines_under_their_rows() {
        let h = render(&opteron_example());
        let sec = section_of(&h, "scenarios");
        assert!(!sec.contains("<th>numactl</th>"), "{sec}");
        let s = &opteron_example().scenarios.unwrap();
        let cmd = |x: &str| format!("<div><code class=\"cmd\">{}</code></div>", esc(x));
        for row in s.scenarios.iter().filter(|x| x.same_as.is_none()) {
            let at = sec.find(&cmd(&row.numactl)).expect("a command row");
            let tr = &sec[sec[..at].rfind("<tr").unwrap()..at];
            assert!(tr.contains("cmd\"><td colspan=\"8\">"), "{tr}");
        }
        assert_eq!(
            sec.matches("<tr class=\"win cmd\">").count(),
            sec.matches("<tr class=\"win above\">").count()
        );
    }

    /// A sentence written for the terminal with a backticked word reaches the page as code,
    /// and no backtick reaches the page at all.
    #[test]
    fn no_backticks_on_the_page() {
        let mut r = opteron_example();
        r.warnings
            .push("DAMON runs a `pageout` scheme; a lone ` goes".into());
        let h = render(&r);
        assert!(h.contains("runs a <code>pageout</code> scheme"));
        assert!(!h.contains('`'));
        assert_eq!(prose("a `b` c `d"), "a <code>b</code> c d");
        assert_eq!(
            prose("gets +34 %: numactl --interleave=all APP. Then, numactl -N 0 x; y"),
            "gets +34 %: <code class=\"cmd\">numactl --interleave=all APP</code>. Then, \
             <code class=\"cmd\">numactl -N 0 x</code>; y"
        );
    }

    /// The sweep's caption names the cache lines the chart draws and never says none were
    /// found in sysfs while it draws them; knees missing from the analysis say what the
    /// detector needs and what the sweep gave it.
    #[test]
    fn sweep_caption_matches_the_chart() {
        let mut r = opteron_example();
        let cap = |h: &str| {
            let s = section_of(h, "latency");
            s[s.find("<figcaption>").unwrap()..s.find("</figcaption>").unwrap()].to_string()
        };
        let c = cap(&render(&r));
        assert!(
            c.contains("Dashed lines: cache sizes from sysfs (L1 64K, L2 1M)."),
            "{c}"
        );
        assert!(
            c.contains("This results file holds no knee analysis"),
            "{c}"
        );
        assert!(!c.contains("no cache sizes"), "{c}");
        crate::render::fixture::set_knees(
            &mut r,
            &[("L1", 65536, Some(65536)), ("L2", 1 << 20, None)],
        );
        let c = cap(&render(&r));
        assert!(
            c.contains(
                "Knees (where latency leaves a cache level&#39;s plateau), marked: L1 at 64K."
            ),
            "{c}"
        );
        assert!(
            c.contains("No knee for L2: a knee is the end of a plateau"),
            "{c}"
        );
        assert!(
            c.contains("point per octave") || c.contains("points per octave"),
            "{c}"
        );
    }

    /// Each matrix figure's interval width against the run's target, from the figure list.
    #[test]
    fn precision_lines_come_from_the_figures() {
        let mut r = opteron_example();
        let m = r.latency.as_mut().unwrap().matrix.as_mut().unwrap();
        for c in &mut m.cells {
            let v = c.result.ns_per_load.median;
            c.result.ns_per_load.ci = Some(crate::stats::Interval::new(v * 0.98, v * 1.02));
        }
        let h = render(&r);
        assert!(
            h.contains("latency interval half-widths against the default budget&#39;s target of \u{b1}3 %: 0 \u{2192} 0 \u{b1}2.0 %; 0 \u{2192} 1 \u{b1}2.0 %; 1 \u{2192} 0"),
            "{}",
            &h[h.find("half-widths").unwrap_or(0)..][..200]
        );
    }

    /// The verdict banner shows the first warnings as the terminal does and folds the rest.
    #[test]
    fn banner_folds_warnings_after_the_first_few() {
        let mut r = opteron_example();
        r.warnings = (0..6).map(|i| format!("warning number {i}")).collect();
        let h = render(&r);
        let banner = &h[h.find("id=\"verdict\"").unwrap()..];
        let banner = &banner[..banner.find("</div>").unwrap()];
        let folded = &banner[banner.find("<details>").expect("folded")..];
        assert!(folded.starts_with("<details><summary>2 more warning(s)</summary>"));
        assert!(folded.contains("warning number 4") && !folded.contains("warning number 3"));
    }

    /// A run warning is on the page once, in the verdict banner; the findings section lists
    /// the findings only (the recorded quick run showed scenario (d)'s warning in both).
    #[test]
    fn a_run_warning_is_on_the_page_once() {
        let mut r = opteron_example();
        r.warnings = vec!["scenario (d) ran short of its CPU once".into()];
        let h = render(&r);
        assert_eq!(
            h.matches("scenario (d) ran short of its CPU once").count(),
            1,
            "{h}"
        );
        let banner = &h[h.find("id=\"verdict\"").unwrap()..];
        assert!(banner[..banner.find("</div>").unwrap()].contains("ran short of its CPU once"));
    }

    /// The cards show the figures the terminal summary leads with, formatted the same.
    #[test]
    fn cards_are_the_summary_figures() {
        let r = opteron_example();
        let h = render(&r);
        let txt = crate::render::fixture::written(|o| {
            crate::render::run_text::summary::render(o, &r, None)
        });
        let f = crate::results::figures::of_run(&r);
        let cards = &h[h.find("<div class=\"cards\">").unwrap()..];
        let cards = &cards[..cards.find("</div>\n").unwrap()];
        for i in [f.local_latency, f.local_bandwidth].into_iter().flatten() {
            let v = crate::render::format::estimate::num(f.get(i).estimate.median);
            assert!(
                cards.contains(&format!("<div class=\"v\">{v}<small>")),
                "{v} not a card"
            );
            assert!(txt.contains(&v), "{v} not in the summary");
        }
    }
}
