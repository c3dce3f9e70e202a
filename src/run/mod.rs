//! The main job, `numascope run`: plan the parts within a time budget, execute them through
//! the engines, measure the Opteron article's policy scenarios, derive weighted-interleave
//! advice and findings in words, and write the output directory. Nothing here prints; the CLI
//! renders what these functions return.

pub mod advisor;
mod budget;
pub mod cache_check;
pub mod dram_reach;
mod estimate;
pub mod execute;
pub mod findings;
pub mod output;
pub mod plan;
pub mod ranking;
pub mod reference;
mod runners;
#[cfg(test)]
pub(crate) mod sample;
pub mod scenarios;
pub mod settings;
pub mod tier_curves;
