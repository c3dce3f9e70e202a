//! How numascope speaks on the terminal besides its figures: colour (`--color`, `NO_COLOR`),
//! quiet mode (`--quiet`), notes, warnings, progress bars and the error line or JSON error
//! object. The settings are read once from the command line in `cli::main` and kept here for
//! the process, because progress bars and notes are drawn from several subcommands and the
//! renderers below the CLI must not learn about terminals. Colour is only added on top of the
//! rendered text, line by line, so output with colour off is byte-identical to output before
//! colour existed.
//!
//! Everything written here passes through the one sanitizer (`crate::sanitize`): rendered
//! text and stderr lines carry values from snapshots, results files and arguments, whose
//! control characters are shown escaped before colour is added. Nothing here panics on a
//! closed or full stream: a line that cannot be written to stderr is dropped (the exit status
//! still says what happened), and stdout's failure is returned to the caller.

use std::ffi::OsString;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// When to colour the output (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// Colour on a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces it).
    #[default]
    Auto,
    /// Always colour, even into a pipe or a file, and despite NO_COLOR.
    Always,
    /// Never colour.
    Never,
}

static QUIET: AtomicBool = AtomicBool::new(false);

/// Takes the colour choice and quiet mode for the rest of the process.
pub fn configure(color: ColorWhen, quiet: bool) {
    let choice = match color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
    QUIET.store(quiet, Ordering::Relaxed);
}

/// True with `--quiet`: no progress bars and no notes, only figures, warnings and errors.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Where progress bars draw: stderr (indicatif shows them only on a terminal), or nowhere
/// with `--quiet`.
pub fn progress_target() -> indicatif::ProgressDrawTarget {
    if quiet() {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    }
}

/// True when progress should be shown: stderr is a terminal and `--quiet` was not given.
pub fn show_progress() -> bool {
    use std::io::IsTerminal as _;
    !quiet() && std::io::stderr().is_terminal()
}

/// A note on stderr (what was written where, how long a part took); silent with `--quiet`.
pub fn note(text: impl std::fmt::Display) {
    if !quiet() {
        stderr_line(&crate::sanitize::text(&text.to_string()));
    }
}

/// One line on stderr, never a panic: a closed or full stderr loses the line, and the exit
/// status still tells what happened.
pub fn stderr_line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}").and_then(|()| err.flush());
}

fn colors<S: anstream::stream::RawStream>(stream: &S) -> bool {
    anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never
}

/// True when stdout gets colour.
pub fn colors_stdout() -> bool {
    colors(&std::io::stdout())
}

fn colors_stderr() -> bool {
    colors(&std::io::stderr())
}

const RED: anstyle::Style = anstyle::AnsiColor::Red.on_default().bold();
const YELLOW: anstyle::Style = anstyle::AnsiColor::Yellow.on_default();
const GREEN: anstyle::Style = anstyle::AnsiColor::Green.on_default();

