//! Heatmaps: a grid of coloured cells with the value printed in each (node x node latency or
//! bandwidth, CPU x CPU core-to-core latency), which the report sets side by side (measured beside
//! SLIT or HMAT). Cells are placed in pixel coordinates with plotters' primitives: the grid is
//! categorical, and a cartesian chart would only add axes that have to be hidden again.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::frame::{self, font, text, Area, DrawResult, CENTRE, LEFT_MID, LEFT_TOP, RIGHT_MID};
use super::{value_label, ChartError, INK, MUTED};

/// What to draw. `values[row][col]`; `None` is a cell not measured (drawn grey with a dash).
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    pub title: String,
    /// What the rows are (e.g. "CPU node"), shown at the left.
    pub row_title: String,
    /// What the columns are (e.g. "memory node"), shown at the top.
    pub col_title: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub values: Vec<Vec<Option<f64>>>,
    /// Unit printed in the colour legend (e.g. "ns", "MB/s", "SLIT").
    pub unit: String,
    /// Darker is worse when true (latency), better when false (bandwidth); the colour ramp is
    /// orange for latency and blue for bandwidth so the two never read alike.
    pub higher_is_worse: bool,
}

const MAX_GRID_PX: u32 = 560;
const LEFT: u32 = 86;
const TOP: u32 = 74;

/// Renders one heatmap to an SVG string: cells of at most 64 pixels (at least 6) in a grid of
/// at most 560, as wide as the title (about 9 px a character at 17 px) and the legend's end
/// label need.
pub fn heatmap(h: &Heatmap) -> Result<String, ChartError> {
    let (rows, cols) = (h.row_labels.len(), h.col_labels.len());
    if rows == 0 || cols == 0 {
        return Err(ChartError::new(&h.title, "no rows or columns"));
    }
    if h.values.len() != rows || h.values.iter().any(|r| r.len() != cols) {
        let why = "the value grid does not match the row and column labels";
        return Err(ChartError::new(&h.title, why));
    }
    let cell = (MAX_GRID_PX / rows.max(cols) as u32).clamp(6, 64);
    let title_w = 24 + 9 * h.title.chars().count() as u32;
    let w = (LEFT + cell * cols as u32 + 24).max(300).max(title_w);
    let size = (w, TOP + cell * rows as u32 + 56);
    frame::svg_string(&h.title, size, |root| draw(root, h, cell as i32))
}

/// Linear interpolation between two colours, `t` in 0..=1.
fn ramp(t: f64, higher_is_worse: bool) -> RGBColor {
    let (lo, hi) = if higher_is_worse {
        ((255, 245, 235), (166, 54, 3))
    } else {
        ((239, 243, 255), (8, 69, 148))
    };
    let t = t.clamp(0.0, 1.0);
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    RGBColor(mix(lo.0, hi.0), mix(lo.1, hi.1), mix(lo.2, hi.2))
}

fn draw(area: &Area, h: &Heatmap, cell: i32) -> DrawResult {
    let vals = h
        .values
        .iter()
        .flatten()
        .flatten()
        .filter(|v| v.is_finite());
    let (vmin, vmax) = vals.fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    // The ramp starts at half the largest value at most, so that a 2 % spread (c2c pairs on
    // one die) does not look like a 2x one: colour differences stay proportionate.
    let lo = if vmin > 0.0 {
        vmin.min(vmax * 0.5)
    } else {
        vmin
    };
    titles_and_labels(area, h, cell)?;
    draw_cells(area, h, cell, lo, vmax)?;
    draw_legend(area, h, cell, vmin <= vmax, lo, vmax)
}

/// The title, the axis titles and the row and column labels (thinned on big grids).
fn titles_and_labels(area: &Area, h: &Heatmap, cell: i32) -> DrawResult {
    let (left, top) = (LEFT as i32, TOP as i32);
    text(area, &h.title, (12, 8), &font(17.0, &INK, LEFT_TOP))?;
    let cols = format!("{} \u{2192}", h.col_title);
    let grid_w = cell * h.col_labels.len() as i32;
    let centre_top = (HPos::Center, VPos::Top);
    text(
        area,
        cols,
        (left + grid_w / 2, 36),
        &font(13.0, &MUTED, centre_top),
    )?;
    let rows = format!("{} \u{2193}", h.row_title);
    let left_bottom = (HPos::Left, VPos::Bottom);
    text(area, rows, (12, top - 18), &font(13.0, &MUTED, left_bottom))?;
    // Labels are thinned on big grids (c2c on many CPUs) so they never overlap. They keep
    // 13 px type (about 10.5 px as drawn) even then: on a phone a heatmap is shown at its
    // drawn size, and smaller text was unreadable there.
    let every = (22 / cell).max(1) as usize;
    let style = font(13.0, &INK, (HPos::Center, VPos::Bottom));
    for (c, l) in h.col_labels.iter().enumerate().step_by(every) {
        text(
            area,
            l,
            (left + cell * c as i32 + cell / 2, top - 6),
            &style,
        )?;
    }
    let style = font(13.0, &INK, RIGHT_MID);
    for (r, l) in h.row_labels.iter().enumerate().step_by(every) {
        text(
            area,
            l,
            (left - 8, top + cell * r as i32 + cell / 2),
            &style,
        )?;
    }
    Ok(())
}

