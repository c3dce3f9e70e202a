//! Drawing a line chart: the plot and its axes (log ticks at whole decades, powers of two on
//! a byte axis), minor decade lines, markers, intervals, series and the legend row.

use plotters::prelude::*;

use super::super::frame::{self, Area, Chart, DrawResult};
use super::super::{bytes_short, series_color, tick_label, GRID, MUTED};
use super::{to_y, LineChart, XScale, ERROR_BAR_OPACITY};

/// The opacity of interval bands along a line.
const BAND_OPACITY: f64 = 0.12;

pub(super) fn draw(
    chart: &mut Chart,
    area: &Area,
    c: &LineChart,
    (x, y): ((f64, f64), (f64, f64)),
) -> DrawResult {
    draw_mesh(chart, c, x, y)?;
    if c.y_log {
        draw_minor_decades(chart, x, y)?;
    }
    draw_markers(chart, area, c, x, y)?;
    draw_intervals(chart, c, x)?;
    draw_series(chart, c)
}

/// The axes, their tick labels and the grid: powers of two on a byte axis (a tick every
/// octave, labelled where the labels fit apart), whole decades on a log axis, integers for
/// counts.
fn draw_mesh(
    chart: &mut Chart,
    c: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> DrawResult {
    let log2 = c.x_scale == XScale::Log2Bytes;
    // Counts (threads) get integer ticks only.
    let integral = !log2
        && c.series
            .iter()
            .flat_map(|s| &s.points)
            .all(|p| p.0 == p.0.round());
    // On a byte axis a tick at every octave, labelled where the labels fit apart.
    let shown = super::octave_labels(c, (x0, x1));
    let x_fmt = |v: &f64| {
        if log2 {
            if (v - v.round()).abs() < 1e-9 && shown.contains(&(v.round() as i64)) {
                bytes_short(2f64.powf(v.round()))
            } else {
                String::new()
            }
        } else if integral && (v - v.round()).abs() > 1e-9 {
            String::new()
        } else {
            tick_label(*v)
        }
    };
    let y_fmt = |v: &f64| {
        if c.y_log {
            frame::decade_label(v)
        } else {
            tick_label(*v)
        }
    };
    let y_labels = if c.y_log {
        frame::decade_count((y0, y1))
    } else {
        8
    };
    let x_labels = if log2 {
        ((x1 - x0).ceil() as usize + 1).max(2)
    } else if integral {
        ((x1 - x0).ceil() as usize + 1).clamp(2, 14)
    } else {
        10
    };
    frame::mesh(
        chart,
        &c.canvas,
        (x_labels, &x_fmt),
        (y_labels, &y_fmt),
        true,
    )
}

/// Light lines at 2..9 of every decade of a log axis, so values between the labelled
/// decades can be read.
fn draw_minor_decades(chart: &mut Chart, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> DrawResult {
    let mut d = y0.floor();
    while d < y1 {
        for m in 2..=9 {
            let y = d + (m as f64).log10();
            if y > y0 && y < y1 {
                let style = GRID.mix(0.6).stroke_width(1);
                frame::stroke(chart.plotting_area(), vec![(x0, y), (x1, y)], style, None)?;
            }
        }
        d += 1.0;
    }
    Ok(())
}

/// Each interval as a whisker with caps, and a translucent band along a line series with
/// two or more intervals; each x interval as a horizontal whisker, its caps as tall as the
/// vertical bars' caps are wide in the plot's proportions.
fn draw_intervals(chart: &mut Chart, c: &LineChart, (x0, x1): (f64, f64)) -> DrawResult {
    let to_x = |x: f64| super::to_x(c, x);
    let area = chart.plotting_area();
    let cap = (x1 - x0) * 0.006;
    for i in 0..c.series.len() {
        let mut bars: Vec<_> = (c.errors.iter())
            .filter(|e| e.series == i && e.low.is_finite() && e.high.is_finite())
            .collect();
        bars.sort_by(|a, b| a.x.total_cmp(&b.x));
        let color = series_color(i);
        if bars.len() >= 2 {
            let mut poly: Vec<(f64, f64)> =
                bars.iter().map(|e| (to_x(e.x), to_y(c, e.low))).collect();
            poly.extend(bars.iter().rev().map(|e| (to_x(e.x), to_y(c, e.high))));
            area.draw(&Polygon::new(poly, color.mix(BAND_OPACITY).filled()))?;
        }
        let style = color.mix(ERROR_BAR_OPACITY).stroke_width(1);
        for e in bars {
            let span = (to_y(c, e.low), to_y(c, e.high));
            frame::whisker(area, to_x(e.x), span, cap, true, style)?;
        }
    }
    let r = chart.y_range();
    let cap = (r.end - r.start) * 0.006 * c.canvas.width as f64 / c.canvas.height.max(1) as f64;
    for e in
        (c.x_errors.iter()).filter(|e| e.low.is_finite() && e.high.is_finite() && e.y.is_finite())
    {
        let style = series_color(e.series)
            .mix(ERROR_BAR_OPACITY)
            .stroke_width(1);
        frame::whisker(
            area,
            to_y(c, e.y),
            (to_x(e.low), to_x(e.high)),
            cap,
            false,
            style,
        )?;
    }
    Ok(())
}

/// Each series as a line through its points, in its palette colour.
fn draw_series(chart: &mut Chart, c: &LineChart) -> DrawResult {
    let to_x = |x: f64| super::to_x(c, x);
    for (i, s) in c.series.iter().enumerate() {
        let color = series_color(i);
        let hollow = |x: f64| c.disturbed.iter().any(|&(si, dx)| si == i && dx == x);
        let pts: Vec<(f64, f64, bool)> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| (to_x(x), to_y(c, y), hollow(x)))
            .collect();
        chart.draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1)),
            color.stroke_width(2),
        ))?;
        chart.draw_series(
            pts.iter()
                .filter(|p| !p.2)
                .map(|&p| Circle::new((p.0, p.1), 3, color.filled().stroke_width(1))),
        )?;
        // A disturbed point is a white disc with a thick ring.
        chart.draw_series(pts.iter().filter(|p| p.2).flat_map(|&p| {
            [
                Circle::new((p.0, p.1), 5, WHITE.filled()),
                Circle::new((p.0, p.1), 5, color.stroke_width(2)),
            ]
        }))?;
    }
    Ok(())
}

/// Dashed vertical markers (cache sizes, doubling points) with their labels, each in its row
/// of [`super::marker_rows`], that many rows below the top of the plot.
fn draw_markers(
    chart: &mut Chart,
    area: &Area,
    c: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> DrawResult {
    let rows = super::marker_rows(c, (x0, x1));
    let style = frame::font(c.canvas.px(13), &MUTED, frame::LEFT_TOP);
    let (line, dashed) = (MUTED.mix(0.7).stroke_width(1), Some((4, 4)));
    for (m, row) in c.markers.iter().zip(rows) {
        let x = super::to_x(c, m.x);
        if !(x0..=x1).contains(&x) {
            continue;
        }
        frame::stroke(chart.plotting_area(), vec![(x, y0), (x, y1)], line, dashed)?;
        let (px, py) = chart.backend_coord(&(x, y1));
        let below = (row as f64 * super::marker_row_px(c)).round() as i32;
        let label = format!("\u{2009}{}", m.label);
        frame::text(area, label, (px, py + below), &style)?;
    }
    Ok(())
}
