//! The tunable delay between the load threads' cache lines: a calibrated spin. A spin loop
//! keeps the core busy without touching memory or yielding, so the delay adds no traffic and
//! no scheduler noise; calibration against the monotonic clock gives the spin's cost alone,
//! from which a paced load thread starts and scales its corrections (see `kernel`). [`fit`]
//! is a pure least-squares line through timed runs, so the
//! calibration's arithmetic is unit-tested apart from the machine.

use crate::results::loaded::DelayCalibration;
use std::hint::black_box;
use std::time::Instant;

/// Spins `iterations` times. Each iteration is one dependent add passed through `black_box`,
/// so the compiler can neither drop the loop nor fold it into a multiplication.
#[inline(never)]
pub fn spin(iterations: u64) {
    let mut x = 0u64;
    for i in 0..iterations {
        x = black_box(x.wrapping_add(i));
    }
    black_box(x);
}

/// Least-squares line through `(iterations, ns)` points. `None` with fewer than two distinct
/// iteration counts or a non-positive slope.
pub fn fit(points: &[(u64, f64)]) -> Option<DelayCalibration> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0 as f64).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 as f64 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 as f64 - mx) * (p.1 - my)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    if slope.is_nan() || slope <= 0.0 {
        return None;
    }
    let r_squared = if syy == 0.0 {
        1.0
    } else {
        (sxy * sxy) / (sxx * syy)
    };
    Some(DelayCalibration {
        ns_per_iteration: slope,
        overhead_ns: my - slope * mx,
        r_squared,
        cpu: None,
    })
}

/// Iteration counts timed by [`calibrate`].
///
/// Short runs (microseconds to a fraction of a millisecond, the scale of the delays used)
/// are rarely cut by a time slice, and the best of several trials discards those that were.
pub const CALIBRATION_ITERATIONS: [u64; 4] = [2_000, 4_000, 8_000, 16_000];

/// Times the spin at each count of [`CALIBRATION_ITERATIONS`] (best of `trials`, which
/// discards time slices lost to other work) and fits the line. Runs on the calling thread:
/// pin it first.
pub fn calibrate(trials: usize) -> Option<DelayCalibration> {
    let mut points = Vec::new();
    spin(CALIBRATION_ITERATIONS[0]); // warm the code and the clock
    for &it in &CALIBRATION_ITERATIONS {
        let best = (0..trials.max(1))
            .map(|_| {
                let t = Instant::now();
                spin(it);
                t.elapsed().as_nanos() as f64
            })
            .fold(f64::INFINITY, f64::min);
        points.push((it, best));
    }
    fit(&points)
}

/// The pace of a load thread at `fraction` of full speed, whose kernel's full-speed line
/// time is `line` ns: full speed at 1 (or before the line time is known).
pub(super) fn pace(
    fraction: f64,
    line: f64,
    calibration: &DelayCalibration,
) -> super::kernel::Pace {
    if fraction >= 1.0 || line <= 0.0 {
        super::kernel::Pace::Full
    } else {
        super::kernel::Pace::Target {
            ns_per_line: line / fraction,
            ns_per_iteration: calibration.ns_per_iteration,
            start_iterations: super::engine::delay_for(fraction, line)
                / calibration.ns_per_iteration,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_a_line_and_rejects_degenerate_input() {
        let pts: Vec<(u64, f64)> = [10u64, 20, 40, 80]
            .iter()
            .map(|&i| (i, 100.0 + 0.5 * i as f64))
            .collect();
        let c = fit(&pts).unwrap();
        assert!((c.ns_per_iteration - 0.5).abs() < 1e-9);
        assert!((c.overhead_ns - 100.0).abs() < 1e-6);
        assert!((c.r_squared - 1.0).abs() < 1e-12);
        assert!(fit(&[(10, 5.0)]).is_none());
        assert!(fit(&[(10, 5.0), (10, 6.0)]).is_none());
        assert!(fit(&[(10, 9.0), (20, 5.0)]).is_none(), "negative slope");
        // Noise lowers r squared.
        let noisy = fit(&[(10, 10.0), (20, 30.0), (30, 20.0), (40, 45.0)]).unwrap();
        assert!(noisy.r_squared < 0.9);
    }

    /// Mechanics of the live calibration, not its speed: it times every count, fits a
    /// line with a positive slope (best of trials: the longer spins cannot be faster than
    /// the 8x shorter ones), and reports a fit quality between 0 and 1. Linearity itself is
    /// checked on synthetic timings in `fit_recovers_a_line_and_rejects_degenerate_input`.
    #[test]
    fn live_calibration_fits_a_rising_line() {
        let c = calibrate(9).expect("positive slope");
        assert!(
            c.ns_per_iteration.is_finite() && c.ns_per_iteration > 0.0,
            "{c:?}"
        );
        assert!(c.overhead_ns.is_finite(), "{c:?}");
        assert!((0.0..=1.0).contains(&c.r_squared), "{c:?}");
        assert_eq!(c.cpu, None, "the caller names the CPU it pinned");
    }
}
