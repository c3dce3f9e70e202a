//! The process's allowed CPUs and memory nodes, from `/proc/self/status`
//! (`Cpus_allowed_list`, `Mems_allowed_list`): the intersection of cgroup cpusets, taskset and
//! numactl restrictions that this process inherited. When the file or a line is absent, every
//! present CPU and every node counts as allowed.

use crate::sysroot::{SysError, SysRoot};
use crate::topology::files::{malformed, parse_ids};

/// The allowed lists of /proc/self/status; `None` where the file does not give one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowed {
    pub cpus: Option<Vec<u32>>,
    pub nodes: Option<Vec<u32>>,
}

/// Allowed CPUs and nodes; `None` for a list the status file does not give.
pub fn read_allowed(root: &SysRoot) -> Result<Allowed, SysError> {
    let rel = "proc/self/status";
    let Some(text) = root.read_opt(rel)? else {
        return Ok(Allowed::default());
    };
    let mut cpus = None;
    let mut mems = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match key.trim() {
            "Cpus_allowed_list" => &mut cpus,
            "Mems_allowed_list" => &mut mems,
            _ => continue,
        };
        let list = parse_ids(root, rel.as_ref(), value, false).map_err(|e| {
            let why = match e {
                SysError::Malformed { why, .. } => why,
                other => other.to_string(),
            };
            malformed(root, rel, format!("its `{}` line: {why}", key.trim()))
        })?;
        *slot = Some(list);
    }
    Ok(Allowed { cpus, nodes: mems })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::test_root;

    #[test]
    fn lists_are_read_and_bad_ones_named() {
        let (_d, root) = test_root(&[(
            "proc/self/status",
            "Name:\tx\nCpus_allowed:\tff\nCpus_allowed_list:\t0-3,6\nMems_allowed_list:\t1\n",
        )]);
        let a = read_allowed(&root).unwrap();
        assert_eq!(a.cpus, Some(vec![0, 1, 2, 3, 6]));
        assert_eq!(a.nodes, Some(vec![1]));
        let (_d, root) = test_root(&[("proc/self/status", "Cpus_allowed_list:\t0-\n")]);
        let e = read_allowed(&root).unwrap_err().to_string();
        assert!(
            e.contains("proc/self/status is malformed") && e.contains("Cpus_allowed_list"),
            "{e}"
        );
        let (_d, root) = test_root(&[]);
        assert_eq!(read_allowed(&root).unwrap(), Allowed::default());
    }
}
