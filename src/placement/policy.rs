//! The NUMA policies a buffer can be placed with, how users write them, and what share of
//! pages each one should put on each node (the yardstick of verification).

use serde::{Deserialize, Serialize};

use crate::parse::cpulist::parse_user_list;
use crate::results::format::format_list;
use crate::sys::numa::Mode;

/// A placement request. Node lists are ascending and non-empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "nodes")]
pub enum Policy {
    /// The default policy: each page lands on the node of the thread that first writes it.
    FirstTouch,
    /// Only these nodes (MPOL_BIND).
    Bind(Vec<u32>),
    /// This node first, others when it is full (MPOL_PREFERRED).
    Preferred(u32),
    /// These nodes first (MPOL_PREFERRED_MANY, Linux 5.15+).
    PreferredMany(Vec<u32>),
    /// Round robin over these nodes (MPOL_INTERLEAVE).
    Interleave(Vec<u32>),
    /// Round robin in proportion to weights (MPOL_WEIGHTED_INTERLEAVE, Linux 6.9+).
    WeightedInterleave(Vec<(u32, u8)>),
}

impl Policy {
    /// Builds a policy from the CLI words: `--policy NAME --nodes LIST --weights N:W,...`.
    pub fn from_args(
        name: &str,
        nodes: Option<&str>,
        weights: Option<&str>,
        universe: &[u32],
    ) -> Result<Policy, String> {
        let need_nodes = |what: &str| -> Result<Vec<u32>, String> {
            let text = nodes.ok_or_else(|| {
                format!("--policy {what} needs --nodes LIST (e.g. --nodes 0 or --nodes 0-2)")
            })?;
            parse_user_list(text, universe).map_err(|e| format!("--nodes: {e}"))
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "first-touch" | "firsttouch" | "local" | "default" => Ok(Policy::FirstTouch),
            "bind" | "membind" => Ok(Policy::Bind(need_nodes("bind")?)),
            "preferred" => {
                let n = need_nodes("preferred")?;
                if n.len() != 1 {
                    return Err(format!(
                        "--policy preferred takes one node, got `{}`; use --policy preferred-many for several",
                        format_list(&n)
                    ));
                }
                Ok(Policy::Preferred(n[0]))
            }
            "preferred-many" => Ok(Policy::PreferredMany(need_nodes("preferred-many")?)),
            "interleave" => Ok(Policy::Interleave(need_nodes("interleave")?)),
            "weighted" | "weighted-interleave" => {
                let text = weights.ok_or("--policy weighted needs --weights NODE:WEIGHT,... (e.g. --weights 0:3,1:1)")?;
                Ok(Policy::WeightedInterleave(parse_weights(text)?))
            }
            other => Err(format!(
                "`{other}` is not a policy; use one of first-touch, bind, preferred, preferred-many, interleave, weighted"
            )),
        }
    }

    /// The kernel mode and node set this policy maps to (`None` for first touch).
    pub fn mode_and_nodes(&self) -> Option<(Mode, Vec<u32>)> {
        match self {
            Policy::FirstTouch => None,
            Policy::Bind(n) => Some((Mode::Bind, n.clone())),
            Policy::Preferred(n) => Some((Mode::Preferred, vec![*n])),
            Policy::PreferredMany(n) => Some((Mode::PreferredMany, n.clone())),
            Policy::Interleave(n) => Some((Mode::Interleave, n.clone())),
            Policy::WeightedInterleave(w) => Some((
                Mode::WeightedInterleave,
                w.iter().map(|(n, _)| *n).collect(),
            )),
        }
    }

    /// Nodes the policy names (empty for first touch).
    pub fn nodes(&self) -> Vec<u32> {
        self.mode_and_nodes().map(|(_, n)| n).unwrap_or_default()
    }

