//! Snapshot tests of the `topo` renderers (text and graph) on replayed fixtures, so a change
//! in layout is a reviewed diff (`cargo insta review`, or INSTA_UPDATE=always).

use std::path::Path;

use numascope::render::{topo_graph, topo_text};
use numascope::sysroot::SysRoot;
use numascope::topology::{read_topology, Topology};

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
