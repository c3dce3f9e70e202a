//! Starting a user's program the way `numactl` does: fork, then in the child, before `exec`,
//! its own process group (so a stop signal can end the program and everything it started),
//! the memory policy (`set_mempolicy`, inherited across `exec`) and the CPU affinity
//! (`sched_setaffinity`); and the parent's side: `wait4` for the exit status with the child's
//! user and system CPU time and maximum resident set, and a signal to the whole group. The
//! masks are built before the fork, so the child between fork and exec only makes raw
//! syscalls (no allocation, which is not safe after a fork in a threaded process). Nothing
//! here decides which policy; `crate::app` does.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use super::numa::Mode;
use super::{IdMask, SysCallError};

/// What the child gets before `exec`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChildPlacement {
    /// The memory policy over these nodes; `None` keeps the inherited default.
    pub policy: Option<(Mode, Vec<u32>)>,
    /// The CPUs the child may run on; `None` keeps the inherited set.
    pub cpus: Option<Vec<u32>>,
}

/// Where the child's standard output and error go.
pub enum ChildOutput {
    /// The parent's terminal (`--show-output`).
    Inherit,
    /// These files (one per run).
    Files(std::fs::File, std::fs::File),
}

/// Starts `argv` with `placement` applied in the child before `exec`, in a process group of
/// its own, with standard input closed. A program that is not found comes back as
/// `io::ErrorKind::NotFound`; a policy or affinity the kernel refuses as the errno of that
/// call. Returns the child's pid, which is also its process group id; reap it with
/// [`wait_child`].
// std's `Child` is dropped without `wait()` on purpose: `wait_child` reaps the pid with
// `wait4`, which std cannot do (it gives no rusage).
#[allow(clippy::zombie_processes)]
pub fn spawn_placed(
    argv: &[String],
    placement: &ChildPlacement,
    output: ChildOutput,
) -> io::Result<u32> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null());
    match output {
        ChildOutput::Inherit => {}
        ChildOutput::Files(out, err) => {
            cmd.stdout(out).stderr(err);
        }
    }
    let policy = placement.policy.as_ref().map(|(mode, nodes)| {
        let mask = IdMask::from_ids(nodes, 64);
        let maxnode = mask.bits() + 1;
        (mode.raw(), mask, maxnode)
    });
    let cpus = placement.cpus.as_ref().map(|c| IdMask::from_ids(c, 8192));
    // The program's orphans (a background job whose parent exited) come to this process
    // rather than to init, so `end_group` can reap them once the group is ended.
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) takes integers only and changes this process.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    // SAFETY: the closure runs in the forked child before exec and only makes raw syscalls
    // (setpgid, set_mempolicy, sched_setaffinity) on masks built before the fork; it does not
    // allocate, lock or touch state another thread may hold.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setpgid(0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some((mode, mask, maxnode)) = &policy {
                let ret = libc::syscall(libc::SYS_set_mempolicy, *mode, mask.as_ptr(), *maxnode);
                if ret < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(mask) = &cpus {
                let ret = libc::syscall(
                    libc::SYS_sched_setaffinity,
                    0,
                    mask.byte_len(),
                    mask.as_ptr(),
                );
                if ret < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(cmd.spawn()?.id())
}

/// How a child ended and what it used (from `wait4`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildEnd {
    /// Exit code when it exited.
    pub exit_code: Option<i32>,
    /// Signal number when a signal ended it.
    pub signal: Option<i32>,
    pub user_s: f64,
    pub sys_s: f64,
    /// Maximum resident set size, KiB (`ru_maxrss`).
    pub max_rss_kib: u64,
}

/// Waits for child `pid` to end (blocking, retried on EINTR) and reaps it.
pub fn wait_child(pid: u32) -> Result<ChildEnd, SysCallError> {
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value for the kernel to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `ru` are valid out pointers for the call's duration.
        let ret = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut ru) };
        if ret >= 0 {
            break;
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(SysCallError::last("wait4", format!("process {pid}")));
        }
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(ChildEnd {
        exit_code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        user_s: secs(ru.ru_utime),
        sys_s: secs(ru.ru_stime),
        max_rss_kib: ru.ru_maxrss.max(0) as u64,
    })
}

/// The signals [`signal_group`] sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupSignal {
    Term,
    Kill,
}

