//! A [`Table`] as terminal text: the columns a view chose, under their people's labels, laid
//! out (or stacked on a narrow terminal) as every text table of numascope is. The standalone
//! commands and `report --full` print the same tables the HTML and the CSV files hold.

use super::Table;

impl Table {
    /// The columns with these CSV keys as text columns, in that order, laid out as every
    /// view table is ([`crate::render::view_text::text`]); empty without rows.
    pub fn text(&self, keys: &[&str]) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        crate::render::view_text::text(self, keys)
    }

    /// Replaces each cell of column `key` that holds a byte count by its binary size for
    /// people (`16 MiB`), the label by `label`.
    pub fn with_sizes(mut self, key: &str, label: &str) -> Table {
        let c = self.col(key);
        for row in &mut self.rows {
            if let super::Cell::Int(b) = row[c] {
                row[c] = super::Cell::Text(crate::results::format::format_bytes(b));
            }
        }
        self.columns[c] = label.into();
        self
    }
}
