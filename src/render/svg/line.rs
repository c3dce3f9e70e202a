//! Line and scatter charts: latency against working set (log-2 byte axis with cache-size
//! markers, log-10 latency axis so 1 ns caches and 200 ns DRAM both show), bandwidth against
//! thread count, latency against bandwidth under load. One chart, several named series, each
//! point's 95 % interval drawn as an error bar (and a band along a line), disturbed points
//! drawn hollow, a legend drawn below the plot (plotters' own legend box sizes itself from a
//! crude text-width estimate and overlaps the curves; a row below the plot does not).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{bytes_short, series_color, tick_label, ChartError, FONT, GRID, INK, MUTED};

/// How the x axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XScale {
    /// x values are byte counts drawn on a log-2 axis labelled `32K`, `1M`, `64M`.
    Log2Bytes,
    /// x values drawn as they are.
    Linear,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesStyle {
    Line,
    LinePoints,
    Points,
}

/// One named curve; points in drawing order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: SeriesStyle,
}

/// A vertical marker (a cache size, a saturation point) with a short label.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub label: String,
}

/// The 95 % interval of one point of series `series` at `x`, in the chart's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorBar {
    pub series: usize,
    pub x: f64,
    pub low: f64,
    pub high: f64,
}

/// The 95 % interval of a point's x value (bandwidth under load: each point's x is itself a
/// median) at height `y` of series `series`, drawn as a horizontal whisker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XErrorBar {
    pub series: usize,
    pub y: f64,
    pub low: f64,
    pub high: f64,
}

/// The opacity of error bars and bands: the one attribute value nothing else in a line chart
/// uses, so tests can count them.
pub const ERROR_BAR_OPACITY: f64 = 0.55;
const BAND_OPACITY: f64 = 0.12;

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: XScale,
    /// Start the y axis at zero (bandwidth) rather than just below the smallest value.
    pub y_from_zero: bool,
    pub series: Vec<Series>,
    pub markers: Vec<Marker>,
    pub width: u32,
    pub height: u32,
    /// Draw y on a log-10 axis (ticks at 1, 10, 100, ... with light lines at 2..9 of each
    /// decade); values must be positive.
    pub y_log: bool,
    /// 95 % intervals, drawn as error bars (and a band along a line series).
    pub errors: Vec<ErrorBar>,
    /// 95 % intervals of x values, drawn as horizontal error bars (no band).
    pub x_errors: Vec<XErrorBar>,
    /// Points (series index, x) whose figure is disturbed: drawn hollow, with a legend entry.
    pub disturbed: Vec<(usize, f64)>,
    /// Text size relative to the default (1.0); the phone layout draws larger text.
    pub text_scale: f64,
}

impl LineChart {
    /// A chart with the report's default size (760 x 380 px) and no series yet.
    pub fn new(title: &str, x_label: &str, y_label: &str, x_scale: XScale) -> LineChart {
        LineChart {
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            x_scale,
            y_from_zero: false,
            series: Vec::new(),
            markers: Vec::new(),
            width: 1000,
            height: 420,
            y_log: false,
            errors: Vec::new(),
            x_errors: Vec::new(),
            disturbed: Vec::new(),
            text_scale: 1.0,
        }
    }

    /// The same chart laid out for a phone (about 420 px wide): drawn 420 units wide with
    /// text 1.3 times larger, so that scaled to a 420 px screen's content width (~375 px) the
    /// smallest text (tick labels) stays at about 12 px.
    pub fn narrow(&self) -> LineChart {
        LineChart {
            width: 420,
            height: 360,
            text_scale: 1.3,
            ..self.clone()
        }
    }

    /// A font size scaled by `text_scale`.
    fn px(&self, size: u32) -> f64 {
        size as f64 * self.text_scale
    }
}

/// One entry of the legend row.
#[derive(Clone, Debug, PartialEq)]
enum Entry {
    /// Series `i`: a coloured stroke.
    Series(usize),
    /// The error bar: a grey whisker.
    Interval,
    /// A hollow point: a disturbed figure.
    Disturbed,
}

const LEGEND_ROW: u32 = 20;

/// The height of one legend row at the chart's text size.
fn legend_row(c: &LineChart) -> u32 {
    (LEGEND_ROW as f64 * c.text_scale).round() as u32
}
const LEGEND_CHAR_PX: u32 = 6;