/// Sends a signal to the process group `pgid` (the child started by [`spawn_placed`] and
/// everything it started). A group that is already gone is not an error.
pub fn signal_group(pgid: u32, sig: GroupSignal) -> Result<(), SysCallError> {
    let s = match sig {
        GroupSignal::Term => libc::SIGTERM,
        GroupSignal::Kill => libc::SIGKILL,
    };
    // SAFETY: kill(2) with a negative pid addresses a process group; no memory is passed.
    let ret = unsafe { libc::kill(-(pgid as libc::pid_t), s) };
    if ret != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::ESRCH) {
            return Ok(());
        }
        return Err(SysCallError::last("kill", format!("process group {pgid}")));
    }
    Ok(())
}

/// Ends what is left of process group `pgid` once its leader has been reaped: background
/// children and grandchildren, including one that ignores SIGTERM. SIGTERM first; members
/// still there after `grace` get SIGKILL. Members that are this process's children (the
/// group's orphans come here, see [`spawn_placed`]) are reaped, so none is left a zombie.
/// Returns at once when the group is already empty.
pub fn end_group(pgid: u32, grace: std::time::Duration) {
    let start = std::time::Instant::now();
    if signal_group(pgid, GroupSignal::Term).is_err() || !group_alive(pgid) {
        return;
    }
    let mut killed = false;
    // After SIGKILL the members die at once; the second bound only keeps a member in an
    // uninterruptible sleep from holding this loop for ever.
    while group_alive(pgid) && start.elapsed() < grace * 2 {
        if !killed && start.elapsed() >= grace {
            let _ = signal_group(pgid, GroupSignal::Kill);
            killed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    if !killed {
        let _ = signal_group(pgid, GroupSignal::Kill);
    }
    reap_group(pgid);
}

/// True while process group `pgid` has a member that is not a zombie of this process (its
/// zombies are reaped here first).
fn group_alive(pgid: u32) -> bool {
    reap_group(pgid);
    // SAFETY: kill(2) with signal 0 only checks that the group exists.
    unsafe { libc::kill(-(pgid as libc::pid_t), 0) == 0 }
}

/// Reaps every finished child of this process in group `pgid`, without blocking.
fn reap_group(pgid: u32) {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `status` is a valid out pointer; WNOHANG never blocks.
        let ret = unsafe { libc::waitpid(-(pgid as libc::pid_t), &mut status, libc::WNOHANG) };
        if ret <= 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_gets_the_affinity_and_its_rusage_comes_back() {
        let cpu = super::super::affinity::get_current().unwrap()[0];
        let argv: Vec<String> = [
            "sh",
            "-c",
            "grep Cpus_allowed_list /proc/self/status; exit 3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let dir = std::env::temp_dir().join(format!("numascope-spawn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out_path = dir.join("out");
        let out = std::fs::File::create(&out_path).unwrap();
        let err = std::fs::File::create(dir.join("err")).unwrap();
        let placement = ChildPlacement {
            policy: Some((Mode::Bind, vec![0])),
            cpus: Some(vec![cpu]),
        };
        let child = spawn_placed(&argv, &placement, ChildOutput::Files(out, err)).unwrap();
        let end = wait_child(child).unwrap();
        assert_eq!(end.exit_code, Some(3));
        assert_eq!(end.signal, None);
        assert!(end.max_rss_kib > 0);
        let text = std::fs::read_to_string(&out_path).unwrap();
        assert_eq!(text.trim(), format!("Cpus_allowed_list:\t{cpu}"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_program_and_empty_command_are_errors() {
        let e = spawn_placed(
            &["/nonexistent/numascope-no-such-program".to_string()],
            &ChildPlacement::default(),
            ChildOutput::Inherit,
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let e = spawn_placed(&[], &ChildPlacement::default(), ChildOutput::Inherit).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_killed_group_reports_the_signal() {
        let argv: Vec<String> = ["sleep", "30"].iter().map(|s| s.to_string()).collect();
        let child = spawn_placed(&argv, &ChildPlacement::default(), ChildOutput::Inherit).unwrap();
        signal_group(child, GroupSignal::Kill).unwrap();
        let end = wait_child(child).unwrap();
        assert_eq!(end.signal, Some(libc::SIGKILL));
        assert_eq!(end.exit_code, None);
    }
}
