//! A horizontal bar chart: one bar per labelled figure (policy scenarios, bandwidth kernels),
//! the value printed at the end of each bar and one bar optionally highlighted (the winner);
//! optionally each bar's 95 % interval as a whisker and disturbed figures drawn hollow
//! ([`bar_chart_marked`]).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{self, Area, DrawResult};
use super::{value_label, ChartError, FONT, INK, MUTED, PALETTE};

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    pub title: String,
    /// Unit printed after the largest value (e.g. "MB/s").
    pub unit: String,
    pub bars: Vec<(String, f64)>,
    /// Index of a bar drawn in the accent colour.
    pub highlight: Option<usize>,
    pub width: u32,
}

impl BarChart {
    /// A chart 900 units wide of `bars` (label, median, mark) in that order, the highest bar
    /// (the first of equals) in the accent colour; the marks come back in bar order.
    pub fn of(
        title: String,
        unit: &str,
        bars: Vec<(String, f64, BarMark)>,
    ) -> (Self, Vec<BarMark>) {
        let mut highlight = None;
        let mut top = f64::MIN;
        for (i, b) in bars.iter().enumerate() {
            if b.1 > top {
                (top, highlight) = (b.1, Some(i));
            }
        }
        let marks = bars.iter().map(|b| b.2).collect();
        let bars = bars.into_iter().map(|(l, v, _)| (l, v)).collect();
        let unit = unit.into();
        let c = BarChart {
            title,
            unit,
            bars,
            highlight,
            width: 900,
        };
        (c, marks)
    }
}

impl BarMark {
    /// The mark of a summarized figure: its interval, hollow when `disturbed`.
    pub fn of(s: &crate::stats::Summary, disturbed: bool) -> Self {
        let interval = s.ci.map(|c| c.ends());
        BarMark {
            interval,
            disturbed,
        }
    }
}

/// What is known about one bar's figure beyond its median.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BarMark {
    /// The 95 % interval of the median, in the bar's unit.
    pub interval: Option<(f64, f64)>,
    /// The figure is disturbed: the bar is drawn hollow and its value says so.
    pub disturbed: bool,
}

const ROW: u32 = 28;
const LABEL_W: u32 = 300;

/// Where things go: the wide layout puts each label left of its bar; the phone layout
/// (420 units, shown at about 375 px) puts the label on its own line above the bar so the bar
/// keeps most of the width, and draws text 1.3 times larger so that, scaled to the screen,
/// the smallest text stays at about 15 px.
#[derive(Clone, Copy)]
struct Layout {
    width: u32,
    /// Left edge of the bars.
    bar_x: u32,
    /// Height of one row (label line included in the phone layout).
    row: u32,
    /// Label above the bar rather than beside it.
    label_above: bool,
    /// Room kept right of the longest bar for its value.
    value_room: u32,
    title_px: u32,
    text_px: u32,
}

impl Layout {
    fn wide(b: &BarChart) -> Layout {
        Layout {
            width: b.width,
            bar_x: LABEL_W,
            row: ROW,
            label_above: false,
            value_room: 110,
            title_px: 17,
            text_px: 13,
        }
    }

    fn narrow() -> Layout {
        Layout {
            width: NARROW_WIDTH,
            bar_x: 12,
            row: 48,
            label_above: true,
            value_room: 110,
            title_px: 21,
            text_px: 17,
        }
    }
}

/// The phone layout's width in SVG units.
pub const NARROW_WIDTH: u32 = 420;

/// Renders the chart to an SVG string.
pub fn bar_chart(b: &BarChart) -> Result<String, ChartError> {
    bar_chart_marked(b, &[])
}

/// Renders the chart with `marks[i]` drawn on bar `i` (intervals as whiskers, disturbed bars
/// hollow); bars without a mark are drawn as [`bar_chart`] draws them.
pub fn bar_chart_marked(b: &BarChart, marks: &[BarMark]) -> Result<String, ChartError> {
    render(b, marks, Layout::wide(b))
}

/// The same chart laid out for a phone ([`NARROW_WIDTH`] units wide, labels above the bars,
/// larger text); the HTML report draws both and lets CSS show one.
pub fn bar_chart_narrow(b: &BarChart, marks: &[BarMark]) -> Result<String, ChartError> {
    render(b, marks, Layout::narrow())
}