/// Legend rows: entries (what, name, x offset) wrapped to the chart width.
fn legend_layout(
    names: &[(Entry, String)],
    width: u32,
    scale: f64,
) -> Vec<Vec<(Entry, String, u32)>> {
    let left = if width < 600 { 10 } else { 60 };
    let char_px = (LEGEND_CHAR_PX as f64 * scale).round() as u32;
    let mut rows: Vec<Vec<(Entry, String, u32)>> = vec![Vec::new()];
    let mut x = left;
    for (e, name) in names {
        let w = 26 + char_px * name.chars().count() as u32 + 12;
        if x + w > width.saturating_sub(10) && !rows.last().unwrap().is_empty() {
            rows.push(Vec::new());
            x = left;
        }
        rows.last_mut()
            .unwrap()
            .push((e.clone(), name.to_string(), x));
        x += w;
    }
    rows
}

/// Renders the chart to an SVG string.
pub fn line_chart(c: &LineChart) -> Result<String, ChartError> {
    let to_x = |x: f64| match c.x_scale {
        XScale::Log2Bytes => x.max(1.0).log2(),
        XScale::Linear => x,
    };
    let pts: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    if pts.is_empty() {
        return Err(ChartError::new(&c.title, "no data points"));
    }
    let (mut x0, mut x1) = pts
        .iter()
        .map(|p| p.0)
        .chain(c.x_errors.iter().flat_map(|e| [e.low, e.high]))
        .filter(|x| x.is_finite())
        .fold((f64::MAX, f64::MIN), |(a, b), x| {
            (a.min(to_x(x)), b.max(to_x(x)))
        });
    let (ymin, ymax) = pts
        .iter()
        .map(|p| p.1)
        .chain(c.errors.iter().flat_map(|e| [e.low, e.high]))
        .filter(|v| v.is_finite())
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if c.y_log && ymin <= 0.0 {
        return Err(ChartError::new(
            &c.title,
            "a log axis needs positive values",
        ));
    }
    match c.x_scale {
        XScale::Log2Bytes => {
            x0 = x0.floor();
            x1 = x1.ceil().max(x0 + 1.0);
        }
        XScale::Linear => {
            let pad = ((x1 - x0) * 0.04).max(if x1 == x0 { 1.0 } else { 0.0 });
            x0 = if x0 >= 0.0 && x0 - pad < 0.0 {
                0.0
            } else {
                x0 - pad
            };
            x1 += pad;
        }
    }
    let (y0, y1) = if c.y_log {
        // Whole decades below, a little room above; at least one decade shown.
        // The top is raised to the next decade when that is near (within x2), so the
        // largest values sit under a labelled tick.
        let lo = ymin.log10().floor();
        let mut hi = (ymax * 1.15).log10().max(lo + 1.0);
        if hi.ceil() - hi < 2f64.log10() {
            hi = hi.ceil() + 0.02;
        }
        (lo, hi)
    } else {
        let y1 = if ymax > 0.0 { ymax * 1.08 } else { 1.0 };
        let y0 = if c.y_from_zero || ymin <= 0.0 {
            0.0_f64.min(ymin)
        } else {
            ymin * 0.85
        };
        (y0, y1)
    };
    let y1 = marker_headroom(c, &pts, (x0, x1), (y0, y1), &to_x);
    let mut names: Vec<(Entry, String)> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (Entry::Series(i), s.name.clone()))
        .collect();
    if !c.errors.is_empty() || !c.x_errors.is_empty() {
        names.push((Entry::Interval, "95 % interval of the median".into()));
    }
    if !c.disturbed.is_empty() {
        names.push((
            Entry::Disturbed,
            "hollow: disturbed (retakes ran out)".into(),
        ));
    }
    let legend = legend_layout(&names, c.width, c.text_scale);
    let legend_h = legend_row(c) * legend.len() as u32 + 8;

    let mut buf = String::new();
    {
        let root =
            SVGBackend::with_string(&mut buf, (c.width, c.height + legend_h)).into_drawing_area();
        draw(&root, c, (x0, x1), (y0, y1), &to_x, &legend)
            .map_err(|e| ChartError::new(&c.title, e))?;
        root.present().map_err(|e| ChartError::new(&c.title, e))?;
    }
    Ok(buf)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// The top of the y range raised, when needed, so that no point or interval lies under a
