//! The measuring steps of [`super::run_scenarios`], in the order it takes them: (g)'s weights
//! from all threads' bandwidth to each memory node, the distinct rows' bandwidth in interleaved
//! rounds, then the single-thread latencies of (a) and (b).

use super::*;
use crate::schedule::rounds::RoundPlan;

/// What every measuring step of one scenario run shares.
pub(super) struct Step<'a> {
    pub(super) topo: &'a Topology,
    pub(super) root: &'a SysRoot,
    /// All usable CPUs: the team of (d) to (h).
    pub(super) all: &'a [u32],
    /// Bytes each thread of the all-threads team gets.
    pub(super) team_bytes: u64,
    /// The rounds the run measures in.
    pub(super) plan: &'a RoundPlan,
}

/// Index of (g), the weighted-interleave row.
const WEIGHTED: usize = 6;

/// (g): weights from all threads' bandwidth to each memory node, measured first; fills (g)'s
/// row and configuration (or its reason) and returns the weights.
pub(super) fn weighted_row(
    step: &Step<'_>,
    layout: &mut Layout,
    weighted_why: Option<String>,
    tick: &mut dyn FnMut(),
) -> Vec<(u32, u8)> {
    let g = WEIGHTED;
    let interleave_arg = &layout.interleave_arg;
    if let Some(why) = weighted_why {
        let row = &mut layout.rows[g];
        row.unavailable = Some(why);
        row.policy = "weighted interleave".into();
        row.numactl = format!("numactl --weighted-interleave={interleave_arg} APP");
        return Vec::new();
    }
    let per_node_all = bandwidth_per_node(step, &layout.mem, tick);
    let weights = derive_weights(&per_node_all);
    let row = &mut layout.rows[g];
    row.policy = format!(
        "weighted interleave {} (from all threads' bandwidth per node: {})",
        weights_text(&weights),
        per_node_all
            .iter()
            .map(|(n, b)| format!("node {n} {b:.0} MB/s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    row.numactl = format!(
        "{}; numactl --weighted-interleave={} APP",
        weights
            .iter()
            .map(|(n, w)| format!(
                "echo {w} > /sys/kernel/mm/mempolicy/weighted_interleave/node{n}"
            ))
            .collect::<Vec<_>>()
            .join("; "),
        nodes_text(&weights)
    );
    if weights.len() < 2 {
        row.unavailable = Some("fewer than two memory nodes gave a bandwidth figure, so there were no weights to apply".into());
    } else {
        layout.configs[g] = Some(Config {
            job: Job::Team {
                cpus: step.all.to_vec(),
                policies: vec![Policy::WeightedInterleave(weights.clone()); step.all.len()],
            },
            bytes_per_thread: step.team_bytes,
            weights: Some(weights.clone()),
        });
    }
    weights
}

/// All threads' bandwidth with their memory bound to each memory node in turn (a node whose
/// measurement fails is left out; an interrupt stops the walk).
fn bandwidth_per_node(step: &Step<'_>, mem: &[u32], tick: &mut dyn FnMut()) -> Vec<(u32, f64)> {
    let mut per_node_all: Vec<(u32, f64)> = Vec::new();
    for &m in mem {
        if interrupted() {
            break;
        }
        let cfg = Config {
            job: Job::Team {
                cpus: step.all.to_vec(),
                policies: vec![Policy::Bind(vec![m]); step.all.len()],
            },
            bytes_per_thread: step.team_bytes,
            weights: None,
        };
        if let Ok(t) = measure_once(step.topo, step.root, &cfg, &step.plan.timed) {
            per_node_all.push((m, t.total_mb_per_s.median));
        }
        tick();
    }
    per_node_all
}

/// Identical placements are measured once; the distinct ones side by side in interleaved
/// rounds, each row filled with its figures (or why it has none).
pub(super) fn bandwidth_rows(
    step: &Step<'_>,
    layout: &mut Layout,
    merged: &[Option<usize>],
    tick: &mut dyn FnMut(),
) {
    let configs = &layout.configs;
    let measured: Vec<usize> = (0..configs.len())
        .filter(|&i| configs[i].is_some() && merged[i].is_none())
        .collect();
    let cfgs: Vec<Config> = measured
        .iter()
        .filter_map(|&i| configs[i].clone())
        .collect();
    let outcomes = run_rounds(step.topo, step.root, &cfgs, step.plan, tick);
    for (&i, o) in measured.iter().zip(outcomes) {
        let r = &mut layout.rows[i];
        r.placement_fraction = o.placement_fraction;
        r.pages_per_node = o.pages_per_node.clone();
        r.per_thread_mb_per_s = o.per_thread_medians();
        r.precision = Some(o.precision(step.plan));
        r.mb_per_s = Summary::of(&o.rounds);
        r.rounds_mb_per_s = o.rounds;
        r.quality = o.quality;
        if r.mb_per_s.is_none() {
            r.unavailable = Some(o.error.unwrap_or_else(|| {
                format!(
                    "not measured: the run was interrupted ({})",
                    crate::sys::signal::stop_reason()
                )
            }));
        }
    }
}

/// Single-thread latencies of (a) and (b), on the reference's working set
/// (`ScenarioSettings::latency_bytes`), so the two differ only in where the thread may
/// run: (a) on the home node's CPUs, (b) anywhere (the latency matrix's cell is another
/// size). Measured side by side in interleaved blocks ([`latency`]); a row placed as the
/// other here is measured once.
pub(super) fn latency_of_a_and_b(
    step: &Step<'_>,
    inp: &ScenarioInputs<'_>,
    layout: &mut Layout,
    merged: &[Option<usize>],
    tick: &mut dyn FnMut(),
) {
    let lat_plan = block_plan(&inp.latency_plan);
    let rows = &mut layout.rows;
    // (a)'s thread on the home node's first usable CPU: the reference's conditions.
    let home_cpus: Vec<u32> = rows[0].cpus.iter().take(1).copied().collect();
    let wanted: Vec<(usize, Vec<u32>)> = [(0, home_cpus), (1, vec![])]
        .into_iter()
        .filter(|(i, _)| merged[*i].is_none() && rows[*i].mb_per_s.is_some())
        .collect();
    if wanted.is_empty() || interrupted() {
        return;
    }
    let threads: Vec<Thread<'_>> = wanted.iter().map(|(_, c)| Thread { cpus: c }).collect();
    let blocks = measure_rows(
        step.topo,
        step.root,
        &threads,
        RowBuffer {
            policy: &Policy::Bind(vec![layout.home]),
            bytes: inp.settings.latency_bytes,
            lent: inp.lent,
        },
        &lat_plan,
        inp.timer_resolution_ns,
    );
    let out = match blocks {
        Ok(out) => out,
        Err(e) => {
            for (i, _) in &wanted {
                rows[*i].latency_unavailable = Some(crate::error::one_sentence(&e));
            }
            return;
        }
    };
    let together = out.iter().filter(|r| !r.blocks.is_empty()).count() > 1;
    for ((i, cpus), b) in wanted.iter().zip(&out) {
        let mut l = row_latency(b, &lat_plan, together);
        if let Some(l) = l.as_mut() {
            l.cpus = cpus.clone();
        }
        rows[*i].latency_ns = l.as_ref().map(|l| l.ns_per_load.median);
        rows[*i].latency_unavailable = b.error.clone().filter(|_| l.is_none());
        rows[*i].latency = l;
        tick();
    }
    if let (Some(a), Some(b)) = (&rows[0].latency, &rows[1].latency) {
        rows[1].latency_ratio_to_a = ratio_to_a(a, b);
    }
}
