//! Running under the launchers a site already has (Slurm `srun`, Open MPI `mpirun`, pdsh):
//! the launcher's rank read from its environment, `--output` templates (`{host}`, `{date}`,
//! `{rank}`) that give every host and rank its own directory, and the per-host measuring lock
//! that keeps two measuring processes on one host (a wrong `--ntasks-per-node`, two users at
//! once) from measuring each other. The lock itself is `sys::lock` (flock); this module
//! decides where it lives and how a second process waits or is refused.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::sys::lock::{Attempt, FileLock};

/// The environment variables launchers set to a process's rank, in the order they are read.
pub const RANK_VARIABLES: [&str; 4] = [
    "SLURM_PROCID",
    "OMPI_COMM_WORLD_RANK",
    "PMI_RANK",
    "PMIX_RANK",
];

/// The launcher's rank of this process: the first of [`RANK_VARIABLES`] that holds a number,
/// with the variable's name; `None` outside a launcher.
pub fn rank() -> Option<(u64, &'static str)> {
    rank_from(|k| std::env::var(k).ok())
}

/// [`rank`] with the environment given as a lookup (for tests).
pub fn rank_from(get: impl Fn(&str) -> Option<String>) -> Option<(u64, &'static str)> {
    RANK_VARIABLES
        .iter()
        .find_map(|&k| get(k)?.trim().parse().ok().map(|r| (r, k)))
}

/// What `{host}`, `{date}` and `{rank}` stand for in an `--output` template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateValues {
    /// The host name, made safe for a file name.
    pub host: String,
    /// The start time, `YYYYMMDD-HHMMSS` UTC.
    pub date: String,
    /// The launcher's rank, when there is one.
    pub rank: Option<u64>,
}

/// Refuses a placeholder's value that would leave the directory the template names or
/// carry bytes no file name should: a `/`, a whole `..`, a NUL or a control character.
fn check_value(text: &str, name: &str, value: &str) -> anyhow::Result<()> {
    let why = if value == ".." {
        Some("a path component that leads out of its directory")
    } else if value.contains('/') {
        Some("a `/`")
    } else if value.contains('\0') {
        Some("a NUL byte")
    } else if value.chars().any(char::is_control) {
        Some("a control character")
    } else {
        None
    };
    match why {
        Some(why) => anyhow::bail!(
            "--output `{}`: {{{name}}} stands for `{}` here, which is {why}, so the path could land outside the directory you named; use a template without {{{name}}} or fix the value",
            crate::sanitize::value(text),
            crate::sanitize::value(value)
        ),
        None => Ok(()),
    }
}

/// Expands an `--output` template; a path without `{` is returned as it is. An unknown
/// placeholder, an unclosed `{`, `{rank}` outside a launcher, or a value that would lead out of
/// the named directory (`check_value`) is one sentence naming it.
pub fn expand_output(template: &Path, v: &TemplateValues) -> anyhow::Result<PathBuf> {
    let Some(text) = template.to_str() else {
        return Ok(template.to_path_buf());
    };
    if !text.contains('{') {
        return Ok(template.to_path_buf());
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            anyhow::bail!(
                "--output `{text}` has a `{{` without its `}}`; the placeholders are {{host}}, {{date}} and {{rank}}"
            );
        };
        match &after[..close] {
            "host" => {
                check_value(text, "host", &v.host)?;
                out.push_str(&v.host)
            }
            "date" => {
                check_value(text, "date", &v.date)?;
                out.push_str(&v.date)
            }
            "rank" => match v.rank {
                Some(r) => {
                    let r = r.to_string();
                    check_value(text, "rank", &r)?;
                    out.push_str(&r)
                }
                None => anyhow::bail!(
                    "--output `{text}` uses {{rank}}, but no launcher rank is set ({}); start numascope under srun or mpirun, or use {{host}} instead",
                    RANK_VARIABLES.join(", ")
                ),
            },
            other => anyhow::bail!(
                "--output `{text}` has the unknown placeholder {{{other}}}; the placeholders are {{host}}, {{date}} and {{rank}}"
            ),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(PathBuf::from(out))
}

/// The environment variable that moves the measuring lock (a site's own lock directory, or a
/// test that must not wait for others).
pub const LOCK_DIR_VARIABLE: &str = "NUMASCOPE_LOCK_DIR";
/// The lock file's name.
pub const LOCK_FILE: &str = "numascope.lock";
/// Where the measuring lock is looked for, first usable wins: every user of the host sees the
/// same file there (a per-user directory such as `$XDG_RUNTIME_DIR` would not).
pub const LOCK_DIRS: [&str; 3] = ["/run/lock", "/var/lock", "/tmp"];

/// How a measuring process treats a measuring lock another process holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Wait until it is free (the default), printing once that it waits and for whom.
    Forever,
    /// Wait at most this long, then refuse (`--wait-lock 0s` refuses at once).
    AtMost(Duration),
}

/// A stop signal arrived while waiting for the measuring lock: nothing was measured.
#[derive(Debug, thiserror::Error)]
#[error("stopped by {reason} while waiting for the measuring lock {path} (held by {holder}); nothing was measured")]
pub struct StoppedWaiting {
    pub reason: &'static str,
    pub path: String,
    pub holder: String,
}

fn holder(pid: Option<u32>) -> String {
    pid.map_or("another process".into(), |p| format!("PID {p}"))
}

