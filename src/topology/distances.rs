//! The SLIT distance matrix from `nodeN/distance`: one row per node, one column per online
//! node in ascending id order (the kernel's order, which is also the order of
//! [`crate::topology::Topology::nodes`]). Absent rows give an empty matrix; a row with the
//! wrong length or a non-number is malformed.

use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{malformed, NODE_DIR};
use crate::topology::model::Node;

/// Reads the matrix; empty when no node has a distance file.
pub fn read_distances(root: &SysRoot, nodes: &[Node]) -> Result<Vec<Vec<u32>>, SysError> {
    let mut rows = Vec::with_capacity(nodes.len());
    for n in nodes {
        let rel = format!("{NODE_DIR}/node{}/distance", n.id);
        let Some(text) = root.read_opt(&rel)? else {
            if rows.is_empty() {
                continue;
            }
            return Err(malformed(
                root,
                &rel,
                "it is missing while other nodes have one; the snapshot is incomplete",
            ));
        };
        let row: Vec<u32> = text
            .split_whitespace()
            .map(|w| w.parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| {
                malformed(
                    root,
                    &rel,
                    format!(
                        "expected numbers separated by spaces, found `{}`",
                        text.trim()
                    ),
                )
            })?;
        if row.len() != nodes.len() {
            return Err(malformed(
                root,
                &rel,
                format!(
                    "it has {} distances but there are {} online nodes",
                    row.len(),
                    nodes.len()
                ),
            ));
        }
        rows.push(row);
    }
    if !rows.is_empty() && rows.len() != nodes.len() {
        let missing = &nodes[0];
        return Err(malformed(
            root,
            format!("{NODE_DIR}/node{}/distance", missing.id),
            "it is missing while other nodes have one; the snapshot is incomplete",
        ));
    }
    Ok(rows)
}
