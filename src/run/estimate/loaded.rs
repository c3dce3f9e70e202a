//! Estimate and detail line of the loaded-latency part.

use super::super::settings::Settings;
use super::{CHAIN_S_PER_ELEMENT, FAULT_BYTES_PER_S};

/// The estimate and detail line of the LoadedLatency part: one team runs a warm-up per mix,
/// the no-load point once and every mix at every delay step, each `duration_ms`; the chased
/// buffer (the latency matrix size) is built once; the delay loop is calibrated first. The
/// mixes left out are named in `reduced`, with what each more would cost.
pub(super) fn loaded_latency(s: &Settings, reduced: &mut Vec<String>) -> (f64, String) {
    let l = &s.loaded;
    let chased = s.latency_matrix.size_bytes;
    let chain = (chased / 64) as f64 * CHAIN_S_PER_ELEMENT + chased as f64 / FAULT_BYTES_PER_S;
    let per_mix_s = (l.delays + 1) as f64 * l.timed.duration_ms as f64 / 1000.0;
    let mixes = l.mixes.len().max(1);
    let mix_list = || {
        l.mixes
            .iter()
            .map(|k| k.label())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let left: Vec<String> = crate::results::loaded::LoadKernel::all_mixes()
        .into_iter()
        .filter(|k| !l.mixes.contains(k))
        .map(|k| k.label())
        .collect();
    if !left.is_empty() {
        // `--mix all` of the loaded-latency command is the read:write family (the first
        // four of `all_mixes`): worth naming only when some of it is left out.
        let family_left = l.mixes.len() < 4;
        reduced.push(format!(
            "loaded latency measures {} of {} load mixes ({}); left out: {} (about {:.1} s more); --thorough measures every mix{}",
            mixes,
            mixes + left.len(),
            mix_list(),
            left.join(", "),
            left.len() as f64 * per_mix_s,
            if family_left {
                ", and `numascope loaded-latency --mix all` the read:write family (read, 3:1, 2:1, 1:1) on its own"
            } else {
                ""
            }
        ));
    }
    let what = if mixes == 1 {
        String::new()
    } else {
        format!(", {mixes} load mixes ({}) measured interleaved", mix_list())
    };
    // Repetitions: a warm-up and every delay step per mix, and the one no-load point; each
    // point is cut into blocks spread over the curve (the warm-up is one block long).
    let reps = mixes * (l.delays + 1) + 1;
    let blocks = crate::loaded::blocks_for(std::time::Duration::from_millis(l.timed.duration_ms));
    (
        reps as f64 * l.timed.duration_ms as f64 / 1000.0 + chain + 0.3,
        format!(
            "{} load-delay steps, one chasing thread plus load threads on the other CPUs{what}; each point in {blocks} blocks of {:.0} ms spread over the curve",
            l.delays,
            l.timed.duration_ms as f64 / blocks as f64
        ),
    )
}
