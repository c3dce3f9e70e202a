//! The clocks a latency figure depends on, checked before any measurement is trusted
//! (docs/METHODOLOGY.md, "Clocks and cycles", "The environment recorded"): the resolution and
//! per-read cost of the monotonic clock that times every sample, the TSC frequency where the
//! hardware or a calibration gives it, and an estimate of the *running* core clock from a chain of
//! dependent integer adds (one cycle each), which is what turns nanoseconds into core cycles. TSC
//! ticks are not core cycles: on a core that boosts above its TSC rate they undercount, so cycles
//! per load always use the core estimate and say so. Nothing here prints.

use std::time::{Duration, Instant};

use crate::sys::cpu::{self, ADDS_PER_ITERATION};
use crate::sysroot::SysRoot;

use crate::results::clock::ClockInfo;

impl ClockInfo {
    /// Checks the clocks of the running machine. `root` is read only for the CPU flags
    /// (`/proc/cpuinfo`); the timings themselves are always of the running process.
    pub fn measure(root: &SysRoot) -> ClockInfo {
        let (resolution_ns, read_cost_ns) = timer_resolution_and_cost();
        let flags = cpu_flags(root);
        let (tsc_hz, tsc_source) = tsc_frequency(&flags);
        let (core_hz_estimate, core_hz_source) = match estimate_core_hz() {
            Some(hz) if hz >= MAX_CREDIBLE_HZ => (
                None,
                format!(
                    "the dependent-add chain ran at {:.1} GHz, faster than any core clock: the \
                     CPU shortened it; cycles are not reported",
                    hz / 1e9
                ),
            ),
            Some(hz) => (
                Some(hz),
                format!(
                    "timed chain of {ADDS_PER_ITERATION}-way unrolled dependent integer adds \
                     (1 cycle each), best of {CORE_RUNS} runs of ~{} ms",
                    CORE_RUN.as_millis()
                ),
            ),
            None => (
                None,
                "no dependent-add kernel for this architecture; cycles are not reported".into(),
            ),
        };
        ClockInfo {
            resolution_ns,
            read_cost_ns,
            tsc_hz,
            tsc_source,
            core_hz_estimate,
            core_hz_source,
        }
    }

    /// Re-estimates the core clock (right before a measurement, as the clock may have moved).
    pub fn refresh_core_hz(&mut self) {
        if let Some(hz) = estimate_core_hz().filter(|&hz| hz < MAX_CREDIBLE_HZ) {
            self.core_hz_estimate = Some(hz);
        }
    }

    /// Converts nanoseconds to core cycles with the core clock estimate.
    pub fn cycles(&self, ns: f64) -> Option<f64> {
        self.core_hz_estimate.map(|hz| ns * hz / 1e9)
    }
}

/// Measures the monotonic clock: (smallest non-zero step, mean cost per read), in ns.
pub fn timer_resolution_and_cost() -> (f64, f64) {
    const READS: usize = 200_000;
    let mut min_step = u128::MAX;
    let start = Instant::now();
    let mut prev = start;
    for _ in 0..READS {
        let now = Instant::now();
        let step = now.duration_since(prev).as_nanos();
        if step > 0 && step < min_step {
            min_step = step;
        }
        prev = now;
    }
    let total = prev.duration_since(start).as_nanos() as f64;
    let cost = total / READS as f64;
    let resolution = if min_step == u128::MAX {
        // Every read returned the same value: the resolution is coarser than the whole run.
        total.max(1.0)
    } else {
        min_step as f64
    };
    (resolution, cost)
}

