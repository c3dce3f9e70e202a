//! What the load threads do: walk their private buffer one 64-byte cache line at a time,
//! reading it, writing it (normal or non-temporal stores) or a read:write mix, with the
//! calibrated spin between lines (docs/METHODOLOGY.md, "Loaded latency"), until the shared stop
//! flag rises. Unlike the block kernels of `bandwidth`, the unit here is one line followed by a
//! delay, so the request rate can be turned down smoothly from "as fast as possible" to almost
//! idle.
//!
//! The delay is a spin count after each line (none at full speed). Paced, the thread aims at a
//! time per line and corrects its spin count once per [`POLL_LINES`] lines from one clock
//! read (an integral controller, [`next_iterations`]): the spin's cost inside the loop is not
//! what it costs alone, because the core overlaps it with the line's memory traffic, so a
//! spin count calibrated in isolation overshoots the delay it is meant to add.
//!
//! Byte counting: 64 B per line touched (the application figure: reads + writes, as MLC counts
//! its mixes). Normal stores also cost a read-for-ownership of the line, which the DRAM
//! estimate adds; non-temporal stores do not. The triad-like kernel touches three lines per
//! step (two read, one written) and is counted the same way: 192 B of application bytes per
//! step, 256 B with the write's read-for-ownership.
//!
//! Slices: so that a point's bandwidth has an interval, each load thread notes, at every poll,
//! whether the chaser has begun a new sample window (a shared counter it raises at the start
//! of each 2 ms sample); when it has, the thread records the window's number and the lines it
//! had touched so far ([`SliceLog`]). The lines between two marks are the thread's share of
//! that window. One relaxed load per [`POLL_LINES`] lines, from a cache line written once per
//! window: nothing the memory system notices.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::delay::spin;
use crate::results::loaded::LoadKernel;
use crate::threads::Stop;

