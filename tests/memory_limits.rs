//! Memory limits are not ignored: inside a cgroup with a 300 MB limit, sizing from node
//! free memory got `run --quick`, `bandwidth`, `latency --size 1GiB` and `placement --size
//! 1GiB` OOM-killed (137, no message). Checked here three ways:
//! - a snapshot whose cgroup v2 `memory.max` is 300 MB: `latency --size 1GiB` and `placement
//!   --size 1GiB` are refused with one sentence naming the limit, its file and the fix, and
//!   `run --quick --dry-run` sizes every buffer under it and says so;
//! - `prlimit --as` (RLIMIT_AS): a too-large `--size` is refused cleanly, naming the limit;
//! - live, as root, where a memory cgroup can be made (v2 with the memory controller, else
//!   v1): `run --quick --only latency` inside a 300 MB child cgroup finishes (exit 0, not
//!   137) and records the limit, and `latency --size 1GiB` there is refused. Skipped with the
//!   reason printed where the machine allows no such cgroup.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fixture, json_of, numascope};

const LIMIT: u64 = 300 * 1024 * 1024;

fn refused(args: &[&str]) -> String {
    refused_with(args, 2)
}

/// A refusal with another documented exit status (3: the environment refused).
fn refused_with(args: &[&str], code: i32) -> String {
    let out = numascope().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn a_snapshot_cgroup_limit_refuses_big_sizes_and_fits_the_plan() {
    let root = fixture("edge-cgroup-memory-max");
    for cmd in ["latency", "placement"] {
        let err = refused(&[cmd, "--size", "1GiB", "--sysfs-root", &root]);
        assert!(
            err.starts_with("numascope: error: --size 1 GiB does not fit under the cgroup v2 memory.max of 300 MiB set in /sys/fs/cgroup/numascope.slice/job/memory.max (296 MiB of it left for this process); ask for at most that, or raise the cgroup's limit"),
            "{cmd}: {err}"
        );
    }
    // Under the limit the size is not what refuses: the snapshot is (the environment: 3).
    let err = refused_with(&["latency", "--size", "64MiB", "--sysfs-root", &root], 3);
    assert!(err.contains("snapshot"), "{err}");

    let plan = json_of(&[
        "run",
        "--quick",
        "--dry-run",
        "--json",
        "--sysfs-root",
        &root,
    ]);
    let parts = plan["parts"].as_array().unwrap();
    let note = parts[0]["reduced"][0].as_str().unwrap();
    assert_eq!(parts[0]["part"], "topology");
    assert!(
        note.starts_with("every buffer is sized to fit under the cgroup v2 memory.max of 300 MiB"),
        "{note}"
    );
    // The sizes the plan states (MiB/GiB in the detail lines) all fit under the limit.
    for p in parts {
        let detail = p["detail"].as_str().unwrap();
        for w in detail.split([' ', '(', ')', ',']).filter(|w| !w.is_empty()) {
            if let Some(mib) = w.strip_suffix("MiB").and_then(|n| n.parse::<f64>().ok()) {
                assert!(mib * 1048576.0 < LIMIT as f64, "{detail}");
            }
        }
        assert!(!detail.contains("GiB"), "{detail}");
    }
}

#[test]
fn an_address_space_limit_refuses_a_too_large_size() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        println!("skipped: prlimit (util-linux) is not installed");
        return;
    }
    for cmd in ["latency", "placement"] {
        let out = Command::new("prlimit")
            .arg("--as=1073741824")
            .arg(env!("CARGO_BIN_EXE_numascope"))
            .args([cmd, "--size", "2GiB"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.starts_with("numascope: error: --size 2 GiB does not fit under the RLIMIT_AS of 1 GiB set in this process's resource limits (ulimit -v)"),
            "{cmd}: {err}"
        );
        assert!(err.contains("prlimit --as"), "{err}");
    }
    // With no --size, bandwidth's default arrays shrink to fit under the limit and it runs.
    let out = Command::new("prlimit")
        .arg("--as=1073741824")
        .arg(env!("CARGO_BIN_EXE_numascope"))
        .args(["bandwidth", "--kernel", "read", "--duration", "20ms"])
        .args(["--repetitions", "1", "--warmup", "0", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// A child memory cgroup of this process's own, removed on drop.
struct Cgroup {
    dir: PathBuf,
    /// The file that limits it, for the assertions.
    kind: &'static str,
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Makes a 300 MB child cgroup, or says why it cannot.
fn make_cgroup() -> Result<Cgroup, String> {
    let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
    let name = format!("numascope-test-{}", std::process::id());
    let v2_root = Path::new("/sys/fs/cgroup");
    let controllers =
        std::fs::read_to_string(v2_root.join("cgroup.controllers")).unwrap_or_default();
    let (dir, file, kind) = if controllers.split_whitespace().any(|c| c == "memory") {
        let path = own
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .ok_or("no cgroup v2 line in /proc/self/cgroup")?;
        (
            v2_root.join(path.trim_start_matches('/')).join(&name),
            "memory.max",
            "cgroup v2 memory.max",
        )
    } else {
        let path = own
            .lines()
            .find_map(|l| {
                let mut f = l.splitn(3, ':');
                let (_, c, p) = (f.next()?, f.next()?, f.next()?);
                c.split(',').any(|c| c == "memory").then_some(p)
            })
            .ok_or("neither cgroup v2 with the memory controller nor a v1 memory hierarchy")?;
        (
            v2_root
                .join("memory")
                .join(path.trim_start_matches('/'))
                .join(&name),
            "memory.limit_in_bytes",
            "cgroup v1 memory.limit_in_bytes",
        )
    };
    std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let cg = Cgroup { dir, kind };
    std::fs::write(cg.dir.join(file), format!("{LIMIT}\n"))
        .map_err(|e| format!("cannot set {file}: {e}"))?;
    Ok(cg)
}

/// Runs numascope ARGS from a shell that first moves itself into `cg`.
fn inside(cg: &Cgroup, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg("echo $$ > \"$0/cgroup.procs\" && exec \"$@\"")
        .arg(&cg.dir)
        .arg(env!("CARGO_BIN_EXE_numascope"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_live_300_mb_cgroup_runs_the_quick_latency_and_refuses_1_gib() {
    let cg = match make_cgroup() {
        Ok(cg) => cg,
        Err(why) => {
            println!("skipped: no memory cgroup can be made here: {why}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let out = inside(
        &cg,
        &[
            "run",
            "--quick",
            "--only",
            "latency",
            "--output",
            out_dir.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "not a normal exit (137 = OOM-killed): {err}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let limits = &results["topology"]["environment"]["memory_limits"];
    assert_eq!(limits[0]["kind"], cg.kind, "{limits}");
    assert_eq!(limits[0]["limit_bytes"], LIMIT);
    let out = inside(&cg, &["latency", "--size", "1GiB"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("does not fit under the {} of 300 MiB", cg.kind)),
        "{err}"
    );
}
