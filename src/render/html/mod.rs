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
mod tables;

pub use loaded::render_loaded;
pub use standalone::{render_bandwidth, render_rightmark, render_stream_matrix};

use std::fmt::Write as _;

use crate::results::{RunResults, RESULTS_SCHEMA_VERSION};
use page::{Page, CSS};

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

/// One section of the page: its anchor, its name in the table of contents, its heading, its
/// lead paragraph and the function that writes its body. [`SECTIONS`] drives both the table
/// of contents and the body, so the two cannot drift apart.
struct Section {
    id: &'static str,
    toc: &'static str,
    title: &'static str,
    lead: &'static str,
    body: fn(&mut Page, &RunResults),
}

/// The sections in page order.
const SECTIONS: &[Section] = &[
    Section {
        id: "findings",
        toc: "Findings",
        title: "Findings",
        lead: "",
        body: parts::findings,
    },
    Section {
        id: "latency",
        toc: "Latency",
        title: "Latency vs working set",
        lead: "Dependent loads over a random cycle, one per cache line: random walks include TLB misses, page walks mostly hit the TLB. Dashed lines: cache sizes from sysfs.",
        body: parts::latency_sweep,
    },
    Section {
        id: "latency-matrix",
        toc: "Latency matrix",
        title: "Latency, CPU node \u{00d7} memory node",
        lead: "Each row is the node whose CPU chases pointers, each column the node holding the memory. Beside it, what the firmware declares (HMAT when present, else the SLIT distance).",
        body: parts::latency_matrix,
    },
    Section {
        id: "bandwidth",
        toc: "Bandwidth",
        title: "Bandwidth kernels",
        lead: "Application bytes moved per second by each kernel; MB = 10^6 bytes. Threads start on a barrier and stop on one shared flag.",
        body: parts::bandwidth_kernels,
    },
    Section {
        id: "bandwidth-matrix",
        toc: "Bandwidth matrix",
        title: "Bandwidth, CPU node \u{00d7} memory node",
        lead: "Threads of the row's node reading memory of the column's node, beside the firmware's HMAT bandwidth when declared.",
        body: parts::bandwidth_matrix,
    },
    Section {
        id: "scaling",
        toc: "Scaling",
        title: "Bandwidth scaling with threads",
        lead: "Total bandwidth as threads are added; where the curve flattens, memory (not the cores) is the limit.",
        body: parts::scaling,
    },
    Section {
        id: "loaded",
        toc: "Loaded latency",
        title: "Latency under load",
        lead: "One thread chases pointers while the others generate bandwidth with a decreasing delay between requests: latency rises as bandwidth approaches its limit.",
        body: parts::loaded,
    },
    Section {
        id: "c2c",
        toc: "Core to core",
        title: "Core to core",
        lead: "One cache line bounced between two CPUs; one-way time is half the round trip.",
        body: parts::core_to_core,
    },
    Section {
        id: "scenarios",
        toc: "Policies",
        title: "Memory policies for each kind of application",
        lead: "The closing table of the 2005 Opteron NUMA analysis, measured on this machine: the same bandwidth kernel run with each placement.",
        body: policy::scenarios,
    },
    Section {
        id: "advisor",
        toc: "Weighted interleave",
        title: "Weighted interleave",
        lead: "Per-node weights from the measured bandwidths, checked by measurement against binding and plain interleave.",
        body: policy::advisor,
    },
    Section {
        id: "rightmark",
        toc: "RightMark table",
        title: "RightMark table, CPU node \u{00d7} memory node",
        lead: "The 2005 Opteron article's table measured here: one thread on the row's node, a 16 MiB block on the column's node; average and maximum (software prefetch, non-temporal stores) read and write bandwidth, pseudo-random and random latency.",
        body: tables::rightmark,
    },
    Section {
        id: "stream-matrix",
        toc: "Per-stream matrix",
        title: "Copy bandwidth, source node \u{00d7} destination node",
        lead: "LIKWID's per-stream placement: the home node's threads copy from an array on the row's node into an array on the column's node.",
        body: tables::stream_matrix,
    },
    Section {
        id: "environment",
        toc: "Environment",
        title: "Environment",
        lead: "What changes memory results, recorded with them.",
        body: about::environment,
    },
    Section {
        id: "plan",
        toc: "Plan",
        title: "What this run measured",
        lead: "",
        body: about::plan,
    },
];

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
    let mut facts = machine_facts(env);
    facts.push(format!("started {}", r.started_at));
    facts.push(format!(
        "{:.1} s, {} budget",
        r.duration_s,
        r.plan.budget.name()
    ));
    for f in facts {
        let _ = write!(p.html, "<span>{}</span>", esc(&f));
    }
    p.push("</div><nav class=\"toc\">");
    for s in SECTIONS {
        let _ = write!(p.html, "<a href=\"#{}\">{}</a>", s.id, s.toc);
    }
    p.push("</nav></header>\n");
    if r.partial {
        p.push("<div class=\"banner partial\">Partial run: the run was interrupted or a part failed. Sections without data say why.</div>\n");
    }

    verdict_banner(&mut p, r);
    cards::write(&mut p, r);
    for s in SECTIONS {
        p.section_open(s.id, s.title, s.lead);
        (s.body)(&mut p, r);
        p.section_close();
    }

    let _ = write!(
        p.html,
        "<footer>numascope {} \u{00b7} results schema version {} (this build reads {}) \u{00b7} MB = 10^6 bytes, KiB/MiB = 2^10/2^20 bytes \u{00b7} firmware figures (SLIT, HMAT) are declared, not measured.</footer>\n</main></body></html>\n",
        esc(&r.tool_version),
        r.schema_version,
        RESULTS_SCHEMA_VERSION
    );
    p.html
}

