use std::time::Duration;

use super::*;
use crate::latency::blocks::tests::plan;
use crate::latency::measure::Measurement;
use crate::latency::measure::Samples;
use crate::latency::sweep::{Block, Point};
use crate::results::latency::Mode;
use crate::results::latency::Placement;
use crate::results::latency::PointBlocks;
use crate::results::topology::HmatTarget;
use crate::stats::Summary;

fn result(ns: f64) -> LatencyResult {
    let m = Measurement {
        samples_ns: vec![ns],
        ns_per_load: Summary::of(&[ns]).unwrap(),
        loads_per_sample: 16,
        quality: None,
        precision: None,
        blocks: None,
    };
    let spec = ChainSpec {
        mode: Mode::Random,
        chains: 1,
        element_bytes: 64,
        group_bytes: 4096,
        seed: 1,
    };
    let place = Placement {
        page_size: PageSize::Base,
        cpu: 0,
        memory_node: Some(0),
        placement_fraction: Some(1.0),
        huge_fraction: Some(0.0),
    };
    let clock = ClockInfo {
        resolution_ns: 20.0,
        read_cost_ns: 20.0,
        tsc_hz: None,
        tsc_source: String::new(),
        core_hz_estimate: None,
        core_hz_source: String::new(),
    };
    LatencyResult::new(&spec, 1 << 28, &place, &m, &SamplePlan::default(), &clock)
}

#[test]
fn ratios_against_local_and_firmware() {
    // Two CPU nodes (0, 1) and a memory-only node 2; SLIT 10/21/30.
    let mut topo = crate::testutil::this_machine_one_node();
    let mut n1 = topo.nodes[0].clone();
    n1.id = 1;
    let mut n2 = topo.nodes[0].clone();
    n2.id = 2;
    n2.cpus.clear();
    n2.has_cpu = false;
    topo.nodes.push(n1);
    topo.nodes.push(n2);
    topo.distances = vec![vec![10, 21, 30], vec![21, 10, 30], vec![30, 30, 10]];
    topo.hmat.push(HmatTarget {
        node: 2,
        access_class: 0,
        initiators: vec![0, 1],
        read_latency_ns: Some(250),
        write_latency_ns: None,
        read_bandwidth_mb_s: None,
        write_bandwidth_mb_s: None,
    });
    let cells = cells(
        &topo,
        vec![
            (0, 0, result(100.0)),
            (0, 1, result(160.0)),
            (0, 2, result(300.0)),
        ],
    );
    assert_eq!(cells[0].measured_ratio, Some(1.0));
    assert_eq!(cells[1].measured_ratio, Some(1.6));
    assert_eq!(cells[1].slit_ratio, Some(2.1));
    assert!((cells[1].measured_over_slit.unwrap() - 1.6 / 2.1).abs() < 1e-12);
    assert_eq!(cells[2].hmat_read_latency_ns, Some(250));
    assert_eq!(cells[2].measured_over_hmat, Some(1.2));
    assert_eq!(cells[0].hmat_read_latency_ns, None);
}

#[test]
fn row_without_local_memory_uses_its_fastest_cell() {
    let topo = crate::testutil::this_machine_one_node();
    let c = cells(&topo, vec![(5, 0, result(80.0)), (5, 1, result(120.0))]);
    assert_eq!(c[0].measured_ratio, Some(1.0));
    assert_eq!(c[1].measured_ratio, Some(1.5));
}

/// A result measured in rounds: its figure over `medians`, one block per round.
fn rounds_result(medians: &[f64]) -> LatencyResult {
    let mut r = result(crate::stats::median(medians));
    r.ns_per_load = Summary::of(medians).unwrap();
    r.blocks = Some(PointBlocks {
        blocks: medians.len(),
        samples_per_block: 3,
        min_sample_ns: 250_000,
        block_medians_ns: medians.to_vec(),
        all_samples: Summary::of(medians).unwrap(),
    });
    r
}

