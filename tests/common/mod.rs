//! Helpers the end-to-end tests share: the binary under test, a replayed topology fixture,
//! a run that must succeed and print JSON, and whether this machine has the two CPUs the
//! pinned measurements need. Each test file uses only some of them.
#![allow(dead_code)]

use assert_cmd::Command;

/// The `numascope` binary of this build.
pub fn numascope() -> Command {
    Command::cargo_bin("numascope").unwrap()
}

/// The path of `tests/fixtures/topology/NAME`, for `--sysfs-root`.
pub fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/topology/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs `numascope ARGS`, which must succeed (its stderr is shown otherwise), and parses
/// what it printed as JSON.
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let out = numascope().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// True where at least two CPUs are usable; says the test is skipped otherwise.
pub fn two_cpus(what: &str) -> bool {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    if n < 2 {
        eprintln!("skipped: {what} needs two CPUs");
    }
    n >= 2
}

/// Checks a refusal: exit 2, nothing on stdout, and one line on stderr that starts with
/// `numascope: error: ` and contains `needle`.
pub fn refused_in_one_sentence(cmd: &mut Command, needle: &str) {
    refused_in_one_sentence_with(cmd, needle, 2)
}

/// [`refused_in_one_sentence`] with another exit status (3: the environment refused).
pub fn refused_in_one_sentence_with(cmd: &mut Command, needle: &str, code: i32) {
    use predicates::prelude::*;
    cmd.assert()
        .code(code)
        .stdout("")
        .stderr(
            predicate::str::starts_with("numascope: error: ").and(predicate::str::contains(needle)),
        )
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

/// For a child the test will stop with a signal: SIGINT, SIGTERM and SIGHUP back at their
/// default disposition, whatever the test runner inherited. A background job in a script
/// ignores SIGINT, `nohup` ignores SIGHUP, and numascope keeps a signal that was ignored at
/// its start ignored (as a shell job expects), so without this the test would depend on how
/// the suite was started.
pub trait DefaultStopSignals {
    fn default_stop_signals(&mut self) -> &mut Self;
}

impl DefaultStopSignals for std::process::Command {
    fn default_stop_signals(&mut self) -> &mut Self {
        use std::os::unix::process::CommandExt;
        // SAFETY: only signal(2), which is async-signal-safe, runs between fork and exec.
        unsafe {
            self.pre_exec(|| {
                for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(s, libc::SIG_DFL);
                }
                Ok(())
            })
        }
    }
}
