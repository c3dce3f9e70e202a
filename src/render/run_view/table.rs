//! The one table type of a run's views: [`Table`] (columns with a CSV key and a label for
//! people, rows of [`Cell`]s) and the cells and columns of a figure with its interval and
//! repetition quality, which every table of [`super`] is built from.
use crate::render::format::estimate::num;

/// One table cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    Num(f64),
    Int(u64),
    /// A yes/no flag (`disturbed`): `true`/`false` in CSV, `yes`/`no` for people.
    Bool(bool),
    Missing,
}

impl Cell {
    /// The cell for people: numbers with a precision suited to their size.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => crate::sanitize::escape(s).into_owned(),
            Cell::Num(v) => num(*v),
            Cell::Int(v) => v.to_string(),
            Cell::Bool(b) => if *b { "yes" } else { "no" }.into(),
            Cell::Missing => "-".into(),
        }
    }

    /// The cell for machines (CSV): full precision, empty when missing; text through the
    /// sanitizer's CSV rule (a formula neutralised, controls escaped), numbers as they are.
    pub fn raw(&self) -> String {
        match self {
            Cell::Text(s) => crate::sanitize::csv_text(s),
            Cell::Num(v) => format!("{v}"),
            Cell::Int(v) => v.to_string(),
            Cell::Bool(b) => b.to_string(),
            Cell::Missing => String::new(),
        }
    }

    pub(crate) fn opt(v: Option<f64>) -> Cell {
        v.filter(|v| v.is_finite()).map_or(Cell::Missing, Cell::Num)
    }

    pub(crate) fn int(v: Option<u64>) -> Cell {
        v.map_or(Cell::Missing, Cell::Int)
    }
}

/// The interval columns of one summarized figure, in the order every table uses:
/// `{base}_median`, `{base}_ci_low`, `{base}_ci_high`, `ci_level_fraction`, `samples_count`.
pub(crate) fn interval_cells(s: Option<&crate::stats::Summary>) -> [Cell; 5] {
    match s {
        None => std::array::from_fn(|_| Cell::Missing),
        Some(s) => {
            let [lo, hi, level] = ci_cells(s.ci);
            [
                Cell::opt(Some(s.median)),
                lo,
                hi,
                level,
                Cell::Int(s.samples as u64),
            ]
        }
    }
}

/// The (key, label) pairs of [`interval_cells`] for a figure `base` (`ns_per_load`) whose
/// people's name is `label` (`ns per load`); the coverage and count keys
/// (`ci_level_fraction`, `samples_count`) start with `shared`, empty for a table's one figure.
pub(crate) fn interval_columns(base: &str, label: &str, shared: &str) -> Vec<(String, String)> {
    let mut v = vec![(format!("{base}_median"), format!("{label} (median)"))];
    v.extend(ci_columns(base, &format!("{label} median")));
    v.push((
        format!("{shared}ci_level_fraction"),
        "interval coverage (fraction)".into(),
    ));
    v.push((format!("{shared}samples_count"), "samples (n)".into()));
    v
}

/// The (key, label) pairs of an interval's two ends for a figure `base` whose people's name
/// is `label`: `{base}_ci_low` ("{label} 95 % interval low"), `{base}_ci_high`.
pub(crate) fn ci_columns(base: &str, label: &str) -> [(String, String); 2] {
    ["low", "high"].map(|end| {
        (
            format!("{base}_ci_{end}"),
            format!("{label} 95 % interval {end}"),
        )
    })
}

/// An interval's low, high and coverage cells, empty without one.
pub(crate) fn ci_cells(ci: Option<crate::stats::Interval>) -> [Cell; 3] {
    [
        Cell::opt(ci.map(|c| c.low)),
        Cell::opt(ci.map(|c| c.high)),
        Cell::opt(ci.map(|c| c.level)),
    ]
}

/// The cells of [`Table::extend_estimate`]'s columns: [`interval_cells`], then
/// [`quality_cells`].
pub(crate) fn estimate_cells(
    s: &crate::stats::Summary,
    q: Option<&crate::results::quality::RepetitionQuality>,
) -> impl Iterator<Item = Cell> {
    interval_cells(Some(s)).into_iter().chain(quality_cells(q))
}

/// The repetition-quality columns: `repetitions_discarded_count`, `disturbed`; empty when
/// the results file predates the quality record.
pub(crate) fn quality_cells(q: Option<&crate::results::quality::RepetitionQuality>) -> [Cell; 2] {
    match q {
        None => [Cell::Missing, Cell::Missing],
        Some(q) => [
            Cell::Int(q.repetitions_discarded as u64),
            Cell::Bool(q.disturbed),
        ],
    }
}

