//! Advice lines that run: the `numactl` installed here (found on `PATH`, its options read from
//! its own usage text, its version from `--version` where it has one), and for a placement
//! the command line that numactl accepts, or, when numactl is missing or too old for the
//! policy (Debian 12's numactl 2.0.16 has no `--weighted-interleave`), the kernel-interface
//! way to get the same placement: `set_mempolicy`/`sched_setaffinity` before `exec`, and the
//! weights in `/sys/kernel/mm/mempolicy/weighted_interleave/nodeN`. Used by `numascope app`
//! and by the run's weighted-interleave advice, so every line either runs or is plainly
//! prose. It never runs a program under numactl; it only asks numactl about itself.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::placement::Policy;
use crate::results::app::{HowTo, Numactl as Installed};
use crate::results::format::format_list;

impl Installed {
    /// Looks for `numactl` on `PATH` and asks it for its usage text and version.
    pub fn find() -> Installed {
        let Some(path) = which("numactl") else {
            return Installed::default();
        };
        let ask = |arg: &str| -> String {
            Command::new(&path)
                .arg(arg)
                .stdin(Stdio::null())
                .output()
                .map(|o| {
                    let mut t = String::from_utf8_lossy(&o.stdout).into_owned();
                    t.push_str(&String::from_utf8_lossy(&o.stderr));
                    t
                })
                .unwrap_or_default()
        };
        // numactl prints its usage (with every option) for an option it does not know.
        let usage = ask("--help");
        let version = parse_version(&ask("--version"));
        Installed {
            path: Some(path),
            version,
            options: parse_usage(&usage),
        }
    }

    /// True when the installed numactl lists `option` (e.g. `--weighted-interleave`).
    pub fn accepts(&self, option: &str) -> bool {
        self.options.iter().any(|o| o == option)
    }

    /// `numactl 2.0.16` / `numactl (version unknown)` / `no numactl`.
    pub fn describe(&self) -> String {
        match (&self.path, &self.version) {
            (None, _) => "no numactl on PATH".into(),
            (Some(_), Some(v)) => format!("numactl {v}"),
            (Some(p), None) => format!("{} (version not reported)", p.display()),
        }
    }

    /// The numactl line for a placement, or, when numactl cannot give it here, a shell
    /// comment (`# ...`) saying why and giving the kernel-interface way: a line that either
    /// runs or is plainly prose.
    pub fn line_or_comment(&self, policy: &Policy, cpus: Option<&[u32]>, program: &str) -> String {
        let h = self.how_to(policy, cpus, program);
        match h.command {
            Some(c) => c,
            None => format!(
                "# no numactl line: {}; instead: {}",
                h.why_not.unwrap_or_default(),
                h.kernel_way
            ),
        }
    }

    /// How to run `program` with its memory under `policy` and its threads on `cpus` (`None`:
    /// anywhere): the numactl line when the installed numactl has every option it needs,
    /// and the kernel way always.
    pub fn how_to(&self, policy: &Policy, cpus: Option<&[u32]>, program: &str) -> HowTo {
        let kernel_way = kernel_way(policy, cpus);
        // (the argument, the option numactl must know for it)
        let mut opts: Vec<(String, String)> = Vec::new();
        if let Some(c) = cpus {
            opts.push((
                format!("--physcpubind={}", format_list(c)),
                "--physcpubind".into(),
            ));
        }
        if *policy != Policy::FirstTouch {
            let a = policy.numactl_args();
            let name = a.split('=').next().unwrap_or_default().to_string();
            opts.push((a, name));
        }
        if opts.is_empty() {
            return HowTo {
                command: Some(program.to_string()),
                why_not: None,
                kernel_way,
            };
        }
        if self.path.is_none() {
            return HowTo {
                command: None,
                why_not: Some(
                    "numactl is not installed here (Debian/Ubuntu: apt install numactl)".into(),
                ),
                kernel_way,
            };
        }
        if let Some((_, missing)) = opts.iter().find(|(_, o)| !self.accepts(o)) {
            return HowTo {
                command: None,
                why_not: Some(format!(
                    "{} has no {missing} (added in a later numactl release)",
                    self.describe()
                )),
                kernel_way,
            };
        }
        let args: Vec<String> = opts.into_iter().map(|(a, _)| a).collect();
        HowTo {
            command: Some(format!("numactl {} {program}", args.join(" "))),
            why_not: None,
            kernel_way,
        }
    }
}

