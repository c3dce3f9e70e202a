//! The bandwidth JSON contract lives in `crate::results::bandwidth`; this path re-exports it
//! so the engine and its callers keep their imports.

pub use crate::results::bandwidth::*;
