//! The kernel's per-node NUMA allocation counters (`/sys/devices/system/node/nodeN/numastat`):
//! numa_hit, numa_miss, numa_foreign, interleave_hit, local_node, other_node. They count page
//! allocations, not memory traffic, but they are available everywhere (unlike hardware
//! counters), so numascope records them around measurements and reports their deltas.

use crate::sysroot::{SysError, SysRoot};

use crate::results::traffic::NodeNumaStat;

impl NodeNumaStat {
    /// `self - before`, saturating (counters never go backwards, but snapshots may differ).
    pub fn delta(&self, before: &NodeNumaStat) -> NodeNumaStat {
        NodeNumaStat {
            node: self.node,
            numa_hit: self.numa_hit.saturating_sub(before.numa_hit),
            numa_miss: self.numa_miss.saturating_sub(before.numa_miss),
            numa_foreign: self.numa_foreign.saturating_sub(before.numa_foreign),
            interleave_hit: self.interleave_hit.saturating_sub(before.interleave_hit),
            local_node: self.local_node.saturating_sub(before.local_node),
            other_node: self.other_node.saturating_sub(before.other_node),
        }
    }
}

/// Reads every node's numastat; nodes without the file are skipped.
pub fn read_numastat(root: &SysRoot) -> Result<Vec<NodeNumaStat>, SysError> {
    let dir = "sys/devices/system/node";
    let mut out = Vec::new();
    for n in root.list_numbered(dir, "node")? {
        let rel = format!("{dir}/node{n}/numastat");
        let Some(text) = root.read_opt(&rel)? else {
            continue;
        };
        out.push(parse_numastat(n, &text).map_err(|why| SysError::Malformed {
            path: root.path(&rel),
            why,
        })?);
    }
    Ok(out)
}

/// Parses one numastat file (`name value` lines); unknown names are ignored.
pub fn parse_numastat(node: u32, text: &str) -> Result<NodeNumaStat, String> {
    let mut s = NodeNumaStat {
        node,
        ..Default::default()
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        let (Some(name), Some(value)) = (it.next(), it.next()) else {
            return Err(format!("line `{line}` is not `name value`"));
        };
        let v: u64 = value
            .parse()
            .map_err(|_| format!("`{value}` in line `{line}` is not a number"))?;
        match name {
            "numa_hit" => s.numa_hit = v,
            "numa_miss" => s.numa_miss = v,
            "numa_foreign" => s.numa_foreign = v,
            "interleave_hit" => s.interleave_hit = v,
            "local_node" => s.local_node = v,
            "other_node" => s.other_node = v,
            _ => {}
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_subtracts() {
        let a =
            parse_numastat(1, "numa_hit 10\nnuma_miss 2\nlocal_node 9\nother_node 1\n").unwrap();
        let b =
            parse_numastat(1, "numa_hit 15\nnuma_miss 2\nlocal_node 13\nother_node 2\n").unwrap();
        let d = b.delta(&a);
        assert_eq!((d.numa_hit, d.local_node, d.other_node), (5, 4, 1));
        assert!(parse_numastat(0, "numa_hit x").is_err());
        assert!(!read_numastat(&SysRoot::live()).unwrap().is_empty());
    }
}
