//! Drawing a line chart: the plot and its axes (log ticks at whole decades, powers of two on
//! a byte axis), minor decade lines, markers, intervals, series and the legend row.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::super::frame::{self, Area, Chart, DrawResult};
use super::super::{bytes_short, series_color, tick_label, FONT, GRID, INK, MUTED};
use super::{legend_row, to_y, Entry, ErrorBar, LineChart, SeriesStyle, XScale, ERROR_BAR_OPACITY};

/// The opacity of interval bands along a line.
const BAND_OPACITY: f64 = 0.12;

pub(super) fn draw(
    root: &Area,
    c: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    legend: &[Vec<(Entry, String, i32)>],
) -> DrawResult {
    let to_x = |x: f64| super::to_x(c, x);
    let (plot_area, legend_area) = root.split_vertically(c.canvas.height);
    let mut chart = frame::plot(
        &plot_area,
        &c.canvas.title,
        c.canvas.text_scale,
        (x0, x1),
        (y0, y1),
    )?;
    draw_mesh(&mut chart, c, (x0, x1), (y0, y1))?;
    if c.y_log {
        draw_minor_decades(&mut chart, (x0, x1), (y0, y1))?;
    }
    draw_markers(&mut chart, c, (x0, x1), (y0, y1), &to_x)?;
    draw_intervals(&mut chart, c, (x0, x1), &to_x)?;
    draw_series(&mut chart, c, &to_x)?;
    draw_legend(&legend_area, legend, c)
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
    let y_log = c.y_log;
    let y_fmt = |v: &f64| {
        if !y_log {
            tick_label(*v)
        } else if (v - v.round()).abs() < 1e-9 {
            tick_label(10f64.powf(v.round()))
        } else {
            String::new()
        }
    };
    // On a log axis, one tick per whole decade: plotters picks steps of 1 when asked for no
    // more labels than there are whole numbers in the range.
    let y_labels = if y_log {
        ((y1.floor() - y0.ceil()) as usize + 1).max(2)
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
    chart
        .configure_mesh()
        .bold_line_style(GRID.stroke_width(1))
        .light_line_style(WHITE.mix(0.0))
        .axis_style(MUTED.stroke_width(1))
        .x_labels(x_labels)
        .y_labels(y_labels)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT, c.canvas.px(13)).into_font().color(&MUTED))
        .axis_desc_style((FONT, c.canvas.px(14)).into_font().color(&INK))
        .x_desc(&c.canvas.x_label)
        .y_desc(&c.canvas.y_label)
        .draw()?;
    Ok(())
}

/// Light lines at 2..9 of every decade of a log axis, so values between the labelled
/// decades can be read.
fn draw_minor_decades(chart: &mut Chart, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> DrawResult {
    let mut d = y0.floor();
    while d < y1 {
        for m in 2..=9 {
            let y = d + (m as f64).log10();
            if y > y0 && y < y1 {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x0, y), (x1, y)],
                    GRID.mix(0.6).stroke_width(1),
                )))?;
            }
        }
        d += 1.0;
    }
    Ok(())
}

/// Each interval as a whisker with caps, and a translucent band along a line series with
/// two or more intervals.
fn draw_intervals(
    chart: &mut Chart,
    c: &LineChart,
    (x0, x1): (f64, f64),
    to_x: &dyn Fn(f64) -> f64,
) -> DrawResult {
    let cap = (x1 - x0) * 0.006;
    for (i, s) in c.series.iter().enumerate() {
        let mut bars: Vec<&ErrorBar> = c
            .errors
            .iter()
            .filter(|e| e.series == i && e.low.is_finite() && e.high.is_finite())
            .collect();
        if bars.is_empty() {
            continue;
        }
        bars.sort_by(|a, b| a.x.total_cmp(&b.x));
        let color = series_color(i);
        if bars.len() >= 2 && s.style != SeriesStyle::Points {
            let mut poly: Vec<(f64, f64)> =
                bars.iter().map(|e| (to_x(e.x), to_y(c, e.low))).collect();
            poly.extend(bars.iter().rev().map(|e| (to_x(e.x), to_y(c, e.high))));
            chart.draw_series(std::iter::once(Polygon::new(
                poly,
                color.mix(BAND_OPACITY).filled(),
            )))?;
        }
        let style = color.mix(ERROR_BAR_OPACITY).stroke_width(1);
        for e in bars {
            let (x, lo, hi) = (to_x(e.x), to_y(c, e.low), to_y(c, e.high));
            chart.draw_series([
                PathElement::new(vec![(x, lo), (x, hi)], style),
                PathElement::new(vec![(x - cap, lo), (x + cap, lo)], style),
                PathElement::new(vec![(x - cap, hi), (x + cap, hi)], style),
            ])?;
        }
    }
    draw_x_intervals(chart, c, to_x)
}

