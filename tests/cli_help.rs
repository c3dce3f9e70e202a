//! `numascope -h` and `numascope run -h` fit one screen (at most 40 lines of at most 100
//! columns): the run's flags are not hoisted into the top-level help, each flag's `-h` line is
//! its short form, and `--help` keeps the long one.

mod common;

use common::numascope;

fn help(args: &[&str]) -> String {
    let out = numascope()
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn fits_a_screen(args: &[&str]) -> String {
    let text = help(args);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 40, "{args:?}: {} lines\n{text}", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 100, "{args:?}: {l}");
    }
    text
}

#[test]
fn top_level_help_fits_a_screen_without_the_run_flags() {
    let top = fits_a_screen(&["-h"]);
    assert!(
        top.contains("--sysfs-root") && top.contains("Commands:"),
        "{top}"
    );
    for flag in [
        "--quick",
        "--dry-run",
        "--only",
        "--page-size",
        "--sample-ms",
    ] {
        assert!(!top.contains(flag), "{flag} hoisted into -h:\n{top}");
    }
    // The long help still lists every exit status; bare `numascope --quick` still parses.
    assert!(help(&["--help"]).contains("129/130/143"));
    let plan = numascope().args(["--quick", "--dry-run"]).output().unwrap();
    assert!(
        plan.status.success(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
}

#[test]
fn run_help_fits_a_screen_and_long_help_keeps_the_detail() {
    let short = fits_a_screen(&["run", "-h"]);
    for flag in ["--quick", "--dry-run", "--only", "--page-size", "--output"] {
        assert!(short.contains(flag), "{flag} missing:\n{short}");
    }
    let long = help(&["run", "--help"]);
    assert!(long.lines().count() > short.lines().count());
    assert!(
        long.contains("latency-matrix") && long.contains("SLURM_PROCID"),
        "{long}"
    );
}
