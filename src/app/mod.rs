//! `numascope app -- CMD`: the user's own program under every candidate placement that is
//! distinct on this machine, in interleaved rounds (A B C A B C ..., the first round dropped
//! as warm-up), with wall time, CPU time, maximum resident set, and where its memory and
//! threads were observed; candidates that place identically here are merged and measured
//! once; the distinct ones are ranked only beyond noise. Policies are applied to the child as
//! numactl does (set_mempolicy and sched_setaffinity before exec, `sys::spawn`); no numactl is
//! needed, but each candidate's numactl line is checked against the installed one
//! ([`crate::numactl`]). One entry point, [`run`], like every experiment. Nothing here prints.

pub mod candidates;
pub mod error;
mod launch;
mod observe;
pub mod rank;
mod rounds;
pub mod tiering;
mod weights;

use std::path::PathBuf;
use std::time::Duration;

pub use candidates::Candidate;
pub use error::{exit_status_of, AppError};

use crate::experiment::{Outcome, Progress};
use crate::numactl::shell_line;
use crate::results::app::Numactl as Installed;
use crate::results::app::{AppCandidate, AppReport, AppRun, APP_SCHEMA_VERSION};
use crate::results::inspect::Inspection;
use crate::results::topology::Topology;
use crate::stats::Summary;
use crate::sys::spawn::ChildOutput;
use crate::sysroot::SysRoot;

/// Where the program's own output goes.
#[derive(Clone, Debug, PartialEq)]
pub enum ChildOutputTo {
    /// One file per run for stdout and stderr, in this directory.
    Files(PathBuf),
    /// numascope's own terminal.
    Terminal,
}

/// A resolved `numascope app` configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub command: Vec<String>,
    pub candidates: Vec<Candidate>,
    pub runs: usize,
    pub warmup: usize,
    pub time_limit: Option<Duration>,
    /// `None`: no sampling of numa_maps and thread CPUs.
    pub sample_every: Option<Duration>,
    /// True for the default interval: samples are spaced further so they cost at most 0.5 %
    /// of one CPU. An interval the user gave is kept as given.
    pub sample_budgeted: bool,
    pub output: ChildOutputTo,
    /// Keep going (and keep the figures) when the program exits non-zero.
    pub ignore_failure: bool,
    /// Measure candidates even when they place identically (for an A/A check).
    pub no_merge: bool,
    /// The numactl the lines are checked against.
    pub numactl: Installed,
}

/// Runs the comparison. `Err` only before the first run (the program could not be started);
/// a failure later (a non-zero exit, the time limit) comes back in [`Outcome::failed`] with
/// the report of what was measured, marked partial. A stop signal ends the current run and
/// returns the report, marked partial, without a failure.
pub fn run(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
    progress: &Progress,
) -> anyhow::Result<Outcome<AppReport>> {
    check_can_start(root, cfg)?;
    let (cands, held) = measure_weights(topo, root, cfg)?;
    let (merged, reason) = merge_plan(topo, cfg, &cands);
    let mut report = empty_report(cfg, &cands, &merged, &reason);
    let measured: Vec<usize> = (0..cands.len())
        .filter(|&k| merged[k].is_none() && cands[k].unavailable.is_none())
        .collect();
    let session = rounds::Session {
        topo,
        root,
        cfg,
        cands: &cands,
        held: &held,
        limits: launch::Limits {
            time_limit: cfg.time_limit,
            sample_every: cfg.sample_every,
            budgeted: cfg.sample_budgeted,
        },
    };
    let mut samples: Vec<Vec<Inspection>> = vec![vec![]; cands.len()];
    let failed = rounds::run_rounds(&session, &measured, &mut report, &mut samples, progress)?;
    summarize(&mut report, &merged, &samples, &cands);
    Ok(Outcome { report, failed })
}

/// Measured weighted-interleave weights: (node, weight).
type Weights = Vec<(u32, u8)>;

/// Refuses, in one sentence, what cannot run at all: no command, a non-live root, a
/// candidate this kernel cannot apply.
fn check_can_start(root: &SysRoot, cfg: &Config) -> anyhow::Result<()> {
    if cfg.command.is_empty() {
        return Err(AppError::input(
            "no command given; put it after `--`, e.g. `numascope app -- ./prog ARGS`",
        )
        .into());
    }
    root.require_live("run a program under a placement")
        .map_err(|e| AppError::environment(e.to_string()))?;
    candidates::probe(&cfg.candidates)?;
    Ok(())
}

/// The candidates with `weighted:measured` given its weights (now, before identical
/// placements are merged), and the weights each candidate holds while it runs.
fn measure_weights(
    topo: &Topology,
    root: &SysRoot,
    cfg: &Config,
) -> anyhow::Result<(Vec<Candidate>, Vec<Option<Weights>>)> {
    let mut cands = cfg.candidates.clone();
    let mut held: Vec<Option<Weights>> = vec![None; cands.len()];
    for (k, c) in cands.iter_mut().enumerate() {
        if c.id == "weighted:measured" && c.unavailable.is_none() {
            let m = weights::measure(topo, root)?;
            c.label = m.label();
            c.policy = crate::placement::Policy::WeightedInterleave(m.weights.clone());
            held[k] = Some(m.weights);
        }
    }
    Ok((cands, held))
}

