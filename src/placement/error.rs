//! Placement failures, each one user sentence naming the value and the fix.

use crate::sys::SysCallError;
use crate::sysroot::SysError;

#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    /// The request itself is impossible on this machine (bad node, size, page size...).
    #[error("{0}")]
    Invalid(String),
    /// The machine refused: a kernel feature missing, a system-wide setting that needs root.
    #[error("{0}")]
    Refused(#[source] crate::error::Marked),
    #[error(transparent)]
    Sys(#[from] SysCallError),
    #[error(transparent)]
    Root(#[from] SysError),
}
