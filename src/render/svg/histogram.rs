//! A histogram of log-spaced bins (the per-load latency distribution): bars on a log-10 x axis
//! labelled at 1, 2 and 5 of every decade, so bins that are equally wide in ratio are drawn
//! equally wide, and a log-10 count axis, so the tail's single groups stay visible beside a
//! peak of thousands. Vertical marks (percentiles dashed, reference figures solid) are named
//! in a legend row below the plot rather than at their lines: the marks of a narrow
//! distribution sit a few pixels apart and their labels would overlap. Like the other charts
//! it knows nothing of numascope's result types and its output is deterministic.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::frame::{self, Area, Canvas, Chart, DrawResult, EntrySize, Legend, Swatch};
use super::{series_color, tick_label, ChartError, GRID, MUTED, PALETTE};

/// One bin: `low <= x < high`, `count` values in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistBin {
    pub low: f64,
    pub high: f64,
    pub count: u64,
}

/// How a mark's line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkStyle {
    /// A dashed line (a percentile of the drawn values).
    Dashed,
    /// A solid, thicker line (a figure measured another way, to compare with).
    Solid,
}

/// A vertical line at `x` with its legend text, and, when `band` is given, a light band of
/// the mark's colour from its low to its high end (the figure's 95 % interval).
#[derive(Clone, Debug, PartialEq)]
pub struct HistMark {
    pub x: f64,
    pub label: String,
    pub style: MarkStyle,
    pub band: Option<(f64, f64)>,
}

/// What to draw. Bins whose low edge is not positive (a bin of values clamped to 0) have no
/// place on a log axis and are left out: the caller says how many values they held.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Title, axis texts, size and text scale.
    pub canvas: Canvas,
    /// Legend text of the bars.
    pub bins_label: String,
    pub bins: Vec<HistBin>,
    /// Drawn in order, each in the next palette colour that is not the bars' blue.
    pub marks: Vec<HistMark>,
}

impl Histogram {
    /// A histogram with the report's default size (1000 x 420) and no bins yet.
    pub fn new(title: &str, x_label: &str, y_label: &str, bins_label: &str) -> Histogram {
        Histogram {
            canvas: Canvas::new(title, x_label, y_label),
            bins_label: bins_label.to_string(),
            bins: Vec::new(),
            marks: Vec::new(),
        }
    }

    /// The same chart laid out for a phone, as [`super::LineChart::narrow`] does.
    pub fn narrow(&self) -> Histogram {
        Histogram {
            canvas: self.canvas.narrow(),
            ..self.clone()
        }
    }
}

/// The palette entries of the marks, in order: every colour but the bars' blue and the light
/// blue beside it, so no mark is taken for a bar.
const MARK_COLORS: [usize; 6] = [1, 2, 3, 5, 7, 6];

/// The colour of mark `i`.
fn mark_color(i: usize) -> RGBColor {
    PALETTE[MARK_COLORS[i % MARK_COLORS.len()]]
}

/// A mark's line: dashed (6 pixels, 4 apart) for a percentile, solid for a figure.
fn dash(m: &HistMark) -> Option<(u32, u32)> {
    (m.style == MarkStyle::Dashed).then_some((6, 4))
}

/// The legend (the bars, then each mark) wrapped to the chart's width; its character width
/// is a generous estimate, so entries never run into each other.
fn legend(h: &Histogram) -> Legend {
    let bars = Swatch::Square(series_color(0).mix(0.8).filled());
    let marks = h.marks.iter().enumerate().map(|(i, m)| {
        let line = Swatch::Line(mark_color(i).stroke_width(2), dash(m));
        (line, m.label.clone())
    });
    let items = std::iter::once((bars, h.bins_label.clone())).chain(marks);
    let size = EntrySize {
        swatch: 22,
        lead: 30,
        char_px: 6.5 * h.canvas.text_scale,
        gap: 16,
        top: 4,
    };
    Legend::new(items.collect(), &h.canvas, size)
}

