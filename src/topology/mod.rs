//! The machine's memory topology: NUMA nodes, CPUs, caches, SLIT distances, HMAT attributes
//! and the process's allowed sets, read through a [`crate::sysroot::SysRoot`] so that live
//! machines and captured snapshots are handled the same way. The data model is the contract's [`crate::results::topology`];
//! [`read::read_topology`] assembles it from one reader module per kind of file.

pub mod allowed;
pub mod caches;
pub mod cpus;
pub mod distances;
pub mod domain;
pub mod domains;
mod files;
pub mod hmat;
pub mod kinds;
mod meminfo;
pub mod nodes;
pub mod read;
pub mod xml;

pub use read::{read_topology, TopologyError};
