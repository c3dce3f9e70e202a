//! pdsh: `pdsh -R exec` (Debian's pdsh, installed by tests/install-deps.sh; the exec
//! module runs the command here with `%h` replaced by each host name, no ssh) starts
//! `numascope run` for three host names at once on this one machine, as a site's pdsh would
//! over its nodes. Checked by mechanics, never by timing: while the test holds the host's
//! measuring lock, every host started with `--wait-lock 0s` is refused in one sentence naming
//! the test's PID and writes nothing; once it is free, the three measurements take the lock in
//! turn, each lands in `OUT/%h`, and `numascope fleet OUT` reads all three (too few to judge:
//! it says so first and exits 4).

mod common;
mod engine;

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::process::Command;

use common::numascope;

const HOSTS: [&str; 3] = ["node1", "node2", "node3"];

fn pdsh(lock_dir: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> String {
    let pdsh = engine::find("pdsh", "pdsh").unwrap();
    let o = Command::new(pdsh)
        .args(["-R", "exec", "-f", "3", "-w", &HOSTS.join(",")])
        .arg("env")
        .arg(format!("NUMASCOPE_LOCK_DIR={}", lock_dir.display()))
        .arg(engine::numascope_bin())
        .args(["run", "--quick", "--only", "c2c", "--output"])
        .arg(format!("{}/%h", out.display()))
        .args(extra)
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn pdsh_exec_over_three_host_names_the_lock_keeps_them_apart() {
    if engine::find("pdsh", "pdsh").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let lock = tmp.path().join("numascope.lock");
    {
        // The test holds the measuring lock: a measurement "already running" on this host.
        let f = File::create(&lock).unwrap();
        // SAFETY: flock on a descriptor this test owns and keeps open in this block.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_eq!(rc, 0);
        // The holder's PID in the file, as numascope writes its own.
        std::fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
        let said = pdsh(tmp.path(), &out, &["--wait-lock", "0s"]);
        for h in HOSTS {
            let line = said
                .lines()
                .find(|l| l.starts_with(&format!("{h}: numascope: error: ")))
                .unwrap_or_else(|| panic!("{h} was not refused: {said}"));
            assert!(
                line.contains("holds the measuring lock")
                    && line.contains(&format!("PID {}", std::process::id())),
                "{line}"
            );
            assert!(!out.join(h).exists(), "{h} wrote output while refused");
        }
    }
    // Free: the three take the lock in turn (each waits for the one measuring).
    let said = pdsh(tmp.path(), &out, &[]);
    for h in HOSTS {
        assert!(said.contains(&format!("{h}: run in ")), "{h}: {said}");
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(h).join("results.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(r["partial"], false, "{h}");
    }
    let o = numascope().arg("fleet").arg(&out).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(4), "{text}");
    assert!(text.starts_with("Not judged: "), "{text}");
    assert!(text.contains("Fleet of 3 host(s)"), "{text}");
    for h in HOSTS {
        assert!(text.contains(&format!("{h}/results.json")), "{h}: {text}");
    }
}