/// Bytes in one line of the load kernels.
pub const LINE_BYTES: usize = 64;
const WORDS: usize = LINE_BYTES / 8;
/// Lines between two polls of the stop flag (and two clock reads of a paced thread).
pub const POLL_LINES: usize = 64;
/// Share of the time-per-line error a paced thread corrects per group of lines.
const PACE_GAIN: f64 = 0.5;

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

    /// Parses every load kernel by name: the `--kernel` names, the `--mix` ratios (2:1, 3:1,
    /// 1:1), the same ratios with non-temporal writes (`2:1-nt`, `3:1-nt`, `1:1-nt`) and
    /// `triad-like`. [`LoadKernel::from_mix`] keeps accepting only its three ratios.
    pub fn from_mix_name(s: &str) -> Result<LoadKernel, String> {
        let t = s.trim();
        if t == "triad-like" {
            return Ok(LoadKernel::Triad);
        }
        if let Some(ratio) = t.strip_suffix("-nt").filter(|r| r.contains(':')) {
            if !cfg!(target_arch = "x86_64") {
                return Err(format!(
                    "mix `{t}` needs x86-64 streaming stores; use {ratio} on this machine"
                ));
            }
            return match LoadKernel::from_mix(ratio) {
                Ok(LoadKernel::Mix { reads, writes }) => Ok(LoadKernel::MixNt { reads, writes }),
                _ => Err(format!(
                    "mix `{t}` is not a known read:write mix; use 2:1-nt, 3:1-nt or 1:1-nt"
                )),
            };
        }
        if t.contains(':') {
            return LoadKernel::from_mix(t);
        }
        LoadKernel::from_kernel_name(t).map_err(|_| {
            format!("mix `{t}` is not a load kernel; use read, write, write-nt, 3:1, 2:1, 1:1, 2:1-nt (any of the three ratios with -nt) or triad-like")
        })
    }

    /// Every load mix, in the order a run adds them as its budget allows: MLC's read:write
    /// family first (all reads, 3:1, 2:1, 1:1: the curves BSC's Mess plots), then
    /// non-temporal writes alone and with reads, the triad-like kernel, and normal writes
    /// alone. The non-temporal ones only on x86-64 (streaming stores).
    pub fn all_mixes() -> Vec<LoadKernel> {
        let mix = |reads, writes| LoadKernel::Mix { reads, writes };
        let nt = |reads, writes| LoadKernel::MixNt { reads, writes };
        let mut v = vec![LoadKernel::Read, mix(3, 1), mix(2, 1), mix(1, 1)];
        if cfg!(target_arch = "x86_64") {
            v.extend([LoadKernel::WriteNt, nt(3, 1), nt(2, 1), nt(1, 1)]);
        }
        v.extend([LoadKernel::Triad, LoadKernel::Write]);
        v
    }

    pub fn label(&self) -> String {
        match self {
            LoadKernel::Read => "read".into(),
            LoadKernel::Write => "write".into(),
            LoadKernel::WriteNt => "write-nt".into(),
            LoadKernel::Mix { reads, writes } => format!("read:write {reads}:{writes}"),
            LoadKernel::MixNt { reads, writes } => format!("read:write-nt {reads}:{writes}"),
            LoadKernel::Triad => "triad-like 2:1".into(),
        }
    }

    /// Its writes are non-temporal stores (no read-for-ownership, a store fence at the end).
    pub fn non_temporal(&self) -> bool {
        matches!(self, LoadKernel::WriteNt | LoadKernel::MixNt { .. })
    }

    /// Lines read and written per `reads + writes` lines: (reads, writes).
    pub fn ratio(&self) -> (u32, u32) {
        match *self {
            LoadKernel::Read => (1, 0),
            LoadKernel::Write | LoadKernel::WriteNt => (0, 1),
            LoadKernel::Mix { reads, writes } | LoadKernel::MixNt { reads, writes } => {
                (reads, writes)
            }
            LoadKernel::Triad => (2, 1),
        }
    }

    /// Lines one step of the walk touches (three for the triad-like kernel, else one).
    pub fn lines_per_step(&self) -> usize {
        if *self == LoadKernel::Triad {
            3
        } else {
            1
        }
    }

    /// Whether line `i` of a pass is written (else read).
    #[inline(always)]
    fn writes_line(&self, i: usize) -> bool {
        match *self {
            LoadKernel::Read => false,
            LoadKernel::Write | LoadKernel::WriteNt => true,
            LoadKernel::Mix { reads, writes } | LoadKernel::MixNt { reads, writes } => {
                i % (reads + writes) as usize >= reads as usize
            }
            // Its writes are chosen by position in the three arrays, not here.
            LoadKernel::Triad => false,
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

/// Where the chaser's sample window begins: its number and the lines this thread had touched
/// when it first saw it (at most one poll late).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceMark {
    pub window: u64,
    pub lines_before: u64,
}

/// A load thread's record of the chaser's windows over one run: see the module text.
#[derive(Debug, Default)]
pub struct SliceLog<'a> {
    window: Option<&'a AtomicU64>,
    pub marks: Vec<SliceMark>,
}

impl<'a> SliceLog<'a> {
    /// A log following `window` (the number of the chaser's current sample window).
    pub fn following(window: &'a AtomicU64) -> SliceLog<'a> {
        SliceLog {
            window: Some(window),
            marks: Vec::new(),
        }
    }

    /// A log that records nothing (no chaser to follow).
    pub fn none() -> SliceLog<'static> {
        SliceLog::default()
    }

    /// Notes the current window when it differs from the last one noted.
    #[inline(always)]
    fn note(&mut self, lines: u64) {
        let Some(w) = self.window else { return };
        let now = w.load(Ordering::Relaxed);
        if self.marks.last().is_none_or(|m| m.window != now) {
            self.marks.push(SliceMark {
                window: now,
                lines_before: lines,
            });
        }
    }
}

