//! The paired idle probe of the reference latency (`results::reference::IdleProbe`;
//! docs/METHODOLOGY.md, "Disturbed repetitions"): what it walks, and the pure verdict on the
//! kept blocks.
//!
//! Why a probe: the CPU-share and steal checks see another program only when it takes the
//! chasing CPU itself. On the project's 2-vCPU KVM guest the chase's blocks within one quick
//! run spread over 177-343 ns while the chasing thread had all of CPU 0: the slow stretches
//! last seconds and come with other work on the machine (other sessions compiling), which the
//! guest sees on no counter of CPU 0. A program outside the repository timed a chain of one
//! line per 4 KiB page over 16 MiB (4096 loads) right before and right after each of 480 blocks
//! of the 256 MiB chase (20 ms each, two series of 240, one half with a busy loop on the other
//! CPU): the probe's rank correlation with the block was 0.64-0.79, against 0.1 for a chain of
//! dependent adds (which sees the core clock and nothing of the memory system); it read 190-220
//! ns while the chase read its quiet 230-260 ns, and 240-310 ns in stretches where the chase read
//! 300-400 ns. In `run --quick` this probe (the lines at the start of each page) reads 250-330 ns.
//! The probe walks no element of the chased buffer, so a slow block does not make its own probe
//! slow.

use crate::latency::walk::{Chain, LOADS_PER_ITERATION};
use crate::results::reference::IdleProbe;

/// Pages of the probe chain (one element, one cache line, per 4 KiB page): 16 MiB, twice
/// the entries of a 2048-entry second-level TLB, so every load misses it; the lines, 4 KiB
/// apart, fall into few L2 sets and come from the L3 or memory, which other CPUs share.
pub const PROBE_PAGES: u64 = 4096;

/// Bytes between two probe elements: one base page.
pub const PROBE_ELEMENT_BYTES: u64 = 4096;

/// A kept block is disturbed when its probe exceeds the run's quiet level by more than this
/// fraction. The quiet probes of one run spread by about +-10 % around their median (the
/// measurement in the module docs); 0.2 sits beyond that spread and below the 25-40 % the
/// probe rose in the slow stretches.
pub const PROBE_THRESHOLD: f64 = 0.20;

/// One probe: a lap of the probe chain, timed; ns per load.
pub fn walk(chain: &mut Chain<'_>) -> f64 {
    let iterations = (chain.elements() as u64)
        .div_ceil(LOADS_PER_ITERATION)
        .max(1);
    let t = std::time::Instant::now();
    let loads = chain.walk(iterations);
    t.elapsed().as_nanos() as f64 / loads.max(1) as f64
}

