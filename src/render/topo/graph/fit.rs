//! Fitting a package's drawing into [`MAX_WIDTH`] columns, as lstopo does for wide machines.
//! In order, the first that fits: the exact drawing (every core a column); the exact drawing
//! cut into blocks, one per box of a row that partitions the cores (a node, an L3), stacked;
//! the cores of each box of a partitioning row collapsed into one column (`8 cores 0-7,64-71`,
//! `8x L2 1 MiB`, finest row first), whole or in blocks; one line per group of the coarsest
//! partitioning row.

use super::{block_lines, Core, Row};
use crate::results::format::format_list;
use crate::results::topology::Topology;

/// The widest line `topo --graph` draws, frame included.
pub const MAX_WIDTH: usize = 100;

/// The package frame around a block (`| ` and ` |`).
const FRAME: usize = 4;

/// The blocks of one package, each a list of lines, every line within [`MAX_WIDTH`].
pub(super) fn blocks(t: &Topology, cores: &[Core], rows: Vec<Row>) -> Vec<Vec<String>> {
    if let Some(b) = chunked(cores.len(), &rows) {
        return b;
    }
    for k in partition_rows(cores.len(), &rows) {
        let collapsed = collapse(t, cores, &rows, k);
        if let Some(b) = chunked(rows[k].len(), &collapsed) {
            return b;
        }
    }
    vec![listing(t, cores, &rows)]
}

fn fits(lines: &[String]) -> bool {
    lines.iter().all(|l| l.chars().count() + FRAME <= MAX_WIDTH)
}

/// The rows (after the first) whose boxes cover every column once, in order.
fn partition_rows(n: usize, rows: &[Row]) -> Vec<usize> {
    (1..rows.len())
        .filter(|&k| {
            let mut next = 0;
            for (a, b, _) in &rows[k] {
                if *a != next || b < a {
                    return false;
                }
                next = b + 1;
            }
            next == n
        })
        .collect()
}

/// The boxes of `rows` inside columns `lo..=hi`, numbered from `lo` = 0.
fn slice(rows: &[Row], lo: usize, hi: usize) -> Vec<Row> {
    rows.iter()
        .map(|r| {
            r.iter()
                .filter(|(a, b, _)| lo <= *a && *b <= hi)
                .map(|(a, b, l)| (a - lo, b - lo, l.clone()))
                .collect::<Row>()
        })
        .filter(|r| !r.is_empty())
        .collect()
}

/// Drawn whole when that fits, else in blocks (one per box of a partitioning row, coarsest
/// first, no box of any row crossing two blocks) when each fits.
fn chunked(n: usize, rows: &[Row]) -> Option<Vec<Vec<String>>> {
    let whole = block_lines(n, rows);
    if fits(&whole) {
        return Some(vec![whole]);
    }
    for k in partition_rows(n, rows).into_iter().rev() {
        let spans: Vec<(usize, usize)> = rows[k].iter().map(|(a, b, _)| (*a, *b)).collect();
        if spans.len() < 2 {
            continue;
        }
        let inside = rows
            .iter()
            .flatten()
            .all(|(a, b, _)| spans.iter().any(|(x, y)| x <= a && b <= y));
        if !inside {
            continue;
        }
        let blocks: Vec<Vec<String>> = spans
            .iter()
            .map(|(x, y)| block_lines(y - x + 1, &slice(rows, *x, *y)))
            .collect();
        if blocks.iter().all(|b| fits(b)) {
            return Some(blocks);
        }
    }
    None
}

/// The values grouped by key, keys in the order first seen.
fn grouped<K: PartialEq, V>(items: impl IntoIterator<Item = (K, V)>) -> Vec<(K, Vec<V>)> {
    let mut out: Vec<(K, Vec<V>)> = Vec::new();
    for (k, v) in items {
        match out.iter_mut().find(|(x, _)| *x == k) {
            Some(e) => e.1.push(v),
            None => out.push((k, vec![v])),
        }
    }
    out
}

/// Labels with their counts: `8x L2 1 MiB`, or each distinct one counted.
fn counted(labels: &[&String]) -> String {
    let distinct = grouped(labels.iter().map(|l| (*l, ())));
    let each = distinct.iter().map(|(l, n)| match n.len() {
        1 => l.to_string(),
        n => format!("{n}x {l}"),
    });
    each.collect::<Vec<_>>().join(" + ")
}

/// One column per box of row `k`: its cores counted with their CPUs, and every row's boxes
/// mapped to the groups they span, identical ones counted.
fn collapse(t: &Topology, cores: &[Core], rows: &[Row], k: usize) -> Vec<Row> {
    let spans: Vec<(usize, usize)> = rows[k].iter().map(|(a, b, _)| (*a, *b)).collect();
    let group = |c: usize| {
        let g = spans.iter().position(|(x, y)| *x <= c && c <= *y);
        g.unwrap_or(0)
    };
    let cores_row = (spans.iter().enumerate()).map(|(g, (x, y))| {
        let mut cpus: Vec<u32> = cores[*x..=*y].iter().flat_map(|c| c.cpus.clone()).collect();
        cpus.sort_unstable();
        let mark = super::mark(cpus.iter().all(|c| t.allowed_cpus.contains(c)));
        let n = y - x + 1;
        let word = if n == 1 { "core" } else { "cores" };
        (g, g, format!("{n} {word} {}{mark}", format_list(&cpus)))
    });
    let boxes = rows[1..].iter().map(|row| {
        let boxes = grouped(row.iter().map(|(a, b, l)| ((group(*a), group(*b)), l)));
        let boxes = boxes.into_iter().map(|((a, b), ls)| (a, b, counted(&ls)));
        boxes.collect::<Row>()
    });
    std::iter::once(cores_row.collect()).chain(boxes).collect()
}

/// Last resort: one line per group of the coarsest partitioning row (or the whole package),
/// each group's collapsed labels, cut at the width.
fn listing(t: &Topology, cores: &[Core], rows: &[Row]) -> Vec<String> {
    let mut rows = rows.to_vec();
    let k = match partition_rows(cores.len(), &rows).last() {
        Some(k) => *k,
        None => {
            rows.push(vec![(0, cores.len().saturating_sub(1), "all cores".into())]);
            rows.len() - 1
        }
    };
    let collapsed = collapse(t, cores, &rows, k);
    let cut = |s: String| crate::render::format::width::cut(&s, MAX_WIDTH - FRAME);
    let mut lines = Vec::new();
    for g in 0..rows[k].len() {
        let parts: Vec<String> = collapsed
            .iter()
            .flat_map(|r| r.iter().filter(|(a, b, _)| *a == g && *b == g))
            .map(|(_, _, l)| l.clone())
            .collect();
        lines.push(cut(parts.join(", ")));
    }
    for r in &collapsed {
        for (a, b, l) in r.iter().filter(|(a, b, _)| a != b) {
            lines.push(cut(format!("{l} (groups {}-{})", a + 1, b + 1)));
        }
    }
    lines
}
