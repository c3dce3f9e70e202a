//! `inspect --system`: the machine's memory per NUMA node, from the kernel's per-node
//! `meminfo` files (what `numastat -m` reads), every line kept in the kernel's order so a new
//! kernel's new lines show without a code change. Reads through the [`SysRoot`], so a snapshot
//! replays it.

use crate::parse::size::parse_meminfo_kb;
use crate::sys::safe_read::excerpt;
use crate::sysroot::{SysError, SysRoot};

use crate::results::inspect::{
    MeminfoField, MeminfoUnit, SystemMemory, SYSTEM_MEMORY_SCHEMA_VERSION,
};

const NODES: &str = "sys/devices/system/node";

/// Parses one `nodeN/meminfo`: lines `Node N Name: value [kB]`. Values with `kB` become
/// bytes, values without a unit are huge page counts (the `HugePages_*` lines).
pub fn parse_node_meminfo(
    node: u32,
    text: &str,
) -> Result<Vec<(String, MeminfoUnit, u64)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| format!("line {} `{}` {what}", i + 1, excerpt(line));
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 4 || words[0] != "Node" || words[1].parse::<u32>() != Ok(node) {
            return Err(bad(&format!("is not `Node {node} Name: value [kB]`")));
        }
        let name = words[2]
            .strip_suffix(':')
            .ok_or_else(|| bad("has no `:` after the name"))?;
        let (unit, value) = match &words[3..] {
            [v, "kB"] => (
                MeminfoUnit::Bytes,
                parse_meminfo_kb(v).ok_or_else(|| bad("does not hold a number"))?,
            ),
            [v] => (
                MeminfoUnit::HugePages,
                v.parse::<u64>()
                    .map_err(|_| bad("does not hold a number"))?,
            ),
            _ => return Err(bad("is not `Node N Name: value [kB]`")),
        };
        out.push((name.to_string(), unit, value));
    }
    Ok(out)
}

/// Reads every node's meminfo into one table: a line missing on some node is 0 there, a line
/// seen first on a later node is placed after the lines already known.
pub fn read_system_memory(root: &SysRoot) -> Result<SystemMemory, SysError> {
    let nodes = root.list_numbered(NODES, "node")?;
    let mut fields: Vec<MeminfoField> = Vec::new();
    let mut kept = Vec::new();
    for &n in &nodes {
        let rel = format!("{NODES}/node{n}/meminfo");
        // A node without a meminfo file (an odd snapshot) has no column.
        let Some(text) = root.read_opt(&rel)? else {
            continue;
        };
        let lines = parse_node_meminfo(n, &text).map_err(|why| SysError::Malformed {
            path: root.path(&rel),
            why,
        })?;
        let col = kept.len();
        kept.push(n);
        for f in &mut fields {
            f.values.push(0);
        }
        for (name, unit, value) in lines {
            match fields.iter_mut().find(|f| f.name == name) {
                Some(f) => f.values[col] = value,
                None => {
                    let mut values = vec![0; col + 1];
                    values[col] = value;
                    fields.push(MeminfoField {
                        name,
                        unit,
                        values,
                        total: 0,
                    });
                }
            }
        }
    }
    for f in &mut fields {
        f.total = f.values.iter().sum();
    }
    let huge_page_bytes = root
        .read_opt("proc/meminfo")?
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("Hugepagesize:"))
                .and_then(parse_meminfo_kb)
        })
        .filter(|&b| b > 0);
    Ok(SystemMemory {
        schema_version: SYSTEM_MEMORY_SCHEMA_VERSION,
        nodes: kept,
        huge_page_bytes,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kb_lines_become_bytes_and_huge_page_lines_counts() {
        let text = "Node 1 MemTotal:       24684092 kB\nNode 1 Active(file):    3005564 kB\nNode 1 HugePages_Free:      3\n";
        let v = parse_node_meminfo(1, text).unwrap();
        assert_eq!(
            v,
            vec![
                ("MemTotal".to_string(), MeminfoUnit::Bytes, 24684092 * 1024),
                (
                    "Active(file)".to_string(),
                    MeminfoUnit::Bytes,
                    3005564 * 1024
                ),
                ("HugePages_Free".to_string(), MeminfoUnit::HugePages, 3),
            ]
        );
        let e = parse_node_meminfo(0, text).unwrap_err();
        assert!(e.contains("Node 0"), "{e}");
        let e = parse_node_meminfo(1, "Node 1 MemFree: lots kB\n").unwrap_err();
        assert!(e.contains("number"), "{e}");
    }

    #[test]
    fn nodes_become_columns_with_totals() {
        let (_tmp, root) = crate::testutil::test_root(&[
            (
                "sys/devices/system/node/node0/meminfo",
                "Node 0 MemTotal: 100 kB\nNode 0 MemFree: 40 kB\n",
            ),
            (
                "sys/devices/system/node/node1/meminfo",
                "Node 1 MemTotal: 200 kB\nNode 1 HugePages_Total: 2\n",
            ),
            ("proc/meminfo", "MemTotal: 300 kB\nHugepagesize: 2048 kB\n"),
        ]);
        let m = read_system_memory(&root).unwrap();
        assert_eq!(m.nodes, vec![0, 1]);
        assert_eq!(m.huge_page_bytes, Some(2 << 20));
        let names: Vec<&str> = m.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, vec!["MemTotal", "MemFree", "HugePages_Total"]);
        assert_eq!(m.fields[0].values, vec![100 * 1024, 200 * 1024]);
        assert_eq!(m.fields[0].total, 300 * 1024);
        assert_eq!(m.fields[1].values, vec![40 * 1024, 0]);
        assert_eq!(m.fields[2].values, vec![0, 2]);
        assert_eq!(m.fields[2].unit, MeminfoUnit::HugePages);
    }
}