/// The quiet level of `probes`: the median of their lowest third (at least one). `None`
/// without probes.
pub fn quiet_level(probes: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = probes.iter().copied().filter(|p| p.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let third = v.len().div_ceil(3);
    Some(crate::stats::median(&v[..third]))
}

/// The verdict on the kept blocks' probes (`None`: that block has no probe, and is never
/// judged disturbed): the quiet level and, per block, whether its probe exceeds the level by
/// more than `threshold`.
pub fn judge(probes: &[Option<f64>], threshold: f64) -> (Option<f64>, Vec<bool>) {
    let known: Vec<f64> = probes.iter().flatten().copied().collect();
    let Some(quiet) = quiet_level(&known) else {
        return (None, vec![false; probes.len()]);
    };
    let limit = quiet * (1.0 + threshold);
    let flags = probes
        .iter()
        .map(|p| p.is_some_and(|p| p > limit))
        .collect();
    (Some(quiet), flags)
}

/// Which blocks go into the figure: the quiet ones when at least `min_blocks` of them remain
/// (the disturbed ones are then left out, and counted), else all of them (the figure is then
/// marked). Returns (the indices kept, whether the disturbed were left out).
pub fn select(disturbed: &[bool], min_blocks: usize) -> (Vec<usize>, bool) {
    let quiet: Vec<usize> = (0..disturbed.len()).filter(|&i| !disturbed[i]).collect();
    let any = quiet.len() < disturbed.len();
    if any && quiet.len() >= min_blocks {
        (quiet, true)
    } else {
        ((0..disturbed.len()).collect(), false)
    }
}

/// The run's warning for blocks the probe judged disturbed; `None` when there were none.
pub fn warning(p: &IdleProbe) -> Option<String> {
    if p.blocks_disturbed == 0 {
        return None;
    }
    let what = format!(
        "the run's reference local idle latency: {} of its {} blocks were timed while the idle probe (a chain of one line per 4 KiB page, walked right before and after each block) read more than {:.0} % above the run's quiet {:.0} ns: something else was using the TLB, the caches or the memory while the chasing thread had its CPU",
        p.blocks_disturbed,
        p.blocks_probed,
        p.threshold_fraction * 100.0,
        p.quiet_ns
    );
    let outcome = if p.left_out {
        "those blocks are left out of the figure"
    } else {
        "too few quiet blocks remained to leave them out, so the figure is marked disturbed; rerun on an idle machine"
    };
    Some(format!("{what}; {outcome}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quiet_level_is_the_median_of_the_lowest_third() {
        // Nine probes: the lowest three are 100, 102, 104.
        let p = [
            150.0, 100.0, 104.0, 130.0, 102.0, 140.0, 160.0, 120.0, 110.0,
        ];
        assert_eq!(quiet_level(&p), Some(102.0));
        // One or two probes: the lowest third is the lowest one.
        assert_eq!(quiet_level(&[200.0, 150.0]), Some(150.0));
        assert_eq!(quiet_level(&[]), None);
        assert_eq!(quiet_level(&[f64::NAN]), None);
    }

    #[test]
    fn a_block_whose_probe_is_beyond_the_threshold_is_disturbed() {
        // Quiet level 100 (lowest third of six: 100, 100); limit 120.
        let p = [
            Some(100.0),
            Some(119.0),
            Some(121.0),
            None,
            Some(100.0),
            Some(180.0),
            Some(105.0),
        ];
        let (quiet, d) = judge(&p, 0.20);
        assert_eq!(quiet, Some(100.0));
        assert_eq!(d, [false, false, true, false, false, true, false]);
        // No probes at all: nothing is judged.
        let (quiet, d) = judge(&[None, None], 0.20);
        assert_eq!(quiet, None);
        assert_eq!(d, [false, false]);
    }

    #[test]
    fn disturbed_blocks_are_left_out_only_when_enough_quiet_ones_remain() {
        let d = [false, true, false, false, true, false, false, false];
        // Six quiet blocks: the two disturbed are left out.
        assert_eq!(select(&d, 6), (vec![0, 2, 3, 5, 6, 7], true));
        // Seven needed: all eight stay in (and the figure is marked by the caller).
        assert_eq!(select(&d, 7), ((0..8).collect(), false));
        // Nothing disturbed: all stay, nothing left out.
        assert_eq!(select(&[false; 3], 6), (vec![0, 1, 2], false));
    }

    #[test]
    fn the_warning_says_whether_the_blocks_were_left_out() {
        let mut p = IdleProbe {
            loads: 4096,
            working_set_bytes: 16 << 20,
            quiet_ns: 200.0,
            threshold_fraction: 0.2,
            blocks_disturbed: 0,
            blocks_probed: 10,
            left_out: true,
        };
        assert_eq!(warning(&p), None);
        p.blocks_disturbed = 3;
        let w = warning(&p).unwrap();
        assert!(
            w.contains("3 of its 10 blocks") && w.contains("left out"),
            "{w}"
        );
        p.left_out = false;
        let w = warning(&p).unwrap();
        assert!(
            w.contains("marked disturbed") && !w.contains("left out of"),
            "{w}"
        );
    }
}
