//! What the charts share: drawing into an SVG string, the plot frame (caption, margins and
//! axis label areas sized by the text scale) and the legend row below a plot, whose entries
//! wrap to the chart's width (plotters' own legend box sizes itself from a crude text-width
//! estimate and overlaps the curves; a row below the plot does not).

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{ChartError, FONT, INK};

pub(super) type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// A drawing area of an SVG being written.
pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A plot with two linear f64 axes (log axes are drawn as log values on them).
pub(super) type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// What a line chart and a histogram share: the texts around the plot, the canvas size and
/// the text scale, with the report's default size and the phone layout made once.
#[derive(Clone, Debug, PartialEq)]
pub struct Canvas {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub width: u32,
    pub height: u32,
    /// Text size relative to the default (1.0); the phone layout draws larger text.
    pub text_scale: f64,
}

impl Canvas {
    /// The report's default size (1000 x 420) at the default text size.
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Canvas {
        Canvas {
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            width: 1000,
            height: 420,
            text_scale: 1.0,
        }
    }

    /// The phone layout (about 420 px wide): drawn 420 units wide with text 1.3 times larger,
    /// so that scaled to a 420 px screen's content width (~375 px) the smallest text (tick
    /// labels) stays at about 12 px.
    pub fn narrow(&self) -> Canvas {
        Canvas {
            width: 420,
            height: 360,
            text_scale: 1.3,
            ..self.clone()
        }
    }

    /// A font size scaled by `text_scale`.
    pub(super) fn px(&self, size: u32) -> f64 {
        size as f64 * self.text_scale
    }

    /// The plot's width in pixels: the canvas less the margins of [`plot`] and its y label
    /// area.
    pub(super) fn plot_width(&self) -> f64 {
        self.width as f64 - 14.0 - 24.0 - self.px(62).round()
    }
}

/// Draws an SVG of `size` pixels with `draw` on a white canvas; `title` names the chart in
/// an error.
pub(super) fn svg_string(
    title: &str,
    size: (u32, u32),
    draw: impl FnOnce(&Area) -> DrawResult,
) -> Result<String, ChartError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| ChartError::new(title, e))?;
        draw(&root).map_err(|e| ChartError::new(title, e))?;
        root.present().map_err(|e| ChartError::new(title, e))?;
    }
    Ok(buf)
}

/// The plot of a line chart or histogram: its caption, the margins, and the axis label areas
/// grown with the text (`scale` 1.3 on a phone).
pub(super) fn plot<'a, 'b>(
    area: &'a Area<'b>,
    title: &str,
    scale: f64,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<Chart<'a, 'b>, Box<dyn std::error::Error>> {
    let px = |s: f64| s * scale;
    Ok(ChartBuilder::on(area)
        .caption(title, (FONT, px(17.0)).into_font().color(&INK))
        .margin(14)
        .margin_right(24)
        .x_label_area_size(px(44.0).round() as u32)
        .y_label_area_size(px(62.0).round() as u32)
        .build_cartesian_2d(x0..x1, y0..y1)?)
}

/// How wide a legend entry is: `lead` pixels of swatch and space before the text, `char_px`
/// per character of text, `gap` after it.
#[derive(Clone, Copy)]
pub(super) struct EntrySize {
    pub lead: i32,
    pub char_px: f64,
    pub gap: i32,
}

/// Legend entries wrapped into rows that fit `width`: each entry with its text and x offset.
pub(super) fn legend_rows<E>(
    items: impl IntoIterator<Item = (E, String)>,
    width: u32,
    size: EntrySize,
) -> Vec<Vec<(E, String, i32)>> {
    let left = if width < 600 { 10 } else { 60 };
    let mut rows: Vec<Vec<(E, String, i32)>> = vec![Vec::new()];
    let mut x = left;
    for (what, text) in items {
        let chars = text.chars().count() as f64;
        let w = size.lead + (size.char_px * chars).ceil() as i32 + size.gap;
        if x + w > width as i32 - 10 && !rows.last().is_some_and(|r| r.is_empty()) {
            rows.push(Vec::new());
            x = left;
        }
        if let Some(row) = rows.last_mut() {
            row.push((what, text, x));
        }
        x += w;
    }
    rows
}

/// A legend entry's text, left-aligned at `at` and centred on its row.
pub(super) fn legend_text(area: &Area, text: &str, at: (i32, i32), scale: f64) -> DrawResult {
    let font = (FONT, 13.0 * scale)
        .into_font()
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    area.draw(&Text::new(text.to_string(), at, font))?;
    Ok(())
}
