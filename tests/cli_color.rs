//! `--color auto|always|never`, `NO_COLOR` and `--quiet`. Colour marks warnings,
//! errors and the verdict only; without colour the output is byte-identical to what numascope
//! printed before colour existed (a pipe, as here, gets none in auto mode). `--quiet` leaves
//! the figures, warnings and errors and drops the notes.

mod common;

use common::{fixture, numascope};

const ESC: &str = "\u{1b}[";

fn results() -> &'static str {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/this-machine-kvm-2cpu.json"
    )
}

/// `numascope ARGS` with the colour variables of the caller's environment removed and `env`
/// set; (stdout, stderr).
fn run(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let mut cmd = numascope();
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn always_colours_warnings_errors_and_never_and_auto_into_a_pipe_do_not() {
    let plain = run(&["report", results()], &[]).0;
    assert!(!plain.contains(ESC));
    assert!(plain.contains("\nwarning: "), "the fixture has warnings");
    let (never, _) = run(&["report", results(), "--color", "never"], &[]);
    assert_eq!(never, plain);
    let (always, _) = run(&["report", results(), "--color", "always"], &[]);
    assert!(always.contains("\u{1b}[33mwarning:\u{1b}[0m "), "{always}");
    // Only escapes were added.
    let stripped = always
        .replace("\u{1b}[33m", "")
        .replace("\u{1b}[32m", "")
        .replace("\u{1b}[1m\u{1b}[31m", "")
        .replace("\u{1b}[0m", "");
    assert_eq!(stripped, plain);
    // stderr: warnings in yellow, errors in red.
    let root = fixture("corrupt-memfree-above-total");
    let (_, err) = run(&["--sysfs-root", &root, "topo", "--color", "always"], &[]);
    assert!(
        err.contains(&format!("numascope: {ESC}33mwarning:")),
        "{err}"
    );
    let (_, err) = run(&["--sysfs-root", &root, "topo"], &[]);
    assert!(
        err.starts_with("numascope: warning: ") && !err.contains(ESC),
        "{err}"
    );
    let (_, err) = run(&["report", "/nonexistent.json", "--color=always"], &[]);
    assert!(err.starts_with(&format!("numascope: {ESC}")), "{err}");
    assert!(err.contains("error:"), "{err}");
}

#[test]
fn no_color_wins_over_clicolor_force_but_not_over_color_always() {
    let (forced, _) = run(&["report", results()], &[("CLICOLOR_FORCE", "1")]);
    assert!(
        forced.contains(ESC),
        "CLICOLOR_FORCE colours a pipe in auto mode"
    );
    let (no, _) = run(
        &["report", results()],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
    );
    assert!(!no.contains(ESC), "NO_COLOR turns colour off");
    let (always, _) = run(
        &["report", results(), "--color", "always"],
        &[("NO_COLOR", "1")],
    );
    assert!(always.contains(ESC), "an explicit --color always wins");
}

#[test]
fn quiet_drops_notes_and_keeps_figures() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let html = html.to_str().unwrap();
    let (out, err) = run(&["report", results(), "--html", html, "--text"], &[]);
    assert!(err.starts_with("wrote "), "{err}");
    let html2 = dir.path().join("q.html");
    let (quiet_out, quiet_err) = run(
        &[
            "report",
            results(),
            "--html",
            html2.to_str().unwrap(),
            "--text",
            "-q",
        ],
        &[],
    );
    assert_eq!(quiet_err, "", "no note with --quiet");
    assert_eq!(quiet_out, out, "the figures stay");
    assert!(html2.exists());
    // capture's summary line is a note too.
    let snap = dir.path().join("snap");
    let root = fixture("guest-A");
    let (_, err) = run(
        &[
            "-q",
            "--sysfs-root",
            &root,
            "capture",
            snap.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(err, "");
    assert!(snap.join("sys/devices/system").is_dir());
    // Warnings and errors stay.
    let root = fixture("corrupt-memfree-above-total");
    let (_, err) = run(&["--quiet", "--sysfs-root", &root, "topo"], &[]);
    assert!(err.contains("warning:"), "{err}");
    let (_, err) = run(&["--quiet", "report", "/nonexistent.json"], &[]);
    assert!(err.starts_with("numascope: error: "), "{err}");
}
