//! The weighted-interleave advisor: for the threads of one initiator node, measure the read
//! bandwidth they get from each memory node, propose weights proportional to those figures
//! (reduced to small integers, [`crate::placement::measured_weights`]), then check the proposal by
//! measurement against plain interleave and against binding to the best node, the three measured
//! side by side in interleaved rounds ([`crate::bandwidth::team`]), and say how to apply it. A policy is
//! called better only when its paired ratio to each other policy has an interval beyond 1 + the
//! practical margin (the rule of [`super::ranking`]); otherwise the advice says they are
//! indistinguishable here. On a machine with one memory node there is nothing to weigh, and the
//! advice says so without measuring. Nothing here prints.

use crate::placement::Policy;
use crate::results::advice::{Advice, PolicyCheck};
use crate::results::app::Numactl as Installed;
use crate::results::format::format_list;
use crate::results::topology::Topology;
use crate::stats::decide::percent;
use crate::stats::decide::unbeaten;
use crate::stats::{Summary, PRACTICAL_MARGIN};
use crate::sys::signal::interrupted;
use crate::sysroot::SysRoot;

use super::plan::ScenarioSettings;
use crate::bandwidth::team::{keep_buffers, measure_once, run_rounds, Config, Job, Outcome};
use crate::placement::measured_weights::{derive_weights, weights_text};
use crate::schedule::rounds::{budget_s, plan_rounds, RoundPlan};
use crate::schedule::TimedSettings;

/// Builds the advice for the threads of `home`, the plan's home node; `progress(done, total)`
/// after each measurement.
pub fn run_advisor(
    topo: &Topology,
    root: &SysRoot,
    s: &ScenarioSettings,
    home: Option<u32>,
    progress: &dyn Fn(usize, usize),
) -> anyhow::Result<Advice> {
    let mem = topo.memory_nodes();
    let init = home.ok_or_else(|| {
        anyhow::anyhow!(
            "no memory node is allowed to this process; check the cpuset (Mems_allowed_list)"
        )
    })?;
    if mem.len() < 2 {
        return Ok(one_node_advice(init, &mem));
    }
    let team = Team::of(topo, init, s.total_bytes);
    let why_not_root = s.weighted_unavailable.clone();
    // The run plan's budget for the advisor: one measurement per node, then the checks.
    let checks_n = 2 + usize::from(why_not_root.is_none());
    let plan = advisor_plan(topo, s, &team, &mem, checks_n);
    let total = mem.len() + plan.rounds * checks_n;
    let mut done = 0;
    let mut tick = || {
        done += 1;
        progress(done.min(total), total);
    };
    let measured = bandwidth_per_node(topo, root, &team, &mem, &plan.timed, &mut tick)?;
    let weights = derive_weights(&measured);
    let best_node = measured
        .iter()
        .copied()
        .fold((init, 0.0), |a, b| if b.1 > a.1 { b } else { a })
        .0;
    let why_not = why_not_root.or_else(|| {
        (weights.len() < 2).then(|| "fewer than two nodes gave a bandwidth figure".to_string())
    });
    let mut configs = vec![
        team.config(Policy::Bind(vec![best_node]), None),
        team.config(Policy::Interleave(mem.clone()), None),
    ];
    if why_not.is_none() {
        configs.push(team.config(
            Policy::WeightedInterleave(weights.clone()),
            Some(weights.clone()),
        ));
    }
    let outcomes = run_rounds(topo, root, &configs, &plan, &mut tick);
    // Lines the installed numactl accepts, or a comment with the kernel-interface way.
    let numactl = Installed::find();
    let proposal = Proposal {
        mem: &mem,
        weights: &weights,
        best_node,
        why_not: why_not.as_deref(),
    };
    let checks = checks_of(&proposal, &outcomes, &numactl, &team.cpus);
    let summary = summarize(init, &weights, best_node, &checks, why_not.as_deref());
    Ok(Advice {
        initiator_node: init,
        measured_mb_per_s: measured,
        apply: if weights.len() >= 2 {
            apply_lines(&weights, &numactl)
        } else {
            vec![]
        },
        weights,
        checks,
        summary,
    })
}

