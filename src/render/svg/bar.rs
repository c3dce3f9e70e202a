//! A horizontal bar chart: one bar per labelled figure (policy scenarios, bandwidth kernels),
//! the value printed at the end of each bar and one bar optionally highlighted (the winner);
//! optionally each bar's 95 % interval as a whisker and disturbed figures drawn hollow
//! ([`bar_chart`]).

use plotters::prelude::*;

use super::frame::{self, font, text, Area, DrawResult, LEFT_MID, LEFT_TOP, RIGHT_MID};
use super::{value_label, ChartError, INK, MUTED, PALETTE};

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
    /// Laid out for a phone: labels above the bars, larger text.
    pub narrow: bool,
}

impl BarChart {
    /// A chart 900 units wide of `bars` (label, median, mark) in that order, the highest bar
    /// (the first of equals) in the accent colour; the marks come back in bar order.
    pub fn of(
        title: String,
        unit: &str,
        bars: Vec<(String, f64, BarMark)>,
    ) -> (Self, Vec<BarMark>) {
        let mut highlight: Option<usize> = None;
        for (i, b) in bars.iter().enumerate() {
            if b.1 > highlight.map_or(f64::MIN, |h| bars[h].1) {
                highlight = Some(i);
            }
        }
        let (bars, marks) = bars.into_iter().map(|(l, v, m)| ((l, v), m)).unzip();
        let (unit, width) = (unit.into(), 900);
        let c = BarChart {
            title,
            unit,
            bars,
            highlight,
            width,
            narrow: false,
        };
        (c, marks)
    }

