//! The c2c JSON contract lives in `crate::results::c2c`; this path re-exports it so the
//! engine and its callers keep their imports.

pub use crate::results::c2c::*;