/// The advice on a machine with one memory node: nothing to weigh, nothing measured.
fn one_node_advice(init: u32, mem: &[u32]) -> Advice {
    Advice {
        initiator_node: init,
        measured_mb_per_s: vec![],
        weights: vec![],
        checks: vec![],
        apply: vec![],
        summary: format!(
            "this machine has one memory node ({}): there is nothing to weigh; weighted interleave spreads pages over several nodes in proportion to their bandwidth",
            format_list(mem)
        ),
    }
}

/// The initiator node's threads, each with its share of the run's bytes.
struct Team {
    /// The initiator node's usable CPUs (all usable CPUs when it has none).
    cpus: Vec<u32>,
    /// Bytes per thread.
    bytes: u64,
}

impl Team {
    /// The team of node `init`'s CPUs sharing `total_bytes`.
    fn of(topo: &Topology, init: u32, total_bytes: u64) -> Team {
        let cpus = topo.usable_cpus_of(init);
        let cpus = if cpus.is_empty() {
            topo.usable_cpus()
        } else {
            cpus
        };
        let bytes = (total_bytes / cpus.len().max(1) as u64).max(16 << 20);
        Team { cpus, bytes }
    }

    /// The team's configuration with every thread under `pol`.
    fn config(&self, pol: Policy, weights: Option<Vec<(u32, u8)>>) -> Config {
        Config {
            job: Job::Team {
                cpus: self.cpus.clone(),
                policies: vec![pol; self.cpus.len()],
            },
            bytes_per_thread: self.bytes,
            weights,
        }
    }
}

/// The interleaved rounds of the `checks_n` checks, within the run plan's advisor budget.
fn advisor_plan(
    topo: &Topology,
    s: &ScenarioSettings,
    team: &Team,
    mem: &[u32],
    checks_n: usize,
) -> RoundPlan {
    let keep = keep_buffers(
        topo,
        &vec![team.config(Policy::Interleave(mem.to_vec()), None); checks_n],
    );
    let mut plan = plan_rounds(
        budget_s(mem.len() + 2, &s.timed, s.total_bytes),
        checks_n,
        mem.len(),
        s.total_bytes,
        s.timed.duration_ms,
        keep,
    );
    plan.target_half_width = s.target_half_width;
    plan
}

/// The team's bandwidth with its memory bound to each memory node in turn (an interrupt
/// stops the walk; a failed measurement is the error).
fn bandwidth_per_node(
    topo: &Topology,
    root: &SysRoot,
    team: &Team,
    mem: &[u32],
    timed: &TimedSettings,
    tick: &mut dyn FnMut(),
) -> anyhow::Result<Vec<(u32, f64)>> {
    let mut measured = Vec::new();
    for &m in mem {
        if interrupted() {
            break;
        }
        let t = measure_once(topo, root, &team.config(Policy::Bind(vec![m]), None), timed)?;
        measured.push((m, t.total_mb_per_s.median));
        tick();
    }
    Ok(measured)
}

/// The three policies the checks compare.
struct Proposal<'a> {
    /// The memory nodes.
    mem: &'a [u32],
    /// The proposed weights.
    weights: &'a [(u32, u8)],
    /// The node with the highest measured bandwidth.
    best_node: u32,
    /// Why weighted interleave was not measured, if it was not.
    why_not: Option<&'a str>,
}

/// The checks of bind to the best node, plain interleave and weighted interleave, in that
/// order, from the rounds' outcomes.
fn checks_of(
    p: &Proposal<'_>,
    outcomes: &[Outcome],
    numactl: &Installed,
    cpus: &[u32],
) -> Vec<PolicyCheck> {
    let line = |pol: Policy| numactl.line_or_comment(&pol, Some(cpus), "APP");
    let best_node = p.best_node;
    vec![
        policy_check(
            format!("bind to node {best_node}"),
            line(Policy::Bind(vec![best_node])),
            outcomes.first(),
            None,
        ),
        policy_check(
            format!("interleave {}", format_list(p.mem)),
            line(Policy::Interleave(p.mem.to_vec())),
            outcomes.get(1),
            None,
        ),
        policy_check(
            format!("weighted interleave {}", weights_text(p.weights)),
            line(Policy::WeightedInterleave(p.weights.to_vec())),
            outcomes.get(2),
            p.why_not.map(str::to_string),
        ),
    ]
}

