//! The one sanitizer for text numascope did not write itself: a snapshot's or an XML's values
//! (kernel release, CPU model, cpulists, THP modes), a results file's host names and labels, a
//! process name, an argument. Before such text reaches a terminal, a log or error line, or a
//! CSV cell it passes through here:
//!
//! - control characters (C0, DEL, C1) and the bidirectional overrides that reorder what a
//!   reader sees are shown escaped (`\x1b`, `\u{202e}`), so no value can move the cursor,
//!   clear the screen, set a window title or hide text;
//! - a long value is cut, and the cut says how long it was;
//! - a CSV text cell that a spreadsheet would read as a formula (one starting with `=`, `+`,
//!   `-` or `@`) gets a leading `'`, as spreadsheets expect; a cell that is a plain number
//!   (`-1.5`) stays a number, so numeric columns are unchanged.
//!
//! It is the floor under every layer: it imports nothing of the crate, so `results/`,
//! `render/`, `error.rs` and `cli/` all reach it (tests/architecture.rs lists it).

use std::borrow::Cow;

/// At most this many characters of one foreign value are shown (a host name, a CPU model, a
/// label); the rest is cut with its length stated.
pub const VALUE_CHARS: usize = 256;

/// At most this many characters of one error or warning sentence are shown.
pub const SENTENCE_CHARS: usize = 2000;

/// True for the characters that are never shown raw: C0 controls (but newline and tab, which
/// [`escape`] escapes too; [`text`] keeps them), DEL, C1 controls, and the bidirectional
/// embedding, override and isolate marks.
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let n = c as u32;
    if n < 0x80 {
        let _ = write!(out, "\\x{n:02x}");
    } else {
        let _ = write!(out, "\\u{{{n:x}}}");
    }
}

fn escape_except(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| hidden(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if hidden(c) && !keep(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One value, every control character escaped (newlines and tabs too: a value is one line).
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_except(s, |_| false)
}

/// Rendered text of several lines: control characters escaped except newline and tab, which
/// lay the text out.
pub fn text(s: &str) -> Cow<'_, str> {
    escape_except(s, |c| c == '\n' || c == '\t')
}

/// [`text`] over bytes that should be UTF-8 (rendered output); invalid bytes become U+FFFD.
pub fn text_bytes(b: &[u8]) -> Cow<'_, [u8]> {
    match String::from_utf8_lossy(b) {
        Cow::Borrowed(s) => match text(s) {
            Cow::Borrowed(_) => Cow::Borrowed(b),
            Cow::Owned(t) => Cow::Owned(t.into_bytes()),
        },
        Cow::Owned(s) => Cow::Owned(text(&s).into_owned().into_bytes()),
    }
}

/// `s` cut to at most `max` characters; a cut value ends with `... (N bytes in all)`.
pub fn cut(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((at, _)) => Cow::Owned(format!("{}... ({} bytes in all)", &s[..at], s.len())),
    }
}

/// A foreign value for a terminal or a log line: escaped, then cut at [`VALUE_CHARS`].
pub fn value(s: &str) -> String {
    cut(&escape(s), VALUE_CHARS).into_owned()
}

/// An error or warning sentence: escaped, then cut at [`SENTENCE_CHARS`].
pub fn sentence(s: &str) -> String {
    cut(&escape(s), SENTENCE_CHARS).into_owned()
}

/// True when `s` is a plain decimal number (`-1.5`, `+2`, `3e-4`), which a spreadsheet reads
/// as a number and never as a formula.
fn plain_number(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && s.parse::<f64>().is_ok()
}

/// A CSV text cell: escaped and cut like [`value`], and a cell a spreadsheet would take for a
/// formula (first character `=`, `+`, `-` or `@`, not a plain number) prefixed with `'`.
pub fn csv_text(s: &str) -> String {
    let v = value(s);
    let formula = matches!(v.chars().next(), Some('=' | '+' | '-' | '@')) && !plain_number(&v);
    if formula {
        format!("'{v}")
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_plain_text_is_borrowed() {
        assert_eq!(escape("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
        assert_eq!(escape("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
        assert_eq!(escape("\u{9b}2J \u{202e}x"), "\\u{9b}2J \\u{202e}x");
        assert!(matches!(escape("Opteron 6174 é"), Cow::Borrowed(_)));
        assert_eq!(text("a\nb\t\x1b[2J\n"), "a\nb\t\\x1b[2J\n");
        assert_eq!(&*text_bytes(b"ok\n"), b"ok\n");
        assert_eq!(&*text_bytes(b"\x1b\xff\n"), "\\x1b\u{fffd}\n".as_bytes());
    }

    #[test]
    fn long_values_are_cut_with_their_length() {
        let long = "x".repeat(5000);
        let v = value(&long);
        assert!(v.ends_with("... (5000 bytes in all)"), "{v}");
        assert_eq!(v.chars().filter(|&c| c == 'x').count(), VALUE_CHARS);
        assert_eq!(value("short"), "short");
        // Cutting never splits a character.
        assert!(cut(&"é".repeat(10), 3).starts_with("ééé..."));
    }

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        assert_eq!(
            csv_text("=HYPERLINK(\"http://x\",\"y\")"),
            "'=HYPERLINK(\"http://x\",\"y\")"
        );
        assert_eq!(csv_text("+cmd"), "'+cmd");
        assert_eq!(csv_text("-2+3"), "'-2+3");
        assert_eq!(csv_text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_text("-1.5"), "-1.5");
        assert_eq!(csv_text("+2e-3"), "+2e-3");
        assert_eq!(csv_text("-inf"), "'-inf");
        assert_eq!(csv_text("node-1"), "node-1");
        assert_eq!(csv_text("a\x1bb"), "a\\x1bb");
    }
}
