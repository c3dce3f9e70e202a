//! The sentences results files and reports carry about the measurements themselves: the
//! verdict line and the names of its figures, the disturbance warnings, the labels of
//! bandwidth runs and core-to-core relations, the scenarios' latency clause, a figure's
//! precision against its target, the remote-memory penalty and the measured memory tiers.
//! `results/` records the data (counts, values, enums); these functions word it, and the code
//! that fills a results file's sentence fields (`warnings`, the verdict's `sentence`) calls
//! them.

pub mod compare;
pub mod disturbed;
pub mod figure;
pub mod fleet;
pub mod labels;
pub mod penalty;
pub mod precision;
pub mod scenarios;
pub mod tier;
pub mod verdict;
pub mod warnings;

#[cfg(test)]
mod saved_tests;
