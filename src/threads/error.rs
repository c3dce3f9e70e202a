//! Thread placement failures, one user sentence each.

use crate::sys::SysCallError;
use crate::sysroot::SysError;

#[derive(Debug, thiserror::Error)]
pub enum ThreadError {
    /// A CPU that cannot be used (unknown, offline, not allowed).
    #[error("{0}")]
    BadCpu(String),
    /// The thread did not end up on its CPU.
    #[error("{0}")]
    NotPinned(String),
    /// A worker's setup (allocation, placement) failed.
    #[error("setup on CPU {cpu} failed: {message}")]
    Setup { cpu: u32, message: String },
    /// A worker thread panicked (a bug, reported rather than propagated).
    #[error("a measurement thread on CPU {0} panicked; this is a numascope bug")]
    Panicked(u32),
    #[error(transparent)]
    Sys(#[from] SysCallError),
    #[error(transparent)]
    Root(#[from] SysError),
}
