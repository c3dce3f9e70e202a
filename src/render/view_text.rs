//! A run view's [`Table`] or node x node [`Heatmap`] as terminal text: the one layout in which
//! the standalone commands (`bandwidth`, `c2c`) and `report --full` print the same tables the
//! HTML report and the CSV files hold. Headers are the table's own labels; a `_bytes` column
//! reads as a size (`16 MiB`) and a `_fraction` column as a percentage, so only the look
//! differs between the views, never the figure.

use crate::render::format::estimate::num;
use std::io::{self, Write};

use super::run_view::{Cell, Table};
use super::svg::Heatmap;
use crate::results::format::format_bytes;

/// The columns `keys` of `t` (in that order) under their labels, fitted to the terminal
/// ([`crate::render::format::width::fit_columns`]): the one text layout of a run view's table.
pub fn text(t: &Table, keys: &[&str]) -> String {
    let at = t.cols(keys);
    let headers: Vec<String> = at.iter().map(|&i| label(&t.columns[i])).collect();
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| at.iter().map(|&i| cell(&t.keys[i], &r[i])).collect())
        .collect();
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    crate::render::format::width::fit_columns(&h, &rows)
}

impl Table {
    /// The columns with these CSV keys as text columns, in that order, laid out as [`text`]
    /// does; empty without rows.
    pub fn text(&self, keys: &[&str]) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        text(self, keys)
    }

    /// Replaces each cell of column `key` that holds a byte count by its binary size for
    /// people (`16 MiB`), the label by `label`.
    pub fn with_sizes(mut self, key: &str, label: &str) -> Table {
        let c = self.col(key);
        for row in &mut self.rows {
            if let Cell::Int(b) = row[c] {
                row[c] = Cell::Text(format_bytes(b));
            }
        }
        self.columns[c] = label.into();
        self
    }

    /// The table pivoted, as a person compares its figures: one row per distinct value of the
    /// columns `rows` (in the order first seen), one column per distinct value of column
    /// `across` (headed `head(value)`), each cell column `value`'s text, `-` where no row has
    /// that pair. A layout for people (text cells; its keys are its labels), not for CSV.
    pub fn pivot(
        &self,
        rows: &[&str],
        (across, head): (&str, &dyn Fn(&str) -> String),
        value: &str,
    ) -> Table {
        let (at, a, v) = (self.cols(rows), self.col(across), self.col(value));
        let text = |r: &[Cell], i: usize| cell(&self.keys[i], &r[i]);
        let key = |r: &[Cell]| at.iter().map(|&i| text(r, i)).collect::<Vec<_>>();
        let (mut across_values, mut keys): (Vec<String>, Vec<Vec<String>>) = (vec![], vec![]);
        for r in &self.rows {
            if !across_values.contains(&text(r, a)) {
                across_values.push(text(r, a));
            }
            if !keys.contains(&key(r)) {
                keys.push(key(r));
            }
        }
        let body = keys.iter().map(|k| {
            let at_pair =
                |c: &String| (self.rows.iter()).find(|r| &text(r, a) == c && &key(r) == k);
            let cells = across_values
                .iter()
                .map(|c| at_pair(c).map_or("-".into(), |r| text(r, v)));
            k.iter().cloned().chain(cells).map(Cell::Text).collect()
        });
        let mut headers: Vec<String> = at.iter().map(|&i| label(&self.columns[i])).collect();
        headers.extend(across_values.iter().map(|c| head(c)));
        Table {
            name: self.name,
            title: self.title.clone(),
            keys: headers.clone(),
            columns: headers,
            rows: body.collect(),
        }
    }
}

/// The headline figures measured toward a precision target, one `what: clause` line each
/// under one heading (each clause names what its extras were counted in); nothing without.
pub fn precision(w: &mut dyn Write, lines: &[String]) -> io::Result<()> {
    if !lines.is_empty() {
        writeln!(
            w,
            "Interval half-widths of the headline figures against their target (more are \
             measured while an interval is wider, at most as many as planned):"
        )?;
    }
    lines.iter().try_for_each(|l| writeln!(w, "  {l}"))
}

