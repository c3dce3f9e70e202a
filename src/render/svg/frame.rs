//! What the charts share: drawing into an SVG string, the plot frame (caption, margins and
//! axis label areas sized by the text scale), the axes' styling and decade labels, text
//! placed by its anchor, straight and dashed strokes, interval whiskers, and the legend row
//! below a plot, whose entries wrap to the chart's width (plotters' own legend box sizes
//! itself from a crude text-width estimate and overlaps the curves; a row below the plot does
//! not).

use std::ops::{Add, Sub};

use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, Shift};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{tick_label, ChartError, FONT, GRID, INK, MUTED};

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

    /// The plot's width in pixels: the canvas less the margins of [`plot_svg`] and its y label
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

/// A line chart's or histogram's SVG: the plot of `canvas` over the ranges `x` and `y`, with
/// its caption, margins and axis label areas grown with the text (`text_scale` 1.3 on a
/// phone), drawn by `draw` (given the plot's pixel area too), and `legend` below it.
pub(super) fn plot_svg(
    canvas: &Canvas,
    legend: &Legend,
    (x, y): ((f64, f64), (f64, f64)),
    draw: impl FnOnce(&mut Chart, &Area) -> DrawResult,
) -> Result<String, ChartError> {
    let size = (canvas.width, canvas.height + legend.height());
    svg_string(&canvas.title, size, |root| {
        let (plot_area, legend_area) = root.split_vertically(canvas.height);
        let px = |s: u32| canvas.px(s);
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(&canvas.title, (FONT, px(17)).into_font().color(&INK))
            .margin(14)
            .margin_right(24)
            .x_label_area_size(px(44).round() as u32)
            .y_label_area_size(px(62).round() as u32)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)?;
        draw(&mut chart, &plot_area)?;
        legend.draw(&legend_area)
    })
}

/// How many labels an axis asks plotters for, and the text of each (empty hides one).
pub(super) type Labels<'f> = (usize, &'f dyn Fn(&f64) -> String);

/// The axes, their labels and the grid in the charts' styling: grid lines at the labels
/// (none across x unless `x_grid`), the axis texts of `c`.
pub(super) fn mesh(
    chart: &mut Chart,
    c: &Canvas,
    x: Labels,
    y: Labels,
    x_grid: bool,
) -> DrawResult {
    let mut mesh = chart.configure_mesh();
    mesh.bold_line_style(GRID.stroke_width(1))
        .light_line_style(WHITE.mix(0.0))
        .axis_style(MUTED.stroke_width(1))
        .x_labels(x.0)
        .y_labels(y.0)
        .x_label_formatter(x.1)
        .y_label_formatter(y.1)
        .label_style((FONT, c.px(13)).into_font().color(&MUTED))
        .axis_desc_style((FONT, c.px(14)).into_font().color(&INK))
        .x_desc(&c.x_label)
        .y_desc(&c.y_label);
    if !x_grid {
        mesh.disable_x_mesh();
    }
    mesh.draw()?;
    Ok(())
}

/// How many labels a log-10 axis from `v0` to `v1` (log units) asks for: one per whole
/// decade, as plotters picks steps of 1 when asked for no more labels than there are whole
/// numbers in the range.
pub(super) fn decade_count((v0, v1): (f64, f64)) -> usize {
    ((v1.floor() - v0.ceil()) as usize + 1).max(2)
}

/// The label of a log-10 axis value: the decade's value at whole decades, nothing between.
pub(super) fn decade_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        tick_label(10f64.powf(v.round()))
    } else {
        String::new()
    }
}

/// Where a text is anchored: its (horizontal, vertical) position at the point given.
pub(super) type Anchor = (HPos, VPos);
pub(super) const LEFT_TOP: Anchor = (HPos::Left, VPos::Top);
pub(super) const LEFT_MID: Anchor = (HPos::Left, VPos::Center);
pub(super) const RIGHT_MID: Anchor = (HPos::Right, VPos::Center);
pub(super) const CENTRE: Anchor = (HPos::Center, VPos::Center);

/// The charts' font at `size` pixels in `color`, anchored at `anchor`.
pub(super) fn font(size: f64, color: &RGBColor, (h, v): Anchor) -> TextStyle<'static> {
    (FONT, size).into_font().color(color).pos(Pos::new(h, v))
}

/// `s` at `at` in `style`.
pub(super) fn text(
    area: &Area,
    s: impl Into<String>,
    at: (i32, i32),
    style: &TextStyle,
) -> DrawResult {
    area.draw(&Text::new(s.into(), at, style.clone()))?;
    Ok(())
}

