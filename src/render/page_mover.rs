//! The kernel's page movers (`results::environment_tiering::PageMover`: NUMA balancing,
//! tiering promotion, demotion, a DAMON scheme on physical memory) in words, for the
//! environment warnings and the run's findings.

use crate::results::environment_tiering::PageMover;

/// One sentence: what the mover does to a measurement's pages.
pub fn sentence(m: &PageMover) -> String {
    match m {
        PageMover::NumaBalancing => "NUMA balancing (mode 1) migrates pages toward the threads that touch them".into(),
        PageMover::TieringPromotion => "NUMA balancing's memory-tiering mode (2) promotes hot pages from a slower tier to a faster one".into(),
        PageMover::Demotion => "demotion_enabled is true: memory reclaim moves cold pages to a slower tier instead of dropping them".into(),
        PageMover::DamonScheme { kdamond, context, scheme, action } => format!(
            "DAMON kdamond.{kdamond} runs a `{action}` scheme (contexts/{context}/schemes/{scheme}) on physical memory: it can {} any process's pages, a measurement's included",
            if action == "pageout" { "reclaim" } else { "migrate" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damon_scheme_names_its_daemon_and_what_it_does() {
        let m = |action: &str| PageMover::DamonScheme {
            kdamond: 0,
            context: 1,
            scheme: 2,
            action: action.into(),
        };
        let s = sentence(&m("pageout"));
        assert!(
            s.contains("kdamond.0 runs a `pageout` scheme (contexts/1/schemes/2)"),
            "{s}"
        );
        assert!(s.contains("reclaim"), "{s}");
        assert!(sentence(&m("migrate_cold")).contains("it can migrate"));
        assert!(sentence(&PageMover::Demotion).starts_with("demotion_enabled is true"));
    }
}
