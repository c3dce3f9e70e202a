//! The latency engine: pointer chasing over a placed buffer (docs/METHODOLOGY.md, "Dependent-load
//! chains", "Page size", "Working-set sweep", "Clocks and cycles"). [`chase`] builds the cycles,
//! [`walk`] is the timed dependent-load kernel, [`measure`] turns walks into samples and summaries,
//! [`sweep`] runs the working-set curve in the passes of [`blocks`] and [`knees`] finds
//! its plateaus, [`distribution`] times short groups of loads for the per-load histogram and
//! [`mlp`] turns chain counts into memory-level parallelism; [`result`] holds the serde types
//! that are the JSON contract. [`run`] ([`experiment`]) is the one entry point the CLI and the
//! full run call.

pub mod blocks;
pub mod chase;
pub mod distribution;
pub mod engine;
pub mod experiment;
pub mod kept;
pub mod knees;
pub mod matrix;
pub mod measure;
pub mod mlp;
pub(crate) mod noise;
pub mod result;
pub mod steady;
pub mod sweep;
pub mod walk;

pub use experiment::{run, Chaser, Config, Variant};