/// One policy's check from its rounds' outcome (`None` where it was not measured, `why`
/// then saying why, else the error or the interrupt).
fn policy_check(
    policy: String,
    numactl: String,
    o: Option<&Outcome>,
    why: Option<String>,
) -> PolicyCheck {
    let summary = o.and_then(|o| Summary::of(&o.rounds));
    PolicyCheck {
        policy,
        numactl,
        mb_per_s: summary.map(|s| s.median),
        unavailable: match (summary, why) {
            (Some(_), _) => None,
            (None, Some(w)) => Some(w),
            (None, None) => {
                Some(o.and_then(|o| o.error.clone()).unwrap_or_else(|| {
                    format!("interrupted ({})", crate::sys::signal::stop_reason())
                }))
            }
        },
        rounds_mb_per_s: o.map(|o| o.rounds.clone()).unwrap_or_default(),
        mb_per_s_summary: summary,
        quality: o.and_then(|o| o.quality.clone()),
        pages_per_node: o.map(|o| o.pages_per_node.clone()).unwrap_or_default(),
    }
}

/// The conclusion in one sentence (pure): `checks` are bind to the best node, plain
/// interleave and weighted interleave, in that order.
pub fn summarize(
    init: u32,
    weights: &[(u32, u8)],
    best_node: u32,
    checks: &[PolicyCheck],
    why_not: Option<&str>,
) -> String {
    let median = |k: usize| checks.get(k).and_then(|c| c.mb_per_s);
    let (Some(best_bw), Some(i), Some(w)) = (median(0), median(1), median(2)) else {
        return format!(
            "proposed weights {} for node {init}'s threads (proportional to the measured bandwidth per node); not verified: {}",
            if weights.is_empty() { "(none)".to_string() } else { weights_text(weights) },
            why_not.map_or_else(
                || format!("interrupted ({})", crate::sys::signal::stop_reason()),
                str::to_string
            )
        );
    };
    let pct = |a: f64, b: f64| (a / b - 1.0) * 100.0;
    let names = [
        format!("binding to node {best_node}"),
        "plain interleave".to_string(),
        "weighted interleave".to_string(),
    ];
    let rounds: Vec<&[f64]> = checks
        .iter()
        .take(3)
        .map(|c| c.rounds_mb_per_s.as_slice())
        .collect();
    let (top, within, no_interval) = unbeaten(&rounds, PRACTICAL_MARGIN);
    let verdict = match top.as_slice() {
        [2] => "use it".to_string(),
        [k] => format!("{} is better here", names[*k]),
        _ if no_interval => "too few rounds for an interval: no policy is named better".to_string(),
        several => format!(
            "{} are indistinguishable here (within +-{}): no policy to choose between them",
            several
                .iter()
                .map(|&k| names[k].as_str())
                .collect::<Vec<_>>()
                .join(" and "),
            percent(within.unwrap_or(0.0))
        ),
    };
    format!(
        "weighted interleave {} gives node {init}'s threads {w:.0} MB/s: {:+.0}% against plain interleave ({i:.0} MB/s) and {:+.0}% against binding to node {best_node} ({best_bw:.0} MB/s); {verdict}",
        weights_text(weights),
        pct(w, i),
        pct(w, best_bw)
    )
}