/// Takes the per-host measuring lock: in `$NUMASCOPE_LOCK_DIR` when set, else the first of
/// [`LOCK_DIRS`] where the lock file opens. A lock held elsewhere is waited for as `wait` says
/// (polling every 100 ms, stopping on SIGINT/SIGTERM/SIGHUP) and `notice` is called once with
/// the sentence saying so; at the end of the wait, one sentence naming the holder's PID.
pub fn measuring_lock(wait: Wait, notice: &mut dyn FnMut(&str)) -> anyhow::Result<FileLock> {
    let dirs: Vec<PathBuf> = match std::env::var_os(LOCK_DIR_VARIABLE) {
        Some(d) if !d.is_empty() => vec![PathBuf::from(d)],
        _ => LOCK_DIRS.iter().map(PathBuf::from).collect(),
    };
    let mut last_err = None;
    for d in &dirs {
        let path = d.join(LOCK_FILE);
        match FileLock::try_exclusive(&path) {
            Ok(a) => return wait_for(&path, a, wait, notice),
            Err(e) => last_err = Some(e),
        }
    }
    let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    anyhow::bail!(
        "cannot open the measuring lock {LOCK_FILE} in {} ({}); set {LOCK_DIR_VARIABLE} to a writable directory",
        shown.join(", "),
        last_err.map(|e| e.to_string()).unwrap_or_default()
    )
}

fn wait_for(
    path: &Path,
    mut attempt: Attempt,
    wait: Wait,
    notice: &mut dyn FnMut(&str),
) -> anyhow::Result<FileLock> {
    let started = Instant::now();
    let mut told = false;
    loop {
        let busy = match attempt {
            Attempt::Held(l) => return Ok(l),
            Attempt::Busy(b) => b,
        };
        let pid = busy.holder;
        let shown = path.display().to_string();
        let limit = match wait {
            Wait::Forever => None,
            Wait::AtMost(d) => Some(d),
        };
        if limit.is_some_and(|d| started.elapsed() >= d) {
            let waited = if limit == Some(Duration::ZERO) {
                String::new()
            } else {
                format!(" after waiting {:.0} s", started.elapsed().as_secs_f64())
            };
            anyhow::bail!(
                "another numascope measurement ({}) holds the measuring lock {shown} on this host{waited}; measuring at the same time would measure each other: wait for it, or give --wait-lock a longer time",
                holder(pid)
            );
        }
        if crate::sys::signal::interrupted() {
            return Err(StoppedWaiting {
                reason: crate::sys::signal::stop_reason(),
                path: shown,
                holder: holder(pid),
            }
            .into());
        }
        if !told && limit != Some(Duration::ZERO) {
            notice(&format!(
                "numascope: waiting for the measuring lock {shown}, held by {} (another measurement on this host); --wait-lock 0s refuses instead",
                holder(pid)
            ));
            told = true;
        }
        std::thread::sleep(Duration::from_millis(100));
        attempt = busy.retry()?;
    }
}

/// Locks the output directory `dir` for this run: a second process writing into the same
/// directory (even with `--force`) is refused in one sentence. Nothing is left in the directory.
pub fn output_lock(dir: &Path) -> anyhow::Result<FileLock> {
    match FileLock::try_exclusive(dir)? {
        Attempt::Held(l) => Ok(l),
        Attempt::Busy(_) => anyhow::bail!(
            "another numascope run is writing into {} right now; choose another --output DIR (e.g. with {{host}} or {{rank}} in it), or wait until it finishes",
            dir.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(rank: Option<u64>) -> TemplateValues {
        TemplateValues {
            host: "node7".into(),
            date: "20261123-220000".into(),
            rank,
        }
    }

    #[test]
    fn templates_expand_and_unknown_placeholders_are_refused() {
        let e = |t: &str, r| expand_output(Path::new(t), &values(r));
        assert_eq!(
            e("out/{host}-{rank}/{date}", Some(3)).unwrap(),
            PathBuf::from("out/node7-3/20261123-220000")
        );
        assert_eq!(e("plain/dir", None).unwrap(), PathBuf::from("plain/dir"));
        let msg = e("out/{rank}", None).unwrap_err().to_string();
        assert!(
            msg.contains("{rank}") && msg.contains("SLURM_PROCID"),
            "{msg}"
        );
        let msg = e("out/{hots}", None).unwrap_err().to_string();
        assert!(msg.contains("unknown placeholder {hots}"), "{msg}");
        let msg = e("out/{host", None).unwrap_err().to_string();
        assert!(msg.contains("without its `}`"), "{msg}");
    }

    #[test]
    fn the_rank_comes_from_the_first_launcher_variable_that_holds_a_number() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(rank_from(env(&[])), None);
        assert_eq!(
            rank_from(env(&[("PMIX_RANK", "5"), ("OMPI_COMM_WORLD_RANK", "2")])),
            Some((2, "OMPI_COMM_WORLD_RANK"))
        );
        assert_eq!(
            rank_from(env(&[("SLURM_PROCID", "x"), ("PMI_RANK", "4")])),
            Some((4, "PMI_RANK"))
        );
    }

    #[test]
    fn a_busy_lock_refuses_at_once_with_zero_wait_naming_the_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        let _held = match FileLock::try_exclusive(&path).unwrap() {
            Attempt::Held(l) => l,
            Attempt::Busy(_) => panic!("fresh lock busy"),
        };
        let attempt = FileLock::try_exclusive(&path).unwrap();
        let mut notices = Vec::new();
        let e = wait_for(&path, attempt, Wait::AtMost(Duration::ZERO), &mut |s| {
            notices.push(s.to_string())
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains(&format!("PID {}", std::process::id())), "{e}");
        assert!(notices.is_empty());
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let _dir = output_lock(&out).unwrap();
        let e = output_lock(&out).unwrap_err().to_string();
        assert!(e.contains("another numascope run is writing into"), "{e}");
    }
}
