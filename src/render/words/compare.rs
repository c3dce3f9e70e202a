//! The comparison's extra lines: a core-to-core figure of runs in a virtual machine that
//! differs beyond both intervals is not judged, and said here with its likely cause.

use crate::results::compare::{Comparison, VM_C2C_CAUSE};

/// One line per such figure ("b: c2c/SMT siblings: x3.10 beyond both runs' intervals;
/// likely cause: ..."), for the text: the cells are not judged, and the per-run line names
/// only the first reason.
pub fn vm_c2c_differences(c: &Comparison) -> Vec<String> {
    let mut out = Vec::new();
    for row in &c.rows {
        for (i, cell) in row.cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            let differs = cell
                .not_judged
                .as_deref()
                .is_some_and(|w| w.ends_with(VM_C2C_CAUSE));
            if let (true, Some(ratio)) = (differs, cell.ratio_to_first) {
                out.push(format!(
                    "{}: {}: x{ratio:.2} beyond both runs' intervals; {VM_C2C_CAUSE}",
                    c.runs[i], row.label
                ));
            }
        }
    }
    out
}
