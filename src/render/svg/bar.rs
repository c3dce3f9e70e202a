//! A horizontal bar chart: one bar per labelled figure (policy scenarios, bandwidth kernels),
//! the value printed at the end of each bar and one bar optionally highlighted (the winner).

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

const ROW: u32 = 28;
const LABEL_W: u32 = 300;

/// Renders the chart to an SVG string.
pub fn bar_chart(b: &BarChart) -> Result<String, ChartError> {
    if b.bars.is_empty() {
        return Err(ChartError::new(&b.title, "no bars"));
    }
    let height = 44 + ROW * b.bars.len() as u32 + 12;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (b.width, height)).into_drawing_area();
        draw(&root, b).map_err(|e| ChartError::new(&b.title, e))?;
        root.present().map_err(|e| ChartError::new(&b.title, e))?;
    }
    Ok(buf)
}

fn draw(
    area: &DrawingArea<SVGBackend, Shift>,
    b: &BarChart,
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
        area.draw(&Rectangle::new(
            [
                (LABEL_W as i32, y + 4),
                (LABEL_W as i32 + w.max(1), y + ROW as i32 - 8),
            ],
            color.filled(),
        ))?;
        let text = if i == 0 {
            format!("{} {}", value_label(*v), b.unit)
        } else {
            value_label(*v)
        };
        area.draw(&Text::new(
            text,
            (LABEL_W as i32 + w + 8, y + ROW as i32 / 2 - 2),
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
}