/// Writes every column of `t` in order.
pub fn layout(w: &mut dyn Write, t: &Table) -> io::Result<()> {
    let keys: Vec<&str> = t.keys.iter().map(String::as_str).collect();
    write!(w, "{}", text(t, &keys))
}

/// A label without the unit its column's text form no longer needs.
fn label(l: &str) -> String {
    let l = l.strip_suffix(" (bytes)").unwrap_or(l);
    l.strip_suffix(" (fraction)").unwrap_or(l).to_string()
}

/// One cell for people: sizes in binary units, fractions as percentages, the rest as
/// [`Cell::display`] writes it.
fn cell(key: &str, c: &Cell) -> String {
    match c {
        Cell::Int(v) if key.ends_with("_bytes") => format_bytes(*v),
        Cell::Num(v) if key.contains("_fraction") => format!("{:.1} %", v * 100.0),
        c => c.display(),
    }
}

/// Writes a heat map's values as a grid under its title: one row per row label, one column
/// per column label, `-` where a pair has no value.
pub fn grid(w: &mut dyn Write, h: &Heatmap) -> io::Result<()> {
    writeln!(w, "{}:", h.title)?;
    let mut headers = vec![format!("{} \\ {}", h.row_title, h.col_title)];
    headers.extend(h.col_labels.iter().cloned());
    let rows: Vec<Vec<String>> = h
        .row_labels
        .iter()
        .zip(&h.values)
        .map(|(l, vs)| {
            let mut row = vec![l.clone()];
            row.extend(vs.iter().map(|v| v.map_or("-".into(), num)));
            row
        })
        .collect();
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    write!(
        w,
        "{}",
        crate::render::format::width::fit_columns(&h, &rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes and fractions read for people, their labels lose the unit, other cells stay.
    #[test]
    fn sizes_and_fractions_read_for_people() {
        let mut t = Table::new(
            "t",
            "T",
            &[
                ("working_set_bytes", "working set (bytes)"),
                ("on_node_fraction", "on node (fraction)"),
                ("threads_count", "threads"),
            ],
        );
        t.rows
            .push(vec![Cell::Int(16 << 20), Cell::Num(0.5), Cell::Int(2)]);
        let s = t.text(&["threads_count", "working_set_bytes", "on_node_fraction"]);
        assert_eq!(
            s,
            "threads  working set  on node\n2        16 MiB       50.0 %\n"
        );
    }

    /// A pivot puts each `across` value in a column and leaves a dash where a pair is missing.
    #[test]
    fn a_pivot_has_a_column_per_value_and_dashes_for_missing_pairs() {
        let mut t = Table::new(
            "t",
            "T",
            &[("mix", "mix"), ("threads_count", "threads"), ("v", "v")],
        );
        for (mix, n, v) in [("read", 1, 9.0), ("read", 2, 12.0), ("1:1", 2, 7.0)] {
            t.rows
                .push(vec![Cell::Text(mix.into()), Cell::Int(n), Cell::Num(v)]);
        }
        let head = |n: &str| format!("{n} thread(s)");
        let s = crate::render::fixture::written(|o| {
            layout(o, &t.pivot(&["mix"], ("threads_count", &head), "v"))
        });
        assert_eq!(
            s,
            "mix   1 thread(s)  2 thread(s)\nread  9.00         12\n1:1   -            7.00\n"
        );
    }

    #[test]
    fn a_grid_has_a_row_per_label_and_dashes_for_missing_pairs() {
        let h = crate::render::run_view::grid(
            "Measured bandwidth (MB/s)",
            "MB/s",
            false,
            [(0, 0, Some(6286.0)), (0, 1, None), (1, 0, Some(3116.0))],
        )
        .unwrap();
        let s = crate::render::fixture::written(|o| grid(o, &h));
        assert_eq!(
            s,
            "Measured bandwidth (MB/s):\nCPU node \\ memory node  0     1\n\
             0                       6286  -\n1                       3116  -\n"
        );
    }
}
