//! The page being written: the inline style sheet and the building blocks every section
//! uses (section frame, absent note, figure, table, heatmap pair, headline card).

use std::fmt::Write as _;

use super::{esc, prose};
use crate::render::run_view::{Cell, Table};
use crate::render::svg::{self, Heatmap};

pub(super) const CSS: &str = r#"
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
.banner{overflow-wrap:anywhere;border-radius:8px;padding:12px 16px;margin:0 0 18px;font-weight:600}
.banner.partial{background:var(--warnbg);border:1px solid #f0c890;color:var(--warn)}
.banner.verdict{font-weight:400;background:var(--soft);border:1px solid #cfd8e3}
.banner.verdict.quiet{border-left:4px solid #2e8b57}
.banner.verdict.noisy{background:var(--warnbg);border:1px solid #f0c890;border-left:4px solid #d98a1c}
.banner.verdict.unusable{background:#fde8e8;border:1px solid #e6a0a0;border-left:4px solid #c0392b}
.muted{color:var(--muted)}
.banner ul.warnings{margin:8px 0 0;padding-left:20px;font-size:.92em}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(210px,100%),1fr));gap:14px;margin-bottom:18px}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:16px 18px;min-width:0;overflow-wrap:anywhere}
.card .k{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.card .v{font-size:28px;font-weight:650;margin:4px 0 2px;font-variant-numeric:tabular-nums}
.card .v small{font-size:15px;font-weight:500;color:var(--muted);margin-left:4px}
.card .d{font-size:13px;color:var(--muted)}
section{min-width:0;overflow-wrap:break-word;background:#fff;border:1px solid var(--line);border-radius:10px;padding:20px 26px;margin-bottom:18px}
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
tr.above td{border-bottom:0;padding-bottom:2px}
tr.cmd td{padding-top:0}
.scroll tr.cmd td{position:static}
tr.cmd div{width:0;min-width:100%}
.scroll tr.win td:first-child{background:#eef7f2}
tbody tr:hover td{background:#f9fafb}
.scroll{overflow-x:auto;max-width:100%}
.scroll th:first-child,.scroll td:first-child{position:sticky;left:0;background:#fff;z-index:1}
.scroll th:first-child{background:var(--soft)}
code{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:1px 5px;border-radius:4px;white-space:nowrap}
p code,li code,dd code{white-space:normal;overflow-wrap:anywhere}
code.cmd,p code.cmd,li code.cmd,dd code.cmd{white-space:nowrap;overflow-wrap:normal;display:inline-block;max-width:100%;overflow-x:auto;vertical-align:bottom}
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
dl.kv dd{margin:0;min-width:0;overflow-wrap:anywhere}
footer{color:var(--muted);font-size:12.5px;text-align:center;padding:8px 0 0}
.chart-narrow{display:none}
@media (max-width:640px){main{padding:12px 8px}.scroll th,.scroll td{min-width:6.5em}dl.kv{grid-template-columns:1fr;gap:0}dl.kv dd{margin-bottom:6px}section,header.top{padding:16px 14px}.card .v{font-size:23px}.chart-wide{display:none}.chart-narrow{display:block}figure.heatmap svg{max-width:none}}
@media print{body{background:#fff}section,header.top,.card{border-color:#ccc;break-inside:avoid}}
"#;

#[derive(Default)]
pub(super) struct Page {
    pub(super) html: String,
}

impl Page {
    /// A page: the document head (`title`, the stylesheet and `css` after it), the header's
    /// heading and its facts; the caller ends the header (after its navigation, if any).
    pub(super) fn open(title: &str, css: &str, h1: &str, facts: &[String]) -> Page {
        let mut p = Page {
            html: String::with_capacity(256 * 1024),
        };
        let _ = write!(
            p.html,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{}</title><style>{CSS}{css}</style></head>\n<body><main>\n\
<header class=\"top\"><h1>{}</h1><div class=\"sub\">",
            esc(title),
            esc(h1)
        );
        for f in facts {
            let _ = write!(p.html, "<span>{}</span>", esc(f));
        }
        p.push("</div>");
        p
    }

    /// A banner: `open` (its `<div class="banner ...">` and what it says first, as HTML),
    /// then `items` as a list, the ones after the first `shown` folded under a "more" line.
    pub(super) fn banner(&mut self, open: &str, items: &[String], shown: usize) {
        self.push(open);
        let shown = items.len().min(shown);
        for (i, list) in [&items[..shown], &items[shown..]].iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            if i == 1 {
                let _ = write!(
                    self.html,
                    "<details><summary>{} more warning(s)</summary>",
                    list.len()
                );
            }
            self.push("<ul class=\"warnings\">");
            for w in *list {
                let _ = write!(self.html, "<li>{}</li>", prose(w));
            }
            self.push(if i == 1 { "</ul></details>" } else { "</ul>" });
        }
        self.push("</div>\n");
    }

    /// The footer (its text escaped here) and the end of the document.
    pub(super) fn close(mut self, footer: &str) -> String {
        let _ = write!(
            self.html,
            "<footer>{}</footer>\n</main></body></html>\n",
            esc(footer)
        );
        self.html
    }

    pub(super) fn push(&mut self, s: &str) {
        self.html.push_str(s);
    }

    /// A paragraph of prose, `<p class="{class}">` (no class when empty).
    pub(super) fn para(&mut self, class: &str, text: &str) {
        let class = if class.is_empty() {
            String::new()
        } else {
            format!(" class=\"{class}\"")
        };
        let _ = write!(self.html, "<p{class}>{}</p>", prose(text));
    }

    pub(super) fn section_open(&mut self, id: &str, title: &str, lead: &str) {
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

    pub(super) fn section_close(&mut self) {
        self.push("</section>\n");
    }

    /// A figure of one drawing, or of a chart drawn twice (`[wide, narrow]`: laid out for a
    /// wide screen and for a phone, CSS shows one of them), with its caption; a chart that
    /// failed to draw becomes its error in place of the figure. A heat map keeps its drawn
    /// size on a phone (its smallest text is 10 px) and scrolls sideways inside its figure,
    /// since a grid cannot be laid out again narrower the way a line or bar chart can.
    pub(super) fn figure(
        &mut self,
        heatmap: bool,
        drawn: Vec<Result<String, svg::ChartError>>,
        caption: &str,
    ) {
        let svgs = match drawn.into_iter().collect::<Result<Vec<_>, _>>() {
            Ok(s) => s,
            Err(e) => return self.para("absent", &e.to_string()),
        };
        self.push(if heatmap {
            "<figure class=\"heatmap\">"
        } else {
            "<figure>"
        });
        match svgs.as_slice() {
            [wide, narrow] => {
                let _ = write!(
                    self.html,
                    "<div class=\"chart-wide\">{wide}</div><div class=\"chart-narrow\">{narrow}</div>"
                );
            }
            _ => svgs.iter().for_each(|s| self.html.push_str(s)),
        }
        if !caption.is_empty() {
            let _ = write!(self.html, "<figcaption>{}</figcaption>", prose(caption));
        }
        self.push("</figure>");
    }

    /// Heat maps side by side, without captions.
    pub(super) fn heatmap_pair(&mut self, maps: &[&Heatmap]) {
        self.push("<div class=\"pair\">");
        for h in maps {
            self.figure(true, vec![svg::heatmap(h)], "");
        }
        self.push("</div>");
    }

    /// A line chart, wide and for a phone (480 px wide, so its text stays readable scaled
    /// to ~400 px).
    pub(super) fn line_chart(&mut self, c: &svg::LineChart, caption: &str) {
        let drawn = vec![svg::line_chart(c), svg::line_chart(&c.narrow())];
        self.figure(false, drawn, caption);
    }

    /// A bar chart, wide and for a phone (labels above the bars, larger text).
    pub(super) fn bar_chart(&mut self, b: &svg::BarChart, marks: &[svg::BarMark], caption: &str) {
        let drawn = vec![svg::bar_chart(b, marks), svg::bar_chart(&b.narrow(), marks)];
        self.figure(false, drawn, caption);
    }

    /// A table with the columns of `keys` (every column when empty).
    pub(super) fn table(&mut self, t: &Table, keys: &[&str]) {
        self.table_marked(t, keys, &|_| false);
    }

    /// A table with the columns of `keys` (every column when empty); `win` marks rows to
    /// highlight.
    pub(super) fn table_marked(&mut self, t: &Table, keys: &[&str], win: &dyn Fn(usize) -> bool) {
        let mut cols = if keys.is_empty() {
            (0..t.columns.len()).collect()
        } else {
            t.cols(keys)
        };
        // The figure (the first median column) right after the row's name, so that on a phone
        // the two stay in view while the conditions scroll inside the table's box.
        if let Some(k) = cols
            .iter()
            .skip(1)
            .position(|&c| t.keys[c].ends_with("_median"))
        {
            let c = cols.remove(k + 1);
            cols.insert(1, c);
        }
        // The command (the numactl column) is the line under its row, across the table, so
        // that it never breaks and never widens the table past the page (its box, 0 wide at
        // least as wide as the row, adds nothing to the table's width and scrolls when longer).
        let cmd = (cols.iter().position(|&c| t.keys[c] == "numactl")).map(|k| cols.remove(k));
        self.push("<div class=\"scroll\"><table><thead><tr>");
        for &c in &cols {
            let _ = write!(self.html, "<th>{}</th>", esc(&t.columns[c]));
        }
        self.push("</tr></thead><tbody>");
        let numeric: Vec<bool> = (cols.iter())
            .map(|&c| {
                (t.rows.iter()).all(|r| matches!(r[c], Cell::Num(_) | Cell::Int(_) | Cell::Missing))
            })
            .collect();
        for (i, row) in t.rows.iter().enumerate() {
            let win = if win(i) { "win " } else { "" };
            let command = cmd.map(|c| &row[c]).filter(|c| matches!(c, Cell::Text(_)));
            let above = if command.is_some() { "above" } else { "" };
            match format!("{win}{above}").trim() {
                "" => self.push("<tr>"),
                class => {
                    let _ = write!(self.html, "<tr class=\"{class}\">");
                }
            }
            for (&c, &numeric) in cols.iter().zip(&numeric) {
                let class = if numeric { " class=\"n\"" } else { "" };
                let _ = write!(self.html, "<td{class}>{}</td>", prose(&row[c].display()));
            }
            self.push("</tr>");
            if let Some(c) = command {
                let _ = write!(
                    self.html,
                    "<tr class=\"{win}cmd\"><td colspan=\"{}\"><div><code class=\"cmd\">{}</code></div></td></tr>",
                    cols.len(),
                    esc(&c.display())
                );
            }
        }
        self.push("</tbody></table></div>");
    }

    /// A node x node pair: the measured heat map beside the firmware's (or `none_declared`
    /// in its place), then the caption and the cells' intervals after it; a one-cell pair is
    /// a plain figure, no colour scale, and its measured cell, when it is the headline card's
    /// figure (`card`: the card's title and median), is named rather than shown a second
    /// time, with its interval. `false` (nothing written) without a pair.
    pub(super) fn heatmaps(
        &mut self,
        pair: Option<(Heatmap, Option<Heatmap>)>,
        (caption, intervals): (&str, Option<String>),
        none_declared: &str,
        card: Option<(&str, f64)>,
    ) -> bool {
        let Some((m, d)) = pair else { return false };
        let repeat = single_cell(&m).and_then(|v| card.filter(|c| c.1 == v));
        if let Some(v) = single_cell(&m) {
            // One CPU node and one memory node: the cell as a plain figure, no colour scale.
            let measured = repeat.is_none().then_some((&m, Some(v)));
            let cells: Vec<_> = (measured.into_iter())
                .chain(d.as_ref().map(|d| (d, single_cell(d))))
                .collect();
            if !cells.is_empty() {
                self.push("<dl class=\"kv\">");
            }
            for (h, v) in &cells {
                let _ = write!(
                    self.html,
                    "<dt>{}, CPU node {} \u{2192} memory node {}</dt><dd>{}</dd>",
                    esc(&h.title),
                    esc(&h.row_labels[0]),
                    esc(&h.col_labels[0]),
                    v.map_or("-".into(), svg::value_label)
                );
            }
            if !cells.is_empty() {
                self.push("</dl>");
            }
            if let Some((title, _)) = repeat {
                let (row, col) = (&m.row_labels[0], &m.col_labels[0]);
                self.para("", &format!("One CPU node and one memory node: the one measured cell (CPU node {row} \u{2192} memory node {col}) is the {title} card above."));
            }
        } else if let Some(d) = &d {
            self.heatmap_pair(&[&m, d]);
        } else {
            self.push("<div class=\"pair\">");
            self.figure(true, vec![svg::heatmap(&m)], "");
            let _ = write!(self.html, "<p class=\"absent\">{}</p>", esc(none_declared));
            self.push("</div>");
        }
        match intervals.filter(|_| repeat.is_none()) {
            Some(ci) => self.para("lead", &format!("{caption} {ci}.")),
            None => self.para("lead", caption),
        }
        true
    }
}

/// The value of a heatmap of one row and one column, which is a figure, not a map.
fn single_cell(h: &Heatmap) -> Option<f64> {
    match h.values.as_slice() {
        [row] if row.len() == 1 => row[0],
        _ => None,
    }
}
