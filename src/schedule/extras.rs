//! Extra repetitions toward a precision target: how many more to take now so that the
//! median's interval can narrow, within the planned count and the time left. Pure: the
//! runtime pool they draw on is `threads::precision::PrecisionGoal`.

/// What one more repetition costs: `per_repetition` each, plus `per_batch` once for a batch
/// (a bandwidth team's threads and pinning).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExtraCost {
    pub per_repetition: std::time::Duration,
    pub per_batch: std::time::Duration,
}

/// How many extra repetitions to take now toward `target` (a half-width, fraction of the
/// median) for a figure whose kept repetitions are `samples`, `planned` of them planned and
/// `extra` taken already; 0 to stop. Pure.
///
/// The batch is the fewest repetitions that can narrow the interval: the order-statistic
/// interval of n samples is the k-th smallest to the k-th largest, and while k stays the same
/// one more sample can only widen it or leave it (the new value either lies inside, leaving
/// both ends, or pushes an end out), so the batch runs to the next n with a larger k (from 9
/// samples to 12, from 6 to 9). It is 0 when the interval is within the target, when the
/// batch would take the extras past the planned count, when it does not fit `time_left`
/// (`None`: no time limit), or when the planned count gives no interval (fewer than six: a
/// quick look asked for, which keeps its count).
pub fn next_batch(
    samples: &[f64],
    planned: usize,
    extra: usize,
    target: f64,
    cost: ExtraCost,
    time_left: Option<std::time::Duration>,
) -> usize {
    use crate::stats::interval::median_ranks;
    use crate::stats::CONFIDENCE;
    let n = samples.len();
    // A figure planned without an interval (fewer than six) was asked for a quick look
    // (`--samples 3`): it keeps its count.
    if n == 0 || median_ranks(planned, CONFIDENCE).is_none() {
        return 0;
    }
    let wide = crate::stats::Summary::of(samples)
        .and_then(|s| s.relative_half_width())
        .is_none_or(|h| h > target);
    if !wide {
        return 0;
    }
    let rank = median_ranks(n, CONFIDENCE).map_or(0, |r| r.0);
    let room = planned.saturating_sub(extra);
    let Some(batch) =
        (1..=room).find(|k| median_ranks(n + k, CONFIDENCE).map_or(0, |r| r.0) > rank)
    else {
        return 0;
    };
    let fits = time_left.is_none_or(|left| {
        cost.per_repetition
            .checked_mul(batch as u32)
            .and_then(|t| t.checked_add(cost.per_batch))
            .is_some_and(|t| t <= left)
    });
    if fits {
        batch
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(n: usize) -> Vec<f64> {
        (0..n).map(|i| 80.0 + (i * 37 % 41) as f64).collect()
    }

    /// The batch runs to the next count whose interval ranks move (6 -> 9 -> 12 -> 15), within
    /// the planned count and the time left; nothing when the interval is met.
    #[test]
    fn next_batch_reaches_the_next_narrower_interval_within_the_allowance() {
        let free = ExtraCost::default();
        let tight = [100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.0, 100.3];
        assert_eq!(next_batch(&tight, 9, 0, 0.03, free, None), 0, "met");
        assert_eq!(next_batch(&wide(6), 6, 0, 0.03, free, None), 3);
        assert_eq!(next_batch(&wide(9), 9, 0, 0.03, free, None), 3);
        assert_eq!(next_batch(&wide(15), 9, 6, 0.03, free, None), 2);
        // Planned without an interval (a quick look): no extras; planned with one but short of
        // it (stopped early): up to the first one (six).
        assert_eq!(next_batch(&wide(3), 3, 0, 0.03, free, None), 0);
        assert_eq!(next_batch(&wide(3), 6, 0, 0.03, free, None), 3);
        assert_eq!(next_batch(&[], 3, 0, 0.03, free, None), 0);
        // The extras stop at the planned count: 9 planned, 8 taken, the next move (17 to 20
        // samples) needs 3; with 7 taken, 16 samples move at 17.
        assert_eq!(next_batch(&wide(17), 9, 8, 0.03, free, None), 0);
        assert_eq!(next_batch(&wide(16), 9, 7, 0.03, free, None), 1);
        assert_eq!(next_batch(&wide(9), 2, 0, 0.03, free, None), 0);
        // Time: three 100 ms repetitions and 20 ms for the batch need 0.32 s.
        let cost = ExtraCost {
            per_repetition: std::time::Duration::from_millis(100),
            per_batch: std::time::Duration::from_millis(20),
        };
        let ms = std::time::Duration::from_millis;
        assert_eq!(next_batch(&wide(9), 9, 0, 0.03, cost, Some(ms(319))), 0);
        assert_eq!(next_batch(&wide(9), 9, 0, 0.03, cost, Some(ms(320))), 3);
        // A wide target is met by the same samples.
        assert_eq!(next_batch(&wide(9), 9, 0, 0.5, free, None), 0);
    }
}