/// Which candidate each one places identically to (measured once, as that one), and why.
fn merge_plan(topo: &Topology, cfg: &Config, cands: &[Candidate]) -> (Vec<Option<usize>>, String) {
    let (mut merged, reason) = if cfg.no_merge {
        (vec![None; cands.len()], String::new())
    } else {
        candidates::merge_identical(topo, cands)
    };
    // A kernel-managed candidate places like first touch but is not the same placement.
    for (k, c) in cands.iter().enumerate() {
        if tiering::is_kernel(&c.id) {
            merged[k] = None;
        }
    }
    (merged, reason)
}

/// The report before any run: every candidate described, nothing measured.
fn empty_report(
    cfg: &Config,
    cands: &[Candidate],
    merged: &[Option<usize>],
    reason: &str,
) -> AppReport {
    let program = shell_line(&cfg.command);
    AppReport {
        schema_version: APP_SCHEMA_VERSION,
        command: cfg.command.clone(),
        runs: cfg.runs,
        warmup: cfg.warmup,
        sample_interval_ms: cfg.sample_every.map_or(0, |d| d.as_millis() as u64),
        candidates: cands
            .iter()
            .enumerate()
            .map(|(k, c)| AppCandidate {
                id: c.id.clone(),
                letter: (b'a' + (k % 26) as u8) as char,
                label: c.label.clone(),
                policy: c.policy.describe(),
                cpus: c.cpus.clone(),
                same_as: merged[k].map(|j| cands[j].id.clone()),
                same_reason: merged[k].map(|_| reason.to_string()),
                unavailable: c.unavailable.clone(),
                how: cfg.numactl.how_to(&c.policy, c.cpus.as_deref(), &program),
                ..AppCandidate::default()
            })
            .collect(),
        ranking: rank::rank(&[], &vec![]),
        numactl: cfg.numactl.clone(),
        partial: false,
        stopped: None,
    }
}

/// Fills each candidate's figures and observations, gives merged candidates their leader's,
/// and ranks.
fn summarize(
    report: &mut AppReport,
    merged: &[Option<usize>],
    samples: &[Vec<crate::results::inspect::Inspection>],
    cands: &[Candidate],
) {
    let kept = |c: &AppCandidate| -> Vec<AppRun> {
        c.runs
            .iter()
            .filter(|r| !r.warmup && !r.stopped && r.signal.is_none())
            .cloned()
            .collect()
    };
    for (k, c) in report.candidates.iter_mut().enumerate() {
        let runs = kept(c);
        let of = |f: &dyn Fn(&AppRun) -> f64| Summary::of(&runs.iter().map(f).collect::<Vec<_>>());
        c.wall_s = of(&|r| r.wall_s);
        c.user_s = of(&|r| r.user_s);
        c.sys_s = of(&|r| r.sys_s);
        c.max_rss_kib = of(&|r| r.max_rss_kib as f64);
        let refs: Vec<&crate::results::inspect::Inspection> = samples[k].iter().collect();
        c.observed = observe::observe(&cands[k], &refs);
    }
    for (k, leader) in merged.iter().enumerate() {
        if let Some(j) = *leader {
            let src = report.candidates[j].clone();
            let c = &mut report.candidates[k];
            c.wall_s = src.wall_s;
            c.user_s = src.user_s;
            c.sys_s = src.sys_s;
            c.max_rss_kib = src.max_rss_kib;
        }
    }
    let rounds_total = report.warmup + report.runs;
    let rounds: rank::Rounds = (0..report.candidates.len())
        .filter(|&k| merged[k].is_none() && report.candidates[k].unavailable.is_none())
        .filter(|&k| report.candidates[k].wall_s.is_some())
        .map(|k| {
            let mut per_round = vec![None; rounds_total];
            for r in kept(&report.candidates[k]) {
                per_round[r.round] = Some(r.wall_s);
            }
            (k, per_round[report.warmup..].to_vec())
        })
        .collect();
    report.ranking = rank::rank(&report.candidates, &rounds);
}

/// Where one run's output goes; the file names when they are files.
fn open_output(
    to: &ChildOutputTo,
    id: &str,
    round: usize,
) -> Result<(ChildOutput, Option<(String, String)>), AppError> {
    match to {
        ChildOutputTo::Terminal => Ok((ChildOutput::Inherit, None)),
        ChildOutputTo::Files(dir) => {
            let stem = format!("{}-round{}", id.replace([':', '/'], "-"), round + 1);
            let out = dir.join(format!("{stem}.stdout"));
            let err = dir.join(format!("{stem}.stderr"));
            // Created exclusively and private (600): the directory is a fresh one of ours or
            // the user's --output; an old file of the same name (--force) is replaced, never
            // written through.
            let open = |p: &PathBuf| {
                if std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir()) {
                    let _ = std::fs::remove_file(p);
                }
                crate::sys::files::create_new(p, crate::sys::files::PRIVATE_MODE).map_err(|e| {
                    AppError::environment(format!(
                        "cannot create {} for the program's output: {e}; choose a writable --output directory",
                        p.display()
                    ))
                })
            };
            let files = (open(&out)?, open(&err)?);
            Ok((
                ChildOutput::Files(files.0, files.1),
                Some((out.display().to_string(), err.display().to_string())),
            ))
        }
    }
}