/// The kernel interface for a placement, as one sentence of prose.
pub fn kernel_way(policy: &Policy, cpus: Option<&[u32]>) -> String {
    let mode = match policy {
        Policy::FirstTouch => None,
        Policy::Bind(_) => Some("MPOL_BIND"),
        Policy::Preferred(_) => Some("MPOL_PREFERRED"),
        Policy::PreferredMany(_) => Some("MPOL_PREFERRED_MANY"),
        Policy::Interleave(_) => Some("MPOL_INTERLEAVE"),
        Policy::WeightedInterleave(_) => Some("MPOL_WEIGHTED_INTERLEAVE"),
    };
    let mut steps = Vec::new();
    if let Some(m) = mode {
        steps.push(format!(
            "set_mempolicy({m}, nodes {})",
            format_list(&policy.nodes())
        ));
    }
    if let Some(c) = cpus {
        steps.push(format!("sched_setaffinity(CPUs {})", format_list(c)));
    }
    let mut s = if steps.is_empty() {
        "nothing to set: the kernel's default policy (first touch) with the threads anywhere"
            .to_string()
    } else {
        format!(
            "{} in the program (or a launcher) before it allocates, inherited across exec",
            steps.join(" and ")
        )
    };
    if let Policy::WeightedInterleave(w) = policy {
        let weights: Vec<String> = w
            .iter()
            .map(|(n, x)| format!("{x} in /sys/kernel/mm/mempolicy/weighted_interleave/node{n}"))
            .collect();
        s.push_str(&format!(
            "; the weights are system-wide (as root: {})",
            weights.join(", ")
        ));
    }
    s
}

/// The long options a numactl usage text names (`--membind=` gives `--membind`).
pub fn parse_usage(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if let Some(name) = tok.strip_prefix("--") {
            if !name.is_empty() && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                let o = format!("--{name}");
                if !out.contains(&o) {
                    out.push(o);
                }
            }
        }
    }
    out
}

/// The version in `numactl --version` output (`numactl 2.0.19` gives `2.0.19`); `None` when
/// numactl refused the option (releases before it had one).
pub fn parse_version(text: &str) -> Option<String> {
    if text.contains("unrecognized") || text.contains("usage:") {
        return None;
    }
    text.split_whitespace()
        .map(|t| t.trim_start_matches('v'))
        .find(|t| {
            t.split('.').count() >= 2
                && t.split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
}

/// `name` on `PATH`: the first executable file of that name.
fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p: &PathBuf| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// A command line as a shell reads it: arguments with shell characters single-quoted.
pub fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options part of numactl 2.0.16's usage text (Debian 12).
    const USAGE_2_0_16: &str = "numactl: unrecognized option '--help'
usage: numactl [--all | -a] [--balancing | -b] [--interleave= | -i <nodes>]
		[--preferred= | -p <node>] [--preferred-many= | -P <nodes>]
               [--physcpubind= | -C <cpus>] [--cpunodebind= | -N <nodes>]
               [--membind= | -m <nodes>] [--localalloc | -l] command args ...";

    fn debian12() -> Installed {
        Installed {
            path: Some("/usr/bin/numactl".into()),
            version: parse_version("numactl: unrecognized option '--version'\nusage: numactl"),
            options: parse_usage(USAGE_2_0_16),
        }
    }

    #[test]
    fn old_numactl_gets_no_weighted_line_but_the_kernel_way() {
        let n = debian12();
        assert_eq!(n.version, None);
        assert!(n.accepts("--membind") && n.accepts("--preferred-many"));
        assert!(!n.accepts("--weighted-interleave"));
        let h = n.how_to(
            &Policy::WeightedInterleave(vec![(0, 3), (1, 1)]),
            None,
            "APP",
        );
        assert_eq!(h.command, None);
        assert!(h.why_not.unwrap().contains("no --weighted-interleave"));
        assert!(
            h.kernel_way.contains("MPOL_WEIGHTED_INTERLEAVE")
                && h.kernel_way
                    .contains("3 in /sys/kernel/mm/mempolicy/weighted_interleave/node0"),
            "{}",
            h.kernel_way
        );
        let h = n.how_to(&Policy::Bind(vec![1]), Some(&[2, 3]), "./prog -x");
        assert_eq!(
            h.command.as_deref(),
            Some("numactl --physcpubind=2-3 --membind=1 ./prog -x")
        );
        let h = n.how_to(&Policy::FirstTouch, None, "./prog");
        assert_eq!(h.command.as_deref(), Some("./prog"));
    }

    #[test]
    fn new_numactl_and_no_numactl() {
        let mut n = debian12();
        n.options.push("--weighted-interleave".into());
        n.version = parse_version("numactl 2.0.19\n");
        assert_eq!(n.describe(), "numactl 2.0.19");
        let h = n.how_to(
            &Policy::WeightedInterleave(vec![(0, 3), (1, 1)]),
            None,
            "APP",
        );
        assert_eq!(
            h.command.as_deref(),
            Some("numactl --weighted-interleave=0-1 APP")
        );
        let none = Installed::default();
        let h = none.how_to(&Policy::Interleave(vec![0, 1]), None, "APP");
        assert!(h.command.is_none() && h.why_not.unwrap().contains("not installed"));
        assert!(h
            .kernel_way
            .starts_with("set_mempolicy(MPOL_INTERLEAVE, nodes 0-1)"));
    }

    #[test]
    fn shell_lines_quote_what_the_shell_would_split() {
        let argv: Vec<String> = ["./a", "x y", "it's", "--n=3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(shell_line(&argv), r"./a 'x y' 'it'\''s' --n=3");
    }
}
