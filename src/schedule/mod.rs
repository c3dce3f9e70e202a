//! Scheduling shared by every experiment: in which order configurations run within a round,
//! how many rounds or blocks a figure needs before it has an interval, and how a part's time
//! budget becomes rounds of repetitions. Figures compared with each other are measured in
//! interleaved rounds (A B C, B C A, ...), so whatever drifts on the host hits each alike
//! (docs/METHODOLOGY.md, "Interleaving and blocks"). Pure planning: nothing here measures,
//! prints or reads the machine, and it imports nothing of ours but `crate::stats`.

pub mod extras;
pub mod rounds;

/// Fewest samples (rounds, blocks, passes, repetitions) with a distribution-free 95 %
/// interval for their median: with six, the smallest and largest values cover it with
/// 1 - 2 / 2^6 = 96.9 %. Fewer give a figure without an interval.
pub const MIN_SAMPLES_FOR_INTERVAL: usize = 6;

/// Samples aimed for when the time allows: nine give the 2nd and 8th values as the
/// interval (96.1 %), so one outlier on either side no longer sets an end.
pub const TARGET_SAMPLES: usize = 9;

/// The order of round `round` over `n` configurations (indices into `0..n`): each once,
/// the start one further each round (0 1 2, 1 2 0, 2 0 1), so no configuration always runs
/// first or last. Empty when `n` is 0.
pub fn round_order(n: usize, round: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    (0..n).map(|k| (k + round) % n).collect()
}

/// A timed measurement's length: `repetitions` kept repetitions of `duration_ms` each,
/// after one untimed warm-up of the same length.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedSettings {
    pub duration_ms: u64,
    pub repetitions: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_rotate_their_start() {
        assert_eq!(round_order(3, 0), vec![0, 1, 2]);
        assert_eq!(round_order(3, 1), vec![1, 2, 0]);
        assert_eq!(round_order(3, 5), vec![2, 0, 1]);
        assert_eq!(round_order(2, 1), vec![1, 0]);
        assert_eq!(round_order(1, 4), vec![0]);
        assert!(round_order(0, 2).is_empty());
    }

    #[test]
    fn six_samples_are_the_first_with_an_interval() {
        let five = [1.0, 2.0, 3.0, 4.0, 5.0];
        let six = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert!(crate::stats::Summary::of(&five).unwrap().ci.is_none());
        assert!(crate::stats::Summary::of(&six[..MIN_SAMPLES_FOR_INTERVAL])
            .unwrap()
            .ci
            .is_some());
    }
}
