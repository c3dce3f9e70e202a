//! The loaded-latency matrix (`loaded-latency --matrix`): one headline row per initiator x
//! target cell and load mix, the cells not measured, and the warnings under one verdict.

use std::io::{self, Write};

use super::{bandwidth_note, headline_table, shared_idle_checks};
use crate::render::run_view::loaded::has_slices;
use crate::render::traffic_text;
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
    let (mut curves, mut init, mut target, mut mix, mut load) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut notes = Vec::new();
    for c in &m.cells {
        if c.result.is_none() {
            notes.push(format!(
                "{} -> {}: {}",
                c.initiator,
                c.target,
                c.note.clone().unwrap_or_else(|| "not measured".into())
            ));
        }
        for r in c.curves() {
            curves.push(r);
            init.push(c.initiator.to_string());
            target.push(c.target.to_string());
            mix.push(r.kernel_label.clone());
            load.push(format!(
                "{} -> {}",
                format_list(&r.load_cpus),
                r.load_mem_node
            ));
        }
    }
    if !curves.is_empty() {
        let t = headline_table(
            &curves,
            &[
                ("initiator", init),
                ("target", target),
                ("mix", mix),
                ("load CPUs -> node", load),
            ],
        );
        writeln!(out, "{}", crate::render::width::fit(&t))?;
    }
    for n in &notes {
        writeln!(out, "not measured: {n}")?;
    }
    if m.cells.len() == 1 && m.initiators.len() == 1 && m.targets.len() == 1 {
        writeln!(
            out,
            "This machine has one initiator node and one memory node, so the matrix is the single cell {} -> {}.",
            m.initiators[0], m.targets[0]
        )?;
    }
    if has_slices(m.cells.iter().flat_map(|c| c.curves())) {
        writeln!(
            out,
            "MB = 10^6 B. {} The doubling is stated only with more than one point at or beyond it.",
            bandwidth_note(&m.cells.iter().flat_map(|c| c.curves()).collect::<Vec<_>>())
        )?;
    } else {
        writeln!(
            out,
            "MB = 10^6 B. Bandwidth is one repetition's count per point (no interval); the doubling is stated only with more than one point at or beyond it."
        )?;
    }
    if let Some(r) = m.cells.iter().find_map(|c| c.result.as_ref()) {
        traffic_text::render(&r.traffic, out)?;
    }
    verdict(m, out)
}

/// The cells' warnings, each once, under the verdict of their idle checks; nothing when
/// there are neither.
fn verdict(m: &LoadedMatrix, out: &mut dyn Write) -> io::Result<()> {
    let mut warnings: Vec<String> = Vec::new();
    for c in &m.cells {
        for r in c.curves() {
            for w in &r.warnings {
                let w = format!("{} -> {} {}: {w}", c.initiator, c.target, r.kernel_label);
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
        }
    }
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
