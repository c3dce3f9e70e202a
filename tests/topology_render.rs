//! Snapshot tests of the `topo` renderers (text and graph) on replayed fixtures, so a change
//! in layout is a reviewed diff (`cargo insta review`, or INSTA_UPDATE=always).

use std::path::Path;

use numascope::render::topo::{self as topo_text, graph as topo_graph};
use numascope::sysroot::SysRoot;
use numascope::{results::topology::Topology, topology::read_topology};

fn load(name: &str) -> Topology {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name);
    let mut t = read_topology(&SysRoot::snapshot(&dir).unwrap()).unwrap();
    t.source = format!("<fixtures>/{name}");
    t
}

fn text(t: &Topology) -> String {
    let mut v = Vec::new();
    topo_text::render(t, &mut v).unwrap();
    String::from_utf8(v).unwrap()
}

fn graph(t: &Topology) -> String {
    let mut v = Vec::new();
    topo_graph::render(t, &mut v).unwrap();
    String::from_utf8(v).unwrap()
}

#[test]
fn magnycours_text() {
    insta::assert_snapshot!(text(&load("magnycours-2s-likwid")));
}

#[test]
fn magnycours_graph() {
    insta::assert_snapshot!(graph(&load("magnycours-2s-likwid")));
}

#[test]
fn sparse_hmat_text() {
    insta::assert_snapshot!(text(&load("edge-sparse-hmat")));
}

#[test]
fn sparse_hmat_graph() {
    insta::assert_snapshot!(graph(&load("edge-sparse-hmat")));
}

#[test]
fn xeon_smt_graph() {
    insta::assert_snapshot!(graph(&load("xeon-x7560-4s-smt")));
}

#[test]
fn offline_and_cgroup_text() {
    insta::assert_snapshot!(text(&load("edge-offline-cpus")));
    insta::assert_snapshot!(text(&load("edge-cgroup-restricted")));
}

#[test]
fn missing_optional_text() {
    insta::assert_snapshot!(text(&load("edge-missing-optional")));
}

#[test]
fn cgroup_graph_marks_disallowed() {
    let g = graph(&load("edge-cgroup-restricted"));
    assert!(g.contains("| 0* |") || g.contains(" 0* "), "{g}");
    assert!(g.contains("node 0*"), "{g}");
    assert!(
        g.contains("* not allowed for this process (allowed CPUs 2-5, nodes 1)"),
        "{g}"
    );
    insta::assert_snapshot!(g);
}

// Memory kinds and tiers, nodes per package and L3 domains in text and graph.
#[test]
fn kinds_and_domains_text_and_graph() {
    let cxl = load("cxl-tiered-memory");
    let t = text(&cxl);
    assert!(t.contains("2     CXL   declared  22"), "{t}");
    let g = graph(&cxl);
    assert!(
        g.contains("Memory-only node 2: 32 GiB (no CPUs), CXL (declared), tier 22"),
        "{g}"
    );
    let gpu = graph(&load("gpu-memory-node"));
    assert!(gpu.contains("GPU memory (declared)"), "{gpu}");
    let nps = load("nps4-2s-64cpu");
    assert!(graph(&nps).contains("Nodes per package: NPS4 (inferred)"));
    insta::assert_snapshot!(text(&nps));
    let snc = graph(&load("snc2-2s"));
    assert!(
        snc.contains("Note: the L3 of CPUs 0-3,8-11 spans nodes 0-1"),
        "{snc}"
    );
}

// The report's environment list carries the same facts (a results file from before them
// shows none: see the HTML snapshots, unchanged).
#[test]
fn kinds_and_domains_in_the_html_report() {
    let json = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/opteron-2node.json"),
    )
    .unwrap();
    let mut r = numascope::results::RunResults::from_json(&json, "opteron-2node.json").unwrap();
    assert!(!numascope::render::html::render(&r).contains("memory kinds"));
    r.topology = load("cxl-tiered-memory");
    let html = numascope::render::html::render(&r);
    assert!(
        html.contains("<dt>memory kinds</dt><dd>node 0: DRAM (inferred, tier 4); node 1: DRAM (inferred, tier 4); node 2: CXL (declared, tier 22)</dd>"),
        "{html}"
    );
    assert!(html.contains("<dt>nodes per package</dt><dd>one node per package (inferred"));
    assert!(html.contains("<dt>L3 domains</dt><dd>2</dd>"));
}

// `topo --graph` fits 100 columns on every machine (identical cores collapsed with
// counts where the exact drawing would not fit, as lstopo does), and stays exact where it
// fits: every core of a small machine is still its own column.
#[test]
fn graph_fits_100_columns_on_every_fixture() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/topology");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p.is_dir() {
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Ok(root) = numascope::sysroot::SysRoot::snapshot(&p) else {
            continue;
        };
        let Ok(t) = numascope::topology::read_topology(&root) else {
            continue;
        };
        let g = graph(&t);
        let widest = g.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= 100, "{name}: {widest} columns\n{g}");
        seen += 1;
    }
    assert!(seen >= 20, "only {seen} fixtures drawn");
    // The 128-CPU EPYC (963 columns when drawn exactly): cores collapsed by L3 with counts.
    let g = graph(&load("epyc7763-2s-nps4-synthetic"));
    assert!(
        g.contains("8 cores 0-7,128-135") && g.contains("8x L2 512 KiB"),
        "{g}"
    );
    // A small machine stays exact: one column per core.
    let g = graph(&load("opteron250-2s"));
    assert!(!g.contains(" cores ") && !g.contains("x L"), "{g}");
}
