//! What the load threads do: walk their private buffer one 64-byte cache line at a time,
//! reading it, writing it (normal or non-temporal stores) or a read:write mix, with the
//! calibrated spin between lines (METHODOLOGY point 17), until the shared stop flag rises.
//! Unlike the block kernels of `bandwidth`, the unit here is one line followed by a delay, so
//! the request rate can be turned down smoothly from "as fast as possible" to almost idle.
//!
//! The delay is a spin count after each line (none at full speed). Paced, the thread aims at a
//! time per line and corrects its spin count once per [`POLL_LINES`] lines from one clock
//! read (an integral controller, [`next_iterations`]): the spin's cost inside the loop is not
//! what it costs alone, because the core overlaps it with the line's memory traffic, so a
//! spin count calibrated in isolation overshoots the delay it is meant to add.
//!
//! Byte counting: 64 B per line touched (the application figure). Normal stores also cost a
//! read-for-ownership of the line, which the DRAM estimate adds; non-temporal stores do not.

use std::time::Instant;

use super::delay::spin;
use crate::threads::Stop;

/// Bytes in one line of the load kernels.
pub const LINE_BYTES: usize = 64;
const WORDS: usize = LINE_BYTES / 8;
/// Lines between two polls of the stop flag (and two clock reads of a paced thread).
pub const POLL_LINES: usize = 64;
/// Share of the time-per-line error a paced thread corrects per group of lines.
const PACE_GAIN: f64 = 0.5;

pub use crate::results::loaded::LoadKernel;

impl LoadKernel {
    /// Parses `--kernel` (read, write, write-nt).
    pub fn from_kernel_name(s: &str) -> Result<LoadKernel, String> {
        match s.trim() {
            "read" => Ok(LoadKernel::Read),
            "write" => Ok(LoadKernel::Write),
            "write-nt" => {
                if cfg!(target_arch = "x86_64") {
                    Ok(LoadKernel::WriteNt)
                } else {
                    Err("--kernel write-nt needs x86-64 streaming stores; use read or write on this machine".into())
                }
            }
            other => Err(format!(
                "--kernel `{other}` is not a load kernel; use read, write or write-nt (or --mix R:W)"
            )),
        }
    }

    /// Parses `--mix` (2:1, 3:1, 1:1: reads to writes).
    pub fn from_mix(s: &str) -> Result<LoadKernel, String> {
        match s.trim() {
            "2:1" => Ok(LoadKernel::Mix {
                reads: 2,
                writes: 1,
            }),
            "3:1" => Ok(LoadKernel::Mix {
                reads: 3,
                writes: 1,
            }),
            "1:1" => Ok(LoadKernel::Mix {
                reads: 1,
                writes: 1,
            }),
            other => Err(format!(
                "--mix `{other}` is not a known read:write mix; use 2:1, 3:1 or 1:1"
            )),
        }
    }

    pub fn label(&self) -> String {
        match self {
            LoadKernel::Read => "read".into(),
            LoadKernel::Write => "write".into(),
            LoadKernel::WriteNt => "write-nt".into(),
            LoadKernel::Mix { reads, writes } => format!("read:write {reads}:{writes}"),
        }
    }

    /// Whether line `i` of a pass is written (else read).
    #[inline(always)]
    fn writes_line(&self, i: usize) -> bool {
        match *self {
            LoadKernel::Read => false,
            LoadKernel::Write | LoadKernel::WriteNt => true,
            LoadKernel::Mix { reads, writes } => i % (reads + writes) as usize >= reads as usize,
        }
    }
}

/// What one load thread did in one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadCount {
    pub lines_read: u64,
    pub lines_written: u64,
    /// Of the written lines, those written with non-temporal stores.
    pub lines_written_nt: u64,
    /// Spin iterations run after the lines, summed.
    pub spin_iterations: u64,
}

impl LoadCount {
    /// Lines touched.
    pub fn lines(&self) -> u64 {
        self.lines_read + self.lines_written
    }

    /// Application bytes: 64 per line touched.
    pub fn bytes(&self) -> u64 {
        (self.lines_read + self.lines_written) * LINE_BYTES as u64
    }

    /// DRAM estimate: application bytes plus one line read for ownership per normal store.
    pub fn dram_bytes_estimate(&self) -> u64 {
        self.bytes() + (self.lines_written - self.lines_written_nt) * LINE_BYTES as u64
    }
}

