//! A team of pinned threads that start together and stop together. The caller's thread is the
//! conductor: it waits until every worker is pinned and set up, releases each repetition with
//! one barrier, sleeps for the fixed duration, raises the shared stop flag, and collects what
//! each worker measured. Workers record their own elapsed time, so rates are per thread.
//!
//! Every repetition is also judged (docs/METHODOLOGY.md, "Disturbed repetitions"): each worker
//! measures its own CPU time and involuntary context switches over the repetition, and the
//! conductor reads the steal time of the team's CPUs before and after it. A repetition in which a
//! judged thread got less than [`TeamPlan::min_cpu_share`] of its CPU is discarded and taken again
//! while [`TeamPlan::max_retakes`] lasts; after that the repetitions are kept and the outcome's
//! [`RepetitionQuality`] is marked disturbed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use crate::results::quality::{RepetitionQuality, DEFAULT_MIN_CPU_SHARE};
use crate::results::topology::Topology;
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::quality::{rep_sample, StealProbe, ThreadProbe, ThreadUsage};
use super::{check_cpus, pin_current, ThreadError};

/// The shared stop flag, as workers see it, and the repetition being taken.
pub struct Stop {
    flag: AtomicBool,
    repetition: AtomicUsize,
}

impl Stop {
    fn new(flag: AtomicBool) -> Stop {
        Stop {
            flag,
            repetition: AtomicUsize::new(0),
        }
    }

    /// True once the conductor has ended the repetition. A relaxed load: cheap enough to poll
    /// between chunks of work.
    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// The planned repetition being taken, counting warm-up ones from 0. A retake of a
    /// discarded repetition has the same number, so work that varies from one repetition to
    /// the next (a load level per repetition) should follow this, not count its calls.
    pub fn repetition(&self) -> usize {
        self.repetition.load(Ordering::SeqCst)
    }

    /// A flag outside any team, for unit tests of work functions.
    #[cfg(test)]
    pub(crate) fn from_flag(flag: AtomicBool) -> Stop {
        Stop::new(flag)
    }
}

/// How long and how often to run, and how disturbed repetitions are handled. Build it with
/// [`TeamPlan::new`] and change the quality fields when a caller needs to.
#[derive(Debug, Clone)]
pub struct TeamPlan {
    /// Length of one repetition.
    pub duration: Duration,
    /// Repetitions kept.
    pub repetitions: usize,
    /// Repetitions run first and dropped (never judged).
    pub warmup: usize,
    /// The CPU share (CPU time / wall time, fraction) below which a repetition is disturbed;
    /// [`DEFAULT_MIN_CPU_SHARE`] by default.
    pub min_cpu_share: f64,
    /// How many disturbed repetitions may be discarded and taken again; as many as planned by
    /// default. 0 keeps every repetition (and still records its quality).
    pub max_retakes: usize,
    /// Indices of the threads whose CPU share is judged; `None` judges every thread. A team
    /// with threads that idle on purpose (an unloaded point) judges only the others; indices
    /// beyond the team are ignored.
    pub judged_threads: Option<Vec<usize>>,
    /// `None` (the default): a stop signal does not end the team; the caller looks between
    /// teams. `Some(k)`: once `k` repetitions are kept, a stop signal ends the team within
    /// `STOP_POLL`: the repetition under way is dropped (it ran short) and the kept ones
    /// are returned, so the outcome may hold fewer repetitions than planned. Before that, a
    /// stop signal cuts the warm-up short and ends the retakes (the allowance shrinks to what
    /// was spent, so a disturbed repetition is kept and marked disturbed).
    pub stop_on_signal: Option<usize>,
}

/// How often a team that honours stop signals looks at the flag during a repetition.
pub const STOP_POLL: Duration = Duration::from_millis(10);

impl TeamPlan {
    /// A plan with the default quality rules: threshold [`DEFAULT_MIN_CPU_SHARE`], up to
    /// `repetitions` retakes, every thread judged.
    pub fn new(duration: Duration, repetitions: usize, warmup: usize) -> TeamPlan {
        TeamPlan {
            duration,
            repetitions,
            warmup,
            min_cpu_share: DEFAULT_MIN_CPU_SHARE,
            max_retakes: repetitions,
            judged_threads: None,
            stop_on_signal: None,
        }
    }
}

/// Sleeps `d`, or less when `stop()` turns true (looked at every [`STOP_POLL`]); true when
/// cut short.
fn sleep_unless(d: Duration, stop: impl Fn() -> bool) -> bool {
    let end = Instant::now() + d;
    loop {
        let now = Instant::now();
        if now >= end {
            return false;
        }
        if stop() {
            return true;
        }
        std::thread::sleep((end - now).min(STOP_POLL));
    }
}

