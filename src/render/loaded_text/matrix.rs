//! The loaded-latency matrix (`loaded-latency --matrix`): one headline row per initiator x
//! target cell and load mix, the cells not measured, and the warnings under one verdict.

use std::io::{self, Write};

use super::{headline_table, shared_idle_checks};
use crate::render::inspect::traffic as traffic_text;
use crate::render::run_view::loaded::bandwidth_note;
use crate::render::run_view::loaded_family::{curve_warnings, matrix_notes};
use crate::results::format::format_list;
use crate::results::loaded::LoadedMatrix;

/// One headline row per initiator x target cell and mix, what was not measured, and the
/// cells' warnings under one verdict.
pub(super) fn render_matrix(m: &LoadedMatrix, out: &mut dyn Write) -> io::Result<()> {
    let from = match &m.load_nodes {
        None => "the initiator's other CPUs".to_string(),
        Some(n) => format!("the CPUs of node(s) {} but the chaser's", format_list(n)),
    };
    let onto = match m.load_mem_node {
        None => "the target".to_string(),
        Some(n) => format!("node {n}"),
    };
    writeln!(
        out,
        "Loaded latency, every initiator node x target node (chaser on the initiator's first CPU, chased buffer on the target; load from {from} onto {onto})"
    )?;
    let curves: Vec<_> = m.cells.iter().flat_map(|c| c.curves()).collect();
    let first = [
        "cpu_node",
        "memory_node",
        "mix",
        "load_cpus",
        "load_memory_node",
    ];
    write!(out, "{}", headline_table(&curves, &first))?;
    for n in matrix_notes(m) {
        writeln!(out, "{n}")?;
    }
    writeln!(
        out,
        "MB = 10^6 B. {} The doubling is stated only with more than one point at or beyond it.",
        bandwidth_note(&curves)
    )?;
    if let Some(r) = m.cells.iter().find_map(|c| c.result.as_ref()) {
        traffic_text::render(&r.traffic, out)?;
    }
    verdict(m, out)
}

/// The cells' warnings, each once, under the verdict of their idle checks; nothing when
/// there are neither.
fn verdict(m: &LoadedMatrix, out: &mut dyn Write) -> io::Result<()> {
    let warnings = curve_warnings(&m.cells.iter().flat_map(|c| c.curves()).collect::<Vec<_>>());
    let checks: Vec<_> = m
        .cells
        .iter()
        .flat_map(|c| shared_idle_checks(c.curves()))
        .collect();
    if checks.is_empty() && warnings.is_empty() {
        return Ok(());
    }
    let q = crate::render::verdict::of_checks(&checks);
    crate::render::verdict::write_text(out, Some(&q), &warnings, "")
}
