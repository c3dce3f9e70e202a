//! A strip chart: the distribution of one figure over many hosts, each host a dot on one value
//! axis, the median a vertical line, the hosts that stand out drawn in the accent colour and
//! named (every host's value is in the table above the chart). Drawn with the other charts'
//! primitives (the `frame` module), fixed sizes, font and number labels, so output is
//! deterministic.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::frame::{self, font, text, LEFT_TOP};
use super::{tick_label, ChartError, INK, MUTED, PALETTE};

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
const LEFT: i32 = 16;
const RIGHT: i32 = 16;
const AXIS_Y: i32 = 58;

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
    let span = c.width as i32 - LEFT - RIGHT;
    let x = |v: f64| LEFT + ((v - lo) / (hi - lo) * span as f64).round() as i32;
    let accent = PALETTE[7];
    frame::svg_string(&c.title, (c.width, HEIGHT), |area| {
        let title = format!("{} ({})", c.title, c.unit);
        text(area, title, (LEFT, 4), &font(13.0, &INK, LEFT_TOP))?;
        let axis = vec![(LEFT, AXIS_Y), (LEFT + span, AXIS_Y)];
        frame::stroke(area, axis, MUTED.stroke_width(1), None)?;
        for (v, h) in [
            (lo, HPos::Left),
            (c.median, HPos::Center),
            (hi, HPos::Right),
        ] {
            let style = font(11.0, &MUTED, (h, VPos::Top));
            text(area, tick_label(v), (x(v), AXIS_Y + 6), &style)?;
        }
        let median = vec![(x(c.median), 26), (x(c.median), AXIS_Y + 4)];
        frame::stroke(area, median, INK.stroke_width(1), Some((3, 3)))?;
        for (host, v, out) in c.points.iter().filter(|p| p.1.is_finite()) {
            let (color, r) = if *out { (accent, 5) } else { (PALETTE[0], 4) };
            let dot = Circle::new((x(*v), AXIS_Y - 12), r, color.mix(0.75).filled());
            area.draw(&dot)?;
            if *out {
                let style = font(11.0, &accent, (HPos::Center, VPos::Bottom));
                text(area, host.as_str(), (x(*v), AXIS_Y - 18), &style)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::svg::testing::{assert_well_formed, count, has_text};

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
        assert!(has_text(&svg, "c&lt;"), "{svg}");
        assert!(strip_chart(&StripChart {
            points: vec![],
            ..c
        })
        .is_err());
    }
}
