//! The precision goal a part's figures measure toward: the target half-width and the time
//! pool their extra repetitions share while they are measured. Runtime state (clones share
//! one pool through an atomic counter), never stored: each figure records what came of it as
//! a [`Precision`].

use crate::results::quality::Precision;

/// What a figure measured a planned number of times alone (a latency, a bandwidth) may add
/// toward its precision target (the budget goes where the intervals are widest).
/// Runtime only, never stored: the figure records what came of it as a [`Precision`].
///
/// Extra repetitions are taken while the median's 95 % interval is wider than the target,
/// never more than the planned count, and, when the goal has a time pool, only while the
/// pool has time for them. Clones share one pool: a run gives each of its parts one goal,
/// and the part's figures draw on it in turn, so the extras of a part never take more than
/// its pool whatever the number of figures. So that the first wide figure does not take the
/// pool from the later ones, each figure measures toward [`for_figure`](Self::for_figure):
/// after its first batch it goes on only while it has spent less than an even share of what
/// the pool held when it started.
#[derive(Clone, Debug)]
pub struct PrecisionGoal {
    /// The interval half-width aimed for, fraction of the median (0.03 = +-3 %).
    pub target_half_width_fraction: f64,
    /// Nanoseconds the extras may still take together; `None`: only the count bounds them.
    pool_ns: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// One figure's share of the pool and what it spent of it, nanoseconds; `None`: the goal
    /// of a part, not of one figure.
    figure: Option<(u64, std::sync::Arc<std::sync::atomic::AtomicU64>)>,
}

impl PrecisionGoal {
    /// The goal of a standalone `latency` or `bandwidth`: the default run's target (+-3 %),
    /// bounded by the count alone.
    pub fn standalone() -> PrecisionGoal {
        PrecisionGoal::count_bounded(crate::results::plan::Budget::Default.target_half_width())
    }

    /// A goal bounded by the count alone (a standalone command: at most the planned count
    /// again, so a figure's timed part at most doubles).
    pub fn count_bounded(target_half_width_fraction: f64) -> PrecisionGoal {
        PrecisionGoal {
            target_half_width_fraction,
            pool_ns: None,
            figure: None,
        }
    }

    /// A goal whose extras, over every figure drawing on it, take at most `pool`.
    pub fn within(target_half_width_fraction: f64, pool: std::time::Duration) -> PrecisionGoal {
        let ns = u64::try_from(pool.as_nanos()).unwrap_or(u64::MAX);
        PrecisionGoal {
            target_half_width_fraction,
            pool_ns: Some(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(ns))),
            figure: None,
        }
    }

    /// The goal of one figure of a part that has `figures_left` figures still to measure
    /// (this one included): the same pool, and an even share of what it holds now. The
    /// figure's first batch needs only the pool's time; later batches also need the figure
    /// to have spent less than its share. A count-bounded goal is returned as it is.
    pub fn for_figure(&self, figures_left: usize) -> PrecisionGoal {
        let Some(left) = self.time_left() else {
            return self.clone();
        };
        let share = u64::try_from(left.as_nanos()).unwrap_or(u64::MAX) / figures_left.max(1) as u64;
        PrecisionGoal {
            target_half_width_fraction: self.target_half_width_fraction,
            pool_ns: self.pool_ns.clone(),
            figure: Some((
                share,
                std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
            )),
        }
    }

    /// What the pool holds, whatever the figure's share (a batch under way goes on while the
    /// pool lasts); `None` when only the count bounds the extras.
    pub fn pool_left(&self) -> Option<std::time::Duration> {
        self.pool_ns
            .as_ref()
            .map(|p| std::time::Duration::from_nanos(p.load(std::sync::atomic::Ordering::SeqCst)))
    }

    /// Time a new batch of extras may take: what the pool holds, or nothing once a figure has
    /// spent its share; `None` when only the count bounds them.
    pub fn time_left(&self) -> Option<std::time::Duration> {
        let pool = self.pool_left()?;
        match &self.figure {
            Some((share, spent))
                if spent.load(std::sync::atomic::Ordering::SeqCst) >= *share
                    && spent.load(std::sync::atomic::Ordering::SeqCst) > 0 =>
            {
                Some(std::time::Duration::ZERO)
            }
            _ => Some(pool),
        }
    }

    /// Takes `spent` out of the pool (down to zero) and counts it against the figure's share.
    pub fn spend(&self, spent: std::time::Duration) {
        let ns = u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX);
        if let Some(p) = &self.pool_ns {
            let _ = p.fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |left| Some(left.saturating_sub(ns)),
            );
        }
        if let Some((_, s)) = &self.figure {
            s.fetch_add(ns, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// The record of a figure of `samples` measured toward this goal: `planned` repetitions
    /// and `extra` more.
    pub fn record(&self, samples: &[f64], planned: usize, extra: usize) -> Precision {
        Precision {
            target_half_width_fraction: self.target_half_width_fraction,
            half_width_fraction: crate::stats::Summary::of(samples)
                .and_then(|s| s.relative_half_width()),
            planned_rounds: planned,
            extra_rounds: extra,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(n: usize) -> Vec<f64> {
        (0..n).map(|i| 80.0 + (i * 37 % 41) as f64).collect()
    }

    #[test]
    fn goals_share_their_pool_and_record_the_precision() {
        let ms = std::time::Duration::from_millis;
        let g = PrecisionGoal::within(0.05, ms(300));
        let part = g.clone();
        part.spend(ms(100));
        assert_eq!(g.time_left(), Some(ms(200)), "clones draw on one pool");
        g.spend(ms(500));
        assert_eq!(part.time_left(), Some(std::time::Duration::ZERO));
        let s = PrecisionGoal::standalone();
        assert_eq!(s.time_left(), None);
        assert_eq!(s.target_half_width_fraction, 0.03);
        s.spend(ms(10));
        // A figure's share: its first batch needs only the pool, later ones the share too.
        let part = PrecisionGoal::within(0.05, ms(1000));
        let first = part.for_figure(4);
        assert_eq!(
            first.time_left(),
            Some(ms(1000)),
            "nothing spent yet: the pool"
        );
        first.spend(ms(300));
        assert_eq!(
            first.time_left(),
            Some(ms(0)),
            "300 ms spent of a 250 ms share"
        );
        assert_eq!(part.time_left(), Some(ms(700)));
        let second = part.for_figure(3);
        second.spend(ms(100));
        assert_eq!(
            second.time_left(),
            Some(ms(600)),
            "100 ms of a 233 ms share"
        );
        assert_eq!(s.for_figure(3).time_left(), None, "count-bounded stays so");
        let p = g.record(&wide(12), 9, 3);
        assert_eq!((p.planned_rounds, p.extra_rounds), (9, 3));
        assert_eq!(p.target_half_width_fraction, 0.05);
        assert!(!p.met());
        assert_eq!(g.record(&[1.0, 2.0], 2, 0).half_width_fraction, None);
    }
}
