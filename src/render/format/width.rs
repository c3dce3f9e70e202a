//! Text tables for the terminal: rows under headers, each column padded to its widest cell,
//! two spaces apart, no trailing blanks ([`columns`]), so every text table of numascope lines
//! up the same way; and the width they must fit. A table wider than the terminal wraps into garbage
//! (`bandwidth` printed 186 columns into a 90-column terminal), so a table that does
//! not fit is stacked instead: one block per row, one `label  value` line per column, values
//! wrapped to the width. When stdout is not a terminal (piped to a file or another program),
//! tables stay at full width, one line per row, so scripts and saved outputs see the same
//! bytes whatever terminal ran them.
//!
//! The width is decided once per process by the binary ([`fit_stdout_terminal`], called from
//! `cli::main`); the library on its own (tests, other callers, `summary.txt`) never looks at
//! the terminal. Tests pass a width explicitly ([`with_width`]).

use std::cell::Cell;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The terminal width the binary found for stdout; 0 = none (not a terminal, or not asked).
static STDOUT_WIDTH: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// A width set for this thread by [`with_width`], overriding the process's.
    static OVERRIDE: Cell<Option<Option<usize>>> = const { Cell::new(None) };
}

/// The narrowest width tables are fitted to; below it stacking would help no one.
const MIN_WIDTH: usize = 40;

/// Records the terminal's width when stdout is a terminal (comfy-table asks the terminal),
/// so tables printed to it fit; does nothing when stdout is piped.
pub fn fit_stdout_terminal() {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return;
    }
    if let Some(w) = comfy_table::Table::new().width() {
        STDOUT_WIDTH.store(usize::from(w).max(MIN_WIDTH), Ordering::Relaxed);
    }
}

/// The width tables must fit, `None` for full width.
pub fn target() -> Option<usize> {
    if let Some(w) = OVERRIDE.with(|o| o.get()) {
        return w;
    }
    match STDOUT_WIDTH.load(Ordering::Relaxed) {
        0 => None,
        w => Some(w),
    }
}

/// Runs `f` with tables fitted to `width` (`None`: full width) on this thread.
pub fn with_width<R>(width: Option<usize>, f: impl FnOnce() -> R) -> R {
    let before = OVERRIDE.with(|o| o.replace(Some(width)));
    let out = f();
    OVERRIDE.with(|o| o.set(before));
    out
}

/// `drawn` when it fits [`target`] (or at full width), `stack(width)` otherwise.
fn fitted(drawn: String, stack: impl FnOnce(usize) -> String) -> String {
    match target() {
        Some(w) if drawn.lines().any(|l| l.trim_end().chars().count() > w) => stack(w),
        _ => drawn,
    }
}

/// `s` cut to at most `width` characters, a cut marked `...`.
pub(crate) fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let kept: String = s.chars().take(width.saturating_sub(3)).collect();
    kept + "..."
}

/// Each line of `s` indented by two spaces.
pub(crate) fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}

/// [`columns`] fitted to [`target`] the same way.
pub fn fit_columns(headers: &[&str], rows: &[Vec<String>]) -> String {
    fit_aligned(headers, rows, 0..0)
}

/// [`aligned`] fitted to [`target`]: as laid out when it fits, stacked otherwise.
pub fn fit_aligned(headers: &[&str], rows: &[Vec<String>], right: Range<usize>) -> String {
    fitted(aligned(headers, rows, right), |w| {
        let h: Vec<String> = headers.iter().map(|s| s.to_string()).collect();
        stacked(&h, rows, w)
    })
}

/// Lays out rows under headers with columns padded to the widest cell, two spaces apart.
pub fn columns(headers: &[&str], rows: &[Vec<String>]) -> String {
    aligned(headers, rows, 0..0)
}

/// [`columns`] with the columns `right` right-aligned: figures, as numastat and the fleet
/// and comparison tables lay them out (headers included).
pub fn aligned(headers: &[&str], rows: &[Vec<String>], right: Range<usize>) -> String {
    let mut w: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for (i, c) in rows.iter().flat_map(|r| r.iter().enumerate()) {
        if let Some(w) = w.get_mut(i) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = (cells.iter().enumerate())
            .map(|(i, c)| match w.get(i).copied().unwrap_or(0) {
                n if right.contains(&i) => format!("{c:>n$}"),
                n => format!("{c:<n$}"),
            })
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let rows = rows
        .iter()
        .map(|r| line(r.iter().map(String::as_str).collect()));
    std::iter::once(line(headers.to_vec()))
        .chain(rows)
        .collect()
}

/// One block per row: `label  value` per non-empty cell, labels padded to the widest (at
/// most two fifths of the width; longer labels get a line of their own), values wrapped.
pub fn stacked(header: &[String], rows: &[Vec<String>], width: usize) -> String {
    let labels: Vec<String> = (0..rows.iter().map(|r| r.len()).max().unwrap_or(0))
        .map(|i| {
            header
                .get(i)
                .map(|h| h.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|h| !h.is_empty())
                .unwrap_or_else(|| format!("column {}", i + 1))
        })
        .collect();
    let pad = labels
        .iter()
        .map(|l| l.chars().count())
        .filter(|&n| n <= width * 2 / 5)
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        for (label, cell) in labels.iter().zip(row) {
            let value = cell.split_whitespace().collect::<Vec<_>>().join(" ");
            if value.is_empty() {
                continue;
            }
            let lw = label.chars().count();
            if lw <= pad {
                let indent = pad + 2;
                let w = width.saturating_sub(indent).max(10);
                let lines = wrap(&value, w, w);
                for (i, line) in lines.iter().enumerate() {
                    let head = if i == 0 { label.as_str() } else { "" };
                    out.push_str(&format!("{head:<pad$}  {line}\n"));
                }
            } else {
                out.push_str(label);
                out.push('\n');
                let w = width.saturating_sub(4).max(10);
                for line in wrap(&value, w, w) {
                    out.push_str(&format!("    {line}\n"));
                }
            }
        }
    }
    out
}

