//! Test data for the renderers: a complete results file for the dual Opteron 250 of the iXBT
//! article (symmetric 2+2, no node interleave), written to
//! `tests/fixtures/results/opteron-2node.json` so the CLI snapshot tests render a fixed file.
//!
//! Figures from the article: pseudo-random latency 45.6..48.3 ns local and 70.9..74.7 ns
//! remote, random 74.7 / 112.3 ns; average read 3618 / 2369 MB/s, average write 1616 / 1415,
//! maximum read (prefetch) 6286 / 3116, maximum write (non-temporal) 5924 / 3032; node
//! interleave 4211 MB/s and 57.5 ns. Everything else is illustrative and chosen to be
//! consistent with them: cache-level latencies from the K8's documented 3- and 12-cycle L1/L2
//! at 2.4 GHz, the loaded-latency curve, the c2c figures and the scaling points. The file is a
//! rendering fixture, not a measurement. `NUMASCOPE_BLESS=1 cargo test results_fixture`
//! rewrites it.

use serde_json::json;

use crate::results::RunResults;

fn summary(median: f64, min: f64, max: f64) -> serde_json::Value {
    json!({"median": median, "min": min, "max": max, "p90": max, "p99": max, "samples": 15})
}

fn lat_point(mode: &str, ws: u64, ns: f64, spread: f64, node: u32) -> serde_json::Value {
    json!({
        "mode": mode, "working_set_bytes": ws, "element_bytes": 64,
        "group_bytes": if mode == "page" { Some(4096) } else { None },
        "page_size": "4k", "cpu": 0, "memory_node": node,
        "placement_fraction": 1.0, "huge_fraction": 0.0, "chains": 1,
        "ns_per_load": summary(ns, ns, ns * (1.0 + spread)),
        "cycles_per_load": {"median": ns * 2.4, "min": ns * 2.4, "p90": ns * 2.4 * (1.0 + spread),
                             "p99": ns * 2.4 * (1.0 + spread), "core_hz": 2.4e9,
                             "source": "timed chain of dependent adds"},
        "loads_per_sample": 1_000_000, "warmup_samples": 3
    })
}

