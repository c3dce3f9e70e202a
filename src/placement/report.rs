//! What verification found: a per-node page histogram from `move_pages`, the fraction on the
//! intended nodes, and the huge-page share from `/proc/self/smaps`. Pure data plus the
//! arithmetic that judges it against a policy.

use super::Policy;

use crate::results::placement::PageSize;
use crate::results::placement::{NodePages, PlacementReport};

impl PlacementReport {
    /// A warning when the buffer (`what`, e.g. "the chased buffer") is not backed as its page
    /// size asked: THP refused for most of it, or huge pages slipping into a 4k buffer.
    pub fn backing_warning(&self, what: &str) -> Option<String> {
        let pct = 100.0 * self.huge_fraction;
        match self.page_size {
            PageSize::Base if self.huge_bytes > 0 => Some(format!(
                "{pct:.1} % of {what} is backed by huge pages despite MADV_NOHUGEPAGE (4k pages asked)"
            )),
            PageSize::Thp if self.huge_fraction < 0.9 => Some(format!(
                "transparent huge pages back only {pct:.1} % of {what}; check /sys/kernel/mm/transparent_hugepage/enabled and defrag"
            )),
            _ => None,
        }
    }

    /// Builds the report from move_pages statuses (node id or negative errno per page).
    pub fn from_statuses(
        size_bytes: u64,
        page_size: PageSize,
        statuses: &[i32],
        intended: Vec<u32>,
        huge_bytes: u64,
    ) -> Self {
        let mut hist: std::collections::BTreeMap<u32, u64> = Default::default();
        let mut not_present = 0;
        for &s in statuses {
            if s >= 0 {
                *hist.entry(s as u32).or_default() += 1;
            } else {
                not_present += 1;
            }
        }
        let on: u64 = intended
            .iter()
            .map(|n| hist.get(n).copied().unwrap_or(0))
            .sum();
        let pages = statuses.len() as u64;
        PlacementReport {
            size_bytes,
            page_size,
            pages,
            histogram: hist
                .into_iter()
                .map(|(node, pages)| NodePages { node, pages })
                .collect(),
            not_present,
            intended_nodes: intended,
            fraction_on_intended: if pages == 0 {
                0.0
            } else {
                on as f64 / pages as f64
            },
            huge_bytes,
            huge_fraction: if size_bytes == 0 {
                0.0
            } else {
                (huge_bytes as f64 / size_bytes as f64).min(1.0)
            },
        }
    }

    /// Judges the result against the policy: `(matches, sentence)`. Exact policies must meet
    /// their shares within one allocation unit per node (one page, or one huge page when huge
    /// pages back the buffer) or 1 %, whichever is larger.
    pub fn judge(&self, policy: &Policy) -> (bool, String) {
        if self.not_present > 0 {
            return (
                false,
                format!(
                    "{} of {} pages are not present",
                    self.not_present, self.pages
                ),
            );
        }
        let unit_pages = if self.huge_fraction > 0.0 {
            (2u64 << 20) / 4096
        } else {
            1
        };
        match policy.expected_shares() {
            Some(shares) => {
                let mut worst = String::new();
                let mut ok = true;
                for (node, share) in &shares {
                    let want = share * self.pages as f64;
                    let got = self.pages_on(*node) as f64;
                    let tol = (unit_pages as f64).max(0.01 * self.pages as f64);
                    if (got - want).abs() > tol {
                        ok = false;
                        worst =
                            format!("node {node} holds {got} pages where {want:.0} were expected");
                    }
                }
                if ok {
                    (
                        true,
                        format!("{} as requested: {}", policy.describe(), self.shares_text()),
                    )
                } else {
                    (
                        false,
                        format!(
                            "{} not met: {worst} ({})",
                            policy.describe(),
                            self.shares_text()
                        ),
                    )
                }
            }
            None => {
                let pct = self.fraction_on_intended * 100.0;
                let ok = self.fraction_on_intended >= 0.999;
                let what = match policy {
                    Policy::Preferred(_) | Policy::PreferredMany(_) => {
                        if ok {
                            "all pages on the preferred node(s)".to_string()
                        } else {
                            format!("{pct:.1}% on the preferred node(s); the rest fell back (node full?)")
                        }
                    }
                    _ => format!(
                        "{pct:.1}% of pages on node(s) {}",
                        crate::results::format::format_list(&self.intended_nodes)
                    ),
                };
                (ok, format!("{what}: {}", self.shares_text()))
            }
        }
    }

    /// `node 0: 50.0%, node 1: 50.0%`.
    pub fn shares_text(&self) -> String {
        if self.pages == 0 {
            return "no pages".into();
        }
        self.histogram
            .iter()
            .map(|h| {
                format!(
                    "node {}: {:.1}%",
                    h.node,
                    100.0 * h.pages as f64 / self.pages as f64
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::placement::*;

    #[test]
    fn backing_warnings_name_the_buffer_and_the_share() {
        let r = |page, huge_bytes| {
            PlacementReport::from_statuses(100 * 4096, page, &[0; 100], vec![0], huge_bytes)
        };
        assert_eq!(r(PageSize::Base, 0).backing_warning("the buffer"), None);
        let w = r(PageSize::Base, 40 * 4096)
            .backing_warning("the buffer")
            .unwrap();
        assert!(
            w.starts_with("40.0 % of the buffer is backed by huge pages"),
            "{w}"
        );
        let w = r(PageSize::Thp, 50 * 4096)
            .backing_warning("the chased buffer")
            .unwrap();
        assert!(w.contains("only 50.0 % of the chased buffer"), "{w}");
        assert_eq!(r(PageSize::Thp, 95 * 4096).backing_warning("x"), None);
        assert_eq!(r(PageSize::Huge2M, 0).backing_warning("x"), None);
    }

    #[test]
    fn histogram_and_judgement() {
        let st: Vec<i32> = (0..400).map(|i| if i % 4 == 3 { 1 } else { 0 }).collect();
        let r = PlacementReport::from_statuses(400 * 4096, PageSize::Base, &st, vec![0, 1], 0);
        assert_eq!(r.pages_on(0), 300);
        assert_eq!(r.fraction_on_intended, 1.0);
        assert!(r.judge(&Policy::WeightedInterleave(vec![(0, 3), (1, 1)])).0);
        let (ok, why) = r.judge(&Policy::Interleave(vec![0, 1]));
        assert!(!ok, "{why}");
        let r2 = PlacementReport::from_statuses(4096 * 2, PageSize::Base, &[0, -2], vec![0], 0);
        assert_eq!(r2.not_present, 1);
        assert!(!r2.judge(&Policy::Bind(vec![0])).0);
    }
}
