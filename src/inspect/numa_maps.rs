//! Parser of `/proc/PID/numa_maps`: one line per mapping, `ADDRESS POLICY key=value...`, with
//! `N<node>=<pages>` counts in units of `kernelpagesize_kB`.

use crate::results::inspect::{MappingKind, MappingNodes};
impl MappingNodes {
    /// Pages in the mapping's own unit.
    pub fn total_pages(&self) -> u64 {
        self.nodes.iter().map(|(_, p)| p).sum()
    }

    /// (node, pages) converted to 4 KiB units.
    pub fn pages_4k(&self) -> Vec<(u32, u64)> {
        self.nodes
            .iter()
            .map(|&(n, p)| (n, p * self.page_kib / 4))
            .collect()
    }

    /// Total in 4 KiB units.
    pub fn total_pages_4k(&self) -> u64 {
        self.total_pages() * self.page_kib / 4
    }
}

/// Parses numa_maps text; malformed lines are skipped (the file is a kernel format that grows).
pub fn parse_numa_maps(text: &str) -> Vec<MappingNodes> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(address), Some(policy)) = (it.next(), it.next()) else {
            continue;
        };
        let mut m = MappingNodes {
            address: address.into(),
            policy: policy.into(),
            kind: MappingKind::Anon,
            file: None,
            nodes: vec![],
            page_kib: 4,
        };
        let mut heap = false;
        let mut stack = false;
        let mut huge = false;
        for tok in it {
            match tok {
                "heap" => heap = true,
                "stack" => stack = true,
                "huge" => huge = true,
                _ => {
                    if let Some(f) = tok.strip_prefix("file=") {
                        m.file = Some(f.to_string());
                    } else if let Some(k) = tok.strip_prefix("kernelpagesize_kB=") {
                        m.page_kib = k.parse().unwrap_or(4);
                    } else if let Some(rest) = tok.strip_prefix('N') {
                        if let Some((n, p)) = rest.split_once('=') {
                            if let (Ok(n), Ok(p)) = (n.parse(), p.parse()) {
                                m.nodes.push((n, p));
                            }
                        }
                    }
                }
            }
        }
        m.kind = if huge {
            MappingKind::Huge
        } else if heap {
            MappingKind::Heap
        } else if stack {
            MappingKind::Stack
        } else if m.file.is_some() {
            MappingKind::File
        } else {
            MappingKind::Anon
        };
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::inspect::*;

    #[test]
    fn parses_kinds_and_nodes() {
        let text = "\
55d0c0a00000 default file=/usr/bin/cat mapped=5 N0=5 kernelpagesize_kB=4
55d0c1000000 default heap anon=33 dirty=33 N0=30 N1=3 kernelpagesize_kB=4
7f0000000000 bind:2 anon=4096 dirty=4096 N2=4096 kernelpagesize_kB=4
7f1000000000 interleave:0-1 anon=2 dirty=2 N0=1 N1=1 kernelpagesize_kB=2048
7ffd00000000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4
7f2000000000 default file=/dev/hugepages/x huge dirty=1 N0=1 kernelpagesize_kB=2048
garbage
";
        let m = parse_numa_maps(text);
        assert_eq!(m.len(), 6);
        assert_eq!(m[0].kind, MappingKind::File);
        assert_eq!(m[1].kind, MappingKind::Heap);
        assert_eq!(m[1].nodes, vec![(0, 30), (1, 3)]);
        assert_eq!(m[2].policy, "bind:2");
        assert_eq!(m[3].pages_4k(), vec![(0, 512), (1, 512)]);
        assert_eq!(m[4].kind, MappingKind::Stack);
        assert_eq!(m[5].kind, MappingKind::Huge);
    }
}