/// One coloured square per value (grey with a dash for a missing one), with the value when
/// it fits.
fn draw_cells(area: &Area, h: &Heatmap, cell: i32, lo: f64, vmax: f64) -> DrawResult {
    let (left, top) = (LEFT as i32, TOP as i32);
    let t_of = |v: f64| {
        if vmax > lo {
            (v - lo) / (vmax - lo)
        } else {
            0.35
        }
    };
    for (r, row) in h.values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let (x, y) = (left + cell * c as i32, top + cell * r as i32);
            let (fill, label, ink, size) = match v {
                Some(v) if v.is_finite() => {
                    let t = t_of(*v);
                    let ink = if t > 0.55 { WHITE } else { INK };
                    let size = if cell >= 52 { 14.0 } else { 13.0 };
                    (ramp(t, h.higher_is_worse), value_label(*v), ink, size)
                }
                _ => (RGBColor(236, 236, 236), "\u{2013}".into(), MUTED, 13.0),
            };
            let rect = [(x, y), (x + cell - 1, y + cell - 1)];
            area.draw(&Rectangle::new(rect, fill.filled()))?;
            if cell >= 34 {
                let at = (x + cell / 2, y + cell / 2);
                text(area, label, at, &font(size, &ink, CENTRE))?;
            }
        }
    }
    Ok(())
}

/// The colour legend under the grid: the ramp with its end values (none without a value).
fn draw_legend(
    area: &Area,
    h: &Heatmap,
    cell: i32,
    any_value: bool,
    lo: f64,
    vmax: f64,
) -> DrawResult {
    if !any_value {
        return Ok(());
    }
    let left = LEFT as i32;
    let ly = TOP as i32 + cell * h.row_labels.len() as i32 + 18;
    let (steps, lw) = (24, 6);
    for i in 0..steps {
        let t = i as f64 / (steps - 1) as f64;
        let (x, fill) = (left + i * lw, ramp(t, h.higher_is_worse).filled());
        area.draw(&Rectangle::new([(x, ly), (x + lw, ly + 10)], fill))?;
    }
    text(
        area,
        value_label(lo),
        (left - 6, ly + 5),
        &font(13.0, &MUTED, RIGHT_MID),
    )?;
    let high = format!("{} {}", value_label(vmax), h.unit);
    let at = (left + steps * lw + 6, ly + 5);
    text(area, high, at, &font(13.0, &MUTED, LEFT_MID))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_well_formed, count, has_text};
    use super::*;

    fn opteron() -> Heatmap {
        Heatmap {
            title: "Measured latency".into(),
            row_title: "CPU node".into(),
            col_title: "memory node".into(),
            row_labels: vec!["0".into(), "1".into()],
            col_labels: vec!["0".into(), "1".into()],
            values: vec![vec![Some(45.6), Some(70.9)], vec![Some(70.9), None]],
            unit: "ns".into(),
            higher_is_worse: true,
        }
    }

    #[test]
    fn cells_values_and_labels_and_a_mismatched_grid() {
        let svg = heatmap(&opteron()).unwrap();
        assert_well_formed(&svg);
        assert!(has_text(&svg, "45.6") && has_text(&svg, "70.9"));
        assert!(svg.contains("Measured latency"));
        assert!(svg.contains("memory node"));
        // 4 cells + 24 legend steps + the white background.
        assert_eq!(count(&svg, "<rect"), 4 + 24 + 1);
        // A value grid that does not match the labels is an error.
        let mut h = opteron();
        h.values.pop();
        assert!(heatmap(&h).is_err());
    }

    #[test]
    fn big_grids_drop_values_but_keep_structure() {
        let n = 64;
        let h = Heatmap {
            row_labels: (0..n).map(|i| i.to_string()).collect(),
            col_labels: (0..n).map(|i| i.to_string()).collect(),
            values: (0..n)
                .map(|r| (0..n).map(|c| Some((r * c) as f64)).collect())
                .collect(),
            ..opteron()
        };
        let svg = heatmap(&h).unwrap();
        assert_well_formed(&svg);
        assert!(!has_text(&svg, "3969"));
    }
}