/// The verdict and every part's warnings, before the first section.
fn verdict_banner(p: &mut Page, r: &RunResults) {
    let warnings = crate::results::findings::gathered_warnings(r);
    let (class, line) = match &r.quality {
        Some(q) => (q.verdict.label(), q.sentence.clone()),
        None => (
            "unknown",
            "not recorded (results file written before verdicts existed)".to_string(),
        ),
    };
    let _ = write!(
        p.html,
        "<div class=\"banner verdict {class}\" id=\"verdict\"><strong>Verdict:</strong> {}",
        esc(&line)
    );
    if !warnings.is_empty() {
        p.push("<ul class=\"warnings\">");
        for w in &warnings {
            let _ = write!(p.html, "<li>{}</li>", esc(w));
        }
        p.push("</ul>");
    }
    p.push("</div>\n");
}

/// The machine in the header of every page: CPU model, kernel, and "virtual machine (type)"
/// when the hypervisor flag is set.
pub(super) fn machine_facts(env: &crate::results::environment::Environment) -> Vec<String> {
    let mut facts = vec![
        env.cpu_model
            .clone()
            .unwrap_or_else(|| "unknown CPU".into()),
        format!(
            "Linux {}",
            env.kernel_release.as_deref().unwrap_or("unknown")
        ),
    ];
    if env.hypervisor {
        facts.push(format!(
            "virtual machine{}",
            env.hypervisor_type
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default()
        ));
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixture::opteron_example;
    use crate::results::Part;

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
        // Charts: sweep, 2 latency heatmaps, 1 bandwidth heatmap, scaling, loaded, c2c, bars;
        // the three line charts and the bar chart come twice, laid out wide and for a phone,
        // and the four heatmaps keep their drawn size on a phone (they scroll sideways).
        assert_eq!(h.matches("<svg ").count(), 12);
        assert_eq!(h.matches("<div class=\"chart-narrow\">").count(), 4);
        assert_eq!(h.matches("<figure class=\"heatmap\">").count(), 4);
        assert!(!h.contains("Not measured in this run"));
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