    /// Short name: `bind`, `interleave`, ...
    pub fn name(&self) -> &'static str {
        match self {
            Policy::FirstTouch => "first-touch",
            Policy::Bind(_) => "bind",
            Policy::Preferred(_) => "preferred",
            Policy::PreferredMany(_) => "preferred-many",
            Policy::Interleave(_) => "interleave",
            Policy::WeightedInterleave(_) => "weighted",
        }
    }

    /// Human form: `bind 0`, `interleave 0-2`, `weighted 0:3,1:1`.
    pub fn describe(&self) -> String {
        match self {
            Policy::FirstTouch => "first-touch".into(),
            Policy::Preferred(n) => format!("preferred {n}"),
            Policy::WeightedInterleave(w) => {
                format!(
                    "weighted {}",
                    w.iter()
                        .map(|(n, w)| format!("{n}:{w}"))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            }
            p => format!("{} {}", p.name(), format_list(&p.nodes())),
        }
    }

    /// The share of pages each node should receive, when the policy determines it exactly.
    /// Preferred policies and first touch depend on free memory and on the faulting CPU, so
    /// they have none here.
    pub fn expected_shares(&self) -> Option<Vec<(u32, f64)>> {
        match self {
            Policy::Bind(n) if n.len() == 1 => Some(vec![(n[0], 1.0)]),
            Policy::Interleave(n) => Some(n.iter().map(|&x| (x, 1.0 / n.len() as f64)).collect()),
            Policy::WeightedInterleave(w) => {
                let total: f64 = w.iter().map(|(_, w)| *w as f64).sum();
                Some(w.iter().map(|&(n, x)| (n, x as f64 / total)).collect())
            }
            _ => None,
        }
    }

    /// The `numactl` options that give this policy to a whole program.
    pub fn numactl_args(&self) -> String {
        match self {
            Policy::FirstTouch => "--localalloc".into(),
            Policy::Bind(n) => format!("--membind={}", format_list(n)),
            Policy::Preferred(n) => format!("--preferred={n}"),
            Policy::PreferredMany(n) => format!("--preferred-many={}", format_list(n)),
            Policy::Interleave(n) => format!("--interleave={}", format_list(n)),
            Policy::WeightedInterleave(w) => {
                let nodes: Vec<u32> = w.iter().map(|(n, _)| *n).collect();
                format!("--weighted-interleave={}", format_list(&nodes))
            }
        }
    }
}

/// Parses `0:3,2:1` into (node, weight) pairs, ascending by node. Weights are 1..=255 as the
/// kernel stores them; their sum must be positive.
pub fn parse_weights(text: &str) -> Result<Vec<(u32, u8)>, String> {
    let mut out: Vec<(u32, u8)> = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let (n, w) = part.split_once(':').ok_or_else(|| {
            format!("--weights: `{part}` is not NODE:WEIGHT; write e.g. `0:3,1:1`")
        })?;
        let node: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("--weights: `{n}` in `{part}` is not a node number"))?;
        let weight: u32 = w
            .trim()
            .parse()
            .map_err(|_| format!("--weights: `{w}` in `{part}` is not a whole-number weight"))?;
        if weight > 255 {
            return Err(format!(
                "--weights: weight {weight} for node {node} is above the kernel's maximum of 255"
            ));
        }
        if out.iter().any(|(m, _)| *m == node) {
            return Err(format!("--weights: node {node} is given twice"));
        }
        out.push((node, weight as u8));
    }
    out.retain(|(_, w)| *w > 0);
    if out.is_empty() {
        return Err(format!(
            "--weights `{text}` sum to zero; give at least one node a positive weight"
        ));
    }
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_policies_from_words() {
        let u = [0, 1, 2];
        assert_eq!(
            Policy::from_args("bind", Some("1"), None, &u).unwrap(),
            Policy::Bind(vec![1])
        );
        assert_eq!(
            Policy::from_args("interleave", Some("all"), None, &u).unwrap(),
            Policy::Interleave(vec![0, 1, 2])
        );
        assert_eq!(
            Policy::from_args("weighted", None, Some("2:1,0:3"), &u).unwrap(),
            Policy::WeightedInterleave(vec![(0, 3), (2, 1)])
        );
        assert!(Policy::from_args("bogus", None, None, &u)
            .unwrap_err()
            .contains("`bogus`"));
        assert!(Policy::from_args("bind", None, None, &u)
            .unwrap_err()
            .contains("--nodes"));
        assert!(Policy::from_args("bind", Some(""), None, &u).is_err());
        assert!(Policy::from_args("preferred", Some("0,1"), None, &u).is_err());
    }

    #[test]
    fn weights_are_checked() {
        assert!(parse_weights("0:0,1:0").unwrap_err().contains("zero"));
        assert!(parse_weights("0:x").is_err());
        assert!(parse_weights("0").is_err());
        assert!(parse_weights("0:300").is_err());
        assert!(parse_weights("0:1,0:2").is_err());
        let s = Policy::WeightedInterleave(vec![(0, 3), (1, 1)])
            .expected_shares()
            .unwrap();
        assert_eq!(s, vec![(0, 0.75), (1, 0.25)]);
    }
}
