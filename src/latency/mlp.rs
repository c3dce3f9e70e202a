//! Memory-level parallelism from the chain counts (`latency --chains 1,2,4,...`): with N
//! independent chains walked together, ns per load counts the loads of all chains, so it is a
//! throughput figure; one chain's is pure latency. The factor is how many times more loads per
//! second N chains complete than one, `ns(1) / ns(N)` (multichase's and MLC's convention:
//! the throughput gain over one chain). When a load's latency stays that of one chain it is the
//! average number of loads in flight; it falls short of N when the core runs out of miss
//! buffers or the memory queues lengthen each load.
//!
//! The interval is conservative, from the two medians' own distribution-free intervals (the
//! chains were measured one after the other, so there are no pairs to take ratios of): the
//! low end is the one-chain interval's low end over the N-chain interval's high end and the
//! high end the other way round, with coverage at least the product of the two
//! ([`crate::stats::unpaired_ratio`]). Nothing here measures or prints.

use crate::results::latency::{LatencyResult, MlpFactor};
use crate::stats::unpaired_ratio;

/// The factor of every result with more than one chain that has a one-chain result of the same
/// mode, page size and working set among `results`, in the order of `results`.
pub fn factors<'a>(results: impl IntoIterator<Item = &'a LatencyResult> + Clone) -> Vec<MlpFactor> {
    let mut out = Vec::new();
    for r in results.clone() {
        if r.chains <= 1 {
            continue;
        }
        let Some(one) = results.clone().into_iter().find(|o| {
            o.chains == 1
                && o.mode == r.mode
                && o.page_size == r.page_size
                && o.working_set_bytes == r.working_set_bytes
        }) else {
            continue;
        };
        // unpaired_ratio(a, b) is b / a: the factor is ns(1) / ns(N).
        let Some(ratio) = unpaired_ratio(&r.ns_per_load, &one.ns_per_load) else {
            continue;
        };
        out.push(MlpFactor {
            mode: r.mode,
            page_size: r.page_size,
            working_set_bytes: r.working_set_bytes,
            chains: r.chains,
            one_chain_ns_per_load: one.ns_per_load.median,
            ns_per_load: r.ns_per_load.median,
            per_chain_ns_per_load: r.chains as f64 * r.ns_per_load.median,
            factor: ratio.ratio,
            ci: ratio.ci,
        });
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::latency::Mode;
    use crate::results::placement::PageSize;
    use crate::stats::Summary;

    /// A random-walk result on CPU 0 and node 0 of `chains` chains over `size` bytes with
    /// `samples` (also the engine's tests' fixture).
    pub(crate) fn result(chains: usize, size: u64, samples: &[f64]) -> LatencyResult {
        LatencyResult {
            mode: Mode::Random,
            working_set_bytes: size,
            element_bytes: 64,
            group_bytes: None,
            page_size: PageSize::Base,
            cpu: 0,
            memory_node: Some(0),
            placement_fraction: Some(1.0),
            huge_fraction: Some(0.0),
            chains,
            ns_per_load: Summary::of(samples).unwrap(),
            cycles_per_load: None,
            loads_per_sample: 1000,
            warmup_samples: 2,
            quality: None,
            precision: None,
            blocks: None,
        }
    }

    fn around(x: f64) -> Vec<f64> {
        (0..9)
            .map(|i| x * (1.0 + 0.01 * (i as f64 - 4.0)))
            .collect()
    }

    #[test]
    fn factor_is_the_throughput_gain_over_one_chain_with_an_interval() {
        let rs = vec![
            result(1, 1 << 28, &around(100.0)),
            result(2, 1 << 28, &around(50.0)),
            result(8, 1 << 28, &around(20.0)),
            // No one-chain result at this size: no factor.
            result(4, 1 << 20, &around(10.0)),
        ];
        let f = factors(&rs);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].chains, 2);
        assert!((f[0].factor - 2.0).abs() < 1e-12);
        assert!((f[1].factor - 5.0).abs() < 1e-12);
        assert!((f[1].per_chain_ns_per_load - 160.0).abs() < 1e-9);
        assert_eq!(f[1].one_chain_ns_per_load, 100.0);
        let (lo, hi) = (
            f[1].ci.map(|c| c.low).unwrap(),
            f[1].ci.map(|c| c.high).unwrap(),
        );
        assert!(lo < 5.0 && 5.0 < hi, "{lo} {hi}");
        // Nine samples each: ranks 2 and 8, i.e. -3 % and +3 %.
        assert!((lo - 97.0 / 20.6).abs() < 1e-9, "{lo}");
        assert!((hi - 103.0 / 19.4).abs() < 1e-9, "{hi}");
        assert!(f[1].ci.map(|c| c.level).unwrap() >= 0.9);
    }

    #[test]
    fn few_samples_give_a_factor_without_an_interval() {
        let rs = vec![
            result(1, 4096, &[100.0, 101.0]),
            result(4, 4096, &[30.0, 31.0]),
        ];
        let f = factors(&rs);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (
                f[0].ci.map(|c| c.low),
                f[0].ci.map(|c| c.high),
                f[0].ci.map(|c| c.level)
            ),
            (None, None, None)
        );
        assert!(
            factors(&rs[..1]).is_empty(),
            "one chain count: nothing to compare"
        );
    }
}
