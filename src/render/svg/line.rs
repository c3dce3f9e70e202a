//! Line and scatter charts: latency against working set (log-2 byte axis with cache-size
//! markers), bandwidth against thread count, latency against bandwidth under load. One chart,
//! several named series, a legend drawn below the plot (plotters' own legend box sizes itself
//! from a crude text-width estimate and overlaps the curves; a row below the plot does not).

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
        }
    }
}

const LEGEND_ROW: u32 = 20;
const LEGEND_CHAR_PX: u32 = 6;

/// Legend rows: entries (index, name, x offset) wrapped to the chart width.
fn legend_layout(names: &[&str], width: u32) -> Vec<Vec<(usize, String, u32)>> {
    let mut rows: Vec<Vec<(usize, String, u32)>> = vec![Vec::new()];
    let mut x = 60u32;
    for (i, name) in names.iter().enumerate() {
        let w = 26 + LEGEND_CHAR_PX * name.chars().count() as u32 + 12;
        if x + w > width.saturating_sub(10) && !rows.last().unwrap().is_empty() {
            rows.push(Vec::new());
            x = 60;
        }
        rows.last_mut().unwrap().push((i, name.to_string(), x));
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
    let (mut x0, mut x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| {
        (a.min(to_x(p.0)), b.max(to_x(p.0)))
    });
    let (ymin, ymax) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
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
    let y1 = if ymax > 0.0 { ymax * 1.08 } else { 1.0 };
    let y0 = if c.y_from_zero || ymin <= 0.0 {
        0.0_f64.min(ymin)
    } else {
        ymin * 0.85
    };
    let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
    let legend = legend_layout(&names, c.width);
    let legend_h = LEGEND_ROW * legend.len() as u32 + 8;

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

fn draw(
    root: &DrawingArea<SVGBackend, Shift>,
    c: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    to_x: &dyn Fn(f64) -> f64,
    legend: &[Vec<(usize, String, u32)>],
) -> DrawResult {
    root.fill(&WHITE)?;
    let (plot_area, legend_area) = root.split_vertically(c.height);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(&c.title, (FONT, 17).into_font().color(&INK))
        .margin(14)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(62)
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
    let y_fmt = |v: &f64| tick_label(*v);
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
        .y_labels(8)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT, 13).into_font().color(&MUTED))
        .axis_desc_style((FONT, 14).into_font().color(&INK))
        .x_desc(&c.x_label)
        .y_desc(&c.y_label)
        .draw()?;

    draw_markers(&mut chart, c, (x0, x1), (y0, y1), to_x)?;

    draw_series(&mut chart, c, to_x)?;
    draw_legend(&legend_area, legend)
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
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| (to_x(x), y))
            .collect();
        if matches!(s.style, SeriesStyle::Line | SeriesStyle::LinePoints) {
            chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?;
        }
        if matches!(s.style, SeriesStyle::LinePoints | SeriesStyle::Points) {
            chart.draw_series(
                pts.iter()
                    .map(|&p| Circle::new(p, 3, color.filled().stroke_width(1))),
            )?;
        }
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
            (FONT, 12)
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
    legend: &[Vec<(usize, String, u32)>],
) -> DrawResult {
    for (row, entries) in legend.iter().enumerate() {
        let y = (row as u32 * LEGEND_ROW + 10) as i32;
        for (i, name, x) in entries {
            let color = series_color(*i);
            let x = *x as i32;
            legend_area.draw(&PathElement::new(
                vec![(x, y), (x + 20, y)],
                color.stroke_width(3),
            ))?;
            legend_area.draw(&Text::new(
                name.clone(),
                (x + 26, y),
                (FONT, 13)
                    .into_font()
                    .color(&INK)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Center,
                    )),
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
