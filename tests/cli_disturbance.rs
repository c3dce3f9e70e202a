//! docs/METHODOLOGY.md, "Testing the test": a busy loop pinned to the CPU a measurement uses must
//! come out flagged, in the JSON and in the text a user reads, and no advice may name a winner
//! from disturbed figures. The busy loop shares the measuring CPU at equal priority, so the
//! scheduler gives each about half of it, far below the 90 % a repetition needs: the check
//! rests on that mechanism, not on any speed, and a busier machine only disturbs more.

mod common;

use std::process::{Child, Command, Stdio};

use common::numascope;

/// A shell busy loop pinned to `cpu`, killed on drop.
struct Hog(Child);

impl Hog {
    fn on(cpu: u32) -> Option<Hog> {
        let child = Command::new("taskset")
            .args(["-c", &cpu.to_string(), "sh", "-c", "while :; do :; done"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        Some(Hog(child))
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn allowed(cpu: u32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or("")
        .trim()
        .to_string();
    list.split(',').any(|part| match part.split_once('-') {
        Some((a, b)) => {
            a.parse::<u32>().is_ok_and(|a| a <= cpu) && b.parse::<u32>().is_ok_and(|b| cpu <= b)
        }
        None => part.parse::<u32>() == Ok(cpu),
    })
}

#[test]
fn a_busy_loop_on_the_measuring_cpu_is_flagged_in_json_and_text() {
    if !allowed(0) || Command::new("taskset").arg("--version").output().is_err() {
        eprintln!("skipped: CPU 0 is not usable here or taskset is missing");
        return;
    }
    let _hog = Hog::on(0).expect("start a busy loop");
    let args = [
        "bandwidth",
        "--cpus",
        "0",
        "--kernel",
        "read",
        "--size",
        "64MiB",
        "--duration",
        "50ms",
        "--repetitions",
        "6",
    ];
    let out = numascope().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &v["results"][0];
    let q = &result["quality"];
    assert!(q.is_object(), "no quality record: {result}");
    let taken = q["repetitions_taken"].as_u64().unwrap();
    let kept = q["repetitions_kept"].as_u64().unwrap();
    let discarded = q["repetitions_discarded"].as_u64().unwrap();
    assert_eq!(taken, kept + discarded, "{q}");
    assert!(discarded > 0 || q["disturbed"] == true, "{q}");
    assert_eq!(
        q["disturbed"], true,
        "the busy loop outlasted every retake: {q}"
    );
    let warnings = v["warnings"].as_array().cloned().unwrap_or_default();
    assert!(
        !warnings.is_empty(),
        "a disturbed figure gives a warning: {v}"
    );

    let text = numascope().args(args).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(
        text.contains("CPU 0") && text.to_lowercase().contains("disturbed"),
        "the terminal shows the disturbance:\n{text}"
    );
}