/// The lines a thread touched in window `window`, from its marks and the `total` lines of its
/// run: from the mark of that window to the next mark (or the end). A window the thread never
/// saw (it was descheduled through it, or the window fell outside its run) holds none.
pub fn lines_in_window(marks: &[SliceMark], total: u64, window: u64) -> u64 {
    let Some(i) = marks.iter().position(|m| m.window == window) else {
        return 0;
    };
    let end = marks.get(i + 1).map_or(total, |m| m.lines_before);
    end.saturating_sub(marks[i].lines_before)
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
/// The buffer must hold at least one line (three for the triad-like kernel, whose `*pos` is
/// the step within each of its three arrays and whose pace is per line: a step of three lines
/// is followed by three lines' spin).
pub fn run(
    buf: &mut [u64],
    kernel: LoadKernel,
    pace: Pace,
    pos: &mut usize,
    stop: &Stop,
) -> LoadCount {
    run_sliced(buf, kernel, pace, pos, stop, &mut SliceLog::none())
}

/// [`run`], noting the chaser's windows in `slices` once per [`POLL_LINES`] lines.
pub fn run_sliced(
    buf: &mut [u64],
    kernel: LoadKernel,
    pace: Pace,
    pos: &mut usize,
    stop: &Stop,
    slices: &mut SliceLog<'_>,
) -> LoadCount {
    let per_step = kernel.lines_per_step();
    // The triad-like kernel walks three arrays of `lines` lines each, one after the other.
    let lines = buf.len() / WORDS / per_step;
    assert!(lines > 0, "a load buffer holds at least one line per array");
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
    slices.note(0);
    loop {
        let spins = iters.round() as u64 * per_step as u64;
        for _ in 0..POLL_LINES {
            if per_step == 3 {
                triad_step(buf, lines, i);
                c.lines_read += 2;
                c.lines_written += 1;
            } else if kernel.writes_line(i) {
                let line = &mut buf[i * WORDS..(i + 1) * WORDS];
                if kernel.non_temporal() {
                    write_line_nt(line, STAMP);
                    c.lines_written_nt += 1;
                } else {
                    write_line(line, STAMP);
                }
                c.lines_written += 1;
            } else {
                acc = acc.wrapping_add(read_line(&buf[i * WORDS..(i + 1) * WORDS]));
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
        slices.note(c.lines());
        if stop.stopped() {
            break;
        }
        if let Some((ns_per_line, ns_per_iteration, group_start)) = pacer.as_mut() {
            let now = Instant::now();
            let last =
                now.duration_since(*group_start).as_nanos() as f64 / (POLL_LINES * per_step) as f64;
            *group_start = now;
            iters = next_iterations(iters, *ns_per_line, last, *ns_per_iteration);
        }
    }
    if kernel.non_temporal() {
        fence_nt();
    }
    std::hint::black_box(acc);
    *pos = i;
    c
}

/// One step of the triad-like kernel at line `i` of each of its three arrays (a, b, c of
/// `lines` lines each, in that order in `buf`): a[i] = b[i] + c[i], word by word.
#[inline(always)]
fn triad_step(buf: &mut [u64], lines: usize, i: usize) {
    let (a, bc) = buf.split_at_mut(lines * WORDS);
    let (b, c) = bc.split_at(lines * WORDS);
    let at = i * WORDS..(i + 1) * WORDS;
    for ((x, y), z) in a[at.clone()].iter_mut().zip(&b[at.clone()]).zip(&c[at]) {
        // SAFETY: `y` and `z` are valid, aligned references into the buffer and `x` a valid,
        // aligned, exclusive one; volatile keeps the compiler from skipping or merging them.
        unsafe {
            let v = std::ptr::read_volatile(y).wrapping_add(std::ptr::read_volatile(z));
            std::ptr::write_volatile(x, v);
        }
    }
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
    use crate::results::loaded::*;
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
    fn nt_mixes_and_the_triad_like_kernel_touch_the_lines_they_claim() {
        // Reads + non-temporal writes, 2:1: of lines 0..64, those with i % 3 == 2 are written.
        let k = LoadKernel::from_mix_name("2:1-nt").unwrap();
        assert_eq!(
            k,
            LoadKernel::MixNt {
                reads: 2,
                writes: 1
            }
        );
        assert!(
            k.non_temporal()
                && !LoadKernel::Mix {
                    reads: 2,
                    writes: 1
                }
                .non_temporal()
        );
        let mut buf = vec![0u64; 128 * WORDS];
        let mut pos = 0;
        let c = run(&mut buf, k, Pace::Full, &mut pos, &stop_after_first_poll());
        assert_eq!(
            (c.lines_read, c.lines_written, c.lines_written_nt),
            (43, 21, 21)
        );
        assert_eq!(c.dram_bytes_estimate(), c.bytes(), "NT writes need no RFO");
        let written: Vec<usize> = (0..128).filter(|&l| buf[l * WORDS] != 0).collect();
        assert_eq!(written, (0..64).filter(|i| i % 3 == 2).collect::<Vec<_>>());

        // Triad-like: three arrays of 100 lines; one poll group is 64 steps, each reading a
        // line of b and c and writing a[i] = b[i] + c[i] (normal stores, RFO counted).
        let lines = 100;
        let mut buf = vec![0u64; 3 * lines * WORDS];
        buf[lines * WORDS..2 * lines * WORDS].fill(1);
        buf[2 * lines * WORDS..].fill(2);
        let mut pos = 90;
        let c = run(
            &mut buf,
            LoadKernel::Triad,
            Pace::Full,
            &mut pos,
            &stop_after_first_poll(),
        );
        assert_eq!(
            (c.lines_read, c.lines_written, c.lines_written_nt),
            (128, 64, 0)
        );
        assert_eq!(pos, (90 + 64) % lines);
        assert_eq!(c.bytes(), 192 * 64);
        assert_eq!(c.dram_bytes_estimate(), 256 * 64);
        let a_written: Vec<usize> = (0..lines).filter(|&l| buf[l * WORDS] == 3).collect();
        let expect: Vec<usize> = (90..lines)
            .chain(0..54)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(a_written, expect);
        assert!(buf[..lines * WORDS].iter().all(|&w| w == 0 || w == 3));
        assert_eq!(LoadKernel::Triad.ratio(), (2, 1));
        assert_eq!(LoadKernel::Triad.lines_per_step(), 3);
    }

    #[test]
    fn mix_names_cover_every_kernel_and_keep_from_mix_as_it_was() {
        for (name, label) in [
            ("read", "read"),
            ("write-nt", "write-nt"),
            ("3:1", "read:write 3:1"),
            ("1:1-nt", "read:write-nt 1:1"),
            ("triad-like", "triad-like 2:1"),
        ] {
            assert_eq!(LoadKernel::from_mix_name(name).unwrap().label(), label);
        }
        assert!(
            LoadKernel::from_mix("2:1-nt").is_err(),
            "from_mix keeps its three ratios"
        );
        assert!(LoadKernel::from_mix("triad-like").is_err());
        let e = LoadKernel::from_mix_name("5:1-nt").unwrap_err();
        assert!(e.contains("2:1-nt"), "{e}");
        let e = LoadKernel::from_mix_name("copy").unwrap_err();
        assert!(e.contains("triad-like"), "{e}");
    }

    /// A load thread notes the window it starts in, and each later one once; the lines
    /// between two marks are that window's.
    #[test]
    fn slices_follow_the_chasers_window_number() {
        let window = AtomicU64::new(5);
        let mut log = SliceLog::following(&window);
        let mut buf = vec![0u64; 16 * WORDS];
        let mut pos = 0;
        let stop = stop_after_first_poll();
        let c = run_sliced(
            &mut buf,
            LoadKernel::Read,
            Pace::Full,
            &mut pos,
            &stop,
            &mut log,
        );
        assert_eq!(
            log.marks,
            vec![SliceMark {
                window: 5,
                lines_before: 0
            }]
        );
        assert_eq!(lines_in_window(&log.marks, c.lines(), 5), 64);
        window.store(6, Ordering::Relaxed);
        log.note(64);
        log.note(70);
        assert_eq!(log.marks.len(), 2, "one mark per window");
        assert_eq!(lines_in_window(&log.marks, 100, 5), 64);
        assert_eq!(lines_in_window(&log.marks, 100, 6), 36);
        assert_eq!(lines_in_window(&log.marks, 100, 7), 0, "never seen");
        let mut quiet = SliceLog::none();
        quiet.note(3);
        assert!(quiet.marks.is_empty());
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
    fn every_mix_is_listed_once_reads_first() {
        let all = LoadKernel::all_mixes();
        assert_eq!(all[0], LoadKernel::Read);
        assert_eq!(all[3].label(), "read:write 1:1");
        for (i, k) in all.iter().enumerate() {
            assert!(!all[..i].contains(k), "{k:?} twice");
        }
        let expect = if cfg!(target_arch = "x86_64") { 10 } else { 6 };
        assert_eq!(all.len(), expect);
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