/// What one worker measured in one repetition.
#[derive(Debug, Clone)]
pub struct ThreadSample<R> {
    pub cpu: u32,
    /// From the barrier's release to the return of `work`, nanoseconds.
    pub elapsed_ns: u64,
    /// The worker's CPU time over the same span, ns; `None` if the clock could not be read.
    pub cpu_ns: Option<u64>,
    /// The worker's involuntary context switches over the same span, count.
    pub involuntary_switches: Option<u64>,
    pub value: R,
}

impl<R> ThreadSample<R> {
    /// CPU time / elapsed time, fraction (1 = the thread ran all along).
    pub fn cpu_share(&self) -> Option<f64> {
        self.usage().cpu_share()
    }

    fn usage(&self) -> ThreadUsage {
        ThreadUsage {
            wall_ns: self.elapsed_ns,
            cpu_ns: self.cpu_ns,
            involuntary_switches: self.involuntary_switches,
        }
    }
}

/// Everything a team run produced.
#[derive(Debug)]
pub struct TeamOutcome<S, R> {
    /// `[repetition][thread]`, kept repetitions only (warm-up and discarded ones removed).
    pub reps: Vec<Vec<ThreadSample<R>>>,
    /// Each worker's state, returned after the threads joined (e.g. buffers to verify).
    pub states: Vec<S>,
    /// How many repetitions were taken, discarded and kept, and the worst conditions seen.
    pub quality: RepetitionQuality,
    /// The same record per kept repetition, in the order of `reps`: every take of that
    /// planned repetition (its discarded takes and the kept one). A team whose repetitions
    /// are different points (loaded latency) reports each point's quality from it.
    pub rep_quality: Vec<RepetitionQuality>,
}

/// Runs one pinned thread per CPU of `cpus` (see the module docs). `setup(index, cpu)` runs on
/// the pinned thread before any timing; `work(index, state, stop)` must return soon after
/// `stop.stopped()` turns true. `work` runs once per repetition taken, retakes included.
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
    let team = Team {
        topo,
        root,
        barrier: Barrier::new(n + 1),
        stop: Stop::new(AtomicBool::new(false)),
        abort: AtomicBool::new(false),
        finished: AtomicBool::new(false),
        setup_errors: Mutex::new((0..n).map(|_| None).collect()),
        slots: (0..n).map(|_| Mutex::new(None)).collect(),
        panicked: AtomicBool::new(false),
    };
    let mut quality = RepetitionQuality::new(
        plan.min_cpu_share,
        u32::try_from(plan.max_retakes).unwrap_or(u32::MAX),
    );

    std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .enumerate()
            .map(|(i, &cpu)| {
                let (team, setup, work) = (&team, &setup, &work);
                s.spawn(move || worker(team, i, cpu, setup, work))
            })
            .collect();

        team.barrier.wait(); // ready
        let first_error = team
            .setup_errors
            .lock()
            .unwrap()
            .iter_mut()
            .find_map(|e| e.take());
        if first_error.is_some() {
            team.abort.store(true, Ordering::SeqCst);
        }
        team.barrier.wait(); // go
        let (reps, rep_quality) = if first_error.is_none() {
            let taken = conduct(&team, cpus, plan, &mut quality);
            team.finished.store(true, Ordering::SeqCst);
            team.barrier.wait(); // release the workers from their loop
            taken
        } else {
            (Vec::new(), Vec::new())
        };
        let (states, join_error) = join_workers(handles, cpus);
        if let Some(e) = first_error {
            return Err(e);
        }
        if let Some(e) = join_error {
            return Err(e);
        }
        if team.panicked.load(Ordering::SeqCst) {
            return Err(ThreadError::Panicked(cpus[0]));
        }
        Ok(TeamOutcome {
            reps,
            states,
            quality,
            rep_quality,
        })
    })
}

/// What the conductor and its pinned workers share during one team run.
struct Team<'a, R> {
    topo: &'a Topology,
    root: &'a SysRoot,
    barrier: Barrier,
    stop: Stop,
    abort: AtomicBool,
    finished: AtomicBool,
    setup_errors: Mutex<Vec<Option<ThreadError>>>,
    slots: Vec<Mutex<Option<ThreadSample<R>>>>,
    panicked: AtomicBool,
}

