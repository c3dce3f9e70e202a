//! Terminal rendering of a c2c result: the home node of the line and its verified placement,
//! then the run view's sections (the CPU x CPU grid of median one-way ns, each pair's
//! interval over its blocks, the groups, the sentence with what the figures mean in a virtual
//! machine), the highest tail and the NUMA counters.

use std::io::{self, Write};

use super::run_view::c2c::C2C_GROUP_KEYS;
use super::run_view::c2c::{c2c_groups_table, c2c_heatmap, c2c_notes, c2c_summary, c2c_table};
use super::{inspect::traffic as traffic_text, view_text};
use crate::results::c2c::{C2cResult, PairResult};

/// Up to this many pairs, each pair's interval gets its own line; beyond, only the widest.
const PAIR_LINES: usize = 12;

/// Each pair's median with its 95 % interval over its blocks (results with blocks only:
/// older files had intervals over back-to-back samples, shown in the groups as before).
fn pair_intervals(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    let Some(blocks) = r.plan.blocks_per_pair else {
        return Ok(());
    };
    let mut t = c2c_table(Some(r)).with_interval_text("ns_one_way", "ns one way");
    let what = if r.pairs.len() <= PAIR_LINES {
        "per pair"
    } else {
        let h = |p: &PairResult| p.ns_one_way.relative_half_width().unwrap_or(0.0);
        let widest = (0..r.pairs.len()).max_by(|&a, &b| h(&r.pairs[a]).total_cmp(&h(&r.pairs[b])));
        t.rows = widest.map(|i| t.rows.swap_remove(i)).into_iter().collect();
        "the widest pair interval"
    };
    writeln!(
        out,
        "{what}: 95 % interval of its block medians, n = its blocks with a median (of {blocks}):"
    )?;
    let keys = [
        "from_cpu",
        "to_cpu",
        "ns_one_way_median",
        "ns_one_way_min",
        "ns_one_way_p90",
    ];
    write!(out, "{}", t.text(&keys))
}

/// The pairs whose blocks fell into two separated groups, when any.
fn unstable(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    let pairs: Vec<String> = r
        .pairs
        .iter()
        .filter(|p| p.unstable.is_some())
        .map(|p| format!("CPU {} -> CPU {}", p.from, p.to))
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "unstable (the pair's blocks fell into two separated groups, see the warning): {}",
        pairs.join(", ")
    )
}

pub fn render(r: &C2cResult, out: &mut dyn Write) -> io::Result<()> {
    for l in c2c_notes(r) {
        writeln!(out, "{l}")?;
    }
    writeln!(out)?;
    if let Some(h) = c2c_heatmap(Some(r)) {
        view_text::grid(out, &h)?;
    }
    unstable(r, out)?;
    pair_intervals(r, out)?;
    writeln!(out)?;
    let groups = c2c_groups_table(Some(r)).with_interval_text("ns_one_way", "ns one way");
    write!(out, "{}", groups.text(C2C_GROUP_KEYS))?;
    if let Some(s) = c2c_summary(r) {
        writeln!(out, "{s}")?;
    }
    let tail = |p: &PairResult| p.ns_one_way_all_samples.unwrap_or(p.ns_one_way);
    let worst = r
        .pairs
        .iter()
        .max_by(|a, b| tail(a).p99.total_cmp(&tail(b).p99));
    if let Some(w) = worst {
        writeln!(
            out,
            "highest p99: CPU {} -> CPU {}: {:.1} ns (median {:.1})",
            w.from,
            w.to,
            tail(w).p99,
            w.ns_one_way.median
        )?;
    }
    traffic_text::render(&r.traffic, out)?;
    let q = crate::render::words::verdict::of_checks(&crate::results::verdict::c2c_checks(r));
    crate::render::words::verdict::write_text(out, Some(&q), &r.warnings, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::c2c::{matrix_of, BlockMedian, Unstable};
    use crate::stats::Summary;

    fn text_of(r: &C2cResult) -> String {
        crate::render::fixture::written(|o| render(r, o))
    }

    /// Without blocks (the Opteron fixture) no pair interval is shown; with blocks each pair's
    /// interval over its blocks is, an unstable pair is named, in a virtual machine the text
    /// says once what the figures describe, and the tail comes from every sample. (The whole
    /// layout is the `core_to_core` snapshot of `render::format::width`.)
    #[test]
    fn blocks_unstable_pairs_the_vm_note_and_warnings() {
        let mut r = crate::render::fixture::opteron_example().c2c.unwrap();
        let text = text_of(&r);
        assert!(!text.contains("block medians"), "{text}");
        assert!(!text.contains("virtual machine"), "{text}");

        r.plan.blocks_per_pair = Some(6);
        r.environment.hypervisor = true;
        r.warnings = vec!["threads were descheduled".into()];
        for p in &mut r.pairs {
            let medians = [40.0, 41.0, 42.0, 40.5, 41.5, 43.0];
            p.blocks = medians
                .iter()
                .enumerate()
                .map(|(i, &ns)| BlockMedian {
                    start_offset_ms: i as f64 * 20.0,
                    ns_one_way_median: Some(ns),
                    samples: 40,
                    disturbed: false,
                })
                .collect();
            p.ns_one_way = crate::c2c::blocks::pair_summary(&p.blocks).unwrap();
            p.ns_one_way_all_samples = Some(Summary::of(&[39.0, 41.0, 250.0]).unwrap());
        }
        r.pairs[1].ns_one_way_all_samples = Some(Summary::of(&[39.0, 41.0, 90.0]).unwrap());
        r.pairs[1].unstable = Some(Unstable {
            low_ns_one_way: 41.0,
            high_ns_one_way: 180.0,
            low_blocks: 3,
            high_blocks: 3,
        });
        r.matrix = matrix_of(&r.cpus, &r.pairs);
        let text = text_of(&r);
        assert!(
            text.contains("each in 6 blocks of 20 ms spread over the experiment"),
            "{text}"
        );
        assert!(
            text.contains(
                "per pair: 95 % interval of its block medians, n = its blocks with a median (of 6):"
            ),
            "{text}"
        );
        let pair = text
            .lines()
            .find(|l| l.starts_with("0 ") && l.contains(" 1 "));
        assert!(pair.unwrap().contains("41.2 [40, 43] n=6"), "{text}");
        let name = |p: &PairResult| format!("CPU {} -> CPU {}", p.from, p.to);
        let unstable = format!(
            "separated groups, see the warning): {}\n",
            name(&r.pairs[1])
        );
        assert!(text.contains(&unstable), "{text}");
        assert_eq!(
            text.matches("In a virtual machine these figures").count(),
            1
        );
        let p99 = format!("highest p99: {}: 250.0 ns", name(&r.pairs[0]));
        assert!(text.contains(&p99), "{text}");
        assert!(text.contains("warning: threads were descheduled"), "{text}");
    }
}
