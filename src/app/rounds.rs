//! The interleaved rounds of `numascope app`: each measured candidate run once per round
//! (A B C A B C ..), with its system-wide settings in force only while it runs, each run
//! recorded in the report, and the sentence that ends the rounds early when one does.

use crate::experiment::Progress;
use crate::results::app::{AppReport, AppRun};
use crate::results::app_tiering::KnobSetting;
use crate::results::inspect::Inspection;
use crate::results::topology::Topology;
use crate::sys::signal::{interrupted, stop_reason};
use crate::sysroot::SysRoot;

use super::{launch, open_output, tiering, AppError, Candidate, Config, Weights};

/// What every run of the comparison shares.
pub(super) struct Session<'a> {
    pub(super) topo: &'a Topology,
    pub(super) root: &'a SysRoot,
    pub(super) cfg: &'a Config,
    pub(super) cands: &'a [Candidate],
    /// The measured weights each candidate sets system-wide while it runs.
    pub(super) held: &'a [Option<Weights>],
    pub(super) limits: launch::Limits,
}

/// A kernel-managed run's settings and its vmstat counter deltas.
type KernelCounters = (Vec<KnobSetting>, Vec<(String, u64)>);

/// One run's end, what the kernel-managed settings counted, and where its output went.
struct OneRun {
    end: launch::RunEnd,
    counters: Option<KernelCounters>,
    files: Option<(String, String)>,
}

/// How a run ends the comparison, if it does.
enum Verdict {
    /// Go on with the next run.
    Continue,
    /// A stop signal: the report is partial, without a failure.
    Interrupted(String),
    /// The program failed or ran out of time: partial, with this failure.
    Failed(String),
}

/// Marks the report partial, with why it stopped.
fn mark_stopped(report: &mut AppReport, why: String) {
    report.partial = true;
    report.stopped = Some(why);
}

/// The interleaved rounds (A B C A B C ..) over the measured candidates; the failure that
/// ended them early, if one did.
pub(super) fn run_rounds(
    s: &Session,
    measured: &[usize],
    report: &mut AppReport,
    samples: &mut [Vec<Inspection>],
    progress: &Progress,
) -> anyhow::Result<Option<anyhow::Error>> {
    let rounds = s.cfg.warmup + s.cfg.runs;
    let total = rounds * measured.len();
    let mut done = 0;
    for round in 0..rounds {
        for &k in measured {
            if interrupted() {
                mark_stopped(report, format!("stopped by {}", stop_reason()));
                return Ok(None);
            }
            let one = match launch_one(s, k, round)? {
                Ok(one) => one,
                // The program could not start: nothing to compare if it is the first run.
                Err(e) if done == 0 => return Err(e.into()),
                Err(e) => {
                    mark_stopped(report, e.message.clone());
                    return Ok(Some(e.into()));
                }
            };
            done += 1;
            progress(done, total);
            let verdict = verdict_of(s, k, round, &one);
            record_run(s, report, k, round, one, &mut samples[k]);
            match verdict {
                Verdict::Continue => {}
                Verdict::Interrupted(why) => {
                    mark_stopped(report, why);
                    return Ok(None);
                }
                Verdict::Failed(why) => {
                    mark_stopped(report, why.clone());
                    return Ok(Some(AppError::child(why).into()));
                }
            }
        }
    }
    Ok(None)
}

/// Runs candidate `k` once, with its system-wide settings (measured weights, kernel-managed
/// knobs) in force only while it runs. The outer `Err`: the output or the settings could not
/// be set up; the inner one: the run itself failed.
fn launch_one(s: &Session, k: usize, round: usize) -> anyhow::Result<Result<OneRun, AppError>> {
    let c = &s.cands[k];
    let (output, files) = open_output(&s.cfg.output, &c.id, round)?;
    // The measured weights are system-wide: in force only while this program runs.
    let guard = match &s.held[k] {
        Some(w) => crate::placement::WeightGuard::set(s.root, w)
            .map_err(|e| AppError::environment(e.to_string()))?,
        None => None,
    };
    // Kernel-managed candidates: their system-wide settings only while this runs.
    let knobs = if tiering::is_kernel(&c.id) {
        let k = tiering::Knobs::set(s.topo, s.root, &c.id)?;
        Some((k, tiering::read_vmstat(s.root)))
    } else {
        None
    };
    let end = launch::run_once(
        s.topo,
        s.root,
        &s.cfg.command,
        &c.placement(),
        output,
        s.limits,
    );
    let counters = knobs.map(|(k, before)| {
        let d = tiering::delta(&before, &tiering::read_vmstat(s.root));
        (k.settings.clone(), d)
    });
    drop(guard);
    Ok(end.map(|end| OneRun {
        end,
        counters,
        files,
    }))
}

/// Whether run `round` of candidate `k` ends the comparison, and in which sentence.
fn verdict_of(s: &Session, k: usize, round: usize, one: &OneRun) -> Verdict {
    let (cfg, c, end) = (s.cfg, &s.cands[k], &one.end);
    match end.stopped {
        Some(launch::Stopped::Signal) => Verdict::Interrupted(format!(
            "stopped by {} during run {} of {}; that run is not counted",
            stop_reason(),
            round + 1,
            c.id
        )),
        Some(launch::Stopped::TimeLimit) => Verdict::Failed(format!(
            "the program ran longer than --time-limit {:.0?} under {} (round {}) and was stopped; raise --time-limit or give the program less work",
            cfg.time_limit.unwrap_or_default(),
            c.id,
            round + 1
        )),
        None => match (end.end.exit_code, end.end.signal) {
            (Some(0), _) => Verdict::Continue,
            (Some(code), _) if !cfg.ignore_failure => Verdict::Failed(format!(
                "the program exited with status {code} under {} (round {}); see its output{}, or pass --ignore-failure to keep going",
                c.id,
                round + 1,
                one.files.as_ref().map_or(String::new(), |f| format!(" in {}", f.1))
            )),
            (Some(_), _) => Verdict::Continue,
            (None, sig) => Verdict::Failed(format!(
                "the program was killed by signal {} under {} (round {})",
                sig.unwrap_or(0),
                c.id,
                round + 1
            )),
        },
    }
}

/// Adds the run to candidate `k`'s record (and its kernel counters); keeps its samples when
/// the run is measured and complete.
fn record_run(
    s: &Session,
    report: &mut AppReport,
    k: usize,
    round: usize,
    one: OneRun,
    samples: &mut Vec<Inspection>,
) {
    let c = &s.cands[k];
    let end = one.end;
    let warmup = round < s.cfg.warmup;
    let stopped = end.stopped.is_some();
    let run = AppRun {
        round,
        warmup,
        wall_s: end.wall_s,
        user_s: end.end.user_s,
        sys_s: end.end.sys_s,
        max_rss_kib: end.end.max_rss_kib,
        exit_code: end.end.exit_code,
        signal: end.end.signal,
        stopped,
        samples: end.samples.len(),
        stdout_file: one.files.as_ref().map(|f| f.0.clone()),
        stderr_file: one.files.as_ref().map(|f| f.1.clone()),
    };
    let candidate = &mut report.candidates[k];
    candidate.runs.push(run);
    if let Some((settings, d)) = one.counters {
        let rec = candidate.kernel.get_or_insert_with(Default::default);
        rec.mode = c.label.clone();
        rec.settings = settings;
        tiering::record(rec, round, warmup, d, &end.samples);
    }
    if !warmup && !stopped {
        samples.extend(end.samples);
    }
}
