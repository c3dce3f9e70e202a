//! A team of pinned threads that start together and stop together. The caller's thread is the
//! conductor: it waits until every worker is pinned and set up, releases each repetition with
//! one barrier, sleeps for the fixed duration, raises the shared stop flag, and collects what
//! each worker measured. Workers record their own elapsed time, so rates are per thread.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use crate::sysroot::SysRoot;
use crate::topology::Topology;

use super::{check_cpus, pin_current, ThreadError};

/// The shared stop flag, as workers see it.
pub struct Stop(AtomicBool);

impl Stop {
    /// True once the conductor has ended the repetition. A relaxed load: cheap enough to poll
    /// between chunks of work.
    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A flag outside any team, for unit tests of work functions.
    #[cfg(test)]
    pub(crate) fn from_flag(flag: AtomicBool) -> Stop {
        Stop(flag)
    }
}

/// How long and how often to run.
#[derive(Debug, Clone)]
pub struct TeamPlan {
    /// Length of one repetition.
    pub duration: Duration,
    /// Repetitions kept.
    pub repetitions: usize,
    /// Repetitions run first and dropped.
    pub warmup: usize,
}

/// What one worker measured in one repetition.
#[derive(Debug, Clone)]
pub struct ThreadSample<R> {
    pub cpu: u32,
    /// From the barrier's release to the return of `work`, nanoseconds.
    pub elapsed_ns: u64,
    pub value: R,
}

/// Everything a team run produced.
#[derive(Debug)]
pub struct TeamOutcome<S, R> {
    /// `[repetition][thread]`, warm-up removed.
    pub reps: Vec<Vec<ThreadSample<R>>>,
    /// Each worker's state, returned after the threads joined (e.g. buffers to verify).
    pub states: Vec<S>,
}

