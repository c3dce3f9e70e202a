//! The loaded-latency engine's edge: the JSON contract lives in `crate::results::loaded`; this
//! file adds the curve arithmetic on it (the trend filled in for files written before it was
//! stored).

use super::curve;
use crate::results::loaded::LoadedResult;

impl LoadedResult {
    /// Computes the trend of a result read from a file written before the trend fields
    /// existed (see [`curve::fill_trend`]).
    pub fn fill_trend(&mut self) {
        let pts = self.curve_points();
        curve::fill_trend(&mut self.curve, &pts);
    }
}
