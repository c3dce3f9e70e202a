//! Line charts: latency against working set (log-2 byte axis with cache-size
//! markers, log-10 latency axis so 1 ns caches and 200 ns DRAM both show), bandwidth against
//! thread count, latency against bandwidth under load. One chart, several named series, each
//! point's 95 % interval drawn as an error bar (and a band along a line), disturbed points
//! drawn hollow, a legend drawn below the plot. This file holds what to draw and the axes'
//! ranges; its `draw` module draws it.

mod draw;

use plotters::style::Color;

use super::frame::{self, Canvas, EntrySize, Legend, Swatch};
use super::{extent, series_color, ChartError};

/// How the x axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XScale {
    /// x values are byte counts drawn on a log-2 axis labelled `32K`, `1M`, `64M`.
    Log2Bytes,
    /// x values drawn as they are.
    Linear,
}

/// One named curve, drawn as a line through its points; points in drawing order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
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

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// Title, axis texts, size and text scale.
    pub canvas: Canvas,
    pub x_scale: XScale,
    /// Start the y axis at zero (bandwidth) rather than just below the smallest value.
    pub y_from_zero: bool,
    pub series: Vec<Series>,
    pub markers: Vec<Marker>,
    /// Draw y on a log-10 axis (ticks at 1, 10, 100, ... with light lines at 2..9 of each
    /// decade); values must be positive.
    pub y_log: bool,
    /// 95 % intervals, drawn as error bars (and a band along a line series).
    pub errors: Vec<ErrorBar>,
    /// 95 % intervals of x values, drawn as horizontal error bars (no band).
    pub x_errors: Vec<XErrorBar>,
    /// Points (series index, x) whose figure is disturbed: drawn hollow, with a legend entry.
    pub disturbed: Vec<(usize, f64)>,
}

impl LineChart {
    /// A chart with the report's default size ([`Canvas::new`]) and no series yet.
    pub fn new(title: &str, x_label: &str, y_label: &str, x_scale: XScale) -> LineChart {
        LineChart {
            canvas: Canvas::new(title, x_label, y_label),
            x_scale,
            y_from_zero: false,
            series: Vec::new(),
            markers: Vec::new(),
            y_log: false,
            errors: Vec::new(),
            x_errors: Vec::new(),
            disturbed: Vec::new(),
        }
    }

    /// The same chart laid out for a phone ([`Canvas::narrow`]).
    pub fn narrow(&self) -> LineChart {
        LineChart {
            canvas: self.canvas.narrow(),
            ..self.clone()
        }
    }
}

/// The legend: each series (a coloured stroke), then the interval whisker and the hollow
/// point when drawn, wrapped to the chart's width.
fn legend(c: &LineChart) -> Legend {
    let mut items: Vec<(Swatch, String)> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                Swatch::Line(series_color(i).stroke_width(3), None),
                s.name.clone(),
            )
        })
        .collect();
    if !c.errors.is_empty() || !c.x_errors.is_empty() {
        items.push((Swatch::Whisker, "95 % interval of the median".into()));
    }
    if !c.disturbed.is_empty() {
        items.push((Swatch::Ring, "hollow: disturbed (retakes ran out)".into()));
    }
    let size = EntrySize {
        swatch: 20,
        lead: 26,
        char_px: c.canvas.px(6).round(),
        gap: 12,
        top: 0,
    };
    Legend::new(items, &c.canvas, size)
}