/// Runs one pinned thread per CPU of `cpus` (see the module docs). `setup(index, cpu)` runs on
/// the pinned thread before any timing; `work(index, state, stop)` must return soon after
/// `stop.stopped()` turns true.
pub fn run_team<S: Send, R: Send>(
    topo: &Topology,
    root: &SysRoot,
    cpus: &[u32],
    plan: &TeamPlan,
    setup: impl Fn(usize, u32) -> anyhow::Result<S> + Sync,
    work: impl Fn(usize, &mut S, &Stop) -> R + Sync,
) -> Result<TeamOutcome<S, R>, ThreadError> {
    check_cpus(topo, root, cpus)?;
    let n = cpus.len();
    let total_reps = plan.warmup + plan.repetitions;
    let barrier = Barrier::new(n + 1);
    let stop = Stop(AtomicBool::new(false));
    let abort = AtomicBool::new(false);
    let setup_errors: Mutex<Vec<Option<ThreadError>>> = Mutex::new((0..n).map(|_| None).collect());
    let slots: Vec<Mutex<Option<ThreadSample<R>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let panicked = AtomicBool::new(false);

    std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .enumerate()
            .map(|(i, &cpu)| {
                let (barrier, stop, abort, setup_errors, slots, panicked) =
                    (&barrier, &stop, &abort, &setup_errors, &slots, &panicked);
                let (setup, work) = (&setup, &work);
                s.spawn(move || -> Option<S> {
                    let prepared = pin_current(topo, root, cpu).and_then(|()| {
                        match catch_unwind(AssertUnwindSafe(|| setup(i, cpu))) {
                            Ok(Ok(st)) => Ok(st),
                            Ok(Err(e)) => Err(ThreadError::Setup {
                                cpu,
                                message: crate::error::one_sentence(&e),
                            }),
                            Err(_) => Err(ThreadError::Panicked(cpu)),
                        }
                    });
                    let mut state = match prepared {
                        Ok(st) => Some(st),
                        Err(e) => {
                            setup_errors.lock().unwrap()[i] = Some(e);
                            None
                        }
                    };
                    barrier.wait(); // ready
                    barrier.wait(); // go (abort decided)
                    if abort.load(Ordering::SeqCst) {
                        return state;
                    }
                    let st = state
                        .as_mut()
                        .expect("no abort means every setup succeeded");
                    for _ in 0..total_reps {
                        barrier.wait(); // start
                        if !panicked.load(Ordering::Relaxed) {
                            let t0 = Instant::now();
                            match catch_unwind(AssertUnwindSafe(|| work(i, st, stop))) {
                                Ok(value) => {
                                    let elapsed_ns = t0.elapsed().as_nanos() as u64;
                                    *slots[i].lock().unwrap() = Some(ThreadSample {
                                        cpu,
                                        elapsed_ns,
                                        value,
                                    });
                                }
                                Err(_) => panicked.store(true, Ordering::SeqCst),
                            }
                        }
                        barrier.wait(); // end
                    }
                    state
                })
            })
            .collect();

        barrier.wait(); // ready
        let first_error = setup_errors
            .lock()
            .unwrap()
            .iter_mut()
            .find_map(|e| e.take());
        if first_error.is_some() {
            abort.store(true, Ordering::SeqCst);
        }
        barrier.wait(); // go
        let mut reps = Vec::with_capacity(plan.repetitions);
        if first_error.is_none() {
            for rep in 0..total_reps {
                barrier.wait(); // start
                std::thread::sleep(plan.duration);
                stop.0.store(true, Ordering::SeqCst);
                barrier.wait(); // end
                stop.0.store(false, Ordering::SeqCst);
                let samples: Vec<ThreadSample<R>> = slots
                    .iter()
                    .filter_map(|m| m.lock().unwrap().take())
                    .collect();
                if rep >= plan.warmup && samples.len() == n {
                    reps.push(samples);
                }
            }
        }
        let mut states = Vec::with_capacity(n);
        let mut join_error = None;
        for (h, &cpu) in handles.into_iter().zip(cpus) {
            match h.join() {
                Ok(Some(st)) => states.push(st),
                Ok(None) => {}
                Err(_) => join_error = Some(ThreadError::Panicked(cpu)),
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        if let Some(e) = join_error {
            return Err(e);
        }
        if panicked.load(Ordering::SeqCst) {
            return Err(ThreadError::Panicked(cpus[0]));
        }
        Ok(TeamOutcome { reps, states })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    fn plan(ms: u64, repetitions: usize, warmup: usize) -> TeamPlan {
        TeamPlan {
            duration: Duration::from_millis(ms),
            repetitions,
            warmup,
        }
    }

    /// Runs a team on this machine (one node, the live root).
    fn run_here<S: Send, R: Send>(
        cpus: &[u32],
        plan: &TeamPlan,
        setup: impl Fn(usize, u32) -> anyhow::Result<S> + Sync,
        work: impl Fn(usize, &mut S, &Stop) -> R + Sync,
    ) -> Result<TeamOutcome<S, R>, ThreadError> {
        run_team(
            &this_machine_one_node(),
            &SysRoot::live(),
            cpus,
            plan,
            setup,
            work,
        )
    }

    #[test]
    fn team_runs_pinned_for_the_duration_and_returns_states() {
        let _serial = crate::testutil::timing_lock();
        let cpus = this_machine_one_node().usable_cpus();
        let plan = plan(30, 3, 1);
        let out = run_here(
            &cpus,
            &plan,
            |i, cpu| Ok((i, cpu, 0u64)),
            |_, st, stop| {
                let (now, _) = crate::sys::affinity::current_cpu_and_node().unwrap();
                let mut spins = 0u64;
                while !stop.stopped() {
                    spins += 1;
                    std::hint::spin_loop();
                }
                st.2 += 1;
                (now, spins)
            },
        )
        .unwrap();
        assert_eq!(out.reps.len(), 3);
        for rep in &out.reps {
            for (s, &cpu) in rep.iter().zip(&cpus) {
                assert_eq!(s.value.0, cpu, "worker ran on its CPU");
                assert!(
                    s.elapsed_ns >= 25_000_000,
                    "ran until stopped: {}",
                    s.elapsed_ns
                );
            }
        }
        assert!(
            out.states.iter().all(|st| st.2 == 4),
            "warm-up plus three repetitions"
        );
    }

    #[test]
    fn a_slow_thread_does_not_stretch_the_others() {
        let _serial = crate::testutil::timing_lock();
        let cpus = this_machine_one_node().usable_cpus();
        let mut two = cpus.clone();
        two.push(cpus[0]); // a second worker, even on a 1-CPU machine
        let plan = plan(40, 2, 0);
        let out = run_here(
            &two,
            &plan,
            |_, _| Ok(()),
            |i, _, stop| {
                if i == 0 {
                    // The slow one: keeps going 1 s past the flag; the others must not wait for it
                    // (the 600 ms bound leaves room for a loaded 2-CPU machine).
                    while !stop.stopped() {
                        std::hint::spin_loop();
                    }
                    std::thread::sleep(Duration::from_millis(1000));
                } else {
                    while !stop.stopped() {
                        std::hint::spin_loop();
                    }
                }
            },
        )
        .unwrap();
        for rep in &out.reps {
            assert!(rep[0].elapsed_ns > 1_000_000_000);
            assert!(
                rep[1].elapsed_ns < 600_000_000,
                "others stop on the flag: {}",
                rep[1].elapsed_ns
            );
        }
    }

    #[test]
    fn setup_failure_is_reported_without_hanging() {
        let _serial = crate::testutil::timing_lock();
        let cpus = this_machine_one_node().usable_cpus();
        let plan = plan(5, 1, 0);
        let e = run_here(
            &cpus,
            &plan,
            |_, _| -> anyhow::Result<()> { anyhow::bail!("no memory today") },
            |_, _, _| (),
        )
        .unwrap_err();
        assert!(e.to_string().contains("no memory today"), "{e}");
        let e = run_here(&[999], &plan, |_, _| Ok(()), |_, _, _| ()).unwrap_err();
        assert!(e.to_string().contains("CPU 999 does not exist"), "{e}");
    }
}