/// A stroke through `points`, dashed (`dash` pixels, `gap` pixels) when given.
pub(super) fn stroke<CT: CoordTranslate>(
    area: &DrawingArea<SVGBackend, CT>,
    points: Vec<CT::From>,
    style: ShapeStyle,
    dash: Option<(u32, u32)>,
) -> DrawResult
where
    CT::From: Clone,
{
    match dash {
        Some((dash, gap)) => area.draw(&DashedPathElement::new(points, dash, gap, style))?,
        None => area.draw(&PathElement::new(points, style))?,
    }
    Ok(())
}

/// An interval's whisker from `lo` to `hi` at `mid` across, vertical or horizontal, with a
/// cap `cap` either side at each end.
pub(super) fn whisker<CT, T>(
    area: &DrawingArea<SVGBackend, CT>,
    mid: T,
    (lo, hi): (T, T),
    cap: T,
    vertical: bool,
    style: ShapeStyle,
) -> DrawResult
where
    CT: CoordTranslate<From = (T, T)>,
    T: Copy + Add<Output = T> + Sub<Output = T>,
{
    let paths = [
        [(mid, lo), (mid, hi)],
        [(mid - cap, lo), (mid + cap, lo)],
        [(mid - cap, hi), (mid + cap, hi)],
    ];
    for p in paths {
        let p = p.map(|(a, b)| if vertical { (a, b) } else { (b, a) });
        stroke(area, p.to_vec(), style, None)?;
    }
    Ok(())
}

/// A legend entry's mark, drawn left of its text.
#[derive(Clone, Copy, Debug)]
pub(super) enum Swatch {
    /// A line as long as the swatch, dashed when given.
    Line(ShapeStyle, Option<(u32, u32)>),
    /// A filled square (a histogram's bar).
    Square(ShapeStyle),
    /// An interval's whisker.
    Whisker,
    /// A hollow point.
    Ring,
}

/// A legend's geometry: `swatch` pixels of swatch, its text `lead` pixels from the entry's
/// left, `char_px` per character of text, `gap` after it, the first row `top` pixels down.
#[derive(Clone, Copy)]
pub(super) struct EntrySize {
    pub swatch: i32,
    pub lead: i32,
    pub char_px: f64,
    pub gap: i32,
    pub top: i32,
}

/// The legend row below a plot: entries wrapped into rows that fit the chart's width, each
/// with its x offset.
pub(super) struct Legend {
    rows: Vec<Vec<(Swatch, String, i32)>>,
    size: EntrySize,
    row_h: i32,
    scale: f64,
}

impl Legend {
    /// `items` wrapped to `canvas`'s width, in rows 20 pixels high at its text scale.
    pub fn new(items: Vec<(Swatch, String)>, canvas: &Canvas, size: EntrySize) -> Legend {
        let left = if canvas.width < 600 { 10 } else { 60 };
        let mut rows: Vec<Vec<(Swatch, String, i32)>> = vec![Vec::new()];
        let mut x = left;
        for (what, text) in items {
            let chars = text.chars().count() as f64;
            let w = size.lead + (size.char_px * chars).ceil() as i32 + size.gap;
            if x + w > canvas.width as i32 - 10 && !rows.last().is_some_and(|r| r.is_empty()) {
                rows.push(Vec::new());
                x = left;
            }
            if let Some(row) = rows.last_mut() {
                row.push((what, text, x));
            }
            x += w;
        }
        let row_h = canvas.px(20).round() as i32;
        Legend {
            rows,
            size,
            row_h,
            scale: canvas.text_scale,
        }
    }

    /// The height the legend takes below the plot.
    pub fn height(&self) -> u32 {
        (self.row_h * self.rows.len() as i32 + 8) as u32
    }

    fn draw(&self, area: &Area) -> DrawResult {
        let sw = self.size.swatch;
        let style = font(13.0 * self.scale, &INK, LEFT_MID);
        for (r, row) in self.rows.iter().enumerate() {
            let y = self.size.top + self.row_h * r as i32 + self.row_h / 2;
            for (what, name, x) in row {
                let x = *x;
                match *what {
                    Swatch::Line(style, dash) => {
                        stroke(area, vec![(x, y), (x + sw, y)], style, dash)?
                    }
                    Swatch::Square(style) => area.draw(&Rectangle::new(
                        [(x + 4, y - 6), (x + sw - 4, y + 6)],
                        style,
                    ))?,
                    Swatch::Whisker => whisker(
                        area,
                        x + sw / 2,
                        (y - 7, y + 7),
                        4,
                        true,
                        MUTED.stroke_width(1),
                    )?,
                    Swatch::Ring => {
                        area.draw(&Circle::new((x + sw / 2, y), 5, MUTED.stroke_width(2)))?
                    }
                }
                text(area, name.as_str(), (x + self.size.lead, y), &style)?;
            }
        }
        Ok(())
    }
}