/// marker's label (drawn at the top of the plot, right of its line): the label band is
/// estimated in pixels from the chart's size and text size and turned into axis units.
/// Charts whose points stay clear of every label keep their range unchanged.
fn marker_headroom(
    c: &LineChart,
    pts: &[(f64, f64)],
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    to_x: &dyn Fn(f64) -> f64,
) -> f64 {
    // The plot's size in pixels: the canvas less margins, caption and axis label areas.
    let plot_w = c.width as f64 - 14.0 - 24.0 - c.px(62);
    let plot_h = c.height as f64 - 28.0 - c.px(17) * 1.6 - c.px(44);
    if plot_w <= 0.0 || plot_h <= 0.0 || x1 <= x0 {
        return y1;
    }
    // The label's height and a little air, as a fraction of the plot's height.
    let band = ((c.px(13) + 6.0) / plot_h).min(0.5);
    let mut top = f64::MIN;
    for m in &c.markers {
        let mx = to_x(m.x);
        if !(x0..=x1).contains(&mx) {
            continue;
        }
        // About 0.6 em a character, the thin space included.
        let label_w = (m.label.chars().count() + 1) as f64 * c.px(13) * 0.6;
        let right = mx + label_w / plot_w * (x1 - x0);
        let highs = pts.iter().map(|p| (p.0, p.1)).chain(
            c.errors
                .iter()
                .filter(|e| e.high.is_finite())
                .map(|e| (e.x, e.high)),
        );
        for (x, y) in highs {
            let x = to_x(x);
            if x >= mx - (x1 - x0) * 0.01 && x <= right && y.is_finite() {
                top = top.max(to_y(c, y));
            }
        }
    }
    if top == f64::MIN || top <= y1 - band * (y1 - y0) {
        return y1;
    }
    // Solve y1' - band * (y1' - y0) = top.
    (top - band * y0) / (1.0 - band)
}

