//! Steady state for every timed block of a chase (the rule in brief: docs/ARCHITECTURE.md;
//! the measurement behind it below).
//!
//! A figure measured in blocks spread over a run is only the figure a steady chase gives when
//! each block starts from the state a steady chase has. Right after another part streamed
//! hundreds of MiB, the TLB, the page-walk caches and the cached page-table lines of the
//! chased buffer are cold (256 MiB of 4 KiB pages has 512 KiB of page-table entries, more
//! under a hypervisor's nested tables), and the first milliseconds of the walk read slow.
//!
//! Measured on the project's 2-vCPU EPYC guest (KVM, 4 KiB pages, 256 MiB random walk; a
//! program outside the repository streamed 2 x 128 MiB, then timed 100 consecutive sub-blocks
//! of 4000 loads, about 0.8-1 ms each, 51 rounds, each sub-block's ratio to the same round's
//! steady median): 1.26x in the first millisecond, 1.18x in the second, 1.12x in the third,
//! within 3 % from about 3 ms on and within 1 % after 8 ms. The rule, used by every block of
//! a latency figure (the run's reference, the sweep's and the matrix's blocks through
//! `measure::measure_block`, the loaded curve's blocks, the scenarios' blocks): walk the
//! chain untimed for [`STEADY_WARMUP_NS`] (about 2.5x the settling time measured here) before
//! the first timed load of a block, or, where the block's time is fixed by others (the loaded
//! curve's team), drop the samples that started within that time ([`lead_samples`]). A chain
//! small enough that [`STEADY_LAPS`] laps take less than that is warm after those laps (its
//! few pages' entries are back after one lap), so small working sets pay microseconds.
//! c2c bounces one cache line: its page's translation is warm after the first bounce, and its
//! own warm-up (a fraction of each repetition) covers it.

use std::time::{Duration, Instant};

use super::walk::{Chain, LOADS_PER_ITERATION};

/// Untimed walking before a block's first timed load, ns (module docs: the settling time
/// measured here was about 3 ms).
pub const STEADY_WARMUP_NS: u64 = 8_000_000;

/// Laps of the chain after which a small chain counts as warm whatever the time.
pub const STEADY_LAPS: u64 = 2;

/// Iterations walked between two looks at the clock (4096 loads: about 1 ms from DRAM, a few
/// microseconds from L1).
const CHUNK: u64 = 4096 / LOADS_PER_ITERATION;

/// Walks `chain` untimed until it is at steady state: [`STEADY_WARMUP_NS`] of walking, or
/// [`STEADY_LAPS`] laps of its elements, whichever comes first. Returns the time spent.
pub fn settle(chain: &mut Chain<'_>) -> Duration {
    let laps = (chain.elements() as u64 * STEADY_LAPS).div_ceil(LOADS_PER_ITERATION);
    settle_for(chain, Duration::from_nanos(STEADY_WARMUP_NS), laps.max(1)).0
}

/// [`settle`] with the time and the iteration cap given: (time spent, iterations walked).
fn settle_for(chain: &mut Chain<'_>, time: Duration, max_iterations: u64) -> (Duration, u64) {
    let t = Instant::now();
    let mut walked = 0u64;
    while walked < max_iterations && t.elapsed() < time {
        let step = CHUNK.min(max_iterations - walked).max(1);
        chain.walk(step);
        walked += step;
    }
    (t.elapsed(), walked)
}

/// How many leading samples of a block to drop when the block cannot walk untimed first:
/// those that started within [`STEADY_WARMUP_NS`] of its start, given each sample's length.
pub fn lead_samples(sample_ns: &[f64]) -> usize {
    let mut started = 0.0;
    sample_ns
        .iter()
        .take_while(|&&ns| {
            let early = started < STEADY_WARMUP_NS as f64;
            started += ns;
            early
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::chase::ChainSpec;
    use crate::results::latency::Mode;

    #[test]
    fn a_small_chain_settles_after_its_laps() {
        let mut buf = vec![0u64; 64 * 8];
        let spec = ChainSpec {
            mode: Mode::Random,
            chains: 1,
            element_bytes: 64,
            group_bytes: 0,
            seed: 7,
        };
        let mut chain = Chain::build(&mut buf, &spec).unwrap();
        // 64 elements, two laps: 8 iterations of 16 loads; a day of time would not be spent.
        let (_, walked) = settle_for(&mut chain, Duration::from_secs(86_400), 8);
        assert_eq!(walked, 8);
        // With no time at all, nothing is walked.
        let (_, walked) = settle_for(&mut chain, Duration::ZERO, 8);
        assert_eq!(walked, 0);
    }

    #[test]
    fn the_lead_is_the_samples_started_within_the_warmup() {
        let ms = 1e6;
        // Samples of 2 ms: those starting at 0, 2, 4, 6 ms are early, the one at 8 ms is not.
        assert_eq!(lead_samples(&[2.0 * ms; 10]), 4);
        // One long sample covers the warm-up by itself.
        assert_eq!(lead_samples(&[20.0 * ms, 2.0 * ms]), 1);
        assert_eq!(lead_samples(&[]), 0);
    }
}