/// Renders the histogram to an SVG string.
pub fn histogram(h: &Histogram) -> Result<String, ChartError> {
    let bins: Vec<HistBin> = h
        .bins
        .iter()
        .copied()
        .filter(|b| b.low > 0.0 && b.high > b.low && b.high.is_finite())
        .collect();
    let max = bins.iter().map(|b| b.count).max().unwrap_or(0);
    if max == 0 {
        return Err(ChartError::new(
            &h.canvas.title,
            "no bin with a positive edge holds a value",
        ));
    }
    let lows = bins.iter().map(|b| b.low);
    let highs = bins.iter().map(|b| b.high);
    let marks = h
        .marks
        .iter()
        .map(|m| m.x)
        .filter(|x| x.is_finite() && *x > 0.0);
    let lo = lows.chain(marks.clone()).fold(f64::MAX, f64::min).log10();
    let hi = highs.chain(marks).fold(f64::MIN, f64::max).log10();
    let pad = ((hi - lo) * 0.03).max(0.02);
    let (x0, x1) = (lo - pad, hi + pad);
    // Counts from half a value (so a bin of one shows) to a little above the peak.
    let (y0, y1) = (0.5f64.log10(), (max as f64 * 1.6).log10().max(1.0));
    let (x, y) = ((x0, x1), (y0, y1));
    frame::plot_svg(&h.canvas, &legend(h), (x, y), |chart, area| {
        // One label per whole decade of counts; the x ticks are drawn below.
        let y_labels: frame::Labels = (frame::decade_count(y), &frame::decade_label);
        frame::mesh(chart, &h.canvas, (0, &|_| String::new()), y_labels, false)?;
        draw_x_ticks(chart, area, h, x, y)?;
        draw_bins(chart, &bins, y0)?;
        draw_marks(chart, h, x, y)
    })
}

/// The x ticks (log10 units, value) for a plot `decade_px` pixels per decade whose labels
/// take `char_px` pixels a character: 1, 2 and 5 of each decade when their labels fit apart,
/// else the decades alone; every whole multiple 1..9 when 1, 2 and 5 give fewer than three.
fn ticks(x0: f64, x1: f64, decade_px: f64, char_px: f64) -> Vec<(f64, f64)> {
    let v = ticks_of(x0, x1, &[1.0, 2.0, 5.0]);
    if v.len() < 3 {
        return ticks_of(x0, x1, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    }
    // The closest pair (1 and 2, 5 and 10) is log10(2) of a decade apart.
    let widest = v
        .iter()
        .map(|t| tick_label(t.1).chars().count())
        .max()
        .unwrap_or(0) as f64;
    if 2f64.log10() * decade_px >= widest * char_px + 8.0 {
        v
    } else {
        ticks_of(x0, x1, &[1.0])
    }
}

fn ticks_of(x0: f64, x1: f64, multiples: &[f64]) -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    let mut d = x0.floor() as i32;
    while (d as f64) <= x1.ceil() {
        for &m in multiples {
            let value = m * 10f64.powi(d);
            let x = value.log10();
            if x >= x0 && x <= x1 {
                v.push((x, value));
            }
        }
        d += 1;
    }
    v
}

