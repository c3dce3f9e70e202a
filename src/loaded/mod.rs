//! Loaded latency: the latency one thread sees while other threads load the memory system
//! (docs/METHODOLOGY.md, "Loaded latency", the curve MLC's `--loaded_latency` made popular). The
//! chaser is the latency engine's random chase; the load threads run [`kernel`] with the calibrated
//! [`delay`] between lines; [`engine`] runs one curve, [`matrix`] every initiator x target
//! node; [`curve`] derives idle latency, the bandwidth at which latency doubled, and the peak.
//! [`run`] ([`experiment`]) is the one entry point the CLI and the full run call.

mod blocks;
pub mod curve;
mod cut;
pub mod delay;
pub mod engine;
pub mod experiment;
pub mod kernel;
pub mod matrix;
mod points;
pub mod result;
pub mod sizes;
mod tally;
mod warnings;

pub use blocks::blocks_for;
pub use engine::{delay_for, load_fractions, LoadedConfig};
pub use experiment::{run, Config};