fn styled(style: anstyle::Style, text: &str, on: bool) -> String {
    if on {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// `numascope: warning: TEXT` on stderr, "warning" in yellow when colour is on.
pub fn warning(text: impl std::fmt::Display) {
    stderr_line(&format!(
        "numascope: {} {}",
        styled(YELLOW, "warning:", colors_stderr()),
        crate::sanitize::sentence(&text.to_string())
    ));
}

/// `numascope: error: TEXT` on stderr, "error" in red when colour is on.
pub fn error_line(text: &str) {
    stderr_line(&format!(
        "numascope: {} {}",
        styled(RED, "error:", colors_stderr()),
        crate::sanitize::sentence(text)
    ));
}

/// The error as one JSON object on one stderr line: `{"error", "exit_code", "kind"}`.
pub fn error_json(text: &str, exit_code: i32, kind: &str) {
    let v = serde_json::json!({ "error": text, "exit_code": exit_code, "kind": kind });
    stderr_line(&v.to_string());
}

/// True when `--json` is on the command line (before a `--`): errors, even clap's, are then
/// printed as a JSON object.
pub fn json_requested(argv: &[OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// The `--color` value on the command line, read before clap parses it, so clap's own help
/// and errors follow it too. `None` when absent or not a known value (clap then says so).
pub fn color_in_argv(argv: &[OsString]) -> Option<ColorWhen> {
    let args: Vec<&str> = argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .filter_map(|a| a.to_str())
        .collect();
    let mut found = None;
    for (i, a) in args.iter().enumerate() {
        let value = match a.strip_prefix("--color") {
            Some("") => args.get(i + 1).copied(),
            Some(v) => v.strip_prefix('='),
            None => None,
        };
        found = match value {
            Some("auto") => Some(ColorWhen::Auto),
            Some("always") => Some(ColorWhen::Always),
            Some("never") => Some(ColorWhen::Never),
            _ => found,
        };
    }
    found
}

/// Colours the lines of rendered text that help a reader when colour is on: the verdict
/// (quiet green, noisy yellow, unusable red), `compare`'s verdict (no difference green, a
/// difference yellow), `warning:` lines and `!` marks in yellow.
/// Without colour the text is returned unchanged.
pub fn paint(text: &[u8], on: bool) -> Vec<u8> {
    if !on {
        return text.to_vec();
    }
    let text = String::from_utf8_lossy(text);
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let (style, word) = if let Some(rest) = body.strip_prefix("verdict: ") {
            match rest.split(':').next().unwrap_or("") {
                "quiet" => (Some(GREEN), "verdict:"),
                "noisy" => (Some(YELLOW), "verdict:"),
                "unusable" => (Some(RED), "verdict:"),
                _ => (None, ""),
            }
        } else if let Some(rest) = body.strip_prefix("Verdict: ") {
            // `compare`'s verdict: the whole sentence.
            let style = if rest.starts_with("no difference") {
                Some(GREEN)
            } else if rest.starts_with("the runs differ") {
                Some(YELLOW)
            } else {
                None
            };
            if let Some(st) = style {
                let sentence = rest.trim_end_matches('\n');
                out.push_str(indent);
                out.push_str("Verdict: ");
                out.push_str(&styled(st, sentence, true));
                out.push_str(&rest[sentence.len()..]);
                continue;
            }
            (None, "")
        } else if body.starts_with("warning: ") {
            (Some(YELLOW), "warning:")
        } else if body.starts_with("! ") {
            (Some(YELLOW), "!")
        } else {
            (None, "")
        };
        match style {
            Some(s) => {
                let rest = &body[word.len()..];
                if word == "verdict:" {
                    // Colour the verdict word itself ("quiet", "noisy", "unusable").
                    let after = rest.trim_start_matches(' ');
                    let gap = &rest[..rest.len() - after.len()];
                    let end = after.find(':').unwrap_or(after.len());
                    out.push_str(indent);
                    out.push_str(word);
                    out.push_str(gap);
                    out.push_str(&styled(s, &after[..end], true));
                    out.push_str(&after[end..]);
                } else {
                    out.push_str(indent);
                    out.push_str(&styled(s, word, true));
                    out.push_str(rest);
                }
            }
            None => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// Writes rendered text to stdout, coloured by [`paint`] when stdout gets colour.
pub fn write_stdout(text: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let clean = crate::sanitize::text_bytes(text);
    out.write_all(&paint(&clean, colors_stdout()))?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn json_and_color_are_found_before_a_double_dash() {
        assert!(json_requested(&argv(&["numascope", "topo", "--json"])));
        assert!(!json_requested(&argv(&[
            "numascope",
            "topo",
            "--",
            "--json"
        ])));
        assert!(!json_requested(&argv(&["numascope", "--jsonx"])));
        assert_eq!(
            color_in_argv(&argv(&["n", "--color", "always", "topo"])),
            Some(ColorWhen::Always)
        );
        assert_eq!(
            color_in_argv(&argv(&["n", "topo", "--color=never"])),
            Some(ColorWhen::Never)
        );
        assert_eq!(color_in_argv(&argv(&["n", "--color", "pink"])), None);
    }

    #[test]
    fn paint_colours_only_marked_lines_and_nothing_when_off() {
        let text = b"figure 12 ns\nverdict: quiet: all good\n  warning: CPU share 47 %\n";
        assert_eq!(paint(text, false), text.to_vec());
        let p = String::from_utf8(paint(text, true)).unwrap();
        assert!(p.starts_with("figure 12 ns\nverdict: \u{1b}["), "{p:?}");
        assert!(p.contains("quiet\u{1b}[0m: all good\n"), "{p:?}");
        assert!(
            p.contains("  \u{1b}[33mwarning:\u{1b}[0m CPU share"),
            "{p:?}"
        );
        let plain: String = anstream::adapter::strip_str(&p).to_string();
        assert_eq!(plain.as_bytes(), text);
        let text = b"Verdict: the runs differ beyond noise (exit status 1).\n";
        let p = String::from_utf8(paint(text, true)).unwrap();
        assert_eq!(
            p,
            "Verdict: \u{1b}[33mthe runs differ beyond noise (exit status 1).\u{1b}[0m\n"
        );
    }
}