/// The octaves (whole log2 values) from `x0` to `x1` whose labels a byte axis shows: the
/// first, then every `step`-th, the smallest power of two whose labels (the widest of them
/// at 0.6 em a character, with half an em between) fit apart on the plot's width, and the
/// last; a label that would crowd the last is left out. A 17-octave sweep keeps every label on a 1000 px chart and
/// every fourth on a phone's 420 px.
fn octave_labels(c: &LineChart, (x0, x1): (f64, f64)) -> Vec<i64> {
    let (first, last) = (x0.round() as i64, x1.round() as i64);
    if last <= first {
        return vec![first];
    }
    let em = c.canvas.px(13);
    let widest = (first..=last)
        .map(|o| super::bytes_short(2f64.powi(o as i32)).chars().count())
        .max()
        .unwrap_or(1);
    let label_px = widest as f64 * em * 0.6 + em / 2.0;
    let octave_px = c.canvas.plot_width() / (last - first) as f64;
    let step = ((label_px / octave_px).ceil().max(1.0) as u64).next_power_of_two() as i64;
    let mut v: Vec<i64> = (first..last)
        .step_by(step as usize)
        .filter(|&o| o == first || last - o >= step)
        .collect();
    v.push(last);
    v
}

/// The x value as drawn: log2 on a byte axis.
fn to_x(c: &LineChart, x: f64) -> f64 {
    match c.x_scale {
        XScale::Log2Bytes => x.max(1.0).log2(),
        XScale::Linear => x,
    }
}

/// The y value as drawn: log10 on a log axis.
fn to_y(c: &LineChart, y: f64) -> f64 {
    if c.y_log {
        y.log10()
    } else {
        y
    }
}

/// Renders the chart to an SVG string.
pub fn line_chart(c: &LineChart) -> Result<String, ChartError> {
    let pts: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    if pts.is_empty() {
        return Err(ChartError::new(&c.canvas.title, "no data points"));
    }
    let x = x_range(c, &pts);
    let (y0, y1) = y_range(c, &pts)?;
    let y = (y0, marker_headroom(c, &pts, x, (y0, y1)));
    frame::plot_svg(&c.canvas, &legend(c), (x, y), |chart, area| {
        draw::draw(chart, area, c, (x, y))
    })
}

/// The x range as drawn: whole powers of two on a byte axis, a little padding on a linear one
/// (never below zero when the values are not).
fn x_range(c: &LineChart, pts: &[(f64, f64)]) -> (f64, f64) {
    let xs = pts.iter().map(|p| p.0);
    let (x0, x1) = extent(xs.chain(c.x_errors.iter().flat_map(|e| [e.low, e.high])));
    let (x0, x1) = (to_x(c, x0), to_x(c, x1));
    match c.x_scale {
        XScale::Log2Bytes => (x0.floor(), x1.ceil().max(x0.floor() + 1.0)),
        XScale::Linear => {
            let pad = ((x1 - x0) * 0.04).max(if x1 == x0 { 1.0 } else { 0.0 });
            let lo = x0 - pad;
            (if x0 >= 0.0 { lo.max(0.0) } else { lo }, x1 + pad)
        }
    }
}

/// The y range as drawn: whole decades below on a log axis and a little room above (at least
/// one decade; the top raised to the next decade when that is near, within x2, so the largest
/// values sit under a labelled tick); on a linear axis from zero or just below the smallest.
fn y_range(c: &LineChart, pts: &[(f64, f64)]) -> Result<(f64, f64), ChartError> {
    let ys = pts.iter().map(|p| p.1);
    let (ymin, ymax) = extent(ys.chain(c.errors.iter().flat_map(|e| [e.low, e.high])));
    if c.y_log && ymin <= 0.0 {
        return Err(ChartError::new(
            &c.canvas.title,
            "a log axis needs positive values",
        ));
    }
    if c.y_log {
        let lo = ymin.log10().floor();
        let mut hi = (ymax * 1.15).log10().max(lo + 1.0);
        if hi.ceil() - hi < 2f64.log10() {
            hi = hi.ceil() + 0.02;
        }
        return Ok((lo, hi));
    }
    let y1 = if ymax > 0.0 { ymax * 1.08 } else { 1.0 };
    let y0 = if c.y_from_zero || ymin <= 0.0 {
        0.0_f64.min(ymin)
    } else {
        ymin * 0.85
    };
    Ok((y0, y1))
}

