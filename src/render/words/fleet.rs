//! Why a fleet (or a baseline check) judged nothing, in one sentence: the groups' own
//! reasons, or every figure disturbed or too wide.

use crate::results::fleet::FleetReport;

/// The sentence when no figure of any host could be judged; `None` otherwise.
pub fn nothing_judged(f: &FleetReport) -> Option<String> {
    if !f.nothing_judged() {
        return None;
    }
    let mut why: Vec<String> = f
        .groups
        .iter()
        .filter_map(|g| g.not_judged.clone())
        .collect();
    why.dedup();
    if why.is_empty() {
        why.push(format!(
            "every figure of every host was disturbed or had an interval wider than +-{:.0} %",
            f.max_interval_half_width * 100.0
        ));
    }
    Some(format!(
        "no figure of any host could be judged: {}",
        why.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two hosts are too few to judge: the group's reason is said; without one, every
    /// figure was too wide or disturbed; once a host has a judged figure, nothing is said.
    #[test]
    fn nothing_judged_says_the_groups_reason_or_the_intervals() {
        let runs: Vec<_> = (0..2)
            .map(|i| {
                let mut r = crate::run::sample::results();
                r.host = format!("h{i}");
                (format!("f/h{i}/results.json").into(), r)
            })
            .collect();
        let mut f = crate::fleet::judge(&runs);
        assert!(f.nothing_judged());
        let why = f.groups[0].not_judged.clone().unwrap();
        assert_eq!(
            nothing_judged(&f).unwrap(),
            format!("no figure of any host could be judged: {why}")
        );
        f.groups.iter_mut().for_each(|g| g.not_judged = None);
        assert_eq!(
            nothing_judged(&f).unwrap(),
            "no figure of any host could be judged: every figure of every host was disturbed or had an interval wider than +-10 %"
        );
        f.hosts[0].judged_metrics = 1;
        assert_eq!(nothing_judged(&f), None);
    }
}