/// The (key, label) pairs of [`quality_cells`].
fn quality_columns() -> Vec<(String, String)> {
    vec![
        (
            "repetitions_discarded_count".into(),
            "repetitions discarded (disturbed, taken again)".into(),
        ),
        ("disturbed".into(), "disturbed (retakes ran out)".into()),
    ]
}

/// One sentence with every cell's interval of a node x node table (a grid has room for the
/// median only): `95 % intervals (CPU node->memory node): 0->0 45.6 [44.1, 47.0] n=15; ...`,
/// disturbed cells marked; `None` without rows.
pub fn cell_intervals(t: Table, base: &str) -> Option<String> {
    let t = t.with_interval_text(base, "");
    let [a, b, m] = ["cpu_node", "memory_node", &format!("{base}_median")].map(|k| t.col(k));
    let cells: Vec<String> = t
        .rows
        .iter()
        .map(|r| format!("{}->{} {}", r[a].display(), r[b].display(), r[m].display()))
        .collect();
    (!cells.is_empty()).then(|| {
        format!(
            "95 % intervals (CPU node->memory node): {}",
            cells.join("; ")
        )
    })
}

/// One table of a run. Each column has a machine key (the CSV header: snake_case, the unit
/// in the name, `ns_per_load_median`; see docs/csv.md) and a label for people (text and HTML
/// headers, `ns per load (median)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// File stem of its CSV (`latency_sweep`).
    pub name: &'static str,
    pub title: String,
    /// Labels for people, one per column.
    pub columns: Vec<String>,
    /// CSV header names, one per column.
    pub keys: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub(crate) fn new(name: &'static str, title: &str, columns: &[(&str, &str)]) -> Table {
        Table {
            name,
            title: title.into(),
            columns: columns.iter().map(|c| c.1.to_string()).collect(),
            keys: columns.iter().map(|c| c.0.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends columns (key, label).
    pub(crate) fn extend<K: Into<String>, L: Into<String>>(
        &mut self,
        columns: impl IntoIterator<Item = (K, L)>,
    ) {
        for (k, l) in columns {
            self.keys.push(k.into());
            self.columns.push(l.into());
        }
    }

    /// Appends the [`interval_columns`] of figure `base`, then the [`quality_columns`].
    pub(crate) fn extend_estimate(&mut self, base: &str, label: &str) {
        self.extend(interval_columns(base, label, ""));
        self.extend(quality_columns());
    }

    /// The index of the column with CSV key `key`.
    ///
    /// # Panics
    /// When no column has that key: the callers name keys of this module's own tables, so a
    /// miss is a programming error caught by the renderers' tests.
    pub fn col(&self, key: &str) -> usize {
        self.keys
            .iter()
            .position(|k| k == key)
            .unwrap_or_else(|| panic!("table {} has no column {key}", self.name))
    }

    /// The indices of the columns with these keys, in order.
    pub fn cols(&self, keys: &[&str]) -> Vec<usize> {
        keys.iter().map(|k| self.col(k)).collect()
    }

    /// Replaces column `{base}_median` by one text column for people, `231 [226, 240] n=9`
    /// (or `231, no interval (n=2)`), with ` (disturbed)` appended where the row is marked
    /// disturbed; the label becomes `{label} median [95 % interval] n`. Other columns stay.
    pub fn with_interval_text(mut self, base: &str, label: &str) -> Table {
        let m = self.col(&format!("{base}_median"));
        let lo = self.col(&format!("{base}_ci_low"));
        let hi = self.col(&format!("{base}_ci_high"));
        let n = self.keys.iter().position(|k| k == "samples_count");
        let d = self.keys.iter().position(|k| k == "disturbed");
        self.interval_text_at([m, lo, hi], n, d);
        self.columns[m] = format!("{label} median [95 % interval] n");
        self
    }

    /// The rows' median in column `m` as `231 [226, 240] n=9` from the interval columns `lo`,
    /// `hi` and the count column `n` (without one, the bare median; a row whose count is
    /// missing keeps its number), ` (disturbed)` where the column `d` says so.
    pub(crate) fn interval_text_at(
        &mut self,
        [m, lo, hi]: [usize; 3],
        n: Option<usize>,
        d: Option<usize>,
    ) {
        for row in &mut self.rows {
            let Cell::Num(median) = row[m] else { continue };
            let ci = match (&row[lo], &row[hi]) {
                (Cell::Num(l), Cell::Num(h)) => Some(crate::stats::Interval::new(*l, *h)),
                _ => None,
            };
            let mut s = match n.map(|i| &row[i]) {
                Some(Cell::Int(n)) => crate::render::format::estimate::bracketed(
                    &crate::stats::Estimate::new(median, ci, *n as usize),
                ),
                Some(_) => continue,
                None => num(median),
            };
            if d.is_some_and(|i| row[i] == Cell::Bool(true)) {
                s.push_str(" (disturbed)");
            }
            row[m] = Cell::Text(s);
        }
    }
}
