//! The clock record a latency figure depends on: timer resolution and cost, TSC rate, running
//! core clock estimate. A plain serde type; measuring it is `crate::clock`.

use serde::{Deserialize, Serialize};

/// What the clock check found. Every figure is measured on this run unless its `*_source`
/// string says otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// Smallest non-zero step seen between consecutive reads of the monotonic clock
    /// (`std::time::Instant`, i.e. `clock_gettime(CLOCK_MONOTONIC)`), nanoseconds.
    pub resolution_ns: f64,
    /// Mean cost of one clock read over a long run of back-to-back reads, nanoseconds.
    pub read_cost_ns: f64,
    /// TSC frequency, Hz; `None` when unknown (no TSC, or not invariant).
    pub tsc_hz: Option<f64>,
    /// How `tsc_hz` was obtained (CPUID leaf, or calibration against CLOCK_MONOTONIC).
    pub tsc_source: String,
    /// Running core clock, Hz, from a timed chain of dependent adds.
    pub core_hz_estimate: Option<f64>,
    /// How `core_hz_estimate` was obtained, or why it is absent.
    pub core_hz_source: String,
}
