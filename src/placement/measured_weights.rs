//! Weighted-interleave weights from measured bandwidths (pure). Pages are spread in
//! proportion to the weights, so the weight of a node should be proportional to the bandwidth
//! the initiator gets from it: then every node finishes its share at the same time. The
//! kernel stores weights as integers 1..=255 and applies them page by page in rounds, so
//! small integers (4:1 rather than 200:50) keep the pattern fine-grained. This file does not
//! measure or set anything; the run's advisor and `app`'s `weighted:measured` candidate
//! both derive their weights here.

/// Largest denominator tried when approximating bandwidth ratios by small integers.
const MAX_DENOMINATOR: u32 = 8;
/// Relative error accepted for each node's share when reducing to small integers.
const TOLERANCE: f64 = 0.05;

/// Weights proportional to `measured` (node, MB/s), reduced to small integers: the smallest
/// denominator d <= 8 for which every node's weight round(d * bw / min_bw) is within 5 % of
/// its exact value, else the best of those tried; then divided by their greatest common
/// divisor and capped at 255. Nodes with a non-positive or non-finite figure get no weight.
/// Fewer than two usable nodes: empty (nothing to weigh).
pub fn derive_weights(measured: &[(u32, f64)]) -> Vec<(u32, u8)> {
    let usable: Vec<(u32, f64)> = measured
        .iter()
        .copied()
        .filter(|(_, b)| b.is_finite() && *b > 0.0)
        .collect();
    if usable.len() < 2 {
        return vec![];
    }
    let min = usable.iter().map(|(_, b)| *b).fold(f64::INFINITY, f64::min);
    let ratios: Vec<f64> = usable.iter().map(|(_, b)| b / min).collect();
    let mut best: Option<(f64, Vec<u64>)> = None;
    for d in 1..=MAX_DENOMINATOR {
        let w: Vec<u64> = ratios
            .iter()
            .map(|r| ((r * d as f64).round() as u64).max(1))
            .collect();
        let err = ratios
            .iter()
            .zip(&w)
            .map(|(r, &x)| ((x as f64 - r * d as f64) / (r * d as f64)).abs())
            .fold(0.0, f64::max);
        if best.as_ref().is_none_or(|(e, _)| err < *e - 1e-12) {
            best = Some((err, w));
        }
        if err <= TOLERANCE {
            break;
        }
    }
    let (_, mut w) = best.expect("at least one denominator tried");
    let g = w.iter().copied().fold(0, gcd);
    if g > 1 {
        w.iter_mut().for_each(|x| *x /= g);
    }
    usable
        .iter()
        .zip(w)
        .map(|((n, _), x)| (*n, x.min(255) as u8))
        .collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `0:4,1:1`.
pub fn weights_text(w: &[(u32, u8)]) -> String {
    w.iter()
        .map(|(n, x)| format!("{n}:{x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `0,1` (the nodes of a weight list).
pub fn nodes_text(w: &[(u32, u8)]) -> String {
    w.iter()
        .map(|(n, _)| n.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dram_and_cxl_reduce_to_small_integers() {
        assert_eq!(
            derive_weights(&[(0, 200_000.0), (2, 50_000.0)]),
            vec![(0, 4), (2, 1)]
        );
        // The Opteron's local and remote maximum read: 6286 : 3116 -> 2:1.
        assert_eq!(
            derive_weights(&[(0, 6286.0), (1, 3116.0)]),
            vec![(0, 2), (1, 1)]
        );
        // 4:3 needs denominator 3.
        assert_eq!(
            derive_weights(&[(0, 100.0), (1, 75.0)]),
            vec![(0, 4), (1, 3)]
        );
        // Equal nodes: 1:1 (reduced by the gcd).
        assert_eq!(
            derive_weights(&[(0, 10.0), (1, 10.2)]),
            vec![(0, 1), (1, 1)]
        );
        // Three tiers, sparse ids.
        assert_eq!(
            derive_weights(&[(0, 300.0), (2, 150.0), (5, 100.0)]),
            vec![(0, 6), (2, 3), (5, 2)]
        );
    }

    #[test]
    fn nothing_to_weigh_and_extremes() {
        assert!(derive_weights(&[(0, 100.0)]).is_empty());
        assert!(derive_weights(&[(0, 100.0), (1, f64::NAN), (2, 0.0)]).is_empty());
        let w = derive_weights(&[(0, 1e6), (1, 1.0)]);
        assert_eq!(w, vec![(0, 255), (1, 1)]);
        assert_eq!(weights_text(&[(0, 4), (2, 1)]), "0:4,2:1");
    }
}
