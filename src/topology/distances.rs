//! The SLIT distance matrix from `nodeN/distance`: one row per node, one column per online
//! node in ascending id order (the kernel's order, which is also the order of
//! [`crate::results::topology::Topology::nodes`]). Absent rows give an empty matrix; a row with the
//! wrong length or a non-number is malformed.

use crate::results::topology::Node;
use crate::sys::safe_read::excerpt;
use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{malformed, missing, read_list_opt, NODE_DIR};

/// Reads the matrix; empty when no node has a distance file.
pub fn read_distances(root: &SysRoot, nodes: &[Node]) -> Result<Vec<Vec<u32>>, SysError> {
    // The kernel writes one column per online node. Some recorded snapshots (with nodes taken
    // offline by hand) keep one column per *possible* node: then the online nodes' columns
    // are picked by their position in `node/possible`.
    let possible = read_list_opt(root, format!("{NODE_DIR}/possible"))?.unwrap_or_default();
    let columns: Option<Vec<usize>> = nodes
        .iter()
        .map(|n| possible.iter().position(|p| *p == n.id))
        .collect();
    let mut rows: Vec<Option<Vec<u32>>> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let rel = format!("{NODE_DIR}/node{}/distance", n.id);
        let Some(text) = root.read_opt(&rel)? else {
            rows.push(None);
            continue;
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
                        excerpt(&text)
                    ),
                )
            })?;
        let row = match &columns {
            Some(cols) if row.len() != nodes.len() && row.len() == possible.len() => {
                cols.iter().map(|&c| row[c]).collect()
            }
            _ => row,
        };
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
        crate::topology::domain::check_distances(std::slice::from_ref(&row))
            .map_err(|why| malformed(root, &rel, why))?;
        rows.push(Some(row));
    }
    if rows.iter().all(|r| r.is_none()) {
        return Ok(Vec::new());
    }
    if let Some(i) = rows.iter().position(|r| r.is_none()) {
        return Err(missing(
            root,
            format!("{NODE_DIR}/node{}/distance", nodes[i].id),
            "other nodes have a distance row, so the snapshot is incomplete",
        ));
    }
    Ok(rows.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u32) -> Node {
        Node {
            id,
            cpus: vec![],
            memory_total_bytes: 0,
            memory_free_bytes: 0,
            memory_available_bytes: 0,
            has_cpu: false,
            has_memory: false,
            hugepages: vec![],
        }
    }

    #[test]
    fn rows_follow_nodes_and_gaps_are_named() {
        let d = tempfile::tempdir().unwrap();
        let n = d.path().join(NODE_DIR);
        for (id, row) in [(0, "10 20\n"), (3, "20 10\n")] {
            std::fs::create_dir_all(n.join(format!("node{id}"))).unwrap();
            std::fs::write(n.join(format!("node{id}/distance")), row).unwrap();
        }
        let root = SysRoot::snapshot(d.path()).unwrap();
        let m = read_distances(&root, &[node(0), node(3)]).unwrap();
        assert_eq!(m, vec![vec![10, 20], vec![20, 10]]);
        assert!(read_distances(&root, &[node(1)]).unwrap().is_empty());
        let e = read_distances(&root, &[node(0), node(2)]);
        let e = e.unwrap_err().to_string();
        assert!(e.contains("node2/distance is missing"), "{e}");
    }
}
