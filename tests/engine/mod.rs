//! What the engine tests share: finding an engine's program (or skipping with a
//! printed reason when its package is not in this machine's registry), and daemons started
//! in the test's own temporary directory and stopped by a Drop guard, so that a failing
//! assertion leaves no daemon running and nothing in /tmp.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `program` on PATH (or where `tests/install-deps.sh` put it), else `None` after one line
/// saying why the test is skipped. Under CI (CI=true) a program whose Debian package the
/// registry offers must be there: install-deps.sh installs it, so its absence fails the test.
pub fn find(program: &str, package: &str) -> Option<PathBuf> {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools/venv/bin");
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&dirs)
        .chain([local, PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(program))
        .find(|p| p.is_file());
    if found.is_none() {
        let policy = Command::new("apt-cache")
            .args(["policy", package])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        // ReFrame comes from PyPI, which install-deps.sh may not reach: never required here.
        let offered = policy.contains("Candidate: ") && !policy.contains("Candidate: (none)");
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(
            !(ci && offered),
            "{program} is missing although the registry offers {package}: run tests/install-deps.sh"
        );
        eprintln!(
            "skipped: {program} not found ({package}{}; tests/install-deps.sh installs it)",
            if offered {
                " is in the registry but not installed"
            } else {
                " is not in this machine's package registry"
            }
        );
    }
    found
}

/// Daemons started by a test, each killed (SIGTERM, then SIGKILL) and reaped on drop, last
/// started first.
#[derive(Default)]
pub struct Daemons {
    children: Vec<(String, Child)>,
}

impl Daemons {
    /// Starts `cmd` in the background, its output into `log`.
    pub fn start(&mut self, name: &str, cmd: &mut Command, log: &Path) {
        let out = std::fs::File::create(log).unwrap();
        let err = out.try_clone().unwrap();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.children.push((name.to_string(), child));
    }

    /// Fails with the daemon's log when it has exited already.
    pub fn check_running(&mut self, log_of: &dyn Fn(&str) -> String) {
        for (name, c) in &mut self.children {
            if let Ok(Some(status)) = c.try_wait() {
                panic!("{name} exited ({status}): {}", log_of(name));
            }
        }
    }
}

impl Drop for Daemons {
    fn drop(&mut self) {
        while let Some((_, mut c)) = self.children.pop() {
            // SIGTERM first so the daemon removes its sockets and pid files.
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if matches!(c.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Polls `ready` every 100 ms until it holds; panics with `what` after `limit` (a bound that
/// only catches a daemon that never comes up, not a timing assertion).
pub fn wait_until(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < limit,
            "{what} did not happen within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A TCP port nobody listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The path of the numascope binary under test.
pub fn numascope_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_numascope"))
}

/// This host's short name, as `numascope run` names it.
pub fn short_host() -> String {
    let out = Command::new("hostname").arg("-s").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