/// The example run.
pub fn opteron_example() -> RunResults {
    let topo: serde_json::Value = serde_json::from_str(include_str!(
        "../../tests/fixtures/topology/opteron250-2s.expected.json"
    ))
    .expect("fixture parses");
    let kib = 1024u64;
    let sizes: Vec<u64> = (4..=16).map(|p| kib << p).collect(); // 16K .. 64M
                                                                // (random, page) ns per size: L1 64K, L2 1M, then DRAM.
    let lat = |ws: u64, dram: f64| -> f64 {
        if ws <= 64 * kib {
            1.25
        } else if ws <= 1024 * kib {
            5.0
        } else if ws <= 2048 * kib {
            (5.0 + dram) / 2.0
        } else if ws <= 8192 * kib {
            dram * 0.97
        } else {
            dram
        }
    };
    let random: Vec<_> = sizes
        .iter()
        .map(|&s| lat_point("random", s, lat(s, 74.7), 0.05, 0))
        .collect();
    let page: Vec<_> = sizes
        .iter()
        .map(|&s| lat_point("page", s, lat(s, 45.6), 0.06, 0))
        .collect();
    let cell = |a: u32, b: u32, ns: f64, max: f64| {
        let mut r = lat_point("page", 16 << 20, ns, 0.0, b);
        r["ns_per_load"] = summary(ns, ns, max);
        json!({
            "initiator_node": a, "memory_node": b, "result": r,
            "slit_distance": if a == b { 10 } else { 20 },
            "hmat_read_latency_ns": null,
            "measured_ratio": ns / 45.6, "slit_ratio": if a == b { 1.0 } else { 2.0 },
            "measured_over_slit": ns / 45.6 / if a == b { 1.0 } else { 2.0 },
            "measured_over_hmat": null
        })
    };
    let bw = |kernel: &str, a: u32, b: u32, mb: f64, pm: f64| {
        json!({"kernel": kernel, "threads": 1, "initiator_node": a, "memory_node": b,
               "mb_per_s": summary(mb, mb - pm, mb + pm), "placement_fraction": 1.0})
    };
    let v = json!({
        "schema_version": 1,
        "tool_version": "0.1.0",
        "started_at": "2005-08-09T12:00:00Z",
        "host": "opteron250-example",
        "duration_s": 58.4,
        "partial": false,
        "plan": {
            "budget": "default", "target_s": 60.0, "estimate_s": 55.0,
            "parts": [
                {"part": "topology", "estimate_s": 0.1, "detail": "sysfs and procfs", "reduced": []},
                {"part": "latency", "estimate_s": 12.0, "detail": "16 KiB..64 MiB, random and page walks, 4 KiB pages, CPU 0", "reduced": []},
                {"part": "latency-matrix", "estimate_s": 6.0, "detail": "2 x 2 nodes, 16 MiB page walk", "reduced": []},
                {"part": "bandwidth", "estimate_s": 10.0, "detail": "read, write, read-prefetch, write-nt; 1 thread; local and remote", "reduced": []},
                {"part": "bandwidth-matrix", "estimate_s": 4.0, "detail": "2 x 2 nodes, read-prefetch", "reduced": []},
                {"part": "scaling", "estimate_s": 4.0, "detail": "1..2 threads, spread over nodes first", "reduced": []},
                {"part": "loaded-latency", "estimate_s": 6.0, "detail": "1 chaser, 1 load thread, 6 delays", "reduced": ["6 delays instead of 12"]},
                {"part": "c2c", "estimate_s": 1.0, "detail": "all 2 ordered pairs", "reduced": []},
                {"part": "scenarios", "estimate_s": 10.0, "detail": "(a)..(g), read-prefetch, 200 ms x 5", "reduced": []},
                {"part": "advisor", "estimate_s": 2.0, "detail": "initiator node 0", "reduced": []}
            ],
            "skipped": []
        },
        "completed": ["topology", "latency", "latency-matrix", "bandwidth", "bandwidth-matrix",
                      "scaling", "loaded-latency", "c2c", "scenarios", "advisor"],
        "failed": [],
        "topology": topo,
        "clock": {"resolution_ns": 20.0, "read_cost_ns": 21.5, "tsc_hz": 2.4e9,
                  "tsc_source": "calibrated against CLOCK_MONOTONIC",
                  "core_hz_estimate": 2.4e9, "core_hz_source": "timed chain of dependent adds"},
        "latency": {
            "schema_version": 1,
            "clock": {"resolution_ns": 20.0, "read_cost_ns": 21.5, "tsc_hz": 2.4e9,
                      "tsc_source": "calibrated against CLOCK_MONOTONIC",
                      "core_hz_estimate": 2.4e9, "core_hz_source": "timed chain of dependent adds"},
            "plan": {"samples": 15, "warmup": 3, "min_sample_ns": 2_000_000},
            "results": [],
            "sweep": [
                {"mode": "random", "page_size": "4k", "chains": 1, "points": random},
                {"mode": "page", "page_size": "4k", "chains": 1, "points": page}
            ],
            "knees": [],
            "matrix": {
                "working_set_bytes": 16u64 << 20, "mode": "page", "page_size": "4k",
                "cells": [cell(0, 0, 45.6, 48.3), cell(0, 1, 70.9, 74.7),
                          cell(1, 0, 70.9, 74.7), cell(1, 1, 45.6, 48.3)]
            },
            "warnings": []
        },
        "bandwidth": {
            "results": [
                bw("read", 0, 0, 3618.0, 3.0), bw("read", 1, 0, 2369.0, 2.0),
                bw("write", 0, 0, 1616.0, 2.0), bw("write", 1, 0, 1415.0, 2.0),
                bw("read-prefetch", 0, 0, 6286.0, 12.0), bw("read-prefetch", 1, 0, 3116.0, 8.0),
                bw("write-nt", 0, 0, 5924.0, 10.0), bw("write-nt", 1, 0, 3032.0, 8.0)
            ],
            "matrix": {
                "kernel": "read-prefetch",
                "cells": [
                    {"initiator_node": 0, "memory_node": 0, "mb_per_s": summary(6286.0, 6274.0, 6298.0)},
                    {"initiator_node": 0, "memory_node": 1, "mb_per_s": summary(3116.0, 3108.0, 3124.0)},
                    {"initiator_node": 1, "memory_node": 0, "mb_per_s": summary(3116.0, 3108.0, 3124.0)},
                    {"initiator_node": 1, "memory_node": 1, "mb_per_s": summary(6286.0, 6274.0, 6298.0)}
                ]
            }
        },
        "scaling": {
            "curves": [
                {"label": "local memory (NUMA-aware)", "points": [
                    {"threads": 1, "mb_per_s": summary(6286.0, 6274.0, 6298.0)},
                    {"threads": 2, "mb_per_s": summary(12572.0, 12540.0, 12600.0)}]},
                {"label": "all memory on node 0", "points": [
                    {"threads": 1, "mb_per_s": summary(6286.0, 6274.0, 6298.0)},
                    {"threads": 2, "mb_per_s": summary(6330.0, 6300.0, 6360.0)}]},
                {"label": "interleaved", "points": [
                    {"threads": 1, "mb_per_s": summary(4211.0, 4208.0, 4214.0)},
                    {"threads": 2, "mb_per_s": summary(8422.0, 8400.0, 8440.0)}]}
            ]
        },
        "loaded_latency": {
            "curves": [{"label": "CPU 0, local memory", "points": [
                {"delay": "idle", "load_threads": 0, "mb_per_s": 0.0, "ns_per_load": summary(45.6, 45.6, 48.3)},
                {"delay": "2000 ns", "load_threads": 1, "mb_per_s": 1200.0, "ns_per_load": summary(46.8, 46.0, 49.0)},
                {"delay": "500 ns", "load_threads": 1, "mb_per_s": 3100.0, "ns_per_load": summary(50.2, 49.0, 53.0)},
                {"delay": "200 ns", "load_threads": 1, "mb_per_s": 4700.0, "ns_per_load": summary(58.9, 57.0, 62.0)},
                {"delay": "50 ns", "load_threads": 1, "mb_per_s": 5800.0, "ns_per_load": summary(79.5, 76.0, 85.0)},
                {"delay": "none", "load_threads": 1, "mb_per_s": 6150.0, "ns_per_load": summary(121.0, 112.0, 134.0)}
            ]}]
        },
        "c2c": {
            "schema_version": 1, "cpus": [0, 1], "line_node": 0,
            "pairs": [
                {"from": 0, "to": 1, "relation": "remote", "ns_one_way": summary(96.0, 94.0, 101.0)},
                {"from": 1, "to": 0, "relation": "remote", "ns_one_way": summary(97.5, 95.0, 103.0)}
            ],
            "matrix": [[null, 96.0], [97.5, null]],
            "groups": [{"relation": "remote", "label": "different packages", "pairs": 2,
                        "ns_one_way": summary(96.75, 96.0, 97.5)}],
            "summary": "CPUs in different packages: 97 ns one way."
        },
        "scenarios": null,
        "advisor": {
            "initiator_node": 0,
            "measured_mb_per_s": [[0, 6286.0], [1, 3116.0]],
            "weights": [[0, 2], [1, 1]],
            "checks": [
                {"policy": "bind to node 0", "numactl": "numactl --cpunodebind=0 --membind=0 APP", "mb_per_s": 6286.0, "unavailable": null},
                {"policy": "interleave 0,1", "numactl": "numactl --cpunodebind=0 --interleave=0,1 APP", "mb_per_s": 4211.0, "unavailable": null},
                {"policy": "weighted 0:2,1:1", "numactl": "numactl --cpunodebind=0 --weighted-interleave=0,1 APP", "mb_per_s": null,
                 "unavailable": "Linux 2.6.32 has no weighted interleave (needs 6.9)"}
            ],
            "apply": ["echo 2 > /sys/kernel/mm/mempolicy/weighted_interleave/node0",
                      "echo 1 > /sys/kernel/mm/mempolicy/weighted_interleave/node1",
                      "numactl --cpunodebind=0 --weighted-interleave=0,1 APP"],
            "summary": "For threads on node 0, binding to node 0 (6286 MB/s) beats plain interleave (4211 MB/s); weighted interleave 2:1 could not be checked on this kernel."
        },
        "findings": [
            {"id": "remote-latency-penalty", "severity": "info",
             "text": "Remote memory costs +55% latency from node 0 (70.9 ns vs 45.6 ns local)."},
            {"id": "remote-bandwidth-penalty", "severity": "info",
             "text": "Remote memory costs -50% bandwidth from node 0 (3116 MB/s vs 6286 MB/s local, read-prefetch kernel)."},
            {"id": "policy-winner", "severity": "info",
             "text": "A NUMA-unaware multi-threaded program gets +34% bandwidth from interleaving (8422 vs 6286 MB/s): numactl --interleave=all APP."},
            {"id": "numa-balancing", "severity": "warning",
             "text": "Automatic NUMA balancing is on (numa_balancing = 1): the kernel may move remote pages during a measurement; remote figures were checked with move_pages after each run."}
        ],
        "warnings": []
    });
    let mut r: RunResults =
        serde_json::from_value(v).expect("fixture matches the results contract");
    let scenarios = crate::results::sample::opteron_scenarios();
    r.scenarios = Some(crate::results::ScenarioTable {
        kernel: "read-prefetch".into(),
        buffer_bytes_per_thread: 16 << 20,
        duration_ms: 200,
        repetitions: 5,
        home_node: 0,
        recommendations: crate::run::ranking::recommend(&scenarios),
        scenarios,
        weights: vec![(0, 2), (1, 1)],
    });
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_fixture_is_current() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/opteron-2node.json"
        );
        let json = opteron_example().to_json();
        if std::env::var_os("NUMASCOPE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(path, &json).unwrap();
        }
        let on_disk = std::fs::read_to_string(path)
            .expect("no fixture: run NUMASCOPE_BLESS=1 cargo test results_fixture");
        assert_eq!(
            on_disk, json,
            "fixture out of date: run NUMASCOPE_BLESS=1 cargo test results_fixture"
        );
        RunResults::from_json(&on_disk, "opteron-2node.json").unwrap();
    }
}
