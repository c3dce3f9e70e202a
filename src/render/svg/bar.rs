//! A horizontal bar chart: one bar per labelled figure (policy scenarios, bandwidth kernels),
//! the value printed at the end of each bar and one bar optionally highlighted (the winner);
//! optionally each bar's 95 % interval as a whisker and disturbed figures drawn hollow
//! ([`bar_chart_marked`]).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

/// Renders the chart to an SVG string.
pub fn bar_chart(b: &BarChart) -> Result<String, ChartError> {
    bar_chart_marked(b, &[])
}

/// Renders the chart with `marks[i]` drawn on bar `i` (intervals as whiskers, disturbed bars
/// hollow); bars without a mark are drawn as [`bar_chart`] draws them.
pub fn bar_chart_marked(b: &BarChart, marks: &[BarMark]) -> Result<String, ChartError> {
    if b.bars.is_empty() {
        return Err(ChartError::new(&b.title, "no bars"));
    }
    let height = 44 + ROW * b.bars.len() as u32 + 12;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (b.width, height)).into_drawing_area();
        draw(&root, b, marks).map_err(|e| ChartError::new(&b.title, e))?;
        root.present().map_err(|e| ChartError::new(&b.title, e))?;
    }
    Ok(buf)
}

fn draw(
    area: &DrawingArea<SVGBackend, Shift>,
    b: &BarChart,
    marks: &[BarMark],
) -> Result<(), Box<dyn std::error::Error>> {
    area.fill(&WHITE)?;
    area.draw(&Text::new(
        b.title.clone(),
        (12, 8),
        (FONT, 17)
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
    let span = b.width.saturating_sub(LABEL_W + 110).max(40) as f64;
    for (i, (label, v)) in b.bars.iter().enumerate() {
        let y = (44 + ROW * i as u32) as i32;
        area.draw(&Text::new(
            label.clone(),
            (LABEL_W as i32 - 10, y + ROW as i32 / 2 - 2),
            (FONT, 13)
                .into_font()
                .color(&INK)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
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
        let corners = [
            (LABEL_W as i32, y + 4),
            (LABEL_W as i32 + w.max(1), y + ROW as i32 - 8),
        ];
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
            let x = |v: f64| LABEL_W as i32 + (v / max * span).round() as i32;
            let mid = y + (ROW as i32 - 4) / 2;
            let style = INK.mix(super::line::ERROR_BAR_OPACITY).stroke_width(1);
            for path in [
                vec![(x(lo), mid), (x(hi), mid)],
                vec![(x(lo), mid - 5), (x(lo), mid + 5)],
                vec![(x(hi), mid - 5), (x(hi), mid + 5)],
            ] {
                area.draw(&PathElement::new(path, style))?;
            }
            end = end.max(x(hi) - LABEL_W as i32);
        }
        let mut text = if i == 0 {
            format!("{} {}", value_label(*v), b.unit)
        } else {
            value_label(*v)
        };
        if mark.disturbed {
            text.push_str(" (disturbed)");
        }
        area.draw(&Text::new(
            text,
            (LABEL_W as i32 + end + 8, y + ROW as i32 / 2 - 2),
            (FONT, 13)
                .into_font()
                .color(&MUTED)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
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

    /// Issue 19: intervals as whiskers (a line and two caps), a disturbed bar hollow.
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
