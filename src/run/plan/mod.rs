//! The plan of a run: which parts run, with which settings, in about how long, decided once
//! into a plain value that the rest of the run only reads. A budget (`--quick`, default,
//! `--thorough`) fixes the per-part settings; `machine.rs` reads what they depend on off the
//! machine once (the home node, the measuring CPU, caches, free memory), and `sizing.rs` scales
//! down what grows with the machine (matrix cells, core pairs, thread counts), recording in
//! `reduced` what it left out, so the report can say so. `--only` and `--skip` choose parts;
//! a part whose engine is not built in is skipped with that reason. The time estimates
//! (`run::estimate`) are simple documented cost models (fault-in rate, chain
//! construction, timed samples), checked against real runs on a 2-CPU machine. Pure: nothing
//! here measures.

use crate::results::plan::{Budget, Part, Plan, PlannedPart, SkippedPart};
use crate::results::topology::Topology;

use super::budget::knobs;
use super::estimate::describe;
pub use super::settings::{
    BandwidthSettings, C2cSettings, LatencySettings, LoadedSettings, MatrixSettings, Overrides,
    PeakSettings, Planned, ScalingSettings, ScenarioSettings, Settings,
};
use tables::tables_skip_reason;

mod machine;
mod sizing;
pub(super) mod tables;

pub use machine::{dram_latency_bytes, home_node, llc_instance_bytes};
pub use sizing::sample_evenly;

/// What the user asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRequest {
    pub budget: Budget,
    /// `--only`: run just these parts (`None`: all).
    pub only: Option<Vec<Part>>,
    /// `--skip`: parts left out.
    pub skip: Vec<Part>,
    /// The command line's values that replace the budget's choices (`--kernel`, `--size`...).
    pub overrides: Overrides,
}

impl Default for PlanRequest {
    fn default() -> Self {
        PlanRequest {
            budget: Budget::Default,
            only: None,
            skip: vec![],
            overrides: Overrides::default(),
        }
    }
}

/// Parses a comma-separated list of part names given to `flag`; an unknown name is one
/// sentence that lists the known ones.
pub fn parse_parts(flag: &str, text: &str) -> Result<Vec<Part>, String> {
    let mut out = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let p: Part = name.parse().map_err(|_| {
            format!(
                "{flag}: unknown part `{}`; the parts are: {}",
                crate::parse::cpulist::excerpt(name),
                Part::known_names()
            )
        })?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "{flag} needs at least one part name; the parts are: {}",
            Part::known_names()
        ));
    }
    Ok(out)
}

/// Makes the plan. `built` lists the parts this build can execute; `weighted_ok` is not
/// needed here (the scenarios say themselves what they could not run).
pub fn make_plan(topo: &Topology, req: &PlanRequest, built: &[Part]) -> Planned {
    // Which parts run, then their settings (the budget's, the command line's overrides,
    // the table parts' configs), then each part described once, then the reference.
    let cpus = topo.usable_cpus().len();
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for part in Part::ALL {
        match skip_reason(part, req, built, cpus)
            .or_else(|| tables_skip_reason(part, topo, req.budget))
        {
            Some(reason) => skipped.push(SkippedPart { part, reason }),
            None => runs.push(part),
        }
    }
    let k = knobs(req.budget);
    let mut settings = sizing::settings_for(topo, &k);
    req.overrides.apply(&mut settings, topo);
    tables::decide(&mut settings, topo, &runs);
    if runs.contains(&Part::Scenarios) {
        let layout = super::scenarios::layout(topo, &settings.scenarios, settings.home_node);
        settings.scenario_layout = Some(layout.map_err(|e| format!("{e:#}")));
    }
    let mem_nodes = topo.memory_nodes();
    let parts: Vec<PlannedPart> = runs
        .iter()
        .map(|&part| {
            let mut p = describe(part, &settings, topo, &mem_nodes, cpus.max(1));
            req.overrides.name_in(&mut p);
            p
        })
        .collect();
    let mut plan = Plan {
        budget: req.budget,
        target_s: k.target_s,
        estimate_s: 0.0,
        parts,
        skipped,
        reference: None,
    };
    // The run's reference measurement runs when a part that shows it is planned; the total
    // is the parts' estimates plus its own.
    plan.reference = super::reference::planned(topo, &settings, &plan);
    plan.estimate_s = plan.parts.iter().map(|p| p.estimate_s).sum::<f64>()
        + plan.reference.as_ref().map_or(0.0, |r| r.estimate_s);
    Planned { plan, settings }
}