/// A marker label's width in pixels: about 0.6 em a character, the thin space before it
/// included.
fn label_px(c: &LineChart, label: &str) -> f64 {
    (label.chars().count() + 1) as f64 * c.canvas.px(13) * 0.6
}

/// The height of one row of marker labels in pixels: the text and a little air.
pub(super) fn marker_row_px(c: &LineChart) -> f64 {
    c.canvas.px(13) + 6.0
}

/// The row each marker's label is drawn in (0 at the top of the plot, each label right of
/// its line): taken in x order, a label that would run into one already placed goes into
/// the first row below where it fits (on a phone a knee an octave below its cache size
/// wrote "L1 knee" over "L1 32K"). Markers outside the x range keep row 0 and are not drawn.
pub(super) fn marker_rows(c: &LineChart, (x0, x1): (f64, f64)) -> Vec<usize> {
    let mut rows = vec![0; c.markers.len()];
    if x1 <= x0 {
        return rows;
    }
    let mut order: Vec<usize> = (0..c.markers.len()).collect();
    order.sort_by(|&a, &b| c.markers[a].x.total_cmp(&c.markers[b].x));
    // The right end of the last label in each row, pixels from the plot's left edge.
    let mut ends: Vec<f64> = Vec::new();
    for i in order {
        let mx = to_x(c, c.markers[i].x);
        if !(x0..=x1).contains(&mx) {
            continue;
        }
        let left = (mx - x0) / (x1 - x0) * c.canvas.plot_width();
        let right = left + label_px(c, &c.markers[i].label);
        let row = ends.iter().position(|&e| e < left).unwrap_or(ends.len());
        match ends.get_mut(row) {
            Some(e) => *e = right,
            None => ends.push(right),
        }
        rows[i] = row;
    }
    rows
}

