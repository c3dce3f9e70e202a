//! One run of the user's program: start it placed (`sys::spawn`), and while the main thread
//! blocks in `wait4` (so the wall time ends when the program ends, not at the next poll), a
//! watcher thread samples where its memory and threads are (`crate::inspect`, through the
//! SysRoot) every interval (longer when one sample is costly, so sampling stays under
//! 0.5 % of one CPU), and ends the program's process group when the time limit passes
//! or a stop signal arrives (SIGTERM, then SIGKILL after a grace period). Nothing here
//! decides or prints.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::inspect::inspect;
use crate::results::inspect::Inspection;
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sys::spawn::{
    end_group, signal_group, spawn_placed, wait_child, ChildEnd, ChildOutput, ChildPlacement,
    GroupSignal,
};
use crate::sysroot::SysRoot;

use super::error::AppError;

/// How long a stopped program has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);
/// The largest share of one CPU the procfs sampling may take: after a sample that took t,
/// the next comes no sooner than t / SAMPLE_BUDGET (and no sooner than the interval asked).
const SAMPLE_BUDGET: f64 = 0.005;
/// How often the watcher looks at the clock and the stop flag.
const TICK: Duration = Duration::from_millis(5);

/// Why numascope ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    TimeLimit,
    Signal,
}

/// A finished run.
#[derive(Debug)]
pub struct RunEnd {
    pub end: ChildEnd,
    pub wall_s: f64,
    pub stopped: Option<Stopped>,
    /// Every procfs sample that found the program's memory.
    pub samples: Vec<Inspection>,
}

/// Limits of a run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub time_limit: Option<Duration>,
    /// Sampling interval; `None`: no sampling.
    pub sample_every: Option<Duration>,
    /// Space the samples so they cost at most SAMPLE_BUDGET of one CPU (the default
    /// interval); false keeps the interval as given.
    pub budgeted: bool,
}

/// Runs `argv` once under `placement`.
pub fn run_once(
    topo: &Topology,
    root: &SysRoot,
    argv: &[String],
    placement: &ChildPlacement,
    output: ChildOutput,
    limits: Limits,
) -> Result<RunEnd, AppError> {
    let start = Instant::now();
    let pid = spawn_placed(argv, placement, output).map_err(|e| spawn_error(argv, e))?;
    let done = AtomicBool::new(false);
    let stopped: Mutex<Option<Stopped>> = Mutex::new(None);
    let (end, wall_s, samples) = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut samples = Vec::new();
            let mut next_sample = limits.sample_every.map(|d| start + d);
            let mut termed_at: Option<Instant> = None;
            while !done.load(Ordering::Acquire) {
                let now = Instant::now();
                enforce_stop(pid, start, now, limits, &mut termed_at, &stopped);
                if let (Some(next), Some(every)) = (next_sample, limits.sample_every) {
                    if now >= next && termed_at.is_none() {
                        if let Ok(i) = inspect(root, topo, pid) {
                            if !i.mappings.is_empty() {
                                samples.push(i);
                            }
                        }
                        // Reading numa_maps walks the program's page tables (about 10 ms
                        // for 256 MiB of 4 KiB pages on a busy VM): space the samples so
                        // they cost at most SAMPLE_BUDGET of one CPU.
                        let cost = now.elapsed();
                        let gap = if limits.budgeted {
                            every.max(cost.div_f64(SAMPLE_BUDGET))
                        } else {
                            every
                        };
                        next_sample = Some(Instant::now() + gap);
                    }
                }
                std::thread::sleep(TICK);
            }
            samples
        });
        let end = wait_child(pid);
        let wall_s = start.elapsed().as_secs_f64();
        done.store(true, Ordering::Release);
        // The program has ended, on its own or stopped; what it started in its group
        // (background jobs, a grandchild that ignores SIGTERM) ends with it.
        end_group(pid, GRACE);
        let samples = watcher.join().unwrap_or_default();
        (end, wall_s, samples)
    });
    let end =
        end.map_err(|e| AppError::environment(format!("waiting for the program failed: {e}")))?;
    let stopped = *stopped.lock().unwrap_or_else(|e| e.into_inner());
    Ok(RunEnd {
        end,
        wall_s,
        stopped,
        samples,
    })
}

/// One tick of the watcher's stop rule: at a stop signal or past the time limit, records
/// why and sends the program's group SIGTERM; SIGKILL once GRACE has passed since.
fn enforce_stop(
    pid: u32,
    start: Instant,
    now: Instant,
    limits: Limits,
    termed_at: &mut Option<Instant>,
    stopped: &Mutex<Option<Stopped>>,
) {
    match *termed_at {
        None => {
            let why = if interrupted() {
                Some(Stopped::Signal)
            } else if limits.time_limit.is_some_and(|l| now - start >= l) {
                Some(Stopped::TimeLimit)
            } else {
                None
            };
            if let Some(w) = why {
                *stopped.lock().unwrap_or_else(|e| e.into_inner()) = Some(w);
                let _ = signal_group(pid, GroupSignal::Term);
                *termed_at = Some(now);
            }
        }
        Some(t) if now - t >= GRACE => {
            let _ = signal_group(pid, GroupSignal::Kill);
        }
        Some(_) => {}
    }
}

/// The sentence for a program that could not be started.
fn spawn_error(argv: &[String], e: std::io::Error) -> AppError {
    let prog = argv.first().map(String::as_str).unwrap_or("");
    match e.kind() {
        std::io::ErrorKind::InvalidInput => {
            AppError::input("no command given; put it after `--`, e.g. `numascope app -- ./prog ARGS`")
        }
        std::io::ErrorKind::NotFound => AppError::input(format!(
            "command `{prog}` not found; check the name, or give its path (e.g. ./{prog})"
        )),
        std::io::ErrorKind::PermissionDenied => AppError::input(format!(
            "command `{prog}` cannot be executed (permission denied); check that it is an executable file"
        )),
        _ => AppError::environment(format!(
            "starting `{prog}` with the candidate's policy and CPUs failed: {e}"
        )),
    }
}
