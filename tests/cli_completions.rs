//! `numascope completions SHELL` and `numascope man`: a script for every shell clap
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
        }
        // The sections clap does not generate, on every page.
        for section in [".SH \"EXIT STATUS\"", ".SH EXAMPLES", ".SH \"SEE ALSO\""] {
            assert!(roff.contains(section), "{sub:?}: no {section}");
        }
        for page in ["numactl (8)", "lstopo (1)", "numastat (8)"] {
            assert!(roff.contains(page), "{sub:?}: SEE ALSO lacks {page}");
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

/// The values of the flags whose set is fixed, and files for the results `report` and
/// `compare` read, are offered by the completion scripts.
#[test]
fn completions_offer_values_and_results_files() {
    let script = |shell: &str| {
        let out = numascope().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        String::from_utf8(out.stdout).unwrap()
    };
    let bash = script("bash");
    for values in [
        "\"random page seq\"",
        "\"4k thp 2m 1g\"",
        "\"first-touch bind preferred preferred-many interleave weighted\"",
        "\"read write write-nt\"",
        "\"read read-prefetch write write-nt copy",
    ] {
        assert!(bash.contains(values), "bash offers no {values}");
    }
    let zsh = script("zsh");
    for values in [
        ":MODE:(random page seq)",
        ":PAGE:(4k thp 2m 1g)",
        ":POLICY:(first-touch bind preferred preferred-many interleave weighted)",
    ] {
        assert!(zsh.contains(values), "zsh offers no {values}");
    }
    // report's and compare's results (a run directory or a results.json) complete as paths.
    let results: Vec<&str> = zsh.lines().filter(|l| l.contains(":results -- ")).collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        results.iter().all(|l| l.ends_with(":_files' \\")),
        "{results:?}"
    );
}

/// `man --dir DIR` writes the page of numascope and of every subcommand clap defines, the
/// list README's install command relies on (no subcommand named by hand).
#[test]
fn man_dir_writes_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = numascope()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want: Vec<String> = subcommands()
        .iter()
        .map(|s| format!("numascope-{s}.1"))
        .collect();
    want.push("numascope.1".into());
    want.sort();
    let mut got: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    got.sort();
    assert_eq!(got, want);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains("numascope man --dir"),
        "README installs the pages with man --dir"
    );
    assert!(
        !readme.contains("for c in topo"),
        "README lists subcommands by hand"
    );
}