/// How fast a load thread goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// No delay between lines.
    Full,
    /// Aim at `ns_per_line` per line, starting from `start_iterations` spins per line and
    /// correcting once per [`POLL_LINES`] lines.
    Target {
        ns_per_line: f64,
        ns_per_iteration: f64,
        start_iterations: f64,
    },
}

/// The paced spin count for the next group of lines: the current count moved by
/// `PACE_GAIN` of the gap between the target and the last group's time per line, in spin
/// iterations, never below zero. A group slowed down more than fourfold (the thread was
/// interrupted) says nothing about the spin and leaves the count as it is.
pub fn next_iterations(
    current: f64,
    target_ns_per_line: f64,
    last_ns_per_line: f64,
    ns_per_iteration: f64,
) -> f64 {
    if ns_per_iteration <= 0.0 || last_ns_per_line > 4.0 * target_ns_per_line {
        return current;
    }
    let step = PACE_GAIN * (target_ns_per_line - last_ns_per_line) / ns_per_iteration;
    (current + step).max(0.0)
}

/// Walks `buf` line by line (wrapping around, continuing at `*pos`) at `pace`, until `stop`.
/// The buffer must hold at least one line.
pub fn run(
    buf: &mut [u64],
    kernel: LoadKernel,
    pace: Pace,
    pos: &mut usize,
    stop: &Stop,
) -> LoadCount {
    let lines = buf.len() / WORDS;
    assert!(lines > 0, "a load buffer holds at least one line");
    let mut c = LoadCount::default();
    let mut acc = 0u64;
    let mut i = *pos % lines;
    // Paced: (target ns per line, ns per spin iteration, start of the current group).
    let (mut iters, mut pacer) = match pace {
        Pace::Full => (0.0, None),
        Pace::Target {
            ns_per_line,
            ns_per_iteration,
            start_iterations,
        } => (
            start_iterations.max(0.0),
            Some((ns_per_line, ns_per_iteration, Instant::now())),
        ),
    };
    loop {
        let spins = iters.round() as u64;
        for _ in 0..POLL_LINES {
            let line = &mut buf[i * WORDS..(i + 1) * WORDS];
            if kernel.writes_line(i) {
                if kernel == LoadKernel::WriteNt {
                    write_line_nt(line, STAMP);
                    c.lines_written_nt += 1;
                } else {
                    write_line(line, STAMP);
                }
                c.lines_written += 1;
            } else {
                acc = acc.wrapping_add(read_line(line));
                c.lines_read += 1;
            }
            i += 1;
            if i == lines {
                i = 0;
            }
            if spins > 0 {
                spin(spins);
            }
        }
        c.spin_iterations += spins * POLL_LINES as u64;
        if stop.stopped() {
            break;
        }
        if let Some((ns_per_line, ns_per_iteration, group_start)) = pacer.as_mut() {
            let now = Instant::now();
            let last = now.duration_since(*group_start).as_nanos() as f64 / POLL_LINES as f64;
            *group_start = now;
            iters = next_iterations(iters, *ns_per_line, last, *ns_per_iteration);
        }
    }
    if kernel == LoadKernel::WriteNt {
        fence_nt();
    }
    std::hint::black_box(acc);
    *pos = i;
    c
}

/// What the write kernels store.
const STAMP: u64 = 0x5a5a_5a5a_5a5a_5a5a;

#[inline(always)]
fn read_line(line: &[u64]) -> u64 {
    let mut s = 0u64;
    for w in line {
        // SAFETY: `w` is a valid, aligned reference into the buffer; the volatile read keeps
        // the compiler from skipping or merging the load.
        s ^= unsafe { std::ptr::read_volatile(w) };
    }
    s
}