/// Why `part` does not run, or `None` when it does.
fn skip_reason(part: Part, req: &PlanRequest, built: &[Part], cpus: usize) -> Option<String> {
    if let Some(only) = &req.only {
        if !only.contains(&part) && part != Part::Topology {
            return Some("not named by --only".into());
        }
    }
    if req.skip.contains(&part) {
        return Some("left out with --skip".into());
    }
    if part == Part::LoadedLatency && cpus < 2 {
        return Some(format!(
            "loaded latency needs a second usable CPU for the load threads and this process may use {cpus}"
        ));
    }
    if part == Part::C2c && cpus < 2 {
        return Some(format!(
            "core-to-core latency needs two usable CPUs and this process may use {cpus}"
        ));
    }
    if !built.contains(&part) {
        return Some("its measurement engine is not part of this build of numascope".into());
    }
    let named = req.only.as_ref().is_some_and(|o| o.contains(&Part::Peak));
    if part == Part::Peak && req.budget != Budget::Thorough && !named {
        return Some(format!(
            "peak injection per mix takes about 20 s on a 2-CPU machine (7 mixes at 1, half and all CPUs, each run's buffers placed and verified), more than the {} budget leaves; add --thorough or --only peak, or run `numascope bandwidth --peak`",
            req.budget.name()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::machine::free_memory_bytes;
    use super::sizing::{matrix_cells, thread_counts};
    use super::*;
    use crate::run::budget::CellChoice;
    use crate::run::sample::opteron_topology;

    fn big_topology(nodes: u32, cpus_per_node: u32) -> Topology {
        let mut t = opteron_topology();
        let proto_node = t.nodes[0].clone();
        let proto_cpu = t.cpus[0].clone();
        t.nodes.clear();
        t.cpus.clear();
        for n in 0..nodes {
            let ids: Vec<u32> = (n * cpus_per_node..(n + 1) * cpus_per_node).collect();
            let mut node = proto_node.clone();
            node.id = n;
            node.cpus = ids.clone();
            t.nodes.push(node);
            for id in ids {
                let mut c = proto_cpu.clone();
                c.id = id;
                c.node = Some(n);
                c.core = Some(id);
                c.siblings = vec![id];
                t.cpus.push(c);
            }
        }
        t.allowed_cpus = (0..nodes * cpus_per_node).collect();
        t.allowed_nodes = (0..nodes).collect();
        t.distances = (0..nodes)
            .map(|i| (0..nodes).map(|j| if i == j { 10 } else { 20 }).collect())
            .collect();
        t
    }

    #[test]
    fn part_lists_parse_and_unknown_parts_name_the_known_ones() {
        assert_eq!(
            parse_parts("--only", "latency, c2c,latency").unwrap(),
            vec![Part::Latency, Part::C2c]
        );
        let e = parse_parts("--skip", "latency,bogus").unwrap_err();
        assert!(
            e.starts_with("--skip: unknown part `bogus`; the parts are: topology, latency"),
            "{e}"
        );
        assert!(parse_parts("--only", " , ")
            .unwrap_err()
            .contains("at least one"));
    }

    #[test]
    fn only_and_skip_choose_parts_with_reasons() {
        let t = opteron_topology();
        let req = PlanRequest {
            budget: Budget::Quick,
            only: Some(vec![Part::Scenarios, Part::Latency]),
            skip: vec![Part::Latency],
            ..Default::default()
        };
        let p = make_plan(&t, &req, &Part::ALL).plan;
        let run: Vec<Part> = p.parts.iter().map(|p| p.part).collect();
        assert_eq!(run, vec![Part::Topology, Part::Scenarios]);
        let why = |part| {
            p.skipped
                .iter()
                .find(|s| s.part == part)
                .map(|s| s.reason.clone())
                .unwrap()
        };
        assert_eq!(why(Part::Latency), "left out with --skip");
        assert_eq!(why(Part::C2c), "not named by --only");
        let p = make_plan(
            &t,
            &PlanRequest::default(),
            &[Part::Topology, Part::Scenarios],
        )
        .plan;
        assert!(why_of(&p, Part::Bandwidth).contains("not part of this build"));
    }

    fn why_of(p: &Plan, part: Part) -> String {
        p.skipped
            .iter()
            .find(|s| s.part == part)
            .unwrap()
            .reason
            .clone()
    }

    /// The budgets' estimates on a 2-CPU one-or-two-node machine stay within their targets,
    /// and thorough measures more than default, which measures more than quick.
    #[test]
    fn budgets_fit_their_targets_on_a_small_machine() {
        let t = opteron_topology();
        let est = |b| {
            make_plan(
                &t,
                &PlanRequest {
                    budget: b,
                    ..Default::default()
                },
                &Part::ALL,
            )
            .plan
            .estimate_s
        };
        let (q, d, th) = (
            est(Budget::Quick),
            est(Budget::Default),
            est(Budget::Thorough),
        );
        assert!(q <= 15.0, "quick {q}");
        assert!(d <= 60.0 && d > q, "default {d}");
        assert!(th > d, "thorough {th}");
    }

    /// On a big machine, matrix cells, CPU pairs and scaling nodes are sampled, and the plan
    /// says what it left out: quick measures the home row once per SLIT distance, default
    /// the whole latency matrix and, past 24 cells, every local bandwidth cell and an even
    /// share of each distance class.
    #[test]
    fn big_machines_are_sampled_and_say_so() {
        let t = big_topology(8, 32);
        let pl = make_plan(
            &t,
            &PlanRequest {
                budget: Budget::Quick,
                ..Default::default()
            },
            &Part::ALL,
        );
        let m = &pl.settings.latency_matrix;
        assert_eq!(m.all_cells, 64);
        assert_eq!(m.cells, vec![(0, 0), (0, 1)]);
        let c = &pl.settings.c2c;
        assert_eq!(c.all_cpus, 256);
        // quick: at most 4 ordered pairs -> 2 CPUs, on two different nodes.
        assert_eq!(c.cpus, vec![0, 32]);
        let dp = make_plan(&t, &PlanRequest::default(), &Part::ALL);
        let d = &dp.settings.c2c;
        assert_eq!(d.cpus.len(), 8);
        assert_eq!(d.cpus, vec![0, 32, 64, 96, 128, 160, 192, 224]);
        let lm = pl.plan.planned(Part::LatencyMatrix).unwrap();
        assert_eq!(
            lm.reduced,
            vec!["2 of 64 node pairs measured (local 1 of 8, distance 20: 1 of 56); every other pair is shown as not measured, none is inferred from a measured one"]
        );
        assert!(!pl.plan.planned(Part::C2c).unwrap().reduced.is_empty());
        assert_eq!(pl.settings.scaling.thread_counts, vec![1, 8, 32]);
        assert_eq!(pl.settings.scaling.nodes, vec![0, 4]);
        // Default: all 64 latency cells; 24 bandwidth cells, the 8 local ones among them.
        assert_eq!(dp.settings.latency_matrix.cells.len(), 64);
        let bw = &dp.settings.bandwidth_matrix.cells;
        assert_eq!(bw.len(), 24);
        assert!((0..8).all(|n| bw.contains(&(n, n))));
        assert_eq!(dp.settings.scaling.nodes, vec![0, 2, 4, 6]);
    }

    /// Remote cells are shared round-robin over the distance classes, each class evenly
    /// sampled; a machine without caches in sysfs sizes the DRAM chase from 32 MiB.
    #[test]
    fn matrix_cells_by_distance_class() {
        let mut t = big_topology(4, 2);
        t.distances = vec![
            vec![10, 12, 32, 32],
            vec![12, 10, 32, 32],
            vec![32, 32, 10, 12],
            vec![32, 32, 12, 10],
        ];
        let (cells, all) = matrix_cells(&t, CellChoice::Upto(8), home_node(&t));
        assert_eq!(all, 16);
        // 4 local, then 2 of the 4 at distance 12 (the 2nd and 4th: (1,0), (3,2)) and 2 of
        // the 8 at distance 32 (the 3rd and 7th: (1,2), (3,0)).
        assert_eq!(
            cells,
            vec![
                (0, 0),
                (1, 0),
                (1, 1),
                (1, 2),
                (2, 2),
                (3, 0),
                (3, 2),
                (3, 3)
            ]
        );
        let (cells, _) = matrix_cells(
            &t,
            CellChoice::HomeRowClasses { keep_all_upto: 4 },
            home_node(&t),
        );
        assert_eq!(cells, vec![(0, 0), (0, 1), (0, 2)]);
        let (cells, _) = matrix_cells(&t, CellChoice::Upto(16), home_node(&t));
        assert_eq!(cells.len(), 16);
        t.caches.clear();
        assert_eq!(llc_instance_bytes(&t), None);
        assert_eq!(
            dram_latency_bytes(&t),
            (256u64 << 20).min(free_memory_bytes(&t) / 4)
        );
    }

    /// The scenario rows are laid out once, with the plan, where the part is planned: the
    /// estimate reads that layout and the runner measures it.
    #[test]
    fn the_plan_lays_the_scenarios_out_where_they_run() {
        let t = opteron_topology();
        let only = |parts: Vec<Part>| PlanRequest {
            only: Some(parts),
            ..Default::default()
        };
        let p = make_plan(&t, &only(vec![Part::Scenarios]), &Part::ALL);
        let s = &p.settings;
        let want = crate::run::scenarios::layout(&t, &s.scenarios, s.home_node).unwrap();
        assert_eq!(s.scenario_layout, Some(Ok(want)));
        let p = make_plan(&t, &only(vec![Part::Latency]), &Part::ALL);
        assert_eq!(p.settings.scenario_layout, None);
    }

    #[test]
    fn thread_counts_and_sampling() {
        assert_eq!(thread_counts(1, 6), vec![1]);
        assert_eq!(thread_counts(6, 6), vec![1, 2, 4, 6]);
        assert_eq!(thread_counts(64, 100), vec![1, 2, 4, 8, 16, 32, 64]);
        let v: Vec<u32> = (0..100).collect();
        let s = sample_evenly(&v, 10, |&x| x == 99);
        assert_eq!(s.len(), 10);
        assert!(s.contains(&99));
    }
}
