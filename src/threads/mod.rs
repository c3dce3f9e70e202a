//! Threads that run where they are told. Every measurement thread is pinned to one CPU and
//! checked with `getcpu` before any timing (docs/METHODOLOGY.md, "Placed, then verified"); teams of
//! them are created and set up first, released together by a barrier, and stopped together by one
//! shared flag after a fixed time (docs/METHODOLOGY.md, "Timed teams"), so a slow thread cannot
//! stretch the others' timing. Every repetition is judged for disturbance (docs/METHODOLOGY.md,
//! "Disturbed repetitions"): the probes in [`quality`] measure each thread's CPU share, involuntary
//! switches and the CPUs' steal time, and a disturbed repetition is taken again while the plan
//! allows.

mod error;
mod pin;
pub mod precision;
pub mod quality;
pub mod steal;
mod team;

pub use error::ThreadError;
pub use pin::{check_cpus, on_cpu, pin_current};
pub use quality::{Probe, StealProbe, ThreadProbe, ThreadUsage};
pub use team::{run_team, Stop, TeamOutcome, TeamPlan, ThreadSample};
