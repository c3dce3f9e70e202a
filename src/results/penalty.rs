//! Remote-memory penalties decided by statistics (item 3). For each initiator node the
//! worst remote memory node is set against the local one, for latency and for bandwidth, and
//! a penalty is stated only when the ratio's 95 % interval lies beyond 1 +- the practical
//! margin ([`PRACTICAL_MARGIN`]); otherwise the finding says the two are indistinguishable here
//! (within +-x %), or that there is no interval (too few samples), and states no percentage as
//! if it were settled.
//!
//! The ratio comes from the best evidence the run holds: the RightMark table's paired ratios
//! (its cells are measured in interleaved rotated rounds, so the host's drift hits local and
//! remote alike; random-latency column for latency, read column for bandwidth), else the
//! latency matrix's paired ratio when its cells were measured in rounds (the same design), else
//! the matrices' summaries through [`unpaired_ratio`], whose interval is conservative because
//! the cells were measured one after the other. A virtual machine's fake nodes (one host memory
//! behind all of them) then read as indistinguishable instead of a confident few-percent
//! "penalty". Pure functions over finished results (here on the floor, like the verdict, so
//! `run` states the findings and the report's headline card shows the same decision); nothing
//! here measures or prints.

use super::quality::RepetitionQuality;
use super::tables::{RatioToLocal, RightmarkMetric, RightmarkReport};
use super::RunResults;
use crate::stats::decide::{unpaired_ratio, Decision, RatioInterval, PRACTICAL_MARGIN};
use crate::stats::Summary;

/// What a penalty is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Idle load latency, ns (lower is better).
    Latency,
    /// Read bandwidth, MB/s (higher is better).
    Bandwidth,
}

impl Quantity {
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Latency => "latency",
            Quantity::Bandwidth => "bandwidth",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Quantity::Latency => "ns",
            Quantity::Bandwidth => "MB/s",
        }
    }

    /// The finding's id (docs/schema/results.md).
    pub fn finding_id(self) -> &'static str {
        match self {
            Quantity::Latency => "remote-latency-penalty",
            Quantity::Bandwidth => "remote-bandwidth-penalty",
        }
    }

    fn lower_is_better(self) -> bool {
        self == Quantity::Latency
    }

    /// The RightMark column measuring it.
    fn column(self) -> RightmarkMetric {
        match self {
            Quantity::Latency => RightmarkMetric::Random,
            Quantity::Bandwidth => RightmarkMetric::Read,
        }
    }

    /// True when remote over local `ratio` is a cost (slower or less bandwidth).
    pub fn is_cost(self, ratio: f64) -> bool {
        if self.lower_is_better() {
            ratio > 1.0
        } else {
            ratio < 1.0
        }
    }
}

/// Where the ratio comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The median of per-round ratios of interleaved rounds (the RightMark table).
    Paired { rounds: usize },
    /// The ratio of two independent medians with the conservative interval (the matrices).
    Unpaired { local_n: usize, remote_n: usize },
}

/// One initiator's worst remote memory node against its local figure, for one quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct RemotePenalty {
    pub quantity: Quantity,
    pub initiator: u32,
    pub memory_node: u32,
    /// Median of the remote figure and of the local one (ns or MB/s).
    pub remote: f64,
    pub local: f64,
    /// Remote over local, with its interval when there is one.
    pub ratio: RatioInterval,
    pub method: Method,
    /// Either figure's repetitions stayed disturbed after the retakes ran out.
    pub disturbed: bool,
}

impl RemotePenalty {
    /// The decision with the practical margin.
    pub fn decision(&self) -> Decision {
        self.ratio.decide(PRACTICAL_MARGIN)
    }
}

/// One matrix cell as the comparison sees it.
#[derive(Clone, Debug, PartialEq)]
struct Cell {
    initiator: u32,
    memory: u32,
    summary: Summary,
    disturbed: bool,
    /// The ratio to the row's reference cell from paired rounds (the latency matrix in rounds).
    paired: Option<RatioToLocal>,
}

fn disturbed(q: Option<&RepetitionQuality>) -> bool {
    q.is_some_and(|q| q.disturbed)
}

