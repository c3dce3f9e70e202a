//! The topology data model now lives in `crate::results::topology` (the contract floor); this
//! path re-exports it so readers and planners keep their imports.

pub use crate::results::topology::*;
