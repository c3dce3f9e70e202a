//! Which processes `inspect` looks at: PIDs as given, and names resolved as `pgrep` does
//! (the kernel's `comm`, an exact match first, else a part of it), so `numascope inspect
//! postgres` works without a `pidof`. A name that fits several processes is refused with the
//! list, rather than guessed.

use crate::sysroot::SysRoot;

use super::InspectError;

/// `comm` is cut by the kernel to this many bytes (TASK_COMM_LEN - 1).
const COMM_LEN: usize = 15;

/// How many matches an ambiguous name lists.
const SHOWN_MATCHES: usize = 10;

/// Every process of the root with its `comm`, skipping processes that exit while listed and
/// ones whose `comm` cannot be read.
fn processes(root: &SysRoot) -> Result<Vec<(u32, String)>, InspectError> {
    let mut out = Vec::new();
    for entry in root.list("proc")? {
        let Ok(pid) = entry.parse::<u32>() else {
            continue;
        };
        if let Ok(Some(comm)) = root.read_opt(format!("proc/{pid}/comm")) {
            out.push((pid, comm.trim_end_matches('\n').to_string()));
        }
    }
    Ok(out)
}

/// The PIDs of `name` among `procs`, leaving out `own` (numascope itself): the exact matches
/// of `comm` (a name longer than the kernel keeps compares its first 15 bytes), else the
/// processes whose `comm` contains it.
pub fn match_name(procs: &[(u32, String)], name: &str, own: u32) -> Vec<(u32, String)> {
    let cut = if name.len() > COMM_LEN && name.is_char_boundary(COMM_LEN) {
        &name[..COMM_LEN]
    } else {
        name
    };
    let others = procs.iter().filter(|(p, _)| *p != own);
    let exact: Vec<(u32, String)> = others.clone().filter(|(_, c)| c == cut).cloned().collect();
    if !exact.is_empty() {
        return exact;
    }
    others.filter(|(_, c)| c.contains(name)).cloned().collect()
}

/// Resolves the command line's targets, in order and without repeats: a number is a PID, any
/// other word a process name that must fit exactly one process.
pub fn resolve(root: &SysRoot, targets: &[String], own: u32) -> Result<Vec<u32>, InspectError> {
    let mut pids: Vec<u32> = Vec::new();
    let mut procs = None;
    for t in targets {
        let pid = match t.parse::<u32>() {
            Ok(p) => p,
            Err(_) if t.chars().all(|c| c.is_ascii_digit()) => {
                return Err(InspectError::BadTarget(format!(
                    "`{t}` is too large to be a PID (max {})",
                    u32::MAX
                )))
            }
            Err(_) if t.is_empty() => {
                return Err(InspectError::BadTarget(
                    "an empty process name fits every process; give a PID or a name".into(),
                ))
            }
            Err(_) => {
                if procs.is_none() {
                    procs = Some(processes(root)?);
                }
                let all = procs.as_deref().unwrap_or(&[]);
                match match_name(all, t, own).as_slice() {
                    [] => {
                        return Err(InspectError::BadTarget(format!(
                            "no process is named `{t}` (nor has it in its name); check the name with `ps -e`"
                        )))
                    }
                    [(p, _)] => *p,
                    many => {
                        let shown: Vec<String> = many
                            .iter()
                            .take(SHOWN_MATCHES)
                            .map(|(p, c)| format!("{p} ({c})"))
                            .collect();
                        let more = if many.len() > SHOWN_MATCHES {
                            format!(" and {} more", many.len() - SHOWN_MATCHES)
                        } else {
                            String::new()
                        };
                        return Err(InspectError::BadTarget(format!(
                            "`{t}` fits {} processes: {}{more}; give the PID (or several PIDs) instead",
                            many.len(),
                            shown.join(", ")
                        )));
                    }
                }
            }
        };
        if !pids.contains(&pid) {
            pids.push(pid);
        }
    }
    Ok(pids)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn procs() -> Vec<(u32, String)> {
        vec![
            (1, "systemd".into()),
            (40, "postgres".into()),
            (41, "postgres".into()),
            (50, "sshd".into()),
            (60, "numascope".into()),
            (70, "my-very-long-pr".into()),
        ]
    }

    #[test]
    fn exact_names_win_over_parts_and_numascope_leaves_itself_out() {
        assert_eq!(match_name(&procs(), "sshd", 60), vec![(50, "sshd".into())]);
        assert_eq!(match_name(&procs(), "ssh", 60), vec![(50, "sshd".into())]);
        assert_eq!(match_name(&procs(), "postgres", 60).len(), 2);
        assert!(match_name(&procs(), "numascope", 60).is_empty());
        assert_eq!(
            match_name(&procs(), "my-very-long-process", 60),
            vec![(70, "my-very-long-pr".into())]
        );
        assert!(match_name(&procs(), "nginx", 60).is_empty());
    }

    #[test]
    fn targets_resolve_in_order_without_repeats_and_ambiguity_lists_the_matches() {
        let (_tmp, root) = crate::testutil::test_root(&[
            ("proc/40/comm", "postgres\n"),
            ("proc/41/comm", "postgres\n"),
            ("proc/50/comm", "sshd\n"),
        ]);
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            resolve(&root, &t(&["7", "sshd", "7"]), 1).unwrap(),
            vec![7, 50]
        );
        let e = resolve(&root, &t(&["postgres"]), 1)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "`postgres` fits 2 processes: 40 (postgres), 41 (postgres); give the PID (or several PIDs) instead"
        );
        let e = resolve(&root, &t(&["nginx"]), 1).unwrap_err().to_string();
        assert!(e.contains("no process is named `nginx`"), "{e}");
        let e = resolve(&root, &t(&["99999999999"]), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("too large"), "{e}");
    }
}
