//! Where each thread of a process ran last: field 39 (`processor`) of `/proc/PID/task/TID/stat`,
//! mapped to its node.

use crate::results::inspect::ThreadPlace;
use crate::results::topology::Topology;
use crate::sysroot::{SysError, SysRoot};

/// Reads every thread of `pid`; threads that exit meanwhile are skipped.
pub fn read_threads(
    root: &SysRoot,
    topo: &Topology,
    pid: u32,
) -> Result<Vec<ThreadPlace>, SysError> {
    let dir = format!("proc/{pid}/task");
    let mut out = Vec::new();
    for tid in root
        .list(&dir)?
        .iter()
        .filter_map(|t| t.parse::<u32>().ok())
    {
        let Some(stat) = root.read_opt(format!("{dir}/{tid}/stat"))? else {
            continue;
        };
        let (name, state, cpu) = parse_stat_processor(&stat);
        out.push(ThreadPlace {
            tid,
            name,
            cpu,
            node: cpu.and_then(|c| topo.node_of_cpu(c)),
            state,
        });
    }
    out.sort_by_key(|t| t.tid);
    Ok(out)
}

/// From a stat line: (comm, state, processor). The comm may hold spaces and parentheses, so
/// fields are counted after the last `)`.
pub fn parse_stat_processor(stat: &str) -> (String, String, Option<u32>) {
    let open = stat.find('(');
    let close = stat.rfind(')');
    let (name, rest) = match (open, close) {
        (Some(o), Some(c)) if c > o => (stat[o + 1..c].to_string(), &stat[c + 1..]),
        _ => (String::new(), stat),
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the comm, field 3 (state) is index 0, so field 39 (processor) is index 36.
    let state = fields.first().map(|s| s.to_string()).unwrap_or_default();
    let cpu = fields.get(36).and_then(|v| v.parse().ok());
    (name, state, cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_field_survives_odd_names() {
        let mut fields = vec!["S".to_string()];
        fields.extend((4..=52).map(|i| {
            if i == 39 {
                "7".to_string()
            } else {
                "0".to_string()
            }
        }));
        let line = format!("123 (my (odd) name) {}", fields.join(" "));
        let (name, state, cpu) = parse_stat_processor(&line);
        assert_eq!(name, "my (odd) name");
        assert_eq!(state, "S");
        assert_eq!(cpu, Some(7));
    }
}
