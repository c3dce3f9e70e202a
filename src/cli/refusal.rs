//! clap's own refusals (an unknown flag, a bad value, a missing argument) in the form of every
//! other error: one line, `numascope: error: <sentence>` (or the JSON object with `--json`),
//! exit status 2, keeping clap's tip ("a similar argument exists: '--quick'") and naming the
//! help that lists what the command takes.

use super::ui;
use crate::error::Kind;

/// clap's refusal as the one line every error is (`numascope: error: ...`, or the JSON
/// object with `--json`), exit status 2; its help and version, which are not errors, as clap
/// prints them, exit status 0.
pub(super) fn clap_error(e: &clap::Error, argv: &[std::ffi::OsString], json: bool) -> i32 {
    if !e.use_stderr() {
        let _ = e.print();
        return 0;
    }
    // Rendered again without styles, so the text holds no escape sequence of clap's own and
    // an argument's control characters reach the sanitizer as given (an ESC shows as `\x1b`).
    let plain = super::command()
        .styles(clap::builder::styling::Styles::plain())
        .color(clap::ColorChoice::Never)
        .try_get_matches_from(argv)
        .err()
        .map_or_else(|| e.to_string(), |p| p.render().ansi().to_string());
    let mut sentence = clap_sentence(&plain);
    if let Some(tip) = similar_subcommand(e) {
        sentence = format!("{sentence}; {tip}");
    }
    sentence = format!("{sentence}; `{}` lists what it takes", help_of(argv));
    let code = Kind::Usage.exit_code();
    if json {
        ui::error_json(&sentence, code, Kind::Usage.name());
    } else {
        ui::error_line(&sentence);
    }
    code
}

/// clap's error text in one sentence: its first paragraph (the refusal, naming the argument
/// and the value) and its tips ("a similar argument exists: '--quick'"); the usage block and
/// "For more information" are left out.
fn clap_sentence(text: &str) -> String {
    let mut paragraphs = text.split("\n\n");
    let first: Vec<&str> = paragraphs
        .next()
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let first = first.join(" ");
    let mut parts = vec![first.strip_prefix("error: ").unwrap_or(&first).to_string()];
    for line in paragraphs.flat_map(str::lines).map(str::trim) {
        if let Some(tip) = line.strip_prefix("tip: ") {
            parts.push(tip.to_string());
        }
    }
    parts.join("; ")
}

/// The help that lists what the refused command line's subcommand takes:
/// `numascope run --help`, or `numascope --help` before any subcommand.
fn help_of(argv: &[std::ffi::OsString]) -> String {
    let names = super::man::subcommand_names();
    let sub = argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .map(|a| a.to_string_lossy())
        .find(|a| names.iter().any(|n| n == a));
    match sub {
        Some(s) => format!("numascope {s} --help"),
        None => "numascope --help".into(),
    }
}

/// clap names no similar subcommand when the top level also takes the run's flags; a word
/// close to a subcommand's name (at most two edits, or its beginning) gets the tip here.
fn similar_subcommand(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand || e.get(ContextKind::SuggestedSubcommand).is_some()
    {
        return None;
    }
    let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let best = super::man::subcommand_names()
        .into_iter()
        .map(|n| (edits(word, &n), n))
        .filter(|(d, n)| *d <= 2 || (word.len() >= 2 && n.starts_with(word.as_str())))
        .min()?;
    Some(format!("a similar subcommand exists: '{}'", best.1))
}

/// Levenshtein distance between two short words.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_text_becomes_one_sentence_with_its_tip() {
        let text = "error: unexpected argument '--quik' found\n\n  tip: a similar argument exists: '--quick'\n\nUsage: numascope run --quick\n\nFor more information, try '--help'.\n";
        assert_eq!(
            clap_sentence(text),
            "unexpected argument '--quik' found; a similar argument exists: '--quick'"
        );
        let missing = "error: the following required arguments were not provided:\n  <DIR|RESULTS.json>\n\nUsage: numascope report <DIR|RESULTS.json>\n";
        assert_eq!(
            clap_sentence(missing),
            "the following required arguments were not provided: <DIR|RESULTS.json>"
        );
        assert_eq!(edits("rnu", "run"), 2);
        assert_eq!(edits("latency", "latency"), 0);
    }
}