/// The top of the y range raised, when needed, so that no point or interval lies under a
/// marker's label (drawn at the top of the plot, right of its line, in its row of
/// [`marker_rows`]): the label band is estimated in pixels from the chart's size and text
/// size and turned into axis units. Charts whose points stay clear of every label keep their
/// range unchanged.
fn marker_headroom(
    c: &LineChart,
    pts: &[(f64, f64)],
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> f64 {
    let to_x = |x: f64| to_x(c, x);
    // The plot's size in pixels: the canvas less margins, caption and axis label areas.
    let plot_w = c.canvas.plot_width();
    let plot_h = c.canvas.height as f64 - 28.0 - c.canvas.px(17) * 1.6 - c.canvas.px(44);
    if plot_w <= 0.0 || plot_h <= 0.0 || x1 <= x0 {
        return y1;
    }
    let rows = marker_rows(c, (x0, x1));
    let mut raised = y1;
    for (m, row) in c.markers.iter().zip(rows) {
        let mx = to_x(m.x);
        if !(x0..=x1).contains(&mx) {
            continue;
        }
        // The label's rows and a little air, as a fraction of the plot's height.
        let band = ((row + 1) as f64 * marker_row_px(c) / plot_h).min(0.5);
        let right = mx + label_px(c, &m.label) / plot_w * (x1 - x0);
        let highs = pts.iter().map(|p| (p.0, p.1)).chain(
            c.errors
                .iter()
                .filter(|e| e.high.is_finite())
                .map(|e| (e.x, e.high)),
        );
        let top = highs
            .filter(|&(x, y)| {
                let x = to_x(x);
                x >= mx - (x1 - x0) * 0.01 && x <= right && y.is_finite()
            })
            .map(|(_, y)| to_y(c, y))
            .fold(f64::MIN, f64::max);
        if top > y1 - band * (y1 - y0) {
            // Solve y1' - band * (y1' - y0) = top.
            raised = raised.max((top - band * y0) / (1.0 - band));
        }
    }
    raised
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_well_formed, count, has_text};
    use super::*;

    fn series(name: &str, points: Vec<(f64, f64)>) -> Series {
        let name = name.into();
        Series { name, points }
    }

    fn marker(octave: i32, label: &str) -> Marker {
        Marker {
            x: 2f64.powi(octave),
            label: label.into(),
        }
    }

    fn sweep_chart() -> LineChart {
        let t = (
            "Latency vs working set",
            "working set (bytes)",
            "ns per load",
        );
        let mut c = LineChart::new(t.0, t.1, t.2, XScale::Log2Bytes);
        let sizes = [14, 16, 20, 24, 26].map(|o| 2f64.powi(o));
        let curve = |ys: [f64; 5]| sizes.into_iter().zip(ys).collect();
        c.series.push(series(
            "random, 4 KiB pages",
            curve([1.2, 4.0, 12.0, 80.0, 95.0]),
        ));
        c.series.push(series(
            "page-local, 4 KiB pages",
            curve([1.2, 3.9, 10.0, 55.0, 60.0]),
        ));
        c.markers = vec![marker(15, "L1d 32K"), marker(20, "L2 1M")];
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
        assert_eq!(line_chart(&sweep_chart()).unwrap(), svg, "deterministic");
    }

    /// The latency chart's y axis is logarithmic (decade ticks 1, 10, 100) and
    /// every interval is drawn as an error bar (a whisker and two caps).
    #[test]
    fn log_axis_and_error_bars() {
        let mut c = sweep_chart();
        c.y_log = true;
        c.series[0].points[4].1 = 200.0;
        for &(x, y) in &c.series[0].points[..4] {
            let (low, high) = (y * 0.95, y * 1.05);
            c.errors.push(ErrorBar {
                series: 0,
                x,
                low,
                high,
            });
        }
        c.disturbed.push((0, c.series[0].points[3].0));
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        for t in ["1", "10", "100"] {
            assert!(has_text(&svg, t), "missing decade tick {t}");
        }
        // No in-between labels on a log axis.
        assert!(!has_text(&svg, "50") && !has_text(&svg, "150"));
        let bars = format!("opacity=\"{ERROR_BAR_OPACITY}\"");
        assert_eq!(count(&svg, &bars), 4 * 3);
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
        c.series
            .push(series("read", vec![(100.0, 80.0), (5000.0, 120.0)]));
        let (y, low, high) = (120.0, 4000.0, 9000.0);
        c.x_errors.push(XErrorBar {
            series: 0,
            y,
            low,
            high,
        });
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        assert_eq!(count(&svg, &format!("opacity=\"{ERROR_BAR_OPACITY}\"")), 3);
        assert_eq!(count(&svg, "<polygon"), 0);
        assert!(svg.contains("95 % interval of the median"));
        // 9000 lies beyond the last point, so the axis reaches it.
        assert!(has_text(&svg, "9000"), "{svg}");
    }

    /// Nothing to draw, or a log axis over a value that is not positive, is an error; names
    /// are escaped.
    #[test]
    fn bad_input_is_an_error_and_names_are_escaped() {
        assert!(line_chart(&LineChart::new("t", "x", "y", XScale::Linear)).is_err());
        let mut c = sweep_chart();
        c.series[0].name = "a<b & c".into();
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("a&lt;b &amp; c"));
        c.y_log = true;
        c.series[0].points[0].1 = 0.0;
        assert!(line_chart(&c).is_err());
    }

    /// A byte axis labels only the octaves whose labels fit apart, the first and last always:
    /// on a phone a 4 KiB to 512 MiB sweep keeps every fourth (its 14 labels ran into each
    /// other at 420 px), on the wide chart every one; the unlabelled octaves keep their ticks.
    /// The phone layout draws its text 1.3 times larger on a 420-unit canvas.
    #[test]
    fn byte_axis_labels_are_thinned_to_fit_and_phone_text_is_larger() {
        let mut c = LineChart::new("t", "working set", "ns", XScale::Log2Bytes);
        let points = (12..=29).map(|o| (2f64.powi(o), 1.0 + o as f64)).collect();
        c.series.push(series("s", points));
        let all: Vec<i64> = (12..=29).collect();
        assert_eq!(octave_labels(&c, (12.0, 29.0)), all);
        let n = c.narrow();
        assert_eq!(octave_labels(&n, (12.0, 29.0)), [12, 16, 20, 24, 29]);
        let svg = line_chart(&n).unwrap();
        for shown in ["4K", "64K", "1M", "16M", "512M"] {
            assert!(has_text(&svg, shown), "{shown}");
        }
        for hidden in ["8K", "256M"] {
            assert!(!has_text(&svg, hidden), "{hidden}");
        }
        let wide = line_chart(&c).unwrap();
        assert!(has_text(&wide, "8K") && has_text(&wide, "256M"));
        assert_well_formed(&svg);
        assert!(svg.starts_with("<svg width=\"420\""));
        let smallest = |s: &str| {
            (s.split("font-size=\"").skip(1))
                .map(|r| r[..r.find('"').unwrap()].parse::<f64>().unwrap())
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
        let pts: Vec<(f64, f64)> = (12..=28)
            .map(|k| (2f64.powi(k), if k < 25 { 5.0 } else { 250.0 }))
            .collect();
        c.series.push(series("s", pts.clone()));
        c.markers.push(marker(25, "L3 32M"));
        let y1 = 250f64.log10() + 0.01;
        for chart in [c.clone(), c.narrow()] {
            let raised = marker_headroom(&chart, &pts, (12.0, 28.0), (0.0, y1));
            assert!(raised > y1 + 0.1, "{raised}");
            // A marker over low points leaves the range alone.
            let mut low = chart.clone();
            low.markers[0].x = 2f64.powi(13);
            assert_eq!(marker_headroom(&low, &pts, (12.0, 28.0), (0.0, y1)), y1);
        }
        assert_well_formed(&line_chart(&c.narrow()).unwrap());
    }

    /// Marker labels that would run into each other are drawn in rows: on a phone a knee
    /// an octave below its cache size wrote "L1 knee" over "L1 32K"; a label with room stays
    /// at the top, and the y range makes room for the lower row over high points.
    #[test]
    fn crowded_marker_labels_take_rows() {
        let mut c = sweep_chart().narrow();
        let labels = [
            (14, "L1 knee"),
            (15, "L1 32K"),
            (16, "L2 knee"),
            (22, "L3 4M"),
        ];
        c.markers = labels.iter().map(|&(o, l)| marker(o, l)).collect();
        assert_eq!(marker_rows(&c, (12.0, 28.0)), [0, 1, 2, 0]);
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        let y_of = |label: &str| {
            let at = svg.find(&format!("\u{2009}{label}")).unwrap();
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let y = &tag[tag.find(" y=\"").unwrap() + 4..];
            y[..y.find('"').unwrap()].parse::<i32>().unwrap()
        };
        assert!(y_of("L1 32K") > y_of("L1 knee") && y_of("L2 knee") > y_of("L1 32K"));
        assert_eq!(y_of("L3 4M"), y_of("L1 knee"));
        // Points under the third row's label raise the range more than under the first's.
        let pts: Vec<(f64, f64)> = (12..=28).map(|k| (2f64.powi(k), 100.0)).collect();
        let head = |c: &LineChart| marker_headroom(c, &pts, (12.0, 28.0), (0.0, 2.0));
        let mut top_only = c.clone();
        top_only.markers.truncate(1);
        assert!(head(&c) > head(&top_only) && head(&top_only) > 2.0);
    }

    #[test]
    fn linear_scaling_snapshot() {
        let mut c = LineChart::new("Scaling", "threads", "MB/s", XScale::Linear);
        c.y_from_zero = true;
        (c.canvas.width, c.canvas.height) = (400, 240);
        c.series.push(series(
            "node 0",
            vec![(1.0, 6286.0), (2.0, 9000.0), (4.0, 10500.0)],
        ));
        let svg = line_chart(&c).unwrap();
        assert_well_formed(&svg);
        insta::assert_snapshot!(svg);
    }
}
