//! Heatmaps: a grid of coloured cells with the value printed in each (node x node latency or
//! bandwidth, CPU x CPU core-to-core latency), which the report sets side by side (measured beside
//! SLIT or HMAT). Cells are placed in pixel coordinates with plotters' primitives: the grid is
//! categorical, and a cartesian chart would only add axes that have to be hidden again.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{self, Area, DrawResult};
use super::{value_label, ChartError, FONT, INK, MUTED};

/// What to draw. `values[row][col]`; `None` is a cell not measured (drawn hatched grey).
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

fn cell_px(n: usize) -> u32 {
    ((MAX_GRID_PX / n.max(1) as u32).clamp(6, 64)).max(6)
}

/// Pixel size of one heatmap.
fn size_of(h: &Heatmap) -> (u32, u32) {
    let cols = h.col_labels.len().max(1);
    let rows = h.row_labels.len().max(1);
    let cell = cell_px(cols.max(rows));
    let w = LEFT + cell * cols as u32 + 24;
    let h_px = TOP + cell * rows as u32 + 56;
    // Room for the title (about 9 px a character at 17 px) and the legend's end label.
    let title_w = 24 + 9 * h.title.chars().count() as u32;
    (w.max(300).max(title_w), h_px)
}

fn check(h: &Heatmap) -> Result<(), ChartError> {
    if h.row_labels.is_empty() || h.col_labels.is_empty() {
        return Err(ChartError::new(&h.title, "no rows or columns"));
    }
    if h.values.len() != h.row_labels.len()
        || h.values.iter().any(|r| r.len() != h.col_labels.len())
    {
        return Err(ChartError::new(
            &h.title,
            "the value grid does not match the row and column labels",
        ));
    }
    Ok(())
}