/// Words of `s` in lines of at most `first` characters for the first line and `rest` for the
/// others; a word longer than a line is cut after its last comma that fits (a list of CPUs),
/// or else gets a line of its own.
pub(crate) fn wrap(s: &str, first: usize, rest: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for mut word in s.split_whitespace() {
        loop {
            let width = if lines.len() == 1 { first } else { rest };
            let last = lines.last_mut().expect("one line at least");
            let (used, n) = (last.chars().count(), word.chars().count());
            if used > 0 && used + 1 + n > width {
                lines.push(String::new());
                continue;
            }
            let head: String = word.chars().take(width).collect();
            let comma = head.rfind(',').map(|i| i + 1).filter(|_| n > width);
            if used > 0 {
                last.push(' ');
            }
            last.push_str(&word[..comma.unwrap_or(word.len())]);
            let Some(at) = comma else { break };
            word = &word[at..];
            lines.push(String::new());
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADERS: [&str; 3] = ["kernel", "MB/s median [95 % interval] n", "per thread MB/s"];

    fn wide() -> Vec<Vec<String>> {
        let row = [
            "read",
            "6286 [6270, 6300] n=9",
            "0: 3143, 1: 3143, 2: 3100, 3: 3120, 4: 3090, 5: 3111, 6: 3122, 7: 3133",
        ];
        vec![row.map(String::from).to_vec()]
    }

    /// At full width, or at a width it fits, a table is laid out as is; figures columns are
    /// right-aligned, headers included, and no line ends in a blank.
    #[test]
    fn full_width_unless_a_width_is_set() {
        let laid = columns(&HEADERS, &wide());
        assert_eq!(with_width(None, || fit_columns(&HEADERS, &wide())), laid);
        assert_eq!(
            with_width(Some(500), || fit_columns(&HEADERS, &wide())),
            laid
        );
        // The library alone never looks at the terminal.
        assert_eq!(target(), None);
        let rows = vec![vec!["a".into(), "7".into()], vec!["bb".into(), "12".into()]];
        let right = aligned(&["x", "MB/s"], &rows, 1..2);
        assert_eq!(right, "x   MB/s\na      7\nbb    12\n");
    }

    #[test]
    fn a_table_too_wide_is_stacked_within_the_width() {
        let s = with_width(Some(60), || fit_aligned(&HEADERS, &wide(), 1..2));
        assert!(s.lines().all(|l| l.chars().count() <= 60), "{s}");
        assert!(s.starts_with("kernel"), "{s}");
        assert!(s.contains("6286 [6270, 6300] n=9"), "{s}");
        // Every value's words are all there, in order.
        let words: Vec<&str> = s.split_whitespace().collect();
        assert!(words.windows(2).any(|w| w == ["7:", "3133"]));
    }

    #[test]
    fn stacked_rows_are_separated_and_empty_cells_skipped() {
        let h = vec!["a".to_string(), "b".to_string()];
        let rows = vec![
            vec!["1".to_string(), String::new()],
            vec!["2".to_string(), "x".to_string()],
        ];
        assert_eq!(stacked(&h, &rows, 40), "a  1\n\na  2\nb  x\n");
        // A list too long for a line is cut after a comma (topo --graph's footer lines).
        assert_eq!(wrap("CPUs 0,1,2,3,4,5", 10, 8), ["CPUs", "0,1,2,3,", "4,5"]);
    }
}

/// Every kind of terminal table of numascope rendered at 80 columns, from the Opteron
/// fixture (the full report holds the latency, bandwidth, loaded-latency and core-to-core
/// sections; `topo` has its own); each snapshot is checked to stay within the width.
#[cfg(test)]
mod at_80_columns {
    use super::with_width;
    use crate::render::fixture::opteron_example;
    use std::io::{self, Write};

    fn at_80(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        with_width(Some(80), || f(&mut out)).unwrap();
        let s = String::from_utf8(out).unwrap();
        // Table lines (columns two spaces apart, or box drawing) fit; prose sentences are
        // left to the terminal's own word wrap.
        for l in s.lines() {
            let t = l.trim();
            if t.contains("  ") || t.contains('\u{2502}') || t.contains('\u{2500}') {
                assert!(
                    l.trim_end().chars().count() <= 80,
                    "table wider than 80: {l:?}"
                );
            }
        }
        s
    }

    #[test]
    fn run_summary() {
        let r = opteron_example();
        insta::assert_snapshot!(at_80(|w| crate::render::run_text::render(&r, w)));
    }

    #[test]
    fn topology() {
        let r = opteron_example();
        insta::assert_snapshot!(at_80(|w| crate::render::topo::render(&r.topology, w)));
    }
}