/// Kept repetitions (`[repetition][thread]`) and each one's quality record.
type Taken<R> = (Vec<Vec<ThreadSample<R>>>, Vec<RepetitionQuality>);

/// One pinned worker: set up on its CPU, then run `work` once per repetition between the
/// conductor's barriers; its state comes back when the team ends.
fn worker<S, R>(
    team: &Team<R>,
    i: usize,
    cpu: u32,
    setup: &(impl Fn(usize, u32) -> anyhow::Result<S> + Sync),
    work: &(impl Fn(usize, &mut S, &Stop) -> R + Sync),
) -> Option<S> {
    let (barrier, stop, abort, finished, setup_errors, slots, panicked) = (
        &team.barrier,
        &team.stop,
        &team.abort,
        &team.finished,
        &team.setup_errors,
        &team.slots,
        &team.panicked,
    );
    let prepared = pin_current(team.topo, team.root, cpu).and_then(|()| {
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
    loop {
        barrier.wait(); // start (or the end of the run)
        if finished.load(Ordering::SeqCst) {
            break;
        }
        if !panicked.load(Ordering::Relaxed) {
            let probe = ThreadProbe::start();
            match catch_unwind(AssertUnwindSafe(|| work(i, st, stop))) {
                Ok(value) => {
                    let usage = probe.finish();
                    *slots[i].lock().unwrap() = Some(ThreadSample {
                        cpu,
                        elapsed_ns: usage.wall_ns,
                        cpu_ns: usage.cpu_ns,
                        involuntary_switches: usage.involuntary_switches,
                        value,
                    });
                }
                Err(_) => panicked.store(true, Ordering::SeqCst),
            }
        }
        barrier.wait(); // end
    }
    state
}

/// The conductor's repetitions: times each one, collects the workers' samples, and keeps or
/// retakes it by its quality, until the plan is done, a worker panicked, or a stop signal.
fn conduct<R>(
    team: &Team<R>,
    cpus: &[u32],
    plan: &TeamPlan,
    quality: &mut RepetitionQuality,
) -> Taken<R> {
    let (barrier, stop, slots, panicked, root) = (
        &team.barrier,
        &team.stop,
        &team.slots,
        &team.panicked,
        team.root,
    );
    let n = cpus.len();
    let total_reps = plan.warmup + plan.repetitions;
    let judged: Vec<usize> = match &plan.judged_threads {
        Some(ix) => ix.iter().copied().filter(|&i| i < n).collect(),
        None => (0..n).collect(),
    };
    let mut reps = Vec::with_capacity(plan.repetitions);
    let mut rep_quality = Vec::with_capacity(plan.repetitions);
    let mut planned = 0;
    // This planned repetition's takes; its allowance is what is left of the team's,
    // so it decides exactly as the team's record does.
    let fresh =
        |q: &RepetitionQuality| RepetitionQuality::new(plan.min_cpu_share, q.retakes_left());
    let mut this_rep = fresh(quality);
    let may_stop = |kept: usize| plan.stop_on_signal.is_some_and(|k| kept >= k) && interrupted();
    while planned < total_reps && !panicked.load(Ordering::SeqCst) && !may_stop(reps.len()) {
        stop.repetition.store(planned, Ordering::SeqCst);
        let steal = StealProbe::start(root, cpus);
        barrier.wait(); // start
                        // A warm-up is dropped anyway: a stop signal cuts it short and the team goes
                        // on to the repetitions it must keep.
        let warming = planned < plan.warmup;
        let cut = match plan.stop_on_signal {
            Some(_) => sleep_unless(plan.duration, || {
                may_stop(reps.len()) || (warming && interrupted())
            }),
            None => {
                std::thread::sleep(plan.duration);
                false
            }
        };
        stop.flag.store(true, Ordering::SeqCst);
        barrier.wait(); // end
        stop.flag.store(false, Ordering::SeqCst);
        let steal = steal.finish();
        let samples: Vec<ThreadSample<R>> = slots
            .iter()
            .filter_map(|m| m.lock().unwrap().take())
            .collect();
        if cut && !warming {
            break;
        }
        if planned < plan.warmup || samples.len() != n {
            planned += 1;
            continue;
        }
        let usage: Vec<(u32, ThreadUsage)> = judged
            .iter()
            .map(|&i| (samples[i].cpu, samples[i].usage()))
            .collect();
        let sample = rep_sample(&usage, steal);
        if plan.stop_on_signal.is_some() && interrupted() {
            // Stopping: no more retakes, a disturbed repetition is kept and marked.
            quality.retake_allowance = quality.repetitions_discarded;
            this_rep.retake_allowance = this_rep.repetitions_discarded;
        }
        this_rep.record(&sample);
        if quality.record(&sample).kept() {
            reps.push(samples);
            rep_quality.push(std::mem::replace(&mut this_rep, fresh(quality)));
            planned += 1;
        }
    }
    (reps, rep_quality)
}

/// Joins the workers: the states of those that set up, and the first panic among them.
fn join_workers<S>(
    handles: Vec<std::thread::ScopedJoinHandle<'_, Option<S>>>,
    cpus: &[u32],
) -> (Vec<S>, Option<ThreadError>) {
    let mut states = Vec::with_capacity(cpus.len());
    let mut join_error = None;
    for (h, &cpu) in handles.into_iter().zip(cpus) {
        match h.join() {
            Ok(Some(st)) => states.push(st),
            Ok(None) => {}
            Err(_) => join_error = Some(ThreadError::Panicked(cpu)),
        }
    }
    (states, join_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::this_machine_one_node;

    fn plan(ms: u64, repetitions: usize, warmup: usize) -> TeamPlan {
        // No retakes: these tests count repetitions and time them, and the machine running
        // the suite is busy; the quality mechanics have their own tests below.
        TeamPlan {
            max_retakes: 0,
            ..TeamPlan::new(Duration::from_millis(ms), repetitions, warmup)
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
                (now, spins, stop.stopped())
            },
        )
        .unwrap();
        assert_eq!(out.reps.len(), 3);
        for rep in &out.reps {
            for (s, &cpu) in rep.iter().zip(&cpus) {
                assert_eq!(s.value.0, cpu, "worker ran on its CPU");
                // Mechanics, not speed: the worker returned only once it saw the flag (a
                // worker released late on a busy machine may time less than the duration).
                assert!(s.value.2, "ran until stopped");
                assert!(s.elapsed_ns > 0);
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
            // The slow one slept 1 s past the flag; the other one, released by the same
            // barrier, returned at the flag: its span is the shorter (an ordering, not a
            // speed: it holds however busy the machine is unless that thread waits 1 s).
            assert!(rep[0].elapsed_ns > 1_000_000_000);
            assert!(
                rep[1].elapsed_ns < rep[0].elapsed_ns,
                "others stop on the flag: {} vs {}",
                rep[1].elapsed_ns,
                rep[0].elapsed_ns
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

    fn spin(stop: &Stop) {
        while !stop.stopped() {
            std::hint::spin_loop();
        }
    }

    /// An impossible threshold: every repetition is disturbed, retakes stop at the allowance,
    /// and the outcome still holds the planned repetitions, marked disturbed. A retake keeps
    /// its planned repetition number.
    #[test]
    fn an_impossible_threshold_spends_the_allowance_and_marks_the_outcome() {
        let _serial = crate::testutil::timing_lock();
        let cpu = this_machine_one_node().usable_cpus()[0];
        let plan = TeamPlan {
            min_cpu_share: 1.01,
            max_retakes: 2,
            ..TeamPlan::new(Duration::from_millis(5), 3, 1)
        };
        let out = run_here(
            &[cpu],
            &plan,
            |_, _| Ok(Vec::new()),
            |_, seen: &mut Vec<usize>, stop| {
                seen.push(stop.repetition());
                spin(stop);
            },
        )
        .unwrap();
        let q = &out.quality;
        assert_eq!(out.reps.len(), 3, "the planned repetitions");
        assert_eq!(q.repetitions_taken, 5);
        assert_eq!(q.repetitions_discarded, 2);
        assert_eq!(q.repetitions_kept, 3);
        assert_eq!(q.repetitions_kept_disturbed, 3);
        assert_eq!(q.repetitions_short_of_cpu, 5);
        assert!(q.disturbed);
        assert_eq!(q.threshold_cpu_share_fraction, 1.01);
        assert_eq!(q.lowest_taken_cpu, Some(cpu));
        // Warm-up 0, then repetition 1 taken three times (two discarded), then 2 and 3.
        assert_eq!(out.states[0], vec![0, 1, 1, 1, 2, 3]);
        // Per repetition: the first holds its three takes, the others one each (the
        // allowance was spent), and every record is marked as the team's is.
        let takes: Vec<(u32, u32, bool)> = out
            .rep_quality
            .iter()
            .map(|r| (r.repetitions_taken, r.repetitions_discarded, r.disturbed))
            .collect();
        assert_eq!(takes, vec![(3, 2, true), (1, 0, true), (1, 0, true)]);
        for rep in &out.reps {
            let share = rep[0].cpu_share().unwrap();
            assert!(share > 0.0 && share <= 1.05, "share {share}");
        }
    }

    #[test]
    fn a_zero_threshold_discards_nothing() {
        let _serial = crate::testutil::timing_lock();
        let cpus = this_machine_one_node().usable_cpus();
        let plan = TeamPlan {
            min_cpu_share: 0.0,
            ..TeamPlan::new(Duration::from_millis(5), 3, 1)
        };
        assert_eq!(plan.max_retakes, 3, "as many retakes as planned by default");
        let out = run_here(
            &cpus,
            &plan,
            |_, _| Ok(0u32),
            |_, n, stop| {
                *n += 1;
                spin(stop)
            },
        )
        .unwrap();
        let q = &out.quality;
        assert_eq!(out.reps.len(), 3);
        assert_eq!((q.repetitions_taken, q.repetitions_discarded), (3, 0));
        assert!(!q.disturbed);
        assert_eq!(crate::render::words::disturbed::reason(q), None);
        assert!(out.states.iter().all(|&n| n == 4), "warm-up + 3, no retake");
        assert!(q.lowest_kept_cpu_share_fraction.is_some());
    }

    /// Only the judged threads decide: a thread that sleeps on purpose does not discard the
    /// repetitions when it is left out.
    #[test]
    fn threads_left_out_of_judging_do_not_discard() {
        let _serial = crate::testutil::timing_lock();
        let cpu = this_machine_one_node().usable_cpus()[0];
        let sleepy = |i: usize, _: &mut (), stop: &Stop| {
            if i == 1 {
                while !stop.stopped() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            } else {
                spin(stop)
            }
        };
        let judged_all = TeamPlan {
            min_cpu_share: 0.5,
            max_retakes: 1,
            ..TeamPlan::new(Duration::from_millis(20), 2, 0)
        };
        let out = run_here(&[cpu, cpu], &judged_all, |_, _| Ok(()), sleepy).unwrap();
        // The sleeper ran well under half the time: the one retake is spent, then kept.
        assert_eq!(out.quality.repetitions_discarded, 1);
        assert!(out.quality.disturbed);
        let sleeper_share = out.reps[0][1].cpu_share().unwrap();
        assert!(sleeper_share < 0.5, "a sleeping thread: {sleeper_share}");
        let judged_spinner = TeamPlan {
            judged_threads: Some(vec![0]),
            min_cpu_share: 0.0,
            ..judged_all
        };
        let out = run_here(&[cpu, cpu], &judged_spinner, |_, _| Ok(()), sleepy).unwrap();
        assert_eq!(out.quality.repetitions_discarded, 0);
        assert!(!out.quality.disturbed);
    }

    /// A busy loop pinned to the team's CPU. Whether the scheduler lets it take enough of the
    /// CPU to discard a repetition is not ours to assert; the mechanics are: every share
    /// recorded is a share, and the counts add up.
    #[test]
    fn a_competing_busy_loop_leaves_consistent_counts() {
        let _serial = crate::testutil::timing_lock();
        let topo = this_machine_one_node();
        let root = SysRoot::live();
        let cpu = topo.usable_cpus()[0];
        let quit = AtomicBool::new(false);
        let plan = TeamPlan {
            max_retakes: 2,
            ..TeamPlan::new(Duration::from_millis(50), 3, 0)
        };
        let out = std::thread::scope(|s| {
            let hog = s.spawn(|| {
                crate::threads::pin_current(&topo, &root, cpu).unwrap();
                while !quit.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
            let out = run_team(
                &topo,
                &root,
                &[cpu],
                &plan,
                |_, _| Ok(()),
                |_, _, stop| spin(stop),
            );
            quit.store(true, Ordering::Relaxed);
            hog.join().unwrap();
            out
        })
        .unwrap();
        let q = &out.quality;
        assert_eq!(out.reps.len(), 3);
        assert_eq!(q.repetitions_kept, 3);
        assert_eq!(
            q.repetitions_taken,
            q.repetitions_kept + q.repetitions_discarded
        );
        assert!(q.repetitions_discarded <= 2);
        let low = q.lowest_taken_cpu_share_fraction.unwrap();
        assert!(low > 0.0 && low <= 1.05, "share {low}");
        assert!(q.lowest_kept_cpu_share_fraction.unwrap() >= low);
        assert_eq!(q.disturbed, q.repetitions_kept_disturbed > 0);
    }
}
