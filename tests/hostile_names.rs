//! Hostile input, names and templates: an `--output` template's `{host}`, `{date}`
//! or `{rank}` whose value is `..`, holds a `/`, a NUL or a control character must be refused
//! in one sentence naming the placeholder, never expanded into a path that lands outside the
//! directory the template names. The end-to-end case gives the run a host name of `..` in
//! its own UTS namespace (root only; skipped with a printed reason elsewhere).

use std::path::{Path, PathBuf};

use numascope::launcher::{expand_output, TemplateValues};

fn values(host: &str, date: &str) -> TemplateValues {
    TemplateValues {
        host: host.into(),
        date: date.into(),
        rank: None,
    }
}

fn refused(template: &str, v: &TemplateValues, placeholder: &str) {
    let r = expand_output(Path::new(template), v);
    let e = match r {
        Ok(p) => panic!("{template} with {v:?} expanded to {}", p.display()),
        Err(e) => e.to_string(),
    };
    assert!(e.contains(placeholder), "{e}");
    assert!(!e.contains('\u{1b}') && !e.contains('\0'), "{e:?}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn a_host_of_dot_dot_is_refused() {
    refused("res/{host}/x", &values("..", "20260101-000000"), "{host}");
    // A value that merely contains dots is a name, not a way out.
    let p = expand_output(Path::new("res/{host}"), &values("..a", "d")).unwrap();
    assert_eq!(p, PathBuf::from("res/..a"));
}

#[test]
fn a_host_with_a_slash_is_refused() {
    refused(
        "res/{host}",
        &values("a/../../etc", "20260101-000000"),
        "{host}",
    );
    // Ordinary values still expand.
    let p = expand_output(
        Path::new("res/{host}-{date}"),
        &values("node-1.example", "20260101-000000"),
    )
    .unwrap();
    assert_eq!(p, PathBuf::from("res/node-1.example-20260101-000000"));
}

#[test]
fn a_host_with_a_nul_or_a_control_character_is_refused() {
    refused("res/{host}", &values("a\0b", "20260101-000000"), "{host}");
    refused(
        "res/{host}",
        &values("a\u{1b}]0;x\u{7}", "20260101-000000"),
        "{host}",
    );
}

#[test]
fn a_date_of_dot_dot_or_with_a_slash_is_refused() {
    refused("res/{date}/x", &values("h", ".."), "{date}");
    refused("res/{date}", &values("h", "2026/../../x"), "{date}");
}

/// True when this process may make its own UTS namespace (root on Linux with `unshare`).
fn can_unshare_uts() -> bool {
    std::process::Command::new("unshare")
        .args(["-u", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_run_on_a_host_named_dot_dot_writes_nothing_outside_its_template() {
    if !can_unshare_uts() {
        println!("skipped: cannot make a UTS namespace here (needs root and unshare) to name the host `..`");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("res")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("numascope");
    let script = format!(
        "printf .. > /proc/sys/kernel/hostname && exec '{}' run --only topology --output 'res/{{host}}/x'",
        bin.display()
    );
    let out = std::process::Command::new("unshare")
        .args(["-u", "sh", "-c", &script])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("numascope: error: "), "{err}");
    assert!(err.contains("{host}"), "{err}");
    // Nothing escaped res/: the temporary directory holds res/ only, and res/ is empty.
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["res"], "files landed outside res/");
    assert_eq!(
        std::fs::read_dir(tmp.path().join("res")).unwrap().count(),
        0
    );
}