fn render(b: &BarChart, marks: &[BarMark], l: Layout) -> Result<String, ChartError> {
    if b.bars.is_empty() {
        return Err(ChartError::new(&b.title, "no bars"));
    }
    let top = 44 * l.title_px / 17;
    let height = top + l.row * b.bars.len() as u32 + 12;
    frame::svg_string(&b.title, (l.width, height), |root| {
        draw(root, b, marks, l, top)
    })
}

fn draw(area: &Area, b: &BarChart, marks: &[BarMark], l: Layout, top: u32) -> DrawResult {
    area.draw(&Text::new(
        b.title.clone(),
        (12, 8),
        (FONT, l.title_px)
            .into_font()
            .color(&INK)
            .pos(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    let max = b
        .bars
        .iter()
        .map(|(_, v)| *v)
        .chain(marks.iter().filter_map(|m| m.interval.map(|i| i.1)))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let value_room = value_room(b, marks, l);
    let span = l.width.saturating_sub(l.bar_x + value_room).max(40) as f64;
    let bar_x = l.bar_x as i32;
    for (i, (label, v)) in b.bars.iter().enumerate() {
        let y = draw_label(area, label, l, (top + l.row * i as u32) as i32)?;
        let w = if max > 0.0 && v.is_finite() {
            (v / max * span).round() as i32
        } else {
            0
        };
        let color = if Some(i) == b.highlight {
            PALETTE[1]
        } else {
            PALETTE[0]
        };
        let mark = marks.get(i).copied().unwrap_or_default();
        let corners = [(bar_x, y + 4), (bar_x + w.max(1), y + ROW as i32 - 8)];
        if mark.disturbed {
            area.draw(&Rectangle::new(corners, WHITE.filled()))?;
            area.draw(&Rectangle::new(corners, color.stroke_width(2)))?;
        } else {
            area.draw(&Rectangle::new(corners, color.filled()))?;
        }
        let mut end = w;
        if let Some((lo, hi)) = mark
            .interval
            .filter(|i| max > 0.0 && i.0.is_finite() && i.1.is_finite())
        {
            let x = |v: f64| bar_x + (v / max * span).round() as i32;
            let mid = y + (ROW as i32 - 4) / 2;
            let style = INK.mix(super::line::ERROR_BAR_OPACITY).stroke_width(1);
            for path in [
                vec![(x(lo), mid), (x(hi), mid)],
                vec![(x(lo), mid - 5), (x(lo), mid + 5)],
                vec![(x(hi), mid - 5), (x(hi), mid + 5)],
            ] {
                area.draw(&PathElement::new(path, style))?;
            }
            end = end.max(x(hi) - bar_x);
        }
        area.draw(&Text::new(
            value_text(b, i, *v, marks),
            (bar_x + end + 8, y + ROW as i32 / 2 - 2),
            (FONT, l.text_px)
                .into_font()
                .color(&MUTED)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// Room kept right of the longest bar for its value; the phone layout keeps room for its
/// longest value text (about 0.56 em a character).
fn value_room(b: &BarChart, marks: &[BarMark], l: Layout) -> u32 {
    if !l.label_above {
        return l.value_room;
    }
    let chars = b
        .bars
        .iter()
        .enumerate()
        .map(|(i, (_, v))| value_text(b, i, *v, marks).chars().count())
        .max()
        .unwrap_or(0);
    l.value_room
        .max((chars as f64 * l.text_px as f64 * 0.56).ceil() as u32 + 16)
}

/// A bar's label, left of the bar or (phone layout) above it; the bar's top.
fn draw_label(
    area: &Area,
    label: &str,
    l: Layout,
    mut y: i32,
) -> Result<i32, Box<dyn std::error::Error>> {
    let bar_x = l.bar_x as i32;
    if l.label_above {
        area.draw(&Text::new(
            label.to_string(),
            (bar_x, y),
            (FONT, l.text_px)
                .into_font()
                .color(&INK)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        // The bar takes the row's lower part, as tall as in the wide layout.
        y += (l.row - ROW) as i32;
    } else {
        area.draw(&Text::new(
            label.to_string(),
            (bar_x - 10, y + ROW as i32 / 2 - 2),
            (FONT, l.text_px)
                .into_font()
                .color(&INK)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
    }
    Ok(y)
}

/// The text printed after bar `i`: its value, the unit after the first, "(disturbed)" when so.
fn value_text(b: &BarChart, i: usize, v: f64, marks: &[BarMark]) -> String {
    let mut text = if i == 0 {
        format!("{} {}", value_label(v), b.unit)
    } else {
        value_label(v)
    };
    if marks.get(i).is_some_and(|m| m.disturbed) {
        text.push_str(" (disturbed)");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_well_formed, count, has_text};
    use super::*;

    #[test]
    fn bars_and_values() {
        let b = BarChart {
            title: "Policy scenarios".into(),
            unit: "MB/s".into(),
            bars: vec![
                ("local".into(), 12800.0),
                ("interleave".into(), 8400.0),
                ("one node".into(), 6400.0),
            ],
            highlight: Some(0),
            width: 700,
        };
        let svg = bar_chart(&b).unwrap();
        assert_well_formed(&svg);
        assert_eq!(count(&svg, "<rect"), 3 + 1);
        assert!(
            has_text(&svg, "12800 MB/s") && has_text(&svg, "8400") && has_text(&svg, "interleave")
        );
        insta::assert_snapshot!(svg);
    }

    /// The phone layout is 420 units wide with each label above its bar, larger
    /// text than the wide layout, and the longest value (with "(disturbed)") inside the canvas.
    #[test]
    fn narrow_layout_puts_labels_above_bars() {
        let b = BarChart {
            title: "Policy scenarios".into(),
            unit: "MB/s".into(),
            bars: vec![
                ("(a) 1 thread, pinned, local memory".into(), 12800.0),
                ("(b) interleave".into(), 8400.0),
            ],
            highlight: Some(0),
            width: 820,
        };
        let marks = [BarMark {
            interval: Some((12000.0, 13500.0)),
            disturbed: true,
        }];
        let svg = bar_chart_narrow(&b, &marks).unwrap();
        assert_well_formed(&svg);
        assert!(svg.starts_with(&format!("<svg width=\"{NARROW_WIDTH}\"")));
        assert!(has_text(&svg, "(a) 1 thread, pinned, local memory"));
        assert!(has_text(&svg, "12800 MB/s (disturbed)"));
        assert!(!svg.contains("font-size=\"13\""));
        // Every bar and whisker ends before the value text's reserved room.
        let room = (22.0 * 17.0 * 0.56_f64).ceil() as i64 + 16;
        for (i, _) in svg.match_indices("<rect x=\"") {
            let rest = &svg[i..];
            if rest.starts_with("<rect x=\"0\"") {
                continue; // the background
            }
            let num = |key: &str| -> i64 {
                let r = &rest[rest.find(key).unwrap() + key.len()..];
                r[..r.find('"').unwrap()].parse().unwrap()
            };
            assert!(num("x=\"") + num("width=\"") <= NARROW_WIDTH as i64 - room + 1);
        }
        // The wide layout is unchanged by the phone one.
        assert_eq!(
            bar_chart_marked(&b, &marks).unwrap(),
            bar_chart_marked(&b, &marks).unwrap()
        );
        assert!(bar_chart_marked(&b, &marks)
            .unwrap()
            .starts_with("<svg width=\"820\""));
    }

    /// Intervals as whiskers (a line and two caps), a disturbed bar hollow.
    #[test]
    fn intervals_and_disturbed_bars() {
        let b = BarChart {
            title: "Policy scenarios".into(),
            unit: "MB/s".into(),
            bars: vec![("local".into(), 12800.0), ("interleave".into(), 8400.0)],
            highlight: None,
            width: 700,
        };
        let marks = [
            BarMark {
                interval: Some((12000.0, 13500.0)),
                disturbed: false,
            },
            BarMark {
                interval: None,
                disturbed: true,
            },
        ];
        let svg = bar_chart_marked(&b, &marks).unwrap();
        assert_well_formed(&svg);
        let opacity = format!("opacity=\"{}\"", super::super::line::ERROR_BAR_OPACITY);
        assert_eq!(count(&svg, &opacity), 3);
        assert!(has_text(&svg, "8400 (disturbed)"));
        // Background, one filled bar, the hollow bar's white fill and its outline.
        assert_eq!(count(&svg, "<rect"), 1 + 1 + 2);
        // Without marks, exactly as bar_chart.
        assert_eq!(bar_chart_marked(&b, &[]).unwrap(), bar_chart(&b).unwrap());
    }
}
