//! The working-set sweep (METHODOLOGY point 4): the sizes of the curve, and the run over one
//! buffer. One buffer of the largest size is placed once; each point builds its chain over a
//! prefix of it, so every point shares the same placement and page backing and the sweep does
//! not pay a fresh allocation per point. Nothing here prints; progress goes to a callback.

use super::chase::{ChainError, ChainSpec};
use super::measure::{measure_toward, Aim, Judge, Measurement, SamplePlan};
use super::walk::Chain;
use crate::sys::signal::interrupted;

/// Default smallest working set.
pub const DEFAULT_FROM_BYTES: u64 = 4096;
/// Default points per octave.
pub const POINTS_PER_OCTAVE: u32 = 4;

/// Sizes from `from` to `to` inclusive, `per_octave` per doubling, each rounded down to a
/// multiple of `element_bytes`, without duplicates; `to` itself is always the last point.
pub fn sizes(from: u64, to: u64, per_octave: u32, element_bytes: u64) -> Vec<u64> {
    let e = element_bytes.max(1);
    let from = from.max(e);
    let mut out: Vec<u64> = Vec::new();
    let mut k = 0u32;
    loop {
        let s = (from as f64 * 2f64.powf(k as f64 / per_octave.max(1) as f64)) as u64 / e * e;
        if s > to {
            break;
        }
        if out.last() != Some(&s) && s > 0 {
            out.push(s);
        }
        k += 1;
    }
    let last = to / e * e;
    if last >= from && out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// The default upper end: the first grid point at or above 8x the last-level cache (512 MiB
/// when it is unknown), capped by `free_bytes` / 2 so the sweep leaves room for everything
/// else.
pub fn default_upper(llc_bytes: u64, free_bytes: u64) -> u64 {
    let want = if llc_bytes == 0 {
        512 << 20
    } else {
        8 * llc_bytes
    };
    let grid = sizes(DEFAULT_FROM_BYTES, u64::MAX / 4, POINTS_PER_OCTAVE, 4096);
    let up = grid.into_iter().find(|&s| s >= want).unwrap_or(want);
    up.min(free_bytes / 2)
}

/// Measures every size over prefixes of `buf`, the sizes `aim` names toward its goal;
/// `progress(done, total)` after each point. A stop signal ends the sweep at the next point or
/// sample: the sizes measured are returned, and a size that kept no sample is left out.
#[allow(clippy::too_many_arguments)]
pub fn run(
    buf: &mut [u64],
    sizes: &[u64],
    spec: &ChainSpec,
    plan: &SamplePlan,
    timer_resolution_ns: f64,
    judge: Option<Judge<'_>>,
    aim: Option<Aim<'_>>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<(u64, Measurement)>, ChainError> {
    let mut out = Vec::with_capacity(sizes.len());
    for (k, &s) in sizes.iter().enumerate() {
        if interrupted() {
            break;
        }
        let words = ((s / 8) as usize).min(buf.len());
        let mut chain = Chain::build(&mut buf[..words], spec)?;
        let goal = aim.filter(|a| k >= a.from).map(|a| a.goal);
        match measure_toward(&mut chain, plan, timer_resolution_ns, judge, goal) {
            Some(m) => out.push((s, m)),
            None => break,
        }
        progress(k + 1, sizes.len());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_four_points_per_octave_and_ends_at_to() {
        let s = sizes(4096, 1 << 20, 4, 64);
        assert_eq!(s[0], 4096);
        assert_eq!(s[4], 8192);
        assert_eq!(*s.last().unwrap(), 1 << 20);
        assert_eq!(s.len(), 4 * 8 + 1);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.iter().all(|x| x % 64 == 0));
        let odd = sizes(4096, 5000, 4, 64);
        assert_eq!(odd, vec![4096, 4864, 4992]);
    }

    #[test]
    fn upper_bound_is_eight_llc_within_free_memory() {
        let llc = 36608 * 1024;
        let up = default_upper(llc, 16 << 30);
        assert!(up >= 8 * llc && up < 8 * llc * 1200 / 1000, "{up}");
        assert_eq!(default_upper(llc, 100 << 20), 50 << 20);
        assert_eq!(default_upper(0, 64 << 30), 512 << 20);
    }
}
