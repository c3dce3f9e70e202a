//! Which ordered CPU pairs to measure. Every ordered pair of the chosen CPUs when there are
//! few; above [`ALL_PAIRS_MAX_CPUS`] CPUs the pair count grows quadratically (a 256-CPU machine
//! has 65,280 pairs), so each CPU is measured against a fixed sample of partners spread evenly
//! over the list (both directions), and the result says so.

use crate::results::c2c::Sampling;
/// Up to this many CPUs, every ordered pair is measured.
pub const ALL_PAIRS_MAX_CPUS: usize = 64;
/// Partners in the fixed sample used above [`ALL_PAIRS_MAX_CPUS`].
pub const SAMPLE_PARTNERS: usize = 16;

/// The ordered pairs `(ping CPU, pong CPU)` for `cpus` (ascending, distinct), and the
/// selection made.
pub fn select_pairs(cpus: &[u32]) -> (Vec<(u32, u32)>, Sampling) {
    let n = cpus.len();
    let possible = n * n.saturating_sub(1);
    if n <= ALL_PAIRS_MAX_CPUS {
        let pairs: Vec<(u32, u32)> = cpus
            .iter()
            .flat_map(|&a| cpus.iter().filter(move |&&b| b != a).map(move |&b| (a, b)))
            .collect();
        let sampling = Sampling {
            strategy: "all-pairs".into(),
            partners: vec![],
            pairs: pairs.len(),
            possible_pairs: possible,
        };
        return (pairs, sampling);
    }
    let partners: Vec<u32> = (0..SAMPLE_PARTNERS)
        .map(|k| cpus[k * n / SAMPLE_PARTNERS])
        .collect();
    let mut pairs = Vec::new();
    for &a in cpus {
        for &p in &partners {
            if a != p {
                pairs.push((a, p));
                if !partners.contains(&a) {
                    pairs.push((p, a));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let sampling = Sampling {
        strategy: "each-cpu-against-sample".into(),
        partners,
        pairs: pairs.len(),
        possible_pairs: possible,
    };
    (pairs, sampling)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sets_give_every_ordered_pair() {
        let (p, s) = select_pairs(&[0, 1, 4]);
        assert_eq!(p, vec![(0, 1), (0, 4), (1, 0), (1, 4), (4, 0), (4, 1)]);
        assert_eq!(s.strategy, "all-pairs");
        assert_eq!((s.pairs, s.possible_pairs), (6, 6));
        let (p, s) = select_pairs(&[3]);
        assert!(p.is_empty());
        assert_eq!(s.possible_pairs, 0);
    }

    #[test]
    fn big_sets_pair_every_cpu_with_the_sample_both_ways() {
        let cpus: Vec<u32> = (0..128).collect();
        let (p, s) = select_pairs(&cpus);
        assert_eq!(s.strategy, "each-cpu-against-sample");
        assert_eq!(s.partners.len(), SAMPLE_PARTNERS);
        assert_eq!(s.partners[1], 8);
        // Every CPU appears as ping and as pong; no self pairs; no duplicates.
        for c in &cpus {
            assert!(p.iter().any(|&(a, _)| a == *c));
            assert!(p.iter().any(|&(_, b)| b == *c));
        }
        assert!(p.iter().all(|&(a, b)| a != b));
        let mut d = p.clone();
        d.dedup();
        assert_eq!(d.len(), p.len());
        // 112 non-partners x 16 x 2 + 16 partners x 15 among themselves.
        assert_eq!(p.len(), 112 * 16 * 2 + 16 * 15);
        assert_eq!(s.pairs, p.len());
        assert_eq!(s.possible_pairs, 128 * 127);
    }
}