#[inline(always)]
fn write_line(line: &mut [u64], v: u64) {
    for w in line {
        // SAFETY: `w` is a valid, aligned, exclusive reference into the buffer.
        unsafe { std::ptr::write_volatile(w, v) };
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn write_line_nt(line: &mut [u64], v: u64) {
    for w in line {
        // SAFETY: `w` is a valid, 8-byte aligned, exclusive location; MOVNTI (SSE2) is part of
        // the x86-64 baseline. The store fence after the loop orders these stores.
        unsafe { std::arch::x86_64::_mm_stream_si64(w as *mut u64 as *mut i64, v as i64) };
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn write_line_nt(line: &mut [u64], v: u64) {
    // Refused at parse time (`from_kernel_name`); kept correct anyway.
    write_line(line, v)
}

#[inline(always)]
fn fence_nt() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SFENCE has no operands and is part of the x86-64 baseline.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    fn stop_after_first_poll() -> Stop {
        Stop::from_flag(AtomicBool::new(true))
    }

    #[test]
    fn kernels_touch_the_lines_they_claim() {
        for (k, reads, writes) in [
            (LoadKernel::Read, 64, 0),
            (LoadKernel::Write, 0, 64),
            (LoadKernel::WriteNt, 0, 64),
            (
                LoadKernel::Mix {
                    reads: 3,
                    writes: 1,
                },
                48,
                16,
            ),
            (
                LoadKernel::Mix {
                    reads: 1,
                    writes: 1,
                },
                32,
                32,
            ),
        ] {
            let mut buf = vec![0u64; 128 * WORDS];
            let mut pos = 0;
            let c = run(&mut buf, k, Pace::Full, &mut pos, &stop_after_first_poll());
            assert_eq!((c.lines_read, c.lines_written), (reads, writes), "{k:?}");
            assert_eq!(pos, 64);
            let written = buf.chunks(WORDS).filter(|l| l[0] != 0).count() as u64;
            assert_eq!(written, writes, "{k:?}");
            assert!(buf.chunks(WORDS).all(|l| l.iter().all(|&w| w == l[0])));
            assert_eq!(c.bytes(), 64 * 64);
        }
        let c = LoadCount {
            lines_read: 2,
            lines_written: 3,
            lines_written_nt: 1,
            spin_iterations: 0,
        };
        assert_eq!(c.dram_bytes_estimate(), 64 * 5 + 64 * 2);
        assert_eq!(c.lines(), 5);
    }

    #[test]
    fn walking_wraps_around_a_small_buffer() {
        let mut buf = vec![0u64; 10 * WORDS];
        let mut pos = 7;
        let c = run(
            &mut buf,
            LoadKernel::Read,
            Pace::Target {
                ns_per_line: 1e6,
                ns_per_iteration: 1.0,
                start_iterations: 3.0,
            },
            &mut pos,
            &stop_after_first_poll(),
        );
        assert_eq!(c.lines_read, 64);
        assert_eq!(c.spin_iterations, 3 * 64);
        assert_eq!(pos, (7 + 64) % 10);
    }

    /// A simulated thread whose line takes `mem` ns plus `k` ns per spin iteration (the
    /// spin is cheaper inside the loop than alone: k below the calibrated 1.7 ns).
    fn settle(mem: f64, k: f64, target: f64) -> f64 {
        let mut it = 0.0;
        for _ in 0..200 {
            it = next_iterations(it, target, mem + k * it, 1.7);
        }
        mem + k * it
    }

    #[test]
    fn pacing_settles_on_the_target_time_per_line() {
        for (mem, k, target) in [(7.0, 1.1, 40.0), (7.0, 1.7, 14.0), (20.0, 0.6, 400.0)] {
            let t = settle(mem, k, target);
            assert!((t / target - 1.0).abs() < 1e-6, "{mem} {k} {target}: {t}");
        }
        // A target below what the memory allows: no spin at all.
        assert_eq!(settle(7.0, 1.1, 5.0), 7.0);
        // An interrupted group changes nothing.
        assert_eq!(next_iterations(10.0, 20.0, 500.0, 1.7), 10.0);
        assert_eq!(next_iterations(10.0, 20.0, 20.0, 1.7), 10.0);
    }

    #[test]
    fn a_paced_run_counts_its_spins() {
        let mut buf = vec![0u64; 16 * WORDS];
        let mut pos = 0;
        let pace = Pace::Target {
            ns_per_line: 1e6,
            ns_per_iteration: 1.0,
            start_iterations: 2.0,
        };
        let c = run(
            &mut buf,
            LoadKernel::Read,
            pace,
            &mut pos,
            &stop_after_first_poll(),
        );
        assert_eq!((c.lines(), c.spin_iterations), (64, 128));
    }

    #[test]
    fn names_parse_and_bad_ones_say_what_to_use() {
        assert_eq!(
            LoadKernel::from_kernel_name("write").unwrap(),
            LoadKernel::Write
        );
        assert_eq!(
            LoadKernel::from_mix("2:1").unwrap().label(),
            "read:write 2:1"
        );
        let e = LoadKernel::from_mix("5:2").unwrap_err();
        assert!(e.contains("2:1, 3:1 or 1:1"), "{e}");
        assert!(LoadKernel::from_kernel_name("triad").is_err());
    }
}
