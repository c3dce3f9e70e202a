//! Ctrl-C as a request, not a kill: a SIGINT handler that only sets a flag, so `numascope run`
//! can stop the current measurement at its next check and still write what it measured. The
//! handler is installed with `sigaction` (no extra crate: one syscall and an atomic store,
//! which is all an async-signal-safe handler may do). A second Ctrl-C restores the default
//! action, so pressing it twice kills a run that does not stop.

use std::sync::atomic::{AtomicBool, Ordering};

use super::SysCallError;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_sig: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Second Ctrl-C: fall back to the default action for the next one.
        // SAFETY: signal() with SIG_DFL is async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }
}

/// Installs the SIGINT handler (idempotent).
pub fn install_sigint() -> Result<(), SysCallError> {
    // SAFETY: a zeroed sigaction is a valid value (empty mask, no flags); the handler is an
    // `extern "C" fn(c_int)` that only touches an atomic and calls signal(), both
    // async-signal-safe; `old` is a valid out pointer or null.
    let rc = unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        act.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut act.sa_mask);
        libc::sigaction(libc::SIGINT, &act, std::ptr::null_mut())
    };
    if rc != 0 {
        return Err(SysCallError::last("sigaction", "SIGINT"));
    }
    Ok(())
}

/// True once Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Marks the run as interrupted (tests, and callers that stop for another reason).
pub fn request_stop() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}
