//! The loaded-latency engine's edge: the JSON contract lives in `crate::results::loaded`; this
//! file adds the curve arithmetic on it (the points as curve points, and the trend filled in
//! for files written before it was stored).

pub use crate::results::loaded::*;

use super::curve;

impl LoadedPoint {
    /// The point on the curve: total bandwidth and the chaser's median latency.
    pub fn curve_point(&self) -> CurvePoint {
        CurvePoint {
            mb_per_s: self.total_mb_per_s,
            ns_per_load: self.ns_per_load.median,
        }
    }
}

impl LoadedResult {
    /// Every point on the curve, the no-load one first.
    pub fn curve_points(&self) -> Vec<CurvePoint> {
        self.points.iter().map(LoadedPoint::curve_point).collect()
    }

    /// Computes the trend of a result read from a file written before the trend fields
    /// existed (see [`curve::fill_trend`]).
    pub fn fill_trend(&mut self) {
        let pts = self.curve_points();
        curve::fill_trend(&mut self.curve, &pts);
    }
}
