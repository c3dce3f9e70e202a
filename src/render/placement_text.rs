//! Terminal rendering of a placement check: the page histogram per node beside the share the
//! policy asked for, the huge-page share, and the verdict.

use std::io::{self, Write};

use crate::results::format::format_bytes;
use crate::results::placement::PlacementCheck;

pub fn render(c: &PlacementCheck, out: &mut dyn Write) -> io::Result<()> {
    let r = &c.report;
    writeln!(
        out,
        "Placement of {} ({} pages of 4 KiB, requested page size {}) with policy {}",
        format_bytes(r.size_bytes),
        r.pages,
        r.page_size.label(),
        c.policy
    )?;
    let who = match c.cpu {
        Some(cpu) => format!("a thread pinned to CPU {cpu}"),
        None => "an unpinned thread".into(),
    };
    writeln!(out, "faulted in by {who} (ran on CPU {})", c.ran_on_cpu)?;
    let mut rows = Vec::new();
    let mut nodes: Vec<u32> = r.histogram.iter().map(|h| h.node).collect();
    if let Some(exp) = &c.expected_shares {
        nodes.extend(exp.iter().map(|(n, _)| *n));
    }
    nodes.sort_unstable();
    nodes.dedup();
    for n in nodes {
        let pages = r.pages_on(n);
        let expected = c
            .expected_shares
            .as_ref()
            .and_then(|e| e.iter().find(|(m, _)| *m == n))
            .map(|(_, s)| format!("{:.1}%", s * 100.0))
            .unwrap_or_else(|| "-".into());
        rows.push(vec![
            n.to_string(),
            pages.to_string(),
            format_bytes(pages * 4096),
            format!("{:.1}%", 100.0 * pages as f64 / r.pages.max(1) as f64),
            expected,
        ]);
    }
    if r.not_present > 0 {
        rows.push(vec![
            "absent".into(),
            r.not_present.to_string(),
            format_bytes(r.not_present * 4096),
            String::new(),
            String::new(),
        ]);
    }
    let headers = ["node", "pages", "size", "share", "expected"];
    write!(
        out,
        "{}",
        crate::render::format::width::fit_columns(&headers, &rows)
    )?;
    writeln!(
        out,
        "on intended node(s): {:.2}%   huge pages: {} ({:.1}%)",
        r.fraction_on_intended * 100.0,
        format_bytes(r.huge_bytes),
        r.huge_fraction * 100.0
    )?;
    writeln!(
        out,
        "{}: {}",
        if c.matches { "MATCHES" } else { "DIFFERS" },
        c.verdict
    )?;
    writeln!(out, "same policy for a program: {}", c.numactl)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::placement::Policy;
    use crate::render::format::width::with_width;
    use crate::results::placement::{NodePages, PageSize};
    use crate::results::placement::{PlacementCheck, PlacementReport};

    /// A weighted-interleave placement over three nodes (a synthetic check: 64 MiB
    /// of 4 KiB pages, 3:2:1 as asked but for a few pages), rendered for an 80-column
    /// terminal: every table line fits.
    #[test]
    fn weighted_placement_at_80_columns() {
        let pages = 16384;
        let report = PlacementReport {
            size_bytes: 64 << 20,
            page_size: PageSize::Base,
            pages,
            histogram: vec![
                NodePages {
                    node: 0,
                    pages: 8190,
                },
                NodePages {
                    node: 1,
                    pages: 5462,
                },
                NodePages {
                    node: 2,
                    pages: 2730,
                },
            ],
            not_present: 2,
            intended_nodes: vec![0, 1, 2],
            fraction_on_intended: 16382.0 / 16384.0,
            huge_bytes: 0,
            huge_fraction: 0.0,
        };
        let policy = Policy::WeightedInterleave(vec![(0, 3), (1, 2), (2, 1)]);
        let c = PlacementCheck::new(&policy, Some(2), 2, report);
        let mut out = Vec::new();
        with_width(Some(80), || super::render(&c, &mut out)).unwrap();
        let s = String::from_utf8(out).unwrap();
        for l in s.lines() {
            if l.trim().contains("  ") {
                assert!(l.trim_end().chars().count() <= 80, "wider than 80: {l:?}");
            }
        }
        insta::assert_snapshot!("weighted_placement_80", s);
    }
}