fn latency_cells(r: &RunResults) -> Vec<Cell> {
    r.latency
        .as_ref()
        .and_then(|l| l.matrix.as_ref())
        .map(|m| {
            m.cells
                .iter()
                .map(|c| Cell {
                    initiator: c.initiator_node,
                    memory: c.memory_node,
                    summary: c.result.ns_per_load,
                    disturbed: disturbed(c.result.quality.as_ref()),
                    paired: c.measured_ratio_interval,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The bandwidth matrix (its `read` kernel when measured, else its first) with each cell's
/// result summary; else the advisor's bind measurements, which are medians without an
/// interval.
fn bandwidth_cells(r: &RunResults) -> Vec<Cell> {
    if let Some((b, m)) = r.bandwidth.as_ref().and_then(|b| {
        b.matrix
            .iter()
            .find(|m| m.kernel == "read")
            .or_else(|| b.matrix.first())
            .map(|m| (b, m))
    }) {
        return m
            .cells
            .iter()
            .map(|c| {
                let res = b.results.get(c.result_index);
                Cell {
                    initiator: c.initiator,
                    memory: c.target,
                    summary: res.map_or(Summary::point(c.mb_per_s, 1), |x| x.mb_per_s.summary()),
                    disturbed: res.is_some_and(|x| disturbed(x.quality.as_ref())),
                    paired: None,
                }
            })
            .collect();
    }
    r.advisor
        .as_ref()
        .map(|a| {
            a.measured_mb_per_s
                .iter()
                .map(|&(n, mb)| Cell {
                    initiator: a.initiator_node,
                    memory: n,
                    summary: Summary::point(mb, 1),
                    disturbed: false,
                    paired: None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The worst remote cell of `init` against its local cell (its own node's, else its best):
/// by the paired ratio of the rounds when the cell carries one (the latency matrix in rounds,
/// whose row reference is the same cell), else by the unpaired ratio of the medians.
fn from_matrix(cells: &[Cell], init: u32, q: Quantity) -> Option<RemotePenalty> {
    let row: Vec<&Cell> = cells.iter().filter(|c| c.initiator == init).collect();
    let local = row_local(&row, init, q)?;
    let worst = row
        .iter()
        .filter(|c| c.memory != init && c.memory != local.memory)
        .min_by(|a, b| better(q, a, b))
        .copied()?;
    versus(local, worst, init, q)
}

/// Orders two cells from worse to better for `q`.
fn better(q: Quantity, a: &&Cell, b: &&Cell) -> std::cmp::Ordering {
    let o = a.summary.median.total_cmp(&b.summary.median);
    if q.lower_is_better() {
        o.reverse()
    } else {
        o
    }
}

/// The row's local cell: its own node's, else its best.
fn row_local<'a>(row: &[&'a Cell], init: u32, q: Quantity) -> Option<&'a Cell> {
    row.iter()
        .find(|c| c.memory == init)
        .or_else(|| row.iter().max_by(|a, b| better(q, a, b)))
        .copied()
}

/// `cell` against the row's `local` cell: by the paired ratio of the rounds when the cell
/// carries one, else by the unpaired ratio of the medians.
fn versus(local: &Cell, cell: &Cell, init: u32, q: Quantity) -> Option<RemotePenalty> {
    let (ratio, method) = match &cell.paired {
        Some(p) => (p.interval(), Method::Paired { rounds: p.pairs }),
        None => (
            unpaired_ratio(&local.summary, &cell.summary)?,
            Method::Unpaired {
                local_n: local.summary.samples,
                remote_n: cell.summary.samples,
            },
        ),
    };
    Some(RemotePenalty {
        quantity: q,
        initiator: init,
        memory_node: cell.memory,
        remote: cell.summary.median,
        local: local.summary.median,
        ratio,
        method,
        disturbed: local.disturbed || cell.disturbed,
    })
}

/// Every measured matrix cell against its row's local cell (the local cell included, ratio
/// 1), for `q`: what the tiers comparison (results/tiers.rs) sets beside HMAT.
pub fn cell_ratios(r: &RunResults, q: Quantity) -> Vec<RemotePenalty> {
    let cells = match q {
        Quantity::Latency => latency_cells(r),
        Quantity::Bandwidth => bandwidth_cells(r),
    };
    let mut inits: Vec<u32> = cells.iter().map(|c| c.initiator).collect();
    inits.sort_unstable();
    inits.dedup();
    let mut out = Vec::new();
    for init in inits {
        let row: Vec<&Cell> = cells.iter().filter(|c| c.initiator == init).collect();
        let Some(local) = row_local(&row, init, q) else {
            continue;
        };
        out.extend(row.iter().filter_map(|c| versus(local, c, init, q)));
    }
    out
}

/// The worst remote cell of `init`'s RightMark row by its paired ratio to the local cell;
/// `None` when its block fits in a cache (the bandwidth column is then the cache's, and the
/// matrices, sized beyond the caches, speak for memory).
fn from_rightmark(t: &RightmarkReport, init: u32, q: Quantity) -> Option<RemotePenalty> {
    let col = q.column();
    let row = || t.cells.iter().filter(|c| c.cpu_node == init);
    if row().any(|c| c.figure(col).is_some_and(|f| f.cache_level.is_some())) {
        return None;
    }
    let local = row().find(|c| c.local)?.figure(col)?;
    let local_median = local.median()?;
    let worst = t
        .cells
        .iter()
        .filter(|c| c.cpu_node == init && !c.local)
        .filter_map(|c| {
            let f = c.figure(col)?;
            Some((c.memory_node, f, f.ratio_to_local?, f.median()?))
        })
        .max_by(|a, b| {
            let o = a.2.ratio.total_cmp(&b.2.ratio);
            if q.lower_is_better() {
                o
            } else {
                o.reverse()
            }
        })?;
    let (node, fig, ratio, median) = worst;
    Some(RemotePenalty {
        quantity: q,
        initiator: init,
        memory_node: node,
        remote: median,
        local: local_median,
        ratio: ratio.interval(),
        method: Method::Paired {
            rounds: ratio.pairs,
        },
        disturbed: local.disturbed() || fig.disturbed(),
    })
}

/// Every initiator's worst remote penalty, latency then bandwidth, initiators ascending: from
/// the RightMark table when it has the pair, else from the matrices.
pub fn penalties(r: &RunResults) -> Vec<RemotePenalty> {
    let lat = latency_cells(r);
    let bw = bandwidth_cells(r);
    let mut inits: Vec<u32> = lat
        .iter()
        .chain(bw.iter())
        .map(|c| c.initiator)
        .chain(
            r.rightmark
                .iter()
                .flat_map(|t| t.cells.iter().map(|c| c.cpu_node)),
        )
        .collect();
    inits.sort_unstable();
    inits.dedup();
    let mut out = Vec::new();
    for i in inits {
        for (q, cells) in [(Quantity::Latency, &lat), (Quantity::Bandwidth, &bw)] {
            let p = r
                .rightmark
                .as_ref()
                .and_then(|t| from_rightmark(t, i, q))
                .or_else(|| from_matrix(cells, i, q));
            out.extend(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::quality::RepetitionQuality;
    use crate::results::tables::{RightmarkCell, RightmarkFigure, RoundFigure};
    use crate::run::sample;

    /// Nine rounds around `v`, drifting with the host (the same drift for every cell of a
    /// round) and with a noise of their own: +-`own` in turn for a positive `own`, and the
    /// other way round for a negative one (a remote cell against its local cell).
    fn rounds(v: f64, own: f64) -> Vec<f64> {
        let drift = [1.0, 0.9, 1.1, 0.95, 1.15, 0.92, 1.05, 0.97, 1.02];
        let noise = [1.0, -1.0, 0.5, -0.5, 0.0, 0.8, -0.8, 0.3, -0.3];
        drift
            .iter()
            .zip(noise)
            .map(|(d, n)| v * d * (1.0 + own * n))
            .collect()
    }

    fn figure(rounds: Vec<f64>) -> RoundFigure {
        RoundFigure {
            summary: Summary::of(&rounds),
            rounds,
            ..RoundFigure::empty()
        }
    }

    /// A two-node RightMark table, read column and random-latency column, rows measured in the
    /// same rounds: `(cpu node, memory node, MB/s rounds, ns rounds)`.
    fn rightmark(cells: &[(u32, u32, Vec<f64>, Vec<f64>)]) -> RightmarkReport {
        let mut rows: Vec<RightmarkCell> = cells
            .iter()
            .map(|(i, m, bw, ns)| RightmarkCell {
                cpu_node: *i,
                memory_node: *m,
                cpu: *i,
                local: i == m,
                slit_distance: None,
                figures: vec![
                    RightmarkFigure {
                        metric: RightmarkMetric::Read,
                        figure: figure(bw.clone()),
                    },
                    RightmarkFigure {
                        metric: RightmarkMetric::Random,
                        figure: figure(ns.clone()),
                    },
                ],
            })
            .collect();
        let copy = rows.clone();
        for row in rows.iter_mut().filter(|c| !c.local) {
            let local = copy
                .iter()
                .find(|c| c.cpu_node == row.cpu_node && c.local)
                .unwrap();
            for f in &mut row.figures {
                let l = local.figure(f.metric).unwrap();
                f.figure.ratio_to_local = crate::tables::ratio_to_local(l, &f.figure);
            }
        }
        RightmarkReport {
            block_bytes: 16 << 20,
            page_size: "4k".into(),
            rounds: 9,
            bandwidth_repetition_ms: 50,
            latency_samples_per_round: 3,
            latency_min_sample_ns: 1_000_000,
            metrics: vec![RightmarkMetric::Read, RightmarkMetric::Random],
            cells: rows,
            numa_balancing: None,
            environment: sample::opteron_topology().environment,
            warnings: vec![],
        }
    }

    /// The Opteron article's machine measured by RightMark: remote clearly slower (+55 %
    /// latency, -50 % bandwidth) from node 0, the paired interval said with it.
    #[test]
    fn paired_rightmark_ratios_clear_the_margin() {
        let mut r = sample::results();
        r.rightmark = Some(rightmark(&[
            (0, 0, rounds(6286.0, 0.01), rounds(45.6, 0.01)),
            (0, 1, rounds(3116.0, -0.01), rounds(70.9, -0.01)),
        ]));
        let f = crate::run::findings::remote_penalties(&r);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(
            f[0].text,
            "remote memory costs +55 % latency [+53, +58 %] from node 0 (node 1: 70 vs 46 ns local; paired, 9 rounds)"
        );
        assert_eq!(
            f[1].text,
            "remote memory costs -50 % bandwidth [-51, -50 %] from node 0 (node 1: 3085 vs 6349 MB/s local; paired, 9 rounds)"
        );
        // The RightMark table wins over a matrix in the same run.
        r.latency = Some(sample::latency_matrix(&[
            (0, 0, 45.6, None),
            (0, 1, 70.9, None),
        ]));
        r.advisor = Some(sample::advice(0, &[(0, 6286.0), (1, 3116.0)]));
        assert!(crate::run::findings::remote_penalties(&r)[0]
            .text
            .contains("paired, 9 rounds"));
        // A block that fits in a cache: its read column is the cache's, so bandwidth comes
        // from the run's other figures (here the advisor's, which have no interval).
        for c in &mut r.rightmark.as_mut().unwrap().cells {
            c.figures[0].figure.cache_level = Some("L3".into());
        }
        let f = crate::run::findings::remote_penalties(&r);
        assert!(f[0].text.contains("paired, 9 rounds"), "{}", f[0].text);
        assert_eq!(
            f[1].text,
            "remote memory bandwidth from node 0 has no interval (n=1), so no penalty is stated (node 1: 3116 vs 6286 MB/s local)"
        );
    }

    /// A VM's fake nodes: remote and local are one host memory, the rounds differ by their
    /// own noise only. No penalty is claimed.
    #[test]
    fn paired_noise_is_indistinguishable() {
        let mut r = sample::results();
        let mut remote_ns = rounds(100.0, 0.0);
        for (k, v) in remote_ns.iter_mut().enumerate() {
            *v *= if k % 2 == 0 { 1.02 } else { 0.99 };
        }
        r.rightmark = Some(rightmark(&[
            (0, 0, rounds(10_000.0, 0.0), rounds(100.0, 0.0)),
            (0, 1, rounds(10_000.0, 0.015), remote_ns),
        ]));
        let f = crate::run::findings::remote_penalties(&r);
        assert_eq!(
            f[0].text,
            "from node 0, remote and local memory are indistinguishable here in latency (within +-2 %; node 1: 102 vs 100 ns local; paired, 9 rounds)"
        );
        assert!(
            f[1].text.starts_with(
                "from node 0, remote and local memory are indistinguishable here in bandwidth (within +-"
            ),
            "{}",
            f[1].text
        );
        assert!(!f.iter().any(|x| x.text.contains("costs")));
    }

    /// Too few rounds for an interval: the medians are given, no penalty.
    #[test]
    fn paired_without_interval_states_no_penalty() {
        let mut r = sample::results();
        let short = |v: f64| rounds(v, 0.0)[..4].to_vec();
        r.rightmark = Some(rightmark(&[
            (0, 0, short(6286.0), short(45.6)),
            (0, 1, short(3116.0), short(70.9)),
        ]));
        let f = crate::run::findings::remote_penalties(&r);
        assert_eq!(
            f[0].text,
            "remote memory latency from node 0 has no interval (n=4), so no penalty is stated (node 1: 69 vs 44 ns local)"
        );
        assert!(!f[0].text.contains('%'));
    }

    fn matrix_with(cells: &[(u32, u32, Vec<f64>)]) -> crate::results::latency::LatencyReport {
        let mut l = sample::latency_matrix(
            &cells
                .iter()
                .map(|(i, m, v)| (*i, *m, v[0], None))
                .collect::<Vec<_>>(),
        );
        for (c, (_, _, v)) in l.matrix.as_mut().unwrap().cells.iter_mut().zip(cells) {
            c.result.ns_per_load = Summary::of(v).unwrap();
        }
        l
    }

    /// Matrix cells only (measured one after the other): the conservative unpaired interval
    /// decides, in all three cases.
    #[test]
    fn matrix_only_uses_the_unpaired_interval() {
        let tight = |v: f64| -> Vec<f64> { (0..9).map(|k| v * (1.0 + 0.002 * k as f64)).collect() };
        let mut r = sample::results();
        r.latency = Some(matrix_with(&[
            (0, 0, tight(45.6)),
            (0, 1, tight(70.9)),
            (1, 1, tight(45.6)),
            (1, 0, tight(46.0)),
        ]));
        let f = crate::run::findings::remote_penalties(&r);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(
            f[0].text.starts_with("remote memory costs +55 % latency [+54, +57 %] from node 0 (node 1: 71 vs 46 ns local; unpaired medians, n=9 and 9)"),
            "{}",
            f[0].text
        );
        assert!(
            f[1].text.starts_with(
                "from node 1, remote and local memory are indistinguishable here in latency (within +-"
            ),
            "{}",
            f[1].text
        );
        // Two samples a cell: no interval.
        r.latency = Some(matrix_with(&[
            (0, 0, vec![45.0, 46.0]),
            (0, 1, vec![70.0, 72.0]),
        ]));
        assert_eq!(
            crate::run::findings::remote_penalties(&r)[0].text,
            "remote memory latency from node 0 has no interval (n=2), so no penalty is stated (node 1: 71 vs 46 ns local)"
        );
    }

    /// Matrix cells measured in rounds: the paired ratio decides, and the sentence says so.
    /// A remote cell's paired ratio to local over six rounds, its 96.9 % interval [low, high].
    fn paired(ratio: f64, low: f64, high: f64) -> RatioToLocal {
        RatioToLocal {
            ratio,
            ci: Some(crate::stats::Interval {
                low,
                high,
                level: 0.969,
            }),
            pairs: 6,
        }
    }

    #[test]
    fn matrix_in_rounds_uses_the_paired_ratio() {
        let mut r = sample::results();
        let mut l = matrix_with(&[
            (0, 0, vec![45.0, 46.0, 44.0, 45.5, 47.0, 45.2]),
            (0, 1, vec![70.0, 72.0, 69.0, 71.0, 73.0, 70.5]),
        ]);
        let cells = &mut l.matrix.as_mut().unwrap().cells;
        cells[1].measured_ratio_interval = Some(paired(1.56, 1.53, 1.6));
        r.latency = Some(l.clone());
        let f = crate::run::findings::remote_penalties(&r);
        assert!(
            f[0].text.starts_with("remote memory costs +56 % latency [+53, +60 %] from node 0 (node 1: 71 vs 45 ns local; paired, 6 rounds)"),
            "{}",
            f[0].text
        );
        // A paired interval that holds 1: indistinguishable, whatever the medians say.
        let cells = &mut l.matrix.as_mut().unwrap().cells;
        cells[1].measured_ratio_interval = Some(paired(1.01, 0.99, 1.02));
        r.latency = Some(l);
        let f = crate::run::findings::remote_penalties(&r);
        assert!(
            f[0].text.starts_with("from node 0, remote and local memory are indistinguishable here in latency (within +-"),
            "{}",
            f[0].text
        );
        assert!(f[0].text.contains("paired, 6 rounds"), "{}", f[0].text);
    }

    /// A disturbed cell keeps its sentence and says so.
    #[test]
    fn a_disturbed_figure_is_marked() {
        let mut r = sample::results();
        let mut t = rightmark(&[
            (0, 0, rounds(6286.0, 0.01), rounds(45.6, 0.01)),
            (0, 1, rounds(3116.0, -0.01), rounds(70.9, -0.01)),
        ]);
        t.cells[1].figures[1].figure.quality = Some(RepetitionQuality {
            disturbed: true,
            ..RepetitionQuality::default()
        });
        r.rightmark = Some(t);
        let f = crate::run::findings::remote_penalties(&r);
        assert!(
            f[0].text
                .ends_with("; disturbed: a measuring thread did not have its CPU to itself)"),
            "{}",
            f[0].text
        );
        assert!(!f[1].text.contains("disturbed"));
    }
}