/// The plan's sampling time per cell is spread over nine rounds when blocks of three
/// samples of at least 0.25 ms fit, else six; about the time cell by cell took.
#[test]
fn the_samples_of_a_cell_are_spread_over_the_rounds() {
    let quick = round_plan(&plan(7, 1.0));
    assert_eq!((quick.rounds, quick.per_round, quick.warmup), (9, 3, 1));
    assert_eq!(quick.sample_ns, 7_000_000 / 27);
    let default = round_plan(&plan(9, 2.0));
    assert_eq!((default.rounds, default.per_round), (9, 3));
    assert_eq!(default.sample_ns, 18_000_000 / 27);
    let standalone = round_plan(&plan(25, 2.0));
    assert_eq!((standalone.rounds, standalone.per_round), (9, 3));
    assert_eq!(standalone.sample_ns, 50_000_000 / 27);
    // Too little time for nine rounds of blocks above the floor: six.
    let short = round_plan(&plan(4, 1.0));
    assert_eq!((short.rounds, short.per_round), (6, 3));
    assert_eq!(short.sample_ns, MIN_BLOCK_SAMPLE_NS);
    // Never longer samples than the plan's; a plan of shorter samples keeps them.
    assert_eq!(round_plan(&plan(100, 0.1)).sample_ns, 100_000);
    assert_eq!(round_plan(&plan(100, 0.1)).rounds, 9);
    // No warm-up asked for: none per block.
    let mut p = plan(9, 2.0);
    p.warmup = 0;
    assert_eq!(round_plan(&p).warmup, 0);
    // The timed part stays about the plan's: within 15 % of samples x length.
    for pl in [plan(7, 1.0), plan(9, 2.0), plan(25, 2.0)] {
        let rp = round_plan(&pl);
        let rounds_ns = (rp.rounds * rp.per_round) as f64 * rp.sample_ns as f64;
        let before = pl.samples as f64 * pl.min_sample_ns as f64;
        assert!((rounds_ns / before - 1.0).abs() < 0.15, "{pl:?}: {rp:?}");
    }
}

#[test]
fn buffers_fit_in_half_the_free_memory_of_their_nodes() {
    let topo = crate::testutil::this_machine_one_node();
    let free = topo.available_on(topo.node(0).unwrap());
    assert!(free > 0);
    assert!(buffers_fit(&topo, &[0], free / 2));
    assert!(!buffers_fit(&topo, &[0], free / 2 + 4096));
    // A node of unknown free memory does not stop the rounds.
    assert!(buffers_fit(&topo, &[7], u64::MAX));
}

/// A synthetic block of three samples around `v`, 1 ms long.
fn block(v: f64) -> Block {
    Block {
        samples: Samples {
            samples_ns: vec![v * 0.99, v, v * 1.01],
            quality: None,
            precision: None,
        },
        iterations: 10,
        elapsed: Duration::from_millis(1),
    }
}

/// Every round measures every cell once, the start rotating; each cell's blocks are its
/// rounds in order; progress counts cells.
#[test]
fn rounds_visit_every_cell_once_in_rotating_order() {
    let mut log = Vec::new();
    let mut seen = Vec::new();
    let (points, sched) = in_rounds::<()>(
        3,
        6,
        None,
        |i| {
            let r = log.len() / 3;
            log.push(i);
            Ok(Some(block(100.0 * (i + 1) as f64 + r as f64)))
        },
        |d, n| seen.push((d, n)),
    )
    .unwrap();
    assert_eq!(
        sched,
        Schedule {
            rounds: 6,
            extra: 0,
            stopped: false
        }
    );
    assert_eq!(&log[..9], &[0, 1, 2, 1, 2, 0, 2, 0, 1]);
    for (i, pt) in points.iter().enumerate() {
        assert_eq!(pt.blocks.len(), 6);
        assert_eq!(pt.extra, 0);
        // Block r of cell i is round r's.
        let medians = crate::latency::blocks::medians(&pt.blocks);
        let want: Vec<f64> = (0..6).map(|r| 100.0 * (i + 1) as f64 + r as f64).collect();
        assert_eq!(medians, want);
    }
    assert_eq!(seen.last(), Some(&(3, 3)));
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
}