/// The x ticks (1, 2 and 5 of each decade as they fit) with their grid lines and labels.
fn draw_x_ticks(
    chart: &mut Chart,
    plot_area: &Area,
    h: &Histogram,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> DrawResult {
    let style = frame::font(h.canvas.px(13), &MUTED, (HPos::Center, VPos::Top));
    let (grid, tick) = (GRID.stroke_width(1), MUTED.stroke_width(1));
    let decade_px = h.canvas.plot_width() / (x1 - x0);
    for (x, value) in ticks(x0, x1, decade_px, h.canvas.px(13) * 0.6) {
        frame::stroke(chart.plotting_area(), vec![(x, y0), (x, y1)], grid, None)?;
        let (px, py) = chart.backend_coord(&(x, y0));
        frame::stroke(plot_area, vec![(px, py), (px, py + 5)], tick, None)?;
        frame::text(plot_area, tick_label(value), (px, py + 8), &style)?;
    }
    Ok(())
}

/// The bins as bars from the axis up to their count.
fn draw_bins(chart: &mut Chart, bins: &[HistBin], y0: f64) -> DrawResult {
    let bar = series_color(0);
    for b in bins.iter().filter(|b| b.count > 0) {
        let corners = [
            (b.low.log10(), y0),
            (b.high.log10(), (b.count as f64).log10()),
        ];
        chart.draw_series([
            Rectangle::new(corners, bar.mix(0.8).filled()),
            Rectangle::new(corners, WHITE.stroke_width(1)),
        ])?;
    }
    Ok(())
}

/// The marks: their interval bands, then their lines.
fn draw_marks(
    chart: &mut Chart,
    h: &Histogram,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> DrawResult {
    // The marks' bands first, light, so every line stays visible on top of them.
    for (i, m) in h.marks.iter().enumerate() {
        let Some((lo, hi)) = m.band.filter(|(l, h)| l.is_finite() && *l > 0.0 && h >= l) else {
            continue;
        };
        let (a, b) = (lo.log10().clamp(x0, x1), hi.log10().clamp(x0, x1));
        let band = Rectangle::new([(a, y0), (b, y1)], mark_color(i).mix(0.2).filled());
        chart.plotting_area().draw(&band)?;
    }
    for (i, m) in h.marks.iter().enumerate() {
        if m.x.is_finite() && m.x > 0.0 {
            let (x, style) = (m.x.log10(), mark_color(i).stroke_width(2));
            frame::stroke(
                chart.plotting_area(),
                vec![(x, y0), (x, y1)],
                style,
                dash(m),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_well_formed, count, has_text};
    use super::*;

    fn example() -> Histogram {
        let t = (
            "Per-load latency",
            "ns per load (log scale)",
            "groups (log scale)",
        );
        let mut h = Histogram::new(t.0, t.1, t.2, "groups per bin");
        let edge = |i: i32| 2f64.powf(i as f64 / 8.0);
        let bin = |low, high, count| HistBin { low, high, count };
        // A zero bin (clamped), then bins 2^(64/8) = 256 ns and up.
        h.bins.push(bin(0.0, edge(64), 3));
        for (k, c) in [10u64, 400, 2000, 900, 50, 0, 0, 1].into_iter().enumerate() {
            h.bins
                .push(bin(edge(64 + k as i32), edge(65 + k as i32), c));
        }
        // One slow group far out in the tail.
        h.bins.push(bin(edge(88), edge(89), 1));
        let marks = [
            (300.0, "p50 300 ns"),
            (340.0, "p99 340 ns"),
            (310.0, "chase 310 ns"),
        ];
        h.marks = (marks.into_iter().enumerate())
            .map(|(i, (x, label))| {
                let style = if i < 2 {
                    MarkStyle::Dashed
                } else {
                    MarkStyle::Solid
                };
                HistMark {
                    x,
                    label: label.into(),
                    style,
                    band: None,
                }
            })
            .collect();
        h
    }

    #[test]
    fn bars_marks_ticks_and_legend() {
        let h = example();
        let svg = histogram(&h).unwrap();
        assert_well_formed(&svg);
        // Seven non-empty bins with a positive edge (the clamped one has no place on a log
        // axis), each filled, and the bars' legend swatch.
        let fills = count(&svg, "opacity=\"0.8\" fill=\"#0072B2\"");
        assert_eq!(fills, 7 + 1);
        // The marks' and bars' legend, x ticks, and the count axis's decades 1 to 1000.
        let labels = ["p50 300 ns", "p99 340 ns", "chase 310 ns", "groups per bin"];
        let ticks = ["500", "2000", "1", "10", "100", "1000"];
        for t in labels.into_iter().chain(ticks) {
            assert!(has_text(&svg, t), "missing text {t}");
        }
        assert_eq!(histogram(&h).unwrap(), svg, "deterministic");
        insta::assert_snapshot!(svg);
    }

    #[test]
    fn narrow_layout_and_empty_input() {
        let h = example();
        let n = histogram(&h.narrow()).unwrap();
        assert_well_formed(&n);
        assert!(n.starts_with("<svg width=\"420\""));
        let mut empty = example();
        empty.bins.retain(|b| b.low == 0.0);
        assert!(
            histogram(&empty).is_err(),
            "only a clamped bin: nothing to draw"
        );
        empty.bins.clear();
        assert!(histogram(&empty).is_err());
    }

    #[test]
    fn ticks_are_one_two_five_per_decade() {
        let values = |t: Vec<(f64, f64)>| t.into_iter().map(|t| t.1).collect::<Vec<f64>>();
        let (lo, hi) = (2.0f64.log10(), 3000f64.log10());
        assert_eq!(
            values(ticks(lo, hi, 220.0, 8.0)),
            vec![2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0]
        );
        // A phone's narrow plot: labels of four characters do not fit 1, 2, 5 apart.
        assert_eq!(values(ticks(lo, hi, 70.0, 10.0)), vec![10.0, 100.0, 1000.0]);
        // Less than a decade: every whole multiple.
        assert_eq!(
            values(ticks(250f64.log10(), 600f64.log10(), 900.0, 8.0)),
            vec![300.0, 400.0, 500.0, 600.0]
        );
    }
}
