//! SVG charts for the HTML report: a line chart (log-2 working-set axis or linear, named series,
//! vertical markers), a heatmap (node x node or CPU x CPU with the value printed in each cell,
//! optionally beside a second one such as SLIT/HMAT), a horizontal bar chart and a log-x
//! histogram. Each takes a small plain description of what to draw and returns an SVG string;
//! none knows about numascope's result types (the HTML report maps results onto these
//! descriptions).
//!
//! Output is deterministic: fixed pixel sizes, generic font families, numbers formatted by the
//! helpers below, so snapshot tests are stable. Drawing uses plotters' SVG backend.

pub mod bar;
mod frame;
pub mod heatmap;
pub mod histogram;
pub mod line;
pub mod strip;

pub use bar::{bar_chart, BarChart, BarMark};
pub use frame::Canvas;
pub use heatmap::{heatmap, Heatmap};
pub use histogram::{histogram, HistBin, HistMark, Histogram, MarkStyle};
pub use line::XErrorBar;
pub use line::{line_chart, ErrorBar, LineChart, Marker, Series, XScale};

use plotters::style::RGBColor;

/// A chart (its title) could not be drawn, and why: a plotters backend error, or a
/// description with nothing in it.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the chart '{0}': {1}")]
pub struct ChartError(String, String);

impl ChartError {
    pub(crate) fn new(title: &str, reason: impl std::fmt::Display) -> ChartError {
        ChartError(title.to_string(), reason.to_string())
    }
}

/// Series colours: a restrained, colour-blind-friendly qualitative palette (Okabe-Ito order,
/// darkened a little for white backgrounds).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(120, 120, 120),
    RGBColor(160, 40, 40),
];

/// Ink for text and axes.
pub(crate) const INK: RGBColor = RGBColor(40, 44, 52);
/// Lighter ink for grid lines and secondary text.
pub(crate) const MUTED: RGBColor = RGBColor(110, 116, 128);
/// Grid lines.
pub(crate) const GRID: RGBColor = RGBColor(228, 231, 236);
/// The generic font family every chart uses (no font files, no network).
pub(crate) const FONT: &str = "sans-serif";

/// The colour of series `i`.
pub fn series_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The smallest and largest of the finite `values`; (MAX, MIN), the smallest above the
/// largest, when there are none.
pub(crate) fn extent(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    (values.into_iter().filter(|v| v.is_finite()))
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)))
}

/// A byte count as a short power-of-two label: `512`, `32K`, `1M`, `64M`, `2G`, `1.5M`.
pub fn bytes_short(bytes: f64) -> String {
    const UNITS: [(&str, f64); 4] = [
        ("T", 1099511627776.0),
        ("G", 1073741824.0),
        ("M", 1048576.0),
        ("K", 1024.0),
    ];
    for (u, s) in UNITS {
        if bytes >= s {
            return format!("{}{u}", trim_num(bytes / s, 1));
        }
    }
    trim_num(bytes, 0)
}

/// A number with at most `decimals` decimals and no trailing zeros: `12`, `12.5`, `0.25`.
pub fn trim_num(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A measured value with a precision suited to its size: `0.812`, `7.41`, `45.6`, `6286`,
/// `12800`. Used for cell values and axis labels alike so every chart reads the same. A whole
/// number from 10 to 100 (a figure recorded as one, e.g. from an article's table) prints
/// without its decimal, and so does a float one rounding step off it (87.00000000000001 reads
/// `87` beside `86`, not `87.0`); 86.96 keeps its three figures, `87.0`.
pub fn value_label(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        "-".to_string()
    } else if v == 0.0 || a >= 100.0 || (a >= 10.0 && (v - v.round()).abs() < 1e-9 * a) {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// An axis tick label: like [`value_label`] but with trailing zeros trimmed and thousands as
/// `k` above 10000 so narrow axes stay readable (`12.5k`).
pub fn tick_label(v: f64) -> String {
    if v.abs() >= 10000.0 {
        format!("{}k", trim_num(v / 1000.0, 1))
    } else if v.abs() >= 100.0 {
        trim_num(v, 0)
    } else {
        trim_num(v, 2)
    }
}

#[cfg(test)]
pub(crate) mod testing {
    /// The SVG document parsed as XML (balanced tags, escaped text), its root an `<svg>`.
    pub fn assert_well_formed(svg: &str) {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
    }

    /// True when a `<text>` element holds exactly `t` (plotters puts text on its own line).
    pub fn has_text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n</text>"))
    }

    /// How many times `needle` occurs.
    pub fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_short_labels() {
        assert_eq!(bytes_short(512.0), "512");
        assert_eq!(bytes_short(32768.0), "32K");
        assert_eq!(bytes_short(1048576.0), "1M");
        assert_eq!(bytes_short(64.0 * 1048576.0), "64M");
        assert_eq!(bytes_short(1.5 * 1048576.0), "1.5M");
        assert_eq!(bytes_short(2.0 * 1073741824.0), "2G");
    }

    #[test]
    fn value_labels_scale_precision() {
        assert_eq!(value_label(0.8125), "0.812");
        assert_eq!(value_label(7.414), "7.41");
        assert_eq!(value_label(45.63), "45.6");
        assert_eq!(value_label(6286.4), "6286");
        assert_eq!(value_label(f64::NAN), "-");
        assert_eq!(value_label(0.0), "0");
        assert_eq!(value_label(20.0), "20");
        assert_eq!(value_label(87.00000000000001), "87");
        assert_eq!(value_label(86.96), "87.0");
        assert_eq!(value_label(5.0), "5.00");
        assert_eq!(tick_label(12500.0), "12.5k");
        assert_eq!(tick_label(250.0), "250");
        assert_eq!(tick_label(2.5), "2.5");
    }
}