/// Toward a goal, whole rounds are added while one cell's interval is wider than the
/// target (every cell gets them, so pairs stay aligned), at most as many as planned; a
/// tight matrix takes none.
#[test]
fn extra_rounds_are_whole_rounds_while_an_interval_is_wide() {
    let goal = PrecisionGoal::count_bounded(0.03);
    // Cell 1 alternates 100 / 140 from round to round: wide whatever the rounds.
    let mut k = 0usize;
    let (points, sched) = in_rounds::<()>(
        2,
        6,
        Some(&goal),
        |i| {
            let v = if i == 1 {
                k += 1;
                if k.is_multiple_of(2) {
                    140.0
                } else {
                    100.0
                }
            } else {
                100.0
            };
            Ok(Some(block(v)))
        },
        |_, _| {},
    )
    .unwrap();
    assert_eq!(sched.extra, 6, "at most as many extra as planned");
    assert_eq!(sched.rounds, 12);
    assert!(points.iter().all(|p| p.blocks.len() == 12 && p.extra == 6));
    // Tight: no extra round.
    let (points, sched) =
        in_rounds::<()>(2, 6, Some(&goal), |_| Ok(Some(block(100.0))), |_, _| {}).unwrap();
    assert_eq!((sched.rounds, sched.extra), (6, 0));
    assert!(points.iter().all(|p| p.blocks.len() == 6));
    // A pool too small for one more round: none.
    let small = PrecisionGoal::within(0.03, Duration::from_micros(500));
    let mut k = 0usize;
    let (_, sched) = in_rounds::<()>(
        2,
        6,
        Some(&small),
        |_| {
            k += 1;
            Ok(Some(block(if k.is_multiple_of(2) { 140.0 } else { 100.0 })))
        },
        |_, _| {},
    )
    .unwrap();
    assert_eq!(sched.extra, 0);
}

/// A stop signal (a block that returns `None`) ends the rounds where they were: the
/// cells keep the rounds they measured, marked as stopped.
#[test]
fn a_stop_keeps_the_rounds_measured() {
    let mut calls = 0;
    let (points, sched) = in_rounds::<()>(
        3,
        9,
        None,
        |_| {
            calls += 1;
            Ok((calls <= 7).then(|| block(100.0)))
        },
        |_, _| {},
    )
    .unwrap();
    assert!(sched.stopped);
    assert_eq!(sched.rounds, 3);
    let n: Vec<usize> = points.iter().map(|p| p.blocks.len()).collect();
    assert_eq!(
        n,
        vec![2, 2, 3],
        "round 2 began with cell 2, then stopped at cell 0"
    );
    let rp = round_plan(&plan(9, 2.0));
    let m = measurement_of(std::mem::take(&mut { points }[2]), &rp, rp.rounds, None).unwrap();
    assert_eq!(m.ns_per_load.samples, 3, "n = rounds kept");
    assert_eq!(m.blocks.as_ref().unwrap().blocks, 3);
    assert_eq!(
        m.ns_per_load.ci.map(|c| c.low),
        None,
        "fewer than six rounds: no interval"
    );
    assert!(measurement_of(Point::default(), &rp, rp.rounds, None).is_none());
}

