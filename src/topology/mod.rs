//! The machine's memory topology: NUMA nodes, CPUs, caches, SLIT distances, HMAT attributes
//! and the process's allowed sets, read through a [`crate::sysroot::SysRoot`] so that live
//! machines and captured snapshots are handled the same way. The data model is in [`model`].

pub mod model;

pub use model::*;