fn draw(
    root: &DrawingArea<SVGBackend, Shift>,
    c: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    to_x: &dyn Fn(f64) -> f64,
    legend: &[Vec<(Entry, String, u32)>],
) -> DrawResult {
    root.fill(&WHITE)?;
    let (plot_area, legend_area) = root.split_vertically(c.height);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(&c.title, (FONT, c.px(17)).into_font().color(&INK))
        .margin(14)
        .margin_right(24)
        .x_label_area_size(c.px(44).round() as u32)
        .y_label_area_size(c.px(62).round() as u32)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let log2 = c.x_scale == XScale::Log2Bytes;
    // Counts (threads) get integer ticks only.
    let integral = !log2
        && c.series
            .iter()
            .flat_map(|s| &s.points)
            .all(|p| p.0 == p.0.round());
    let x_fmt = |v: &f64| {
        if log2 {
            if (v - v.round()).abs() < 1e-9 {
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
    let x_labels = if log2 || integral {
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
        .label_style((FONT, c.px(13)).into_font().color(&MUTED))
        .axis_desc_style((FONT, c.px(14)).into_font().color(&INK))
        .x_desc(&c.x_label)
        .y_desc(&c.y_label)
        .draw()?;

    if y_log {
        draw_minor_decades(&mut chart, (x0, x1), (y0, y1))?;
    }
    draw_markers(&mut chart, c, (x0, x1), (y0, y1), to_x)?;
    draw_intervals(&mut chart, c, (x0, x1), to_x)?;
    draw_series(&mut chart, c, to_x)?;
    draw_legend(&legend_area, legend, c)
}

/// The y value as drawn: log10 on a log axis.
fn to_y(c: &LineChart, y: f64) -> f64 {
    if c.y_log {
        y.log10()
    } else {
        y
    }
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
    let cap = (y1 - y0) * 0.006 * c.width as f64 / c.height.max(1) as f64;
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

/// The chart's area with its axes.
type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

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
    for m in &c.markers {
        let x = to_x(m.x);
        if !(x0..=x1).contains(&x) {
            continue;
        }
        chart.draw_series(std::iter::once(plotters::element::DashedPathElement::new(
            vec![(x, y0), (x, y1)],
            4,
            4,
            MUTED.mix(0.7).stroke_width(1),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            format!("\u{2009}{}", m.label),
            (x, y1),
            (FONT, c.px(13))
                .into_font()
                .color(&MUTED)
                .pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Top,
                )),
        )))?;
    }
    Ok(())
}

/// The legend under the plot: a coloured stroke and the series name per entry.
fn draw_legend(
    legend_area: &DrawingArea<SVGBackend, Shift>,
    legend: &[Vec<(Entry, String, u32)>],
    c: &LineChart,
) -> DrawResult {
    for (row, entries) in legend.iter().enumerate() {
        let y = (row as u32 * legend_row(c) + legend_row(c) / 2) as i32;
        for (e, name, x) in entries {
            let x = *x as i32;
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
            legend_area.draw(&Text::new(
                name.clone(),
                (x + 26, y),
                (FONT, c.px(13)).into_font().color(&INK).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Center,
                    ),
                ),
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_well_formed, count, has_text};
    use super::*;

    fn sweep_chart() -> LineChart {
        let mut c = LineChart::new(
            "Latency vs working set",
            "working set (bytes)",
            "ns per load",
            XScale::Log2Bytes,
        );
        let sizes = [16384.0, 65536.0, 1048576.0, 16777216.0, 67108864.0];
        c.series.push(Series {
            name: "random, 4 KiB pages".into(),
            points: sizes
                .iter()
                .zip([1.2, 4.0, 12.0, 80.0, 95.0])
                .map(|(&x, y)| (x, y))
                .collect(),
            style: SeriesStyle::LinePoints,
        });
        c.series.push(Series {
            name: "page-local, 4 KiB pages".into(),
            points: sizes
                .iter()
                .zip([1.2, 3.9, 10.0, 55.0, 60.0])
                .map(|(&x, y)| (x, y))
                .collect(),
            style: SeriesStyle::LinePoints,
        });
        c.markers.push(Marker {
            x: 32768.0,
            label: "L1d 32K".into(),
        });
        c.markers.push(Marker {
            x: 1048576.0,
            label: "L2 1M".into(),
        });
        c
    }

    #[test]
    fn log2_chart_has_series_labels_and_markers() {
        let svg = line_chart(&sweep_chart()).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("random, 4 KiB pages"));
        assert!(svg.contains("page-local, 4 KiB pages"));
        assert!(svg.contains("L1d 32K") && svg.contains("L2 1M"));
        // Axis labels are powers of two.
        for l in ["16K", "1M", "64M"] {
            assert!(has_text(&svg, l), "missing tick {l}");
        }
        // One 2 px polyline per series; legend swatches are 3 px.
        assert_eq!(count(&svg, "stroke-width=\"2\" points"), 2);
        assert_eq!(count(&svg, "stroke-width=\"3\" points"), 2);
        assert_eq!(count(&svg, "<circle"), 10);
    }

    /// The latency chart's y axis is logarithmic (decade ticks 1, 10, 100) and
    /// every interval is drawn as an error bar (a whisker and two caps).
    #[test]
    fn log_axis_and_error_bars() {
        let mut c = sweep_chart();
        c.y_log = true;
        c.series[0].points[4].1 = 200.0;
        for (i, &(x, y)) in c.series[0].points.clone().iter().enumerate().take(4) {
            c.errors.push(ErrorBar {
                series: 0,
                x,
                low: y * 0.95,
                high: y * 1.05,
            });
            if i == 3 {
                c.disturbed.push((0, x));
            }
        }
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        for t in ["1", "10", "100"] {
            assert!(has_text(&svg, t), "missing decade tick {t}");
        }
        // No in-between labels on a log axis.
        assert!(!has_text(&svg, "50") && !has_text(&svg, "150"));
        assert_eq!(
            count(&svg, &format!("opacity=\"{ERROR_BAR_OPACITY}\"")),
            4 * 3
        );
        // The band along the line.
        assert_eq!(count(&svg, "<polygon"), 1);
        // One disturbed point: hollow (a white disc and a ring), and a legend entry.
        assert!(svg.contains("hollow: disturbed (retakes ran out)"));
        assert!(svg.contains("95 % interval of the median"));
        assert_eq!(count(&svg, "<circle"), 10 - 1 + 2 + 1);
    }

    /// A point whose x is itself a median (bandwidth under load) gets a horizontal
    /// whisker with two caps; the x range widens to hold it, and no band is drawn for it.
    #[test]
    fn x_intervals_are_horizontal_whiskers() {
        let mut c = LineChart::new("t", "MB/s", "ns", XScale::Linear);
        c.series.push(Series {
            name: "read".into(),
            points: vec![(100.0, 80.0), (5000.0, 120.0)],
            style: SeriesStyle::LinePoints,
        });
        c.x_errors.push(XErrorBar {
            series: 0,
            y: 120.0,
            low: 4000.0,
            high: 9000.0,
        });
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        assert_eq!(count(&svg, &format!("opacity=\"{ERROR_BAR_OPACITY}\"")), 3);
        assert_eq!(count(&svg, "<polygon"), 0);
        assert!(svg.contains("95 % interval of the median"));
        // 9000 lies beyond the last point, so the axis reaches it.
        assert!(has_text(&svg, "9000"), "{svg}");
    }

    #[test]
    fn log_axis_refuses_non_positive_values() {
        let mut c = sweep_chart();
        c.y_log = true;
        c.series[0].points[0].1 = 0.0;
        assert!(line_chart(&c).is_err());
    }

    /// The phone layout draws its text 1.3 times larger on a 420-unit canvas.
    #[test]
    fn narrow_layout_scales_text() {
        let c = sweep_chart().narrow();
        assert_eq!(c.width, 420);
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        assert!(svg.starts_with("<svg width=\"420\""));
        let wide = line_chart(&sweep_chart()).unwrap();
        let smallest = |s: &str| {
            s.match_indices("font-size=\"")
                .map(|(i, _)| {
                    let rest = &s[i + 11..];
                    rest[..rest.find('"').unwrap()].parse::<f64>().unwrap()
                })
                .fold(f64::MAX, f64::min)
        };
        assert!(
            smallest(&svg) >= 1.29 * smallest(&wide),
            "{}",
            smallest(&svg)
        );
    }

    /// A marker label at the top right of its line is never drawn over points (the
    /// L3 label sat on the last DRAM points at the right edge of the phone chart): the y range
    /// grows until the highest point under the label is below the label's band, and a chart
    /// whose points stay clear keeps its range.
    #[test]
    fn marker_labels_get_headroom_over_points() {
        let mut c = LineChart::new("t", "x", "y", XScale::Log2Bytes);
        c.y_log = true;
        c.series.push(Series {
            name: "s".into(),
            points: (12..=28)
                .map(|k| {
                    let x = 2f64.powi(k);
                    (x, if k < 25 { 5.0 } else { 250.0 })
                })
                .collect(),
            style: SeriesStyle::LinePoints,
        });
        c.markers.push(Marker {
            x: 2f64.powi(25),
            label: "L3 32M".into(),
        });
        let pts: Vec<(f64, f64)> = c.series[0].points.clone();
        let to_x = |x: f64| x.log2();
        for chart in [c.clone(), c.narrow()] {
            let y1 = 250f64.log10() + 0.01;
            let raised = marker_headroom(&chart, &pts, (12.0, 28.0), (0.0, y1), &to_x);
            assert!(raised > y1 + 0.1, "{raised}");
            // A marker over low points leaves the range alone.
            let mut low = chart.clone();
            low.markers[0].x = 2f64.powi(13);
            assert_eq!(
                marker_headroom(&low, &pts, (12.0, 28.0), (0.0, y1), &to_x),
                y1
            );
        }
        assert_well_formed(&line_chart(&c.narrow()).unwrap());
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(
            line_chart(&sweep_chart()).unwrap(),
            line_chart(&sweep_chart()).unwrap()
        );
    }

    #[test]
    fn escapes_names() {
        let mut c = sweep_chart();
        c.series[0].name = "a<b & c".into();
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("a&lt;b &amp; c"));
    }

    #[test]
    fn empty_chart_is_an_error() {
        let c = LineChart::new("t", "x", "y", XScale::Linear);
        assert!(line_chart(&c).is_err());
    }

    #[test]
    fn linear_scaling_snapshot() {
        let mut c = LineChart::new("Scaling", "threads", "MB/s", XScale::Linear);
        c.y_from_zero = true;
        c.width = 400;
        c.height = 240;
        c.series.push(Series {
            name: "node 0".into(),
            points: vec![(1.0, 6286.0), (2.0, 9000.0), (4.0, 10500.0)],
            style: SeriesStyle::LinePoints,
        });
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        insta::assert_snapshot!(svg);
    }
}