/// A cell's figure is the median of its round medians with the interval over
/// them; the ratio to local comes from the paired rounds, with its interval, and is called
/// different only when that interval excludes 1.
#[test]
fn ratios_to_local_are_paired_over_the_rounds() {
    let topo = crate::testutil::this_machine_one_node();
    // Local drifts from 100 to 130 over the rounds; remote 1 is 1.5x local each round
    // (with a little noise), remote 2 the same as local within 1 %.
    let local: Vec<f64> = (0..9).map(|r| 100.0 + 4.0 * r as f64).collect();
    let wobble = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0, 1.008, 0.992, 1.0];
    let far: Vec<f64> = local.iter().zip(wobble).map(|(l, w)| 1.5 * l * w).collect();
    let near: Vec<f64> = local.iter().zip(wobble).map(|(l, w)| l * w).collect();
    let c = cells(
        &topo,
        vec![
            (0, 0, rounds_result(&local)),
            (0, 1, rounds_result(&far)),
            (0, 2, rounds_result(&near)),
        ],
    );
    let home = c[0].measured_ratio_interval.as_ref().unwrap();
    assert_eq!(
        (home.ratio, home.ci.map(|c| c.low), home.ci.map(|c| c.high)),
        (1.0, Some(1.0), Some(1.0))
    );
    assert_eq!(home.pairs, 9);
    let f = c[1].measured_ratio_interval.as_ref().unwrap();
    assert_eq!(c[1].measured_ratio, Some(f.ratio));
    assert!((f.ratio - 1.5).abs() < 1e-9, "{f:?}");
    // Nine pairs: the 2nd and 8th ratios, within the wobble, not the drift.
    assert!(
        f.ci.map(|c| c.low).unwrap() > 1.48 && f.ci.map(|c| c.high).unwrap() < 1.52,
        "{f:?}"
    );
    assert_eq!(
        f.ci.map(|c| c.level).map(|l| (l * 1000.0).round()),
        Some(961.0)
    );
    assert_eq!(c[1].differs_from_reference(), Some(true));
    // The unpaired intervals overlap (the drift is wider than the difference of near).
    assert_eq!(c[2].differs_from_reference(), Some(false));
    let n = c[2].measured_ratio_interval.as_ref().unwrap();
    assert!(
        n.ci.map(|c| c.low).unwrap() <= 1.0 && n.ci.map(|c| c.high).unwrap() >= 1.0,
        "{n:?}"
    );
    // Fewer than six rounds: a ratio, no interval, no call.
    let c = cells(
        &topo,
        vec![
            (0, 0, rounds_result(&local[..4])),
            (0, 1, rounds_result(&far[..4])),
        ],
    );
    let p = c[1].measured_ratio_interval.as_ref().unwrap();
    assert_eq!((p.pairs, p.ci.map(|c| c.low)), (4, None));
    assert_eq!(c[1].differs_from_reference(), None);
    // Cells measured one after the other: the quotient of medians, no interval.
    let c = cells(&topo, vec![(0, 0, result(100.0)), (0, 1, result(150.0))]);
    assert_eq!(c[1].measured_ratio, Some(1.5));
    assert_eq!(c[1].measured_ratio_interval, None);
    assert_eq!(c[1].differs_from_reference(), None);
}

/// `run`'s home cell shows the reference figure; the row keeps its paired ratios from the
/// rounds, and the unpaired fields follow the new figure.
#[test]
fn a_filled_home_cell_keeps_the_rows_paired_ratios() {
    let topo = crate::testutil::this_machine_one_node();
    let local: Vec<f64> = (0..9).map(|r| 100.0 + r as f64).collect();
    let far: Vec<f64> = local.iter().map(|l| 1.5 * l).collect();
    let mut m = Matrix {
        working_set_bytes: 1 << 28,
        mode: Mode::Random,
        page_size: PageSize::Base,
        cells: cells(
            &topo,
            vec![(0, 0, rounds_result(&local)), (0, 1, rounds_result(&far))],
        ),
    };
    with_result(&topo, &mut m, 0, 0, result(90.0));
    assert_eq!(m.cells.len(), 2);
    assert_eq!(m.cells[0].result.ns_per_load.median, 90.0);
    assert_eq!(m.cells[0].result.blocks, None);
    let p = m.cells[1].measured_ratio_interval.as_ref().unwrap();
    assert_eq!(p.pairs, 9);
    assert_eq!(m.cells[1].measured_ratio, Some(p.ratio));
    assert!((p.ratio - 1.5).abs() < 1e-9);
    // The row's paired ratio names the figure it is against: local as the rounds measured
    // it (median 104 ns), not the 90 ns the cell now shows.
    assert_eq!(m.cells[1].reference_in_rounds_ns, Some(104.0));
    assert_eq!(m.cells[0].reference_in_rounds_ns, None);
    // Without rounds anywhere, the quotient follows the new home figure.
    let mut m = Matrix {
        cells: cells(&topo, vec![(0, 0, result(100.0)), (0, 1, result(150.0))]),
        ..m
    };
    with_result(&topo, &mut m, 0, 0, result(75.0));
    assert_eq!(m.cells[1].measured_ratio, Some(2.0));
    assert_eq!(m.cells[1].measured_ratio_interval, None);
    assert_eq!(m.cells[1].reference_in_rounds_ns, None);
}
