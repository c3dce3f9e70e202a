//! `numascope completions SHELL` and `numascope man` (issue 15): a script for every shell clap
//! supports that names every subcommand, and man pages that `man -l` renders (where man is
//! installed; the roff structure is checked everywhere).

mod common;

use common::numascope;

/// The subcommands, from `numascope --help` (its "Commands:" block).
fn subcommands() -> Vec<String> {
    let out = numascope().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let block = help
        .split("Commands:\n")
        .nth(1)
        .expect("--help lists the commands");
    block
        .lines()
        .take_while(|l| l.starts_with("  "))
        // A wrapped description continues further indented.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_shell_gets_a_script_naming_every_subcommand() {
    let subs = subcommands();
    assert!(subs.len() >= 13, "{subs:?}");
    for s in ["completions", "man", "inspect", "loaded-latency"] {
        assert!(subs.iter().any(|x| x == s), "{s} missing from {subs:?}");
    }
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = numascope().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.len() > 1000, "{shell}: {script}");
        for s in &subs {
            assert!(script.contains(s.as_str()), "{shell}: no `{s}`");
        }
        assert!(script.contains("--sysfs-root"), "{shell}");
    }
    let out = numascope().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn man_pages_are_roff_that_man_renders() {
    let man_installed = std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let mut pages = vec![None];
    pages.extend(subcommands().into_iter().map(Some));
    for sub in pages {
        let mut cmd = numascope();
        cmd.arg("man");
        if let Some(s) = &sub {
            cmd.arg(s);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{sub:?}");
        let roff = String::from_utf8(out.stdout).unwrap();
        let title = match &sub {
            None => ".TH numascope 1".to_string(),
            Some(s) => format!(".TH numascope-{s} 1"),
        };
        assert!(roff.contains(&title), "{sub:?}: {roff}");
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS"] {
            assert!(roff.contains(section), "{sub:?}: no {section}");
        }
        if sub.is_none() {
            assert!(roff.contains(".SH SUBCOMMANDS"), "{roff}");
            assert!(roff.contains("Exit status"), "the statuses are in the page");
        }
        if man_installed {
            let dir = tempfile::tempdir().unwrap();
            let f = dir.path().join("numascope.1");
            std::fs::write(&f, &roff).unwrap();
            let shown = std::process::Command::new("man")
                .arg("-l")
                .arg(&f)
                .env("MANPAGER", "cat")
                .env("PAGER", "cat")
                .env("MANWIDTH", "80")
                .output()
                .unwrap();
            assert!(shown.status.success(), "{sub:?}");
            let err = String::from_utf8_lossy(&shown.stderr);
            assert!(!err.contains("warning"), "{sub:?}: {err}");
            let text = String::from_utf8_lossy(&shown.stdout);
            assert!(
                text.contains("NAME") && text.contains("numascope"),
                "{text}"
            );
        } else {
            eprintln!("skipped: man is not installed; the roff structure was checked");
        }
    }
}
