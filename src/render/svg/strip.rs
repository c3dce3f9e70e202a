//! A strip chart: the distribution of one figure over many hosts, each host a dot on one value
//! axis, the median a vertical line, the hosts that stand out drawn in the accent colour and
//! named. Written as plain SVG text (no plotting backend needed for dots and lines), with the
//! same fixed sizes, font and number labels as the other charts so output is deterministic.

use std::fmt::Write as _;

use crate::render::html::esc;

use super::{tick_label, ChartError, FONT, INK, MUTED, PALETTE};

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct StripChart {
    pub title: String,
    pub unit: String,
    /// (host, value, stands out).
    pub points: Vec<(String, f64, bool)>,
    pub median: f64,
    pub width: u32,
}

const HEIGHT: u32 = 92;
const LEFT: f64 = 16.0;
const RIGHT: f64 = 16.0;
const AXIS_Y: f64 = 58.0;

fn rgb(c: plotters::style::RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// A `<text>` of `body` (escaped) at `x`, `y`, `size` pixels, in `fill`, anchored `anchor`.
fn text(s: &mut String, (x, y): (f64, f64), (size, fill): (u32, &str), anchor: &str, body: &str) {
    let body = esc(body);
    let _ = write!(
        s,
        "<text x=\"{x:.1}\" y=\"{y}\" font-family=\"{FONT}\" font-size=\"{size}\" fill=\"{fill}\" text-anchor=\"{anchor}\">{body}</text>"
    );
}

/// Renders the chart to an SVG string.
pub fn strip_chart(c: &StripChart) -> Result<String, ChartError> {
    let (lo, hi) = super::extent(c.points.iter().map(|p| p.1));
    if lo > hi {
        return Err(ChartError::new(&c.title, "no finite values"));
    }
    let (mut lo, mut hi) = (lo.min(c.median), hi.max(c.median));
    if hi - lo < hi.abs() * 1e-9 + 1e-12 {
        lo -= lo.abs() * 0.05 + 1.0;
        hi += hi.abs() * 0.05 + 1.0;
    }
    let pad = (hi - lo) * 0.06;
    let (lo, hi) = (lo - pad, hi + pad);
    let span = c.width as f64 - LEFT - RIGHT;
    let x = |v: f64| LEFT + (v - lo) / (hi - lo) * span;
    let (ink, muted, dot, accent) = (rgb(INK), rgb(MUTED), rgb(PALETTE[0]), rgb(PALETTE[7]));
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{HEIGHT}\" viewBox=\"0 0 {w} {HEIGHT}\">\
<rect width=\"{w}\" height=\"{HEIGHT}\" fill=\"white\"/>",
        w = c.width
    );
    let title = format!("{} ({})", c.title, c.unit);
    text(&mut s, (LEFT, 16.0), (13, &ink), "start", &title);
    let _ = write!(
        s,
        "<line x1=\"{LEFT}\" y1=\"{AXIS_Y}\" x2=\"{r:.1}\" y2=\"{AXIS_Y}\" stroke=\"{muted}\" stroke-width=\"1\"/>",
        r = LEFT + span
    );
    for (v, anchor) in [(lo, "start"), (c.median, "middle"), (hi, "end")] {
        text(
            &mut s,
            (x(v), AXIS_Y + 16.0),
            (11, &muted),
            anchor,
            &tick_label(v),
        );
    }
    let _ = write!(
        s,
        "<line x1=\"{m:.1}\" y1=\"26\" x2=\"{m:.1}\" y2=\"{y}\" stroke=\"{ink}\" stroke-dasharray=\"3,3\"/>",
        m = x(c.median),
        y = AXIS_Y + 4.0
    );
    for (host, v, out) in c.points.iter().filter(|p| p.1.is_finite()) {
        let (fill, r) = if *out { (&accent, 5.0) } else { (&dot, 3.5) };
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{}\" r=\"{r}\" fill=\"{fill}\" fill-opacity=\"0.75\"><title>{}: {}</title></circle>",
            x(*v),
            AXIS_Y - 12.0,
            esc(host),
            tick_label(*v)
        );
        if *out {
            text(
                &mut s,
                (x(*v), AXIS_Y - 22.0),
                (11, &accent),
                "middle",
                host,
            );
        }
    }
    s.push_str("</svg>");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::svg::testing::{assert_well_formed, count};

    #[test]
    fn dots_median_and_named_outliers() {
        let c = StripChart {
            title: "read bandwidth".into(),
            unit: "MB/s".into(),
            points: vec![
                ("a".into(), 100.0, false),
                ("b".into(), 101.0, false),
                ("c<".into(), 55.0, true),
            ],
            median: 100.0,
            width: 600,
        };
        let svg = strip_chart(&c).unwrap();
        assert_well_formed(&svg);
        assert_eq!(count(&svg, "<circle"), 3);
        assert!(svg.contains(">c&lt;</text>"), "{svg}");
        assert!(strip_chart(&StripChart {
            points: vec![],
            ..c
        })
        .is_err());
    }
}
