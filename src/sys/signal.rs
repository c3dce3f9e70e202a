//! A stop request, not a kill: SIGINT (Ctrl-C), SIGTERM (what `timeout`, `kill` and job
//! schedulers send) and SIGHUP (a closed terminal or ssh session) each only set a flag, so a
//! measuring command stops at its next check, keeps what it measured, restores what it changed
//! and exits with 128 + the signal number (130, 143, 129). The handler is installed with
//! `sigaction` (no extra crate: one syscall and atomic stores, which is all an
//! async-signal-safe handler may do). A second signal of the same kind restores the default
//! action, so sending it twice kills a command that does not stop. A signal that was ignored
//! when numascope started (a shell's background job ignores SIGINT) stays ignored, as the
//! process that started numascope asked.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use super::SysCallError;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The first stop signal received (0: none, or a stop requested by code).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signals that ask numascope to stop.
const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_stop_signal(sig: libc::c_int) {
    let _ = SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // The second stop signal: the next one of this kind takes the default action.
        // SAFETY: signal() with SIG_DFL is async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
}

/// Installs the stop handler for SIGINT, SIGTERM and SIGHUP (idempotent). Signals ignored at
/// start stay ignored.
pub fn install_stop_handlers() -> Result<(), SysCallError> {
    for sig in STOP_SIGNALS {
        // SAFETY: a zeroed sigaction is a valid value (empty mask, no flags); `old` is a valid
        // out pointer the kernel fills; a null `act` only queries.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: as above: query the current disposition into `old`.
        if unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) } != 0 {
            return Err(SysCallError::last("sigaction", signal_name(sig)));
        }
        if old.sa_sigaction == libc::SIG_IGN {
            continue;
        }
        // SAFETY: a zeroed sigaction is a valid value; the handler is an `extern "C"
        // fn(c_int)` that only touches atomics and calls signal(), both async-signal-safe.
        let rc = unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
            act.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(SysCallError::last("sigaction", signal_name(sig)));
        }
    }
    Ok(())
}

/// True once a stop signal arrived (or [`request_stop`] was called).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// The stop signal received, as its number; `None` when none arrived.
pub fn stop_signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// How the stop came, for sentences: "Ctrl-C", "SIGTERM", "SIGHUP", or "a stop request".
pub fn stop_reason() -> &'static str {
    match stop_signal() {
        Some(libc::SIGINT) => "Ctrl-C",
        Some(s) => signal_name(s),
        None => "a stop request",
    }
}

/// The stop signal's name for a JSON field (`SIGINT`, `SIGTERM`, `SIGHUP`); `None` when none
/// arrived.
pub fn stop_signal_name() -> Option<&'static str> {
    stop_signal().map(signal_name)
}

/// The exit status for a command stopped by a signal: 128 + its number (130 for SIGINT, 143
/// for SIGTERM, 129 for SIGHUP), as shells report it.
pub fn exit_status() -> Option<i32> {
    stop_signal().map(|s| 128 + s)
}

fn signal_name(sig: libc::c_int) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Marks the run as interrupted (tests, and callers that stop for another reason).
pub fn request_stop() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_statuses_follow_the_shell_convention() {
        assert_eq!(signal_name(libc::SIGTERM), "SIGTERM");
        assert_eq!(signal_name(libc::SIGHUP), "SIGHUP");
        assert_eq!(128 + libc::SIGINT, 130);
        assert_eq!(128 + libc::SIGTERM, 143);
        assert_eq!(128 + libc::SIGHUP, 129);
    }
}