/// Shell lines that apply the weights system-wide (root) and run a program with them: the
/// numactl line when the installed numactl has `--weighted-interleave`, else a comment line
/// saying why and the kernel-interface way ([`crate::numactl`]).
pub fn apply_lines(w: &[(u32, u8)], numactl: &Installed) -> Vec<String> {
    let mut v: Vec<String> = w
        .iter()
        .map(|(n, x)| format!("echo {x} > /sys/kernel/mm/mempolicy/weighted_interleave/node{n}"))
        .collect();
    v.push(numactl.line_or_comment(&Policy::WeightedInterleave(w.to_vec()), None, "APP"));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_lines_give_numactl_or_the_kernel_interface() {
        let new = Installed {
            path: Some("/usr/bin/numactl".into()),
            version: Some("2.0.19".into()),
            options: vec!["--weighted-interleave".into()],
        };
        let lines = apply_lines(&[(0, 4), (2, 1)], &new);
        assert_eq!(
            lines[0],
            "echo 4 > /sys/kernel/mm/mempolicy/weighted_interleave/node0"
        );
        assert_eq!(lines[2], "numactl --weighted-interleave=0,2 APP");
        // Debian 12's numactl 2.0.16 has no --weighted-interleave: a comment, not a command.
        let old = Installed {
            options: vec!["--membind".into(), "--interleave".into()],
            version: None,
            ..new
        };
        let lines = apply_lines(&[(0, 4), (2, 1)], &old);
        assert!(
            lines[2].starts_with("# ") && lines[2].contains("MPOL_WEIGHTED_INTERLEAVE"),
            "{}",
            lines[2]
        );
    }

    /// A check whose nine rounds drift with the host (the same drift in every check) around
    /// `mb`, with `noise` of its own.
    fn check(mb: f64, noise: f64, phase: usize) -> PolicyCheck {
        let drift = [1.0, 0.8, 1.1, 0.95, 1.2, 0.9, 1.05, 0.85, 1.0];
        let rounds: Vec<f64> = (0..9)
            .map(|k| {
                mb * drift[k]
                    * (1.0
                        + noise
                            * if (k + phase).is_multiple_of(2) {
                                1.0
                            } else {
                                -1.0
                            })
            })
            .collect();
        let s = Summary::of(&rounds).unwrap();
        PolicyCheck {
            quality: None,
            policy: String::new(),
            numactl: String::new(),
            mb_per_s: Some(s.median),
            unavailable: None,
            rounds_mb_per_s: rounds,
            mb_per_s_summary: Some(s),
            pages_per_node: vec![],
        }
    }

    #[test]
    fn summary_sentences() {
        let checks = [
            check(200_000.0, 0.0, 0),
            check(125_000.0, 0.0, 0),
            check(240_000.0, 0.0, 0),
        ];
        let s = summarize(0, &[(0, 4), (2, 1)], 0, &checks, None);
        assert_eq!(s, "weighted interleave 0:4,2:1 gives node 0's threads 240000 MB/s: +92% against plain interleave (125000 MB/s) and +20% against binding to node 0 (200000 MB/s); use it");
        let checks = [
            check(6286.0, 0.0, 0),
            check(4211.0, 0.0, 0),
            check(5000.0, 0.0, 0),
        ];
        let s = summarize(0, &[(0, 2), (1, 1)], 0, &checks, None);
        assert!(s.ends_with("binding to node 0 is better here"), "{s}");
        let s = summarize(
            0,
            &[(0, 2), (1, 1)],
            0,
            &[check(6286.0, 0.0, 0)],
            Some("setting the weights needs root"),
        );
        assert!(
            s.contains("0:2,1:1") && s.ends_with("not verified: setting the weights needs root"),
            "{s}"
        );
    }

    /// Weighted interleave within noise of bind is not "use it".
    #[test]
    fn noise_is_indistinguishable_not_a_winner() {
        let checks = [
            check(100_000.0, 0.02, 0),
            check(70_000.0, 0.0, 0),
            check(101_000.0, 0.02, 1),
        ];
        let s = summarize(0, &[(0, 3), (1, 1)], 0, &checks, None);
        assert!(
            s.ends_with(
                "binding to node 0 and weighted interleave are indistinguishable here (within +-5 %): no policy to choose between them"
            ),
            "{s}"
        );
        // Too few rounds: nothing is named better, however large the gap.
        let mut few = [
            check(100_000.0, 0.0, 0),
            check(50_000.0, 0.0, 0),
            check(200_000.0, 0.0, 0),
        ];
        for c in few.iter_mut() {
            c.rounds_mb_per_s.truncate(4);
        }
        let s = summarize(0, &[(0, 3), (1, 1)], 0, &few, None);
        assert!(s.ends_with("no policy is named better"), "{s}");
    }
}