    /// The same chart laid out for a phone ([`NARROW_WIDTH`] units wide, labels above the
    /// bars, larger text); the HTML report draws both and lets CSS show one.
    pub fn narrow(&self) -> BarChart {
        let (width, narrow) = (NARROW_WIDTH, true);
        BarChart {
            width,
            narrow,
            ..self.clone()
        }
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
/// Room kept right of the longest bar for its value.
const VALUE_ROOM: u32 = 110;

/// The phone layout's width in SVG units.
pub const NARROW_WIDTH: u32 = 420;

/// Where things go: the wide layout puts each label left of its bar, 300 units in; the phone
/// layout ([`BarChart::narrow`], shown at about 375 px) puts the label on its own line above
/// the bar, 48 units a row, so the bar keeps most of the width, and draws text 1.3 times
/// larger so that, scaled to the screen, the smallest text stays at about 15 px.
#[derive(Clone, Copy)]
struct Layout {
    /// Left edge of the bars.
    bar_x: i32,
    /// Height of one row (label line included in the phone layout).
    row: u32,
    title_px: u32,
    text_px: f64,
}

impl Layout {
    fn of(b: &BarChart) -> Layout {
        let (bar_x, row, title_px, text_px) = if b.narrow {
            (12, 48, 21, 17.0)
        } else {
            (300, ROW, 17, 13.0)
        };
        Layout {
            bar_x,
            row,
            title_px,
            text_px,
        }
    }
}

/// Renders the chart with `marks[i]` drawn on bar `i` (intervals as whiskers, disturbed bars
/// hollow); bars without a mark are drawn plain.
pub fn bar_chart(b: &BarChart, marks: &[BarMark]) -> Result<String, ChartError> {
    if b.bars.is_empty() {
        return Err(ChartError::new(&b.title, "no bars"));
    }
    let l = Layout::of(b);
    let top = 44 * l.title_px / 17;
    let height = top + l.row * b.bars.len() as u32 + 12;
    frame::svg_string(&b.title, (b.width, height), |root| {
        draw(root, b, marks, l, top as i32)
    })
}

fn draw(area: &Area, b: &BarChart, marks: &[BarMark], l: Layout, top: i32) -> DrawResult {
    let bar_x = l.bar_x;
    let title = font(l.title_px as f64, &INK, LEFT_TOP);
    text(area, &b.title, (12, 8), &title)?;
    let label_font = font(l.text_px, &INK, if b.narrow { LEFT_TOP } else { RIGHT_MID });
    let value_font = font(l.text_px, &MUTED, LEFT_MID);
    let max = (b.bars.iter().map(|(_, v)| *v))
        .chain(marks.iter().filter_map(|m| m.interval.map(|i| i.1)))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let span = b
        .width
        .saturating_sub(bar_x as u32 + value_room(b, marks, l))
        .max(40) as f64;
    let x = |v: f64| bar_x + (v / max * span).round() as i32;
    for (i, (label, v)) in b.bars.iter().enumerate() {
        let mut y = top + (l.row * i as u32) as i32;
        if b.narrow {
            text(area, label, (bar_x, y), &label_font)?;
            // The bar takes the row's lower part, as tall as in the wide layout.
            y += (l.row - ROW) as i32;
        } else {
            text(
                area,
                label,
                (bar_x - 10, y + ROW as i32 / 2 - 2),
                &label_font,
            )?;
        }
        let w = if max > 0.0 && v.is_finite() {
            x(*v) - bar_x
        } else {
            0
        };
        let color = PALETTE[usize::from(Some(i) == b.highlight)];
        let mark = marks.get(i).copied().unwrap_or_default();
        let corners = [(bar_x, y + 4), (bar_x + w.max(1), y + ROW as i32 - 8)];
        if mark.disturbed {
            area.draw(&Rectangle::new(corners, WHITE.filled()))?;
            area.draw(&Rectangle::new(corners, color.stroke_width(2)))?;
        } else {
            area.draw(&Rectangle::new(corners, color.filled()))?;
        }
        let mut end = w;
        let interval = mark
            .interval
            .filter(|i| max > 0.0 && i.0.is_finite() && i.1.is_finite());
        if let Some((lo, hi)) = interval {
            let style = INK.mix(super::line::ERROR_BAR_OPACITY).stroke_width(1);
            let mid = y + (ROW as i32 - 4) / 2;
            frame::whisker(area, mid, (x(lo), x(hi)), 5, false, style)?;
            end = end.max(x(hi) - bar_x);
        }
        let at = (bar_x + end + 8, y + ROW as i32 / 2 - 2);
        text(area, value_text(b, i, *v, marks), at, &value_font)?;
    }
    Ok(())
}

/// Room kept right of the longest bar for its value; the phone layout keeps room for its
/// longest value text (about 0.56 em a character).
fn value_room(b: &BarChart, marks: &[BarMark], l: Layout) -> u32 {
    if !b.narrow {
        return VALUE_ROOM;
    }
    let chars = (b.bars.iter().enumerate())
        .map(|(i, (_, v))| value_text(b, i, *v, marks).chars().count())
        .max()
        .unwrap_or(0);
    VALUE_ROOM.max((chars as f64 * l.text_px * 0.56).ceil() as u32 + 16)
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

    /// [`BarChart::of`] without marks, its highlight and width then set as the test asks.
    fn chart(bars: &[(&str, f64)], highlight: Option<usize>, width: u32) -> BarChart {
        let bars = bars
            .iter()
            .map(|&(l, v)| (l.to_string(), v, mark(None, false)));
        let (c, _) = BarChart::of("Policy scenarios".into(), "MB/s", bars.collect());
        BarChart {
            highlight,
            width,
            ..c
        }
    }

    fn mark(interval: Option<(f64, f64)>, disturbed: bool) -> BarMark {
        BarMark {
            interval,
            disturbed,
        }
    }

    #[test]
    fn bars_and_values() {
        let bars = [
            ("local", 12800.0),
            ("interleave", 8400.0),
            ("one node", 6400.0),
        ];
        let svg = bar_chart(&chart(&bars, Some(0), 700), &[]).unwrap();
        assert_well_formed(&svg);
        assert_eq!(count(&svg, "<rect"), 3 + 1);
        for t in ["12800 MB/s", "8400", "interleave"] {
            assert!(has_text(&svg, t), "{t}");
        }
        insta::assert_snapshot!(svg);
    }

    /// The phone layout is 420 units wide with each label above its bar, larger
    /// text than the wide layout, and the longest value (with "(disturbed)") inside the canvas.
    #[test]
    fn narrow_layout_puts_labels_above_bars() {
        let bars = [
            ("(a) 1 thread, pinned, local memory", 12800.0),
            ("(b) interleave", 8400.0),
        ];
        let b = chart(&bars, Some(0), 820);
        let marks = [mark(Some((12000.0, 13500.0)), true)];
        let svg = bar_chart(&b.narrow(), &marks).unwrap();
        assert_well_formed(&svg);
        assert!(svg.starts_with(&format!("<svg width=\"{NARROW_WIDTH}\"")));
        assert!(has_text(&svg, "(a) 1 thread, pinned, local memory"));
        assert!(has_text(&svg, "12800 MB/s (disturbed)"));
        assert!(!svg.contains("font-size=\"13\""));
        // Every bar and whisker ends before the value text's reserved room.
        let room = (22.0 * 17.0 * 0.56_f64).ceil() as i64 + 16;
        for rest in svg.split("<rect x=\"").skip(2) {
            let num = |key: &str| -> i64 {
                let r = &rest[rest.find(key).map_or(0, |i| i + key.len())..];
                r[..r.find('"').unwrap()].parse().unwrap()
            };
            assert!(num("") + num("width=\"") <= NARROW_WIDTH as i64 - room + 1);
        }
        // The wide layout keeps its own width.
        assert!(bar_chart(&b, &marks)
            .unwrap()
            .starts_with("<svg width=\"820\""));
    }

    /// Intervals as whiskers (a line and two caps), a disturbed bar hollow.
    #[test]
    fn intervals_and_disturbed_bars() {
        let b = chart(&[("local", 12800.0), ("interleave", 8400.0)], None, 700);
        let marks = [mark(Some((12000.0, 13500.0)), false), mark(None, true)];
        let svg = bar_chart(&b, &marks).unwrap();
        assert_well_formed(&svg);
        let opacity = format!("opacity=\"{}\"", super::super::line::ERROR_BAR_OPACITY);
        assert_eq!(count(&svg, &opacity), 3);
        assert!(has_text(&svg, "8400 (disturbed)"));
        // Background, one filled bar, the hollow bar's white fill and its outline.
        assert_eq!(count(&svg, "<rect"), 1 + 1 + 2);
    }
}