fn cpu_flags(root: &SysRoot) -> Vec<String> {
    let text = root
        .read_opt("proc/cpuinfo")
        .ok()
        .flatten()
        .unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("flags") || l.starts_with("Features"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The TSC frequency and how it was found. CPUID leaf 0x15 (crystal x ratio) is exact; leaf
/// 0x16's base frequency is the nominal TSC rate on Intel parts that lack 0x15's crystal; else,
/// with an invariant TSC (`constant_tsc` + `nonstop_tsc`), rdtsc is calibrated against
/// CLOCK_MONOTONIC over 50 ms.
fn tsc_frequency(flags: &[String]) -> (Option<f64>, String) {
    let has = |f: &str| flags.iter().any(|x| x == f);
    #[cfg(target_arch = "x86_64")]
    {
        if !has("tsc") {
            return (None, "the CPU has no TSC".into());
        }
        let known = if has("tsc_known_freq") {
            "tsc_known_freq set"
        } else {
            "tsc_known_freq not set"
        };
        if let Some(hz) = cpuid_tsc_hz() {
            return (
                Some(hz),
                format!("CPUID leaf 0x15 (crystal x ratio); {known}"),
            );
        }
        if let Some(hz) = cpuid_base_hz() {
            return (Some(hz), format!("CPUID leaf 0x16 base frequency; {known}"));
        }
        if !(has("constant_tsc") && has("nonstop_tsc")) {
            return (
                None,
                "the TSC is not invariant (constant_tsc/nonstop_tsc missing)".into(),
            );
        }
        let hz = calibrate_tsc();
        (
            Some(hz),
            format!(
                "rdtsc calibrated against CLOCK_MONOTONIC over 50 ms (CPUID 0x15/0x16 give nothing; {known})"
            ),
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = has;
        (None, "no TSC on this architecture".into())
    }
}

/// CPUID leaf 0x15: TSC = crystal clock x (ebx / eax); absent when any factor is zero.
#[cfg(target_arch = "x86_64")]
fn cpuid_tsc_hz() -> Option<f64> {
    let r = cpu::cpuid(0x15, 0)?;
    if r.eax == 0 || r.ebx == 0 || r.ecx == 0 {
        return None;
    }
    Some(r.ecx as f64 * r.ebx as f64 / r.eax as f64)
}

/// CPUID leaf 0x16: the base frequency in MHz (low 16 bits of eax); absent when zero.
#[cfg(target_arch = "x86_64")]
fn cpuid_base_hz() -> Option<f64> {
    let mhz = cpu::cpuid(0x16, 0)?.eax & 0xffff;
    (mhz != 0).then_some(mhz as f64 * 1e6)
}

#[cfg(target_arch = "x86_64")]
fn calibrate_tsc() -> f64 {
    // Three 50 ms windows; the median resists one window stretched by a descheduled vCPU.
    let mut rates: Vec<f64> = (0..3)
        .map(|_| {
            let t0 = Instant::now();
            let c0 = cpu::rdtsc();
            while t0.elapsed() < Duration::from_millis(50) {}
            let c1 = cpu::rdtsc();
            let t1 = Instant::now();
            c1.wrapping_sub(c0) as f64 / t1.duration_since(t0).as_secs_f64()
        })
        .collect();
    rates.sort_by(|a, b| a.total_cmp(b));
    rates[1]
}

const CORE_RUNS: usize = 5;
/// A core clock estimate at or above this is not a clock (no shipping x86-64 or Arm core runs
/// at 7 GHz): the CPU executed the chain faster than one add per cycle, and cycles derived
/// from it would be wrong by that factor.
pub const MAX_CREDIBLE_HZ: f64 = 7e9;
const CORE_RUN: Duration = Duration::from_millis(10);

/// The running core clock in Hz: the fastest of several ~10 ms runs of the add chain (the
/// fastest is the one least disturbed by interrupts or a descheduled vCPU).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn estimate_core_hz() -> Option<f64> {
    // Size one run: grow until it takes at least 1 ms, then scale to CORE_RUN.
    let mut iters: u64 = 1 << 12;
    let per_iter_s = loop {
        let t = Instant::now();
        cpu::add_chain(iters);
        let e = t.elapsed();
        if e >= Duration::from_millis(1) {
            break e.as_secs_f64() / iters as f64;
        }
        iters *= 2;
    };
    let iters = ((CORE_RUN.as_secs_f64() / per_iter_s) as u64).max(1);
    let mut best = 0.0f64;
    for _ in 0..CORE_RUNS {
        let t = Instant::now();
        cpu::add_chain(iters);
        let s = t.elapsed().as_secs_f64();
        best = best.max((iters * ADDS_PER_ITERATION) as f64 / s);
    }
    (best.is_finite() && best > 0.0).then_some(best)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn estimate_core_hz() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_is_sane() {
        let (res, cost) = timer_resolution_and_cost();
        assert!(res > 0.0 && res < 1e6, "resolution {res} ns");
        assert!(cost > 0.0 && cost < 1e5, "cost {cost} ns");
    }

    /// Mechanics, not speed: a busy machine only makes the chain slower, so the one bound
    /// that holds everywhere is the upper one; an estimate above 7 GHz means the add chain
    /// was folded or shortened by the compiler.
    #[test]
    fn core_clock_estimate_is_never_above_a_real_clock() {
        if let Some(hz) = estimate_core_hz() {
            assert!(hz.is_finite() && hz > 0.0, "core clock estimate {hz} Hz");
            assert!(
                hz < MAX_CREDIBLE_HZ,
                "core clock estimate {hz} Hz: the chain was folded"
            );
        }
    }

    #[test]
    fn flags_parse_from_snapshot() {
        let (_d, root) = crate::testutil::test_root(&[(
            "proc/cpuinfo",
            "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n",
        )]);
        let f = cpu_flags(&root);
        assert_eq!(f, vec!["fpu", "tsc", "constant_tsc", "nonstop_tsc"]);
    }
}