/// Each x interval as a horizontal whisker with caps, in its series' colour.
fn draw_x_intervals(chart: &mut Chart, c: &LineChart, to_x: &dyn Fn(f64) -> f64) -> DrawResult {
    let (y0, y1) = {
        let r = chart.y_range();
        (r.start, r.end)
    };
    // Caps as tall as the vertical bars' caps are wide, in the plot's proportions.
    let cap = (y1 - y0) * 0.006 * c.canvas.width as f64 / c.canvas.height.max(1) as f64;
    for e in c
        .x_errors
        .iter()
        .filter(|e| e.low.is_finite() && e.high.is_finite() && e.y.is_finite())
    {
        let style = series_color(e.series)
            .mix(ERROR_BAR_OPACITY)
            .stroke_width(1);
        let (lo, hi, y) = (to_x(e.low), to_x(e.high), to_y(c, e.y));
        chart.draw_series([
            PathElement::new(vec![(lo, y), (hi, y)], style),
            PathElement::new(vec![(lo, y - cap), (lo, y + cap)], style),
            PathElement::new(vec![(hi, y - cap), (hi, y + cap)], style),
        ])?;
    }
    Ok(())
}

/// Each series as a line, points or both, in its palette colour.
fn draw_series(chart: &mut Chart, c: &LineChart, to_x: &dyn Fn(f64) -> f64) -> DrawResult {
    for (i, s) in c.series.iter().enumerate() {
        let color = series_color(i);
        let hollow = |x: f64| c.disturbed.iter().any(|&(si, dx)| si == i && dx == x);
        let pts: Vec<(f64, f64, bool)> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| (to_x(x), to_y(c, y), hollow(x)))
            .collect();
        if matches!(s.style, SeriesStyle::Line | SeriesStyle::LinePoints) {
            chart.draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))?;
        }
        if matches!(s.style, SeriesStyle::LinePoints | SeriesStyle::Points) {
            chart.draw_series(
                pts.iter()
                    .filter(|p| !p.2)
                    .map(|&p| Circle::new((p.0, p.1), 3, color.filled().stroke_width(1))),
            )?;
        }
        // A disturbed point is a white disc with a thick ring, whatever the style.
        chart.draw_series(pts.iter().filter(|p| p.2).flat_map(|&p| {
            [
                Circle::new((p.0, p.1), 5, WHITE.filled()),
                Circle::new((p.0, p.1), 5, color.stroke_width(2)),
            ]
        }))?;
    }
    Ok(())
}

/// Dashed vertical markers (cache sizes, doubling points) with their labels.
fn draw_markers(
    chart: &mut Chart,
    c: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    to_x: &dyn Fn(f64) -> f64,
) -> DrawResult {
    let rows = super::marker_rows(c, (x0, x1));
    for (m, row) in c.markers.iter().zip(rows) {
        let x = to_x(m.x);
        if !(x0..=x1).contains(&x) {
            continue;
        }
        chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(x, y0), (x, y1)],
            4,
            4,
            MUTED.mix(0.7).stroke_width(1),
        )))?;
        // The label in its row, that many rows below the top of the plot.
        let below = (row as f64 * super::marker_row_px(c)).round() as i32;
        chart.draw_series(std::iter::once(
            EmptyElement::at((x, y1))
                + Text::new(
                    format!("\u{2009}{}", m.label),
                    (0, below),
                    (FONT, c.canvas.px(13))
                        .into_font()
                        .color(&MUTED)
                        .pos(Pos::new(HPos::Left, VPos::Top)),
                ),
        ))?;
    }
    Ok(())
}

/// The legend under the plot: a coloured stroke and the series name per entry.
fn draw_legend(
    legend_area: &Area,
    legend: &[Vec<(Entry, String, i32)>],
    c: &LineChart,
) -> DrawResult {
    for (row, entries) in legend.iter().enumerate() {
        let y = (row as u32 * legend_row(c) + legend_row(c) / 2) as i32;
        for (e, name, x) in entries {
            let x = *x;
            match e {
                Entry::Series(i) => legend_area.draw(&PathElement::new(
                    vec![(x, y), (x + 20, y)],
                    series_color(*i).stroke_width(3),
                ))?,
                Entry::Interval => {
                    for path in [
                        vec![(x + 10, y - 7), (x + 10, y + 7)],
                        vec![(x + 6, y - 7), (x + 14, y - 7)],
                        vec![(x + 6, y + 7), (x + 14, y + 7)],
                    ] {
                        legend_area.draw(&PathElement::new(path, MUTED.stroke_width(1)))?;
                    }
                }
                Entry::Disturbed => {
                    legend_area.draw(&Circle::new((x + 10, y), 5, MUTED.stroke_width(2)))?
                }
            }
            frame::legend_text(legend_area, name, (x + 26, y), c.canvas.text_scale)?;
        }
    }
    Ok(())
}