/// Renders one heatmap to an SVG string.
pub fn heatmap(h: &Heatmap) -> Result<String, ChartError> {
    check(h)?;
    frame::svg_string(&h.title, size_of(h), |root| draw(root, h))
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

fn draw(area: &Area, h: &Heatmap) -> DrawResult {
    let cols = h.col_labels.len();
    let rows = h.row_labels.len();
    let cell = cell_px(cols.max(rows)) as i32;
    let vals: Vec<f64> = h
        .values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let (vmin, vmax) = vals
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    // The ramp starts at half the largest value at most, so that a 2 % spread (c2c pairs on
    // one die) does not look like a 2x one: colour differences stay proportionate.
    let lo = if vmin > 0.0 {
        vmin.min(vmax * 0.5)
    } else {
        vmin
    };
    titles_and_labels(area, h, cell)?;
    draw_cells(area, h, cell, lo, vmax)?;
    draw_legend(area, h, cell, !vals.is_empty(), lo, vmax)
}

/// The title, the axis titles and the row and column labels (thinned on big grids).
fn titles_and_labels(area: &Area, h: &Heatmap, cell: i32) -> DrawResult {
    let cols = h.col_labels.len();
    let (left, top) = (LEFT as i32, TOP as i32);
    let anchor = |hp, vp| Pos::new(hp, vp);
    area.draw(&Text::new(
        h.title.clone(),
        (12, 8),
        (FONT, 17)
            .into_font()
            .color(&INK)
            .pos(anchor(HPos::Left, VPos::Top)),
    ))?;
    let grid_w = cell * cols as i32;
    area.draw(&Text::new(
        format!("{} \u{2192}", h.col_title),
        (left + grid_w / 2, 36),
        (FONT, 13)
            .into_font()
            .color(&MUTED)
            .pos(anchor(HPos::Center, VPos::Top)),
    ))?;
    area.draw(&Text::new(
        format!("{} \u{2193}", h.row_title),
        (12, top - 18),
        (FONT, 13)
            .into_font()
            .color(&MUTED)
            .pos(anchor(HPos::Left, VPos::Bottom)),
    ))?;
    // Labels are thinned on big grids (c2c on many CPUs) so they never overlap. They keep
    // 13 px type (about 10.5 px as drawn) even then: on a phone a heatmap is shown at its
    // drawn size, and smaller text was unreadable there.
    let every = (22 / cell).max(1) as usize;
    let label_size = 13;
    for (c, l) in h.col_labels.iter().enumerate() {
        if c % every == 0 {
            area.draw(&Text::new(
                l.clone(),
                (left + cell * c as i32 + cell / 2, top - 6),
                (FONT, label_size)
                    .into_font()
                    .color(&INK)
                    .pos(anchor(HPos::Center, VPos::Bottom)),
            ))?;
        }
    }
    for (r, l) in h.row_labels.iter().enumerate() {
        if r % every == 0 {
            area.draw(&Text::new(
                l.clone(),
                (left - 8, top + cell * r as i32 + cell / 2),
                (FONT, label_size)
                    .into_font()
                    .color(&INK)
                    .pos(anchor(HPos::Right, VPos::Center)),
            ))?;
        }
    }
    Ok(())
}

/// One coloured square per value (grey for a missing one), with the value when it fits.
fn draw_cells(area: &Area, h: &Heatmap, cell: i32, lo: f64, vmax: f64) -> DrawResult {
    let (left, top) = (LEFT as i32, TOP as i32);
    let anchor = |hp, vp| Pos::new(hp, vp);
    let t_of = |v: f64| {
        if vmax > lo {
            (v - lo) / (vmax - lo)
        } else {
            0.35
        }
    };
    let show_values = cell >= 34;
    for (r, row) in h.values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let x = left + cell * c as i32;
            let y = top + cell * r as i32;
            let rect = [(x, y), (x + cell - 1, y + cell - 1)];
            match v {
                Some(v) if v.is_finite() => {
                    let t = t_of(*v);
                    area.draw(&Rectangle::new(rect, ramp(t, h.higher_is_worse).filled()))?;
                    if show_values {
                        let ink = if t > 0.55 { WHITE } else { INK };
                        let size = if cell >= 52 { 14 } else { 13 };
                        area.draw(&Text::new(
                            value_label(*v),
                            (x + cell / 2, y + cell / 2),
                            (FONT, size)
                                .into_font()
                                .color(&ink)
                                .pos(anchor(HPos::Center, VPos::Center)),
                        ))?;
                    }
                }
                _ => {
                    area.draw(&Rectangle::new(rect, RGBColor(236, 236, 236).filled()))?;
                    if show_values {
                        area.draw(&Text::new(
                            "\u{2013}".to_string(),
                            (x + cell / 2, y + cell / 2),
                            (FONT, 13)
                                .into_font()
                                .color(&MUTED)
                                .pos(anchor(HPos::Center, VPos::Center)),
                        ))?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The colour legend under the grid: the ramp with its end values.
fn draw_legend(
    area: &Area,
    h: &Heatmap,
    cell: i32,
    any_value: bool,
    lo: f64,
    vmax: f64,
) -> DrawResult {
    let (left, top) = (LEFT as i32, TOP as i32);
    let anchor = |hp, vp| Pos::new(hp, vp);
    let grid_h = cell * h.row_labels.len() as i32;
    // Colour legend: a ramp with its end values.
    if !any_value {
        return Ok(());
    }
    let ly = top + grid_h + 18;
    let steps = 24;
    let lw = 6;
    for i in 0..steps {
        let t = i as f64 / (steps - 1) as f64;
        let x = left + i * lw;
        area.draw(&Rectangle::new(
            [(x, ly), (x + lw, ly + 10)],
            ramp(t, h.higher_is_worse).filled(),
        ))?;
    }
    let style = (FONT, 13).into_font().color(&MUTED);
    area.draw(&Text::new(
        value_label(lo),
        (left - 6, ly + 5),
        style.pos(anchor(HPos::Right, VPos::Center)),
    ))?;
    area.draw(&Text::new(
        format!("{} {}", value_label(vmax), h.unit),
        (left + steps * lw + 6, ly + 5),
        (FONT, 13)
            .into_font()
            .color(&MUTED)
            .pos(anchor(HPos::Left, VPos::Center)),
    ))?;
    Ok(())
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
    fn cells_values_and_labels() {
        let svg = heatmap(&opteron()).unwrap();
        assert_well_formed(&svg);
        assert!(has_text(&svg, "45.6") && has_text(&svg, "70.9"));
        assert!(svg.contains("Measured latency"));
        assert!(svg.contains("memory node"));
        // 4 cells + 24 legend steps + the white background.
        assert_eq!(count(&svg, "<rect"), 4 + 24 + 1);
    }

    #[test]
    fn mismatched_grid_is_an_error() {
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
