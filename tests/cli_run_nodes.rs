//! `run --cpu-nodes` and `--mem-nodes` are checked against the right sets in every budget:
//! on the 8-node and 4-node fixtures, every single node and every pair is tried
//! for each flag under `--quick`, the default and `--thorough`, through the path `run
//! --dry-run` takes (resolve the flags, check them against the topology, plan, apply); a
//! few of them also through `run --dry-run` itself (each start of the binary costs seconds
//! on a loaded machine, so the exhaustive sweep stays in process). A set inside the
//! initiator nodes (`--cpu-nodes`) or the memory nodes (`--mem-nodes`) is accepted, its
//! nodes measured and the flag named in the plan; any other is refused naming the flag.
//! (The default and quick budgets once checked `--cpu-nodes` against their reduced sample of
//! scaling nodes and refused nodes 1, 3 and 7 of the 8-node EPYC.)

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use numascope::cli::run::{overrides, resolve, RunArgs};
use numascope::results::plan::Part;
use numascope::run::execute::BUILT;
use numascope::run::plan::make_plan;
use numascope::sysroot::SysRoot;
use numascope::topology::read_topology;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name)
}

/// Every single node and every pair of `ids`, as `--cpu-nodes` values.
fn singles_and_pairs(ids: &[u32]) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = ids.iter().map(|i| vec![*i]).collect();
    for (k, a) in ids.iter().enumerate() {
        for b in &ids[k + 1..] {
            out.push(vec![*a, *b]);
        }
    }
    out
}

fn args(budget: &str, flag: &str, value: &str) -> RunArgs {
    let mut a = RunArgs {
        quick: budget == "--quick",
        thorough: budget == "--thorough",
        ..Default::default()
    };
    if flag == "--cpu-nodes" {
        a.cpu_nodes = Some(value.into());
    } else {
        a.mem_nodes = Some(value.into());
    }
    a
}

fn check(name: &str, want_nodes: usize) {
    let dir = fixture(name);
    let topo = read_topology(&SysRoot::snapshot(&dir).unwrap()).unwrap();
    let ids: Vec<u32> = topo.nodes.iter().map(|n| n.id).collect();
    assert_eq!(ids.len(), want_nodes, "{name}");
    let sets = [
        ("--cpu-nodes", topo.initiator_nodes()),
        ("--mem-nodes", topo.memory_nodes()),
    ];
    let mut tried = 0;
    for budget in ["--quick", "--default", "--thorough"] {
        for (flag, valid) in &sets {
            for nodes in singles_and_pairs(&ids) {
                let value: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
                let value = value.join(",");
                let what = format!("{name} {budget} {flag} {value}");
                let a = args(budget, flag, &value);
                let knobs = overrides(&topo, &a);
                let ok = nodes.iter().all(|n| valid.contains(n));
                let knobs = match (knobs, ok) {
                    (Ok(k), true) => k,
                    (Err(e), false) => {
                        let e = e.to_string();
                        assert!(e.contains(flag), "{what}: {e}");
                        tried += 1;
                        continue;
                    }
                    (Ok(_), false) => panic!("{what} accepted"),
                    (Err(e), true) => panic!("{what} refused: {e}"),
                };
                let mut req = resolve(&a).unwrap();
                req.overrides = knobs;
                let planned = make_plan(&topo, &req, BUILT);
                (req.overrides.check(&planned.plan))
                    .unwrap_or_else(|e| panic!("{what} refused by the plan: {e}"));
                let s = &planned.settings;
                if *flag == "--cpu-nodes" {
                    assert_eq!(s.scaling.nodes, nodes, "{what}: scaling nodes");
                }
                for (m, part) in [
                    (&s.latency_matrix, Part::LatencyMatrix),
                    (&s.bandwidth_matrix, Part::BandwidthMatrix),
                ] {
                    if !planned.plan.runs(part) {
                        continue;
                    }
                    assert!(!m.cells.is_empty(), "{what}: {part:?} has no cell");
                    for (i, t) in &m.cells {
                        let node = if *flag == "--cpu-nodes" { i } else { t };
                        assert!(nodes.contains(node), "{what}: {part:?} cell ({i}, {t})");
                    }
                }
                tried += 1;
            }
        }
    }
    println!("{name}: {tried} node sets tried");
}

#[test]
fn every_node_and_pair_of_the_8_node_epyc_in_every_budget() {
    check("epyc7763-2s-nps4-synthetic", 8);
}

#[test]
fn every_node_and_pair_of_a_4_node_guest_with_a_memoryless_node_in_every_budget() {
    check("guest-B", 4);
}

/// The cases the issue found refused, and a node without memory, through `run --dry-run`.
#[test]
fn dry_run_accepts_the_nodes_it_once_refused() {
    let epyc = fixture("epyc7763-2s-nps4-synthetic");
    for (budget, value) in [("--quick", "1"), ("--thorough", "3"), ("--quick", "6,7")] {
        let out = Command::cargo_bin("numascope")
            .unwrap()
            .args([
                "run",
                "--dry-run",
                budget,
                "--cpu-nodes",
                value,
                "--sysfs-root",
            ])
            .arg(&epyc)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!("set by --cpu-nodes {value}")),
            "{stdout}"
        );
    }
    let out = Command::cargo_bin("numascope")
        .unwrap()
        .args(["run", "--dry-run", "--mem-nodes", "3", "--sysfs-root"])
        .arg(fixture("guest-B"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--mem-nodes") && err.lines().count() == 1,
        "{err}"
    );
}
