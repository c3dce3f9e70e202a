//! numascope: how memory really behaves on a Linux machine, and why.
//!
//! The library holds everything; the `numascope` binary only wires the command line to it.
//! The layers follow one rule, *measure, then compute, then render*:
//!
//! - [`sysroot`] is the single door to `/sys` and `/proc`, so captured snapshots replay;
//! - [`topology`] and [`environment`] describe the machine from that door;
//! - [`sys`] fences every syscall and `unsafe` block outside the measurement kernels behind
//!   safe functions;
//! - [`error`] turns any error into the one sentence a user reads, for every layer;
//! - measurement engines return plain result types and never print;
//! - [`stats`] turns raw samples into summaries with pure functions;
//! - [`render`] turns finished results into text, JSON, CSV, SVG and HTML.
//!
//! docs/ARCHITECTURE.md draws the layers; `tests/architecture.rs` fails when an import
//! breaks them.

pub mod app;
pub mod bandwidth;
pub mod c2c;
pub mod capture;
pub mod cli;
pub mod clock;
pub mod compare;
pub mod environment;
pub mod error;
pub mod experiment;
pub mod fleet;
pub mod inspect;
pub mod latency;
pub mod launcher;
pub mod loaded;
pub mod numactl;
pub mod parse;
pub mod placement;
pub mod render;
pub mod results;
pub mod results_file;
pub mod run;
pub mod sanitize;
pub mod schedule;
pub mod stats;
pub mod sys;
pub mod sysroot;
pub mod tables;
#[cfg(test)]
pub(crate) mod testutil;
pub mod threads;
pub mod topology;
pub mod traffic;
